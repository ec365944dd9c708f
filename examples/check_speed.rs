//! The check bench's two passes on one file, interleaved round after
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
//! (serde_json reading the file into `IgnoredAny`), and `check`, checking
//! it (on the calling thread: a transcript is checked on one thread). It
//! prints each pass's fastest, first quartile and median time, its rate
//! at the fastest (plies and MiB a second), and the ratio issue 11 sets a
//! target for: `check` over `parse-only` (at most 1.5).
//!
//! Two more passes time the parts of issue 22's other floor, on the
//! calling thread: `from-slice` (serde_json's `from_slice` into
//! `IgnoredAny` over the file already in memory) and `rules-only` (the
//! calls into the reference rules the check makes, `legal_moves` where a
//! ply claims its legal moves and `play` for every ply, on games read into
//! memory beforehand). Their sum is what reading the file as JSON and
//! asking the rules costs before any checking, so it prints that sum over
//! `from-slice`: while it is above 1.5, `check` cannot be within 1.5x of
//! `from-slice` unless the reading beats `from_slice` itself.
//!
//! Both `parse-only` and `check` run on the calling thread alone, so on
//! Unix it also prints their CPU time (the thread's, `clock_gettime`) and
//! its ratio, which the CPU the host takes from the machine does not
//! inflate; issue 22 sets its bar (`check` at most 1.5x `parse-only`) by
//! CPU time. Make the files of both orders of keys with `bench_transcript
//! full default plain` and `... sorted`.
//!
//! The floor itself moves with how the compiler splits and inlines
//! serde_json's reader in this binary (in the slowest build, `next_or_eof`
//! was a call for each byte): on the bench file (2026-12-04), `parse-only`
//! took 31-32 ms in one build of this example, 34.5-41 ms and 49-50 ms in
//! builds that differed only in code beside it, and 46-47 ms with
//! `codegen-units = 1`, while `check` stayed at 44-46 ms in all of them.
//! A ratio is worth what its floor is: compare with the fastest floor any
//! build gives.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use kpe::transcript::Transcript;
use kpe::transcripts::{Options, check_transcript_file_with};
use kpe::{Position, Profile, legal_moves, play};
use serde::de::IgnoredAny;

#[path = "../benches/common/discard.rs"]
mod discard;
use discard::Discard;
#[path = "../benches/common/parse_only.rs"]
mod parse_only;

/// The CPU time of the calling thread.
mod cpu {
    /// The CPU time the calling thread has taken, in seconds, where the
    /// system says (Unix: `clock_gettime`, to the nanosecond; Linux's
    /// `/proc/thread-self/schedstat` moves only at each 4 ms tick on the
    /// development machine).
    #[cfg(unix)]
    pub(crate) fn thread_cpu() -> Option<f64> {
        use rustix::time::{ClockId, clock_gettime};
        Some(seconds(clock_gettime(ClockId::ThreadCPUTime)))
    }

    /// No CPU time elsewhere: only the wall time is printed.
    #[cfg(not(unix))]
    pub(crate) fn thread_cpu() -> Option<f64> {
        None
    }

    #[cfg(unix)]
    fn seconds(t: rustix::time::Timespec) -> f64 {
        t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
    }

    /// Adds the CPU time since `start` to `times`, when both ends are known.
    pub(crate) fn cpu_since(start: Option<f64>, times: &mut Vec<f64>) {
        if let (Some(start), Some(end)) = (start, thread_cpu()) {
            times.push(end - start);
        }
    }

    #[cfg(all(test, unix))]
    mod tests {
        /// The clock moves by less than a millisecond at a time (a tick of
        /// the scheduler is 1 to 10 ms): the passes' tens of milliseconds
        /// are measured, not rounded. Waiting does not move it, so the
        /// machine's load does not change what this sees.
        #[test]
        fn the_threads_cpu_time_is_finer_than_a_tick() {
            let start = super::thread_cpu().unwrap();
            let step = loop {
                let now = super::thread_cpu().unwrap();
                if now != start {
                    break now - start;
                }
            };
            assert!(step > 0.0 && step < 1e-3, "the clock moved by {step} s");
        }
    }
}
use cpu::{cpu_since, thread_cpu};

/// The passes, in the order each round runs them.
const PASSES: [&str; 2] = ["parse-only", "check"];

