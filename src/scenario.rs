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

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::board::Pit;
use crate::game::{Game, Outcome};
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::report::{Capture, End, Event};
use crate::rules::Reason;

// ---------------------------------------------------------------------------
// The data of a scenario file
// ---------------------------------------------------------------------------

/// One scenario file: a topic and its scenarios.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
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
    /// are free, so an empty map means the scenario holds under all 32
    /// profiles.
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

/// The schema of `when`: an object whose keys are the five switch names.
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
// ---------------------------------------------------------------------------

/// `conformance/perft.yaml`: move-tree counts that fingerprint a move
/// generator under each rules profile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PerftFile {
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
    /// The scenario files, in file-name order.
    pub files: Vec<SuiteFile>,
    /// The perft tables of `perft.yaml`, if the suite has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perft: Option<PerftFile>,
}

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
    /// Loads and checks every `*.yaml` file of `dir`: `perft.yaml` as the
    /// perft tables, the others as scenario files. Scenario ids must be
    /// unique across all files.
    ///
    /// # Errors
    ///
    /// Returns every problem found, in every file (unreadable or malformed
    /// files with line and column, and scenarios that fail the checks of
    /// [`parse_file`]), not only the first.
    pub fn load(dir: &Path) -> Result<Suite, ScenarioErrors> {
        let entries = std::fs::read_dir(dir).map_err(|e| {
            ScenarioErrors(vec![ScenarioError::new(
                dir.display().to_string(),
                ErrorKind::Read {
                    message: e.to_string(),
                },
            )])
        })?;
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml"))
            .collect();
        names.sort();
        let mut errors = Vec::new();
        let mut suite = Suite {
            files: Vec::new(),
            perft: None,
        };
        let mut seen: HashMap<String, String> = HashMap::new();
        for name in names {
            let path = dir.join(&name);
            let shown = path.display().to_string();
            let text = match std::fs::read_to_string(&path) {
                Ok(text) => text,
                Err(e) => {
                    errors.push(ScenarioError::new(
                        shown,
                        ErrorKind::Read {
                            message: e.to_string(),
                        },
                    ));
                    continue;
                }
            };
            if name == PERFT_FILE {
                match parse_perft_file(&shown, &text) {
                    Ok(perft) => suite.perft = Some(perft),
                    Err(e) => errors.extend(e.0),
                }
                continue;
            }
            match parse_file(&shown, &text) {
                Ok(file) => {
                    let mut occurrence: HashMap<&str, usize> = HashMap::new();
                    for scenario in &file.scenarios {
                        let n = occurrence.entry(&scenario.id).or_default();
                        let line = id_line(&text, &scenario.id, *n);
                        *n += 1;
                        let here = match line {
                            Some((l, _)) => format!("{shown}:{l}"),
                            None => shown.clone(),
                        };
                        if let Some(first) = seen.get(&scenario.id) {
                            errors.push(
                                ScenarioError::new(
                                    shown.clone(),
                                    ErrorKind::DuplicateId {
                                        first: first.clone(),
                                    },
                                )
                                .at(line)
                                .scenario(&scenario.id),
                            );
                        } else {
                            seen.insert(scenario.id.clone(), here);
                        }
                    }
                    suite.files.push(SuiteFile {
                        file: name,
                        topic: file.topic,
                        scenarios: file.scenarios,
                    });
                }
                Err(e) => errors.extend(e.0),
            }
        }
        if suite.files.is_empty() && errors.is_empty() {
            errors.push(ScenarioError::new(
                dir.display().to_string(),
                ErrorKind::NoFiles,
            ));
        }
        if errors.is_empty() {
            Ok(suite)
        } else {
            Err(ScenarioErrors(errors))
        }
    }

    /// Every scenario of the suite with the name of its file.
    pub fn scenarios(&self) -> impl Iterator<Item = (&str, &Scenario)> {
        self.files
            .iter()
            .flat_map(|f| f.scenarios.iter().map(move |s| (f.file.as_str(), s)))
    }
}

// ---------------------------------------------------------------------------
// Rule IDs
// ---------------------------------------------------------------------------

/// `spec/RULES.md`, built into the library so that it checks scenarios
/// against the rule IDs of the spec it was built with.
const RULES_MD: &str = include_str!("../spec/RULES.md");

/// The rule IDs of `spec/RULES.md` (as built into the library), in the
/// order the spec lists them.
#[must_use]
pub fn rule_ids() -> Vec<String> {
    parse_rule_ids(RULES_MD)
}

/// The rule IDs a rules text defines: every bullet that starts
/// `- **ID**`, where ID is upper-case letters, `-`, digits (`SOW-4`).
#[must_use]
pub fn parse_rule_ids(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("- **")?;
            let (id, _) = rest.split_once("**")?;
            let (group, number) = id.split_once('-')?;
            let valid = !group.is_empty()
                && group.bytes().all(|b| b.is_ascii_uppercase())
                && !number.is_empty()
                && number.bytes().all(|b| b.is_ascii_digit());
            valid.then(|| id.to_owned())
        })
        .collect()
}

/// The reason codes a rejection may name.
#[must_use]
pub fn reason_codes() -> Vec<&'static str> {
    Reason::ALL.iter().map(|r| r.code()).collect()
}

/// The position error codes an `invalid_start` may name (see
/// [`crate::PositionError::code`]).
pub const POSITION_CODES: [&str; 9] = [
    "syntax",
    "pit-count",
    "pit-out-of-range",
    "captured-out-of-range",
    "wrong-total",
    "odd-captured",
    "captured-while-locked",
    "unused-pit-too-low",
    "side-to-move",
];

