//! A manifest's `pipeline` (spec/PROTOCOL.md, "Pipelining"): several
//! requests of a random game written before their answers are read. It
//! changes how fast a run goes, never its report; answers to requests a
//! game did not need are read and dropped, and an engine that fails on one
//! of them is started again without the start being counted.

use std::path::Path;

use kpe::judge::{Answer, Question};
use kpe::live::{Engine, LiveOptions, Manifest, check_engine};
use kpe::reporter::{JsonSink, UnitResult};
use kpe::{Position, Profile, legal_moves};

fn kpe() -> &'static str {
    env!("CARGO_BIN_EXE_kpe")
}

/// A manifest for `kpe engine ARGS` with up to `pipeline` requests
/// unanswered at once.
fn manifest(args: &[&str], pipeline: u32) -> Manifest {
    let mut command = vec![kpe(), "engine"];
    command.extend(args);
    serde_json::from_value(serde_json::json!({
        "format": "kpe-engine", "version": 1, "command": command,
        "timeouts": {"start_ms": 10000, "request_ms": 5000},
        "pipeline": pipeline,
    }))
    .unwrap()
}

/// The units of a run of `manifest` (all of them, or only the random
/// games), their times aside, and how many requests were written.
fn units(manifest: &Manifest, jobs: usize, only_random: bool) -> (Vec<UnitResult>, u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut options = LiveOptions {
        seed: Some(11),
        games: Some(24),
        perft_depth: Some(2),
        jobs: Some(jobs),
        ..LiveOptions::default()
    };
    if only_random {
        options.policy.only = vec!["random/*".parse().unwrap()];
    }
    run(manifest, &dir.path().join("engine.json"), &options)
}

/// The units of a run of `manifest` (read from `path`) with `options`, as
/// the JSON report gives them, their times aside; and how many requests
/// were written.
fn run(manifest: &Manifest, path: &Path, options: &LiveOptions) -> (Vec<UnitResult>, u64) {
    let mut sink = JsonSink::new(Vec::new());
    let report = check_engine(manifest, path, options, &mut sink).expect("the report is written");
    let json: serde_json::Value = serde_json::from_slice(&sink.into_inner()).unwrap();
    let mut units: Vec<UnitResult> = serde_json::from_value(json["units"].clone()).unwrap();
    units.iter_mut().for_each(|u| u.time = 0.0);
    (units, report.requests)
}

#[test]
fn a_pipeline_changes_no_verdict_of_an_engine_that_answers_in_turn() {
    for args in [
        &[][..],
        &["--rules", "skip-origin"],
        &["--fault", "capture-own-row"],
    ] {
        for jobs in [1, 2] {
            let (one, asked_one) = units(&manifest(args, 1), jobs, false);
            for depth in [2, 16, 64] {
                let (ahead, asked_ahead) = units(&manifest(args, depth), jobs, false);
                assert_eq!(
                    ahead, one,
                    "kpe engine {args:?}, pipeline {depth}, --jobs {jobs}"
                );
                // Requests the games did not need (after a divergence) are
                // written all the same. With two workers the count moves
                // from run to run at any pipeline (by some 110 requests for
                // capture-own-row): a worker may run a unit that a stopping
                // rule, applied again in plan order, then reports as not
                // run (src/live/schedule.rs). So it is compared with one.
                assert!(
                    jobs > 1 || asked_ahead >= asked_one,
                    "{args:?}, pipeline {depth}: {asked_ahead} < {asked_one}"
                );
            }
            let mut random = one.iter().filter(|u| u.kind == "random-game");
            if args.is_empty() {
                assert!(random.all(|u| u.divergence.is_none()));
            } else {
                assert!(
                    random.any(|u| u.divergence.is_some()),
                    "{args:?}: no random game found the bug"
                );
            }
        }
    }
}

