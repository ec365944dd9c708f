//! Slow is not hung (issue 42): a request's timeout counts the engine's
//! own time, so an engine held back while a request is pending (here
//! stopped by SIGSTOP for three timeouts, as a starved machine would hold
//! it back) still conforms, while an engine that never answers, asleep or
//! spinning, is still a timeout (tests/live.rs,
//! `hostile_engines_get_a_clear_verdict_and_never_hang`). Linux only: the
//! engine's own time is read from `/proc`; elsewhere a timeout is wall
//! time (spec/PROTOCOL.md, "What a timeout means").
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// The request timeout of these tests.
const REQUEST_MS: u64 = 300;

/// A manifest for `kpe engine --fault FAULT`, with a short request
/// timeout, in `dir/work`.
fn manifest(dir: &Path, fault: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("work")).unwrap();
    let m = json!({
        "format": "kpe-engine", "version": 1, "cwd": "work",
        "command": [env!("CARGO_BIN_EXE_kpe"), "engine", "--fault", fault],
        "timeouts": {"start_ms": 10000, "request_ms": REQUEST_MS},
        "random": {"games": 2, "seed": 1}, "perft": {"max_depth": 2},
    });
    let path = dir.join("engine.json");
    std::fs::write(&path, m.to_string()).unwrap();
    path
}

/// The state letter of process `pid` (`T` when stopped), if it runs.
fn state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].trim_start().chars().next()
}

/// Regression (issue 42, item 1): a correct engine kept from running
/// while a request is pending, for longer than the request timeout, was
/// errored with a `timeout`. It stops itself at its first request after
/// the hello (`--fault stop-once`); the test continues it after three
/// timeouts; the run conforms, with no unit retried.
#[test]
fn an_engine_stopped_longer_than_its_timeout_while_asked_still_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let path = manifest(dir.path(), "stop-once");
    let checker = Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .arg(&path)
        .args(["--jobs", "1", "--format", "json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait (on the engine's own word, not on time) until it is stopped.
    let mark = dir.path().join("work").join(kpe::live::STOPPED_MARK);
    let pid = loop {
        if let Some(pid) = std::fs::read_to_string(&mark)
            .ok()
            .and_then(|t| t.trim().parse::<u32>().ok())
            && state(pid) == Some('T')
        {
            break pid;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // Held back for three timeouts at least, however slow the machine.
    std::thread::sleep(Duration::from_millis(3 * REQUEST_MS));
    let cont = Command::new("kill")
        .args(["-CONT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(cont.success());
    let out = checker.wait_with_output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(out.status.code(), Some(0), "{report}");
    assert_eq!(report["verdict"], "conforms");
    let units = report["units"].as_array().unwrap();
    assert!(
        units.iter().all(|u| u.get("retried").is_none()),
        "{units:?}"
    );
}
