//! Transcript checking speed: `cargo bench --bench check`.
//!
//! The yardstick from the issue: at least a million plies checked per
//! second, JSON parsing included. The transcript is made from random legal
//! games played by the reference rules, written to a temporary file, and
//! checked the way `kpe-check FILE` checks it. Two shapes: `full`, every ply
//! claiming its position, legal moves and captures (and the end where there
//! is one), about 170 bytes a ply; `minimal`, only the move and the
//! position, about 65 bytes a ply.

use std::hint::black_box;
use std::io;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kpe::check::{InputError, Run, Sink, Summary, UnitResult, check_transcript_file};
use kpe::{Game, Position, Profile};

/// Results go nowhere: only the checking is measured.
struct Discard;

impl Sink for Discard {
    fn begin(&mut self, _: &Run) -> io::Result<()> {
        Ok(())
    }
    fn unit(&mut self, unit: &UnitResult) -> io::Result<()> {
        black_box(unit);
        Ok(())
    }
    fn finish(&mut self, _: &Summary) -> io::Result<()> {
        Ok(())
    }
    fn fail(&mut self, _: &InputError) -> io::Result<()> {
        Ok(())
    }
}

/// A transcript of `games` random games of at most `max_plies` plies under
/// `profile`, and its number of plies.
fn transcript(games: usize, max_plies: usize, profile: Profile, full: bool) -> (Vec<u8>, u64) {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut plies = 0;
    let mut out = format!(
        r#"{{"format": "kpe-transcript", "version": 1, "engine": {{"name": "bench", "version": "1"}}, "profile": "{profile}", "games": ["#
    );
    for g in 0..games {
        if g > 0 {
            out.push(',');
        }
        out.push_str(&format!("\n{{\"id\": \"g{g}\", \"plies\": ["));
        let mut game = Game::new(Position::initial(), profile);
        for i in 0..max_plies {
            let legal = game.legal_moves();
            if legal.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mv = legal[(seed % legal.len() as u64) as usize];
            let report = game.play(mv).expect("legal").clone();
            let mut ply = serde_json::json!({"move": mv, "after": game.current()});
            if full {
                ply["legal"] = serde_json::json!(legal.to_vec());
                ply["captures"] = serde_json::json!(report.captures.to_vec());
            }
            if let (Some(end), true) = (report.end, full) {
                ply["game_over"] = true.into();
                ply["totals"] = serde_json::json!(end.totals);
            }
            if i > 0 {
                out.push(',');
            }
            out.push_str(&format!("\n{ply}"));
            plies += 1;
        }
        out.push_str("]}");
    }
    out.push_str("]}\n");
    (out.into_bytes(), plies)
}

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
        group.throughput(Throughput::Elements(plies));
        group.bench_function(format!("{shape} {profile} ({plies} plies)"), |b| {
            b.iter(|| {
                let summary = check_transcript_file(black_box(&path), &mut Discard)
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