/// Engines that fail at their first request, or write each answer twice:
/// the same random games fail the same way with a pipeline (with one
/// worker, since each worker gives up after four starts of its engine).
#[test]
fn a_pipeline_changes_no_verdict_of_a_hostile_engine() {
    for fault in [
        "crash",
        "garbage",
        "extra-line",
        "extra-write",
        "extra-late",
    ] {
        let args = ["--fault", fault];
        let (one, _) = units(&manifest(&args, 1), 1, true);
        let errors: Vec<&str> = one
            .iter()
            .filter_map(|u| u.error.as_ref().map(|e| e.code.as_str()))
            .collect();
        assert!(!errors.is_empty(), "{fault}: no random game errored");
        if fault.starts_with("extra") {
            // Out of turn, and once the starts run out the rest gave up
            // (errored, never passed: issue 42).
            assert!(
                errors.contains(&"out-of-turn")
                    && errors
                        .iter()
                        .all(|&code| code == "out-of-turn" || code == "gave-up"),
                "{fault}: {errors:?}"
            );
        }
        for depth in [2, 16] {
            let (ahead, _) = units(&manifest(&args, depth), 1, true);
            assert_eq!(ahead, one, "kpe engine --fault {fault}, pipeline {depth}");
        }
    }
}

/// A `sh` engine: the hello, then `answer` to every request, until the
/// request numbered `stop` (the hello is 1), where it exits.
#[cfg(unix)]
fn sh_engine(dir: &Path, answer: &str, stop: u32, pipeline: u32) -> Engine {
    let script = format!(
        r#"n=0
        while read -r line; do
            n=$((n+1))
            case "$line" in
                *'"hello"'*) echo '{{"type":"hello","protocol":2,"name":"sh","version":"1"}}' ;;
                *'"quit"'*) exit 0 ;;
                *) if [ "$n" -eq {stop} ]; then exit 0; fi; echo '{answer}' ;;
            esac
        done"#
    );
    sh_script(dir, &script, 5000).with_pipeline(pipeline)
}

/// A session with `sh -c script`, through a manifest written into `dir`
/// with a request timeout of `request_ms`, one request at a time.
#[cfg(unix)]
fn sh_script(dir: &Path, script: &str, request_ms: u64) -> Engine {
    let path = dir.join("engine.json");
    let value = serde_json::json!({
        "format": "kpe-engine", "version": 1, "command": ["sh", "-c", script],
        "timeouts": {"start_ms": 10000, "request_ms": request_ms},
    });
    std::fs::write(&path, value.to_string()).unwrap();
    let manifest = Manifest::load(&path).unwrap();
    Engine::new(manifest.launch(dir), manifest.timeouts, Profile::DEFAULT)
}

/// The answer of the `sh` engines below to every request: every pit of
/// South's row.
const EVERY_PIT: &str = r#"{"type":"legal","moves":["S1","S2","S3","S4"]}"#;

/// Four positions with different legal moves.
fn positions() -> Vec<Position> {
    [
        "6,6,6,6/6,6,6,6 S 0/0 ----/----",
        "4,6,5,0/4,6,0,9 N 10/4 1234/1234",
        "0,7,7,7/7,7,7,6 N 0/0 1---/----",
        "0,0,0,3/1,0,2,0 S 20/22 1234/1234",
    ]
    .map(|p| p.parse().unwrap())
    .to_vec()
}

#[cfg(unix)]
#[test]
fn an_engine_that_fails_on_a_request_nobody_asked_is_started_again_uncounted() {
    let dir = tempfile::tempdir().unwrap();
    // Exits at the third request after the hello: one sent ahead.
    let mut engine = sh_engine(dir.path(), EVERY_PIT, 4, 4);
    let at = positions();
    engine.expect(at.iter().map(|&p| Question::Legal(p)));
    assert!(engine.ask(&Question::Legal(at[0])).is_ok());
    // The unit ends there; the next one asks something else.
    let _ = engine.take_journal();
    let other = Question::Play(at[0], kpe::Pit::ALL[0]);
    let answer = engine.ask(&other).map(|_| ()).map_err(|f| f.code);
    // A `legal` answer to `play` is the new process's wrong reply, not the
    // old one's exit: the old process was dropped while its answers to the
    // requests sent ahead were read.
    assert_eq!(answer, Err("wrong-reply"));
    assert_eq!(engine.starts(), 1, "the quiet restart is not counted");
}