// ---------------------------------------------------------------------------
// Errors in scenario files
// ---------------------------------------------------------------------------

/// A problem with a scenario file: where it is and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file, as it was named to the loader.
    pub file: String,
    /// 1-based line and column, when known: exact for malformed YAML, the
    /// line of the scenario's `id` for a scenario that fails a check.
    pub location: Option<(usize, usize)>,
    /// The scenario (or perft table) the problem is in, if it is in one.
    pub scenario: Option<String>,
    /// What is wrong.
    pub kind: ErrorKind,
}

/// What is wrong with a scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file or directory could not be read.
    Read {
        /// The system's message.
        message: String,
    },
    /// The suite directory holds no scenario files.
    NoFiles,
    /// The YAML is malformed or does not fit the format: a syntax error,
    /// an unknown field, a missing field, a value of the wrong type, a bad
    /// pit name or switch name.
    Yaml {
        /// The parser's message, with the path of the field when known.
        message: String,
    },
    /// The file has an empty topic or no scenarios (or tables).
    Empty {
        /// What is empty.
        what: &'static str,
    },
    /// The id is not a lowercase slug.
    BadId,
    /// The id is already used by another scenario.
    DuplicateId {
        /// Where the first scenario with this id is (`file:line`).
        first: String,
    },
    /// The scenario cites no rule IDs.
    NoRules,
    /// A cited ID is not a rule ID of spec/RULES.md.
    UnknownRule {
        /// The ID as cited.
        id: String,
    },
    /// A reading (`I1`..`I5`) is cited as a rule.
    ReadingCited {
        /// The reading as cited.
        id: String,
        /// The rule the reading belongs to.
        rule: &'static str,
        /// The switch that selects its alternative.
        switch: &'static str,
    },
    /// The same rule ID is cited twice.
    DuplicateRule {
        /// The ID.
        id: String,
    },
    /// `start` is not a valid position, and `invalid_start` is not set.
    BadStart {
        /// The position error code.
        code: &'static str,
        /// The position error, with the column for a syntax error.
        message: String,
    },
    /// `invalid_start` names a code that is not a position error code.
    UnknownPositionCode {
        /// The code as given.
        code: String,
    },
    /// `invalid_start` is set without a `start` to refuse.
    InvalidStartWithoutStart,
    /// `invalid_start` is set together with something that needs a valid
    /// start.
    InvalidStartWith {
        /// The field that must not be there.
        field: &'static str,
    },
    /// `reject` is set but there are no moves.
    RejectWithoutMoves,
    /// `reject.ply` is not the last move.
    RejectNotLast {
        /// The ply given.
        ply: usize,
        /// The number of moves.
        moves: usize,
    },
    /// `reject.reason` is not a reason code.
    UnknownReason {
        /// The code as given.
        code: String,
    },
    /// An expectation names a ply after the last position the moves reach.
    PlyOutOfRange {
        /// The ply given.
        ply: usize,
        /// The last ply with a position.
        last: usize,
    },
    /// A field that describes a move is expected at ply 0.
    MoveFieldAtStart {
        /// The field.
        field: &'static str,
    },
    /// An expectation has nothing but its ply.
    EmptyExpect {
        /// Its ply.
        ply: usize,
    },
    /// `legal` is not in pit order or repeats a pit.
    LegalOrder {
        /// The ply of the expectation.
        ply: usize,
    },
    /// `events` repeats an event.
    DuplicateEvent {
        /// The ply of the expectation.
        ply: usize,
    },
    /// The scenario checks nothing: no `expect`, `reject`, `result` or
    /// `invalid_start`.
    NothingChecked,
    /// A perft table's `nodes` is empty.
    NoNodes,
    /// A perft table's `divide.depth` is outside `1..=nodes.len()`.
    DivideDepth {
        /// The depth given.
        depth: u32,
        /// The depth of `nodes`.
        max: usize,
    },
    /// A perft table's divide counts do not add up to its node count.
    DivideSum {
        /// The depth of the divide.
        depth: u32,
        /// The sum of the divide counts.
        sum: u64,
        /// `nodes` at that depth.
        nodes: u64,
    },
}

impl ScenarioError {
    fn new(file: String, kind: ErrorKind) -> ScenarioError {
        ScenarioError {
            file,
            location: None,
            scenario: None,
            kind,
        }
    }

    fn at(mut self, location: Option<(usize, usize)>) -> ScenarioError {
        self.location = location;
        self
    }

