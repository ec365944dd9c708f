//! Hostile input, part three (issue 46): paths that waited for ever or ran
//! unbounded, and answers that named the wrong cause. Each test asserts the
//! exit code and the words that name the cause. `kpe adopt` as a
//! transaction is in tests/adopt.rs, an engine that closes its input under
//! a pipeline in tests/pipeline.rs, a manifest's missing `cwd` in
//! tests/hostile.rs.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const KPE: &str = env!("CARGO_BIN_EXE_kpe");
const KPE_CHECK: &str = env!("CARGO_BIN_EXE_kpe-check");

/// Runs `command` to its end; one that has not ended after two minutes
/// (it hangs: what these tests guard against) is killed and the test
/// fails. The bound is a guard against a hang, not a speed check.
fn run(command: &mut Command) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} did not end: it waits or runs unbounded");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Asserts the exit code and that every one of `words` is said.
fn assert_refused(out: &Output, code: i32, words: &[&str]) {
    let text = said(out);
    assert_eq!(out.status.code(), Some(code), "{text}");
    for w in words {
        assert!(text.contains(w), "`{w}` not said:\n{text}");
    }
}

// --- Unbounded or hanging -------------------------------------------------

/// `kpe dispute --html FIFO` played its games, then waited for a reader
/// for ever; it is refused before the work, as kpe-check refuses its
/// report files.
#[cfg(unix)]
#[test]
fn dispute_refuses_a_fifo_for_its_page_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("page.html");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!("note: mkfifo is missing; the FIFO case is not checked");
        return;
    }
    let out = run(Command::new(KPE)
        .args(["dispute", "I1", "--html"])
        .arg(&fifo));
    assert_refused(&out, 2, &["--html", "page.html", "it is a FIFO"]);
    // A folder that does not exist is refused as early.
    let out = run(Command::new(KPE)
        .args(["dispute", "I1", "--html"])
        .arg(dir.path().join("no/such/page.html")));
    assert_refused(&out, 2, &["--html", "cannot write a file in"]);
}

/// A suite directory whose perft tables hold `tables`.
fn suite_with_perft(tables: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("conformance/sowing.yaml"),
        dir.path().join("sowing.yaml"),
    )
    .unwrap();
    std::fs::write(dir.path().join("perft.yaml"), tables).unwrap();
    dir
}

/// `kpe suite --dir DIR` recounted a table at any depth: a 40-deep table
/// ran for ever. A table deeper than a manifest's cap (64 plies) or with a
/// count above its node cap (10^9) is refused at its line, naming the
/// cap; a 40-deep table of small wrong counts stops at its first wrong
/// count.
#[test]
fn suite_perft_tables_past_the_caps_are_refused_at_their_line() {
    let ones = vec!["1"; 65].join(", ");
    let dir = suite_with_perft(&format!(
        "tables:\n  - id: deep\n    rules: default\n    nodes: [{ones}]\n  - id: big\n    rules: default\n    nodes: [4, 2000000000]\n"
    ));
    let out = run(Command::new(KPE).args(["suite", "--dir"]).arg(dir.path()));
    let file = dir.path().join("perft.yaml").display().to_string();
    assert_refused(
        &out,
        2,
        &[
            &format!("{file}:2:5: scenario `deep`: `nodes` goes 65 plies deep"),
            "at most 64 plies",
            &format!("{file}:5:5: scenario `big`"),
            "at most 1000000000 nodes",
        ],
    );
    let small = vec!["4"; 40].join(", ");
    let dir = suite_with_perft(&format!(
        "tables:\n  - id: long\n    rules: default\n    nodes: [{small}]\n"
    ));
    let out = run(Command::new(KPE).args(["suite", "--dir"]).arg(dir.path()));
    assert_refused(
        &out,
        2,
        &["`nodes` at depth 2 is 4, the reference rules count 16"],
    );
}

// --- Misleading -----------------------------------------------------------

