//! Hostile inputs, part two (issue 25): `kpe-check merge` fed shards that
//! were edited, truncated, duplicated or taken from another run; report
//! files that would overwrite an input; counts from flags that would
//! allocate without bound. Each ends with a clear error naming the file
//! and the field, or with the correct report, and never with a panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};

fn kpe() -> &'static str {
    env!("CARGO_BIN_EXE_kpe")
}

fn kpe_check() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kpe-check"))
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.stdin(Stdio::null()).output().expect("kpe-check runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A small live run (one scenario file, perft 1, 4 games) and its three
/// shards, made once: (folder, manifest, whole report, shard reports).
struct Shards {
    dir: tempfile::TempDir,
    manifest: PathBuf,
    shards: Vec<Value>,
}

fn shards() -> &'static Shards {
    static SHARDS: OnceLock<Shards> = OnceLock::new();
    SHARDS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let suite = dir.path().join("suite");
        std::fs::create_dir_all(&suite).unwrap();
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/capture.yaml"),
            suite.join("capture.yaml"),
        )
        .unwrap();
        let manifest = dir.path().join("engine.json");
        let m = json!({
            "format": "kpe-engine", "version": 1, "command": [kpe(), "engine"],
            "timeouts": {"start_ms": 10000, "request_ms": 10000},
            "random": {"games": 4, "max_plies": 60, "seed": 5},
            "perft": {"max_depth": 1},
        });
        std::fs::write(&manifest, m.to_string()).unwrap();
        let shards = (1..=3)
            .map(|k| {
                let (code, out, err) = run(kpe_check().arg(&manifest).args([
                    "--format",
                    "json",
                    "--suite",
                    suite.to_str().unwrap(),
                    "--shard",
                    &format!("{k}/3"),
                ]));
                assert_eq!(code, 0, "{err}");
                serde_json::from_str(&out).unwrap()
            })
            .collect();
        Shards {
            dir,
            manifest,
            shards,
        }
    })
}

/// Writes the shards (after `edit`) to a fresh folder and merges them.
fn merge_edited(edit: impl FnOnce(&mut Vec<Value>)) -> (i32, String, String) {
    let mut reports = shards().shards.clone();
    edit(&mut reports);
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<PathBuf> = reports
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let p = dir.path().join(format!("s-{}.json", k + 1));
            std::fs::write(&p, r.to_string()).unwrap();
            p
        })
        .collect();
    run(kpe_check()
        .arg("merge")
        .args(&paths)
        .args(["--format", "json"]))
}

/// Counts `unit` in (or out, `sign` -1) of a shard's summary, so that an
/// edit of its units is not caught by the counts alone.
fn recount(shard: &mut Value, unit: &Value, sign: i64) {
    let s = &mut shard["summary"];
    let verdict_key = match unit["verdict"].as_str().unwrap() {
        "conforms" => "conforming",
        "diverges" => "diverging",
        other => panic!("unexpected verdict {other}"),
    };
    for (key, by) in [
        ("units", 1),
        (verdict_key, 1),
        ("plies", unit["plies"].as_i64().unwrap()),
    ] {
        s[key] = json!(s[key].as_i64().unwrap() + sign * by);
    }
}

fn assert_clear(err: &str) {
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains(" at : "), "empty JSON path: {err}");
}

#[test]
fn the_shards_of_one_run_merge() {
    let (code, out, err) = merge_edited(|_| {});
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let seqs: Vec<u64> = v["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
}

/// Issue 25: `shard {index: 0, count: 3}` panicked with an index out of
/// bounds.
#[test]
fn a_shard_index_out_of_range_is_refused_at_its_path() {
    for (index, count) in [(0, 3), (4, 3), (1, 4_294_967_295_u64)] {
        let (code, _, err) = merge_edited(|r| {
            r[1]["run"]["certificate"]["shard"] = json!({"index": index, "count": count});
        });
        assert_eq!(code, 2, "{err}");
        assert_clear(&err);
        assert!(
            err.contains("s-2.json") && err.contains("run.certificate.shard"),
            "{err}"
        );
    }
    // A huge count in the first shard is refused before anything is made.
    let (code, _, err) = merge_edited(|r| {
        for s in r.iter_mut() {
            s["run"]["certificate"]["shard"]["count"] = json!(4_294_967_295_u64);
        }
    });
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("shard"), "{err}");
}

