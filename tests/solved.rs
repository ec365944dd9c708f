//! The value of Kpé as data: `spec/solved.yaml` holds what `kpe solve`
//! printed for the initial position under each profile a table covers
//! (spec/SOLVE.md, "The value of Kpé"). These tests check that every row
//! is well formed and consistent with the rules, that spec/SOLVE.md's
//! table is written from the rows (`UPDATE_SOLVED=1 cargo test --test
//! solved` rewrites it), and, where the solved files are at hand
//! (`KPE_TABLES` names their folder), that every row is what the opening
//! file says. The full solve takes about an hour on two cores, so no test
//! recomputes a row; the command in each row does.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use kpe::solve::{Class, GameValue, OpeningFile, SOLVED_FILE, solved};
use kpe::{Position, Profile, legal_moves};

const SOLVE_MD: &str = "spec/SOLVE.md";
const BEGIN: &str = "<!-- solved:begin (written from spec/solved.yaml by tests/solved.rs) -->\n";
const END: &str = "<!-- solved:end -->\n";

/// Every profile a table covers, in the order of `Class::all`.
fn covered() -> Vec<Profile> {
    Class::all().flat_map(Class::covers).collect()
}

/// The command that reproduces a row: it solves the class's table and both
/// its openings.
fn command(profile: Profile) -> String {
    let class = Class::of(profile).expect("a covered profile");
    format!("kpe solve --rules {}", class.profile().explicit())
}

#[test]
fn every_row_is_a_covered_profile_once_with_a_value_the_rules_allow() {
    let rows = solved();
    let covered = covered();
    let mut seen = BTreeSet::new();
    for row in &rows {
        let name = row.profile.explicit();
        assert!(covered.contains(&row.profile), "{name}: no table covers it");
        assert!(seen.insert(name.clone()), "{name}: two rows");
        // 48 stones are split between the players: the margin is even.
        assert!(
            row.value % 2 == 0 && (-48..=48).contains(&row.value),
            "{name}: value {}",
            row.value
        );
        let legal = legal_moves(&Position::initial(), row.profile);
        assert!(!row.best.is_empty(), "{name}: no best move");
        for pit in &row.best {
            assert!(legal.contains(pit), "{name}: {pit} is not a first move");
        }
        assert!(
            row.best.windows(2).all(|w| w[0] < w[1]),
            "{name}: best moves in pit order"
        );
        assert!(row.positions > 0, "{name}: positions");
        assert!(
            row.opening_sha256.len() == 64
                && row.opening_sha256.bytes().all(|b| b.is_ascii_hexdigit()),
            "{name}: opening_sha256 {}",
            row.opening_sha256
        );
        assert_eq!(row.command, command(row.profile), "{name}: the command");
        assert!(!row.measured.is_empty(), "{name}: what it took");
    }
}

/// The value of Kpé is stated under every profile a table covers: no row
/// is missing (spec/SOLVE.md, "What the rows say").
#[test]
fn every_covered_profile_has_a_row() {
    let rows = solved();
    let missing: Vec<Profile> = covered()
        .into_iter()
        .filter(|p| !rows.iter().any(|r| r.profile == *p))
        .collect();
    let named: Vec<String> = missing
        .iter()
        .map(|p| format!("{} (`{}` computes it)", p.explicit(), command(*p)))
        .collect();
    assert!(
        missing.is_empty(),
        "no row in spec/solved.yaml for: {named:#?}"
    );
}