    fn scenario(mut self, id: &str) -> ScenarioError {
        self.scenario = Some(id.to_owned());
        self
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some((line, column)) = self.location {
            write!(f, ":{line}:{column}")?;
        }
        f.write_str(": ")?;
        if let Some(id) = &self.scenario {
            write!(f, "scenario `{id}`: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Read { message } => write!(f, "cannot read: {message}"),
            ErrorKind::NoFiles => f.write_str("no scenario files (*.yaml) here"),
            ErrorKind::Yaml { message } => f.write_str(message),
            ErrorKind::Empty { what } => write!(f, "{what} is empty"),
            ErrorKind::BadId => f.write_str(
                "the id must be a lowercase slug: letters a-z and digits in words joined by single `-`",
            ),
            ErrorKind::DuplicateId { first } => {
                write!(f, "id already used at {first}: ids are unique across the suite")
            }
            ErrorKind::NoRules => f.write_str(
                "`rules` is empty: cite the rule IDs of spec/RULES.md the scenario exercises",
            ),
            ErrorKind::UnknownRule { id } => write!(
                f,
                "`{}` is not a rule ID of spec/RULES.md",
                id.escape_debug()
            ),
            ErrorKind::ReadingCited { id, rule, switch } => write!(
                f,
                "`{id}` is a reading, not a rule ID: cite {rule}, and pin the reading with `when: {{{switch}: false}}` (default) or `when: {{{switch}: true}}` (alternative)"
            ),
            ErrorKind::DuplicateRule { id } => write!(f, "`{id}` is cited twice"),
            ErrorKind::BadStart { code, message } => write!(
                f,
                "`start` is not a valid position ({code}: {message}); if the scenario is about the refusal, set `invalid_start: {code}`"
            ),
            ErrorKind::UnknownPositionCode { code } => write!(
                f,
                "`invalid_start: {}` is not a position error code: expected one of {}",
                code.escape_debug(),
                POSITION_CODES.join(", ")
            ),
            ErrorKind::InvalidStartWithoutStart => {
                f.write_str("`invalid_start` needs a `start` position to refuse")
            }
            ErrorKind::InvalidStartWith { field } => write!(
                f,
                "`invalid_start` scenarios only check the refusal, so `{field}` must not be given"
            ),
            ErrorKind::RejectWithoutMoves => {
                f.write_str("`reject` is set but there are no moves to refuse")
            }
            ErrorKind::RejectNotLast { ply, moves } => write!(
                f,
                "`reject.ply` is {ply} but there are {moves} moves: the refused move must be the last"
            ),
            ErrorKind::UnknownReason { code } => write!(
                f,
                "`{}` is not a reason code: expected one of {}",
                code.escape_debug(),
                reason_codes().join(", ")
            ),
            ErrorKind::PlyOutOfRange { ply, last } => write!(
                f,
                "an expectation names ply {ply}, but the last position the moves reach is ply {last}"
            ),
            ErrorKind::MoveFieldAtStart { field } => write!(
                f,
                "`{field}` describes a move, so it needs a ply of 1 or more (ply 0 is the start position)"
            ),
            ErrorKind::EmptyExpect { ply } => {
                write!(f, "the expectation at ply {ply} checks nothing")
            }
            ErrorKind::LegalOrder { ply } => write!(
                f,
                "`legal` at ply {ply} must list pits in pit order (S1..S4, N1..N4) without repeats"
            ),
            ErrorKind::DuplicateEvent { ply } => {
                write!(f, "`events` at ply {ply} lists an event twice")
            }
            ErrorKind::NothingChecked => f.write_str(
                "the scenario checks nothing: give `expect`, `reject`, `result` or `invalid_start`",
            ),
            ErrorKind::NoNodes => f.write_str("`nodes` is empty"),
            ErrorKind::DivideDepth { depth, max } => write!(
                f,
                "`divide.depth` is {depth}, but `nodes` goes from depth 1 to {max}"
            ),
            ErrorKind::DivideSum { depth, sum, nodes } => write!(
                f,
                "the divide counts add up to {sum}, but `nodes` at depth {depth} is {nodes}"
            ),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Every problem found in a suite or a file, one per line when displayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioErrors(pub Vec<ScenarioError>);

impl fmt::Display for ScenarioErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioErrors {}

// ---------------------------------------------------------------------------
// Parsing and checking files
// ---------------------------------------------------------------------------

/// Reads a scenario file and checks each scenario. `name` is used in
/// messages.
///
/// Checks: unknown fields and malformed YAML (with line and column); ids are
/// lowercase slugs, unique in the file; every cited rule ID is one of
/// spec/RULES.md; `start` is a valid position unless `invalid_start` names
/// the expected refusal; `reject` is on the last move; expectations name
/// plies the moves reach; and the scenario checks something. Uniqueness of
/// ids across files is checked by [`Suite::load`].
///
/// # Errors
///
/// Returns every problem found in the file.
pub fn parse_file(name: &str, text: &str) -> Result<ScenarioFile, ScenarioErrors> {
    let file: ScenarioFile = from_yaml(name, text)?;
    let known = rule_ids();
    let mut errors = Vec::new();
    if file.topic.trim().is_empty() {
        errors.push(ScenarioError::new(
            name.to_owned(),
            ErrorKind::Empty { what: "`topic`" },
        ));
    }
    if file.scenarios.is_empty() {
        errors.push(ScenarioError::new(
            name.to_owned(),
            ErrorKind::Empty {
                what: "`scenarios`",
            },
        ));
    }
    let mut first: HashMap<&str, Option<(usize, usize)>> = HashMap::new();
    let mut occurrence: HashMap<&str, usize> = HashMap::new();
    for scenario in &file.scenarios {
        let n = occurrence.entry(&scenario.id).or_default();
        let location = id_line(text, &scenario.id, *n);
        *n += 1;
        for kind in check_scenario(scenario, &known) {
            errors.push(
                ScenarioError::new(name.to_owned(), kind)
                    .at(location)
                    .scenario(&scenario.id),
            );
        }
        if let Some(earlier) = first.get(scenario.id.as_str()) {
            let first = match earlier {
                Some((line, _)) => format!("{name}:{line}"),
                None => name.to_owned(),
            };
            errors.push(
                ScenarioError::new(name.to_owned(), ErrorKind::DuplicateId { first })
                    .at(location)
                    .scenario(&scenario.id),
            );
        } else {
            first.insert(&scenario.id, location);
        }
    }
    if errors.is_empty() {
        Ok(file)
    } else {
        Err(ScenarioErrors(errors))
    }
}

/// Reads and checks a scenario file from disk.
///
/// # Errors
///
/// Returns a read error, or every problem [`parse_file`] finds.
pub fn load_file(path: &Path) -> Result<ScenarioFile, ScenarioErrors> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        ScenarioErrors(vec![ScenarioError::new(
            name.clone(),
            ErrorKind::Read {
                message: e.to_string(),
            },
        )])
    })?;
    parse_file(&name, &text)
}

/// Reads `perft.yaml` and checks each table: ids are unique slugs, `start`
/// is a valid position, `nodes` is not empty, and a divide is at a depth
/// of the table and adds up to its count.
///
/// # Errors
///
/// Returns every problem found in the file.
pub fn parse_perft_file(name: &str, text: &str) -> Result<PerftFile, ScenarioErrors> {
    let file: PerftFile = from_yaml(name, text)?;
    let mut errors = Vec::new();
    if file.tables.is_empty() {
        errors.push(ScenarioError::new(
            name.to_owned(),
            ErrorKind::Empty { what: "`tables`" },
        ));
    }
    let mut first: HashMap<&str, String> = HashMap::new();
    let mut occurrence: HashMap<&str, usize> = HashMap::new();
    for table in &file.tables {
        let n = occurrence.entry(&table.id).or_default();
        let location = id_line(text, &table.id, *n);
        *n += 1;
        let mut kinds = Vec::new();
        if !is_slug(&table.id) {
            kinds.push(ErrorKind::BadId);
        }
        if let Some(first) = first.get(table.id.as_str()) {
            kinds.push(ErrorKind::DuplicateId {
                first: first.clone(),
            });
        } else {
            let here = match location {
                Some((line, _)) => format!("{name}:{line}"),
                None => name.to_owned(),
            };
            first.insert(&table.id, here);
        }
        if let Some(start) = &table.start
            && let Err(e) = start.parse::<Position>()
        {
            kinds.push(ErrorKind::BadStart {
                code: e.code(),
                message: e.to_string(),
            });
        }
        if table.nodes.is_empty() {
            kinds.push(ErrorKind::NoNodes);
        }
        if let Some(divide) = &table.divide {
            let depth = divide.depth as usize;
            if depth == 0 || depth > table.nodes.len() {
                kinds.push(ErrorKind::DivideDepth {
                    depth: divide.depth,
                    max: table.nodes.len(),
                });
            } else {
                let sum = divide.moves.values().sum();
                let nodes = table.nodes[depth - 1];
                if sum != nodes {
                    kinds.push(ErrorKind::DivideSum {
                        depth: divide.depth,
                        sum,
                        nodes,
                    });
                }
            }
        }
        for kind in kinds {
            errors.push(
                ScenarioError::new(name.to_owned(), kind)
                    .at(location)
                    .scenario(&table.id),
            );
        }
    }
    if errors.is_empty() {
        Ok(file)
    } else {
        Err(ScenarioErrors(errors))
    }
}

/// Deserialises YAML, turning a parse error into a located [`ScenarioError`].
fn from_yaml<T: serde::de::DeserializeOwned>(name: &str, text: &str) -> Result<T, ScenarioErrors> {
    serde_yaml::from_str(text).map_err(|e| {
        let location = e.location().map(|l| (l.line(), l.column()));
        let mut message = e.to_string();
        // The location goes in front, as `file:line:column`; drop the copy
        // the parser appends.
        if let Some((line, column)) = location
            && let Some(stripped) =
                message.strip_suffix(&format!(" at line {line} column {column}"))
        {
            message = stripped.to_owned();
        }
        ScenarioErrors(vec![
            ScenarioError::new(name.to_owned(), ErrorKind::Yaml { message }).at(location),
        ])
    })
}

/// Whether `id` is a lowercase slug: `[a-z0-9]+(-[a-z0-9]+)*`.
#[must_use]
pub fn is_slug(id: &str) -> bool {
    !id.is_empty()
        && id.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// The line and column of the `n`-th (0-based) `id: <id>` entry in `text`.
fn id_line(text: &str, id: &str, n: usize) -> Option<(usize, usize)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let trimmed = line.trim_start();
            let key = trimmed.trim_start_matches('-').trim_start();
            let value = key.strip_prefix("id:")?;
            let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
            (value == id).then(|| (i + 1, line.len() - key.len() + 1))
        })
        .nth(n)
}