#[cfg(unix)]
#[test]
fn a_repeated_wrong_answer_is_an_answer_after_the_requests_sent_ahead() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = sh_engine(dir.path(), EVERY_PIT, 0, 8);
    let at = positions();
    let profile = Profile::DEFAULT;
    assert_eq!(legal_moves(&at[0], profile).len(), 4);
    assert_ne!(legal_moves(&at[1], profile).len(), 4);
    engine.expect(at.iter().map(|&p| Question::Legal(p)));
    let first = engine.ask(&Question::Legal(at[0])).unwrap().clone();
    // The same line for a position whose moves differ: after the answers
    // to the two requests sent ahead, nothing follows, so it is the
    // engine's answer (a divergence for the caller), not a copy.
    let second = engine
        .ask(&Question::Legal(at[1]))
        .cloned()
        .map_err(|f| f.code);
    assert_eq!(second, Ok(first.clone()));
    assert_eq!(first, Answer::Legal(legal_moves(&at[0], profile).to_vec()));
    engine.quit().unwrap();
}

/// The system calls the workers make are counted for the bench
/// (`cargo bench --bench live` prints them a request, issue 22): at least a
/// write and a read each request, one at a time; on Unix only.
#[test]
fn the_workers_system_calls_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    for depth in [1, 16] {
        let options = LiveOptions {
            seed: Some(3),
            games: Some(6),
            perft_depth: Some(1),
            jobs: Some(1),
            ..LiveOptions::default()
        };
        let mut sink = JsonSink::new(Vec::new());
        let report = check_engine(
            &manifest(&[], depth),
            &dir.path().join("engine.json"),
            &options,
            &mut sink,
        )
        .unwrap();
        assert!(report.conforms());
        let (calls, requests) = (report.time.calls, report.time.requests);
        if !cfg!(unix) {
            assert_eq!(calls, None);
            continue;
        }
        let calls = calls.expect("counted on Unix");
        assert!(requests > 100, "{requests}");
        if depth == 1 {
            assert!(calls >= 2 * requests, "{calls} calls, {requests} requests");
        } else {
            assert!(calls > 0, "{calls} calls, {requests} requests");
        }
    }
}

#[test]
fn a_manifest_pipeline_is_one_to_sixty_four() {
    let read = |pipeline: serde_json::Value| {
        let text = serde_json::json!({
            "format": "kpe-engine", "version": 1, "command": ["e"], "pipeline": pipeline,
        })
        .to_string();
        Manifest::parse(&text, Path::new("engine.json")).map(|m| m.pipeline)
    };
    assert_eq!(read(serde_json::json!(1)).unwrap(), 1);
    assert_eq!(read(serde_json::json!(64)).unwrap(), 64);
    for bad in [
        serde_json::json!(0),
        serde_json::json!(65),
        serde_json::json!("16"),
    ] {
        let error = read(bad.clone()).expect_err("out of range").to_string();
        assert!(error.contains("pipeline"), "{bad}: {error}");
    }
    let absent: Manifest =
        serde_json::from_str(r#"{"format": "kpe-engine", "version": 1, "command": ["e"]}"#)
            .unwrap();
    assert_eq!(absent.pipeline, 1, "one request at a time by default");
}

/// The cores the calling thread may use, from `/proc/thread-self/status`.
#[cfg(target_os = "linux")]
fn cores_of_this_thread() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_owned();
    list.split(',')
        .flat_map(|range| {
            let (first, last) = range.split_once('-').unwrap_or((range, range));
            first.parse::<usize>().unwrap()..=last.parse::<usize>().unwrap()
        })
        .collect()
}