#[test]
fn a_file_of_another_version_or_with_an_unknown_field_is_refused_by_name() {
    let e = kpe::solve::parse_solved("version: 2\nrows: []\n").unwrap_err();
    assert!(e.contains("version 2") && e.contains("version 1"), "{e}");
    let e = kpe::solve::parse_solved("version: 1\nrows: []\nextra: 1\n").unwrap_err();
    assert!(e.contains("extra"), "{e}");
    let bad_profile = SOLVED_FILE.replace("rows: []", "rows:\n  - profile: origin=nowhere\n    value: 0\n    best: [S1]\n    positions: 1\n    opening_sha256: x\n    command: x\n    measured: x\n");
    if bad_profile != SOLVED_FILE {
        let e = kpe::solve::parse_solved(&bad_profile).unwrap_err();
        assert!(e.contains("rows[0]: profile"), "{e}");
    }
    let bad_move = "version: 1\nrows:\n  - profile: default\n    value: 0\n    best: [S9]\n    positions: 1\n    opening_sha256: x\n    command: x\n    measured: x\n";
    let e = kpe::solve::parse_solved(bad_move).unwrap_err();
    assert!(e.contains("rows[0]: best"), "{e}");
}

/// spec/SOLVE.md's table: one row per covered profile, the row's figures
/// or "not yet computed".
fn table(rows: &[GameValue]) -> String {
    let mut out = String::from(
        "| profile | value for South | best first moves | positions before the lock | time, peak memory (load) | command |\n|---|---|---|---:|---|---|\n",
    );
    for profile in covered() {
        let name = profile.explicit();
        match rows.iter().find(|r| r.profile == profile) {
            Some(r) => {
                let best: Vec<String> = r.best.iter().map(ToString::to_string).collect();
                let value = if r.value == 0 {
                    "0".to_owned()
                } else {
                    format!("{:+}", r.value)
                };
                let _ = writeln!(
                    out,
                    "| `{name}` | {value} | {} | {} | {} | `{}` |",
                    best.join(" "),
                    r.positions,
                    r.measured,
                    r.command
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "| `{name}` | not yet computed | | | | `{}` |",
                    command(profile)
                );
            }
        }
    }
    out
}

#[test]
fn the_value_table_of_solve_md_is_current() {
    let text = std::fs::read_to_string(SOLVE_MD).expect("spec/SOLVE.md is readable");
    let (Some(begin), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        panic!("{SOLVE_MD}: the markers {BEGIN:?} and {END:?} are missing");
    };
    let current = &text[begin + BEGIN.len()..end];
    let wanted = table(&solved());
    if current == wanted {
        return;
    }
    if std::env::var_os("UPDATE_SOLVED").is_some() {
        let updated = format!("{}{BEGIN}{wanted}{}", &text[..begin], &text[end..]);
        std::fs::write(SOLVE_MD, updated).expect("spec/SOLVE.md is writable");
        return;
    }
    pretty_assertions::assert_eq!(
        current,
        wanted,
        "{SOLVE_MD} is out of date with spec/solved.yaml: `UPDATE_SOLVED=1 cargo test --test solved` rewrites it"
    );
}

/// With the solved files at hand (`KPE_TABLES`), every row is what its
/// opening file says: value, best moves, positions and the body's SHA-256.
/// Skips, saying so, when the variable is unset (CI has no tables: the
/// full solve takes about an hour).
#[test]
fn every_row_is_what_its_opening_file_says_where_the_files_are_at_hand() {
    let Some(dir) = std::env::var_os("KPE_TABLES") else {
        eprintln!("skipped: KPE_TABLES is not set (no solved tables here)");
        return;
    };
    let dir = Path::new(&dir);
    for row in solved() {
        let name = row.profile.explicit();
        let class = Class::of(row.profile).unwrap();
        let Some(file) =
            OpeningFile::open(dir, class, row.profile).unwrap_or_else(|e| panic!("{name}: {e}"))
        else {
            eprintln!("{name}: no opening file in {}", dir.display());
            continue;
        };
        let s = file.summary();
        assert_eq!(
            (s.value, &s.best, s.states),
            (row.value, &row.best, row.positions),
            "{name}"
        );
        let header = std::fs::read(file.path()).unwrap();
        let header = String::from_utf8_lossy(&header[..header.len().min(2048)]).into_owned();
        assert!(
            header.contains(&format!("sha256: {}\n", row.opening_sha256)),
            "{name}: the file's checksum is not the row's"
        );
    }
}
