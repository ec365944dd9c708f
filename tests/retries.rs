//! `kpe-check --retries N`: a unit on which the engine errored is run
//! again with a fresh engine; one that then conforms is flaky (reported,
//! not failing the run), one that errors every time stays errored, and a
//! divergence is never run again. Unix only: the engines are shell scripts.
#![cfg(unix)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// An engine that crashes on its first start only (a marker file says it
/// started before), then plays the reference rules; every start is logged.
/// `always` makes it crash every time; `bug` plays a rules bug instead.
fn flaky_engine(dir: &Path, always: bool, bug: Option<&str>) -> PathBuf {
    let kpe = env!("CARGO_BIN_EXE_kpe");
    let mark = dir.join("started");
    let log = dir.join("starts.log");
    let good = match bug {
        Some(bug) => format!("exec '{kpe}' engine --bug {bug}"),
        None => format!("exec '{kpe}' engine"),
    };
    let script = format!(
        "#!/bin/sh\necho start >> '{log}'\n{check}touch '{mark}'\nexec '{kpe}' engine --fault crash\n",
        log = log.display(),
        mark = mark.display(),
        check = if always {
            String::new()
        } else {
            format!("if [ -e '{}' ]; then {good}; fi\n", mark.display())
        },
    );
    std::fs::write(dir.join("engine.sh"), script).unwrap();
    let manifest = dir.join("engine.json");
    std::fs::write(
        &manifest,
        r#"{"format": "kpe-engine", "version": 1, "command": ["sh", "engine.sh"],
            "random": {"games": 2}, "perft": {"max_depth": 2}}"#,
    )
    .unwrap();
    manifest
}

fn starts(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("starts.log"))
        .unwrap_or_default()
        .lines()
        .count()
}

fn run(manifest: &Path, retries: &str, junit: &Path) -> (Option<i32>, Value) {
    let out = Command::cargo_bin("kpe-check")
        .unwrap()
        .arg(manifest)
        .args([
            "--jobs",
            "1",
            "--seed",
            "3",
            "--format",
            "json",
            "--retries",
            retries,
        ])
        .arg("--junit")
        .arg(junit)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code(), report)
}

fn retried_units(report: &Value) -> Vec<&Value> {
    report["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u.get("retried").is_some())
        .collect()
}

#[test]
fn without_retries_a_crash_errors_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = flaky_engine(dir.path(), false, None);
    let (code, report) = run(&manifest, "0", &dir.path().join("j.xml"));
    assert_eq!(code, Some(3), "{:#}", report["summary"]);
    assert!(retried_units(&report).is_empty());
}

#[test]
fn a_unit_that_passes_on_a_retry_is_flaky_and_the_run_passes() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = flaky_engine(dir.path(), false, None);
    let junit = dir.path().join("j.xml");
    let (code, report) = run(&manifest, "2", &junit);
    assert_eq!(code, Some(0), "{:#}", report["summary"]);
    let flaky = retried_units(&report);
    assert_eq!(flaky.len(), 1, "{flaky:#?}");
    assert_eq!(flaky[0]["verdict"], "conforms");
    assert_eq!(flaky[0]["retried"].as_array().unwrap().len(), 1);
    assert_eq!(starts(dir.path()), 2, "one crash, one fresh engine");
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let marks: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("flakyError"))
        .collect();
    assert_eq!(marks.len(), 1, "{xml}");
    assert!(!doc.descendants().any(|n| n.has_tag_name("error")), "{xml}");
    // The human report says so (a first start again, which crashes).
    std::fs::remove_file(dir.path().join("started")).unwrap();
    Command::cargo_bin("kpe-check")
        .unwrap()
        .arg(&manifest)
        .args([
            "--jobs",
            "1",
            "--seed",
            "3",
            "--retries",
            "2",
            "--color",
            "never",
        ])
        .assert()
        .code(0)
        .stdout(predicates::str::contains(
            "flaky: 1 unit errored, then conformed when run again (--retries, or a start past its timeout)",
        ));
}

