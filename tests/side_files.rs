//! The side files of a run: `--write-expect-fail FILE` (the known
//! failures, in the format `--expect-fail` reads) and `--badge FILE` (a
//! shields.io endpoint JSON and an SVG), from a transcript and from a live
//! run, and their bad paths; and `--list` on a transcript.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn kpe_check() -> Command {
    let mut cmd = Command::cargo_bin("kpe-check").expect("the kpe-check binary is built");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of a known-failures file that are not comments.
fn entries(text: &str) -> Vec<&str> {
    text.lines().filter(|l| !l.starts_with('#')).collect()
}

#[test]
fn a_diverging_transcript_writes_its_divergence_and_the_next_run_passes_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let known = dir.path().join("known.txt");
    kpe_check()
        .arg("examples/transcripts/no-feeding.json")
        .arg("--write-expect-fail")
        .arg(&known)
        .assert()
        .code(1);
    let text = read(&known);
    assert_eq!(entries(&text), ["seed-716 FEED-1"], "{text}");
    assert!(
        text.contains("# Run: examples/transcripts/no-feeding.json"),
        "{text}"
    );
    kpe_check()
        .arg("examples/transcripts/no-feeding.json")
        .arg("--expect-fail")
        .arg(&known)
        .assert()
        .code(0);
    // A conforming run writes a file with no entries, replacing the old one.
    kpe_check()
        .arg("examples/transcripts/conforming.json")
        .arg("--write-expect-fail")
        .arg(&known)
        .assert()
        .code(0);
    assert_eq!(entries(&read(&known)), Vec::<&str>::new());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no scratch file left"
    );
}

#[test]
fn an_id_the_format_cannot_hold_is_a_comment_not_a_lost_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = read(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/transcripts/no-feeding.json"
    )));
    let input = dir.path().join("t.json");
    std::fs::write(&input, text.replace("\"seed-716\"", "\"seed 716\"")).unwrap();
    let known = dir.path().join("known.txt");
    kpe_check()
        .arg(&input)
        .arg("--write-expect-fail")
        .arg(&known)
        .assert()
        .code(1);
    let written = read(&known);
    assert_eq!(entries(&written), Vec::<&str>::new(), "{written}");
    assert!(
        written.contains("# not listed, its id holds white space or `#`: \"seed 716\""),
        "{written}"
    );
}

#[test]
fn a_live_run_written_again_until_stable_then_passes_with_the_same_seed() {
    let dir = tempfile::tempdir().unwrap();
    let known = dir.path().join("known.txt");
    std::fs::write(&known, "").unwrap();
    let run = |file: &Path| {
        kpe_check()
            .args([
                "examples/engines/no-feeding.json",
                "--games",
                "10",
                "--seed",
                "5",
                "-q",
            ])
            .arg("--expect-fail")
            .arg(file)
            .arg("--write-expect-fail")
            .arg(file)
            .output()
            .unwrap()
            .status
            .code()
    };
    // Each run may reach deeper into a perft table than the last (a failed
    // depth stops the deeper ones), so how many runs it takes depends on
    // the suite and the profile; a run that leaves the file as it was has
    // nothing more to find, and must then pass.
    let mut codes = Vec::new();
    let mut before = None;
    for _ in 0..40 {
        codes.push(run(&known));
        let now = read(&known);
        if codes.last() == Some(&Some(0)) || before.as_ref() == Some(&now) {
            break;
        }
        before = Some(now);
    }
    assert_eq!(
        codes.last(),
        Some(&Some(0)),
        "exit codes run after run: {codes:?}"
    );
    assert_eq!(
        codes[0],
        Some(1),
        "the first run, with an empty file, diverges"
    );
    let text = read(&known);
    assert!(text.contains("seed 5 (pass --seed 5"), "{text}");
    assert!(
        entries(&text)
            .iter()
            .all(|l| l.split(' ').nth(1).is_some_and(|r| r.starts_with("FEED-"))),
        "{text}"
    );
}

fn badge_of(args: &[&str], code: i32) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("badge.json");
    kpe_check()
        .args(args)
        .arg("--badge")
        .arg(&json)
        .assert()
        .code(code);
    let value: Value = serde_json::from_str(&read(&json)).unwrap();
    let svg = read(&dir.path().join("badge.svg"));
    roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("the SVG is not XML: {e}\n{svg}"));
    (value, svg)
}

#[test]
fn the_badge_says_the_verdict_in_shields_endpoint_json_and_svg() {
    let (value, svg) = badge_of(&["examples/transcripts/conforming.json"], 0);
    assert_eq!(value["schemaVersion"], 1);
    assert_eq!(value["label"], "Kpé rules");
    assert_eq!(value["message"], "conforms (3 units)");
    assert_eq!(value["color"], "brightgreen");
    assert!(svg.contains(">conforms (3 units)</text>"), "{svg}");
    let (value, svg) = badge_of(&["examples/transcripts/no-feeding.json"], 1);
    assert_eq!(value["message"], "diverges (1 of 2 units)");
    assert_eq!(value["color"], "red");
    assert!(svg.contains("#e05d44"), "{svg}");
    let (value, _) = badge_of(&["tests/side_files.rs"], 2);
    assert_eq!(value["message"], "bad input");
    assert_eq!(value["color"], "lightgrey");
}

