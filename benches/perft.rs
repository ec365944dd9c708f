//! Perft speed: `cargo bench --bench perft`.
//!
//! The yardstick from the spec issue: `kpe perft 13` (about 41 million leaves)
//! in a couple of seconds in a release build on one core.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use kpe::{Position, Profile, perft};

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for profile in ["default", "skip-origin,end-on-repetition"] {
        let rules: Profile = profile.parse().expect("valid profile");
        group.bench_function(format!("depth 9 {profile}"), |b| {
            b.iter(|| perft(black_box(&Position::initial()), 9, rules));
        });
    }
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
