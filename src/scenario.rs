//! Conformance scenarios: the plain data of `conformance/*.yaml`, how a
//! suite is loaded and checked, and how a scenario is run against an
//! implementation of the rules.
//!
//! The format is specified in `spec/SCENARIOS.md`, with JSON Schemas
//! generated from these types in `spec/scenario.schema.json` (one scenario
//! file), `spec/perft.schema.json` (`conformance/perft.yaml`) and
//! `spec/suite.schema.json` (the whole suite as `kpe suite --json` prints
//! it).
//!
//! Scenarios run against a [`Subject`]: anything that can check a position,
//! list legal moves and play a move. [`Reference`] is the subject backed by
//! this crate's own rules; other engines implement the same trait.
//!
//! ```
//! use kpe::scenario::{Reference, Subject, parse_file};
//!
//! let file = parse_file("example.yaml", r#"
//! topic: sowing
//! scenarios:
//!   - id: first-move-s4
//!     rules: [SOW-2, SOW-3]
//!     moves: [S4]
//!     expect:
//!       - ply: 1
//!         position: 7,7,6,0/7,7,7,7 N 0/0 ---4/----
//!         landing: S2
//! "#)?;
//! let scenario = &file.scenarios[0];
//! for profile in scenario.profiles() {
//!     Reference::new().verify("example.yaml", scenario, profile)?;
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod load;
mod subject;
mod trace;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::board::Pit;
use crate::game::Outcome;
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::report::{Capture, Event};
use crate::rules::Reason;

pub use load::{
    ErrorKind, POSITION_CODES, ScenarioError, ScenarioErrors, is_slug, load_file, parse_file,
    parse_perft_file, parse_rule_ids, reason_codes, rule_ids, scenario_problems,
};
pub(crate) use load::{LimitedRead, file_type_name, line_column, read_limited};
pub use load::{
    MAX_PERFT_TABLE_DEPTH, MAX_PERFT_TABLE_NODES, MAX_SUITE_FILE, MAX_YAML_DEPTH, MAX_YAML_INDENT,
    PERFT_RECOUNT_BUDGET, recount_perft,
};
pub use subject::{
    Failure, Line, MoveResult, Played, Reference, Standing, Subject, SubjectError, Verdict,
    Verified,
};
pub use trace::trace;

// ---------------------------------------------------------------------------
// The data of a scenario file
// ---------------------------------------------------------------------------

/// One scenario file: a topic and its scenarios.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// The format's version, [`FILE_VERSION`]; a file without one is of
    /// version 1 (the files written before the key existed).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "known_file_version"
    )]
    #[schemars(range(min = 1, max = 1))]
    pub version: Option<u32>,
    /// What the file is about, e.g. "sowing".
    pub topic: String,
    /// The scenarios, in any order; ids are unique across all files.
    pub scenarios: Vec<Scenario>,
}

/// One scenario: a start, some moves, and what must hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Permanent id: a lowercase slug (`[a-z0-9]+(-[a-z0-9]+)*`), unique
    /// across the suite, never renumbered or reused.
    #[schemars(regex(pattern = r"^[a-z0-9]+(-[a-z0-9]+)*$"))]
    pub id: String,
    /// The rule IDs of spec/RULES.md this scenario exercises.
    #[schemars(length(min = 1), inner(regex(pattern = r"^[A-Z]+-[0-9]+$")))]
    pub rules: Vec<String>,
    /// What the scenario shows, for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The readings it is pinned to: switch name to on/off. Absent switches
    /// are free, so an empty map means the scenario holds under every
    /// profile.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(schema_with = "when_schema")]
    pub when: BTreeMap<SwitchName, bool>,
    /// The start position in kpe notation; absent means the initial position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// When set, `start` must be refused with this position error code
    /// (e.g. `wrong-total`), and the scenario has no moves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "position_code_schema")]
    pub invalid_start: Option<String>,
    /// The moves to play, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<Pit>,
    /// What must hold before the first move (ply 0) and after given moves.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<Expect>,
    /// When set, the move at this ply is refused, and it is the last move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reject: Option<Rejection>,
    /// How the game stands after all the moves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Outcome>,
}