/// With a pipeline the worker stays on its core, beside its engine, at
/// any `--jobs` (issue 42: the engine on a core of its own, with the worker
/// moving between cores and spinning while it waited, was removed).
#[cfg(target_os = "linux")]
#[test]
fn a_worker_stays_on_its_core_with_a_pipeline() {
    let cores = cores_of_this_thread();
    if cores.len() < 2 {
        eprintln!("skipped: this test needs two cores, and has {cores:?}");
        return;
    }
    let core = cores[1];
    std::thread::spawn(move || {
        let mut set = rustix::thread::CpuSet::new();
        set.set(core);
        rustix::thread::sched_setaffinity(None, &set).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let manifest = manifest(&[], 16);
        let mut engine = Engine::new(
            manifest.launch(dir.path()),
            manifest.timeouts,
            Profile::DEFAULT,
        )
        .with_pipeline(manifest.pipeline);
        let at = positions();
        engine.ask(&Question::Legal(at[0])).unwrap();
        assert_eq!(cores_of_this_thread(), [core], "one at a time");
        engine.expect(at[1..].iter().map(|&p| Question::Legal(p)));
        engine.ask(&Question::Legal(at[1])).unwrap();
        engine.ask(&Question::Legal(at[2])).unwrap();
        assert_eq!(cores_of_this_thread(), [core], "a pipeline");
        engine.quit().unwrap();
    })
    .join()
    .unwrap();
}

/// The Python sample engine (`examples/engines/kpe_engine.py`, written from
/// the spec, reading its input with `for line in sys.stdin`), with and
/// without a pipeline: the same units. `no-feeding` answers two edge
/// positions with the same wrong line, the case a pipeline's doubled-answer
/// rule must still call a divergence. Needs `python3`; without it the test
/// says so and passes, and the Rust engines above cover the same ground.
#[test]
fn the_python_sample_engine_gets_the_same_report_with_a_pipeline() {
    let found = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("note: python3 not found: skipping the Python sample engine test");
        return;
    }
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/engines");
    for sample in ["correct", "no-feeding"] {
        let path = samples.join(format!("{sample}.json"));
        let mut manifest = Manifest::load(&path).unwrap();
        let options = LiveOptions {
            seed: Some(3),
            games: Some(20),
            perft_depth: Some(2),
            jobs: Some(1),
            ..LiveOptions::default()
        };
        let (one, _) = run(&manifest, &path, &options);
        manifest.pipeline = 16;
        assert_eq!(run(&manifest, &path, &options).0, one, "{sample}");
        let diverging = one.iter().filter(|u| u.divergence.is_some()).count();
        assert_eq!(diverging > 0, sample == "no-feeding", "{sample}");
        assert!(
            one.iter().all(|u| u.error.is_none()),
            "{sample}: an engine error"
        );
    }
}

/// Every bug of the planted corpus (`kpe engine --bug NAME`) but the one
/// with state (`ends-on-repetition`, whose answers depend on the requests
/// before them, which a pipeline changes: spec/PROTOCOL.md, "Pipelining"),
/// claiming the profile the corpus test claims for it: the same units with
/// a pipeline of 16 as one request at a time, divergences, rules cited and
/// reproductions included.
#[test]
fn every_planted_bug_gets_the_same_units_with_a_pipeline() {
    use kpe::live::Bug;
    let mut found = 0;
    for (name, bug, _) in Bug::ALL {
        if bug == Bug::EndsOnRepetition {
            continue;
        }
        let claimed = if bug == Bug::UnfeedablePlaysFullest {
            Profile::DEFAULT.set(kpe::Switch::EndWhenUnfeedable, false)
        } else {
            Profile::DEFAULT
        };
        let mut manifest = manifest(&["--bug", name], 1);
        manifest.profile = claimed;
        let (one, _) = units(&manifest, 1, true);
        manifest.pipeline = 16;
        let (ahead, _) = units(&manifest, 1, true);
        assert_eq!(ahead, one, "kpe engine --bug {name}");
        found += usize::from(one.iter().any(|u| u.divergence.is_some()));
    }
    // Most bugs show in 24 random games; the others need a scenario or a
    // probe, which a pipeline leaves alone.
    eprintln!(
        "{found} of {} bugs diverged in random games",
        Bug::ALL.len() - 1
    );
    assert!(found >= 25, "only {found} bugs diverged in random games");
}

