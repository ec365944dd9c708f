//! A large transcript for measuring `kpe-check`: the games of
//! `examples/transcripts/conforming.json` repeated, each copy with its own
//! id, until at least PLIES plies (default 3,000,000), on stdout:
//!
//! ```sh
//! cargo build --release --bin kpe-check --example big_transcript
//! target/release/examples/big_transcript 3000000 > big.json
//! time target/release/kpe-check big.json > /dev/null
//! ```

use std::io::Write as _;

fn main() {
    let plies: usize = match std::env::args().nth(1) {
        None => 3_000_000,
        Some(n) => n.parse().unwrap_or_else(|_| {
            eprintln!("usage: big_transcript [PLIES]");
            std::process::exit(2)
        }),
    };
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/transcripts/conforming.json"
    );
    let text = std::fs::read_to_string(path).expect("the sample transcript");
    let mut transcript: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let games = transcript["games"].as_array().expect("games").clone();
    let mut out = Vec::new();
    let mut total = 0;
    for copy in 0.. {
        if total >= plies {
            break;
        }
        for game in &games {
            let mut game = game.clone();
            let id = format!("{}-{copy}", game["id"].as_str().expect("an id"));
            game["id"] = id.into();
            total += game["plies"].as_array().map_or(0, Vec::len);
            out.push(game);
        }
    }
    transcript["games"] = out.into();
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer(&mut stdout, &transcript).expect("written");
    writeln!(stdout).expect("written");
}
