//! kpe-check's live mode: engines driven over the protocol.
//!
//! Most tests drive `kpe engine` (the reference rules speaking the
//! protocol), with `--rules` to play another reading than it claims and the
//! hidden `--fault` to misbehave, so they need nothing but this crate. The
//! Python sample engines in `examples/engines/` are checked too when
//! `python3` is on the PATH; without it those tests print a note and pass,
//! and what they guard is covered by the `kpe engine` tests.
//!
//! The JSON Schemas of the protocol and the manifest are generated from the
//! Rust types; regenerate them with
//! `UPDATE_SCHEMAS=1 cargo test --test live schemas` and commit them.

#[path = "common/collect.rs"]
mod collect;
use collect::{Checked, Collect, checked};

#[path = "common/schema.rs"]
mod schema;
use schema::valid_report;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use assert_cmd::cargo::CommandCargoExt;
use kpe::judge::Divergence;
use kpe::live::{LiveOptions, Manifest, check_engine, check_manifest_file};
use kpe::reporter::{JsonSink, UnitResult};
use kpe::scenario::{Reference, Subject};
use kpe::{Position, Profile, Switch};

fn kpe() -> &'static str {
    env!("CARGO_BIN_EXE_kpe")
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Small runs: a few random games, shallow perft, the whole scenario suite.
fn quick() -> LiveOptions {
    LiveOptions {
        seed: Some(7),
        games: Some(12),
        perft_depth: Some(3),
        ..LiveOptions::default()
    }
}

/// Writes `manifest` into a fresh temporary directory and checks it.
fn check_json(manifest: &serde_json::Value, options: &LiveOptions) -> Checked {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("engine.json");
    std::fs::write(&path, manifest.to_string()).unwrap();
    check_path(&path, options)
}

fn check_path(path: &Path, options: &LiveOptions) -> Checked {
    let manifest = Manifest::load(path).unwrap();
    checked(&manifest, path, options)
}

/// The profile `words` name against the all-off profile (each setting at its
/// first value), in today's spelling: the tests below state their profiles
/// so, and the figures they expect hold whatever the default is (`kpe
/// adopt`). The sample engines' tests further down use the default itself.
fn old(words: &str) -> Profile {
    Profile::read_against(words, Profile::ALL_OFF).unwrap()
}

/// A manifest for `kpe engine ARGS` claiming `profile` (each profile, the
/// claim and `--rules`, read by [`old`]).
fn kpe_engine(args: &[&str], profile: &str, request_ms: u64) -> serde_json::Value {
    let mut command = vec![kpe().to_owned(), "engine".to_owned()];
    let mut rules = false;
    for a in args {
        command.push(if rules {
            old(a).to_string()
        } else {
            (*a).to_owned()
        });
        rules = *a == "--rules";
    }
    let profile = old(profile).to_string();
    serde_json::json!({
        "format": "kpe-engine", "version": 1, "command": command, "profile": profile,
        "timeouts": {"start_ms": 10000, "request_ms": request_ms},
    })
}

fn divergences(report: &Checked) -> Vec<(&UnitResult, &Divergence)> {
    report
        .units
        .iter()
        .filter_map(|u| u.divergence.as_deref().map(|d| (u, d)))
        .collect()
}

/// The rules blamed anywhere in the report.
fn blamed(report: &Checked) -> Vec<&'static str> {
    let mut all = Vec::new();
    for (_, d) in divergences(report) {
        for id in d.rules.iter() {
            if !all.contains(&id) {
                all.push(id);
            }
        }
    }
    all
}

/// Every divergence has a reproduction that the reference rules pass, and
/// at least one was shrunk to fewer stones than where it was found.
fn assert_reproductions(report: &Checked) {
    let mut shrunk = false;
    for (unit, d) in divergences(report) {
        let scenario = d
            .scenario
            .as_ref()
            .unwrap_or_else(|| panic!("{} {} has no reproduction", unit.kind, unit.id));
        for profile in scenario.profiles() {
            Reference::new()
                .verify("reproduction", scenario, profile)
                .unwrap_or_else(|e| panic!("the reproduction is wrong: {e}"));
        }
        assert!(
            scenario.profiles().any(|p| p == report.profile),
            "the reproduction must hold under the claimed profile"
        );
        let start: Position = scenario.start_text().parse().unwrap();
        if let Some(before) = d.before
            && start.board_stones() < before.board_stones()
        {
            shrunk = true;
        }
        assert!(d.scenario_yaml().unwrap().starts_with("  - id: kpe-check-"));
    }
    // Each group's example is its smallest unit, shrunk further when it
    // can be: unless it is small already, one was shrunk.
    let smallest = divergences(report)
        .iter()
        .filter_map(|(_, d)| d.before.map(|p| p.board_stones()))
        .min()
        .unwrap_or(0);
    assert!(
        shrunk || smallest <= 12,
        "no divergence was shrunk (smallest: {smallest} stones)"
    );
}

fn python3() -> bool {
    let found = Command::new("python3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        eprintln!("note: python3 not found: skipping the Python sample engine test");
    }
    found
}

// ---------------------------------------------------------------------------
// The reference engine, and engines following other readings
// ---------------------------------------------------------------------------

#[test]
fn the_reference_engine_conforms_on_every_kind_of_unit() {
    let report = check_json(&kpe_engine(&[], "default", 5000), &quick());
    assert!(report.conforms(), "{:#?}", divergences(&report));
    for kind in ["scenario", "perft", "random-game"] {
        assert!(
            report.units.iter().any(|u| u.kind == kind),
            "no {kind} unit: {:?}",
            report.notes
        );
    }
    // perft/initial/1..3, then the suite's default tables within the budget.
    let perft: Vec<&str> = report
        .units
        .iter()
        .filter(|u| u.kind == "perft")
        .map(|u| u.id.as_str())
        .collect();
    assert_eq!(
        &perft[..3],
        ["perft/initial/1", "perft/initial/2", "perft/initial/3"]
    );
    assert!(
        perft
            .iter()
            .any(|id| id.starts_with("perft/initial-default/")),
        "{perft:?}"
    );
    // Without a suite directory, the suite built into the library runs:
    // every scenario that holds under the profile, named by its file in
    // the kpe source tree.
    let suite = kpe::scenario::Suite::bundled().unwrap();
    let admitted = suite
        .scenarios()
        .filter(|(_, s)| s.invalid_start.is_none() && s.profiles().any(|p| p == report.profile))
        .count();
    let scenarios: Vec<&UnitResult> = report
        .units
        .iter()
        .filter(|u| u.kind == "scenario" && u.verdict != kpe::reporter::Verdict::Skipped)
        .collect();
    assert_eq!(scenarios.len(), admitted);
    // The others are listed as skipped, with the reason.
    let skipped = report
        .units
        .iter()
        .filter(|u| u.kind == "scenario" && u.verdict == kpe::reporter::Verdict::Skipped)
        .count();
    assert_eq!(skipped + admitted, suite.scenarios().count());
    assert!(
        scenarios.iter().all(|u| u
            .location
            .as_deref()
            .is_some_and(|l| l.starts_with("conformance/") && l.ends_with(".yaml"))),
        "{:?}",
        scenarios[0].location
    );
    assert!(
        report.summary.rules.contains("CAP-2"),
        "{}",
        report.summary.rules
    );
    assert!(report.summary.reading.is_none());
    assert_eq!(report.run.certificate.seed, Some(7));
}

