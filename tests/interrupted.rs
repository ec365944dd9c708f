//! A signal recorded before work starts (issue 25): transcript checking
//! stops between games and reports what it checked, marked interrupted;
//! `kpe-check merge` stops before writing anything. The signal flag is
//! global to the process, so these checks live in a test binary of their
//! own, in one test; a live run stopped by a signal is a process of its
//! own.

use std::path::Path;

use kpe::reporter::{CheckError, JsonSink, Signal, interrupted, record_signal};

#[test]
fn a_recorded_signal_stops_transcripts_between_games_and_merges_before_output() {
    let transcript = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/transcripts/capture-while-locked.json");
    assert!(record_signal(Signal::Int.number()));
    assert!(
        !record_signal(Signal::Term.number()),
        "the first signal stays"
    );
    assert_eq!(interrupted(), Some(Signal::Int));
    let mut out = Vec::new();
    let summary = {
        let mut sink = JsonSink::new(&mut out);
        let options = kpe::transcripts::Options::default();
        kpe::transcripts::check_transcript_file_with(&transcript, &options, &mut sink)
            .expect("a clean stop")
    };
    // Two games in the file: the first is checked and reported, then the
    // check stops.
    assert_eq!(summary.units, 1);
    assert_eq!(summary.interrupted.as_deref(), Some("SIGINT"));
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["units"].as_array().unwrap().len(), 1);
    assert_eq!(report["summary"]["interrupted"], "SIGINT");
    let mut out = Vec::new();
    let mut sink = JsonSink::new(&mut out);
    let merged = kpe::reporter::merge_files(std::slice::from_ref(&transcript), &mut sink);
    assert!(matches!(merged, Err(CheckError::Interrupted(Signal::Int))));
    drop(sink);
    assert!(
        out.is_empty(),
        "the merge wrote {}",
        String::from_utf8_lossy(&out)
    );
}

/// Regression (issue 42, item 6): a live run stopped by SIGTERM reported
/// the unit it cut off as an engine crash, and its JSON report said
/// `"verdict": "errored"`, `"exit_code": 3` while the process exited 143.
/// The engine stops itself at its first request (`--fault stop-once`), so
/// the signal surely lands mid-unit; the report now says `interrupted`,
/// with the process's own exit code, and blames the engine for nothing.
#[cfg(target_os = "linux")]
#[test]
fn a_live_run_stopped_by_sigterm_reports_the_exit_it_makes_and_blames_no_engine() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("work")).unwrap();
    let manifest = dir.path().join("engine.json");
    std::fs::write(
        &manifest,
        serde_json::json!({
            "format": "kpe-engine", "version": 1, "cwd": "work",
            "command": [env!("CARGO_BIN_EXE_kpe"), "engine", "--fault", "stop-once"],
            "random": {"games": 2, "seed": 1}, "perft": {"max_depth": 2},
        })
        .to_string(),
    )
    .unwrap();
    let checker = Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .arg(&manifest)
        .args(["--jobs", "1", "--format", "json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The engine has stopped itself in the middle of its first unit.
    let mark = dir.path().join("work").join(kpe::live::STOPPED_MARK);
    while !std::fs::read_to_string(&mark).is_ok_and(|t| !t.trim().is_empty()) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let term = Command::new("kill")
        .args(["-TERM", &checker.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let out = checker.wait_with_output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(out.status.code(), Some(143), "{report}");
    assert_eq!(report["exit_code"], 143, "{report}");
    assert_eq!(report["verdict"], "interrupted");
    assert_eq!(report["conforms"], false);
    assert_eq!(report["summary"]["interrupted"], "SIGTERM");
    assert_eq!(report["summary"]["errored"], 0, "{:#}", report["summary"]);
    let units = report["units"].as_array().unwrap();
    assert!(
        units.iter().all(|u| u["verdict"] != "errored"),
        "no unit is blamed on the engine: {units:#?}"
    );
    assert!(
        units.iter().any(|u| u["verdict"] == "skipped"
            && u["reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("interrupted: cut off by SIGTERM"))),
        "{units:#?}"
    );
}