/// `kpe-check --suite DIR` with a wrong perft table called the correct
/// reference engine DIVERGES and named conformance/perft.yaml. The suite
/// is refused (exit 2), naming the file given, as `kpe suite --dir` does.
#[test]
fn a_wrong_suite_perft_table_is_bad_input_naming_its_file() {
    let dir = suite_with_perft(
        "tables:\n  - id: initial-default\n    rules: default\n    nodes: [4, 16, 64, 242]\n",
    );
    let manifest = dir.path().join("engine.json");
    std::fs::write(
        &manifest,
        serde_json::json!({
            "format": "kpe-engine", "version": 1, "command": [KPE, "engine"],
            "random": {"games": 1, "seed": 1}, "perft": {"max_depth": 1},
        })
        .to_string(),
    )
    .unwrap();
    let file = dir.path().join("perft.yaml").display().to_string();
    for (program, args) in [
        (
            KPE_CHECK,
            vec![
                manifest.as_os_str(),
                "--suite".as_ref(),
                dir.path().as_os_str(),
            ],
        ),
        (
            KPE,
            vec!["suite".as_ref(), "--dir".as_ref(), dir.path().as_os_str()],
        ),
    ] {
        let out = run(Command::new(program).args(args));
        assert_refused(
            &out,
            2,
            &[
                &format!("{file}:2:5"),
                "`nodes` at depth 4 is 242, the reference rules count 241",
            ],
        );
        let text = said(&out);
        assert!(!text.contains("DIVERGES"), "{text}");
        assert!(!text.contains("conformance/perft.yaml"), "{text}");
    }
}

/// `kpe dispute I1,origin` (one reading under two names) was accepted
/// while `I1,I1` was refused; an empty name and names with spaces were
/// taken quietly; `kpe show --rules ''` was the default.
#[test]
fn profile_lists_with_a_reading_twice_an_empty_name_or_spaces_are_refused() {
    for (args, words) in [
        (
            &["dispute", "I1,origin"][..],
            &[
                "`I1` and `origin` name one reading",
                "name each reading once",
            ][..],
        ),
        (&["dispute", "I1,I1"], &["`I1` is given twice"]),
        (
            &["dispute", "skip-origin,origin=skipped"],
            &["`skip-origin` and `origin=skipped` name one reading"],
        ),
        (
            &["dispute", "skip-origin, strict-lock"],
            &["` strict-lock` has a space around it", "no spaces"],
        ),
        (
            &["dispute", "skip-origin,,strict-lock"],
            &["an empty name between commas"],
        ),
        (&["dispute", "I1,"], &["an empty name between commas"]),
        (
            &["show", "--rules", ""],
            &["an empty profile: write `default`"],
        ),
        (&["perft", "1", "--rules", " "], &["an empty profile"]),
    ] {
        let out = run(Command::new(KPE).args(args));
        assert_refused(&out, 2, words);
    }
    // kpe-check's lists are read the same way.
    let out = run(Command::new(KPE_CHECK).args(["x.json", "--profiles", "default|"]));
    assert_refused(&out, 2, &["an empty name"]);
}

fn examples(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/transcripts")
        .join(name)
}

/// A transcript whose games were all left out by --only said "the
/// transcript has no games".
#[test]
fn a_transcript_whose_games_are_all_filtered_out_says_so() {
    let out = run(Command::new(KPE_CHECK)
        .arg(examples("conforming.json"))
        .args(["--only", "no-such-game*", "--color=never"]));
    assert_refused(
        &out,
        4,
        &[
            "nothing was checked: every game was left out by --only/--skip",
            "games left out by --only/--skip",
        ],
    );
    assert!(!said(&out).contains("has no games"), "{}", said(&out));
}