#[test]
fn a_shard_of_another_run_is_refused_naming_the_field() {
    for (field, value, named) in [
        ("seed", json!(6), "run.certificate.seed"),
        ("kpe_check", json!("0.0.1"), "run.certificate.kpe_check"),
        (
            "suite",
            json!({"version": 1, "digest": "sha256:00"}),
            "run.certificate.suite",
        ),
    ] {
        let (code, _, err) = merge_edited(|r| r[2]["run"]["certificate"][field] = value);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("s-3.json")
                && err.contains(named)
                && err.contains("not a shard of the same run"),
            "{err}"
        );
    }
    let (code, _, err) = merge_edited(|r| {
        r[2]["run"]["engine"]["name"] = json!("other");
    });
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("run.engine"), "{err}");
}

#[test]
fn duplicated_foreign_and_dropped_units_are_refused() {
    // The same unit twice in its shard, the counts made to agree.
    let (code, _, err) = merge_edited(|r| {
        let unit = r[0]["units"][0].clone();
        recount(&mut r[0], &unit, 1);
        r[0]["units"].as_array_mut().unwrap().push(unit);
    });
    assert_eq!(code, 2, "{err}");
    assert_clear(&err);
    assert!(err.contains("twice"), "{err}");
    // A unit of shard 2 in shard 1.
    let (code, _, err) = merge_edited(|r| {
        let unit = r[1]["units"][0].clone();
        recount(&mut r[0], &unit, 1);
        r[0]["units"].as_array_mut().unwrap().push(unit);
    });
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("s-1.json") && err.contains("foreign"), "{err}");
    // A unit dropped from the middle, and one from the end.
    for last in [false, true] {
        let (code, _, err) = merge_edited(|r| {
            let units = r[0]["units"].as_array_mut().unwrap();
            let unit = if last {
                units.pop().unwrap()
            } else {
                units.remove(1)
            };
            recount(&mut r[0], &unit, -1);
        });
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("dropped"), "last {last}: {err}");
    }
}

#[test]
fn counts_that_do_not_add_up_and_a_bare_divergence_are_refused() {
    let (code, _, err) = merge_edited(|r| {
        r[1]["summary"]["conforming"] = json!(r[1]["summary"]["conforming"].as_i64().unwrap() + 1);
    });
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("s-2.json") && err.contains("summary.conforming"),
        "{err}"
    );
    let (code, _, err) = merge_edited(|r| {
        let unit = r[1]["units"][0].clone();
        recount(&mut r[1], &unit, -1);
        r[1]["units"][0]["verdict"] = json!("diverges");
        let unit = r[1]["units"][0].clone();
        recount(&mut r[1], &unit, 1);
    });
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("units[0].divergence"), "{err}");
}