/// Each pass's wall times and the calling thread's CPU times, round by
/// round.
#[derive(Default)]
struct Timings {
    /// `parse-only`, `check`.
    wall: [Vec<f64>; 2],
    /// For the passes run on the calling thread alone: `parse-only`,
    /// `check`, `from-slice`, `rules-only`.
    cpu: [Vec<f64>; 4],
    plies: u64,
}

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
    let read = std::fs::metadata(path)
        .map_err(|e| e.to_string())
        .and_then(|meta| Ok((meta.len(), in_memory(path)?)));
    let (bytes, (text, games)) = match read {
        Ok(read) => read,
        Err(e) => {
            eprintln!("check_speed: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    let mut timings = Timings::default();
    for _ in 0..rounds {
        if let Err((message, code)) = round(path, &text, &games, &mut timings) {
            eprintln!("check_speed: {}: {message}", path.display());
            return ExitCode::from(code);
        }
    }
    println!(
        "{}: {bytes} bytes, {} plies, {rounds} rounds",
        path.display(),
        timings.plies
    );
    print_wall(&mut timings.wall, timings.plies, bytes);
    print_cpu(&mut timings.cpu);
    ExitCode::SUCCESS
}

/// One round of every pass; what went wrong and the exit code to give.
fn round(
    path: &Path,
    text: &[u8],
    games: &Transcript,
    timings: &mut Timings,
) -> Result<(), (String, u8)> {
    let Timings { wall, cpu, plies } = timings;
    let (start, start_cpu) = (Instant::now(), thread_cpu());
    parse_only::parse_only(path).map_err(|e| (format!("not JSON serde can read: {e}"), 2))?;
    wall[0].push(start.elapsed().as_secs_f64());
    cpu_since(start_cpu, &mut cpu[0]);
    let (start, start_cpu) = (Instant::now(), thread_cpu());
    match check_transcript_file_with(path, &Options::default(), &mut Discard) {
        Ok(summary) if summary.conforms() => *plies = summary.plies,
        Ok(_) => {
            let why = "the transcript does not conform; time one that does";
            return Err((why.to_owned(), 1));
        }
        Err(e) => return Err((e.to_string(), 2)),
    }
    wall[1].push(start.elapsed().as_secs_f64());
    cpu_since(start_cpu, &mut cpu[1]);
    let start_cpu = thread_cpu();
    let IgnoredAny = std::hint::black_box(serde_json::from_slice(text)).expect("read once already");
    cpu_since(start_cpu, &mut cpu[2]);
    let start_cpu = thread_cpu();
    std::hint::black_box(rules_only(games));
    cpu_since(start_cpu, &mut cpu[3]);
    Ok(())
}

/// Each pass's fastest, first quartile and median wall time, and issue
/// 11's ratio.
fn print_wall(wall: &mut [Vec<f64>; 2], plies: u64, bytes: u64) {
    let mut fastest = [0.0; 2];
    for ((name, times), fastest) in PASSES.iter().zip(wall).zip(&mut fastest) {
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
        "check / parse-only: {:.2} (target: at most 1.5)",
        fastest[1] / fastest[0],
    );
}

/// The file's bytes, and its games as the format's types, read once
/// before the passes time anything.
fn in_memory(path: &Path) -> Result<(Vec<u8>, Transcript), String> {
    let text = std::fs::read(path).map_err(|e| e.to_string())?;
    let games = serde_json::from_slice(&text)
        .map_err(|e| format!("not a transcript serde can read: {e}"))?;
    Ok((text, games))
}

/// The calls into the rules that checking `transcript` makes, with
/// nothing around them: `legal_moves` where a ply claims its legal moves,
/// then `play`. The number of legal moves and of moves played, so that
/// none of the calls can be left out.
fn rules_only(transcript: &Transcript) -> usize {
    let profile = transcript.profile.unwrap_or(Profile::DEFAULT);
    let mut count = 0;
    for game in &transcript.games {
        let mut position = game.start.unwrap_or_else(Position::initial);
        for ply in &game.plies {
            if ply.legal.is_some() {
                count += legal_moves(&position, profile).len();
            }
            let Ok((next, _)) = play(&position, ply.mv, profile) else {
                break;
            };
            position = next;
            count += 1;
        }
    }
    count
}

/// The CPU time of each pass run on the calling thread alone, fastest and
/// median, and the ratios issue 22 sets its bar by; nothing where the
/// system does not give it.
fn print_cpu(cpu: &mut [Vec<f64>; 4]) {
    if cpu.iter().any(Vec::is_empty) {
        return;
    }
    let names = ["parse-only", "check", "from-slice", "rules-only"];
    for (name, times) in names.iter().zip(cpu.iter_mut()) {
        times.sort_by(f64::total_cmp);
        println!(
            "{name:>10}: CPU fastest {:6.1} ms, median {:6.1} ms",
            times[0] * 1e3,
            times[times.len() / 2] * 1e3,
        );
    }
    let [parse, check, slice, rules] = cpu;
    let (fast, median) = (|t: &[f64]| t[0], |t: &[f64]| t[t.len() / 2]);
    println!(
        "CPU check / parse-only: fastest {:.2}, median {:.2} (target: at most 1.5)",
        fast(check) / fast(parse),
        median(check) / median(parse),
    );
    println!(
        "CPU check / from-slice: fastest {:.2}, median {:.2} (target: at most 1.5)",
        fast(check) / fast(slice),
        median(check) / median(slice),
    );
    println!(
        "CPU (from-slice + rules-only) / from-slice: fastest {:.2}, median {:.2} \
         (the least any check reading as fast as from_slice could be)",
        (fast(slice) + fast(rules)) / fast(slice),
        (median(slice) + median(rules)) / median(slice),
    );
}

fn usage() -> ExitCode {
    eprintln!("usage: check_speed FILE [ROUNDS]   (ROUNDS: a positive number, 20 if left out)");
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules-only pass makes every call the check would: the legal
    /// moves where a ply claims them (4 each at the start) and each move,
    /// so a pass that skipped either would count less.
    #[test]
    fn the_rules_only_pass_plays_every_ply_and_lists_claimed_moves() {
        let text = r#"{"format": "kpe-transcript", "version": 1,
            "engine": {"name": "t", "version": "1"}, "games": [{"id": "g", "plies": [
            {"move": "S1", "after": "0,7,7,7/7,7,7,6 N 0/0 1---/----", "legal": ["S1","S2","S3","S4"]},
            {"move": "N1", "after": "1,8,8,8/0,8,8,7 S 0/0 1---/1---"}]}]}"#;
        let transcript: Transcript = serde_json::from_str(text).unwrap();
        assert_eq!(rules_only(&transcript), 4 + 2);
    }
}