#[test]
fn the_reference_engine_conforms_under_the_profile_it_is_told() {
    let profile = "skip-origin,strict-lock,end-on-repetition";
    let report = check_json(&kpe_engine(&[], profile, 5000), &quick());
    assert!(report.conforms(), "{:#?}", divergences(&report));
    assert_eq!(report.profile, old(profile));
}

#[test]
fn an_engine_that_skips_the_origin_is_named_skip_origin() {
    let report = check_json(
        &kpe_engine(&["--rules", "skip-origin"], "default", 5000),
        &quick(),
    );
    assert!(!report.conforms());
    assert!(blamed(&report).contains(&"SOW-4"), "{:?}", blamed(&report));
    let reading = report.summary.reading.as_ref().unwrap();
    assert_eq!(reading.closest(), [old("skip-origin")]);
    assert!(
        reading
            .to_string()
            .starts_with(&format!("conforms under: {}", old("skip-origin"))),
        "{reading}"
    );
    assert_reproductions(&report);
}

#[test]
fn an_engine_with_the_strict_lock_is_named_strict_lock() {
    let report = check_json(
        &kpe_engine(&["--rules", "strict-lock"], "default", 5000),
        &quick(),
    );
    assert!(blamed(&report).contains(&"LOCK-3"), "{:?}", blamed(&report));
    let reading = report.summary.reading.as_ref().unwrap();
    assert_eq!(reading.closest(), [old("strict-lock")]);
    assert_reproductions(&report);
}

#[test]
fn an_engine_claiming_a_reading_it_does_not_follow_is_named_too() {
    // Claims skip-origin, plays the default.
    let report = check_json(
        &kpe_engine(&["--rules", "default"], "skip-origin", 5000),
        &quick(),
    );
    let reading = report.summary.reading.as_ref().unwrap();
    assert_eq!(reading.closest(), [old("default")]);
}

#[test]
fn a_bug_no_reading_explains_is_flagged_with_its_rule() {
    let report = check_json(
        &kpe_engine(&["--fault", "capture-own-row"], "default", 5000),
        &quick(),
    );
    assert!(blamed(&report).contains(&"CAP-3"), "{:?}", blamed(&report));
    let reading = report.summary.reading.as_ref().unwrap();
    assert!(!reading.explained(), "{reading}");
    // The answers carry no game history: I5 is kept as claimed, so the
    // other profiles of the half that agrees on it are re-checked, and the
    // report says so.
    let others = kpe::Profile::COUNT / 2 - 1;
    assert_eq!(reading.rechecked, others);
    let text = reading.to_string();
    assert!(
        text.starts_with(&format!("no documented reading explains it: it diverges under every one of the {others} other profiles re-checked (I5 kept as claimed, which these checks cannot tell apart); closest: the claimed profile itself, which leaves CAP-3 ")),
        "{text}"
    );
    // The nearest profile is the claim itself (no reading fits better), and
    // it leaves the own-row capture unexplained.
    let nearest = reading.nearest.as_ref().unwrap();
    assert_eq!(nearest.profile, old("default"), "{nearest:?}");
    assert!(
        nearest.rules.iter().any(|r| r.rule == "CAP-3"),
        "{nearest:?}"
    );
    assert_reproductions(&report);
}

#[test]
fn the_same_seed_gives_the_same_games() {
    let manifest = kpe_engine(&["--rules", "skip-origin"], "default", 5000);
    let dir = tempfile::tempdir().unwrap();
    let options = LiveOptions {
        suite: Some(one_scenario_suite(dir.path())),
        ..quick()
    };
    // Times aside, the same seed gives the same report.
    let timeless = |report: Checked| {
        let mut units = report.units;
        units.iter_mut().for_each(|u| u.time = 0.0);
        units
    };
    let first = timeless(check_json(&manifest, &options));
    let second = timeless(check_json(&manifest, &options));
    assert_eq!(first, second);
    let other = check_json(
        &manifest,
        &LiveOptions {
            seed: Some(8),
            ..options
        },
    );
    assert_ne!(first, timeless(other));
}

// ---------------------------------------------------------------------------
// Hostile engines
/// The cores an engine may use, as it says on its stderr before failing
/// to start: kpe-check's report quotes that stderr.
#[cfg(target_os = "linux")]
fn engine_cores(pin: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("engine.json");
    let manifest = serde_json::json!({
        "format": "kpe-engine", "version": 1,
        "command": ["sh", "-c", "grep Cpus_allowed_list /proc/self/status >&2; exit 3"],
        "random": {"games": 1}, "perft": {"max_depth": 1},
    });
    std::fs::write(&path, manifest.to_string()).unwrap();
    let out = Command::cargo_bin("kpe-check")
        .unwrap()
        .args(["--jobs", "1", "--format", "json"])
        .arg(&path)
        .env("KPE_CHECK_PIN", pin)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    fn find(v: &serde_json::Value) -> Option<String> {
        match v {
            serde_json::Value::String(s) => {
                let at = s.find("Cpus_allowed_list:")?;
                s[at..].split_whitespace().nth(1).map(str::to_owned)
            }
            serde_json::Value::Array(items) => items.iter().find_map(find),
            serde_json::Value::Object(map) => map.values().find_map(find),
            _ => None,
        }
    }
    find(&report).unwrap_or_else(|| panic!("no stderr quoted: {report}"))
}