#[test]
fn malformed_shards_are_named_at_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let good = shards().shards[0].to_string();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "trailing",
            format!("{good}\n{{}}").into_bytes(),
            "bytes after the report",
        ),
        (
            "bom",
            format!("\u{feff}{good}").into_bytes(),
            "byte-order mark",
        ),
        (
            "latin1",
            b"{\"format\": \"kpe-check\xe9\"}".to_vec(),
            "not UTF-8",
        ),
        (
            "truncated",
            good.as_bytes()[..good.len() / 2].to_vec(),
            ":1:",
        ),
        ("empty", b" \n".to_vec(), "expected a kpe-check JSON report"),
        (
            "array-engine",
            good.replacen("\"engine\":{", "\"engine\":[{", 1)
                .into_bytes(),
            "run.engine",
        ),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, bytes).unwrap();
        let (code, _, err) = run(kpe_check().arg("merge").arg(&path));
        assert_eq!(code, 2, "{name}: {err}");
        assert_clear(&err);
        assert!(
            err.contains(&format!("{name}.json")) && err.contains(expected),
            "{name}: {err}"
        );
    }
    // A FIFO or a device is refused without reading it.
    let (code, _, err) = run(kpe_check().args(["merge", "/dev/zero"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("/dev/zero") && err.contains("not a regular file"),
        "{err}"
    );
}

#[test]
fn merge_reads_one_shard_from_standard_input() {
    let s = shards();
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (k, r) in s.shards.iter().enumerate().skip(1) {
        let p = dir.path().join(format!("s-{}.json", k + 1));
        std::fs::write(&p, r.to_string()).unwrap();
        paths.push(p);
    }
    let mut child = kpe_check()
        .args(["merge", "-"])
        .args(&paths)
        .args(["--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(s.shards[0].to_string().as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, _, err) = run(kpe_check().args(["merge", "-", "-"]));
    assert_eq!(code, 2);
    assert!(err.contains("more than once"), "{err}");
}

#[test]
fn a_report_file_never_overwrites_an_input() {
    let s = shards();
    let dir = tempfile::tempdir().unwrap();
    let shard = dir.path().join("s-1.json");
    let text = s.shards[0].to_string();
    std::fs::write(&shard, &text).unwrap();
    let link = dir.path().join("link.json");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&shard, &link).unwrap();
    #[cfg(not(unix))]
    std::fs::hard_link(&shard, &link).unwrap();
    for flag in ["--html", "--junit"] {
        for target in [&shard, &link] {
            let (code, _, err) = run(kpe_check().arg("merge").arg(&shard).arg(flag).arg(target));
            assert_eq!(code, 2, "{err}");
            assert!(err.contains(flag) && err.contains("is the input"), "{err}");
            assert_eq!(std::fs::read_to_string(&shard).unwrap(), text);
        }
    }
    // The input of a live run, by path and through a symlink.
    let manifest_text = std::fs::read_to_string(&s.manifest).unwrap();
    let (code, _, err) = run(kpe_check().arg(&s.manifest).arg("--html").arg(&s.manifest));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is the input"), "{err}");
    assert_eq!(std::fs::read_to_string(&s.manifest).unwrap(), manifest_text);
    // Two reports of one run in one file.
    let same = dir.path().join("report.out");
    let (code, _, err) = run(kpe_check()
        .arg(&s.manifest)
        .arg("--html")
        .arg(&same)
        .arg("--junit")
        .arg(&same));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--html") && err.contains("each report needs its own file"),
        "{err}"
    );
    assert!(!same.exists());
    // An unwritable place is named before the engine starts.
    let nowhere = dir.path().join("no-such-folder/report.xml");
    let (code, out, err) = run(kpe_check().arg(&s.manifest).arg("--junit").arg(&nowhere));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no-such-folder"), "{err}");
    assert!(out.is_empty(), "the run started: {out}");
    let _ = &s.dir;
}

#[test]
fn a_report_is_renamed_into_place_and_leaves_no_temporary_file() {
    let s = shards();
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (k, r) in s.shards.iter().enumerate() {
        let p = dir.path().join(format!("s-{}.json", k + 1));
        std::fs::write(&p, r.to_string()).unwrap();
        paths.push(p);
    }
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let junit = out.join("r.xml");
    std::fs::write(&junit, "old").unwrap();
    let (code, _, err) = run(kpe_check()
        .arg("merge")
        .args(&paths)
        .arg("--junit")
        .arg(&junit)
        .arg("--html")
        .arg(out.join("r.html")));
    assert_eq!(code, 0, "{err}");
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        std::fs::read_to_string(&junit)
            .unwrap()
            .starts_with("<?xml")
    );
}

