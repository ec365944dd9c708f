//! The results of a check run, shared by the transcript and live modes.

use serde::Serialize;

use crate::board::Pit;
use crate::position::Position;
use crate::profile::Profile;
use crate::scenario::Scenario;

use super::reading::Reading;
use super::rules::RuleSet;
use super::transcript::Engine;

/// What was checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunKind {
    /// A transcript of games an engine played.
    Transcript,
    /// A live engine driven over the protocol.
    Engine,
}

/// The header of a check run, known before the first unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Run {
    /// The file given on the command line.
    pub source: String,
    /// What the file is.
    pub kind: RunKind,
    /// The engine under test, when known.
    pub engine: Option<Engine>,
    /// The rules profile the engine claims.
    pub profile: Profile,
}

/// The result of one unit: a transcript game, a scenario, a random game, a
/// perft depth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnitResult {
    /// What kind of unit: `game`, `scenario`, `random-game`, `perft`.
    pub kind: &'static str,
    /// Its id: a game id, a scenario id, a seed, a depth.
    pub id: String,
    /// Where it is in the input, e.g. `games[3]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// How many plies were compared, the diverging one included.
    pub plies: u64,
    /// `conforms` or `diverges`.
    pub verdict: Verdict,
    /// The first divergence, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Box<Divergence>>,
}

/// Whether a unit conforms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every claim matched the rules.
    Conforms,
    /// Some claim did not.
    Diverges,
}

impl UnitResult {
    /// A unit that conformed over `plies` plies.
    #[must_use]
    pub fn conforming(
        kind: &'static str,
        id: String,
        location: Option<String>,
        plies: u64,
    ) -> UnitResult {
        UnitResult {
            kind,
            id,
            location,
            plies,
            verdict: Verdict::Conforms,
            divergence: None,
        }
    }

    /// A unit that diverged.
    #[must_use]
    pub fn diverging(
        kind: &'static str,
        id: String,
        location: Option<String>,
        plies: u64,
        divergence: Divergence,
    ) -> UnitResult {
        UnitResult {
            kind,
            id,
            location,
            plies,
            verdict: Verdict::Diverges,
            divergence: Some(Box::new(divergence)),
        }
    }

    /// Whether the unit conformed.
    #[must_use]
    pub fn conforms(&self) -> bool {
        self.divergence.is_none()
    }
}

/// The first place a unit departs from the rules.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Divergence {
    /// The 1-based ply of the diverging move, if the unit has plies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ply: Option<u64>,
    /// The position before the diverging move (in notation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Position>,
    /// The diverging move.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub mv: Option<Pit>,
    /// Each claimed field that differs from the rules' answer.
    pub fields: Vec<FieldDiff>,
    /// The rule IDs that decide the differing fields, in spec order.
    pub rules: RuleSet,
    /// Further explanations, one sentence each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// A conformance scenario that reproduces the divergence: the rules'
    /// answers where the engine went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario: Option<Scenario>,
}

impl Divergence {
    /// The scenario as YAML, ready to paste under `scenarios:` in a
    /// `conformance/*.yaml` file.
    #[must_use]
    pub fn scenario_yaml(&self) -> Option<String> {
        let scenario = self.scenario.as_ref()?;
        Some(serde_yaml::to_string(&[scenario]).expect("a scenario serialises to YAML"))
    }
}

/// One claimed field against the rules' answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldDiff {
    /// The field, as named in the input (`after`, `legal`, `captures`,
    /// `game_over`, `totals`, `move`), or a part of it (`after.pits`).
    pub field: String,
    /// The rules' answer.
    pub expected: String,
    /// The engine's claim.
    pub claimed: String,
    /// The rule IDs that decide this field.
    pub rules: RuleSet,
    /// The parts that differ, for a compound field such as a position.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<FieldDiff>,
}

impl FieldDiff {
    /// A difference in `field`.
    #[must_use]
    pub fn new(
        field: impl Into<String>,
        expected: impl Into<String>,
        claimed: impl Into<String>,
    ) -> FieldDiff {
        FieldDiff {
            field: field.into(),
            expected: expected.into(),
            claimed: claimed.into(),
            rules: RuleSet::new(),
            details: Vec::new(),
        }
    }
}

/// Totals over a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Units checked (games in a transcript).
    pub units: u64,
    /// Units that conformed.
    pub conforming: u64,
    /// Plies compared, diverging ones included.
    pub plies: u64,
    /// Rule IDs exercised by the plies that conformed (the union of
    /// [`crate::Report::rules`]).
    pub rules: RuleSet,
    /// The profiles that explain everything, when something diverged under
    /// the claimed profile.
    pub reading: Option<Reading>,
}

impl Summary {
    /// Whether every unit conformed.
    #[must_use]
    pub fn conforms(&self) -> bool {
        self.units == self.conforming
    }

    /// Units that diverged.
    #[must_use]
    pub fn diverging(&self) -> u64 {
        self.units - self.conforming
    }

    /// Counts `unit` and its plies in.
    pub fn add(&mut self, unit: &UnitResult) {
        self.units += 1;
        self.plies += unit.plies;
        if unit.conforms() {
            self.conforming += 1;
        }
    }
}
