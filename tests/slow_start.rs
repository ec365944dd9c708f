//! One slow engine start (issue 23): a hello later than the start timeout
//! gets the engine started once more, so a cold first start does not error
//! the whole run; the report says so. An engine slow on every start still
//! errors, after two starts.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

fn check(manifest: &Path) -> (i32, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .arg(manifest)
        .args(["--jobs", "1", "--format", "json"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (
        out.status.code().unwrap_or(-1),
        report,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A manifest for `command`, with a start timeout shorter than
/// `kpe engine --fault slow-first-start`'s first hello, run in `dir/work`.
fn manifest(dir: &Path, command: Value) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("work")).unwrap();
    let m = json!({
        "format": "kpe-engine", "version": 1, "command": command, "cwd": "work",
        "timeouts": {"start_ms": 400, "request_ms": 5000},
        "random": {"games": 2, "seed": 1}, "perft": {"max_depth": 1},
    });
    let path = dir.join("engine.json");
    std::fs::write(&path, m.to_string()).unwrap();
    path
}

fn notes(report: &Value) -> Vec<String> {
    report["summary"]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_slow_first_start_is_started_once_more_and_the_run_goes_on() {
    assert!(kpe::live::SLOW_START_DELAY.as_millis() > 400);
    let dir = tempfile::tempdir().unwrap();
    let path = manifest(
        dir.path(),
        json!([
            env!("CARGO_BIN_EXE_kpe"),
            "engine",
            "--fault",
            "slow-first-start"
        ]),
    );
    let (code, report, err) = check(&path);
    assert_eq!(code, 0, "{err}\n{report}");
    assert!(
        dir.path()
            .join("work")
            .join(kpe::live::FIRST_START_MARK)
            .exists()
    );
    // The first unit keeps the slow start's error, and conformed.
    let units = report["units"].as_array().unwrap();
    let slow: Vec<&Value> = units
        .iter()
        .filter(|u| u.get("retried").is_some())
        .collect();
    assert_eq!(slow.len(), 1, "{slow:?}");
    assert_eq!(slow[0]["verdict"], "conforms");
    assert_eq!(slow[0]["retried"][0]["code"], "timeout");
    assert!(
        slow[0]["retried"][0]["request"]
            .as_str()
            .unwrap()
            .starts_with(r#"{"type":"hello""#)
    );
    assert_eq!(report["summary"]["errored"], 0);
    let notes = notes(&report);
    assert!(
        notes.iter().any(|n| n.starts_with(
            "slow start: the engine gave no hello within the start timeout (400 ms) on 1 start"
        ) && n.contains("it answered then, and the run went on")),
        "{notes:?}"
    );
    // Once started, it is quick: no other start was slow.
    let (code, again, _) = check(&path);
    assert_eq!(code, 0);
    assert!(notes_of_slow_start(&again).is_empty(), "{again}");
}

fn notes_of_slow_start(report: &Value) -> Vec<String> {
    notes(report)
        .into_iter()
        .filter(|n| n.starts_with("slow start"))
        .collect()
}

#[cfg(unix)]
#[test]
fn an_engine_slow_on_every_start_is_errored_after_its_second_start() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("starts.log");
    let script = format!(
        "echo start >> '{}'; sleep 2; exec '{}' engine",
        log.display(),
        env!("CARGO_BIN_EXE_kpe")
    );
    let path = manifest(dir.path(), json!(["sh", "-c", script]));
    let (code, report, err) = check(&path);
    assert_eq!(code, 3, "{err}\n{report}");
    assert_eq!(report["summary"]["errored"], 1, "{report}");
    let errored = report["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["verdict"] == "errored")
        .unwrap();
    assert_eq!(errored["reason"], kpe::reporter::DID_NOT_START);
    assert_eq!(errored["retried"][0]["code"], "timeout", "{errored}");
    assert_eq!(errored["error"]["code"], "timeout", "{errored}");
    let notes = notes_of_slow_start(&report);
    assert!(
        notes.len() == 1 && notes[0].contains("it did not answer the second time either"),
        "{notes:?}"
    );
    // Two starts, not more: the rest of the units are not run.
    let starts = std::fs::read_to_string(&log).unwrap().lines().count();
    assert_eq!(starts, 2);
}
