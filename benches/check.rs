//! Transcript checking speed: `cargo bench --bench check`.
//!
//! The transcript is made from random legal games played by the reference
//! rules, written to a temporary file, and checked the way `kpe-check FILE`
//! checks it. Two shapes: `full`, every ply claiming its position, legal
//! moves and captures (and the end where there is one), about 100 bytes a
//! ply; `minimal`, only the move and the position, about 60 bytes a ply.
//!
//! Each shape is measured two ways, each in plies and in bytes (MB/s)
//! a second:
//! - `parse-only`: serde_json reading the file into `IgnoredAny`, the
//!   floor of any checking (issue 11: checking should cost at most 1.5x
//!   this, and at least 2 million plies a second on one core);
//! - `check`: checking, on the calling thread (a transcript is checked on
//!   one thread: issue 47 found that `--jobs 2` took as long).
//!
//! Criterion reports means, which a shared machine's host inflates
//! unevenly; `examples/check_speed.rs` runs the same two passes on one
//! file, interleaved, and reports the fastest of each.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kpe::Profile;
use kpe::transcripts::{Options, check_transcript_file_with};
#[path = "common/discard.rs"]
mod discard;
use discard::Discard;
#[path = "common/parse_only.rs"]
mod parse_only;
use parse_only::parse_only;
#[path = "common/transcript.rs"]
mod transcript;
use transcript::transcript;

fn bench_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("check");
    group.sample_size(10);
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (profile, full) in [
        ("default", true),
        ("default", false),
        ("skip-origin,end-on-repetition", true),
    ] {
        let profile: Profile = profile.parse().expect("a profile");
        let (text, plies) = transcript(2_000, 150, profile, full);
        let shape = if full { "full" } else { "minimal" };
        let path = dir.path().join(format!("{shape}-{profile}.json"));
        std::fs::write(&path, &text).expect("the transcript is written");
        group.throughput(Throughput::ElementsAndBytes {
            elements: plies,
            bytes: text.len() as u64,
        });
        eprintln!(
            "{shape} {profile}: {} bytes, {plies} plies, {:.0} bytes a ply",
            text.len(),
            text.len() as f64 / plies as f64
        );
        group.bench_function(format!("{shape} {profile} parse-only"), |b| {
            b.iter(|| parse_only(black_box(&path)).expect("well-formed JSON"));
        });
        group.bench_function(format!("{shape} {profile} check"), |b| {
            b.iter(|| {
                let summary =
                    check_transcript_file_with(black_box(&path), &Options::default(), &mut Discard)
                        .expect("a well-formed transcript");
                assert!(summary.conforms());
                summary.plies
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench_check);
criterion_main!(benches);
