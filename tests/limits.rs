//! spec/LIMITS.md states every limit as the code has it: each row of its
//! limits table names a constant and a value, and the value must be the
//! constant's; every constant here must have a row.

use std::collections::BTreeMap;
use std::path::Path;

use kpe::live::Timeouts;

/// The constants, by the name the table gives them, with their values.
fn constants() -> BTreeMap<&'static str, u128> {
    let ms = |d: std::time::Duration| d.as_millis();
    BTreeMap::from([
        (
            "kpe::solve::file::HEADER_MAX",
            kpe::solve::file::HEADER_MAX as u128,
        ),
        ("kpe::live::MAX_LINE", kpe::live::MAX_LINE as u128),
        (
            "kpe::live::STDERR_LIMIT",
            u128::from(kpe::live::STDERR_LIMIT),
        ),
        ("kpe::live::STDERR_TAIL", kpe::live::STDERR_TAIL as u128),
        ("kpe::live::MAX_STARTS", u128::from(kpe::live::MAX_STARTS)),
        ("kpe::live::WINDOW", kpe::live::WINDOW as u128),
        (
            "Timeouts::default().start_ms",
            u128::from(Timeouts::default().start_ms),
        ),
        (
            "Timeouts::default().request_ms",
            u128::from(Timeouts::default().request_ms),
        ),
        ("kpe::live::EXIT_GRACE", ms(kpe::live::EXIT_GRACE)),
        ("kpe::live::WALL_FACTOR", u128::from(kpe::live::WALL_FACTOR)),
        ("kpe::live::WALL_FLOOR", ms(kpe::live::WALL_FLOOR)),
        ("kpe::live::DOUBLED_WAIT", ms(kpe::live::DOUBLED_WAIT)),
        (
            "kpe::live::MAX_MANIFEST",
            u128::from(kpe::live::MAX_MANIFEST),
        ),
        (
            "kpe::live::MAX_PERFT_DEPTH",
            u128::from(kpe::live::MAX_PERFT_DEPTH),
        ),
        (
            "kpe::live::MAX_PIPELINE",
            u128::from(kpe::live::MAX_PIPELINE),
        ),
        (
            "kpe::live::MAX_PERFT_NODES",
            u128::from(kpe::live::MAX_PERFT_NODES),
        ),
        (
            "kpe::live::MAX_REQUEST_LINE",
            kpe::live::MAX_REQUEST_LINE as u128,
        ),
        (
            "kpe::reporter::MAX_TOKEN_BYTES",
            kpe::reporter::MAX_TOKEN_BYTES as u128,
        ),
        (
            "kpe::transcripts::HEADER_AT_END_BYTES",
            u128::from(kpe::transcripts::HEADER_AT_END_BYTES),
        ),
        (
            "kpe::transcripts::HEADER_AT_END_TRIES",
            kpe::transcripts::HEADER_AT_END_TRIES as u128,
        ),
        (
            "kpe::transcripts::MAX_NOTED_GAMES",
            kpe::transcripts::MAX_NOTED_GAMES as u128,
        ),
        (
            "kpe::scenario::MAX_SUITE_FILE",
            u128::from(kpe::scenario::MAX_SUITE_FILE),
        ),
        (
            "kpe::scenario::MAX_PERFT_TABLE_DEPTH",
            kpe::scenario::MAX_PERFT_TABLE_DEPTH as u128,
        ),
        (
            "kpe::scenario::MAX_PERFT_TABLE_NODES",
            u128::from(kpe::scenario::MAX_PERFT_TABLE_NODES),
        ),
        (
            "kpe::scenario::PERFT_RECOUNT_BUDGET",
            u128::from(kpe::scenario::PERFT_RECOUNT_BUDGET),
        ),
        (
            "kpe::scenario::MAX_YAML_DEPTH",
            kpe::scenario::MAX_YAML_DEPTH as u128,
        ),
        (
            "kpe::scenario::MAX_YAML_INDENT",
            kpe::scenario::MAX_YAML_INDENT as u128,
        ),
        ("kpe::live::MAX_GAMES", u128::from(kpe::live::MAX_GAMES)),
        (
            "kpe::reporter::MAX_JOBS",
            u128::from(kpe::reporter::MAX_JOBS),
        ),
        (
            "kpe::reporter::MAX_SHARDS",
            u128::from(kpe::reporter::MAX_SHARDS),
        ),
        (
            "kpe::reporter::MAX_REPORT",
            u128::from(kpe::reporter::MAX_REPORT),
        ),
        (
            "kpe::reporter::MAX_EXPECT_FAIL",
            u128::from(kpe::reporter::MAX_EXPECT_FAIL),
        ),
        (
            "kpe::dispute::MAX_DISPUTE_GAMES",
            kpe::dispute::MAX_DISPUTE_GAMES as u128,
        ),
        (
            "kpe::dispute::MAX_DISPUTE_PLIES",
            kpe::dispute::MAX_DISPUTE_PLIES as u128,
        ),
        (
            "kpe::dispute::MAX_DISPUTE_EXAMPLES",
            kpe::dispute::MAX_DISPUTE_EXAMPLES as u128,
        ),
    ])
}

