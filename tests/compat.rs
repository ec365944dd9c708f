//! Files of released format versions are still read, with the same meaning
//! (spec/COMPATIBILITY.md; CHANGELOG.md lists the versions).
//!
//! `tests/golden/` holds, per format and version, files written to that
//! version and what kpe-check made of them when the version was released:
//! the exit code, the verdict, each unit's verdict, the rules broken, the
//! groups, the reading named and the settings the certificate states
//! (`*.expected.json`). Times, wording and the report's layout may change
//! without a new version; these may not. A golden file is never rewritten:
//! a new version gets a new folder, and the old folder stays as long as the
//! version is read.
//!
//! - `transcript-v1/`: transcripts of version 1.
//! - `manifest-v1/`: engine manifests of version 1, one with every field,
//!   run against `kpe engine` (found on PATH) on the scenarios of
//!   `suite-v2/` (a scenario file of suite version 2), perft from the
//!   initial position and seeded random games.
//! - `report-v2/`: the JSON shard reports (report version 2) of
//!   `manifest-v1/bug.json`, which `kpe-check merge` must still merge into
//!   that run's verdicts.
//! - `protocol-v1/`: requests of protocol 1 and the reference engine's
//!   replies. A `perft` request under `end-on-repetition` is left out: its
//!   meaning changed without a new protocol version (CHANGELOG.md, "Known
//!   format changes made without a version"). Beside them, manifests of
//!   engines written to protocol 1 (`kpe engine --protocol 1`), with their
//!   verdicts: one that refuses a hello of any other version
//!   (`refuses-2`), one that counts perft under `end-on-repetition` with
//!   the repetition rule and one without (protocol 1's text allowed both),
//!   these two on `protocol-v1/suite/`, whose perft table tells the counts
//!   apart.
//!
//! Profiles are written relative to the authority's default (spec/RULES.md,
//! "Readings"), and these files were written when the default was the
//! all-off profile. They are checked in that frame: each profile a golden
//! transcript or manifest states is given to kpe-check as the same profile
//! written against today's default (as `kpe adopt` rewrites the repository's
//! own samples), and the profiles a report names are read back against
//! today's default and compared written against the all-off one. So a
//! decided change of reading (docs/GUIDE.md, "Settling a rule dispute") leaves
//! these files meaning what they meant; a change of what a format says is
//! a new version, and its golden files a new folder.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