#[test]
fn counts_from_flags_are_bounded_before_anything_is_allocated() {
    let s = shards();
    for args in [
        vec!["--games", "4294967295"],
        vec!["--games", "100000000"],
        vec!["--jobs", "100000"],
        vec!["--shard", "1/4294967296"],
        vec!["--shard", "1/4294967295"],
    ] {
        let (code, _, err) = run(kpe_check().arg(&s.manifest).args(&args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(!err.contains("memory allocation"), "{err}");
        assert!(err.contains(args[0]), "{args:?}: {err}");
    }
    let (code, _, err) = run(kpe_check()
        .arg(&s.manifest)
        .env("KPE_CHECK_GAMES", "4000000000"));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at most"), "{err}");
    for args in [
        vec!["dispute", "skip-origin", "--games", "4000000000"],
        vec!["dispute", "skip-origin", "--max-plies", "4000000000"],
        vec!["dispute", "skip-origin,skip-origin"],
    ] {
        let (code, _, err) = run(Command::new(kpe()).args(&args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(!err.contains("memory allocation"), "{err}");
    }
}

#[test]
fn a_pattern_shaped_like_a_rule_that_names_none_is_refused() {
    let s = shards();
    let (code, _, err) = run(kpe_check().arg(&s.manifest).args(["--only", "CAP-99"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("CAP-99") && err.contains("CAP-2"), "{err}");
}

#[test]
fn the_expect_fail_file_is_read_bounded() {
    let s = shards();
    let dir = tempfile::tempdir().unwrap();
    let latin = dir.path().join("latin.txt");
    std::fs::write(&latin, b"cap-1 CAP-2\ncap-\xe9 CAP-2\n").unwrap();
    let big = dir.path().join("big.txt");
    std::fs::write(&big, "# x\n".repeat(300_000)).unwrap();
    for (file, expected) in [
        (Path::new("/dev/zero"), "not a regular file"),
        (latin.as_path(), ":2:5: byte 0xe9 is not UTF-8"),
        (big.as_path(), "largest --expect-fail file"),
    ] {
        let (code, _, err) = run(kpe_check().arg(&s.manifest).arg("--expect-fail").arg(file));
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(expected), "{err}");
    }
}

/// Sends `signal` to `child` until it exits (the first may come before
/// its handler is installed; a second one ends it at once, with the same
/// code); its exit code.
#[cfg(unix)]
fn interrupt(child: &mut std::process::Child, signal: rustix::process::Signal) -> Option<i32> {
    use std::time::{Duration, Instant};
    std::thread::sleep(Duration::from_millis(300));
    let pid = rustix::process::Pid::from_child(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        let _ = rustix::process::kill_process(pid, signal);
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("still running 20 s after {signal:?}");
}

/// Issue 25: a merge (or a transcript) read from a standard input that
/// stays open went on after SIGINT; it now stops at once, with 128 + the
/// signal's number, and says so.
#[cfg(unix)]
#[test]
fn a_signal_stops_reading_standard_input_with_its_exit_code() {
    use rustix::process::Signal;
    for (args, signal, code) in [
        (vec!["merge", "-"], Signal::INT, 130),
        (vec!["merge", "-"], Signal::TERM, 143),
        (vec!["-"], Signal::HUP, 129),
    ] {
        let mut child = kpe_check()
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        assert_eq!(interrupt(&mut child, signal), Some(code), "{args:?}");
        drop(stdin);
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        assert!(err.contains("interrupted by SIG"), "{args:?}: {err}");
    }
}

/// Issue 25: a FIFO or /dev/zero as FILE was "holds no JSON" (or hung), a
/// byte-order mark was never named, an unknown `format` had no
/// line:column.
#[cfg(unix)]
#[test]
fn special_files_a_bom_and_an_unknown_format_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/transcripts/capture-while-locked.json"),
    )
    .unwrap();
    let bom = dir.path().join("bom.json");
    std::fs::write(&bom, format!("\u{feff}{transcript}")).unwrap();
    let mut v: Value = serde_json::from_str(&transcript).unwrap();
    v["format"] = json!("kpe-transcriptx");
    let unknown = dir.path().join("format.json");
    std::fs::write(&unknown, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let mut cases = vec![
        (
            bom.clone(),
            "bom.json:1:1: the file starts with a byte-order mark",
        ),
        (unknown.clone(), "at format: unknown format"),
        (
            PathBuf::from("/dev/zero"),
            "it is a character device, not a regular file",
        ),
    ];
    if made {
        cases.push((fifo.clone(), "it is a FIFO"));
    }
    for (path, expected) in cases {
        let (code, _, err) = run(kpe_check().arg(&path));
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(expected), "{}: {err}", path.display());
        if path == unknown {
            let after = err.split("format.json:").nth(1).unwrap_or_default();
            assert!(
                after.starts_with(|c: char| c.is_ascii_digit()),
                "no line: {err}"
            );
        }
    }
}

/// Issue 25: `--expect-fail` ids that match no unit passed silently; they
/// are now noted in the report (a list kept for several runs may name
/// units one run leaves out, so it is not an error). Its errors name the
/// line without an empty JSON path.
#[test]
fn expect_fail_lines_that_match_no_unit_are_noted() {
    let dir = tempfile::tempdir().unwrap();
    let transcript = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/transcripts/capture-while-locked.json");
    let list = dir.path().join("known.txt");
    std::fs::write(&list, "# known\nno-such-game CAP-2\n").unwrap();
    let (_, out, err) = run(kpe_check()
        .arg(&transcript)
        .arg("--expect-fail")
        .arg(&list)
        .args(["--format", "json"]));
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let notes = v["summary"]["notes"].to_string();
    assert!(
        notes.contains("known.txt:2: `no-such-game`") && notes.contains("matches no unit"),
        "{notes}"
    );
    std::fs::write(&list, "g1 CAP-99\n").unwrap();
    let (code, _, err) = run(kpe_check().arg(&transcript).arg("--expect-fail").arg(&list));
    assert_eq!(code, 2, "{err}");
    assert_clear(&err);
    assert!(
        err.contains("known.txt:1:4: `CAP-99` is not a rule ID"),
        "{err}"
    );
}

/// The stopping rules kept unit by unit ([`kpe::reporter::StopState`],
/// which makes merge and the scheduler linear) give the answer of
/// [`kpe::reporter::stop_reason`] over all earlier units, for every unit
/// of a plan that trips each rule.
#[test]
fn the_running_stopping_rules_match_the_rules_over_all_earlier_units() {
    use kpe::reporter::{EngineError, StopState, UnitResult, Verdict, stop_reason};
    let default = Some(kpe::Profile::default());
    let other = Some("skip-origin".parse::<kpe::Profile>().unwrap());
    let mut units = Vec::new();
    for k in 0..14 {
        let mut u = UnitResult::conforming("random-game", format!("random/{k}"), None, 5);
        if k % 2 == 0 {
            u.verdict = Verdict::Diverges;
        }
        u.profile = if k % 3 == 0 { other } else { default };
        units.push(u);
    }
    for depth in 1..4 {
        let mut u = UnitResult::conforming("perft", format!("perft/initial/{depth}"), None, 0);
        if depth == 1 {
            u.verdict = Verdict::Errored;
        }
        u.profile = default;
        units.push(u);
    }
    let mut dead = UnitResult::errored(
        "scenario",
        "cap-1".into(),
        None,
        0,
        EngineError {
            code: "spawn".into(),
            message: "no".into(),
            ply: None,
            request: None,
            stderr: Vec::new(),
            stderr_bytes: 0,
        },
    );
    dead.reason = Some(kpe::reporter::DID_NOT_START.to_owned());
    dead.profile = other;
    units.push(dead);
    units.push({
        let mut u = UnitResult::conforming("scenario", "cap-2".into(), None, 1);
        u.profile = other;
        u
    });
    for max in [None, Some(3), Some(40)] {
        let mut state = StopState::default();
        for (i, u) in units.iter().enumerate() {
            assert_eq!(
                state.reason(&u.kind, &u.id, u.profile, max),
                stop_reason(units[..i].iter(), &u.kind, &u.id, u.profile, max),
                "unit {i} ({}), max {max:?}",
                u.id
            );
            state.record(u);
        }
    }
}

/// Issue 25: SIGINT 1.5 s into a large transcript file let the check go on
/// to the end. Each signal now stops it between games: the report holds
/// the games checked so far, marked interrupted, and the exit code is
/// 128 + the signal's number.
#[cfg(unix)]
#[test]
fn a_signal_stops_a_large_transcript_file_between_games() {
    use rustix::process::Signal;
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/transcripts/conforming.json"),
    )
    .unwrap();
    let mut transcript: Value = serde_json::from_str(&text).unwrap();
    let games = transcript["games"].as_array().unwrap().clone();
    let copies = 4000;
    let mut all = Vec::new();
    for k in 0..copies {
        for g in &games {
            let mut g = g.clone();
            g["id"] = json!(format!("{}-{k}", g["id"].as_str().unwrap()));
            all.push(g);
        }
    }
    let total = all.len();
    transcript["games"] = Value::Array(all);
    let big = dir.path().join("big.json");
    std::fs::write(&big, serde_json::to_vec(&transcript).unwrap()).unwrap();
    for (signal, code, name) in [(Signal::INT, 130, "SIGINT"), (Signal::TERM, 143, "SIGTERM")] {
        let mut child = kpe_check()
            .arg(&big)
            .args(["--format", "json"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut out = Vec::new();
            std::io::Read::read_to_end(&mut stdout, &mut out).unwrap();
            out
        });
        assert_eq!(interrupt(&mut child, signal), Some(code), "{name}");
        let report: Value = serde_json::from_slice(&reader.join().unwrap()).unwrap();
        assert_eq!(report["summary"]["interrupted"], name);
        let checked = report["units"].as_array().unwrap().len();
        assert!(checked < total, "{name}: all {total} games were checked");
        assert_eq!(report["summary"]["units"], checked, "{name}");
    }
}
