//! The transcript the check bench (`cargo bench --bench check`) measures,
//! on stdout, to time `kpe-check` on it by hand:
//!
//! ```sh
//! cargo build --release --bin kpe-check --example bench_transcript
//! target/release/examples/bench_transcript full default > bench.json
//! time target/release/kpe-check bench.json --jobs 1 -q
//! ```
//!
//! Shape `full` (every ply claims its position, legal moves and captures)
//! or `minimal` (the move and the position); then the profile.

use std::io::Write as _;

#[path = "../benches/common/transcript.rs"]
mod transcript;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (full, profile) = match &args[..] {
        [shape, profile] if shape == "full" || shape == "minimal" => {
            (shape == "full", profile.parse::<kpe::Profile>())
        }
        _ => {
            eprintln!("usage: bench_transcript full|minimal PROFILE");
            std::process::exit(2)
        }
    };
    let profile = profile.unwrap_or_else(|e| {
        eprintln!("bench_transcript: {e}");
        std::process::exit(2)
    });
    let (text, plies) = transcript::transcript(2_000, 150, profile, full);
    eprintln!("{} bytes, {plies} plies", text.len());
    if let Err(e) = std::io::stdout().write_all(&text) {
        eprintln!("bench_transcript: {e}");
        std::process::exit(1)
    }
}
