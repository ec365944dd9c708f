//! A divergence: the first place a unit departs from the rules, with each
//! differing field, the rules that decide it and a scenario that
//! reproduces it. Judgement produces it; the report model carries it.

use serde::{Deserialize, Serialize};

use crate::board::Pit;
use crate::position::Position;
use crate::scenario::{PerftTable, Scenario};

use super::rules::RuleSet;

/// The first place a unit departs from the rules.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Divergence {
    /// The 1-based ply of the diverging move, if the unit has plies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ply: Option<u64>,
    /// The position before the diverging move (in notation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Position>,
    /// The diverging move.
    #[serde(rename = "move", default, skip_serializing_if = "Option::is_none")]
    pub mv: Option<Pit>,
    /// Each claimed field that differs from the rules' answer.
    pub fields: Vec<FieldDiff>,
    /// The rule IDs that decide the differing fields, in spec order.
    pub rules: RuleSet,
    /// Further explanations, one sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// A conformance scenario that reproduces the divergence: the rules'
    /// answers where the engine went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<Scenario>,
    /// For a perft count that is wrong although every one-move answer below
    /// it is right: the smallest subtree whose count differs, as a perft
    /// table that reproduces it (to append to `conformance/perft.yaml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perft: Option<PerftTable>,
    /// With [`Divergence::perft`]: every count the engine gave on the way
    /// down to that subtree, the unit's own first, then each child asked
    /// (those that count right included). A reading or a model of a faulty
    /// perft explains the count only when it gives every one of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<PerftClaim>,
}

/// A perft count an engine gave: `nodes` move sequences of `depth` plies
/// from `position`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PerftClaim {
    /// Where the count starts.
    pub position: Position,
    /// How many plies.
    pub depth: u32,
    /// The engine's count.
    pub nodes: u64,
}

impl Divergence {
    /// The scenario as YAML, indented as the entries of a suite file's
    /// `scenarios:` list ([`crate::scenario::as_entries`]): appended as it
    /// is to a `conformance/*.yaml` file, it loads.
    #[must_use]
    pub fn scenario_yaml(&self) -> Option<String> {
        let scenario = self.scenario.as_ref()?;
        Some(crate::scenario::scenario_entries(&[scenario]))
    }

    /// The perft table as YAML, indented as the entries of
    /// `conformance/perft.yaml`'s `tables:` list: appended to that file, it
    /// loads.
    #[must_use]
    pub fn perft_yaml(&self) -> Option<String> {
        let table = self.perft.as_ref()?;
        let text = serde_yaml::to_string(&[table]).expect("a perft table serialises to YAML");
        Some(crate::scenario::as_entries(&text))
    }

    /// The names of the differing fields, in order.
    #[must_use]
    pub fn field_names(&self) -> Vec<String> {
        self.fields.iter().map(|f| f.field.clone()).collect()
    }
}

/// One claimed field against the rules' answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
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
