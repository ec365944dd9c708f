//! Scenario file loading speed: `cargo bench --bench suite`.
//!
//! Loading must be linear in the size of the file (issue 10: finding each
//! scenario's line by rescanning the whole text made 23,000 scenarios take
//! 49 s). Two sizes of the same kind of file, ten times apart, should take
//! about ten times as long; a quadratic loader takes a hundred times as
//! long.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// A scenario file with `n` small scenarios.
fn scenarios(n: usize) -> String {
    let mut text = String::from("topic: many\nscenarios:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  - id: s-{i}\n    rules: [SOW-1]\n    description: d\n    expect:\n      - ply: 0\n        legal: [S1, S2, S3, S4]\n"
        ));
    }
    text
}

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("suite-load");
    group.sample_size(10);
    for n in [500, 5_000] {
        let text = scenarios(n);
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(format!("{n}-scenarios"), |b| {
            b.iter(|| {
                let file = kpe::scenario::parse_file("bench.yaml", black_box(&text)).unwrap();
                black_box(file.scenarios.len())
            });
        });
    }
    group.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
