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
        ("kpe::live::MAX_LINE", kpe::live::MAX_LINE as u128),
        (
            "kpe::live::STDERR_LIMIT",
            u128::from(kpe::live::STDERR_LIMIT),
        ),
        ("kpe::live::STDERR_TAIL", kpe::live::STDERR_TAIL as u128),
        ("kpe::live::MAX_STARTS", u128::from(kpe::live::MAX_STARTS)),
        (
            "Timeouts::default().start_ms",
            u128::from(Timeouts::default().start_ms),
        ),
        (
            "Timeouts::default().request_ms",
            u128::from(Timeouts::default().request_ms),
        ),
        ("kpe::live::EXIT_GRACE", ms(kpe::live::EXIT_GRACE)),
        (
            "kpe::live::MAX_MANIFEST",
            u128::from(kpe::live::MAX_MANIFEST),
        ),
        (
            "kpe::live::MAX_PERFT_DEPTH",
            u128::from(kpe::live::MAX_PERFT_DEPTH),
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
            "kpe::scenario::MAX_YAML_DEPTH",
            kpe::scenario::MAX_YAML_DEPTH as u128,
        ),
        (
            "kpe::scenario::MAX_YAML_INDENT",
            kpe::scenario::MAX_YAML_INDENT as u128,
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
