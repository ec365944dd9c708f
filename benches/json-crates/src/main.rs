//! The transcript reader against maintained JSON crates (issue 22): each
//! way of reading the check bench's transcripts, plain and sorted keys,
//! timed on one thread, fastest of several interleaved rounds, as a ratio
//! to serde_json's `from_slice` into `IgnoredAny` (the floor issue 11 and
//! 22 measure against). See README.md.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use serde::de::IgnoredAny;

#[path = "../../common/discard.rs"]
mod discard;
#[path = "../../common/transcript.rs"]
mod transcript;

use kpe::transcript::{Transcript, TranscriptGame};
use kpe::transcripts::{Options, check_transcript_file_with};
use kpe::{Game, Position, Profile};

/// The plies of `sorted` (keys in alphabetical order, as serde_json's map
/// writes them) with their keys in the order of the format instead.
fn plain(sorted: &[u8]) -> Vec<u8> {
    const ORDER: [&str; 6] = ["move", "after", "legal", "captures", "game_over", "totals"];
    let text = std::str::from_utf8(sorted).expect("UTF-8");
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, tail) = match line.strip_suffix(",\n") {
            Some(b) => (b, ",\n"),
            None => match line.strip_suffix("]}]}\n") {
                Some(b) => (b, "]}]}\n"),
                None => match line.strip_suffix("]},\n") {
                    Some(b) => (b, "]},\n"),
                    None => (line, ""),
                },
            },
        };
        match serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(body) {
            Ok(ply) if ply.contains_key("move") => {
                let fields: Vec<String> = ORDER
                    .iter()
                    .filter_map(|k| ply.get(*k).map(|v| format!("\"{k}\":{v}")))
                    .collect();
                out.push('{');
                out.push_str(&fields.join(","));
                out.push('}');
                out.push_str(tail);
            }
            _ => out.push_str(line),
        }
    }
    out.into_bytes()
}

/// The games of a transcript laid out one value a line, as the bench
/// writes them: found by `memchr` on the newline and `{"id"` before each.
fn game_spans(bytes: &[u8]) -> Vec<(usize, usize)> {
    let starts: Vec<usize> = memchr::memmem::find_iter(bytes, b"\n{\"id\"")
        .map(|at| at + 1)
        .collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &start)| {
            let end = starts.get(k + 1).map_or(bytes.len() - 3, |&next| next - 2);
            (start, end)
        })
        .collect()
}

/// Replays every game with the reference rules and compares each claimed
/// position: the rules' share of a check, which any reader pays on top.
fn replay(transcript: &Transcript, profile: Profile) -> u64 {
    let mut agree = 0;
    for game in &transcript.games {
        agree += replay_game(game, profile);
    }
    agree
}

fn replay_game(game: &TranscriptGame, profile: Profile) -> u64 {
    let mut agree = 0;
    let mut replay = Game::new(game.start.unwrap_or_else(Position::initial), profile);
    for ply in &game.plies {
        if replay.play(ply.mv).is_err() {
            break;
        }
        agree += u64::from(ply.after.to_string() == replay.current().to_string());
    }
    agree
}

type Pass<'a> = (&'static str, Box<dyn Fn() -> u64 + 'a>);

