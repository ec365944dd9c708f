//! Speed of the live mode: random games checked against `kpe engine`, the
//! reference rules speaking the protocol in another process.
//!
//! `cargo bench --bench live` reports the time for 100 games (default
//! limits: at most 200 plies a game); the issue's target is a thousand
//! games in about ten seconds. The same figure from the command line:
//!
//! ```sh
//! cargo build --release
//! export PATH="${CARGO_TARGET_DIR:-$PWD/target}/release:$PATH"   # the manifest runs `kpe` from PATH
//! time KPE_CHECK_SEED=1 KPE_CHECK_GAMES=1000 KPE_CHECK_PERFT_DEPTH=0 \
//!     kpe-check examples/engines/kpe-release.json > /dev/null
//! ```
//!
//! Before measuring, it runs the same 100 games three times against `kpe
//! engine` and three times against an engine that answers from a table
//! (`common/table_engine.rs`: this bench binary, its table recorded from
//! the reference engine first), in turn, and prints for each run:
//! kpe-check's own share of the worker's time (1 - time waiting for the
//! engine's replies / the worker's time; issue 11's target is under 10%
//! for `kpe engine`), the requests a second, kpe-check's own time and the
//! wait a request, and (on Linux) the CPU time a request of kpe-check's
//! threads and of the engine's process; then the medians. Against the
//! table engine, which does next to nothing of its own, the wait is what
//! the pipes between two processes and the host's wake-ups take.
//!
//! The runs printed are of 300 games (`KPE_BENCH_CPU_GAMES` sets another
//! number), so that CPU times counted in ticks of 10 ms are good to about
//! 1%; the last line gives the medians of both sides' CPU a request
//! (issue 22: kpe-check's no more than the engine's), each also split into
//! user and system time (that split is sampled at each tick, so it is good
//! only to a few tenths of a microsecond). The CPU times are
//! those `getrusage` gives for `RUSAGE_SELF` and `RUSAGE_CHILDREN`, read
//! from `/proc/self/stat` (the crate forbids the `unsafe` a libc call
//! needs); the engines are reaped by the end of each run, so their time is
//! in the children's.
//!
//! Issue 22, 2026-12-03, load 5 to 7 from other sessions on the 2 cores:
//! kpe-check 4.05 to 4.16 us a request (about 0.9 user, 3.1 system), the
//! engine 3.35 to 3.58 us (about 1.2 user, 2.2 system); before that
//! day's changes 4.28 us against 3.35. The gap is kernel time: kpe-check
//! makes 3.1 system calls a request to the engine's 2 (the read that looks
//! for a line out of turn before each request, and a poll when the reply
//! is not there yet), and its write wakes the engine. On the same machine
//! idle (load under 1), both sides cost five times as much, nearly all
//! system time (each wait lets a core go idle and be woken): kpe-check
//! 22.0 to 22.9 us against 19.5 to 22.2 us (ratio 1.01 to 1.17; 1.12 to
//! 1.14 before), and 1,000 games take 16.8 s at `--jobs 1` against 1.2 s
//! at `--jobs 2` (20.7 s at `--jobs 1` before), 4.1 system calls a request.
//!
//! Issue 22, 2026-12-04, with each worker and its engine pinned to one
//! core (src/live/pin.rs), load 1.6 to 2: kpe-check 3.7 to 3.8 us a
//! request (about 1.0 user, 2.8 system), the engine 3.1 to 3.4 us (about
//! 1.2 user, 2.2 system), ratio 1.18: both sides five to six times less
//! than unpinned on the idle machine. kpe-check makes 3.5 system calls a
//! request (strace, 100 games): the out-of-turn read before each request,
//! the write, the read of the reply, and a poll for about half of them.
//! Dropping the out-of-turn read saved about 4% of the run's CPU, so it
//! stays. 1,000 games: 2.1 s at `--jobs 1` against 1.05 s at `--jobs 2`
//! (14.4 s at `--jobs 1` unpinned); each run keeps its cores busy, so
//! `--jobs 1` cannot come nearer than 2x without overlapping the checker's
//! work with the engine's. The own share above is now about 15%: the wait
//! fell from about 20 to 6 us, kpe-check's own time stayed at 1.0 us.
//!
//! Issue 22, 2026-12-04, later: the manifest's `pipeline` (spec/PROTOCOL.md,
//! "Pipelining"). The bench also runs `kpe engine` with a pipeline of 16,
//! at `--jobs 2` (each engine on its worker's core, the default on 2 cores)
//! and at `--jobs 1` (the engine on a core of its own), over ten times the
//! games, and prints a CPU line for each. Load 1 to 1.5: one request at a
//! time, kpe-check 3.70 us a request against the engine's 3.24 (ratio
//! 1.14); pipeline 16 at `--jobs 2`, kpe-check 1.08 us against 1.21 (ratio
//! 0.89); at `--jobs 1`, 1.94 against 1.70 (ratio 1.14: on two cores each
//! side's waits wake a core, which kpe-check pays for the wall time it
//! buys). Then, with kpe-check's wait there yielding and reading a few
//! times before it sleeps (src/live/process/lines.rs, load 1.7): 1.37
//! against 1.09 (ratio 1.26, both sides lower; `--jobs 2` 1.09 against
//! 1.31, 0.83). System calls (`strace -ff`, 100 games): kpe-check 0.90 a request
//! at `--jobs 2` and 0.98 at `--jobs 1`, the engine 1.16. 1,000 games
//! (`KPE_CHECK_SEED=1 KPE_CHECK_GAMES=1000 KPE_CHECK_PERFT_DEPTH=0
//! kpe-check examples/engines/kpe-release.json`, which sets `pipeline`:
//! 16), medians of 7 interleaved runs: 0.57 s at `--jobs 1` against 0.40 s
//! at `--jobs 2` (1.43x; one request at a time, 2.1 s and 1.05 s), and
//! 0.51 s (0.50 to 0.52) against 0.39 s (1.31x) once the wait spins. A
//! pipeline of 64 makes `--jobs 2` faster (0.33 s) but not `--jobs 1`
//! (0.57 s).
//!
//! Issue 22, 2026-12-05: each CPU line also gives kpe-check's system calls
//! a request, counted by the engine layer itself (`WorkerTime::calls`:
//! each read, write, poll and yield of requests and replies, and each move
//! between cores; Unix only), so the bar of at most 3 no longer needs
//! `strace` by hand. Load 1 to 1.8: one request at a time 3.51 to 3.53
//! (as `strace` counted), pipeline 16 at `--jobs 2` 0.31, at `--jobs 1`
//! 1.80 (the yields of the spinning wait); CPU ratios 1.14, 0.86 and 1.22.
//!
//! Issue 42, 2026-12-06: the engine on a core of its own and the spinning
//! wait are gone. On a busy machine they were 3x slower than not pinning
//! at load 20 and 14 to 19x at load 35 to 87, and errored a correct engine
//! once in nine runs; the figures above for `--jobs 1` with a pipeline are
//! history. With a pipeline every engine now shares its worker's core, at
//! any `--jobs`.
//!
//! `slow engine`: 5 random games against `kpe engine --fault slow`, which
//! sleeps 2 ms before each answer, at `--jobs 1` and `--jobs 2` (issue 11:
//! `--jobs 2` at least 1.7x faster on 2 cores).