/// Issue 22: a worker and the engine it starts share one core (their turns
/// cost a switch, not a core's wake-up); `KPE_CHECK_PIN=0` leaves the
/// engine every core the run has.
#[cfg(target_os = "linux")]
#[test]
fn an_engine_shares_its_workers_core_unless_pinning_is_off() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let all = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_owned();
    assert_eq!(engine_cores("0"), all, "unpinned: every core of the run");
    let pinned = engine_cores("1");
    if all.contains([',', '-']) {
        assert!(
            pinned.parse::<usize>().is_ok(),
            "pinned to one core of {all}: {pinned}"
        );
    } else {
        assert_eq!(pinned, all, "one core: nothing to choose");
    }
}

// ---------------------------------------------------------------------------

/// The verdict of an engine that misbehaves with `fault`.
fn hostile(fault: &str) -> Checked {
    let options = LiveOptions {
        games: Some(2),
        perft_depth: Some(1),
        ..quick()
    };
    check_json(&kpe_engine(&["--fault", fault], "default", 300), &options)
}

/// The first errored unit: an engine failure is never a divergence.
fn first_error(report: &Checked) -> &kpe::reporter::EngineError {
    assert!(
        divergences(report).is_empty(),
        "an engine failure is not a rules divergence"
    );
    report
        .units
        .iter()
        .find_map(|u| u.error.as_ref())
        .unwrap_or_else(|| panic!("no errored unit: {:?}", report.units))
}

fn assert_verdict(report: &Checked, code: &str, words: &str) {
    let error = first_error(report);
    assert_eq!(error.code, code, "{error:?}");
    assert!(error.message.contains(words), "{}", error.message);
    assert!(error.request.is_some(), "{error:?}");
    assert_eq!(report.summary.verdict(), kpe::reporter::RunVerdict::Errored);
}

#[test]
fn hostile_engines_get_a_clear_verdict_and_never_hang() {
    for (fault, code, words) in [
        ("crash", "crash", "signal 6"),
        ("exit", "early-exit", "exit status 0"),
        ("hang", "timeout", "no answer within 300 ms"),
        ("spin", "timeout", "no answer within 300 ms"),
        ("garbage", "garbage", "legal moves: S1"),
        ("huge-line", "line-too-long", "longer than 1048576 bytes"),
        ("stderr-flood", "stderr-flood", "more than 16 MiB"),
        ("extra-line", "out-of-turn", "out of turn"),
    ] {
        let report = hostile(fault);
        assert_verdict(&report, code, words);
        // After a few restarts a worker gives up rather than fail forever:
        // the rest is reported as not run, and errored (issue 42: a unit
        // never run is never a pass).
        let gave_up = |u: &&UnitResult| u.error.as_ref().is_some_and(|e| e.code == "gave-up");
        let errored = report
            .units
            .iter()
            .filter(|u| u.error.is_some() && !gave_up(u))
            .count();
        assert!(
            errored <= 2 * kpe::live::MAX_STARTS as usize,
            "{fault}: {errored}"
        );
        let not_run: Vec<&UnitResult> = report
            .units
            .iter()
            .filter(|u| u.reason.as_deref().is_some_and(|r| r.contains("gave up")))
            .collect();
        assert!(!not_run.is_empty(), "{fault}");
        assert!(
            not_run
                .iter()
                .all(|u| u.verdict == kpe::reporter::Verdict::Errored && gave_up(u)),
            "{fault}: {not_run:?}"
        );
    }
}

#[test]
fn a_flooded_stderr_is_shown_as_a_short_tail() {
    let report = hostile("stderr-flood");
    let tail = &first_error(&report).stderr;
    assert!(!tail.is_empty() && tail.len() <= 20, "{tail:?}");
    assert!(tail.iter().all(|l| l.chars().count() < 200));
}

#[test]
fn a_wrong_protocol_version_stops_at_the_hello() {
    let report = hostile("wrong-protocol");
    assert_verdict(&report, "protocol-version", "protocol version 3");
    // One unit errors with the failed hello; the rest are not run.
    let errored: Vec<&UnitResult> = report.units.iter().filter(|u| u.error.is_some()).collect();
    assert_eq!(errored.len(), 1, "{errored:?}");
    assert_eq!(
        errored[0].reason.as_deref(),
        Some(kpe::reporter::DID_NOT_START)
    );
    assert!(
        report
            .units
            .iter()
            .filter(|u| u.error.is_none())
            .all(|u| u.verdict == kpe::reporter::Verdict::Skipped)
    );
}

#[test]
fn an_engine_that_cannot_start_is_errored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("engine.json");
    let manifest = serde_json::json!({
        "format": "kpe-engine", "version": 1, "command": ["./no-such-engine"]});
    std::fs::write(&path, manifest.to_string()).unwrap();
    let mut out = JsonSink::new(Vec::new());
    let summary = check_manifest_file(&path, &quick(), &mut out).unwrap();
    assert_eq!(summary.verdict(), kpe::reporter::RunVerdict::Errored);
    assert_eq!(
        summary.errored, 1,
        "one unit says the engine did not start; the rest are not run"
    );
    let json = valid_report(&out.into_inner());
    let error = json["units"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|u| u.get("error"))
        .unwrap();
    assert_eq!(error["code"], "spawn", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("no-such-engine"),
        "{error}"
    );
    assert_eq!(json["exit_code"], 3);
}

// ---------------------------------------------------------------------------
// The command line
// ---------------------------------------------------------------------------

fn kpe_check() -> Command {
    let mut command = Command::cargo_bin("kpe-check").unwrap();
    command
        .env("KPE_CHECK_SEED", "5")
        .env("KPE_CHECK_GAMES", "5")
        .env("KPE_CHECK_PERFT_DEPTH", "2");
    command.env_remove("KPE_CHECK_SUITE");
    command
}

fn manifest_file(dir: &Path, manifest: &serde_json::Value) -> PathBuf {
    let path = dir.join("engine.json");
    std::fs::write(&path, manifest.to_string()).unwrap();
    path
}

#[test]
fn kpe_check_exit_codes_and_formats() {
    let dir = tempfile::tempdir().unwrap();
    let good = manifest_file(dir.path(), &kpe_engine(&[], "default", 5000));
    let junit = dir.path().join("junit.xml");
    let out = kpe_check()
        .arg(&good)
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("verdict   CONFORMS (exit 0)"), "{stdout}");
    assert!(
        stdout.contains("seed      5 (repeat the random games with --seed 5)"),
        "{stdout}"
    );
    assert!(
        std::fs::read_to_string(&junit)
            .unwrap()
            .contains("<testsuite")
    );

    let bad = manifest_file(
        dir.path(),
        &kpe_engine(&["--rules", "skip-origin"], "default", 5000),
    );
    let out = kpe_check()
        .arg(&bad)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json = valid_report(&out.stdout);
    assert_eq!(json["conforms"], false, "{json}");

    let out = kpe_check().arg(&bad).arg("--color=never").output().unwrap();
    let human = String::from_utf8(out.stdout).unwrap();
    let skip = old("skip-origin");
    assert!(
        human.contains(&format!("conforms under: {skip}")),
        "{human}"
    );
    assert!(human.contains("SOW-4"), "{human}");
    assert!(human.contains("- id: kpe-check-"), "{human}");
}

