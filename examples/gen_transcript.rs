//! Writes the sample transcripts in `examples/transcripts/`:
//!
//! ```sh
//! cargo run --example gen_transcript -- examples/transcripts
//! ```
//!
//! `conforming.json` is played by the reference rules. The others are played
//! by `naive-kpe`, a small stand-alone engine below (it does not use the
//! reference rules) with one typical mistake switched on, the kind of bug
//! `kpe-check` exists to find. Games are random but seeded, so the files are
//! the same on every run.

use std::fmt::Write as _;
use std::path::PathBuf;

use kpe::reporter::JsonSink;
use kpe::transcripts::check_transcript_reader;
use kpe::{Game, Position, Profile, Switch};

/// A typical mistake of a hand-written engine.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bug {
    None,
    /// The sowing plays the other reading of I1 (whether a sowing of 8+
    /// stones skips its origin pit) than the profile the engine claims.
    SkipsOrigin,
    /// Captures are allowed before all four pits were used (LOCK-1).
    CapturesWhileLocked,
    /// The capture chain runs on into the mover's own row (CAP-3).
    ChainPastRow,
    /// Any non-empty pit is legal, even when the opponent must be fed (FEED-1).
    NoFeeding,
    /// At the end each row's stones go to the wrong player (END-2).
    SweepSwapped,
}

/// naive-kpe: the whole game on plain arrays. Pits 0..4 are South's S1..S4,
/// 4..8 North's N1..N4; sowing goes from i to i+1 mod 8.
#[derive(Clone)]
struct Naive {
    pits: [u32; 8],
    captured: [u32; 2],
    side: usize,
    used: [[bool; 4]; 2],
    bug: Bug,
    /// The profile the transcript claims, which naive-kpe plays (but for
    /// its bug): the authority's default, read from spec/default.yaml.
    profile: Profile,
}

/// The profile the sample transcripts claim (`"profile": "default"`).
const CLAIMED: Profile = Profile::DEFAULT;

const NAMES: [&str; 8] = ["S1", "S2", "S3", "S4", "N1", "N2", "N3", "N4"];

impl Naive {
    fn new(bug: Bug) -> Naive {
        Naive {
            pits: [6; 8],
            captured: [0; 2],
            side: 0,
            used: [[false; 4]; 2],
            bug,
            profile: CLAIMED,
        }
    }

    fn own(side: usize) -> std::ops::Range<usize> {
        side * 4..side * 4 + 4
    }

    fn row(&self, side: usize) -> u32 {
        Self::own(side).map(|i| self.pits[i]).sum()
    }

    /// Where a sowing from `pit` puts its stones.
    fn sowing(&self, pit: usize) -> Vec<usize> {
        let mut cells = Vec::new();
        let mut at = pit;
        while cells.len() < self.pits[pit] as usize {
            at = (at + 1) % 8;
            // SOW-4 (I1): coming back around to the origin, as the claimed
            // profile says, or with the bug the other reading.
            let skip = self.profile.has(Switch::SkipOrigin) != (self.bug == Bug::SkipsOrigin);
            if at == pit && skip {
                continue;
            }
            cells.push(at);
        }
        cells
    }

    fn legal(&self) -> Vec<usize> {
        let moves: Vec<usize> = Self::own(self.side).filter(|&i| self.pits[i] > 0).collect();
        let opponent = 1 - self.side;
        if self.row(opponent) > 0 || self.bug == Bug::NoFeeding {
            return moves;
        }
        // FEED-2 (I3): what feeds, as the claimed profile says.
        let feeds = |i: usize| {
            if self.profile.has(Switch::FeedAfterCapture) {
                let mut after = self.clone();
                after.play(i);
                after.row(opponent) > 0
            } else {
                self.sowing(i).iter().any(|&c| c / 4 == opponent)
            }
        };
        let feeding: Vec<usize> = moves.iter().copied().filter(|&i| feeds(i)).collect();
        if !feeding.is_empty() {
            feeding
        } else if self.profile.has(Switch::EndWhenUnfeedable) {
            // FEED-3 (I4): nobody can feed, so the game ends.
            Vec::new()
        } else {
            moves
        }
    }

    /// Plays `pit`; returns the captures.
    fn play(&mut self, pit: usize) -> Vec<(usize, u32)> {
        let mover = self.side;
        let cells = self.sowing(pit);
        self.pits[pit] = 0;
        for &c in &cells {
            self.pits[c] += 1;
        }
        // LOCK-3 (I2): whether the unlocking move itself may capture.
        let unlocked_before = self.used[mover].iter().all(|&u| u);
        self.used[mover][pit % 4] = true;
        let unlocked = if self.profile.has(Switch::StrictLock) {
            unlocked_before
        } else {
            self.used[mover].iter().all(|&u| u)
        } || self.bug == Bug::CapturesWhileLocked;
        let mut captures = Vec::new();
        let mut at = *cells.last().expect("a move sows at least one stone");
        if unlocked && at / 4 != mover {
            loop {
                let theirs = at / 4 != mover || self.bug == Bug::ChainPastRow;
                if !theirs || !matches!(self.pits[at], 2 | 4) {
                    break;
                }
                captures.push((at, self.pits[at]));
                self.captured[mover] += self.pits[at];
                self.pits[at] = 0;
                at = (at + 7) % 8;
            }
        }
        self.side = 1 - mover;
        captures
    }