#[path = "common/table_engine.rs"]
mod table_engine;

use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group};
use kpe::live::WorkerTime;
use kpe::live::{LiveOptions, LiveReport, Manifest, check_engine};
use kpe::reporter::{InputError, Run, Sink, Summary, UnitResult};

/// Counts units and keeps nothing.
struct Count(u64);

impl Sink for Count {
    fn begin(&mut self, _: &Run) -> std::io::Result<()> {
        Ok(())
    }
    fn unit(&mut self, _: &UnitResult) -> std::io::Result<()> {
        self.0 += 1;
        Ok(())
    }
    fn finish(&mut self, _: &Summary) -> std::io::Result<()> {
        Ok(())
    }
    fn fail(&mut self, _: &InputError) -> std::io::Result<()> {
        Ok(())
    }
}

/// `kpe engine` with `args`.
fn kpe_engine(args: &[&str]) -> Manifest {
    pipelined(args, 1)
}

/// `kpe engine` with `args`, with up to `depth` requests unanswered at
/// once.
fn pipelined(args: &[&str], depth: u32) -> Manifest {
    let mut command = vec![env!("CARGO_BIN_EXE_kpe"), "engine"];
    command.extend(args);
    serde_json::from_value(serde_json::json!({
        "format": "kpe-engine", "version": 1, "command": command, "pipeline": depth,
    }))
    .expect("a valid manifest")
}