/// A file of `bytes` in a temporary folder.
fn file(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Where a key was expected, an invalid byte, a NUL, a form feed, a
/// comment or a trailing comma said only `key must be a string`; a UTF-16
/// byte-order mark said `expected value`. Each is named, in transcripts,
/// manifests (and shard reports, which read JSON the same way).
#[test]
fn the_byte_a_json_error_stops_at_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let head = br#"{"format":"kpe-transcript","version":1,"#;
    let cases: [(&[u8], &str); 6] = [
        (b"\x00", "key must be a string, found a NUL byte (0x00)"),
        (b"\x0c", "found a form feed (0x0c)"),
        (b"/* c */", "found `/`: JSON has no comments"),
        // The manifest's reader says `trailing comma` itself.
        (b"}", "trailing comma"),
        // The manifest's reader checks UTF-8 first, in its own words.
        (b"\xff", "0xff"),
        (b"'a':1}", "found `'`: JSON strings take double quotes"),
    ];
    for (k, (bad, words)) in cases.iter().enumerate() {
        let path = file(
            dir.path(),
            &format!("t{k}.json"),
            &[&head[..], bad].concat(),
        );
        let out = run(Command::new(KPE_CHECK).arg(&path));
        assert_refused(&out, 2, &[&format!("t{k}.json:1:40:"), words]);
        let manifest = [&br#"{"format":"kpe-engine","version":1,"#[..], bad].concat();
        let path = file(dir.path(), &format!("m{k}.json"), &manifest);
        let out = run(Command::new(KPE_CHECK).arg(&path));
        assert_refused(&out, 2, &[&format!("m{k}.json:1:36:"), words]);
    }
    // A shard report for `kpe-check merge`.
    let path = file(
        dir.path(),
        "shard.json",
        b"{\"format\":\"kpe-check-report\",\x00}",
    );
    let out = run(Command::new(KPE_CHECK).arg("merge").arg(&path));
    assert_refused(&out, 2, &["shard.json:1:30:", "found a NUL byte (0x00)"]);
    // In a transcript, the byte that is not UTF-8 and the trailing comma
    // are named by this check.
    let out = run(Command::new(KPE_CHECK).arg(dir.path().join("t4.json")));
    assert_refused(&out, 2, &["found the byte 0xff, which is not UTF-8"]);
    let out = run(Command::new(KPE_CHECK).arg(dir.path().join("t3.json")));
    assert_refused(
        &out,
        2,
        &["found `}` after a comma: JSON allows no trailing comma"],
    );
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain("{}".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let path = file(dir.path(), "utf16.json", &utf16);
    let out = run(Command::new(KPE_CHECK).arg(&path));
    assert_refused(
        &out,
        2,
        &[
            "utf16.json:1:1:",
            "a UTF-16 byte-order mark (0xff 0xfe)",
            "save it as UTF-8",
        ],
    );
    // From standard input too.
    let mut child = Command::new(KPE_CHECK)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child.stdin.take().unwrap().write_all(&utf16).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_refused(&out, 2, &["-:1:1:", "a UTF-16 byte-order mark"]);
}

/// `totals` with three numbers said `trailing characters`; an engine
/// given as a list (`"engine": ["e", "1"]`) was taken as its fields.
#[test]
fn totals_of_the_wrong_length_and_an_engine_as_a_list_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let game = |totals: &str| {
        format!(
            r#"{{"format":"kpe-transcript","version":1,"engine":{{"name":"e","version":"1"}},"games":[{{"id":"g","plies":[{{"move":"S1","after":"0,7,7,7/7,6,6,6 N 0/0 1---/----","game_over":true,"totals":{totals}}}]}}]}}"#
        )
    };
    for (totals, words) in [
        (
            "[1,2,3]",
            "`totals` has 3 numbers; expected 2, [South, North]",
        ),
        ("[1]", "`totals` has 1 number; expected 2"),
        ("[]", "`totals` has 0 numbers"),
    ] {
        let path = file(dir.path(), "t.json", game(totals).as_bytes());
        let out = run(Command::new(KPE_CHECK).arg(&path));
        assert_refused(&out, 2, &["at games[0].plies[0].totals", words]);
    }
    let path = file(
        dir.path(),
        "e.json",
        br#"{"format":"kpe-transcript","version":1,"engine":["e","1"],"games":[]}"#,
    );
    let out = run(Command::new(KPE_CHECK).arg(&path));
    assert_refused(
        &out,
        2,
        &[
            "e.json:1:",
            "at engine: invalid type: sequence, expected an object",
        ],
    );
}

/// A scenario file that starts with a UTF-8 byte-order mark said `missing
/// field scenarios`.
#[test]
fn a_suite_file_with_a_byte_order_mark_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read(root.join("conformance/sowing.yaml")).unwrap();
    file(
        dir.path(),
        "sowing.yaml",
        &[&b"\xef\xbb\xbf"[..], &text].concat(),
    );
    let out = run(Command::new(KPE).args(["suite", "--dir"]).arg(dir.path()));
    assert_refused(
        &out,
        2,
        &["sowing.yaml:1:1: the file starts with a UTF-8 byte-order mark"],
    );
    assert!(!said(&out).contains("missing field"), "{}", said(&out));
}

/// A NUL in an `--expect-fail` line was invisible in the messages that
/// quote the line; it is refused where it is, shown escaped.
#[test]
fn a_control_character_in_an_expect_fail_line_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let list = file(dir.path(), "known.txt", b"# known\nrandom/1 SOW-4\x00\n");
    let out = run(Command::new(KPE_CHECK)
        .arg(examples("conforming.json"))
        .arg("--expect-fail")
        .arg(&list));
    assert_refused(
        &out,
        2,
        &[
            "known.txt:2:15:",
            "the control character \\u{0} (U+0000), a NUL byte",
        ],
    );
}
