//! The check bench's three passes on one file, interleaved round after
//! round in one process, with the fastest time of each: on a machine whose
//! host takes CPU at moments nobody chooses, the fastest of many
//! interleaved runs says more than a mean.
//!
//! ```sh
//! cargo build --release --example bench_transcript --example check_speed
//! target/release/examples/bench_transcript full default > bench.json
//! target/release/examples/check_speed bench.json 20
//! ```
//!
//! The passes are those of `cargo bench --bench check`: `parse-only`
//! (serde_json reading the file into `IgnoredAny`), and checking at
//! `--jobs 1` and `--jobs 2`. It prints each pass's fastest, first
//! quartile and median time, its rate at the fastest (plies and MiB a
//! second), and the two ratios issue 11 sets targets for: `jobs 1` over
//! `parse-only` (at most 1.5) and `jobs 1` over `jobs 2` (at least 1.7).

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use kpe::transcripts::{Options, check_transcript_file_with};

#[path = "../benches/common/discard.rs"]
mod discard;
use discard::Discard;
#[path = "../benches/common/parse_only.rs"]
mod parse_only;

/// The passes, in the order each round runs them.
const PASSES: [&str; 3] = ["parse-only", "jobs 1", "jobs 2"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, rounds) = match &args[..] {
        [path] => (path, Ok(20)),
        [path, rounds] => (path, rounds.parse::<usize>()),
        _ => return usage(),
    };
    let rounds = match rounds {
        Ok(n) if n > 0 => n,
        _ => return usage(),
    };
    let path = Path::new(path);
    let bytes = match std::fs::metadata(path) {
        Ok(meta) => meta.len(),
        Err(e) => {
            eprintln!("check_speed: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let mut times: [Vec<f64>; 3] = Default::default();
    let mut plies = 0;
    for _ in 0..rounds {
        let start = Instant::now();
        if let Err(e) = parse_only::parse_only(path) {
            eprintln!(
                "check_speed: {}: not JSON serde can read: {e}",
                path.display()
            );
            return ExitCode::from(2);
        }
        times[0].push(start.elapsed().as_secs_f64());
        for jobs in [1, 2] {
            let start = Instant::now();
            match check_transcript_file_with(path, &Options::jobs(jobs), &mut Discard) {
                Ok(summary) if summary.conforms() => plies = summary.plies,
                Ok(_) => {
                    eprintln!(
                        "check_speed: {}: the transcript does not conform; time one that does",
                        path.display()
                    );
                    return ExitCode::from(1);
                }
                Err(e) => {
                    eprintln!("check_speed: {}: {e}", path.display());
                    return ExitCode::from(2);
                }
            }
            times[jobs].push(start.elapsed().as_secs_f64());
        }
    }
    println!(
        "{}: {bytes} bytes, {plies} plies, {rounds} rounds",
        path.display()
    );
    let mut fastest = [0.0; 3];
    for ((name, times), fastest) in PASSES.iter().zip(&mut times).zip(&mut fastest) {
        times.sort_by(f64::total_cmp);
        *fastest = times[0];
        println!(
            "{name:>10}: fastest {:6.1} ms, quartile {:6.1} ms, median {:6.1} ms; \
             at the fastest {:.2} M plies/s, {:.0} MiB/s",
            times[0] * 1e3,
            times[times.len() / 4] * 1e3,
            times[times.len() / 2] * 1e3,
            plies as f64 / times[0] / 1e6,
            bytes as f64 / times[0] / (1024.0 * 1024.0),
        );
    }
    println!(
        "jobs 1 / parse-only: {:.2} (target: at most 1.5); jobs 1 / jobs 2: {:.2} (target: at least 1.7)",
        fastest[1] / fastest[0],
        fastest[1] / fastest[2],
    );
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("usage: check_speed FILE [ROUNDS]   (ROUNDS: a positive number, 20 if left out)");
    ExitCode::from(2)
}
