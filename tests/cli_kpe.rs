//! The `kpe` command line: output shapes, exit codes and error messages.

use assert_cmd::Command;
use predicates::prelude::*;

fn kpe() -> Command {
    Command::cargo_bin("kpe").expect("the kpe binary is built")
}

/// The suite's perft tables from the initial position
/// (conformance/perft.yaml): each profile with its first five counts, as
/// `kpe perft 5` prints them.
fn initial_tables() -> Vec<(kpe::Profile, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/conformance/perft.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let file = kpe::scenario::parse_perft_file("perft.yaml", &text).unwrap();
    file.tables
        .iter()
        .filter(|t| t.start.is_none())
        .map(|t| {
            let lines: Vec<String> = (1..=5)
                .map(|d| format!("{d} {}\n", t.nodes[d - 1]))
                .collect();
            (t.rules, lines.concat())
        })
        .collect()
}

/// The first five counts of the suite's table from the initial position
/// under `profile`.
fn perft_lines(profile: kpe::Profile) -> String {
    initial_tables()
        .into_iter()
        .find(|(rules, _)| *rules == profile)
        .unwrap_or_else(|| panic!("no table from the initial position under {profile}"))
        .1
}

#[test]
fn perft_prints_one_line_per_depth() {
    let want = perft_lines(kpe::Profile::DEFAULT);
    assert!(want.starts_with("1 4\n2 16\n3 64\n4 241\n5 "), "{want}");
    kpe().args(["perft", "5"]).assert().success().stdout(want);
}

#[test]
fn perft_takes_a_profile_and_a_start_position() {
    // A table of another profile whose counts part from the default's by
    // depth 5 (I1's does, whichever side is the default).
    let default = perft_lines(kpe::Profile::DEFAULT);
    let (other, want) = initial_tables()
        .into_iter()
        .find(|(_, lines)| *lines != default)
        .expect("a profile whose counts part from the default's by depth 5");
    kpe()
        .args(["perft", "5", "--rules", &other.to_string()])
        .assert()
        .success()
        .stdout(want);
    // S4's 12 stones feed North and, the origin sown, take every stone
    // back: not a feeding move under feed-after-capture.
    let from = "0,0,2,12/0,0,0,0 S 18/16 1234/1234";
    let profile: kpe::Profile = "feed-after-capture".parse().unwrap();
    let count = kpe::perft(&from.parse().unwrap(), 1, profile);
    assert!(count == 1 || count == 2, "{count}");
    kpe()
        .args(["perft", "1", "--from", from])
        .args(["--rules", "feed-after-capture"])
        .assert()
        .success()
        .stdout(format!("1 {count}\n"));
}

#[test]
fn perft_divide_splits_by_first_move_and_sums() {
    kpe()
        .args(["perft", "2", "--divide"])
        .assert()
        .success()
        .stdout("S1 4\nS2 4\nS3 4\nS4 4\ntotal 16\n");
}

#[test]
fn show_explains_the_position() {
    kpe()
        .args(["show", "initial"])
        .assert()
        .success()
        .stdout(predicate::str::contains("South to move (rules: default)"))
        .stdout(predicate::str::contains("legal moves: S1 S2 S3 S4"))
        .stdout(predicate::str::contains(
            "North: locked until N1, N2, N3, N4 used",
        ));
    kpe()
        .args(["show", "0,0,0,0/10,10,4,0 S 12/12 1234/1234"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "game over: the player to move has no stones (END-1); after the sweep South 12 - North 36",
        ));
}

#[test]
fn play_traces_each_move_with_its_rules() {
    kpe()
        .args(["play", "S1", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "ply 1: South plays S1: sows 6 into S2 S3 S4 N1 N2 N3, last in N3",
        ))
        .stdout(predicate::str::contains("ply 2: North plays N1"))
        .stdout(predicate::str::contains("1,8,8,8/0,8,8,7 S 0/0 1---/1---"))
        .stdout(predicate::str::contains("result: unfinished"));
}

#[test]
fn play_json_is_machine_readable() {
    let out = kpe().args(["play", "--json", "S4"]).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Issue 44: the object names its format and version.
    assert_eq!(v["format"], "kpe-play");
    assert_eq!(v["version"], 1);
    assert_eq!(v["plies"][0]["after"], "7,7,6,0/7,7,7,7 N 0/0 ---4/----");
    assert_eq!(v["plies"][0]["report"]["landing"], "S2");
    assert_eq!(v["outcome"]["state"], "unfinished");
    assert!(v["error"].is_null());
}