/// The rows of the limits table: (constant, value).
fn rows() -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/LIMITS.md"))
            .unwrap();
    let section = text
        .split("## Limits")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a `## Limits` section");
    section
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("| limit") && !l.starts_with("|---"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 6, "a row of four cells: {l}");
            let constant = cells[4].trim_matches('`').to_owned();
            (constant, cells[2].to_owned())
        })
        .collect()
}

#[test]
fn the_limits_table_states_each_constant_as_the_code_has_it() {
    let constants = constants();
    let rows = rows();
    for (constant, value) in &rows {
        let actual = constants.get(constant.as_str()).unwrap_or_else(|| {
            panic!("spec/LIMITS.md names `{constant}`, which this test does not know")
        });
        assert_eq!(
            value,
            &actual.to_string(),
            "spec/LIMITS.md says {constant} is {value}; the code says {actual}"
        );
    }
    for constant in constants.keys() {
        assert!(
            rows.iter().any(|(c, _)| c == constant),
            "spec/LIMITS.md has no row for `{constant}`"
        );
    }
}

/// Issue 25: the table gave exit 1 for an engine's misbehaviour, where
/// kpe-check exits 3 (errored). Every exit cell of "What bad input gets" is
/// one of kpe-check's exit codes, and a row that names a verdict gives the
/// errored code.
#[test]
fn the_bad_input_table_gives_the_binarys_exit_codes() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/LIMITS.md"))
            .unwrap();
    let section = text
        .split("## What bad input gets")
        .nth(1)
        .expect("a `## What bad input gets` section");
    let mut codes: Vec<u8> = kpe::reporter::EXIT_CODES.iter().map(|(c, _)| *c).collect();
    // 130 stands for the three signals' codes.
    codes.extend([kpe::reporter::Signal::Term, kpe::reporter::Signal::Hup].map(|s| s.exit_code()));
    let errored = kpe::reporter::RunVerdict::Errored.exit_code();
    let mut verdict_rows = 0;
    for line in section
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("| bad input") && !l.starts_with("|---"))
    {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let exit = cells[cells.len() - 2];
        if exit == "—" {
            continue;
        }
        let given: Vec<u8> = exit
            .split(',')
            .map(|c| c.trim().parse().unwrap_or_else(|_| panic!("{line}")))
            .collect();
        for code in &given {
            assert!(
                codes.contains(code),
                "not an exit code of kpe-check: {line}"
            );
        }
        if cells[2].starts_with("verdict `") {
            verdict_rows += 1;
            assert_eq!(given, [errored], "{line}");
        }
    }
    assert!(verdict_rows >= 8, "the engine verdict rows are gone");
}

/// Issue 46: the `kpe adopt` section names the lock, the journal, the test
/// hook and its status as the code has them, and each row of its table
/// gives the exit code the error of that case has.
#[test]
fn the_adopt_section_states_the_files_and_exit_codes_as_the_code_has_them() {
    use kpe::adopt::{AdoptError, Holder};
    use std::path::PathBuf;
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/LIMITS.md"))
            .unwrap();
    let section = text
        .split("## `kpe adopt`")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a `## `kpe adopt`` section");
    for name in [
        kpe::adopt::LOCK_FILE,
        kpe::adopt::JOURNAL_FILE,
        kpe::adopt::NEW_SUFFIX,
        kpe::adopt::STOP_AFTER_VAR,
    ] {
        assert!(
            section.contains(name),
            "spec/LIMITS.md does not name {name}"
        );
    }
    assert!(section.contains(&format!("status {}", kpe::adopt::STOPPED_EXIT)));
    let io = || std::io::Error::other("x");
    let cases = [
        ("names no reading", AdoptError::UnknownReading("x".into())),
        (
            "a root that does not exist",
            AdoptError::NotAProject(PathBuf::new(), String::new()),
        ),
        (
            "empty, garbled or not UTF-8",
            AdoptError::Malformed(PathBuf::new(), String::new()),
        ),
        (
            "is a directory or a symbolic link",
            AdoptError::NotAFile(PathBuf::new(), "it is a directory, not a regular file"),
        ),
        (
            "cannot be opened for writing",
            AdoptError::Io(PathBuf::new(), io()),
        ),
        (
            "the lock exists",
            AdoptError::Locked(Holder::Unknown, PathBuf::new()),
        ),
        (
            "fails after the commit",
            AdoptError::Unfinished {
                root: PathBuf::new(),
                cause: String::new(),
            },
        ),
    ];
    for (words, error) in cases {
        let row = section
            .lines()
            .find(|l| l.starts_with('|') && l.contains(words))
            .unwrap_or_else(|| panic!("no row for `{words}`"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let exit = cells[cells.len() - 2];
        assert_eq!(exit, error.exit_code().to_string(), "{row}");
    }
}
