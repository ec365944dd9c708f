//! Writes a transcript of one very long game that diverges at its last
//! ply, to measure kpe-check's memory on it (BENCHMARKS.md):
//!
//! ```text
//! cargo run --release --example long_game -- 2000000 > long.json
//! /usr/bin/time -v target/release/kpe-check long.json
//! ```
//!
//! The game circles for ever (one stone each, four pits apart, nothing to
//! capture), the way a long game does; its last ply claims a wrong position.

use std::io::{self, BufWriter, Write};

use kpe::transcript::Notation;
use kpe::{Pit, Position, Profile, play};

fn main() -> io::Result<()> {
    let plies: usize = std::env::args()
        .nth(1)
        .map_or(Ok(2_000_000), |n| n.parse())
        .unwrap_or_else(|e| panic!("the number of plies: {e}"));
    let start: Position = "1,0,0,0/1,0,0,0 S 22/24 1234/1234"
        .parse()
        .expect("a position");
    let cycle: Vec<Pit> = ["S1", "N1", "S2", "N2", "S3", "N3", "S4", "N4"]
        .iter()
        .map(|m| m.parse().expect("a pit"))
        .collect();
    let mut out = BufWriter::new(io::stdout().lock());
    write!(
        out,
        "{{\"format\": \"kpe-transcript\", \"version\": 1, \"engine\": {{\"name\": \"long\", \"version\": \"1\"}}, \"profile\": \"default\", \"games\": [{{\"id\": \"long\", \"start\": \"{start}\", \"plies\": ["
    )?;
    let mut position = start;
    for k in 0..plies {
        let mv = cycle[k % cycle.len()];
        let (next, _) = play(&position, mv, Profile::DEFAULT).expect("a legal move");
        // The last ply claims the position before the move: a divergence.
        let after = if k + 1 == plies { position } else { next };
        let sep = if k == 0 { "" } else { "," };
        write!(
            out,
            "{sep}\n{{\"move\": \"{mv}\", \"after\": \"{}\"}}",
            Notation::from(&after)
        )?;
        position = next;
    }
    writeln!(out, "]}}]}}")?;
    out.flush()
}