#[test]
fn a_unit_that_errors_every_time_stays_errored_with_its_reruns() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = flaky_engine(dir.path(), true, None);
    let junit = dir.path().join("j.xml");
    let (code, report) = run(&manifest, "1", &junit);
    assert_eq!(code, Some(3), "{:#}", report["summary"]);
    let units = retried_units(&report);
    assert!(!units.is_empty());
    assert!(
        units.iter().all(|u| u["verdict"] == "errored"),
        "{units:#?}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<rerunError "), "{xml}");
    assert!(!xml.contains("<flakyError "), "{xml}");
}

#[test]
fn a_divergence_is_never_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = flaky_engine(dir.path(), false, Some("no-sweep"));
    // The marker makes the first start the buggy engine's, not a crash.
    std::fs::write(dir.path().join("started"), "").unwrap();
    let (code, report) = run(&manifest, "3", &dir.path().join("j.xml"));
    assert_eq!(code, Some(1), "{:#}", report["summary"]);
    assert!(retried_units(&report).is_empty());
    assert_eq!(starts(dir.path()), 1, "no engine was started again");
}

/// Regression (issue 42, item 3): an engine that hangs now and then,
/// `--retries 2 --jobs 2`: the units that hung passed on a retry, the
/// workers then ran out of starts, and the units left were *skipped*, so
/// the run could CONFORM with most of its units never run. They are
/// errored now, and the run never conforms.
#[test]
fn units_left_when_the_starts_run_out_are_errored_and_the_run_never_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("engine.json");
    std::fs::write(
        &manifest,
        serde_json::json!({
            "format": "kpe-engine", "version": 1,
            "command": [env!("CARGO_BIN_EXE_kpe"), "engine", "--fault", "hang-sometimes"],
            "timeouts": {"request_ms": 300},
        })
        .to_string(),
    )
    .unwrap();
    let out = Command::cargo_bin("kpe-check")
        .unwrap()
        .arg(&manifest)
        .args(["--jobs", "2", "--retries", "2", "--games", "0"])
        .args(["--format", "json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(out.status.code(), Some(3), "{:#}", report["summary"]);
    assert_eq!(report["verdict"], "errored");
    let units = report["units"].as_array().unwrap();
    let gave_up: Vec<&Value> = units
        .iter()
        .filter(|u| u["error"]["code"] == "gave-up")
        .collect();
    assert!(!gave_up.is_empty(), "{:#}", report["summary"]);
    for unit in &gave_up {
        assert_eq!(unit["verdict"], "errored", "{unit}");
        assert!(
            unit["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&format!("{} starts", kpe::live::MAX_STARTS)),
            "{unit}"
        );
    }
    assert!(
        !units.iter().any(|u| u["verdict"] == "skipped"
            && u["reason"].as_str().is_some_and(|r| r.contains("gave up"))),
        "no unit is skipped for want of a start"
    );
}

/// `--retries` above what the starts allow is refused, saying why, and
/// `--help` states the budget (issue 42, item 3).
#[test]
fn retries_are_bounded_by_the_starts_and_for_engines_only() {
    let max = kpe::live::MAX_RETRIES;
    assert_eq!(max + 1, kpe::live::MAX_STARTS);
    Command::cargo_bin("kpe-check")
        .unwrap()
        .args([
            "examples/engines/correct.json",
            "--retries",
            &max.to_string(),
        ])
        .args(["--list"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .assert()
        .code(0);
    Command::cargo_bin("kpe-check")
        .unwrap()
        .args(["examples/engines/correct.json", "--retries"])
        .arg((max + 1).to_string())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!(
            "at most {max}: each retry starts the engine afresh, and a worker starts it at most {} times per profile",
            kpe::live::MAX_STARTS
        )));
    Command::cargo_bin("kpe-check")
        .unwrap()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicates::str::contains(format!(
            "at most {} times per profile (retries included), so N is at most {max}",
            kpe::live::MAX_STARTS
        )));
    Command::cargo_bin("kpe-check")
        .unwrap()
        .args(["examples/transcripts/conforming.json", "--retries", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--retries applies to engine manifests only",
        ));
}