const KPE_CHECK: &str = env!("CARGO_BIN_EXE_kpe-check");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn golden(path: &str) -> PathBuf {
    root().join("tests/golden").join(path)
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What a report means, as the golden files state it.
fn meaning(report: &Value) -> Value {
    let summary = &report["summary"];
    let units: Vec<Value> = report["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| json!([u["id"], u["profile"], u["verdict"]]))
        .collect();
    let groups: Vec<Value> = report["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .map(|g| json!([g["verdict"], g["rules"], g["count"]]))
        .collect();
    let certificate = &report["run"]["certificate"];
    let mut settings = serde_json::Map::new();
    for key in ["protocol", "seed", "games", "max_plies", "perft_depth"] {
        settings.insert(key.to_owned(), certificate[key].clone());
    }
    json!({
        "exit_code": report["exit_code"],
        "verdict": report["verdict"],
        "units": units,
        "broken": summary["broken"],
        "closest": summary["reading"]["closest"],
        "groups": groups,
        "profiles": report["run"]["profiles"],
        "settings": settings,
    })
}

/// Runs kpe-check from the repository's root with `kpe` on PATH; its exit
/// code and JSON report.
fn kpe_check(args: &[&str]) -> (i32, Value) {
    let bin = Path::new(env!("CARGO_BIN_EXE_kpe")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(KPE_CHECK)
        .current_dir(root())
        .env("PATH", path)
        .env_remove("KPE_CHECK_SEED")
        .env_remove("KPE_CHECK_GAMES")
        .env_remove("KPE_CHECK_PERFT_DEPTH")
        .env_remove("KPE_CHECK_SUITE")
        .args(["--format", "json"])
        .args(args)
        .output()
        .expect("kpe-check runs");
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "kpe-check {args:?}: {e}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().expect("an exit code"), report)
}

/// The default when the golden files were written.
const RELEASED: kpe::Profile = kpe::Profile::ALL_OFF;

/// A profile string written against the released default, written against
/// `to` instead (or the other way round).
fn reframe(written: &str, from: kpe::Profile, to: kpe::Profile) -> String {
    kpe::Profile::read_against(written, from)
        .unwrap_or_else(|e| panic!("{written}: {e}"))
        .written_against(to)
}

/// A golden transcript or manifest with its `profile` and `profiles`
/// restated against today's default: the same rules as when it was written.
fn in_todays_frame(file: &Value) -> Value {
    let mut file = file.clone();
    let now = |v: &Value| {
        json!(reframe(
            v.as_str().unwrap(),
            RELEASED,
            kpe::Profile::DEFAULT
        ))
    };
    // No profile claims the default of the day.
    let claimed = file.get("profile").cloned().unwrap_or(json!("default"));
    file["profile"] = now(&claimed);
    if let Some(all) = file.get_mut("profiles").and_then(Value::as_array_mut) {
        for p in all {
            *p = now(p);
        }
    }
    file
}

/// A report's meaning with every profile it names written against the
/// released default, as the golden files state them.
fn in_released_frame(mut meaning: Value) -> Value {
    let then = |v: &mut Value| {
        if let Some(s) = v.as_str() {
            *v = json!(reframe(s, kpe::Profile::DEFAULT, RELEASED));
        }
    };
    for unit in meaning["units"].as_array_mut().into_iter().flatten() {
        then(&mut unit[1]);
    }
    for key in ["closest", "profiles"] {
        for p in meaning[key].as_array_mut().into_iter().flatten() {
            then(p);
        }
    }
    meaning
}

/// Checks `file` (under tests/golden) against its `.expected.json`.
fn check_golden(file: &str) {
    let expected = read_json(&golden(&file.replace(".json", ".expected.json")));
    let mut args: Vec<String> = expected["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join(Path::new(file).file_name().unwrap());
    let restated = in_todays_frame(&read_json(&golden(file)));
    std::fs::write(&copy, serde_json::to_vec_pretty(&restated).unwrap()).unwrap();
    args.push(copy.display().to_string());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, report) = kpe_check(&args);
    let got = in_released_frame(meaning(&report));
    assert_eq!(json!(code), expected["meaning"]["exit_code"], "{file}");
    compare(file, &got, &expected["meaning"]);
}

/// Field by field, so that a failure names what changed.
fn compare(what: &str, got: &Value, expected: &Value) {
    for (key, want) in expected.as_object().unwrap() {
        assert_eq!(&got[key], want, "{what}: `{key}` changed meaning");
    }
    assert_eq!(got, expected, "{what}");
}

#[test]
fn transcripts_of_version_1_keep_their_verdicts() {
    check_golden("transcript-v1/skip-origin.json");
    check_golden("transcript-v1/chain-past-row.json");
}

#[test]
fn manifests_of_version_1_keep_their_settings_and_verdicts() {
    check_golden("manifest-v1/every-field.json");
    check_golden("manifest-v1/bug.json");
}

/// Regression (issue 42): an engine written to protocol 1 that answers a
/// hello of `"protocol": 2` with `error` could not start (ERRORED), and
/// one that counted perft with the repetition rule, as protocol 1's text
/// said for a while, got `expected 138, counted 132`. Both conform, and
/// so does one that counts without it, as the text first said; each is
/// checked by version 1 (`settings.protocol`).
#[test]
fn engines_of_protocol_1_conform_by_its_meaning() {
    check_golden("protocol-v1/refuses-2.json");
    check_golden("protocol-v1/perft-with-repetition.json");
    check_golden("protocol-v1/perft-without-repetition.json");
}

/// The golden run of `protocol-v1/` with another engine command; its exit
/// code and report.
fn protocol_1_run(command: &[&str], args: &[&str]) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let mut manifest = in_todays_frame(&read_json(&golden(
        "protocol-v1/perft-without-repetition.json",
    )));
    manifest["command"] = json!(command);
    let path = dir.path().join("engine.json");
    std::fs::write(&path, manifest.to_string()).unwrap();
    let mut all: Vec<&str> = vec!["--suite", "tests/golden/protocol-v1/suite"];
    all.extend(args);
    let path = path.display().to_string();
    all.push(&path);
    kpe_check(&all)
}

/// The table of `protocol-v1/suite` tells the two counts apart: an
/// engine that says version 2 and counts without the repetition rule
/// diverges at depth 9 (132 expected, 138 counted), and a version 1 engine
/// whose count is by neither meaning is still caught.
#[test]
fn a_perft_count_by_neither_meaning_diverges() {
    let (code, report) = protocol_1_run(
        &["kpe", "engine", "--fault", "perft-without-repetition"],
        &["--only", "perft/chase-*"],
    );
    assert_eq!(code, 1, "{report}");
    let diverging: Vec<&str> = report["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["verdict"] == "diverges")
        .map(|u| u["id"].as_str().unwrap())
        .collect();
    assert_eq!(diverging, ["perft/chase-endgame-end-on-repetition/9"]);
    assert!(
        report
            .to_string()
            .contains("expected 132, the engine counted 138"),
        "{report}"
    );
    // Version 1, playing another reading (end-when-unfeedable, which
    // changes the table's tree at depth 6): its counts are right by
    // neither of version 1's meanings.
    let (code, report) = protocol_1_run(
        &[
            "kpe",
            "engine",
            "--protocol",
            "1",
            "--rules",
            "end-when-unfeedable",
        ],
        &["--only", "perft/chase-*"],
    );
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["run"]["certificate"]["protocol"], 1);
}

/// kpe-check's hellos to an engine that refuses the newer ones, as the
/// engine reads them: first every version offered, then, each on a fresh
/// process, version 2's hello and version 1's as they were published (the
/// latter as `protocol-v1/requests.jsonl` has it); later starts begin with
/// the hello the engine took. The report says so in a note.
#[test]
fn an_engine_refusing_newer_hellos_gets_each_version_as_published() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests");
    let script = format!(
        "tee -a '{}' | kpe engine --protocol 1 --refuse-newer",
        log.display()
    );
    let (code, report) = protocol_1_run(
        &["sh", "-c", &script],
        &["--only", "perft/*", "--jobs", "1"],
    );
    assert_eq!(code, 0, "{report}");
    let hellos: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["type"] == "hello")
        .collect();
    let profile = kpe::Profile::read_against("end-on-repetition", RELEASED)
        .unwrap()
        .to_string();
    let mut published: Value = serde_json::from_str(
        std::fs::read_to_string(golden("protocol-v1/requests.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    published["profile"] = json!(profile);
    assert_eq!(
        hellos[..3],
        [
            json!({"type": "hello", "protocol": 2, "versions": [1, 2], "profile": profile}),
            json!({"type": "hello", "protocol": 2, "profile": profile}),
            published,
        ]
    );
    assert!(hellos[3..].iter().all(|h| h == &hellos[2]), "{hellos:?}");
    assert_eq!(report["run"]["certificate"]["protocol"], 1);
    let notes = report["summary"]["notes"].to_string();
    assert!(
        notes.contains("the engine refused the hello offering versions 1, 2")
            && notes.contains("took version 1's hello as published"),
        "{notes}"
    );
}

#[test]
fn shard_reports_of_version_2_still_merge() {
    let out = Command::new(KPE_CHECK)
        .args(["merge", "--format", "json"])
        .arg(golden("report-v2/shard-1.json"))
        .arg(golden("report-v2/shard-2.json"))
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let mut expected = read_json(&golden("manifest-v1/bug.expected.json"));
    // The shards were written when kpe engine spoke protocol 1; the same
    // manifest run today speaks 2. Nothing else differs.
    expected["meaning"]["settings"]["protocol"] = json!(1);
    assert_eq!(json!(out.status.code()), expected["meaning"]["exit_code"]);
    compare("report-v2 merged", &meaning(&report), &expected["meaning"]);
    for shard in ["shard-1.json", "shard-2.json"] {
        let report = read_json(&golden(&format!("report-v2/{shard}")));
        assert_eq!(report["version"], 2, "{shard} is a report of version 2");
    }
}

#[test]
fn the_reference_engine_still_answers_protocol_1_as_it_did() {
    // The golden files were written when the default was the all-off
    // profile: the hello asks for that profile by today's name, and the
    // profiles the engine lists are compared as profiles, not as names
    // (which are written relative to the default, so `kpe adopt` renames
    // them).
    let released = kpe::Profile::ALL_OFF;
    let requests = std::fs::read_to_string(golden("protocol-v1/requests.jsonl"))
        .unwrap()
        .replace(
            r#""profile": "default""#,
            &format!(r#""profile": "{released}""#),
        );
    let replies = std::fs::read_to_string(golden("protocol-v1/replies.jsonl")).unwrap();
    let as_profiles = |v: &Value, default: kpe::Profile| -> Vec<kpe::Profile> {
        let mut all: Vec<kpe::Profile> = v
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| kpe::Profile::read_against(p.as_str().unwrap(), default).unwrap())
            .collect();
        all.sort();
        all
    };
    let out = Command::new(env!("CARGO_BIN_EXE_kpe"))
        .arg("engine")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child.stdin.take().unwrap().write_all(requests.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success());
    let got = String::from_utf8(out.stdout).unwrap();
    let (got, want): (Vec<&str>, Vec<&str>) = (got.lines().collect(), replies.lines().collect());
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for ((request, got), want) in requests.lines().zip(&got).zip(&want) {
        let mut got: Value = serde_json::from_str(got).unwrap();
        let mut want: Value = serde_json::from_str(want).unwrap();
        assert!(
            !(request.contains("\"perft\"") && request.contains("end-on-repetition")),
            "see the module doc"
        );
        // The engine's own name and version are its to change.
        if got["type"] == "hello" {
            for v in [&mut got, &mut want] {
                v["version"] = json!(null);
            }
            let (g, w) = (
                as_profiles(&got["profiles"], kpe::Profile::DEFAULT),
                as_profiles(&want["profiles"], released),
            );
            assert_eq!(g, w, "the profiles the hello lists");
            got["profiles"] = json!(null);
            want["profiles"] = json!(null);
        }
        assert_eq!(got, want, "the reply to {request}");
    }
}