/// An engine that takes a block of its input for one request (`dd` reads
/// whatever is in the pipe at once) answers a group of requests once: the
/// next answer never comes, and the timeout says why, with the code a
/// timeout always has.
#[cfg(unix)]
#[test]
fn an_engine_reading_blocks_times_out_with_a_word_on_the_pipeline() {
    let script = format!(
        r#"while true; do
            block=$(dd bs=65536 count=1 2>/dev/null)
            case "$block" in
                '') exit 0 ;;
                *'"hello"'*) echo '{{"type":"hello","protocol":2,"name":"blocks","version":"1"}}' ;;
                *'"quit"'*) exit 0 ;;
                *) echo '{EVERY_PIT}' ;;
            esac
        done"#
    );
    let dir = tempfile::tempdir().unwrap();
    let mut engine = sh_script(dir.path(), &script, 300).with_pipeline(8);
    let at = positions();
    engine.expect(at.iter().map(|&p| Question::Legal(p)));
    assert!(engine.ask(&Question::Legal(at[0])).is_ok());
    let failure = engine.ask(&Question::Legal(at[1])).map(|_| ()).unwrap_err();
    assert_eq!(failure.code, "timeout");
    let message = failure.kind.to_string();
    assert!(message.contains("no answer within 300 ms"), "{message}");
    assert!(message.contains("`pipeline`"), "{message}");
    // One request at a time, the same engine answers every request.
    let mut engine = sh_script(dir.path(), &script, 300);
    for &p in &at {
        assert!(engine.ask(&Question::Legal(p)).is_ok());
    }
    engine.quit().unwrap();
}

/// Issue 46: an engine that closed its stdin after its fifth request under
/// `"pipeline": 8` was reported as a timeout blamed on the pipeline; it is
/// `input-closed`, as with one request at a time. The `sh` engine answers
/// the hello and four requests, then closes its stdin and keeps running
/// (whether kpe-check writes the next request before or after the close).
#[cfg(unix)]
#[test]
fn an_engine_that_closes_its_input_is_input_closed_at_any_pipeline() {
    let script = format!(
        r#"n=0
        while read -r line; do
            n=$((n+1))
            case "$line" in
                *'"hello"'*) echo '{{"type":"hello","protocol":2,"name":"sh","version":"1"}}' ;;
                *) echo '{EVERY_PIT}' ;;
            esac
            if [ "$n" -eq 5 ]; then exec 0<&-; exec sleep 60; fi
        done"#
    );
    // Positions one move apart, so each question is another.
    let profile = Profile::DEFAULT;
    let mut at = vec![Position::initial()];
    while at.len() < 12 {
        let last = *at.last().unwrap();
        let pit = legal_moves(&last, profile)[0];
        at.push(kpe::play(&last, pit, profile).unwrap().0);
    }
    for depth in [1, 8] {
        let dir = tempfile::tempdir().unwrap();
        let mut engine = sh_script(dir.path(), &script, 3000).with_pipeline(depth);
        engine.expect(at.iter().map(|&p| Question::Legal(p)));
        let mut failed = None;
        for (k, &p) in at.iter().enumerate() {
            if let Err(f) = engine.ask(&Question::Legal(p)) {
                failed = Some((k, f.code, f.to_string()));
                break;
            }
        }
        let (k, code, message) = failed.expect("the engine stops answering");
        assert_eq!(code, "input-closed", "pipeline {depth}: {message}");
        assert!(!message.contains("pipeline"), "pipeline {depth}: {message}");
        // Not before the fifth question (a wrong answer may have ended the
        // pipeline and started the engine again, quietly).
        assert!(k >= 4, "pipeline {depth}: question {k} failed");
    }
}