#[test]
fn kpe_check_refuses_bad_manifests_and_settings_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    for (text, expected) in [
        (
            "{\"format\": \"kpe-engine\", \"version\": 1,\n \"command\": [\"x\"], \"timeout\": {}}",
            ":2:",
        ),
        (
            r#"{"format": "kpe-engine", "version": 9, "command": ["x"]}"#,
            "at version: unknown manifest version 9",
        ),
        (
            r#"{"format": "kpe-engine", "version": 1, "command": ["x"], "random": {"games": -1}}"#,
            "at random.games",
        ),
        (
            r#"{"format": "kpe-engine", "version": 1, "command": []}"#,
            "at command",
        ),
    ] {
        let path = dir.path().join("m.json");
        std::fs::write(&path, text).unwrap();
        let out = kpe_check().arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert!(stderr.contains(expected), "{text}: {stderr}");
    }
    let good = manifest_file(dir.path(), &kpe_engine(&[], "default", 5000));
    let out = kpe_check()
        .arg(&good)
        .env("KPE_CHECK_SEED", "soon")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("KPE_CHECK_SEED=soon"));
    let out = kpe_check()
        .arg(&good)
        .env("KPE_CHECK_PIN", "no")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("KPE_CHECK_PIN=no: expected 0") && stderr.contains("or 1"),
        "{stderr}"
    );
}

/// `KPE_CHECK_PIN` reaches the run through [`LiveOptions::unpinned`]: the
/// library reads no variable of its own.
#[test]
fn the_pin_variable_sets_the_unpinned_option() {
    fn with(value: Option<&'static str>) -> impl Fn(&str) -> Option<std::ffi::OsString> {
        move |name| {
            assert!(name.starts_with("KPE_CHECK_"), "{name}");
            value
                .filter(|_| name == kpe::live::ENV_PIN)
                .map(std::ffi::OsString::from)
        }
    }
    let unpinned = |given: bool, value| {
        LiveOptions {
            unpinned: given,
            ..LiveOptions::default()
        }
        .or_vars(with(value))
        .map(|o| o.unpinned)
    };
    assert_eq!(unpinned(false, None), Ok(false));
    assert_eq!(unpinned(false, Some("1")), Ok(false));
    assert_eq!(unpinned(false, Some("0")), Ok(true));
    assert_eq!(unpinned(true, None), Ok(true));
    assert_eq!(unpinned(true, Some("1")), Ok(true));
    assert!(unpinned(false, Some("")).is_err());
    assert!(LiveOptions::from_vars(with(Some("0"))).unwrap().unpinned);
}

/// A suite directory holding one scenario, `flag-suite-first-move`.
fn one_scenario_suite(dir: &Path) -> PathBuf {
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::write(
        suite.join("sowing.yaml"),
        "topic: sowing\n\
         scenarios:\n  \
           - id: flag-suite-first-move\n    \
             rules: [SOW-2, SOW-3]\n    \
             moves: [S4]\n    \
             expect:\n      \
               - ply: 1\n        \
                 position: 7,7,6,0/7,7,7,7 N 0/0 ---4/----\n",
    )
    .unwrap();
    suite
}