/// The readings and the rule each one belongs to.
const READINGS: [(&str, &str, Switch); 5] = [
    ("I1", "SOW-4", Switch::SkipOrigin),
    ("I2", "LOCK-3", Switch::StrictLock),
    ("I3", "FEED-2", Switch::FeedAfterCapture),
    ("I4", "FEED-3", Switch::EndWhenUnfeedable),
    ("I5", "END-3", Switch::EndOnRepetition),
];

/// The checks of one scenario on its own (not its id's uniqueness).
fn check_scenario(s: &Scenario, known: &[String]) -> Vec<ErrorKind> {
    let mut errors = Vec::new();
    if !is_slug(&s.id) {
        errors.push(ErrorKind::BadId);
    }
    if s.rules.is_empty() {
        errors.push(ErrorKind::NoRules);
    }
    for (i, id) in s.rules.iter().enumerate() {
        if s.rules[..i].contains(id) {
            errors.push(ErrorKind::DuplicateRule { id: id.clone() });
        } else if let Some(&(_, rule, switch)) = READINGS.iter().find(|(r, ..)| r == id) {
            errors.push(ErrorKind::ReadingCited {
                id: id.clone(),
                rule,
                switch: switch.name(),
            });
        } else if !known.contains(id) {
            errors.push(ErrorKind::UnknownRule { id: id.clone() });
        }
    }
    if let Some(code) = &s.invalid_start {
        if !POSITION_CODES.contains(&code.as_str()) {
            errors.push(ErrorKind::UnknownPositionCode { code: code.clone() });
        }
        if s.start.is_none() {
            errors.push(ErrorKind::InvalidStartWithoutStart);
        }
        for (field, present) in [
            ("moves", !s.moves.is_empty()),
            ("expect", !s.expect.is_empty()),
            ("reject", s.reject.is_some()),
            ("result", s.result.is_some()),
        ] {
            if present {
                errors.push(ErrorKind::InvalidStartWith { field });
            }
        }
        return errors;
    }
    if let Some(start) = &s.start
        && let Err(e) = start.parse::<Position>()
    {
        errors.push(ErrorKind::BadStart {
            code: e.code(),
            message: e.to_string(),
        });
    }
    if let Some(reject) = &s.reject {
        if s.moves.is_empty() {
            errors.push(ErrorKind::RejectWithoutMoves);
        } else if reject.ply != s.moves.len() {
            errors.push(ErrorKind::RejectNotLast {
                ply: reject.ply,
                moves: s.moves.len(),
            });
        }
        if !reason_codes().contains(&reject.reason.as_str()) {
            errors.push(ErrorKind::UnknownReason {
                code: reject.reason.clone(),
            });
        }
    }
    let last = s.last_ply();
    for e in &s.expect {
        if e.ply > last {
            errors.push(ErrorKind::PlyOutOfRange { ply: e.ply, last });
        }
        if e.ply == 0 {
            for (field, present) in [
                ("sown", e.sown.is_some()),
                ("landing", e.landing.is_some()),
                ("captures", e.captures.is_some()),
                ("events", e.events.is_some()),
            ] {
                if present {
                    errors.push(ErrorKind::MoveFieldAtStart { field });
                }
            }
        }
        if *e
            == (Expect {
                ply: e.ply,
                ..Expect::default()
            })
        {
            errors.push(ErrorKind::EmptyExpect { ply: e.ply });
        }
        if let Some(legal) = &e.legal
            && !legal.windows(2).all(|w| w[0] < w[1])
        {
            errors.push(ErrorKind::LegalOrder { ply: e.ply });
        }
        if let Some(events) = &e.events {
            let mut sorted = events.clone();
            sorted.sort();
            sorted.dedup();
            if sorted.len() != events.len() {
                errors.push(ErrorKind::DuplicateEvent { ply: e.ply });
            }
        }
    }
    if s.expect.is_empty() && s.reject.is_none() && s.result.is_none() {
        errors.push(ErrorKind::NothingChecked);
    }
    errors
}

