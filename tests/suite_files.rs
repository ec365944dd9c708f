//! Suite files read from hostile places (issue 10): FIFOs, devices, huge,
//! deeply nested, non-UTF-8 or tagged YAML each get a located error, at
//! once, without reading for ever or parsing in quadratic time.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use kpe::scenario::{MAX_SUITE_FILE, MAX_YAML_DEPTH, MAX_YAML_INDENT, Suite, parse_file};

/// A scenario file with `n` small scenarios.
fn many_scenarios(n: usize) -> String {
    let mut text = String::from("topic: many\nscenarios:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  - id: s-{i}\n    rules: [SOW-1]\n    description: d\n    expect:\n      - ply: 0\n        legal: [S1, S2, S3, S4]\n"
        ));
    }
    text
}

/// Loads `dir` on a thread: a loader that blocks (a FIFO) fails the test
/// instead of hanging it.
fn load_bounded(dir: &Path) -> Result<Suite, String> {
    let (send, receive) = mpsc::channel();
    let dir = dir.to_owned();
    std::thread::spawn(move || {
        let _ = send.send(Suite::load(&dir).map_err(|e| e.to_string()));
    });
    receive
        .recv_timeout(Duration::from_secs(60))
        .expect("loading the suite blocked")
}

/// The one error of loading `text` as `f.yaml`.
fn error_of(text: &str) -> String {
    let err = parse_file("f.yaml", text).unwrap_err();
    assert_eq!(err.0.len(), 1, "{err}");
    err.to_string()
}

/// Regression (issue 10, failure 7): `x: {a: {a: ...` 40,000 deep took 5 s
/// in the parser, 100,000 more than a minute. The nesting is refused first.
#[test]
fn deep_flow_nesting_is_refused_before_parsing() {
    let text = format!("x: {}", "{a: ".repeat(100_000));
    let err = error_of(&text);
    let column = 4 + 4 * MAX_YAML_DEPTH;
    assert!(err.starts_with(&format!("f.yaml:1:{column}: ")), "{err}");
    assert!(err.contains("nested deeper than 64 levels"), "{err}");
    let text = format!("x: {}", "[".repeat(100_000));
    assert!(error_of(&text).contains("nested deeper than 64 levels"));
    // As deep as allowed is handed to the parser (and refused there for
    // not being a scenario file).
    let text = format!(
        "x: {}1{}",
        "[".repeat(MAX_YAML_DEPTH),
        "]".repeat(MAX_YAML_DEPTH)
    );
    assert!(!error_of(&text).contains("nested deeper"));
}

#[test]
fn deep_block_nesting_is_refused_before_parsing() {
    let text = format!("x:\n{}1\n", "- ".repeat(100_000));
    let err = error_of(&text);
    assert!(err.starts_with("f.yaml:2:"), "{err}");
    assert!(err.contains("nested deeper than column 256"), "{err}");
    let text = format!("x:\n{}1\n", " ".repeat(MAX_YAML_INDENT + 1));
    assert!(error_of(&text).contains("nested deeper than column"));
}

/// What looks like structure in quoted scalars, comments and block scalars
/// is text, and is not counted.
#[test]
fn brackets_in_text_are_not_nesting() {
    let brackets = "[".repeat(MAX_YAML_DEPTH + 1);
    let text = format!(
        "topic: \"{brackets}\" # {brackets}\nscenarios:\n  - id: a\n    rules: [SOW-1]\n    description: >-\n      {brackets} !x\n      |{brackets}\n    start: '6,6,6,6/6,6,6,6 S 0/0 ----/----'\n    expect:\n      - ply: 0\n        legal: [S1, S2, S3, S4]\n"
    );
    let file = parse_file("f.yaml", &text).unwrap();
    assert_eq!(file.topic, brackets);
}

/// Regression (issue 10): an unknown YAML tag was ignored.
#[test]
fn yaml_tags_are_refused_with_their_place() {
    let mut text = many_scenarios(1);
    text = text.replace("description: d", "description: !secret d");
    let err = error_of(&text);
    assert!(err.starts_with("f.yaml:5:18: "), "{err}");
    assert!(err.contains("YAML tags"), "{err}");
    let err = error_of(&format!("%TAG ! tag:x,2000:\n---\n{}", many_scenarios(1)));
    assert!(
        err.starts_with("f.yaml:1:1: ") && err.contains("tag"),
        "{err}"
    );
}

/// Regression (issue 10, failure 8): the line of each scenario was found by
/// rescanning the whole text, so loading was quadratic (23,000 scenarios,
/// 2 MB, took 49 s). One pass now; the lines stay right, duplicates too.
#[test]
fn many_scenarios_load_and_duplicates_are_placed() {
    let n = 5_000;
    let mut text = many_scenarios(n);
    text.push_str("  - id: s-7\n    rules: [SOW-1]\n    expect:\n      - ply: 0\n        legal: [S1, S2, S3, S4]\n");
    let err = error_of(&text);
    let line = 3 + 6 * n;
    assert!(
        err.starts_with(&format!(
            "f.yaml:{line}:5: scenario `s-7`: id already used at f.yaml:45"
        )),
        "{err}"
    );
    assert_eq!(
        parse_file("f.yaml", &many_scenarios(n))
            .unwrap()
            .scenarios
            .len(),
        n
    );
}

/// Regression (issue 10, failures 9 and 10): a FIFO named `*.yaml` hung
/// the loader, `/dev/zero` linked as `z.yaml` was read until memory ran
/// out. Only regular files are read, each at most MAX_SUITE_FILE bytes.
#[test]
#[cfg(unix)]
fn only_regular_files_of_bounded_size_are_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.yaml"), many_scenarios(2)).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("z.yaml")).unwrap();
    let big = std::fs::File::create(dir.path().join("big.yaml")).unwrap();
    big.set_len(MAX_SUITE_FILE + 1).unwrap();
    std::fs::create_dir(dir.path().join("d.yaml")).unwrap();
    let fifo = dir.path().join("f.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let err = load_bounded(dir.path()).unwrap_err();
    let shown = |name: &str| dir.path().join(name).display().to_string();
    assert!(
        err.contains(&format!(
            "{}: cannot read: it is a character device, not a regular file",
            shown("z.yaml")
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{}: cannot read: 8388609 bytes is too large for a scenario file (at most 8388608)",
            shown("big.yaml")
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{}: cannot read: it is a directory",
            shown("d.yaml")
        )),
        "{err}"
    );
    if made {
        assert!(
            err.contains(&format!(
                "{}: cannot read: it is a FIFO (named pipe), not a regular file",
                shown("f.yaml")
            )),
            "{err}"
        );
    } else {
        eprintln!("note: mkfifo is missing; the FIFO case is not checked");
    }
}

/// Regression (issue 10): a suite file that is not UTF-8 got no line and
/// column.
#[test]
fn a_suite_file_that_is_not_utf8_names_the_byte_and_its_place() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.yaml"),
        b"topic: t\nscenarios:\n  - id: \xfe\n",
    )
    .unwrap();
    let err = load_bounded(dir.path()).unwrap_err();
    assert!(err.contains("a.yaml:3:9: byte 0xfe is not UTF-8"), "{err}");
}
