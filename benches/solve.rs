//! Solver speed: `cargo bench --bench solve`.
//!
//! Builds the default table up to 16 stones in memory (the layers up to 16
//! stones: 497,420 states). The full 48-stone table's figures are in
//! spec/SOLVE.md ("Measured"), from `kpe solve` itself.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use kpe::solve::{Class, Table};

fn bench_solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("solve");
    group.sample_size(10);
    // In test mode (`cargo test --benches`) each runs once: keep it small.
    let stones = if std::env::args().any(|a| a == "--bench") {
        16
    } else {
        8
    };
    group.bench_function(format!("default up to {stones} stones"), |b| {
        b.iter(|| Table::in_memory(Class::DEFAULT, black_box(stones)));
    });
    group.finish();
}

criterion_group!(benches, bench_solve);
criterion_main!(benches);