// ---------------------------------------------------------------------------
// Running scenarios against a subject
// ---------------------------------------------------------------------------

/// A game line: a start position, a rules profile and the moves played from
/// it so far. Everything a subject needs to know where a game stands,
/// including its history (for `end-on-repetition`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// The start position, in kpe notation.
    pub start: &'a str,
    /// The rules profile.
    pub profile: Profile,
    /// The moves played from `start`, all accepted.
    pub moves: &'a [Pit],
}

/// What a subject says about a position text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "verdict", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Verdict {
    /// The text is a valid position; `position` is its canonical notation.
    Valid {
        /// The position as the subject prints it.
        position: String,
    },
    /// The text is refused.
    Invalid {
        /// The position error code, e.g. `wrong-total`.
        code: String,
    },
}

/// Where a game stands: its legal moves and its outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Standing {
    /// The legal moves, in any order; empty when the game is over.
    pub legal: Vec<Pit>,
    /// How the game stands; `None` if the subject does not say (then a
    /// scenario's `result` cannot be checked against it).
    pub outcome: Option<Outcome>,
}

/// What a move did, as a subject reports it. Fields a subject does not
/// report are `None`, and expectations about them are skipped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveResult {
    /// The position after the move, in kpe notation (before any sweep).
    pub position: String,
    /// The pits sown into, in order.
    pub sown: Option<Vec<Pit>>,
    /// The landing pit.
    pub landing: Option<Pit>,
    /// The captured pits, landing pit first.
    pub captures: Vec<Capture>,
    /// The events of the move, in any order.
    pub events: Option<Vec<Event>>,
    /// The end of the game, if the move ended it.
    pub end: Option<End>,
}

/// A subject's answer to a move: played, or refused with a reason code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "status", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Played {
    /// The move was played.
    Accepted {
        /// What it did.
        result: MoveResult,
    },
    /// The move was refused.
    Refused {
        /// The reason code, e.g. `empty-pit`.
        reason: String,
    },
}

/// A subject could not answer at all (a crashed engine, an unreadable
/// reply, a line it cannot replay): not a rules disagreement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubjectError {
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for SubjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SubjectError {}

/// A scenario expectation that a subject did not meet.
///
/// Its `Display` names the file, the scenario, its rule IDs, the profile
/// and the ply, then shows the expected and actual values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The scenario file, as named by the caller.
    pub file: String,
    /// The scenario id.
    pub scenario: String,
    /// The rule IDs the scenario cites.
    pub rules: Vec<String>,
    /// The profile it was run under.
    pub profile: Profile,
    /// The ply: 0 for the start position, n for the n-th move.
    pub ply: usize,
    /// The move at that ply, if any.
    pub mv: Option<Pit>,
    /// What was compared, e.g. `position` or `legal moves`.
    pub check: String,
    /// What the scenario expects.
    pub expected: String,
    /// What the subject gave.
    pub actual: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: scenario `{}` (rules {}), profile `{}`, ply {}",
            self.file,
            self.scenario,
            self.rules.join(" "),
            self.profile,
            self.ply
        )?;
        if let Some(mv) = self.mv {
            write!(f, " (move {mv})")?;
        }
        write!(
            f,
            ": {} differs\n  expected: {}\n  actual:   {}",
            self.check, self.expected, self.actual
        )
    }
}