    fn totals(&self) -> [u32; 2] {
        if self.bug == Bug::SweepSwapped {
            return [
                self.captured[0] + self.row(1),
                self.captured[1] + self.row(0),
            ];
        }
        [
            self.captured[0] + self.row(0),
            self.captured[1] + self.row(1),
        ]
    }

    fn notation(&self) -> String {
        let p = self.pits.map(|n| n.to_string());
        let used = |s: usize| -> String {
            (0..4)
                .map(|k| {
                    if self.used[s][k] {
                        char::from(b'1' + k as u8)
                    } else {
                        '-'
                    }
                })
                .collect()
        };
        format!(
            "{}/{} {} {}/{} {}/{}",
            p[..4].join(","),
            p[4..].join(","),
            if self.side == 0 { "S" } else { "N" },
            self.captured[0],
            self.captured[1],
            used(0),
            used(1)
        )
    }
}

/// A small deterministic random source (xorshift64, seeded by splitmix64).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng((z ^ (z >> 31)) | 1)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        items[(self.0 % items.len() as u64) as usize]
    }
}

fn list(items: impl IntoIterator<Item = String>) -> String {
    items
        .into_iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One ply as a line of JSON.
fn ply_line(
    mv: &str,
    after: &str,
    legal: &[String],
    captures: &[(String, u32)],
    end: Option<[u32; 2]>,
) -> String {
    let caps: Vec<String> = captures
        .iter()
        .map(|(p, n)| format!("{{\"pit\": \"{p}\", \"stones\": {n}}}"))
        .collect();
    let mut line = format!(
        "{{\"move\": \"{mv}\", \"after\": \"{after}\", \"legal\": [{}], \"captures\": [{}]",
        list(legal.iter().cloned()),
        caps.join(", ")
    );
    if let Some([s, n]) = end {
        let _ = write!(line, ", \"game_over\": true, \"totals\": [{s}, {n}]");
    }
    line.push('}');
    line
}

/// A game by naive-kpe: at most `max` plies.
fn naive_game(bug: Bug, seed: u64, max: usize) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut game = Naive::new(bug);
    let mut lines = Vec::new();
    for _ in 0..max {
        let legal = game.legal();
        if legal.is_empty() {
            break;
        }
        let pit = rng.pick(&legal);
        let captures = game.play(pit);
        let over = game.legal().is_empty();
        lines.push(ply_line(
            NAMES[pit],
            &game.notation(),
            &legal
                .iter()
                .map(|&i| NAMES[i].to_owned())
                .collect::<Vec<_>>(),
            &captures
                .iter()
                .map(|&(p, n)| (NAMES[p].to_owned(), n))
                .collect::<Vec<_>>(),
            over.then(|| game.totals()),
        ));
        if over {
            break;
        }
    }
    lines
}

/// A game by the reference rules.
fn reference_game(start: Position, seed: u64, max: usize) -> Vec<String> {
    let mut rng = Rng::new(seed);
    let mut game = Game::new(start, CLAIMED);
    let mut lines = Vec::new();
    for _ in 0..max {
        let legal = game.legal_moves();
        if legal.is_empty() {
            break;
        }
        let pit = rng.pick(&legal);
        let report = game.play(pit).expect("a legal move plays").clone();
        lines.push(ply_line(
            &pit.to_string(),
            &game.current().to_string(),
            &legal.iter().map(ToString::to_string).collect::<Vec<_>>(),
            &report
                .captures
                .iter()
                .map(|c| (c.pit.to_string(), u32::from(c.stones)))
                .collect::<Vec<_>>(),
            report.end.map(|e| e.totals.map(u32::from)),
        ));
    }
    lines
}

fn transcript(
    engine: &str,
    version: &str,
    games: &[(String, Option<String>, Vec<String>)],
) -> String {
    let mut out = format!(
        "{{\n  \"format\": \"kpe-transcript\",\n  \"version\": 1,\n  \"engine\": {{\"name\": \"{engine}\", \"version\": \"{version}\"}},\n  \"profile\": \"{CLAIMED}\",\n  \"games\": [\n"
    );
    for (k, (id, start, plies)) in games.iter().enumerate() {
        let start = start
            .as_ref()
            .map(|s| format!(", \"start\": \"{s}\""))
            .unwrap_or_default();
        let _ = writeln!(out, "    {{\"id\": \"{id}\"{start}, \"plies\": [");
        for (i, line) in plies.iter().enumerate() {
            let comma = if i + 1 < plies.len() { "," } else { "" };
            let _ = writeln!(out, "      {line}{comma}");
        }
        let comma = if k + 1 < games.len() { "," } else { "" };
        let _ = writeln!(out, "    ]}}{comma}");
    }
    out.push_str("  ]\n}\n");
    out
}