/// The schema of `when`: an object whose keys are the switch names.
fn when_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut properties = serde_json::Map::new();
    for switch in Switch::ALL {
        properties.insert(
            switch.name().to_owned(),
            serde_json::json!({
                "type": "boolean",
                "description": format!(
                    "Reading {}: true pins the alternative `{}`, false pins the default.",
                    switch.reading(),
                    switch.name()
                ),
            }),
        );
    }
    schemars::json_schema!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
        "description": "The readings the scenario is pinned to: switch name to on (alternative) or off (default). Switches not named are free: the scenario holds under every profile whose switches agree with this map."
    })
}

/// The schema of `invalid_start`: one of the position error codes.
fn position_code_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "enum": POSITION_CODES,
        "description": "The start must be refused with this position error code; the scenario then has no moves, expect, reject or result."
    })
}

/// A switch name as a map key in `when`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SwitchName(pub Switch);

impl Serialize for SwitchName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.name())
    }
}

impl<'de> Deserialize<'de> for SwitchName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<SwitchName, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        s.parse().map(SwitchName).map_err(serde::de::Error::custom)
    }
}

/// What must hold at one ply: 0 is the start position, `n` is just after
/// the n-th move. Every field is optional; a field that is present must
/// match exactly.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// 0 for the start position, n for the position after move n.
    pub ply: usize,
    /// The position, in kpe notation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Position>")]
    pub position: Option<String>,
    /// The legal moves in that position, in pit order (empty when the game
    /// is over).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal: Option<Vec<Pit>>,
    /// Move n only: the pits sown into, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sown: Option<Vec<Pit>>,
    /// Move n only: the landing pit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landing: Option<Pit>,
    /// Move n only: the captured pits, landing pit first (empty for none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captures: Option<Vec<Capture>>,
    /// Move n only: exactly the events of the move, in any order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<Event>>,
}

/// A move the rules must refuse.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rejection {
    /// The 1-based ply of the refused move (the last in `moves`).
    pub ply: usize,
    /// The reason code: `not-own-pit`, `empty-pit`, `feeding-required` or
    /// `game-over`.
    #[schemars(with = "Reason")]
    pub reason: String,
}

impl Scenario {
    /// The profiles this scenario holds for: every profile whose switches
    /// agree with `when`.
    pub fn profiles(&self) -> impl Iterator<Item = Profile> + '_ {
        Profile::all().filter(|p| self.when.iter().all(|(s, &on)| p.has(s.0) == on))
    }

    /// The start position's notation: `start`, or the initial position.
    #[must_use]
    pub fn start_text(&self) -> String {
        self.start
            .clone()
            .unwrap_or_else(|| Position::initial().to_string())
    }

    /// The ply of the last position the moves reach: the number of moves,
    /// less the refused one if the scenario ends with a rejection.
    #[must_use]
    pub fn last_ply(&self) -> usize {
        self.moves.len() - usize::from(self.reject.is_some() && !self.moves.is_empty())
    }
}

// ---------------------------------------------------------------------------
// Perft tables
/// The version of the scenario file and perft file formats
/// (spec/SCENARIOS.md): their optional top-level `version` key. A file
/// without the key is read as version 1, the format as it was before the
/// key existed. Distinct from [`SUITE_VERSION`], the version of the
/// suite's content.
pub const FILE_VERSION: u32 = 1;

/// A `version` key's value: only [`FILE_VERSION`] is known.
fn known_file_version<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    let version = u32::deserialize(d)?;
    if version != FILE_VERSION {
        return Err(serde::de::Error::custom(format!(
            "unknown file version {version}: this kpe reads version {FILE_VERSION} (or a file without `version`)"
        )));
    }
    Ok(Some(version))
}