/// Runs kpe-check with `--format json` and `args`: the exit code, the
/// report and stderr.
fn kpe_check_json(path: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let out = kpe_check()
        .arg(path)
        .args(["--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = valid_report(&out.stdout);
    (out.status.code(), json, stderr)
}

/// The ids of the report's units of `kind`.
fn unit_ids(report: &serde_json::Value, kind: &str) -> Vec<String> {
    report["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["kind"] == kind)
        .map(|u| u["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn kpe_check_flags_win_over_the_environment() {
    // kpe_check() sets KPE_CHECK_SEED=5, KPE_CHECK_GAMES=5 and
    // KPE_CHECK_PERFT_DEPTH=2; each flag overrides its variable.
    let dir = tempfile::tempdir().unwrap();
    let suite = one_scenario_suite(dir.path());
    let good = manifest_file(dir.path(), &kpe_engine(&[], "default", 5000));
    let suite_arg = suite.to_str().unwrap();

    let (code, report, stderr) = kpe_check_json(&good, &["--seed", "11"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(report["run"]["certificate"]["seed"], 11);
    let games = unit_ids(&report, "random-game");
    assert_eq!(games.len(), 5, "{games:?}");

    let (code, report, stderr) = kpe_check_json(&good, &["--games", "3", "--suite", suite_arg]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        unit_ids(&report, "random-game"),
        ["random/0", "random/1", "random/2"]
    );
    let (_, report, _) = kpe_check_json(&good, &["--games", "0", "--suite", suite_arg]);
    assert_eq!(unit_ids(&report, "random-game"), Vec::<String>::new());

    let (code, report, stderr) =
        kpe_check_json(&good, &["--perft-depth", "3", "--suite", suite_arg]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        unit_ids(&report, "perft"),
        ["perft/initial/1", "perft/initial/2", "perft/initial/3"]
    );
    let (_, report, _) = kpe_check_json(&good, &["--perft-depth", "0", "--suite", suite_arg]);
    assert_eq!(unit_ids(&report, "perft"), Vec::<String>::new());

    let (code, report, stderr) = kpe_check_json(&good, &["--suite", suite_arg]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(unit_ids(&report, "scenario"), ["flag-suite-first-move"]);
    // The variable still works when no flag is given.
    let out = kpe_check()
        .arg(&good)
        .args(["--format", "json"])
        .env("KPE_CHECK_SUITE", &suite)
        .output()
        .unwrap();
    let report = valid_report(&out.stdout);
    assert_eq!(unit_ids(&report, "scenario"), ["flag-suite-first-move"]);

    // A flag wins even over a variable that would be refused.
    let out = kpe_check()
        .arg(&good)
        .args(["--seed", "3", "--games", "1", "--suite", suite_arg])
        .env("KPE_CHECK_SEED", "soon")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_suite_directory_that_does_not_load_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let good = manifest_file(dir.path(), &kpe_engine(&[], "default", 5000));
    let suite = one_scenario_suite(dir.path());
    let bad_file = suite.join("lock.yaml");
    // A duplicate id in one file, a rule that does not exist in another.
    std::fs::write(
        &bad_file,
        "topic: lock\nscenarios:\n  - id: flag-suite-first-move\n    rules: [LOCK-1]\n    moves: [S4]\n    expect:\n      - ply: 1\n        landing: S2\n",
    )
    .unwrap();
    let no_rule = suite.join("end.yaml");
    std::fs::write(
        &no_rule,
        "topic: end\nscenarios:\n  - id: no-rule\n    rules: [NOPE-9]\n    moves: [S1]\n    expect:\n      - ply: 1\n        landing: S4\n",
    )
    .unwrap();
    let bad_file = bad_file.display().to_string();
    let no_rule = no_rule.display().to_string();
    let missing = dir.path().join("no-such-suite");
    let missing_text = missing.display().to_string();
    for (how, needles) in [
        (
            vec!["--suite".to_owned(), suite.display().to_string()],
            vec![
                format!("{}: the conformance suite does not load:", suite.display()),
                format!("{bad_file}:3:"),
                "flag-suite-first-move".to_owned(),
                format!("{no_rule}:3:"),
                "NOPE-9".to_owned(),
            ],
        ),
        (
            vec!["--suite".to_owned(), missing_text.clone()],
            vec![format!(
                "{missing_text}: the conformance suite does not load:"
            )],
        ),
    ] {
        let (code, report, stderr) =
            kpe_check_json(&good, &how.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, Some(2), "{stderr}");
        for needle in &needles {
            assert!(stderr.contains(needle.as_str()), "{needle}: {stderr}");
        }
        assert_eq!(report["error"]["code"], "suite", "{report}");
        assert_eq!(report["units"], serde_json::json!([]), "nothing was run");
    }
    // The same through the environment variable.
    let out = kpe_check()
        .arg(&good)
        .env("KPE_CHECK_SUITE", &missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&missing_text));
    // And through the library, before the engine is started.
    let manifest = Manifest::load(&good).unwrap();
    let options = LiveOptions {
        suite: Some(suite.clone()),
        ..quick()
    };
    match check_engine(&manifest, &good, &options, &mut Collect::default()) {
        Err(kpe::live::LiveError::Suite { dir, errors }) => {
            assert_eq!(dir, suite);
            assert_eq!(errors.0.len(), 2, "{errors}");
        }
        other => panic!("{:?}", other.map(|r| r.summary)),
    }
}

/// A closed standard output (`kpe-check ... | head` once head has its
/// lines) is not bad input (issue 44: it exited 2 when the pipe closed
/// first): the run goes on, writes its report files and exits with its
/// verdict's code, saying nothing. The read end is closed before anything
/// is written, so the first write fails every time.
#[test]
fn kpe_check_exits_with_its_verdict_on_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let suite = one_scenario_suite(dir.path());
    let bad = manifest_file(
        dir.path(),
        &kpe_engine(&["--rules", "skip-origin"], "default", 5000),
    );
    let good = dir.path().join("good.json");
    std::fs::write(&good, kpe_engine(&[], "default", 5000).to_string()).unwrap();
    let closed = || {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        writer
    };
    for (manifest, code) in [(&bad, 1), (&good, 0)] {
        for format in ["human", "json"] {
            let junit = dir.path().join(format!("{format}-{code}.xml"));
            let out = kpe_check()
                .arg(manifest)
                .args(["--format", format, "--suite", suite.to_str().unwrap()])
                .arg("--junit")
                .arg(&junit)
                .stdout(closed())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(code), "{format}: {stderr}");
            // No error and no panic: at most the seed's line.
            assert!(
                !stderr.contains("error") && !stderr.contains("panic"),
                "{format}: {stderr}"
            );
            assert!(junit.is_file(), "{format}: the run went on to its files");
        }
    }
    // --list and completions too.
    let out = kpe_check()
        .arg(&good)
        .args(["--list", "--suite", suite.to_str().unwrap()])
        .stdout(closed())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
    let out = kpe_check()
        .args(["completions", "bash"])
        .stdout(closed())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
}

#[test]
fn kpe_check_refuses_bad_flag_values_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = manifest_file(dir.path(), &kpe_engine(&[], "default", 5000));
    for (flag, value) in [
        ("--seed", "soon"),
        ("--seed", "-1"),
        ("--games", "many"),
        ("--perft-depth", "4294967296"),
    ] {
        let out = kpe_check()
            .arg(&good)
            .arg(format!("{flag}={value}"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(stderr.contains(flag), "{flag} {value}: {stderr}");
        assert!(out.stdout.is_empty(), "{flag} {value}");
    }
}

#[test]
fn kpe_check_prints_a_seed_that_reproduces_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let suite = one_scenario_suite(dir.path());
    // A diverging engine, so that the games, shrinking and reproductions
    // all depend on the seed.
    let bad = manifest_file(
        dir.path(),
        &kpe_engine(&["--rules", "skip-origin"], "default", 5000),
    );
    let args = [
        "--games",
        "6",
        "--perft-depth",
        "1",
        "--suite",
        suite.to_str().unwrap(),
    ];
    let run = |extra: &[&str]| {
        let out = kpe_check()
            .env_remove("KPE_CHECK_SEED")
            .arg(&bad)
            .args(["--format", "json"])
            .args(args)
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report = valid_report(&out.stdout);
        (report, String::from_utf8(out.stderr).unwrap())
    };
    let (first, stderr) = run(&[]);
    let _ = stderr;
    let seed = first["run"]["certificate"]["seed"]
        .as_u64()
        .expect("the report states its seed")
        .to_string();
    let seed = seed.as_str();
    let (again, _) = run(&["--seed", seed]);
    let timeless = |report: &serde_json::Value| {
        let mut units = report["units"].clone();
        for unit in units.as_array_mut().unwrap() {
            unit["time"] = serde_json::json!(0);
        }
        units
    };
    assert_eq!(timeless(&first), timeless(&again));
    assert_eq!(first["summary"], again["summary"]);
    let other: u64 = seed.parse::<u64>().unwrap() + 1;
    let (different, _) = run(&["--seed", &other.to_string()]);
    assert_ne!(timeless(&first), timeless(&different));
}

#[test]
fn kpe_engine_speaks_the_protocol() {
    let input = [
        r#"{"type":"hello","protocol":1,"profile":"skip-origin"}"#,
        r#"{"type":"play","position":"8,6,6,6/6,6,6,4 S 0/0 1---/1234","move":"S1"}"#,
        r#"{"type":"play","position":"6,6,6,6/6,6,6,6 S 0/0 ----/----","move":"N1"}"#,
        "not json",
        r#"{"type":"quit"}"#,
        r#"{"type":"legal","position":"6,6,6,6/6,6,6,6 S 0/0 ----/----"}"#,
    ];
    let out = Command::new(kpe())
        .arg("engine")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(input.join("\n").as_bytes())?;
            drop(stdin);
            child.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success());
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 4, "nothing after quit: {lines:?}");
    assert!(lines[0].contains(r#""perft":true"#));
    // skip-origin, as the hello asked, not the default.
    let after = |profile: &str| {
        let start: Position = "8,6,6,6/6,6,6,4 S 0/0 1---/1234".parse().unwrap();
        let (p, _) = kpe::play(&start, "S1".parse().unwrap(), profile.parse().unwrap()).unwrap();
        format!(r#""position":"{p}""#)
    };
    assert_ne!(after("skip-origin"), after("origin=sown"));
    assert!(lines[1].contains(&after("skip-origin")), "{}", lines[1]);
    assert_eq!(lines[2], r#"{"type":"illegal","reason":"not-own-pit"}"#);
    assert!(lines[3].starts_with(r#"{"type":"error","message":"cannot read the request"#));
}

// ---------------------------------------------------------------------------
// The sample engines in examples/engines (need python3)
// ---------------------------------------------------------------------------

fn sample(name: &str) -> Checked {
    check_path(&root().join("examples/engines").join(name), &quick())
}

#[test]
fn every_example_manifest_reads() {
    let dir = root().join("examples/engines");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            Manifest::load(&path).unwrap_or_else(|e| panic!("{e}"));
            count += 1;
        }
    }
    assert!(count >= 7, "{count}");
}

#[test]
fn the_correct_python_engine_conforms() {
    if !python3() {
        return;
    }
    for name in ["correct.json", "claims-skip-origin.json"] {
        let report = sample(name);
        assert!(report.conforms(), "{name}: {:#?}", divergences(&report));
        assert!(
            report
                .engine
                .as_ref()
                .unwrap()
                .name
                .starts_with("kpe-sample-py")
        );
    }
}

/// The sample Python engine is a deliberate copy of the rules (spec/RULES.md,
/// "Deliberate copies of the rules"): it conforms under every profile, each
/// checked in turn with its own hello (the scenarios each profile admits,
/// seeded random games and perft). Needs python3.
#[test]
fn the_python_engine_conforms_under_every_profile() {
    if !python3() {
        return;
    }
    let engine = root().join("examples/engines/kpe_engine.py");
    let report = check_json(
        &serde_json::json!({
            "format": "kpe-engine", "version": 1,
            "command": ["python3", engine],
            "profiles": "all",
            "timeouts": {"start_ms": 20000, "request_ms": 20000},
        }),
        &LiveOptions {
            seed: Some(11),
            games: Some(2),
            perft_depth: Some(2),
            ..LiveOptions::default()
        },
    );
    assert!(report.conforms(), "{:#?}", divergences(&report));
    let checked: Vec<Profile> = report.summary.profiles.iter().map(|r| r.profile).collect();
    assert_eq!(checked, Profile::all().collect::<Vec<_>>());
    assert!(
        report
            .summary
            .profiles
            .iter()
            .all(|r| r.counts.conforms > 0),
        "every profile checked something"
    );
}

#[test]
fn each_python_variant_is_caught_with_its_rule_and_reading() {
    if !python3() {
        return;
    }
    // The two reading variants play the other reading of theirs than the
    // profile asked (the default).
    for (name, rule, reading) in [
        ("skip-origin.json", "SOW-4", Some(Switch::SkipOrigin)),
        ("strict-lock.json", "LOCK-3", Some(Switch::StrictLock)),
        ("own-row.json", "CAP-3", None),
        ("no-feeding.json", "FEED-1", None),
        ("no-sweep.json", "END-2", None),
    ] {
        let report = sample(name);
        assert!(!report.conforms(), "{name}");
        assert!(
            blamed(&report).contains(&rule),
            "{name}: {:?}",
            blamed(&report)
        );
        let named = report.summary.reading.as_ref().unwrap();
        match reading {
            Some(s) => assert_eq!(
                named.closest(),
                [Profile::DEFAULT.set(s, !Profile::DEFAULT.has(s))],
                "{name}"
            ),
            None => assert!(!named.explained(), "{name}: {named}"),
        }
        assert_reproductions(&report);
    }
}

#[test]
fn a_python_engine_that_raises_shows_its_traceback() {
    if !python3() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("raises.py"),
        "import json, sys\n\
         for line in sys.stdin:\n    \
             r = json.loads(line)\n    \
             if r['type'] == 'hello':\n        \
                 print(json.dumps({'type': 'hello', 'protocol': 1, 'name': 'raises', 'version': '0'}), flush=True)\n    \
             else:\n        \
                 raise ValueError('cannot read ' + r['position'])\n",
    )
    .unwrap();
    let path = manifest_file(
        dir.path(),
        &serde_json::json!({"format": "kpe-engine", "version": 1,
            "command": ["python3", "raises.py"], "timeouts": {"request_ms": 3000}}),
    );
    let report = check_path(
        &path,
        &LiveOptions {
            games: Some(1),
            ..quick()
        },
    );
    assert_verdict(&report, "crash", "exit status 1");
    let tail = &first_error(&report).stderr;
    assert!(
        tail.iter().any(|n| n.contains("ValueError: cannot read")),
        "{tail:?}"
    );
}

// ---------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------

#[test]
fn schemas_are_current() {
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some_and(|v| v == "1");
    for (file, schema) in [
        ("spec/protocol.schema.json", kpe::protocol::schema()),
        ("spec/manifest.schema.json", kpe::live::manifest_schema()),
    ] {
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        let path = root().join(file);
        if update {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == text,
            "{file} is out of date: regenerate with `UPDATE_SCHEMAS=1 cargo test --test live schemas` and commit"
        );
    }
}

#[test]
fn the_example_session_in_the_protocol_spec_is_what_kpe_engine_answers() {
    let spec = std::fs::read_to_string(root().join("spec/PROTOCOL.md")).unwrap();
    let sent: Vec<&str> = spec.lines().filter_map(|l| l.strip_prefix("> ")).collect();
    let want: Vec<serde_json::Value> = spec
        .lines()
        .filter_map(|l| l.strip_prefix("< "))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        sent.len() > 5 && want.len() == sent.len() - 1,
        "one answer per request but quit"
    );
    let out = Command::new(kpe())
        .arg("engine")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all((sent.join("\n") + "\n").as_bytes())?;
            drop(stdin);
            child.wait_with_output()
        })
        .unwrap();
    let got: Vec<serde_json::Value> = std::str::from_utf8(&out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The hello names the engine; everything else must match exactly.
    assert_eq!(got[0]["protocol"], want[0]["protocol"]);
    assert_eq!(got[1..], want[1..]);
    for line in sent {
        serde_json::from_str::<kpe::protocol::Request>(line).unwrap();
    }
    for value in want {
        serde_json::from_value::<kpe::protocol::Reply>(value).unwrap();
    }
}

/// Regression: an engine started through a shell leaves a grandchild that
/// holds its pipes open; kpe-check must neither wait for it nor leave it
/// running.
#[cfg(target_os = "linux")]
#[test]
fn processes_the_engine_started_are_killed_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("sleeper.pid");
    let script = format!(
        "sleep 60 & echo $! > '{}'; exec '{}' engine --fault hang",
        pid_file.display(),
        kpe()
    );
    let manifest = serde_json::json!({
        "format": "kpe-engine", "version": 1, "command": ["sh", "-c", script],
        "timeouts": {"request_ms": 200},
    });
    let options = LiveOptions {
        games: Some(1),
        perft_depth: Some(1),
        suite: Some(one_scenario_suite(dir.path())),
        ..quick()
    };
    let report = check_json(&manifest, &options);
    assert_verdict(&report, "timeout", "no answer within 200 ms");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let proc_stat = format!("/proc/{}/stat", pid.trim());
    // Gone, or a zombie waiting for its new parent to reap it. A killed
    // process takes a moment to die: look a few times.
    let dead = |stat: &str| stat.rsplit(") ").next().is_some_and(|s| s.starts_with('Z'));
    let mut last = String::new();
    for _ in 0..100 {
        match std::fs::read_to_string(&proc_stat) {
            Err(_) => return,
            Ok(stat) if dead(&stat) => return,
            Ok(stat) => last = stat,
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("the grandchild still runs: {last}");
}

/// `kpe engine --fault slow` answers like `kpe engine`, each reply after
/// [`kpe::live::SLOW_DELAY`]; the workers' time shows the engine's wait.
#[test]
fn a_slow_engine_conforms_and_its_wait_is_counted() {
    let options = LiveOptions {
        seed: Some(3),
        games: Some(3),
        perft_depth: Some(0),
        suite: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scenarios/good")),
        jobs: Some(2),
        ..LiveOptions::default()
    };
    let slow = check_json(&kpe_engine(&["--fault", "slow"], "default", 5000), &options);
    assert!(slow.conforms(), "{:?}", slow.summary);
    let time = slow.time;
    assert!(time.requests > 10, "{time:?}");
    // Every request (hellos included) waited at least the delay.
    let floor = kpe::live::SLOW_DELAY * u32::try_from(time.requests).unwrap();
    assert!(time.wait >= floor, "{time:?}");
    assert!(time.busy >= time.wait, "{time:?}");
    let share = time.own_share();
    assert!((0.0..1.0).contains(&share), "{share}");
    // The same games from the plain engine, with one worker for both so
    // that no engine's cache of answers depends on which worker took which
    // unit: the same requests, answered without the delay.
    let one = LiveOptions {
        jobs: Some(1),
        ..options
    };
    let slow = check_json(&kpe_engine(&["--fault", "slow"], "default", 5000), &one);
    let plain = check_json(&kpe_engine(&[], "default", 5000), &one);
    assert_eq!(
        plain.time.requests, slow.time.requests,
        "{:?} {:?}",
        plain.time, slow.time
    );
    assert_eq!(plain.units.len(), slow.units.len());
}

#[test]
fn an_engine_is_checked_by_the_meaning_of_the_protocol_version_it_speaks() {
    // Protocol 2 counts perft under end-on-repetition with the repetition
    // rule; protocol 1 said nothing of it, and its engines count without.
    let profile = "end-on-repetition";
    let options = LiveOptions {
        policy: kpe::reporter::Policy {
            only: vec!["perft/*".parse().unwrap()],
            ..kpe::reporter::Policy::default()
        },
        ..quick()
    };
    let current = check_json(&kpe_engine(&[], profile, 5000), &options);
    assert!(current.conforms(), "{:#?}", divergences(&current));
    assert_eq!(
        current.run.certificate.protocol,
        Some(kpe::protocol::PROTOCOL_VERSION)
    );
    // An engine of version 1, counting as version 1 said: it conforms, and
    // the certificate says by which version it was checked.
    let old = check_json(&kpe_engine(&["--protocol", "1"], profile, 5000), &options);
    assert!(old.conforms(), "{:#?}", divergences(&old));
    assert_eq!(old.run.certificate.protocol, Some(1));
    assert_eq!(old.engine.as_ref().map(|i| i.protocol), Some(1));
    // So does one counting with the repetition rule, as version 1's text
    // said from 2026-12-01 (issue 42: it got `expected 138, counted 132`).
    let also = check_json(
        &kpe_engine(&["--protocol", "1", "--perft-repetition"], profile, 5000),
        &options,
    );
    assert!(also.conforms(), "{:#?}", divergences(&also));
    assert_eq!(also.run.certificate.protocol, Some(1));
    // The same counts from an engine that says version 2 are wrong.
    let wrong = check_json(
        &kpe_engine(&["--fault", "perft-without-repetition"], profile, 5000),
        &options,
    );
    assert!(!wrong.conforms());
    let perft: Vec<&str> = divergences(&wrong)
        .iter()
        .map(|(u, _)| u.id.as_str())
        .collect();
    assert!(
        !perft.is_empty() && perft.iter().all(|id| id.starts_with("perft/")),
        "{perft:?}"
    );
    // Without the repetition rule the two versions mean the same.
    let plain = check_json(
        &kpe_engine(&["--fault", "perft-without-repetition"], "default", 5000),
        &options,
    );
    assert!(plain.conforms(), "{:#?}", divergences(&plain));
}

/// Issue 25: a live run's memory does not grow with `--games`. The run
/// keeps no unit (they reach the sink, every one, in plan order), and no
/// more than the scheduler's window of results is held at once.
#[test]
fn a_run_holds_a_window_of_results_not_every_game() {
    let games = kpe::live::WINDOW as u32 + 40;
    let mut manifest = kpe_engine(&[], "default", 5000);
    manifest["random"] = serde_json::json!({"max_plies": 2});
    let options = LiveOptions {
        seed: Some(25),
        games: Some(games),
        perft_depth: Some(1),
        jobs: Some(2),
        ..LiveOptions::default()
    };
    let report = check_json(&manifest, &options);
    assert!(report.conforms(), "{:?}", report.summary);
    assert!(
        (1..=kpe::live::WINDOW).contains(&report.held),
        "{}",
        report.held
    );
    let random = report
        .units
        .iter()
        .filter(|u| u.kind == "random-game")
        .count();
    assert_eq!(random, games as usize);
    let seqs: Vec<u64> = report.units.iter().filter_map(|u| u.seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
}

// ---------------------------------------------------------------------------
// Reproductions that paste (issue 44)
// ---------------------------------------------------------------------------

/// The first scenario the human report prints, as printed: the lines after
/// its `reproduce it` line, up to the blank line that ends it.
fn printed_scenario(report: &str) -> String {
    let mut lines = report
        .lines()
        .skip_while(|l| !l.contains("reproduce it: this scenario"))
        .skip(1);
    let mut text = String::new();
    for line in lines.by_ref().take_while(|l| !l.is_empty()) {
        text.push_str(line);
        text.push('\n');
    }
    assert!(!text.is_empty(), "no scenario printed:\n{report}");
    text
}

/// The id of the first scenario of `yaml`.
fn first_id(yaml: &str) -> String {
    let line = yaml.lines().find(|l| l.contains("- id: ")).unwrap();
    line.split("- id: ").nth(1).unwrap().trim().to_owned()
}

/// The divergence, the reproduction, the suite copy: a scenario printed by
/// kpe-check, appended as printed to a file of a copy of the suite, loads
/// (`kpe suite --dir`), and `--suite DIR --games 0 --perft-depth 0` then
/// checks exactly the suite's scenarios: the diverging engine fails that
/// one scenario and nothing else, and the reference engine conforms.
#[test]
fn a_printed_scenario_appended_as_printed_to_a_suite_copy_loads_and_reproduces() {
    let dir = tempfile::tempdir().unwrap();
    let suite = one_scenario_suite(dir.path());
    let bad = manifest_file(
        dir.path(),
        &kpe_engine(&["--rules", "skip-origin"], "default", 5000),
    );
    let good = dir.path().join("good.json");
    std::fs::write(&good, kpe_engine(&[], "default", 5000).to_string()).unwrap();
    let out = kpe_check()
        .arg(&bad)
        .args(["--suite", suite.to_str().unwrap(), "--color", "never"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8(out.stdout).unwrap();
    let printed = printed_scenario(&report);
    assert!(printed.starts_with("  - id: "), "{printed}");
    let id = first_id(&printed);

    let file = suite.join("sowing.yaml");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str(&printed);
    std::fs::write(&file, text).unwrap();
    let loaded = Command::new(kpe())
        .args(["suite", "--dir", suite.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        loaded.status.success(),
        "{}",
        String::from_utf8_lossy(&loaded.stderr)
    );

    let suite_only = ["--suite", suite.to_str().unwrap(), "--games", "0"];
    let (code, report, stderr) =
        kpe_check_json(&bad, &[&suite_only[..], &["--perft-depth", "0"]].concat());
    assert_eq!(code, Some(1), "{stderr}");
    let units: Vec<(&str, &str)> = report["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["kind"] != "probe")
        .map(|u| (u["id"].as_str().unwrap(), u["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        units,
        [
            ("flag-suite-first-move", "conforms"),
            (id.as_str(), "diverges")
        ]
    );
    let (code, report, stderr) =
        kpe_check_json(&good, &[&suite_only[..], &["--perft-depth", "0"]].concat());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(unit_ids(&report, "scenario").len(), 2);
    assert_eq!(report["units"].as_array().unwrap().len(), 2, "{report}");
    let notes = report["summary"]["notes"].to_string();
    assert!(notes.contains("no edge probes"), "{notes}");
}

/// `--write-scenarios FILE`: the printed reproductions appended to FILE
/// (made with its header when absent), the result a scenario file; an id
/// already in the suite given or in FILE is refused with exit 2 and FILE
/// left as it was.
#[test]
fn write_scenarios_appends_the_reproductions_and_refuses_a_taken_id() {
    let dir = tempfile::tempdir().unwrap();
    let suite = one_scenario_suite(dir.path());
    let bad = manifest_file(
        dir.path(),
        &kpe_engine(&["--rules", "skip-origin"], "default", 5000),
    );
    let found = dir.path().join("found.yaml");
    let run = |extra: &[&str]| {
        kpe_check()
            .arg(&bad)
            .args(["--suite", suite.to_str().unwrap(), "--color", "never"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--write-scenarios", found.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8(out.stdout).unwrap();
    let written = std::fs::read_to_string(&found).unwrap();
    assert!(written.starts_with(kpe::reporter::SCENARIO_FILE_HEADER));
    // Every scenario printed is in the file, as printed.
    let printed = printed_scenario(&report);
    assert!(written.contains(&printed), "{written}\n---\n{printed}");
    let file = kpe::scenario::parse_file("found.yaml", &written).unwrap();
    assert_eq!(
        file.scenarios.len() as u64,
        report.matches("reproduce it: this scenario").count() as u64
    );

    // Again: every id is in FILE now.
    let out = run(&["--write-scenarios", found.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let first = &file.scenarios[0].id;
    assert!(
        stderr.contains(&format!(
            "scenario id `{first}` is already in this file; nothing was written"
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&found).unwrap(), written);

    // Moved into the suite: the suite's copy is what refuses it.
    let in_suite = suite.join("found.yaml");
    std::fs::rename(&found, &in_suite).unwrap();
    let out = run(&["--write-scenarios", found.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("`{first}` is already in {}", in_suite.display())),
        "{stderr}"
    );
    assert!(!found.exists());

    // A file that does not load is named before the run.
    std::fs::write(&found, "topic: t\nscenarios: [}\n").unwrap();
    let out = run(&["--write-scenarios", found.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("does not load as a scenario file"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}
