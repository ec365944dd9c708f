//! Speed of the live mode: random games checked against `kpe engine`, the
//! reference rules speaking the protocol in another process.
//!
//! `cargo bench --bench live` reports the time for 100 games (default
//! limits: at most 200 plies a game); the issue's target is a thousand
//! games in about ten seconds. The same figure from the command line:
//!
//! ```sh
//! cargo build --release
//! time KPE_CHECK_SEED=1 KPE_CHECK_GAMES=1000 KPE_CHECK_PERFT_DEPTH=0 \
//!     target/release/kpe-check examples/engines/kpe-release.json > /dev/null
//! ```

use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kpe::check::{InputError, Run, Sink, Summary, UnitResult};
use kpe::live::{LiveOptions, Manifest, check_engine};

/// Counts units and keeps nothing.
struct Count(u64);

impl Sink for Count {
    fn begin(&mut self, _: &Run) -> std::io::Result<()> {
        Ok(())
    }
    fn unit(&mut self, _: &UnitResult) -> std::io::Result<()> {
        self.0 += 1;
        Ok(())
    }
    fn finish(&mut self, _: &Summary) -> std::io::Result<()> {
        Ok(())
    }
    fn fail(&mut self, _: &InputError) -> std::io::Result<()> {
        Ok(())
    }
}

fn random_games(c: &mut Criterion) {
    const GAMES: u32 = 100;
    let manifest: Manifest = serde_json::from_value(serde_json::json!({
        "format": "kpe-engine", "version": 1,
        "command": [env!("CARGO_BIN_EXE_kpe"), "engine"],
    }))
    .expect("a valid manifest");
    let options = LiveOptions {
        seed: Some(1),
        games: Some(GAMES),
        perft_depth: Some(0),
        // Random games, and only the test fixtures' handful of scenarios
        // instead of the whole suite.
        suite: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scenarios/good")),
        progress: false,
        jobs: Some(1),
        ..LiveOptions::default()
    };
    let mut group = c.benchmark_group("live");
    group.sample_size(10);
    group.throughput(Throughput::Elements(u64::from(GAMES)));
    for jobs in [1, 2] {
        let options = LiveOptions {
            jobs: Some(jobs),
            ..options.clone()
        };
        group.bench_function(
            format!("100 random games against kpe engine, --jobs {jobs}"),
            |b| {
                b.iter(|| {
                    let mut sink = Count(0);
                    let report = check_engine(
                        &manifest,
                        Path::new("bench.json"),
                        &options,
                        &mut sink,
                        &mut std::io::sink(),
                    )
                    .expect("the report is written");
                    assert!(report.conforms());
                    sink.0
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, random_games);
criterion_main!(benches);
