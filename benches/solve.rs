//! Solver speed: `cargo bench --bench solve`.
//!
//! Builds the default table up to 16 stones in memory (the layers up to 16
//! stones: 497,420 states), and solves the opening of a 16-stone position
//! before the lock on it (every position before the lock that play from it
//! reaches, valued by the remembering search of `kpe solve`). The full
//! 48-stone table's figures are in spec/SOLVE.md ("Measured"), from
//! `kpe solve` itself.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use kpe::Position;
use kpe::solve::{Class, Table, exact_values};

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
    // North has never used N3 and N4 (6 stones or more each).
    let root: Position = if stones == 16 {
        "2,0,1,1/0,0,6,6 S 32/0 1234/12--"
    } else {
        "1,1,0,0/0,0,0,6 S 40/0 1234/123-"
    }
    .parse()
    .expect("a position");
    let table = Table::in_memory(Class::DEFAULT, stones);
    let profile = Class::DEFAULT.profile();
    group.bench_function(format!("opening of a {stones}-stone position"), |b| {
        b.iter(|| exact_values(&table, profile, black_box(&[root])).expect("solved"));
    });
    group.finish();
}

criterion_group!(benches, bench_solve);
criterion_main!(benches);
