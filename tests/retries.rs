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

#[test]
fn retries_are_bounded_and_for_engines_only() {
    Command::cargo_bin("kpe-check")
        .unwrap()
        .args(["examples/engines/correct.json", "--retries", "11"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--retries"));
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