/// Whether a one-game transcript conforms, and at which ply it diverges.
fn first_divergence(engine: &str, plies: &[String]) -> Option<u64> {
    let text = transcript(engine, "0", &[("g".to_owned(), None, plies.to_vec())]);
    let mut sink = JsonSink::new(Vec::new());
    check_transcript_reader("generated", text.as_bytes(), &mut sink)
        .expect("generated transcripts are well-formed");
    let json: serde_json::Value =
        serde_json::from_slice(&sink.into_inner()).expect("the report is JSON");
    json["units"][0]["divergence"]["ply"].as_u64()
}

/// Two games: the opening of a game the bug does not touch (or, when the
/// bug shows in every opening, another game where it shows), and the seeded
/// game in which the bug shows earliest, cut two plies after it shows (or
/// played to the end when `complete`, for bugs that show only at the end).
fn sample(bug: Bug, complete: bool) -> Vec<(String, Option<String>, Vec<String>)> {
    let mut clean = None;
    let mut divergent: Vec<(u64, u64, Vec<String>)> = Vec::new();
    for seed in 1..3000u64 {
        let plies = naive_game(bug, seed, 150);
        let finished = plies.last().is_some_and(|l| l.contains("game_over"));
        let diverges_at = first_divergence("naive-kpe", &plies);
        let clean_plies = diverges_at
            .map_or(plies.len(), |ply| ply as usize - 1)
            .min(16);
        if clean.is_none() && clean_plies >= 6 {
            clean = Some((format!("seed-{seed}"), None, plies[..clean_plies].to_vec()));
        }
        if let Some(ply) = diverges_at
            && (finished || !complete)
        {
            let size = if complete { plies.len() as u64 } else { ply };
            let keep = if complete {
                plies.len()
            } else {
                (ply as usize + 2).min(plies.len())
            };
            divergent.push((seed, size, plies[..keep].to_vec()));
        }
    }
    divergent.sort_by_key(|(seed, size, _)| (*size, *seed));
    let mut games: Vec<_> = divergent
        .into_iter()
        .take(2)
        .map(|(seed, _, plies)| (format!("seed-{seed}"), None, plies))
        .collect();
    assert!(!games.is_empty(), "the bug shows in some game");
    if let Some(clean) = clean {
        games[1] = clean;
        games.swap(0, 1);
    }
    games
}

fn main() {
    let dir: PathBuf = std::env::args_os()
        .nth(1)
        .map_or_else(|| "examples/transcripts".into(), PathBuf::from);
    std::fs::create_dir_all(&dir).expect("the output directory can be made");
    let write = |name: &str, text: String| {
        std::fs::write(dir.join(name), text).expect("the file can be written");
        println!("wrote {}", dir.join(name).display());
    };

    let chase: Position = "1,0,0,0/1,0,0,0 S 22/24 1234/1234".parse().expect("valid");
    // Two short complete random games, then the chase from a given start.
    let mut games = Vec::new();
    for seed in 1u64.. {
        let plies = reference_game(Position::initial(), seed, 200);
        if plies.len() <= 60 && plies.last().is_some_and(|l| l.contains("game_over")) {
            games.push((format!("random-{seed}"), None, plies));
        }
        if games.len() == 2 {
            break;
        }
    }
    games.push((
        "chase".to_owned(),
        Some(chase.to_string()),
        reference_game(chase, 5, 12),
    ));
    write(
        "conforming.json",
        transcript("kpe-reference", env!("CARGO_PKG_VERSION"), &games),
    );

    let cases = [
        ("skip-origin.json", Bug::SkipsOrigin, false),
        ("capture-while-locked.json", Bug::CapturesWhileLocked, false),
        ("chain-past-row.json", Bug::ChainPastRow, false),
        ("no-feeding.json", Bug::NoFeeding, false),
        ("wrong-sweep.json", Bug::SweepSwapped, true),
    ];
    for (name, bug, complete) in cases {
        write(name, transcript("naive-kpe", "0.1", &sample(bug, complete)));
    }

    // naive-kpe without its bug agrees with the reference rules.
    for seed in 1..50 {
        let plies = naive_game(Bug::None, seed, 150);
        assert_eq!(first_divergence("naive-kpe", &plies), None, "seed {seed}");
    }
}