impl std::error::Error for Failure {}

/// How many checks a verified scenario made, and how many it skipped
/// because the subject does not report that detail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verified {
    /// Comparisons made, each of which matched.
    pub checked: usize,
    /// Expectations the subject gave no value for.
    pub skipped: usize,
}

/// An implementation of the rules that scenarios can be run against.
///
/// The three operations take plain data that is easy to fill from JSON
/// (positions as notation text, pits, reason codes), so an engine in
/// another process can implement them. Each call carries the whole game
/// line, so a subject needs no state between calls (it may cache).
/// [`Subject::verify`] runs a scenario with them.
pub trait Subject {
    /// Checks a position text: valid (with its canonical notation) or
    /// refused with a position error code.
    ///
    /// # Errors
    ///
    /// A [`SubjectError`] when the subject cannot answer.
    fn check_position(&mut self, position: &str) -> Result<Verdict, SubjectError>;

    /// The legal moves and outcome at the end of `line`.
    ///
    /// # Errors
    ///
    /// A [`SubjectError`] when the subject cannot answer.
    fn standing(&mut self, line: &Line<'_>) -> Result<Standing, SubjectError>;

    /// Plays `pit` at the end of `line`.
    ///
    /// # Errors
    ///
    /// A [`SubjectError`] when the subject cannot answer; a refused move is
    /// an answer ([`Played::Refused`]), not an error.
    fn play(&mut self, line: &Line<'_>, pit: Pit) -> Result<Played, SubjectError>;

    /// Runs `scenario` under `profile` and checks every expectation: the
    /// start is accepted (or refused with `invalid_start`), each move is
    /// accepted, the `expect` entries hold at their plies, the `reject`ed
    /// move is refused with its reason, and the `result` holds after the
    /// moves. `file` is used in the failure message.
    ///
    /// # Errors
    ///
    /// The first [`Failure`]: later plies depend on earlier ones.
    fn verify(
        &mut self,
        file: &str,
        scenario: &Scenario,
        profile: Profile,
    ) -> Result<Verified, Box<Failure>> {
        let mut run = Run {
            file,
            scenario,
            profile,
            verified: Verified::default(),
        };
        let start = scenario.start_text();
        let verdict = self
            .check_position(&start)
            .map_err(|e| run.subject_error(0, e))?;
        if let Some(code) = &scenario.invalid_start {
            let expected = Verdict::Invalid { code: code.clone() };
            run.compare(
                0,
                "start position verdict",
                &show_verdict(&expected),
                &show_verdict(&verdict),
            )?;
            return Ok(run.verified);
        }
        let canonical = match verdict {
            Verdict::Valid { position } => position,
            Verdict::Invalid { code } => {
                return Err(run.fail(
                    0,
                    "start position verdict",
                    "valid".into(),
                    format!("invalid: {code}"),
                ));
            }
        };
        let last = scenario.last_ply();
        let moves = &scenario.moves;
        let line = |ply: usize| Line {
            start: &start,
            profile,
            moves: &moves[..ply],
        };
        let mut result = None;
        for ply in 0..=last {
            if ply > 0 {
                let played = self
                    .play(&line(ply - 1), moves[ply - 1])
                    .map_err(|e| run.subject_error(ply, e))?;
                match played {
                    Played::Accepted { result: r } => result = Some(r),
                    Played::Refused { reason } => {
                        return Err(run.fail(
                            ply,
                            "move verdict",
                            "accepted".into(),
                            format!("refused: {reason}"),
                        ));
                    }
                }
            }
            for e in scenario.expect.iter().filter(|e| e.ply == ply) {
                if let Some(position) = &e.position {
                    let actual = match &result {
                        Some(r) if ply > 0 => r.position.clone(),
                        _ => canonical.clone(),
                    };
                    run.compare(ply, "position", position, &actual)?;
                }
                if let Some(legal) = &e.legal {
                    let standing = self
                        .standing(&line(ply))
                        .map_err(|err| run.subject_error(ply, err))?;
                    let mut actual = standing.legal;
                    actual.sort();
                    run.compare(ply, "legal moves", &show_pits(legal), &show_pits(&actual))?;
                }
                let Some(r) = result.as_ref().filter(|_| ply > 0) else {
                    continue;
                };
                if let Some(sown) = &e.sown {
                    run.compare_opt(
                        ply,
                        "sown pits",
                        &show_pits(sown),
                        r.sown.as_deref().map(show_pits),
                    )?;
                }
                if let Some(landing) = &e.landing {
                    run.compare_opt(
                        ply,
                        "landing pit",
                        &landing.to_string(),
                        r.landing.map(|p| p.to_string()),
                    )?;
                }
                if let Some(captures) = &e.captures {
                    run.compare(
                        ply,
                        "captures",
                        &show_captures(captures),
                        &show_captures(&r.captures),
                    )?;
                }
                if let Some(events) = &e.events {
                    let actual = r.events.as_ref().map(|ev| show_events(ev));
                    run.compare_opt(ply, "events", &show_events(events), actual)?;
                }
            }
        }
        if let Some(reject) = &scenario.reject {
            let ply = reject.ply;
            let played = self
                .play(&line(ply - 1), moves[ply - 1])
                .map_err(|e| run.subject_error(ply, e))?;
            let actual = match played {
                Played::Accepted { result } => format!("accepted: {}", result.position),
                Played::Refused { reason } => format!("refused: {reason}"),
            };
            run.compare(
                ply,
                "move verdict",
                &format!("refused: {}", reject.reason),
                &actual,
            )?;
        }
        if let Some(expected) = &scenario.result {
            let standing = self
                .standing(&line(last))
                .map_err(|e| run.subject_error(last, e))?;
            run.compare_opt(
                last,
                "result",
                &show_outcome(expected),
                standing.outcome.as_ref().map(show_outcome),
            )?;
        }
        Ok(run.verified)
    }
}

/// The state of one [`Subject::verify`] run, for building failures.
struct Run<'a> {
    file: &'a str,
    scenario: &'a Scenario,
    profile: Profile,
    verified: Verified,
}

impl Run<'_> {
    fn fail(&self, ply: usize, check: &str, expected: String, actual: String) -> Box<Failure> {
        Box::new(Failure {
            file: self.file.to_owned(),
            scenario: self.scenario.id.clone(),
            rules: self.scenario.rules.clone(),
            profile: self.profile,
            ply,
            mv: ply
                .checked_sub(1)
                .and_then(|i| self.scenario.moves.get(i).copied()),
            check: check.to_owned(),
            expected,
            actual,
        })
    }

