//! `kpe-check` on transcripts: exit codes, the three report formats, every
//! class of bad input, naming the reading, the sample transcripts, the
//! scenarios it prints, and the committed transcript schema.
//!
//! Regenerate `spec/transcript.schema.json` with
//! `UPDATE_SCHEMAS=1 cargo test --test check_cli schema`; accept a changed
//! report snapshot with `cargo insta review`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use kpe::reporter::{InputErrorKind, JsonSink};
use kpe::scenario::{Reference, Subject, parse_file};
use kpe::transcripts::check_transcript_reader;
use kpe::{Game, Pit, Position, Profile};
use predicates::prelude::*;
use serde_json::Value;

#[path = "common/collect.rs"]
mod collect;
#[path = "common/schema.rs"]
mod schema;
use collect::Collect;
use schema::valid_report;

fn kpe_check() -> Command {
    let mut cmd = Command::cargo_bin("kpe-check").expect("the kpe-check binary is built");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    cmd
}

/// The sample transcripts were recorded under the all-off profile; how a
/// report writes `profile` against the authority's current default
/// (`default` until a reading is adopted).
fn written(profile: Profile) -> String {
    profile.written_against(Profile::DEFAULT)
}

/// `text` with the profiles of the samples written against the all-off
/// profile, as the snapshots state them, whichever default is adopted
/// (the identity while the default is all off).
fn in_all_off_terms(text: &str) -> String {
    let skip = Profile::ALL_OFF.set(kpe::Switch::SkipOrigin, true);
    let mut out = text.to_owned();
    for p in [skip, Profile::ALL_OFF] {
        out = out.replace(&written(p), &p.written_against(Profile::ALL_OFF));
    }
    out
}

fn example(name: &str) -> String {
    format!("examples/transcripts/{name}")
}

/// A transcript file in a fresh temporary directory.
struct Temp {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

fn temp_file(contents: &[u8]) -> Temp {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("transcript.json");
    std::fs::write(&path, contents).expect("the file is written");
    Temp { _dir: dir, path }
}

const HEADER: &str =
    r#""format": "kpe-transcript", "version": 1, "engine": {"name": "t", "version": "1"}"#;

/// A transcript with the given games (a JSON array's contents).
fn transcript(games: &str) -> String {
    format!("{{{HEADER}, \"games\": [{games}]}}")
}

/// The header of a sample transcript's games: [`HEADER`] with the profile
/// the sample claims (`kpe adopt` keeps it the same rules).
fn sample_header(sample: &Value) -> String {
    format!("{HEADER}, \"profile\": {}", sample["profile"])
}

/// Runs kpe-check with `--format json` and returns the exit code and report.
fn json_report(path: &Path) -> (i32, Value) {
    let out = kpe_check()
        .arg(path)
        .args(["--format", "json"])
        .output()
        .expect("kpe-check runs");
    // Every report follows the committed schema.
    let report = valid_report(&out.stdout);
    (out.status.code().expect("an exit code"), report)
}

/// Asserts that `contents` is bad input: exit 2, and stderr contains each
/// of `needles`.
fn assert_bad_input(contents: &[u8], needles: &[&str]) {
    let t = temp_file(contents);
    let out = kpe_check().arg(&t.path).output().expect("kpe-check runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "`{needle}` not in: {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
    // The JSON report stays valid and carries the error.
    let (code, report) = json_report(&t.path);
    assert_eq!(code, 2);
    assert!(report["error"]["message"].is_string(), "{report}");
}

// ---------------------------------------------------------------------------
// Exit codes and formats
// ---------------------------------------------------------------------------

#[test]
fn a_conforming_transcript_exits_0() {
    kpe_check()
        .arg(example("conforming.json"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "verdict   CONFORMS (exit 0)\n  games     3 conform (3 games in all;",
        ))
        .stdout(predicate::str::contains("✓").not());
    // Passes are listed with --verbose only.
    kpe_check()
        .arg(example("conforming.json"))
        .arg("--verbose")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "✓ game chase (games[2]) conforms (12 plies)",
        ));
}

#[test]
fn a_diverging_transcript_exits_1_with_the_human_report() {
    let out = kpe_check()
        .arg(example("skip-origin.json"))
        .output()
        .expect("kpe-check runs");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(!text.contains('\u{1b}'), "piped output has no colour");
    insta::assert_snapshot!("check_human_report_skip_origin", in_all_off_terms(&text));
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let coloured = kpe_check()
        .arg(example("skip-origin.json"))
        .args(["--color", "always"])
        .output()
        .expect("kpe-check runs");
    assert!(String::from_utf8_lossy(&coloured.stdout).contains("\u{1b}["));
    let plain = kpe_check()
        .arg(example("skip-origin.json"))
        .env("NO_COLOR", "1")
        .output()
        .expect("kpe-check runs");
    assert!(!String::from_utf8_lossy(&plain.stdout).contains('\u{1b}'));
    let never = kpe_check()
        .arg(example("skip-origin.json"))
        .args(["--color", "never"])
        .env("CLICOLOR_FORCE", "1")
        .output()
        .expect("kpe-check runs");
    assert!(!String::from_utf8_lossy(&never.stdout).contains('\u{1b}'));
}

#[test]
fn json_output_parses_and_carries_the_divergence() {
    let (code, report) = json_report(Path::new(&example("skip-origin.json")));
    assert_eq!(code, 1);
    assert_eq!(report["format"], "kpe-check-report");
    assert_eq!(report["run"]["engine"]["name"], "naive-kpe");
    assert_eq!(report["run"]["profile"], written(Profile::ALL_OFF));
    assert_eq!(report["conforms"], false);
    assert_eq!(report["summary"]["units"], 2);
    assert_eq!(report["summary"]["diverging"], 1);
    let unit = &report["units"][1];
    assert_eq!(unit["verdict"], "diverges");
    let d = &unit["divergence"];
    assert_eq!(d["ply"], 3);
    assert_eq!(d["move"], "S2");
    assert_eq!(d["rules"], serde_json::json!(["SOW-4"]));
    assert_eq!(d["fields"][0]["field"], "after");
    assert_eq!(d["scenario"]["rules"], serde_json::json!(["SOW-4"]));
    assert_eq!(
        report["summary"]["reading"]["closest"],
        serde_json::json!([written(Profile::ALL_OFF.set(kpe::Switch::SkipOrigin, true))])
    );
    assert_eq!(
        report["summary"]["reading"]["rechecked"],
        kpe::Profile::COUNT - 1
    );
    assert_eq!(
        report["summary"]["reading"]["kept_as_claimed"],
        serde_json::json!([])
    );
    let (code, report) = json_report(Path::new(&example("conforming.json")));
    assert_eq!(code, 0);
    assert_eq!(report["conforms"], true);
    assert!(report["summary"]["reading"].is_null());
    assert_eq!(report["units"].as_array().map(Vec::len), Some(3));
}

#[test]
fn junit_output_is_well_formed() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let xml_path = dir.path().join("junit.xml");
    kpe_check()
        .arg(example("chain-past-row.json"))
        .arg("--junit")
        .arg(&xml_path)
        .assert()
        .code(1);
    let xml = std::fs::read_to_string(&xml_path).expect("the JUnit file is written");
    let doc = roxmltree::Document::parse(&xml).expect("well-formed JUnit XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("tests"), Some("2"));
    assert_eq!(root.attribute("failures"), Some("1"));
    let failed: Vec<_> = root
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .filter(|c| c.children().any(|n| n.has_tag_name("failure")))
        .collect();
    assert_eq!(failed.len(), 1, "{xml}");
    assert!(xml.contains("CAP-3"), "{xml}");
    let name = failed[0].attribute("name").unwrap_or_default();
    assert!(name.starts_with("seed-"), "{name}");
    assert!(xml.contains("classname=\"kpe.game\""), "{xml}");
    // Bad input gives an error test case, still well-formed.
    let t = temp_file(b"{");
    kpe_check()
        .arg(&t.path)
        .arg("--junit")
        .arg(&xml_path)
        .assert()
        .code(2);
    let xml = std::fs::read_to_string(&xml_path).expect("the JUnit file is written");
    let doc = roxmltree::Document::parse(&xml).expect("well-formed JUnit XML");
    assert_eq!(doc.root_element().attribute("errors"), Some("1"), "{xml}");
}

#[test]
fn usage_errors_exit_2_and_help_documents_the_exit_codes() {
    kpe_check().assert().code(2);
    kpe_check()
        .args(["x.json", "--format", "yaml"])
        .assert()
        .code(2);
    kpe_check()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Exit codes:"))
        .stdout(predicate::str::contains(
            "1  diverges: at least one rules divergence",
        ));
}

#[test]
fn live_mode_flags_with_a_transcript_are_a_usage_error() {
    for args in [
        &["--seed", "1"][..],
        &["--games", "3"],
        &["--perft-depth", "2"],
        &["--suite", "conformance"],
    ] {
        let flag = args[0];
        kpe_check()
            .arg(example("conforming.json"))
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(format!(
                "{flag} applies to engine manifests only, and examples/transcripts/conforming.json is a transcript"
            )));
    }
    kpe_check()
        .arg(example("conforming.json"))
        .args(["--games", "3", "--seed", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--seed, --games apply to engine manifests only",
        ));
    // The environment variables are ignored, even when malformed.
    kpe_check()
        .arg(example("conforming.json"))
        .env("KPE_CHECK_SEED", "soon")
        .env("KPE_CHECK_SUITE", "no-such-dir")
        .assert()
        .code(0);
    kpe_check()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("--perft-depth <N>"))
        .stdout(predicate::str::contains("KPE_CHECK_PERFT_DEPTH"));
}

