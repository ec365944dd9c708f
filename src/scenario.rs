//! Conformance scenarios: the plain data of `conformance/*.yaml`.
//!
//! The format is specified in `spec/SCENARIOS.md`, with a JSON Schema
//! generated from these types in `spec/scenario.schema.json`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::board::Pit;
use crate::game::Outcome;
use crate::profile::{Profile, Switch};
use crate::report::{Capture, Event};

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
    pub id: String,
    /// The rule IDs of spec/RULES.md this scenario exercises.
    pub rules: Vec<String>,
    /// What the scenario shows, for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The readings it is pinned to: switch name to on/off. Absent switches
    /// are free, so an empty map means the scenario holds under all 32
    /// profiles.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(with = "BTreeMap<String, bool>")]
    pub when: BTreeMap<SwitchName, bool>,
    /// The start position in kpe notation; absent means the initial position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// When set, `start` must be refused with this position error code
    /// (e.g. `wrong-total`), and the scenario has no moves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
    pub reason: String,
}

impl Scenario {
    /// The profiles this scenario holds for: every profile whose switches
    /// agree with `when`.
    pub fn profiles(&self) -> impl Iterator<Item = Profile> + '_ {
        Profile::all().filter(|p| self.when.iter().all(|(s, &on)| p.has(s.0) == on))
    }
}