#[test]
fn side_files_that_cannot_be_written_are_named_before_the_run() {
    for flag in ["--badge", "--write-expect-fail"] {
        kpe_check()
            .args([
                "examples/transcripts/conforming.json",
                flag,
                "no-such-folder/f.json",
            ])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(format!(
                "{flag} no-such-folder/f.json: cannot write a file in no-such-folder: No such file or directory (os error 2)\n"
            )));
        kpe_check()
            .args(["examples/transcripts/conforming.json", flag, "tests"])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(format!(
                "{flag} tests: it is a directory"
            )));
    }
    kpe_check()
        .args(["examples/transcripts/conforming.json", "--badge", "b.svg"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("name the JSON file"));
    // The known-failures file may be the --expect-fail file read, but not
    // the input or another report of the run.
    kpe_check()
        .args([
            "examples/transcripts/conforming.json",
            "--write-expect-fail",
        ])
        .arg("examples/transcripts/conforming.json")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is the input"));
    let dir = tempfile::tempdir().unwrap();
    let same = dir.path().join("same");
    kpe_check()
        .args([
            "examples/transcripts/conforming.json",
            "--write-expect-fail",
        ])
        .arg(&same)
        .arg("--junit")
        .arg(&same)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is also the file of --junit"));
    kpe_check()
        .args(["examples/transcripts/conforming.json", "--badge"])
        .arg(dir.path().join("b.json"))
        .arg("--html")
        .arg(dir.path().join("b.svg"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("each report needs its own file"));
}

#[test]
fn list_on_a_transcript_prints_the_selected_games_in_file_order() {
    let out = kpe_check()
        .args(["examples/transcripts/conforming.json", "--list"])
        .assert()
        .code(0);
    let listed = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(listed, "random-30\nrandom-81\nchase\n");
    let out = kpe_check()
        .args([
            "examples/transcripts/conforming.json",
            "--list",
            "--skip",
            "random-*",
        ])
        .assert()
        .code(0);
    assert_eq!(out.get_output().stdout, b"chase\n");
    kpe_check()
        .args([
            "examples/transcripts/conforming.json",
            "--list",
            "--only",
            "nothing-*",
        ])
        .assert()
        .code(4)
        .stderr(predicates::str::contains("no unit is selected"));
    kpe_check()
        .args(["tests/side_files.rs", "--list"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("tests/side_files.rs"));
}

/// Report files get the umask's permissions, as any file the user makes
/// (issue 44: they were tempfile's private 0600, so a CI step running as
/// another user could not read them). Run under `sh -c 'umask M; exec
/// kpe-check ...'` so that the umask is the child's alone.
#[cfg(unix)]
#[test]
fn report_files_get_the_umasks_permissions() {
    use std::os::unix::fs::PermissionsExt as _;
    let exe = assert_cmd::cargo::cargo_bin("kpe-check");
    for (umask, mode) in [("022", 0o644), ("077", 0o600), ("002", 0o664)] {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str| dir.path().join(name);
        let out = std::process::Command::new("sh")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg("-c")
            .arg(format!("umask {umask}; exec \"$@\""))
            .arg("sh")
            .arg(&exe)
            .arg("examples/transcripts/skip-origin.json")
            .arg("--junit")
            .arg(file("r.xml"))
            .arg("--html")
            .arg(file("r.html"))
            .arg("--badge")
            .arg(file("badge.json"))
            .arg("--write-expect-fail")
            .arg(file("known.txt"))
            .arg("--write-scenarios")
            .arg(file("found.yaml"))
            .output()
            .expect("sh runs");
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for name in [
            "r.xml",
            "r.html",
            "badge.json",
            "badge.svg",
            "known.txt",
            "found.yaml",
        ] {
            let meta = std::fs::metadata(file(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(
                meta.permissions().mode() & 0o777,
                mode,
                "{name} under umask {umask}"
            );
        }
    }
}

/// The known-failures file names its format's version on its first line
/// (issue 44); a file without it is of version 1, and another version is
/// refused, at its line and column, with exit 2.
#[test]
fn the_known_failures_file_has_a_version() {
    let dir = tempfile::tempdir().unwrap();
    let known = dir.path().join("known.txt");
    kpe_check()
        .arg("examples/transcripts/skip-origin.json")
        .arg("--write-expect-fail")
        .arg(&known)
        .assert()
        .code(1);
    let text = read(&known);
    assert!(text.starts_with("# kpe-expect-fail version 1\n"), "{text}");
    // Without the line: version 1, the same file.
    let bare: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&known, &bare).unwrap();
    kpe_check()
        .arg("examples/transcripts/skip-origin.json")
        .arg("--expect-fail")
        .arg(&known)
        .assert()
        .code(0);
    std::fs::write(&known, format!("# kpe-expect-fail version 2\n{bare}")).unwrap();
    let out = kpe_check()
        .arg("examples/transcripts/skip-origin.json")
        .arg("--expect-fail")
        .arg(&known)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains(":1:27") && stderr.contains("unknown --expect-fail file version `2`"),
        "{stderr}"
    );
}
