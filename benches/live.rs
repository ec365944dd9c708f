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
//!
//! Before measuring, one run at `--jobs 1` prints kpe-check's own share of
//! the worker's time (1 - time waiting for the engine's replies / the
//! worker's time; issue 11's target is under 10% for `kpe engine`) and the
//! requests a second.
//!
//! `slow engine`: 5 random games against `kpe engine --fault slow`, which
//! sleeps 2 ms before each answer, at `--jobs 1` and `--jobs 2` (issue 11:
//! `--jobs 2` at least 1.7x faster on 2 cores).

use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kpe::check::{InputError, Run, Sink, Summary, UnitResult};
use kpe::live::{LiveOptions, LiveReport, Manifest, check_engine};

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

/// `kpe engine` with `args`.
fn kpe_engine(args: &[&str]) -> Manifest {
    let mut command = vec![env!("CARGO_BIN_EXE_kpe"), "engine"];
    command.extend(args);
    serde_json::from_value(serde_json::json!({
        "format": "kpe-engine", "version": 1, "command": command,
    }))
    .expect("a valid manifest")
}

fn check(manifest: &Manifest, options: &LiveOptions) -> (LiveReport, u64) {
    let mut sink = Count(0);
    let report = check_engine(
        manifest,
        Path::new("bench.json"),
        options,
        &mut sink,
        &mut std::io::sink(),
    )
    .expect("the report is written");
    assert!(report.conforms());
    (report, sink.0)
}

fn random_games(c: &mut Criterion) {
    const GAMES: u32 = 100;
    let manifest = kpe_engine(&[]);
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
    let (report, _) = check(&manifest, &options);
    let time = report.time;
    eprintln!(
        "kpe engine, --jobs 1: {} requests in {:.3} s of worker time, {:.3} s waiting for the engine: kpe-check's own share {:.1}%, {:.0} requests a second",
        time.requests,
        time.busy.as_secs_f64(),
        time.wait.as_secs_f64(),
        100.0 * time.own_share(),
        time.requests as f64 / time.busy.as_secs_f64(),
    );
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
                b.iter(|| check(&manifest, &options).1);
            },
        );
    }
    let slow = kpe_engine(&["--fault", "slow"]);
    let slow_options = LiveOptions {
        games: Some(5),
        ..options.clone()
    };
    group.throughput(Throughput::Elements(5));
    for jobs in [1, 2] {
        let options = LiveOptions {
            jobs: Some(jobs),
            ..slow_options.clone()
        };
        group.bench_function(
            format!("5 random games against a slow engine (2 ms a request), --jobs {jobs}"),
            |b| b.iter(|| check(&slow, &options).1),
        );
    }
    group.finish();
}

criterion_group!(benches, random_games);
criterion_main!(benches);