#[test]
fn play_reaches_the_end_of_a_repeating_game_under_end_on_repetition() {
    let out = kpe()
        .args(["play", "--json", "--rules", "end-on-repetition"])
        .args(["--from", "1,0,0,0/1,0,0,0 S 22/24 1234/1234"])
        .args(["1", "1", "2", "2", "3", "3", "4", "4"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["outcome"]["reason"], "repetition");
    assert_eq!(v["outcome"]["winner"], "N");
}

#[test]
fn an_illegal_move_exits_1_naming_ply_reason_and_rule() {
    kpe()
        .args(["play", "--from", "0,7,7,7/7,7,7,6 S 0/0 1---/---4", "S1"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "error: ply 1: illegal move S1 for South in `0,7,7,7/7,7,7,6 S 0/0 1---/---4`: S1 is empty (empty-pit, MOVE-2)",
        ))
        .stdout(predicate::str::contains("result: unfinished"));
    kpe()
        .args(["play", "S1", "S2"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "S2 is South's pit (not-own-pit, MOVE-1)",
        ));
    let out = kpe().args(["play", "--json", "S1", "S1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["ply"], 2);
    assert_eq!(v["error"]["reason"], "not-own-pit");
    assert_eq!(v["error"]["rule"], "MOVE-1");
}

#[test]
fn bad_arguments_exit_2_and_name_the_argument() {
    kpe()
        .args(["show", "6,6,6/6,6,6,6 S 0/0 ----/----"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("<POSITION>"))
        .stderr(predicate::str::contains("column 6: expected `,`"));
    kpe()
        .args(["perft", "3", "--from", "6,6,6,6/6,6,6,5 S 0/0 ----/----"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--from"))
        .stderr(predicate::str::contains("expected 48"));
    kpe()
        .args(["perft", "3", "--rules", "skip-origin,nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--rules"))
        .stderr(predicate::str::contains("unknown rules switch `nope`"));
    kpe()
        .args(["perft", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("<DEPTH>"));
    kpe()
        .args(["perft", "many"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("<DEPTH>"));
    kpe()
        .args(["play", "S1", "X9"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("move 2 (`X9`)"));
    kpe()
        .args(["play", "S1", "7"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("`7` is not a pit number"));
    kpe().args(["frobnicate"]).assert().code(2);
}

#[test]
fn a_closed_output_pipe_ends_kpe_quietly() {
    // Regression: `kpe play ... | head` panicked with "failed printing to stdout".
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("kpe"))
        .args(["perft", "12"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "1 4\n");
    // The reader (and so the pipe) is dropped here; the next line fails.
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{status}: {stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn perft_jobs_counts_the_same_as_one_thread() {
    // Issue 11: `kpe perft --jobs N` shares the tree among threads.
    let run = |jobs: &str| {
        kpe()
            .args(["perft", "9", "--rules", "end-on-repetition", "--jobs", jobs])
            .output()
            .expect("kpe runs")
    };
    let one = run("1");
    assert!(one.status.success());
    assert_eq!(String::from_utf8_lossy(&one.stdout).lines().count(), 9);
    for jobs in ["2", "4"] {
        let many = run(jobs);
        assert!(many.status.success());
        assert_eq!(one.stdout, many.stdout, "--jobs {jobs}");
    }
    kpe().args(["perft", "3", "--jobs", "0"]).assert().code(2);
}

/// A copy of the bundled suite in a temporary directory, with `edit`
/// applied to the text of `file`.
fn suite_copy(file: &str, edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance");
    for entry in std::fs::read_dir(&src).expect("conformance/ is readable") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut text = std::fs::read_to_string(&path).expect("readable");
        if name == file {
            let edited = edit(&text);
            assert_ne!(edited, text, "the edit changed nothing");
            text = edited;
        }
        std::fs::write(dir.path().join(name), text).expect("written");
    }
    dir
}

#[test]
fn suite_checks_every_expectation_against_the_reference() {
    let good = suite_copy("sowing.yaml", |t| format!("{t}\n"));
    kpe()
        .args(["suite", "--dir"])
        .arg(good.path())
        .assert()
        .success();
    // An expected position falsified (N3 and N4 swapped: still a valid
    // position): exit 1, naming the file, the scenario and the field.
    let bad = suite_copy("sowing.yaml", |t| {
        t.replacen(
            "position: \"0,7,7,7/7,7,7,6 N 0/0 1---/----\"",
            "position: \"0,7,7,7/7,7,6,7 N 0/0 1---/----\"",
            1,
        )
    });
    kpe()
        .args(["suite", "--dir"])
        .arg(bad.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("sowing.yaml: scenario `"))
        .stderr(predicate::str::contains("position differs"));
    // A perft count falsified: a suite directory's tables are recounted
    // as it loads (issue 46), so the suite is refused (exit 2) at the
    // table's line, as kpe-check --suite refuses it.
    let bad = suite_copy("perft.yaml", |t| {
        t.replacen(
            "nodes: [4, 16, 64, 241, 952,",
            "nodes: [4, 16, 64, 241, 953,",
            1,
        )
    });
    kpe()
        .args(["suite", "--dir"])
        .arg(bad.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "perft.yaml:19:5: scenario `initial-default`",
        ))
        .stderr(predicate::str::contains(
            "`nodes` at depth 5 is 953, the reference rules count 952",
        ));
}
