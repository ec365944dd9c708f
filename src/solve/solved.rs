//! The value of Kpé: what `kpe solve` found for the initial position under
//! each profile a table covers, kept as data (`spec/solved.yaml`), each row
//! with the one command that reproduces it (spec/SOLVE.md, "The value of
//! Kpé").
//!
//! The solver reads the rules and never changes them; its results are
//! data. The full solve takes about an hour on two cores, so nothing here
//! is computed by `cargo test`: the rows are what the commands printed,
//! and spec/SOLVE.md's table is written from them (`tests/solved.rs`
//! checks it). `kpe dispute` reads them for the value of the game under
//! both readings; `kpe value initial` names a row's value when no opening
//! file is there.

use serde::Deserialize;

use crate::board::Pit;
use crate::profile::Profile;

/// The data file, compiled in.
pub const SOLVED_FILE: &str = include_str!("../../spec/solved.yaml");

/// The format version of `spec/solved.yaml` this code reads.
pub const SOLVED_VERSION: u32 = 1;

/// One row: the value of the initial position under one profile.
#[derive(Clone, Debug, PartialEq)]
pub struct GameValue {
    /// The profile (every setting named).
    pub profile: Profile,
    /// The margin South, the first player, can force: South's final total
    /// minus North's.
    pub value: i8,
    /// Every first move that attains it, in pit order.
    pub best: Vec<Pit>,
    /// Positions before the lock that play from the initial position
    /// reaches (the opening file's entries).
    pub positions: u64,
    /// The SHA-256 of the opening file's body, as its header gives it: a
    /// solve run again gives the same bytes.
    pub opening_sha256: String,
    /// The command that computes the row.
    pub command: String,
    /// What the solve took, as measured (free text: time, memory, load).
    pub measured: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    rows: Vec<Row>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    profile: String,
    value: i8,
    best: Vec<String>,
    positions: u64,
    opening_sha256: String,
    command: String,
    measured: String,
}

/// Reads a solved-values file: every row's profile and moves parsed, the
/// version checked.
///
/// # Errors
///
/// What does not parse, with the row it is in.
pub fn parse(text: &str) -> Result<Vec<GameValue>, String> {
    let file: File = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
    if file.version != SOLVED_VERSION {
        return Err(format!(
            "version {}: this kpe reads version {SOLVED_VERSION}",
            file.version
        ));
    }
    file.rows
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let at = |what: String| format!("rows[{i}]: {what}");
            let profile: Profile = row
                .profile
                .parse()
                .map_err(|e| at(format!("profile: {e}")))?;
            let best = row
                .best
                .iter()
                .map(|m| m.parse::<Pit>().map_err(|e| at(format!("best: {e}"))))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(GameValue {
                profile,
                value: row.value,
                best,
                positions: row.positions,
                opening_sha256: row.opening_sha256,
                command: row.command,
                measured: row.measured,
            })
        })
        .collect()
}

/// Every row of `spec/solved.yaml`.
///
/// # Panics
///
/// If the compiled-in file does not parse (`tests/solved.rs` reads it).
#[must_use]
pub fn solved() -> Vec<GameValue> {
    parse(SOLVED_FILE).expect("spec/solved.yaml parses (tests/solved.rs)")
}

/// The value of Kpé under `profile`, if it has been computed.
#[must_use]
pub fn value_of_the_game(profile: Profile) -> Option<GameValue> {
    solved().into_iter().find(|row| row.profile == profile)
}