    fn subject_error(&self, ply: usize, error: SubjectError) -> Box<Failure> {
        self.fail(
            ply,
            "subject answer",
            "an answer".into(),
            format!("error: {error}"),
        )
    }

    fn compare(
        &mut self,
        ply: usize,
        check: &str,
        expected: &str,
        actual: &str,
    ) -> Result<(), Box<Failure>> {
        if expected == actual {
            self.verified.checked += 1;
            Ok(())
        } else {
            Err(self.fail(ply, check, expected.to_owned(), actual.to_owned()))
        }
    }

    fn compare_opt(
        &mut self,
        ply: usize,
        check: &str,
        expected: &str,
        actual: Option<String>,
    ) -> Result<(), Box<Failure>> {
        match actual {
            Some(actual) => self.compare(ply, check, expected, &actual),
            None => {
                self.verified.skipped += 1;
                Ok(())
            }
        }
    }
}

fn show_pits(pits: &[Pit]) -> String {
    if pits.is_empty() {
        return "(none)".to_owned();
    }
    pits.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn show_captures(captures: &[Capture]) -> String {
    if captures.is_empty() {
        return "(none)".to_owned();
    }
    captures
        .iter()
        .map(|c| format!("{}:{}", c.pit, c.stones))
        .collect::<Vec<_>>()
        .join(" ")
}

fn show_events(events: &[Event]) -> String {
    let mut sorted = events.to_vec();
    sorted.sort();
    if sorted.is_empty() {
        return "(none)".to_owned();
    }
    sorted
        .iter()
        .map(|e| {
            serde_json::to_value(e).map_or_else(
                |_| format!("{e:?}"),
                |v| v.as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn show_outcome(outcome: &Outcome) -> String {
    serde_json::to_string(outcome).unwrap_or_else(|_| format!("{outcome:?}"))
}

fn show_verdict(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Valid { position } => format!("valid: {position}"),
        Verdict::Invalid { code } => format!("invalid: {code}"),
    }
}

/// The subject backed by this crate's rules: [`Position`] for positions and
/// [`Game`] for play, so `end-on-repetition` sees the whole line.
///
/// It keeps the last game it replayed, so running a scenario ply by ply
/// replays each move once.
#[derive(Clone, Debug, Default)]
pub struct Reference {
    game: Option<Game>,
}

impl Reference {
    /// A reference subject with nothing cached.
    #[must_use]
    pub fn new() -> Reference {
        Reference::default()
    }

    /// The game at the end of `line`, replayed from the cache when it
    /// extends the last line.
    fn game(&mut self, line: &Line<'_>) -> Result<&mut Game, SubjectError> {
        let start: Position = line.start.parse().map_err(|e| SubjectError {
            message: format!("start `{}`: {e}", line.start),
        })?;
        let reusable = self.game.as_ref().is_some_and(|g| {
            g.start() == &start
                && g.profile() == line.profile
                && g.reports().len() <= line.moves.len()
                && g.reports().iter().zip(line.moves).all(|(r, m)| r.pit == *m)
        });
        if !reusable {
            self.game = Some(Game::new(start, line.profile));
        }
        let game = self.game.as_mut().expect("the game was just set");
        let done = game.reports().len();
        for (i, &pit) in line.moves.iter().enumerate().skip(done) {
            if let Err(e) = game.play(pit) {
                return Err(SubjectError {
                    message: format!("the line cannot be replayed: ply {}: {e}", i + 1),
                });
            }
        }
        Ok(game)
    }
}

impl Subject for Reference {
    fn check_position(&mut self, position: &str) -> Result<Verdict, SubjectError> {
        Ok(match position.parse::<Position>() {
            Ok(p) => Verdict::Valid {
                position: p.to_string(),
            },
            Err(e) => Verdict::Invalid {
                code: e.code().to_owned(),
            },
        })
    }

    fn standing(&mut self, line: &Line<'_>) -> Result<Standing, SubjectError> {
        let game = self.game(line)?;
        Ok(Standing {
            legal: game.legal_moves().to_vec(),
            outcome: Some(game.outcome()),
        })
    }

    fn play(&mut self, line: &Line<'_>, pit: Pit) -> Result<Played, SubjectError> {
        let game = self.game(line)?;
        Ok(match game.play(pit) {
            Ok(report) => {
                let report = report.clone();
                Played::Accepted {
                    result: MoveResult {
                        position: game.current().to_string(),
                        sown: Some(report.sown.to_vec()),
                        landing: Some(report.landing),
                        captures: report.captures.to_vec(),
                        events: Some(report.events()),
                        end: report.end,
                    },
                }
            }
            Err(e) => Played::Refused {
                reason: e.reason.code().to_owned(),
            },
        })
    }
}

// ---------------------------------------------------------------------------
// Traces for people (and snapshots)
// ---------------------------------------------------------------------------

/// A readable trace of `scenario` played by the reference rules under
/// `profile`: the start diagram, then for each move what it did, the rule
/// IDs that decided it, the position and diagram after it, the legal moves,
/// and finally the outcome. The profile itself is not printed, so traces
/// under different profiles can be compared.
#[must_use]
pub fn trace(scenario: &Scenario, profile: Profile) -> String {
    use fmt::Write as _;
    let mut out = String::new();
    let start_text = scenario.start_text();
    let start = match start_text.parse::<Position>() {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(out, "start: {start_text}");
            let _ = writeln!(out, "refused: {} ({e})", e.code());
            return out;
        }
    };
    let _ = writeln!(out, "start: {start}\n");
    out += &start.diagram();
    let mut game = Game::new(start, profile);
    let _ = writeln!(out, "{}", legal_line(&game));
    for (i, &pit) in scenario.moves.iter().enumerate() {
        let ply = i + 1;
        match game.play(pit) {
            Ok(report) => {
                let report = report.clone();
                let _ = writeln!(out, "\nply {ply}: {report}");
                let _ = writeln!(out, "  rules: {}", report.rules().join(" "));
                let _ = writeln!(out, "  after: {}\n", game.current());
                out += &game.current().diagram();
                let _ = writeln!(out, "{}", legal_line(&game));
            }
            Err(e) => {
                let _ = writeln!(out, "\nply {ply}: refused: {e}");
                break;
            }
        }
    }
    let _ = writeln!(out, "\noutcome: {}", game.outcome());
    out
}

fn legal_line(game: &Game) -> String {
    let legal = game.legal_moves();
    if legal.is_empty() {
        "legal moves: none".to_owned()
    } else {
        format!("legal moves: {}", show_pits(&legal))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Player;
    use crate::position::PositionError;

    #[test]
    fn rule_ids_are_the_bold_bullets_of_the_spec() {
        let text = "intro **NOT-1** in prose\n- **SOW-1** A rule.\n  - **CAP-12** nested\n- **Rule IDs are permanent.**\n- **lower-1** no\n- **X-** no\n";
        assert_eq!(parse_rule_ids(text), ["SOW-1", "CAP-12"]);
        let ids = rule_ids();
        assert_eq!(ids.first().map(String::as_str), Some("BOARD-1"));
        assert!(ids.iter().any(|id| id == "END-3"), "{ids:?}");
    }

    #[test]
    fn slugs_are_lowercase_words_joined_by_single_dashes() {
        for good in ["a", "sow-8-wraps", "x1-2y"] {
            assert!(is_slug(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a b", "é"] {
            assert!(!is_slug(bad), "{bad}");
        }
    }

    #[test]
    fn position_codes_match_the_position_errors() {
        let errors = [
            PositionError::Syntax {
                column: 1,
                expected: "x",
                found: String::new(),
            },
            PositionError::PitCount { found: 7 },
            PositionError::PitOutOfRange {
                pit: Pit::ALL[0],
                count: 49,
            },
            PositionError::CapturedOutOfRange {
                player: Player::South,
                count: 49,
            },
            PositionError::WrongTotal {
                board: 1,
                captured: 0,
            },
            PositionError::OddCaptured {
                player: Player::South,
                count: 1,
            },
            PositionError::CapturedWhileLocked {
                player: Player::South,
                count: 2,
            },
            PositionError::UnusedPitTooLow {
                pit: Pit::ALL[0],
                count: 1,
            },
            PositionError::SideToMove {
                to_move: Player::South,
            },
        ];
        let codes: Vec<&str> = errors.iter().map(PositionError::code).collect();
        assert_eq!(codes, POSITION_CODES);
    }

    #[test]
    fn id_line_finds_the_nth_id_entry() {
        let text = "scenarios:\n  - id: a\n    rules: []\n  - id: \"b\"\n  -   id: a\n";
        assert_eq!(id_line(text, "a", 0), Some((2, 5)));
        assert_eq!(id_line(text, "b", 0), Some((4, 5)));
        assert_eq!(id_line(text, "a", 1), Some((5, 7)));
        assert_eq!(id_line(text, "a", 2), None);
    }

    #[test]
    fn reference_replays_from_its_cache_and_from_scratch_alike() {
        let start = Position::initial().to_string();
        let moves: Vec<Pit> = ["S1", "N1", "S2"].map(|m| m.parse().unwrap()).to_vec();
        let line = |n| Line {
            start: &start,
            profile: Profile::DEFAULT,
            moves: &moves[..n],
        };
        let mut cached = Reference::new();
        for n in 0..=3 {
            let fresh = Reference::new().standing(&line(n)).unwrap();
            assert_eq!(cached.standing(&line(n)).unwrap(), fresh, "after {n} moves");
        }
        // Going back to a shorter line replays from scratch.
        let fresh = Reference::new().standing(&line(1)).unwrap();
        assert_eq!(cached.standing(&line(1)).unwrap(), fresh);
        // A line that cannot be replayed is a subject error, not a panic.
        let bad = [moves[0], moves[0]];
        let err = cached
            .standing(&Line {
                start: &start,
                profile: Profile::DEFAULT,
                moves: &bad,
            })
            .unwrap_err();
        assert!(err.message.contains("ply 2"), "{err}");
        let err = cached
            .standing(&Line {
                start: "nonsense",
                profile: Profile::DEFAULT,
                moves: &[],
            })
            .unwrap_err();
        assert!(err.message.contains("column 1"), "{err}");
    }
}