/// The depth of the pipeline measured beside one request at a time.
const PIPELINE: u32 = 16;

fn check(manifest: &Manifest, options: &LiveOptions) -> (LiveReport, u64) {
    let mut sink = Count(0);
    let report = check_engine(manifest, Path::new("bench.json"), options, &mut sink)
        .expect("the report is written");
    assert!(report.conforms());
    (report, sink.0)
}

/// Games of each run whose CPU time is printed: `KPE_BENCH_CPU_GAMES`, or
/// 300 (some 87,000 requests, so that the CPU times, counted in ticks of
/// 10 ms, are good to about 1%) under `cargo bench`, 10 when `cargo test`
/// runs the bench once to see that it works.
fn cpu_games() -> u32 {
    let benching = std::env::args().any(|a| a == "--bench");
    std::env::var("KPE_BENCH_CPU_GAMES")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(if benching { 300 } else { 10 })
}

fn random_games(c: &mut Criterion) {
    const GAMES: u32 = 100;
    let manifest = kpe_engine(&[]);
    let options = LiveOptions {
        seed: Some(1),
        games: Some(cpu_games()),
        perft_depth: Some(0),
        // Random games, and only the test fixtures' handful of scenarios
        // instead of the whole suite.
        suite: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scenarios/good")),
        progress: false,
        jobs: Some(1),
        ..LiveOptions::default()
    };
    // The same questions, answered from a table recorded from the
    // reference engine; the two engines in turn, three runs each (the
    // host's wake-up latency moves every wait from run to run).
    let dir = tempfile::tempdir().expect("a temporary directory");
    let table = dir.path().join("table.jsonl");
    // Recorded over as many games as any run here asks about.
    let recorded = LiveOptions {
        games: Some(GAMES.max(cpu_games())),
        ..options.clone()
    };
    check(&table_engine::manifest("record", &table), &recorded);
    let from_table = table_engine::manifest("table", &table);
    let (mut kpe, mut tabled) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        kpe.push(timed(|| check(&manifest, &options).0.time));
        tabled.push(timed(|| check(&from_table, &options).0.time));
    }
    assert!(
        tabled.iter().all(|t| t.0.requests == kpe[0].0.requests),
        "every question was in the table"
    );
    print_times(&kpe, &tabled);
    print_pipelined(&options);
    let options = LiveOptions {
        games: Some(GAMES),
        ..options
    };
    let mut group = c.benchmark_group("live");
    group.sample_size(10);
    group.throughput(Throughput::Elements(u64::from(GAMES)));
    for jobs in [1, 2] {
        let options = LiveOptions {
            jobs: Some(jobs),
            ..options.clone()
        };
        group.bench_function(
            format!("100 random games against kpe engine, --jobs {jobs}"),
            |b| {
                b.iter(|| check(&manifest, &options).1);
            },
        );
    }
    let slow = kpe_engine(&["--fault", "slow"]);
    let slow_options = LiveOptions {
        games: Some(5),
        ..options.clone()
    };
    group.throughput(Throughput::Elements(5));
    for jobs in [1, 2] {
        let options = LiveOptions {
            jobs: Some(jobs),
            ..slow_options.clone()
        };
        group.bench_function(
            format!("5 random games against a slow engine (2 ms a request), --jobs {jobs}"),
            |b| b.iter(|| check(&slow, &options).1),
        );
    }
    group.bench_function("100 random games against a table engine, --jobs 1", |b| {
        b.iter(|| check(&from_table, &options).1)
    });
    group.finish();
}