fn passes<'a>(bytes: &'a [u8], path: &'a Path, profile: Profile) -> Vec<Pass<'a>> {
    // Leaked: a few thousand pairs, for the life of the program.
    let spans: &'a [(usize, usize)] = Vec::leak(game_spans(bytes));
    vec![
        (
            "serde_json from_slice IgnoredAny (the floor)",
            Box::new(move || {
                let IgnoredAny = serde_json::from_slice(bytes).expect("JSON");
                0
            }),
        ),
        (
            "kpe-check (scan + quick reader + rules)",
            Box::new(move || {
                let summary =
                    check_transcript_file_with(path, &Options::default(), &mut discard::Discard)
                        .expect("a transcript");
                assert!(summary.conforms());
                summary.plies
            }),
        ),
        (
            "serde_json from_slice Transcript",
            Box::new(move || {
                serde_json::from_slice::<Transcript>(bytes)
                    .expect("a transcript")
                    .games
                    .len() as u64
            }),
        ),
        (
            "serde_json from_slice Transcript + rules",
            Box::new(move || {
                replay(
                    &serde_json::from_slice(bytes).expect("a transcript"),
                    profile,
                )
            }),
        ),
        (
            "serde_json per game (memchr-split) + rules",
            Box::new(move || {
                let mut agree = 0;
                for &(start, end) in spans {
                    let game: TranscriptGame =
                        serde_json::from_slice(&bytes[start..end]).expect("a game");
                    agree += replay_game(&game, profile);
                }
                agree
            }),
        ),
        (
            "serde_json StreamDeserializer over the games + rules",
            Box::new(move || {
                // The games' values, one after another: the array's commas
                // and newlines blanked out of a copy.
                let mut copy = bytes[spans[0].0..spans[spans.len() - 1].1].to_vec();
                let base = spans[0].0;
                for w in spans.windows(2) {
                    for b in &mut copy[w[0].1 - base..w[1].0 - base] {
                        *b = b' ';
                    }
                }
                let mut agree = 0;
                for game in
                    serde_json::Deserializer::from_slice(&copy).into_iter::<TranscriptGame>()
                {
                    agree += replay_game(&game.expect("a game"), profile);
                }
                agree
            }),
        ),
        (
            "simd-json IgnoredAny (copy included)",
            Box::new(move || {
                let mut copy = bytes.to_vec();
                let IgnoredAny = simd_json::serde::from_slice(&mut copy).expect("JSON");
                0
            }),
        ),
        (
            "simd-json Transcript + rules (copy included)",
            Box::new(move || {
                let mut copy = bytes.to_vec();
                replay(
                    &simd_json::serde::from_slice(&mut copy).expect("a transcript"),
                    profile,
                )
            }),
        ),
        (
            "sonic-rs IgnoredAny",
            Box::new(move || {
                let IgnoredAny = sonic_rs::from_slice(bytes).expect("JSON");
                0
            }),
        ),
        (
            "sonic-rs Transcript",
            Box::new(move || {
                sonic_rs::from_slice::<Transcript>(bytes)
                    .expect("a transcript")
                    .games
                    .len() as u64
            }),
        ),
        (
            "sonic-rs Transcript + rules",
            Box::new(move || replay(&sonic_rs::from_slice(bytes).expect("a transcript"), profile)),
        ),
        (
            "rules alone (replay of a parsed transcript)",
            Box::new({
                let parsed: Transcript = serde_json::from_slice(bytes).expect("a transcript");
                move || replay(&parsed, profile)
            }),
        ),
    ]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or(7);
    let dir = std::env::temp_dir().join(format!("kpe-json-crates-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let profile = Profile::DEFAULT;
    let (sorted, plies) = transcript::transcript(2_000, 150, profile, true);
    for (keys, bytes) in [("plain keys", plain(&sorted)), ("sorted keys", sorted)] {
        let path = dir.join(format!("{}.json", keys.replace(' ', "-")));
        std::fs::write(&path, &bytes).expect("the transcript is written");
        let passes = passes(&bytes, &path, profile);
        let mut best = vec![Duration::MAX; passes.len()];
        for _ in 0..rounds {
            for (k, (_, pass)) in passes.iter().enumerate() {
                let t = Instant::now();
                black_box(pass());
                best[k] = best[k].min(t.elapsed());
            }
        }
        println!(
            "{keys}: {} bytes, {plies} plies; fastest of {rounds} rounds, and the ratio to the floor",
            bytes.len()
        );
        for (k, (name, _)) in passes.iter().enumerate() {
            println!(
                "  {name:55} {:8.1} ms  {:5.2}x",
                best[k].as_secs_f64() * 1e3,
                best[k].as_secs_f64() / best[0].as_secs_f64()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(test)]
mod tests {
    /// The plain file has the format's order of keys, the same bytes
    /// otherwise.
    #[test]
    fn plain_reorders_the_keys_of_each_ply() {
        let sorted = b"{\"games\": [\n{\"id\": \"g0\", \"plies\": [\n{\"after\":\"p\",\"move\":\"S1\"},\n{\"after\":\"q\",\"move\":\"N1\"}]}]}\n";
        let plain = super::plain(sorted);
        assert_eq!(
            String::from_utf8(plain).unwrap(),
            "{\"games\": [\n{\"id\": \"g0\", \"plies\": [\n{\"move\":\"S1\",\"after\":\"p\"},\n{\"move\":\"N1\",\"after\":\"q\"}]}]}\n"
        );
    }
}