/// How far a suite file indents the entries of its list (`scenarios:` in a
/// scenario file, `tables:` in `perft.yaml`), as `conformance/` does.
pub const ENTRY_INDENT: &str = "  ";

/// YAML of a list (`- id: ...` at the margin, as serde writes it) indented by
/// [`ENTRY_INDENT`]: entries that, appended to a suite file whose list is
/// last, extend that list.
#[must_use]
pub fn as_entries(list_yaml: &str) -> String {
    list_yaml
        .lines()
        .map(|line| {
            if line.is_empty() {
                "\n".to_owned()
            } else {
                format!("{ENTRY_INDENT}{line}\n")
            }
        })
        .collect()
}

/// Scenarios as entries of a scenario file's `scenarios:` list, indented
/// as the suite's files are ([`as_entries`]).
#[must_use]
pub fn scenario_entries(scenarios: &[&Scenario]) -> String {
    as_entries(&serde_yaml::to_string(scenarios).expect("a scenario serialises to YAML"))
}

// ---------------------------------------------------------------------------

/// `conformance/perft.yaml`: move-tree counts that fingerprint a move
/// generator under each rules profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PerftFile {
    /// The format's version, [`FILE_VERSION`]; a file without one is of
    /// version 1.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "known_file_version"
    )]
    #[schemars(range(min = 1, max = 1))]
    pub version: Option<u32>,
    /// What the tables are and how they were made, for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The tables.
    pub tables: Vec<PerftTable>,
}

/// The perft counts of one start position under one profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PerftTable {
    /// Permanent id: a lowercase slug, unique among the tables.
    #[schemars(regex(pattern = r"^[a-z0-9]+(-[a-z0-9]+)*$"))]
    pub id: String,
    /// Why this table is here, for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The root position in kpe notation; absent means the initial position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Position>")]
    pub start: Option<String>,
    /// The rules profile, e.g. `default` or `skip-origin,strict-lock`.
    pub rules: Profile,
    /// `nodes[d - 1]` is the number of move sequences of exactly `d` moves
    /// from the root (a finished game has no continuations).
    pub nodes: Vec<u64>,
    /// The count at one depth split by first move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divide: Option<Divide>,
}

/// A perft count split by first move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Divide {
    /// The depth split (counting the first move), between 1 and the depth
    /// of `nodes`.
    pub depth: u32,
    /// Each legal first move with the number of sequences of `depth` moves
    /// that start with it; they add up to `nodes[depth - 1]`.
    pub moves: BTreeMap<Pit, u64>,
}

impl PerftTable {
    /// The root position's notation: `start`, or the initial position.
    #[must_use]
    pub fn start_text(&self) -> String {
        self.start
            .clone()
            .unwrap_or_else(|| Position::initial().to_string())
    }
}

// ---------------------------------------------------------------------------
// The whole suite
// ---------------------------------------------------------------------------

/// The whole conformance suite: every scenario file and the perft tables,
/// as `kpe suite --json` prints it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// The suite format's version ([`SUITE_VERSION`]), as `kpe suite
    /// --json` exports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// The content digest ([`Suite::digest`]), as `kpe suite --json`
    /// exports it; kpe-check reports carry the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The scenario files, in file-name order.
    pub files: Vec<SuiteFile>,
    /// The perft tables of `perft.yaml`, if the suite has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perft: Option<PerftFile>,
}