/// Runs `kpe engine` with a pipeline, three times at `--jobs 2` and three
/// at `--jobs 1`, with `options` otherwise, and prints both sides' CPU a
/// request for each.
fn print_pipelined(options: &LiveOptions) {
    // With a pipeline, each engine shares its worker's core at any
    // `--jobs` (src/live/pin.rs).
    // Ten times the games: a request costs a third as much, and the CPU
    // times still come in ticks of 10 ms.
    let ahead = pipelined(&[], PIPELINE);
    for jobs in [2, 1] {
        let options = LiveOptions {
            jobs: Some(jobs),
            games: Some(10 * cpu_games()),
            ..options.clone()
        };
        let runs: Vec<Timed> = (0..3)
            .map(|_| timed(|| check(&ahead, &options).0.time))
            .collect();
        print_cpu(
            &format!("pipeline {PIPELINE}, --jobs {jobs}, each engine beside its worker"),
            &runs,
        );
    }
}

/// CPU time of one side, in seconds: in user space and in the kernel.
#[derive(Clone, Copy)]
struct Cpu {
    user: f64,
    system: f64,
}

impl Cpu {
    fn total(self) -> f64 {
        self.user + self.system
    }

    fn minus(self, before: Cpu) -> Cpu {
        Cpu {
            user: self.user - before.user,
            system: self.system - before.system,
        }
    }

    /// Microseconds a request, in all, in user space and in the kernel.
    fn per_request(self, requests: u64) -> [f64; 3] {
        let us = |s: f64| 1e6 * s / requests.max(1) as f64;
        [us(self.total()), us(self.user), us(self.system)]
    }
}

/// CPU time so far: this process's (kpe-check's threads) and that of its
/// children waited for (the engines), from `/proc/self/stat` (Linux, in
/// ticks of 1/100 s); `None` elsewhere.
fn cpu_times() -> Option<(Cpu, Cpu)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command's name, from the third (the state).
    let fields: Vec<u64> = stat
        .rsplit_once(')')?
        .1
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let ticks = |k: usize| fields.get(k - 4).map(|&t| t as f64 / 100.0);
    let own = Cpu {
        user: ticks(14)?,
        system: ticks(15)?,
    };
    let children = Cpu {
        user: ticks(16)?,
        system: ticks(17)?,
    };
    Some((own, children))
}

/// A run's worker time, with the CPU time it took on kpe-check's side and
/// on the engines' (if known).
type Timed = (WorkerTime, Option<(Cpu, Cpu)>);

fn timed(run: impl FnOnce() -> WorkerTime) -> Timed {
    let before = cpu_times();
    let time = run();
    let cpu = before
        .zip(cpu_times())
        .map(|((own, engines), (own_after, engines_after))| {
            (own_after.minus(own), engines_after.minus(engines))
        });
    (time, cpu)
}

/// Microseconds a request: kpe-check's own, and waiting for the engine.
fn per_request(time: &WorkerTime) -> (f64, f64) {
    let us = |d: Duration| 1e6 * d.as_secs_f64() / time.requests.max(1) as f64;
    (us(time.busy.saturating_sub(time.wait)), us(time.wait))
}