/// Runs kpe-check with `args` and its stdout a pipe whose reading end is
/// already closed, as under `kpe-check ... | head -1` once head is done:
/// the exit code and stderr.
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .stdout(writer)
        .output()
        .expect("kpe-check runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A closed pipe is not bad input (issue 44): the run exits quietly with
/// its verdict's code, 1 for this diverging transcript, 0 for a
/// conforming one.
#[test]
fn a_closed_pipe_ends_the_run_quietly_with_its_verdict() {
    let transcript = example("skip-origin.json");
    let conforming = example("conforming.json");
    for args in [
        vec![transcript.as_str()],
        vec![transcript.as_str(), "--format", "json"],
        vec![transcript.as_str(), "--color", "always"],
        vec![transcript.as_str(), "--verbose"],
    ] {
        let (code, stderr) = with_closed_stdout(&args);
        assert_eq!((code, stderr.as_str()), (Some(1), ""), "{args:?}");
    }
    let (code, stderr) = with_closed_stdout(&[conforming.as_str()]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    for args in [["--help"], ["-h"], ["--version"]] {
        let (code, stderr) = with_closed_stdout(&args);
        assert_eq!((code, stderr.as_str()), (Some(0), ""), "{args:?}");
    }
    // Bad input is still reported on stderr.
    let (code, stderr) = with_closed_stdout(&["no-such-file.json", "--format", "json"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.starts_with("error: no-such-file.json: cannot read the file"),
        "{stderr}"
    );
}

#[test]
fn an_engine_manifest_goes_to_the_live_mode() {
    let t = temp_file(br#"{"format": "kpe-engine", "version": 1}"#);
    let out = kpe_check().arg(&t.path).output().expect("kpe-check runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Read as a manifest (not refused as an unknown format), it is bad input
    // because it names no engine command: exit 2, and the error says where.
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(":1:38: top level: missing field `command`"),
        "{stderr}"
    );
    assert!(!stderr.contains("unknown format"), "{stderr}");
}

// ---------------------------------------------------------------------------
// Bad input: one test per class
// ---------------------------------------------------------------------------

#[test]
fn bad_input_malformed_json_gives_line_and_column() {
    assert_bad_input(
        format!("{{{HEADER},\n \"games\": [\n  {{\"id\": \"g\", \"plies\": [}}]}}").as_bytes(),
        &["transcript.json:3:", "expected value"],
    );
}

#[test]
fn bad_input_trailing_characters() {
    assert_bad_input(
        format!("{} x", transcript("")).as_bytes(),
        &["trailing characters"],
    );
}

#[test]
fn bad_input_wrong_type_gives_the_json_path() {
    assert_bad_input(
        transcript(r#"{"id": "g", "plies": [{"move": "S1", "after": 7}]}"#).as_bytes(),
        &["at games[0].plies[0].after", "invalid type: integer `7`"],
    );
    assert_bad_input(
        transcript(r#"{"id": "g", "plies": [{"move": "S5", "after": "x"}]}"#).as_bytes(),
        &["at games[0].plies[0].move", "`S5` is not a pit"],
    );
    assert_bad_input(
        format!("{{{HEADER}, \"games\": {{}}}}").as_bytes(),
        &["at games", "expected an array of games"],
    );
    assert_bad_input(b"[1, 2]", &["top level", "expected a JSON object"]);
    // An optional field is left out, never null.
    assert_bad_input(
        transcript(r#"{"id": "g", "plies": [{"move": "S1", "after": "0,7,7,7/7,7,7,6 N 0/0 1---/----", "game_over": null}]}"#)
            .as_bytes(),
        &["at games[0].plies[0].game_over", "invalid type: null"],
    );
    assert_bad_input(
        format!("{{{HEADER}, \"profile\": null, \"games\": []}}").as_bytes(),
        &["at profile", "invalid type: null"],
    );
}

#[test]
fn bad_input_unknown_and_duplicate_fields() {
    assert_bad_input(
        transcript(r#"{"id": "g", "plies": [{"move": "S1", "after": "0,7,7,7/7,7,7,6 N 0/0 1---/----", "captured": []}]}"#)
            .as_bytes(),
        &["at games[0].plies[0]", "unknown field `captured`"],
    );
    assert_bad_input(
        format!("{{{HEADER}, \"rules\": \"default\", \"games\": []}}").as_bytes(),
        &["unknown field `rules`"],
    );
    assert_bad_input(
        format!("{{{HEADER}, \"version\": 1, \"games\": []}}").as_bytes(),
        &["duplicate field `version`"],
    );
}

#[test]
fn bad_input_missing_and_late_fields() {
    assert_bad_input(
        br#"{"format": "kpe-transcript", "version": 1, "games": []}"#,
        &["transcript.json:1:56: top level: missing field `engine`"],
    );
    assert_bad_input(
        format!("{{{HEADER}}}").as_bytes(),
        &["missing field `games`"],
    );
    // A file that ends with `]}` has `games` last: read at once, and what
    // follows it anyway is refused.
    assert_bad_input(
        format!("{{{HEADER}, \"games\": [], \"profile\": [\"default\"]}}").as_bytes(),
        &["at profile", "invalid type: sequence"],
    );
    assert_bad_input(
        transcript(r#"{"plies": []}"#).as_bytes(),
        &["at games[0]", "missing field `id`"],
    );
    assert_bad_input(
        transcript(r#"{"plies": [], "id": "g", "start": "6,6,6,6/6,6,6,6 S 0/0 ----/----", "start": "6,6,6,6/6,6,6,6 S 0/0 ----/----"}"#).as_bytes(),
        &["at games[0]", "duplicate field `start`"],
    );
    assert_bad_input(
        format!("{{\"games\": [], {HEADER}, \"games\": []}}").as_bytes(),
        &["duplicate field `games`"],
    );
    assert_bad_input(
        transcript(r#"{"id": "g", "plies": [{"move": "S1"}]}"#).as_bytes(),
        &["at games[0].plies[0]", "missing field `after`"],
    );
    assert_bad_input(
        transcript(r#"{"id": "g", "plies": [{"move": "S1", "after": "0,7,7,7/7,7,7,6 N 0/0 1---/----", "totals": [1, 2]}]}"#)
            .as_bytes(),
        &["at games[0].plies[0]", "`totals` is given but not"],
    );
}

#[test]
fn bad_input_impossible_or_malformed_positions() {
    assert_bad_input(
        transcript(r#"{"id": "g", "start": "6,6,6,6/6,6,6,5 S 0/0 ----/----", "plies": []}"#)
            .as_bytes(),
        &["at games[0].start", "expected 48 (BOARD-3)"],
    );
    assert_bad_input(
        transcript(
            r#"{"id": "g", "plies": [{"move": "S1", "after": "0,7,7/7,7,7,6 N 0/0 1---/----"}]}"#,
        )
        .as_bytes(),
        &["at games[0].plies[0].after", "column 6"],
    );
}

#[test]
fn bad_input_unknown_format_or_version() {
    assert_bad_input(
        br#"{"format": "kpe-game", "version": 1}"#,
        &[
            "at format",
            "unknown format `kpe-game`",
            "\"kpe-transcript\"",
            "\"kpe-engine\"",
        ],
    );
    assert_bad_input(br#"{"version": 1}"#, &["missing field `format`"]);
    // Games before the format: only a transcript has games, so it is read
    // as one, and its format is checked where it comes.
    assert_bad_input(
        br#"{"games": [], "format": "kpe-engine", "version": 1}"#,
        &[
            "1:36",
            "at format",
            "`kpe-engine`, expected `kpe-transcript`",
        ],
    );
    assert_bad_input(
        br#"{"format": "kpe-transcript", "version": 2, "engine": {"name": "t", "version": "1"}, "games": []}"#,
        &["at version", "unsupported transcript version 2"],
    );
    assert_bad_input(
        br#"{"format": "kpe-transcript", "version": 1e400}"#,
        &["at version"],
    );
}

#[test]
fn bad_input_empty_file() {
    assert_bad_input(b"", &["the file holds no JSON"]);
    assert_bad_input(b" \n\t\n", &["the file holds no JSON"]);
}

#[test]
fn bad_input_missing_file_and_directory() {
    kpe_check()
        .arg("no/such/file.json")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no/such/file.json: cannot read the file",
        ));
    let dir = tempfile::tempdir().expect("a temporary directory");
    kpe_check()
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a directory"));
}

#[test]
fn bad_input_huge_string_number_and_nesting() {
    let limit = kpe::reporter::MAX_TOKEN_BYTES;
    let mut text = format!("{{{HEADER}, \"games\": [{{\"id\": \"").into_bytes();
    text.extend(std::iter::repeat_n(b'g', limit + 10));
    text.extend(b"\", \"plies\": []}]}");
    assert_bad_input(&text, &["a string longer than", "starts here"]);
    let mut text = br#"{"format": "kpe-transcript", "version": "#.to_vec();
    text.extend(std::iter::repeat_n(b'1', limit + 10));
    text.extend(b"}");
    assert_bad_input(&text, &["transcript.json:1:41: a number longer than"]);
    // Deep nesting never exhausts the stack: skipped values are skipped
    // without recursion, typed ones fail at their first bracket.
    let deep = format!(
        "{{\"x\": {}{}, {HEADER}, \"games\": []}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_bad_input(
        deep.as_bytes(),
        &["transcript.json:1:5: at x: unknown field `x`"],
    );
    let deep = format!(
        "{{\"format\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_bad_input(deep.as_bytes(), &["at format", "invalid type: sequence"]);
}

#[test]
fn a_huge_captures_or_legal_array_is_refused_at_its_ninth_entry() {
    // Issue 10, failure 2: a 100 MB `captures` array was held whole. A
    // ply names at most the board's 8 pits; reading stops at the ninth.
    for (field, entry) in [
        ("captures", r#"{"pit": "N1", "stones": 2}"#),
        ("legal", r#""S1""#),
    ] {
        let head = format!(
            "{{{HEADER}, \"profile\": \"default\", \"games\": [{{\"id\": \"g\", \"plies\": [\n{{\"move\": \"S1\", \"after\": \"0,7,7,7/7,7,7,6 N 0/0 1---/----\", \"{field}\": ["
        );
        let count = 2_000_000 / entry.len();
        let mut text = head.clone().into_bytes();
        text.extend(vec![entry; count].join(", ").into_bytes());
        text.extend(b"]}]}]}");
        assert!(text.len() > 2_000_000);
        // The parser stops just past the ninth entry and its comma (line 2
        // starts with the ply, the column counts from 1).
        let line_two = head.len() - head.rfind('\n').unwrap() - 1;
        let ninth = line_two + 9 * entry.len() + 9 * 2 + 1;
        assert_bad_input(
            &text,
            &[
                &format!("transcript.json:2:{ninth}: at games[0].plies[0].{field}: more than 8 "),
                "a ply has at most 4 legal moves and captures at most 4 pits",
            ],
        );
    }
}

#[test]
fn a_huge_file_on_one_line_streams_through() {
    // Many games on a single line, checked one at a time.
    let game =
        r#"{"id": "g", "plies": [{"move": "S1", "after": "0,7,7,7/7,7,7,6 N 0/0 1---/----"}]}"#;
    let games = vec![game; 20_000].join(",");
    let t = temp_file(transcript(&games).as_bytes());
    kpe_check()
        .arg(&t.path)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "20000 conform (20000 games in all",
        ));
}

// ---------------------------------------------------------------------------
// What is reported
// ---------------------------------------------------------------------------

#[test]
fn each_sample_mistake_is_flagged_with_its_rule() {
    for (file, game, rule) in [
        ("skip-origin.json", 1, "SOW-4"),
        ("capture-while-locked.json", 1, "LOCK-1"),
        ("chain-past-row.json", 1, "CAP-3"),
        ("no-feeding.json", 1, "FEED-1"),
        ("wrong-sweep.json", 1, "END-2"),
    ] {
        let (code, report) = json_report(Path::new(&example(file)));
        assert_eq!(code, 1, "{file}");
        let units = report["units"].as_array().expect("units");
        assert_eq!(units.len(), 2, "{file}");
        assert_eq!(units[0]["verdict"], "conforms", "{file}");
        let rules = &units[game]["divergence"]["rules"];
        assert!(
            rules
                .as_array()
                .is_some_and(|r| r.iter().any(|id| id == rule)),
            "{file}: {rules} lacks {rule}"
        );
    }
}

#[test]
fn the_reading_is_named_for_the_skip_origin_engine() {
    kpe_check()
        .arg(example("skip-origin.json"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "reading   claimed {}, but conforms under: {} (I1: a sowing of 8+ stones skips its origin pit)",
            written(Profile::ALL_OFF),
            written(Profile::ALL_OFF.set(kpe::Switch::SkipOrigin, true)),
        )));
    kpe_check()
        .arg(example("chain-past-row.json"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "reading   claimed {}, but no documented reading explains it: it diverges under every one of the {} other profiles re-checked; closest: the claimed profile itself, which leaves CAP-3 (1 game) unexplained\n",
            written(Profile::ALL_OFF),
            Profile::COUNT - 1,
        )));
}

#[test]
fn a_refused_move_is_a_divergence_with_its_reason() {
    // A North pit for South (MOVE-1); later, an empty pit (MOVE-2).
    let mut game = Game::new(Position::initial(), Profile::DEFAULT);
    let mut plies = Vec::new();
    let empty = loop {
        let mover = game.current().to_move();
        if let Some(&pit) = mover
            .pits()
            .iter()
            .find(|&&p| game.current().stones(p) == 0)
        {
            break pit;
        }
        let mv = game.legal_moves()[0];
        game.play(mv).expect("legal");
        plies.push(format!(
            r#"{{"move": "{mv}", "after": "{}"}}"#,
            game.current()
        ));
    };
    let ply = plies.len() + 1;
    plies.push(format!(
        r#"{{"move": "{empty}", "after": "{}"}}"#,
        game.current()
    ));
    let t = temp_file(
        transcript(&format!(
            r#"{{"id": "own", "plies": [{{"move": "N1", "after": "6,6,6,6/0,7,7,7 S 0/0 ----/1---"}}]}},
               {{"id": "empty", "plies": [{}]}}"#,
            plies.join(",")
        ))
        .as_bytes(),
    );
    let (code, report) = json_report(&t.path);
    assert_eq!(code, 1);
    let own = &report["units"][0]["divergence"];
    assert_eq!(own["fields"][0]["field"], "move");
    assert_eq!(own["rules"], serde_json::json!(["MOVE-1"]));
    assert_eq!(own["scenario"]["reject"]["reason"], "not-own-pit");
    let empty = &report["units"][1]["divergence"];
    assert!(ply > 1);
    assert_eq!(empty["ply"], ply, "{report}");
    assert_eq!(empty["rules"], serde_json::json!(["MOVE-2"]));
    assert!(
        empty["notes"][0]
            .as_str()
            .is_some_and(|n| n.contains("empty-pit"))
    );
}

#[test]
fn a_move_after_a_repetition_ends_the_game_needs_the_history() {
    // Under end-on-repetition the chase ends at the 8th ply, back where it
    // started; a 9th ply is refused (MOVE-3, END-3) and the scenario replays
    // the moves since the start.
    // The plies are played, and the profiles named, against the all-off
    // profile (no repetition rule), whatever the default is.
    let chase = "1,0,0,0/1,0,0,0 S 22/24 1234/1234";
    let mut game = Game::new(chase.parse().expect("valid"), Profile::ALL_OFF);
    let mut plies = Vec::new();
    for mv in ["S1", "N1", "S2", "N2", "S3", "N3", "S4", "N4", "S1"] {
        game.play(mv.parse::<Pit>().expect("a pit"))
            .expect("legal without a repetition rule");
        plies.push(format!(
            r#"{{"move": "{mv}", "after": "{}"}}"#,
            game.current()
        ));
    }
    let ends = Profile::with(&[kpe::Switch::EndOnRepetition]);
    let text = format!(
        r#"{{{HEADER}, "profile": "{ends}", "games": [{{"id": "chase", "start": "{chase}", "plies": [{}]}}]}}"#,
        plies.join(",")
    );
    let t = temp_file(text.as_bytes());
    let (code, report) = json_report(&t.path);
    assert_eq!(code, 1);
    let d = &report["units"][0]["divergence"];
    assert_eq!(d["ply"], 9);
    assert_eq!(d["rules"], serde_json::json!(["MOVE-3", "END-3"]));
    assert_eq!(d["scenario"]["moves"].as_array().map(Vec::len), Some(9));
    assert_eq!(
        report["summary"]["reading"]["closest"],
        serde_json::json!([Profile::ALL_OFF.to_string()])
    );
}

/// A random game played under `profile`, as transcript JSON with every
/// optional field.
fn random_game(id: usize, profile: Profile, seed: &mut u64, max: usize) -> String {
    let mut game = Game::new(Position::initial(), profile);
    let mut plies = Vec::new();
    for _ in 0..max {
        let legal = game.legal_moves();
        if legal.is_empty() {
            break;
        }
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let mv = legal[(*seed % legal.len() as u64) as usize];
        let report = game.play(mv).expect("legal").clone();
        let mut ply = serde_json::json!({
            "move": mv, "after": game.current(), "legal": legal.to_vec(), "captures": report.captures.to_vec(),
            "game_over": report.end.is_some(),
        });
        if let Some(end) = report.end {
            ply["totals"] = serde_json::json!(end.totals);
        }
        plies.push(ply);
    }
    serde_json::json!({"id": format!("g{id}"), "plies": plies}).to_string()
}

#[test]
fn printed_scenarios_pin_the_rules_answer_and_the_engine_breaks_them() {
    // Games played under one profile and checked as if they claimed another:
    // every divergence's scenario is a valid conformance scenario that the
    // reference passes under every profile it admits, and that the claimed
    // profile is among them.
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut scenarios = 0;
    for (played, claimed) in [
        ("skip-origin", "default"),
        ("strict-lock", "default"),
        ("default", "end-on-repetition"),
        ("feed-after-capture,end-when-unfeedable", "default"),
        ("default", "skip-origin,strict-lock"),
    ] {
        // Written against the all-off profile, so that the pairs differ
        // whatever the default is.
        let played = Profile::read_against(played, Profile::ALL_OFF).expect("a profile");
        let claimed = Profile::read_against(claimed, Profile::ALL_OFF).expect("a profile");
        let games: Vec<String> = (0..12)
            .map(|i| random_game(i, played, &mut seed, 300))
            .collect();
        let text = format!(
            r#"{{{HEADER}, "profile": "{claimed}", "games": [{}]}}"#,
            games.join(",")
        );
        let mut sink = Collect::default();
        check_transcript_reader("random", text.as_bytes(), &mut sink).expect("well-formed");
        for unit in &sink.0 {
            let Some(d) = &unit.divergence else { continue };
            let yaml = d.scenario_yaml().expect("a scenario");
            let file = parse_file(
                "divergence.yaml",
                &format!("topic: divergence\nscenarios:\n{yaml}"),
            )
            .unwrap_or_else(|e| panic!("not a valid scenario:\n{yaml}\n{e}"));
            let scenario = &file.scenarios[0];
            assert!(scenario.profiles().any(|p| p == claimed), "{yaml}");
            for profile in scenario.profiles() {
                if let Err(f) = Reference::new().verify("divergence.yaml", scenario, profile) {
                    panic!("the reference fails its own scenario under {profile}:\n{yaml}\n{f}");
                }
            }
            scenarios += 1;
        }
    }
    assert!(
        scenarios >= 20,
        "only {scenarios} divergences were produced"
    );
}

#[test]
fn a_reader_is_spooled_and_checked_like_a_file() {
    let text = transcript(
        r#"{"id": "g", "plies": [{"move": "S1", "after": "6,6,6,6/6,6,6,6 S 0/0 ----/----"}]}"#,
    );
    let mut sink = JsonSink::new(Vec::new());
    let summary = check_transcript_reader("mem", text.as_bytes(), &mut sink).expect("well-formed");
    assert_eq!(
        (summary.units, summary.conforming, summary.plies),
        (1, 0, 1)
    );
    // Copied to a temporary file, it is read again to name the reading.
    assert!(summary.reading.is_some());
    let report = valid_report(&sink.into_inner());
    assert_eq!(
        report["units"][0]["divergence"]["fields"][0]["details"][0]["field"],
        "after.pits"
    );
    let err = kpe::transcripts::file_kind_of_reader("mem", &b"{\"format\": 3}"[..]).unwrap_err();
    assert!(matches!(err.kind, InputErrorKind::Json { .. }), "{err}");
}

#[test]
fn a_chain_stopped_at_the_row_boundary_exercises_cap_3() {
    // Issue 9 item 8: transcript mode never listed CAP-3. The rules each
    // ply exercised are `Report::rules`, which live mode counts too.
    for (start, mv, cap_3) in [
        // South captures N1 (4); the chain stops at S4, South's own pit.
        ("8,3,6,1/3,9,5,5 S 4/4 1234/1234", "S2", true),
        // South makes two in a pit past N1: the chain ends before the row does.
        ("4,6,5,3/3,5,1,9 S 8/4 1234/1234", "S4", false),
    ] {
        let position: Position = start.parse().expect("a position");
        let pit: Pit = mv.parse().expect("a pit");
        let (after, report) = kpe::play(&position, pit, Profile::DEFAULT).expect("legal");
        assert!(!report.captures.is_empty(), "{start} {mv} captures");
        let game = format!(
            r#"{{"id": "g", "start": "{start}", "plies": [{{"move": "{mv}", "after": "{after}"}}]}}"#
        );
        let t = temp_file(transcript(&game).as_bytes());
        let (code, report) = json_report(&t.path);
        assert_eq!(code, 0, "{report}");
        let rules = &report["summary"]["rules"];
        assert_eq!(
            rules.as_array().unwrap().contains(&Value::from("CAP-3")),
            cap_3,
            "{start} {mv}: {rules}"
        );
    }
}

#[test]
fn the_report_is_the_same_whatever_the_number_of_jobs() {
    // Issue 11: games checked in parallel, reported in the file's order.
    // Many games, some diverging (the examples' games, repeated), some
    // written with sorted keys (read twice), one a bad ply at the end.
    let mut games = Vec::new();
    for name in [
        "conforming.json",
        "skip-origin.json",
        "chain-past-row.json",
        "wrong-sweep.json",
    ] {
        let value: Value = serde_json::from_slice(&std::fs::read(example(name)).unwrap()).unwrap();
        for game in value["games"].as_array().unwrap() {
            games.push(game.to_string());
            games.push(sorted_keys(game));
        }
    }
    let games: Vec<String> = (0..12).flat_map(|_| games.clone()).collect();
    let t = temp_file(transcript(&games.join(",\n")).as_bytes());
    let run = |jobs: &str, path: &Path| {
        kpe_check()
            .arg(path)
            .args(["--format", "json", "--jobs", jobs])
            .output()
            .expect("kpe-check runs")
    };
    let one = run("1", &t.path);
    assert_eq!(one.status.code(), Some(1));
    let report = valid_report(&one.stdout);
    assert_eq!(report["units"].as_array().map(Vec::len), Some(games.len()));
    for jobs in ["2", "4"] {
        let many = run(jobs, &t.path);
        assert_eq!(many.status.code(), Some(1));
        let json = |out: &[u8]| verdicts(valid_report(out));
        assert!(
            json(&one.stdout) == json(&many.stdout),
            "--jobs {jobs} reports differently"
        );
    }
    // Bad input after some games: the same games reported, the same error.
    let mut bad = games.clone();
    bad.push(r#"{"id": "bad", "plies": [{"move": "S9"}]}"#.to_owned());
    bad.extend(games.iter().take(20).cloned());
    let t = temp_file(transcript(&bad.join(",\n")).as_bytes());
    let one = run("1", &t.path);
    let four = run("4", &t.path);
    assert_eq!(one.status.code(), Some(2));
    let timeless = |out: &[u8]| timeless(&String::from_utf8_lossy(out));
    assert!(
        (timeless(&one.stdout), &one.stderr) == (timeless(&four.stdout), &four.stderr),
        "--jobs 4 stops differently"
    );
}

// ---------------------------------------------------------------------------
// Fields in any order, and standard input
// ---------------------------------------------------------------------------

/// `value` written with every object's keys sorted, as `jq -S`, Go maps
/// and `serde_json::Value` write it.
fn sorted_keys(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let members: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::from(k.as_str()), sorted_keys(&map[k])))
                .collect();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(sorted_keys).collect();
            format!("[\n{}]", items.join(",\n"))
        }
        other => other.to_string(),
    }
}

/// What a JSON report says, without the input's name.
/// The JSON of a run cut short by bad input is not one document to parse:
/// each unit's time, the only thing two runs differ in, blanked out.
fn timeless(text: &str) -> String {
    let mut kept = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\"time\":") {
        kept.push_str(&rest[..at + 7]);
        rest = rest[at + 7..].trim_start_matches(|c: char| c.is_ascii_digit() || ".e-".contains(c));
    }
    kept.push_str(rest);
    kept
}

fn verdicts(mut report: Value) -> String {
    let source = report["run"]["source"]
        .as_str()
        .expect("a source")
        .to_owned();
    // Each unit's time is the one thing two runs may not share.
    if let Some(units) = report["units"].as_array_mut() {
        units.iter_mut().for_each(|u| u["time"] = Value::from(0));
    }
    report
        .to_string()
        .replace(&format!("\"{source}\""), "\"<source>\"")
        .replace(&format!("in {source}, "), "in <source>, ")
}

#[test]
fn sorted_keys_are_checked_as_written_in_order() {
    for name in ["conforming.json", "skip-origin.json", "chain-past-row.json"] {
        let path = example(name);
        let text = std::fs::read(&path).expect("the example is read");
        let value: Value = serde_json::from_slice(&text).expect("JSON");
        let sorted = sorted_keys(&value);
        // The order that used to be refused: `games` before `profile` and
        // `version`, `plies` before `start`.
        let at = |key: &str| sorted.rfind(&format!("\"{key}\":"));
        assert!(at("games") < at("version"), "{name}");
        let t = temp_file(sorted.as_bytes());
        let (code, report) = json_report(&t.path);
        let (expected_code, expected) = json_report(Path::new(&path));
        assert_eq!(code, expected_code, "{name}");
        assert_eq!(verdicts(report), verdicts(expected), "{name}");
    }
    // The chase game's start follows its plies: checked from the initial
    // position instead, it would diverge at its first ply.
    let sorted = sorted_keys(
        &serde_json::from_slice(&std::fs::read(example("conforming.json")).unwrap()).unwrap(),
    );
    let chase = sorted.find("\"id\":\"chase\"").expect("the chase game");
    assert!(sorted[chase..].find("\"plies\"") < sorted[chase..].find("\"start\""));
}

#[test]
fn games_ending_before_the_header_at_the_end_are_reported_then_what_follows() {
    // The header at the end of the file follows a `]`, but `games` ends
    // at the one before: the games are checked under that header, and
    // then what follows `games` is refused where it stands.
    let game = r#"{"id": "a", "plies": []}"#;
    let text = format!("{{\"games\": [{game}],\n\"x\": 1], {HEADER}}}\n");
    let t = temp_file(text.as_bytes());
    for jobs in ["1", "2"] {
        let out = kpe_check()
            .arg(&t.path)
            .args(["--format", "json", "--jobs", jobs])
            .output()
            .expect("kpe-check runs");
        assert_eq!(out.status.code(), Some(2), "--jobs {jobs}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let at = format!("{}:2:4: at x: unknown field `x`", t.path.display());
        assert!(stderr.contains(&at), "--jobs {jobs}: {stderr}");
        let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
        assert_eq!(report["verdict"], "bad-input");
        assert_eq!(
            report["units"].as_array().map(Vec::len),
            Some(1),
            "{report}"
        );
        assert_eq!(report["units"][0]["verdict"], "conforms", "{report}");
    }
}

/// Checks `text` with `--jobs N --format json`: the exit code, stderr and
/// the report, timeless, its source named `<source>` (each run has its
/// own file).
fn run_jobs(text: &str, jobs: &str) -> (Option<i32>, String, String) {
    let t = temp_file(text.as_bytes());
    let out = kpe_check()
        .arg(&t.path)
        .args(["--format", "json", "--jobs", jobs])
        .output()
        .expect("kpe-check runs");
    let source = t.path.display().to_string();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).replace(&source, "<source>");
    (
        out.status.code(),
        text(&out.stderr),
        timeless(&text(&out.stdout)),
    )
}

#[test]
fn many_batches_give_the_same_report_whatever_the_number_of_jobs() {
    // Over a megabyte of games: several batches of 256 KiB, some checked by
    // the scanning thread itself when the others are busy, some games
    // diverging, bad input near the end.
    let value: Value =
        serde_json::from_slice(&std::fs::read(example("skip-origin.json")).unwrap()).unwrap();
    let games: Vec<String> = value["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(Value::to_string)
        .collect();
    let mut all: Vec<String> = games.iter().cycle().take(4500).cloned().collect();
    assert!(all.iter().map(String::len).sum::<usize>() > 1 << 20);
    let run = run_jobs;
    let header = sample_header(&value);
    let transcript = |games: &str| format!("{{{header}, \"games\": [{games}]}}");
    // The header after the games too, as with sorted keys: it is then read
    // at the end of the file first.
    let last = |games: &str| format!("{{\"games\": [{games}], {header}}}");
    let text = transcript(&all.join(",\n"));
    let one = run(&text, "1");
    assert_eq!(one.0, Some(1));
    for jobs in ["2", "3"] {
        assert!(run(&text, jobs) == one, "--jobs {jobs} reports differently");
    }
    for jobs in ["1", "2", "3"] {
        let got = run(&last(&all.join(",\n")), jobs);
        assert!(
            got == one,
            "the header last, --jobs {jobs} reports differently"
        );
    }
    all.insert(
        4000,
        r#"{"id": "bad", "plies": [{"move": "S9"}]}"#.to_owned(),
    );
    let text = transcript(&all.join(",\n"));
    let one = run(&text, "1");
    assert_eq!(one.0, Some(2));
    assert!(one.1.contains("games[4000].plies[0].move"), "{}", one.1);
    for jobs in ["2", "3"] {
        assert!(run(&text, jobs) == one, "--jobs {jobs} stops differently");
    }
    for jobs in ["1", "2", "3"] {
        let got = run(&last(&all.join(",\n")), jobs);
        assert!(
            got == one,
            "the header last, --jobs {jobs} stops differently"
        );
    }
    // A number with a bracket in it, between games: the pieces give the
    // search up, and the reading finds it where one job does.
    all[4000] = "1[".to_owned();
    let text = last(&all.join(",\n"));
    let one = run(&text, "1");
    assert_eq!(one.0, Some(2));
    assert!(one.1.contains("games[4000]"), "{}", one.1);
    for jobs in ["2", "3"] {
        assert!(run(&text, jobs) == one, "--jobs {jobs} stops differently");
    }
}

#[test]
fn a_header_after_the_games_gives_the_same_report() {
    // Issue 11: with `games` first (sorted keys), the games' places are
    // noted while the header is looked for, and checked from those notes;
    // bad JSON between games makes the reader scan them again instead.
    let value: Value =
        serde_json::from_slice(&std::fs::read(example("skip-origin.json")).unwrap()).unwrap();
    let games: Vec<String> = (0..30)
        .flat_map(|_| value["games"].as_array().unwrap().clone())
        .map(|g| g.to_string())
        .collect();
    let header = sample_header(&value);
    let first = |games: &str| format!("{{{header}, \"games\": [{games}]}}");
    let last = |games: &str| format!("{{\"games\": [{games}], {header}}}");
    let run = |text: String, jobs: &str| run_jobs(&text, jobs);
    let all = games.join(",\n");
    let (code, _, expected) = run(first(&all), "1");
    assert_eq!(code, Some(1));
    assert_eq!(expected.matches("\"kind\":\"game\"").count(), games.len());
    for jobs in ["1", "2"] {
        let (code, _, out) = run(last(&all), jobs);
        assert_eq!(code, Some(1), "--jobs {jobs}");
        assert_eq!(out, expected, "--jobs {jobs}");
    }
    // Bad input in a game: the games before it are reported, then the
    // error with its place, as with the header first. Bad JSON between
    // games is found while the header is looked for: the same error, but
    // before any game is checked.
    let bad_ply = format!(
        "{},\n{{\"id\": \"bad\", \"plies\": [{{\"move\": \"S9\"}}]}},\n{}",
        games[..40].join(",\n"),
        games[40..].join(",\n")
    );
    let no_comma = format!("{}\n{}", games[..40].join(",\n"), games[40..].join(",\n"));
    for (bad, needle, checked) in [
        (bad_ply, "at games[40].plies[0].move", true),
        (no_comma, "expected `,` or `]`", false),
    ] {
        let (code, stderr, expected) = run(first(&bad), "1");
        assert_eq!(code, Some(2));
        assert!(stderr.contains(needle), "{stderr}");
        assert!(expected.contains("\"games[39]\""), "{expected}");
        for jobs in ["1", "2"] {
            let (code, err, out) = run(last(&bad), jobs);
            assert_eq!(code, Some(2), "--jobs {jobs}: {err}");
            assert_eq!(err, stderr, "--jobs {jobs}");
            if checked {
                assert_eq!(out, expected, "--jobs {jobs}");
            }
        }
    }
}

#[test]
fn games_read_in_place_report_as_games_scanned_first() {
    // Issue 11: with the header first, a game of the plain shape is read
    // where it lies in the reader's buffer, with no scan; a game of another
    // shape, or one longer than the buffer holds, is scanned first. With
    // the header last, every game is scanned first: both must give the
    // same report, and the same error at the same line and column.
    let value: Value =
        serde_json::from_slice(&std::fs::read(example("skip-origin.json")).unwrap()).unwrap();
    let mut games: Vec<String> = (0..20)
        .flat_map(|_| value["games"].as_array().unwrap().clone())
        .map(|g| g.to_string())
        .collect();
    let n = games.len();
    // An escape: not the plain shape.
    games[n / 4] = games[n / 4].replacen("\"id\":\"", "\"id\":\"\\u0041", 1);
    // Over 256 KiB of whitespace inside a game, on many lines.
    let pad = "\n".to_owned() + &" ".repeat(99);
    games[n / 2] = games[n / 2].replacen(
        "\"plies\":[",
        &format!("\"plies\":[{}", pad.repeat(3200)),
        1,
    );
    assert!(games[n / 2].len() > 300 * 1024);
    let header = sample_header(&value);
    let first = |games: &str| format!("{{{header}, \"games\": [{games}]}}");
    let last = |games: &str| format!("{{\"games\": [{games}], {header}}}");
    let all = games.join(",\n");
    let (code, _, expected) = run_jobs(&last(&all), "1");
    assert_eq!(code, Some(1));
    assert!(expected.contains("\"id\":\"A"), "the escaped id is read");
    for jobs in ["1", "2", "3"] {
        assert_eq!(run_jobs(&first(&all), jobs).2, expected, "--jobs {jobs}");
    }
    // A missing comma after the long game and its neighbours.
    let k = n / 2 + 3;
    let bad = format!("{}\n{}", games[..k].join(",\n"), games[k..].join(",\n"));
    let (code, stderr, _) = run_jobs(&last(&bad), "1");
    assert_eq!(code, Some(2));
    let line = 3201 + k;
    assert!(
        stderr.contains(&format!(":{line}:")) && stderr.contains("expected `,` or `]`"),
        "{stderr}"
    );
    for jobs in ["1", "2", "3"] {
        let (code, err, out) = run_jobs(&first(&bad), jobs);
        assert_eq!(code, Some(2), "--jobs {jobs}");
        assert_eq!(err, stderr, "--jobs {jobs}");
        assert!(
            out.contains(&format!("\"games[{}]\"", k - 1)),
            "--jobs {jobs}: {out}"
        );
    }
}

#[test]
fn a_profile_after_the_games_applies_to_them() {
    // A sowing of 8+ stones that skips its origin: right only under
    // skip-origin, which the file names after its games.
    let start = "1,8,8,8/0,8,8,7 S 0/0 1---/1---";
    // The other I1 reading than the default's, whichever that is.
    let other = kpe::Profile::DEFAULT.flipped(kpe::Switch::SkipOrigin);
    let (after, _) = kpe::play(&start.parse().unwrap(), "S2".parse().unwrap(), other).unwrap();
    let game = format!(
        r#"{{"id": "g", "start": "{start}", "plies": [{{"move": "S2", "after": "{after}"}}]}}"#
    );
    for (profile, code) in [(other.to_string().as_str(), 0), ("default", 1)] {
        let text = format!("{{{HEADER}, \"games\": [{game}], \"profile\": \"{profile}\"}}");
        let t = temp_file(text.as_bytes());
        assert_eq!(json_report(&t.path).0, code, "{profile}");
    }
}

#[test]
fn a_game_can_give_its_start_after_its_plies() {
    let start = "1,0,0,0/1,0,0,0 S 22/24 1234/1234";
    let ply = r#"{"move": "S1", "after": "0,1,0,0/1,0,0,0 N 22/24 1234/1234"}"#;
    let game = format!(r#"{{"plies": [{ply}], "start": "{start}", "id": "late"}}"#);
    let t = temp_file(transcript(&game).as_bytes());
    let (code, report) = json_report(&t.path);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["units"][0]["id"], "late");
    // The same ply from the initial position is wrong.
    let game = format!(r#"{{"plies": [{ply}], "id": "initial"}}"#);
    let t = temp_file(transcript(&game).as_bytes());
    assert_eq!(json_report(&t.path).0, 1);
    // An error in a game read twice still names its place.
    let game = format!(r#"{{"plies": [{ply}, {{"move": 3}}], "start": "{start}", "id": "late"}}"#);
    assert_bad_input(
        transcript(&game).as_bytes(),
        &[
            "transcript.json:1:",
            "at games[0].plies[1].move",
            "invalid type: integer `3`",
        ],
    );
}

#[test]
fn standard_input_is_read_when_the_file_is_a_dash() {
    let path = example("skip-origin.json");
    let text = std::fs::read(&path).expect("the example is read");
    let sorted = sorted_keys(&serde_json::from_slice(&text).expect("JSON"));
    let (expected_code, expected) = json_report(Path::new(&path));
    for input in [text, sorted.into_bytes()] {
        let out = kpe_check()
            .args(["-", "--format", "json"])
            .write_stdin(input)
            .output()
            .expect("kpe-check runs");
        let report = valid_report(&out.stdout);
        assert_eq!(out.status.code(), Some(expected_code));
        assert_eq!(report["run"]["source"], "-");
        assert_eq!(verdicts(report), verdicts(expected.clone()));
    }
    // Bad input on stdin is named `-`.
    kpe_check()
        .arg("-")
        .write_stdin(&b"{\"format\": \"kpe-transcript\", \"version\": 1, \n \"games\": 3}"[..])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error: -:2:"));
}

// ---------------------------------------------------------------------------
// The committed schema
// ---------------------------------------------------------------------------

#[test]
fn schema_is_committed_and_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/transcript.schema.json");
    let schema = kpe::transcript::transcript_schema();
    if std::env::var_os("UPDATE_SCHEMAS").is_some_and(|v| v == "1") {
        let mut f = std::fs::File::create(&path).expect("the schema file can be written");
        f.write_all(schema.as_bytes()).expect("written");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == schema,
        "spec/transcript.schema.json is out of date: regenerate it with \
         `UPDATE_SCHEMAS=1 cargo test --test check_cli schema` and commit it"
    );
}

#[test]
fn the_samples_match_the_schema_types() {
    // Every sample deserialises into the format's own types.
    for name in [
        "conforming.json",
        "skip-origin.json",
        "capture-while-locked.json",
        "chain-past-row.json",
        "no-feeding.json",
        "wrong-sweep.json",
    ] {
        let text = std::fs::read_to_string(example(name)).expect("the sample exists");
        let t: kpe::transcript::Transcript =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!t.games.is_empty());
    }
}

/// A seeded xorshift generator: each call gives an index below `n`.
fn xorshift(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed;
    move |n| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    }
}

/// A position and move, reached by seeded random play from the initial
/// position, where the move is the mover's last unused pit and captures
/// under `lax` (the default with I2 at its first value), captures nothing
/// under strict-lock, and captures differently under the other I1 reading.
fn unlocking_capture_that_two_readings_change(lax: Profile) -> (Position, Pit) {
    use kpe::Switch;
    let strict = lax.set(Switch::StrictLock, true);
    let skip = lax.flipped(Switch::SkipOrigin);
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    for _ in 0..20_000 {
        let mut game = Game::new(Position::initial(), lax);
        for _ in 0..60 {
            let position = *game.current();
            for pit in game.legal_moves() {
                let captures =
                    |p: Profile| kpe::play(&position, pit, p).map(|(_, r)| r.captures.to_vec());
                if let (Ok(default), Ok(locked), Ok(skipped)) =
                    (captures(lax), captures(strict), captures(skip))
                    && !default.is_empty()
                    && locked.is_empty()
                    && skipped != default
                {
                    return (position, pit);
                }
            }
            let legal = game.legal_moves();
            if legal.is_empty() {
                break;
            }
            let pit = legal[next(legal.len())];
            if game.play(pit).is_err() {
                break;
            }
        }
    }
    panic!("no unlocking capture that strict-lock and skip-origin both change");
}

/// A position and move, reached by seeded random play under the default,
/// that ends the game with stones left on the board (so the sweep counts),
/// and the position after it.
fn a_move_that_ends_the_game_with_stones_left() -> (Position, Pit, Position) {
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        let mut game = Game::new(Position::initial(), Profile::DEFAULT);
        for _ in 0..400 {
            let position = *game.current();
            let legal = game.legal_moves();
            for &pit in legal.iter() {
                if let Ok((after, report)) = kpe::play(&position, pit, Profile::DEFAULT)
                    && report.end.is_some()
                    && after.board_stones() > 0
                {
                    return (position, pit, after);
                }
            }
            if legal.is_empty() || game.play(legal[next(legal.len())]).is_err() {
                break;
            }
        }
    }
    panic!("no game ends with stones on the board");
}

#[test]
fn the_deciding_rules_are_the_explaining_reading_or_the_broken_rule() {
    // Regression: an unlocking move that captures by default but not under
    // strict-lock, whose captures would also change under skip-origin, but
    // only strict-lock explains the whole ply. The position is found by
    // the rules themselves, so that the test states no reading's outcome
    // (a changed reading finds another one).
    // The claim is the default with I2 at its first value, whatever the
    // default is; the engine plays strict-lock.
    let lax = Profile::DEFAULT.set(kpe::Switch::StrictLock, false);
    let (start, pit) = unlocking_capture_that_two_readings_change(lax);
    let strict_lock = lax.set(kpe::Switch::StrictLock, true);
    let (after, _) = kpe::play(&start, pit, strict_lock).expect("legal under strict-lock");
    let strict = format!(
        r#"{{{HEADER}, "profile": "{lax}", "games": [{{"id": "unlock", "start": "{start}", "plies": [
            {{"move": "{pit}", "after": "{after}", "captures": []}}]}}]}}"#
    );
    // Regression: totals without the sweep are END-2 (alone: the captured
    // stones are counted, so RES-1 is not what broke), not the reading I4
    // under which the move would have been refused.
    // The move that ends the game with stones left on the board is found
    // by the rules (under the default, whichever it is).
    let (start, pit, after) = a_move_that_ends_the_game_with_stones_left();
    let captured = kpe::Player::BOTH.map(|p| after.captured(p));
    let no_sweep = transcript(&format!(
        r#"{{"id": "sweep", "start": "{start}", "plies": [
            {{"move": "{pit}", "after": "{after}", "game_over": true, "totals": [{}, {}]}}]}}"#,
        captured[0], captured[1]
    ));
    for (text, rules) in [(strict, vec!["LOCK-3"]), (no_sweep, vec!["END-2"])] {
        let t = temp_file(text.as_bytes());
        let (code, report) = json_report(&t.path);
        assert_eq!(code, 1);
        assert_eq!(
            report["units"][0]["divergence"]["rules"],
            serde_json::json!(rules),
            "{report}"
        );
    }
}

#[test]
fn bad_input_a_byte_that_is_not_utf8_in_a_game_is_placed() {
    let mut text = transcript(
        r#"{"id": "g?", "plies": [{"move": "S1", "after": "0,7,7,7/7,7,7,6 N 0/0 1---/----"}]}"#,
    )
    .into_bytes();
    let at = text.iter().position(|&b| b == b'?').unwrap();
    text[at] = 0xff;
    // The span is not UTF-8: read as bytes, the error is placed as before.
    assert_bad_input(
        &text,
        &[
            "transcript.json:1:",
            "at games[0].id: invalid unicode code point",
        ],
    );
}