/// The JSON Schemas of a scenario file, of `perft.yaml` and of the suite
/// export, as committed in `spec/scenario.schema.json`,
/// `spec/perft.schema.json` and `spec/suite.schema.json`, each with its
/// `$id` (given here, not on the types, since the suite's schema holds the
/// others and a nested `$id` would move the base of their references).
#[must_use]
pub fn schemas() -> [(&'static str, schemars::Schema); 3] {
    let with_id = |mut schema: schemars::Schema, name: &str| {
        schema.insert(
            "$id".to_owned(),
            format!("urn:kpe:schema:{name}:{SUITE_VERSION}").into(),
        );
        schema
    };
    [
        (
            "scenario",
            with_id(schemars::schema_for!(ScenarioFile), "scenario-file"),
        ),
        (
            "perft",
            with_id(schemars::schema_for!(PerftFile), "perft-file"),
        ),
        ("suite", with_id(schemars::schema_for!(Suite), "suite")),
    ]
}

/// The version of the conformance suite's content: raised whenever a
/// scenario or perft table changes meaning. Reports state it with the
/// suite's [`Suite::digest`].
pub const SUITE_VERSION: u32 = 2;

/// One scenario file of the suite, with its file name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuiteFile {
    /// The file name, e.g. `sowing.yaml`.
    pub file: String,
    /// What the file is about.
    pub topic: String,
    /// Its scenarios, in file order.
    pub scenarios: Vec<Scenario>,
}

/// The name of the perft file in a suite directory; every other `*.yaml`
/// file there is a scenario file.
pub const PERFT_FILE: &str = "perft.yaml";

impl Suite {
    /// `sha256:` and the hex SHA-256 of the suite's scenarios and perft
    /// tables as compact JSON (without the version and digest fields), so
    /// that two runs can tell whether they ran the same suite.
    #[must_use]
    pub fn digest(&self) -> String {
        use sha2::Digest as _;
        let content = serde_json::json!({"files": self.files, "perft": self.perft});
        let bytes = serde_json::to_vec(&content).expect("a suite serialises");
        let hash = sha2::Sha256::digest(&bytes);
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    }

    /// The suite with its version and digest filled in, for export.
    #[must_use]
    pub fn stamped(mut self) -> Suite {
        self.version = Some(SUITE_VERSION);
        self.digest = Some(self.digest());
        self
    }

    /// Every scenario of the suite with the name of its file.
    pub fn scenarios(&self) -> impl Iterator<Item = (&str, &Scenario)> {
        self.files
            .iter()
            .flat_map(|f| f.scenarios.iter().map(move |s| (f.file.as_str(), s)))
    }
}

#[cfg(test)]
mod version_tests {
    use super::*;

    const ONE: &str = "scenarios:\n  - id: a\n    rules: [SOW-2]\n    moves: [S4]\n    expect:\n      - ply: 1\n        landing: S2\n";

    #[test]
    fn a_scenario_file_without_a_version_is_of_version_1_and_another_is_refused() {
        let plain = parse_file("a.yaml", &format!("topic: t\n{ONE}")).unwrap();
        assert_eq!(plain.version, None);
        let one = parse_file("a.yaml", &format!("version: 1\ntopic: t\n{ONE}")).unwrap();
        assert_eq!(one.version, Some(FILE_VERSION));
        assert_eq!(one.scenarios, plain.scenarios);
        let err = parse_file("a.yaml", &format!("version: 2\ntopic: t\n{ONE}"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("a.yaml:1:") && err.contains("unknown file version 2"),
            "{err}"
        );
    }

    #[test]
    fn a_perft_file_takes_the_same_version_key() {
        let tables = "tables:\n  - id: t\n    rules: default\n    nodes: [4]\n";
        let plain = parse_perft_file("p.yaml", tables).unwrap();
        assert_eq!(plain.version, None);
        let one = parse_perft_file("p.yaml", &format!("version: 1\n{tables}")).unwrap();
        assert_eq!(one.tables, plain.tables);
        let err = parse_perft_file("p.yaml", &format!("version: 7\n{tables}"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown file version 7"), "{err}");
    }

    #[test]
    fn the_built_in_suite_and_its_digest_do_not_depend_on_the_key() {
        // The suite's files carry no `version`: the digest every
        // certificate states is what it was before the key existed.
        let suite = Suite::bundled().unwrap();
        assert!(suite.perft.as_ref().is_some_and(|p| p.version.is_none()));
        let text = serde_json::to_string(&suite).unwrap();
        assert!(!text.contains("\"version\""), "{text:.200}");
    }
}