/// kpe-check's system calls a request, where they are counted.
fn calls_per_request(time: &WorkerTime) -> Option<f64> {
    Some(time.calls? as f64 / time.requests.max(1) as f64)
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Prints each run against `kpe engine` and against the table engine,
/// then the medians: kpe-check's own time and the wait a request, and the
/// CPU time a request on each side.
fn print_times(kpe: &[Timed], tabled: &[Timed]) {
    for (engine, times) in [("kpe engine", kpe), ("table engine", tabled)] {
        for (time, cpu) in times {
            let (own, wait) = per_request(time);
            let cpu = cpu.map_or(String::new(), |(own, engines)| {
                let [own, own_user, own_system] = own.per_request(time.requests);
                let [engine, engine_user, engine_system] = engines.per_request(time.requests);
                format!(
                    "; CPU a request: {own:.1} us kpe-check's threads ({own_user:.1} user, {own_system:.1} system), {engine:.1} us the engine's ({engine_user:.1} user, {engine_system:.1} system)",
                )
            });
            let calls = calls_per_request(time)
                .map_or(String::new(), |calls| format!(", {calls:.2} system calls"));
            eprintln!(
                "{engine}, --jobs 1: {} requests in {:.3} s of worker time, {:.3} s waiting for the engine: kpe-check's own share {:.1}%, {:.0} requests a second; a request: {own:.1} us kpe-check's own, {wait:.1} us waiting{calls}{cpu}",
                time.requests,
                time.busy.as_secs_f64(),
                time.wait.as_secs_f64(),
                100.0 * time.own_share(),
                time.requests as f64 / time.busy.as_secs_f64(),
            );
        }
    }
    let medians = |times: &[Timed]| {
        let (own, wait): (Vec<f64>, Vec<f64>) = times.iter().map(|t| per_request(&t.0)).unzip();
        let share = median(times.iter().map(|t| 100.0 * t.0.own_share()).collect());
        (median(own), median(wait), share)
    };
    let (own, wait, share) = medians(kpe);
    let (table_own, table_wait, _) = medians(tabled);
    eprintln!(
        "medians a request: kpe-check's own {own:.1} us against kpe engine, {table_own:.1} us against the table engine; waiting {wait:.1} us and {table_wait:.1} us; kpe-check's own share with kpe engine {share:.1}% (target: under 10%)",
    );
    print_cpu("one request at a time, --jobs 1", kpe);
}

/// The median CPU time a request on each side of the runs `kpe` against
/// `kpe engine`, run as `how`.
fn print_cpu(how: &str, kpe: &[Timed]) {
    // Microseconds a request, in all, in user space and in the kernel:
    // kpe-check's, then the engine's.
    type Sides = ([f64; 3], [f64; 3]);
    let cpu: Vec<Sides> = kpe
        .iter()
        .filter_map(|(time, cpu)| {
            cpu.map(|(own, engine)| {
                (
                    own.per_request(time.requests),
                    engine.per_request(time.requests),
                )
            })
        })
        .collect();
    let calls: Vec<f64> = kpe
        .iter()
        .filter_map(|(time, _)| calls_per_request(time))
        .collect();
    let calls = if calls.is_empty() {
        String::new()
    } else {
        format!(
            "; kpe-check's system calls a request (reads, writes, polls, yields, moves between cores): {:.2} (issue 22: at most 3)",
            median(calls)
        )
    };
    if !cpu.is_empty() {
        let side = |pick: fn(&Sides) -> [f64; 3]| {
            [0, 1, 2].map(|k| median(cpu.iter().map(|c| pick(c)[k]).collect()))
        };
        let [checker, checker_user, checker_system] = side(|c| c.0);
        let [engine, engine_user, engine_system] = side(|c| c.1);
        eprintln!(
            "live cost, {how}, median CPU a request against kpe engine: kpe-check {checker:.2} us ({checker_user:.2} user, {checker_system:.2} system), the engine {engine:.2} us ({engine_user:.2} user, {engine_system:.2} system) (issue 22: kpe-check's not above the engine's; ratio {:.2}){calls}",
            checker / engine
        );
    }
}

criterion_group!(benches, random_games);

fn main() {
    // Started by kpe-check as the table engine, or to record its table.
    if table_engine::run_if_asked() {
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
