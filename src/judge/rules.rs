//! Rule IDs as sets: which rules decide a difference, which rules a run
//! exercised.

use std::fmt;

use crate::report::{Feeding, Report};

/// Every rule ID of `spec/RULES.md`, in the spec's order, with a short title
/// for reports.
pub const RULE_IDS: [(&str, &str); 30] = [
    ("BOARD-1", "two rows of four pits, no stores"),
    ("BOARD-2", "each player owns the row in front of them"),
    ("BOARD-3", "six stones per pit, 48 in all"),
    ("BOARD-4", "pit names and the sowing order"),
    (
        "BOARD-5",
        "South moves first; a position records whose turn it is",
    ),
    ("MOVE-1", "a move starts from one of the mover's own pits"),
    ("MOVE-2", "the pit must hold at least one stone"),
    ("MOVE-3", "no move once the game is over"),
    (
        "MOVE-4",
        "several reasons: game-over, then not-own-pit, empty-pit, feeding-required",
    ),
    ("SOW-1", "players alternate, one move per turn"),
    ("SOW-2", "the mover takes up every stone of the pit"),
    (
        "SOW-3",
        "one stone into each following pit, counter-clockwise",
    ),
    (
        "SOW-4",
        "8+ stones come back to the origin pit (I1: sown, or skipped under skip-origin)",
    ),
    (
        "SOW-5",
        "single lap: the pit of the last stone is the landing pit",
    ),
    (
        "LOCK-1",
        "no captures until the player has moved from all four pits",
    ),
    ("LOCK-2", "a pit moved from is used for good"),
    (
        "LOCK-3",
        "the move from the last unused pit may capture (I2: not under strict-lock)",
    ),
    (
        "CAP-1",
        "a last stone making 2 or 4 in an opponent's pit captures them",
    ),
    (
        "CAP-2",
        "the chain goes backward over the opponent's pits holding 2 or 4",
    ),
    (
        "CAP-3",
        "only the opponent's row: the chain stops at the row boundary",
    ),
    (
        "CAP-4",
        "captured stones leave the board and count for the capturer",
    ),
    (
        "FEED-1",
        "an opponent with an empty row must be fed if possible",
    ),
    (
        "FEED-2",
        "what feeds (I3: sowing into their row, or a stone left after captures)",
    ),
    (
        "FEED-3",
        "when nothing feeds (I4: the obligation lapses, or the game ends)",
    ),
    (
        "END-1",
        "the game ends when the player to move has no legal move",
    ),
    (
        "END-2",
        "at the end each player takes the stones on their side",
    ),
    (
        "END-3",
        "repetition (I5: no rule, or the game ends at the first recurrence)",
    ),
    (
        "RES-1",
        "a total is captured plus swept stones; totals make 48",
    ),
    ("RES-2", "the larger total wins"),
    ("RES-3", "24-24 is a draw"),
];

/// The short title of a rule ID, or `None` for an unknown ID.
#[must_use]
pub fn rule_title(id: &str) -> Option<&'static str> {
    RULE_IDS.iter().find(|(i, _)| *i == id).map(|(_, t)| *t)
}

/// A set of rule IDs, kept and listed in the spec's order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RuleSet(u32);

impl RuleSet {
    /// The empty set.
    #[must_use]
    pub const fn new() -> RuleSet {
        RuleSet(0)
    }

    /// Adds `id`.
    ///
    /// # Panics
    ///
    /// If `id` is not a rule ID of [`RULE_IDS`]: only rule IDs the rules code
    /// names are ever added, so that is a bug.
    pub fn insert(&mut self, id: &str) {
        let index = RULE_IDS
            .iter()
            .position(|(i, _)| *i == id)
            .unwrap_or_else(|| panic!("`{id}` is not a rule ID of spec/RULES.md"));
        self.0 |= 1 << index;
    }

    /// Every rule of `other` added to this set.
    pub fn extend(&mut self, other: RuleSet) {
        self.0 |= other.0;
    }

    /// Whether `id` is in the set.
    #[must_use]
    pub fn contains(&self, id: &str) -> bool {
        self.iter().any(|i| i == id)
    }

    /// Whether the set is empty.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// How many rules.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.0.count_ones() as usize
    }

    /// The rule IDs, in the spec's order.
    pub fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        let bits = self.0;
        RULE_IDS
            .iter()
            .enumerate()
            .filter(move |(k, _)| bits & (1 << k) != 0)
            .map(|(_, (id, _))| *id)
    }

    /// The rule IDs as a vector, in the spec's order.
    #[must_use]
    pub fn to_vec(&self) -> Vec<&'static str> {
        self.iter().collect()
    }
}

impl<'a> FromIterator<&'a str> for RuleSet {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> RuleSet {
        let mut set = RuleSet::new();
        for id in iter {
            set.insert(id);
        }
        set
    }
}

impl fmt::Display for RuleSet {
    /// The IDs separated by spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, id) in self.iter().enumerate() {
            if k > 0 {
                f.write_str(" ")?;
            }
            f.write_str(id)?;
        }
        Ok(())
    }
}

impl serde::Serialize for RuleSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for RuleSet {
    /// A list of rule IDs; an ID that is not in [`RULE_IDS`] is an error.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<RuleSet, D::Error> {
        let ids = Vec::<String>::deserialize(deserializer)?;
        let mut set = RuleSet::new();
        for id in &ids {
            let Some(index) = RULE_IDS.iter().position(|(i, _)| i == id) else {
                return Err(serde::de::Error::custom(format!(
                    "`{id}` is not a rule ID of spec/RULES.md"
                )));
            };
            set.0 |= 1 << index;
        }
        Ok(set)
    }
}

impl schemars::JsonSchema for RuleSet {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RuleSet".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let ids: Vec<&str> = RULE_IDS.iter().map(|(id, _)| *id).collect();
        schemars::json_schema!({
            "description": "Rule IDs of spec/RULES.md, in the spec's order.",
            "type": "array",
            "items": {"type": "string", "enum": ids},
            "uniqueItems": true
        })
    }
}

/// [`Report::rules`] as a [`RuleSet`], remembered by the few features of a
/// report it depends on, so that checking a million plies does not build a
/// million vectors.
#[derive(Clone)]
pub(crate) struct ReportRules {
    known: Box<[Option<RuleSet>; 2048]>,
}

impl ReportRules {
    pub(crate) fn new() -> ReportRules {
        ReportRules {
            known: Box::new([None; 2048]),
        }
    }

    /// The rules `report` exercised.
    pub(crate) fn of(&mut self, report: &Report) -> RuleSet {
        let key = signature(report);
        *self.known[key].get_or_insert_with(|| report.rules().into_iter().collect())
    }
}

/// Everything [`Report::rules`] looks at, packed into 11 bits.
fn signature(report: &Report) -> usize {
    let feeding = match report.feeding {
        None => 0,
        Some(Feeding::Forced) => 1,
        Some(Feeding::Lapsed) => 2,
    };
    let captures = report.captures.len().min(2);
    let end = match report.end {
        None => 0,
        Some(end) => {
            let reason = match end.reason {
                crate::EndReason::NoStones => 1,
                crate::EndReason::Unfeedable => 2,
                crate::EndReason::Repetition => 3,
            };
            reason | usize::from(end.winner().is_some()) << 2
        }
    };
    feeding
        | usize::from(report.wrapped()) << 2
        | usize::from(report.lock_opened) << 3
        | usize::from(report.capture_locked) << 4
        | captures << 5
        | end << 7
        | usize::from(report.chain_reached_row_end()) << 10
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Position, Profile, legal_moves, play};

    #[test]
    fn rule_table_is_exactly_the_ids_of_the_spec() {
        let spec = include_str!("../../spec/RULES.md");
        let mut in_spec: Vec<&str> = spec
            .lines()
            .filter_map(|l| l.strip_prefix("- **"))
            .filter_map(|l| l.split("**").next())
            .filter(|id| id.contains('-') && id.ends_with(|c: char| c.is_ascii_digit()))
            .collect();
        in_spec.dedup();
        let ours: Vec<&str> = RULE_IDS.iter().map(|(id, _)| *id).collect();
        assert_eq!(ours, in_spec);
    }

    #[test]
    fn remembered_rules_equal_report_rules_over_random_games() {
        // Guards the memo: if Report::rules() starts to depend on something
        // the signature leaves out, some ply here disagrees.
        let mut memo = ReportRules::new();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for profile in Profile::all() {
            for _ in 0..20 {
                let mut position = Position::initial();
                for _ in 0..200 {
                    let moves = legal_moves(&position, profile);
                    if moves.is_empty() {
                        break;
                    }
                    let pit = crate::testing::pick(&mut seed, &moves);
                    let (next, report) = play(&position, pit, profile).unwrap();
                    let direct: RuleSet = report.rules().into_iter().collect();
                    assert_eq!(memo.of(&report), direct, "{report}");
                    position = next;
                }
            }
        }
    }

    #[test]
    fn sets_list_in_spec_order() {
        let set: RuleSet = ["CAP-2", "SOW-4", "CAP-1", "SOW-4"].into_iter().collect();
        assert_eq!(set.to_string(), "SOW-4 CAP-1 CAP-2");
        assert_eq!(set.len(), 3);
        assert!(set.contains("CAP-1") && !set.contains("CAP-3"));
        assert_eq!(rule_title("SOW-4").map(|t| t.starts_with("8+")), Some(true));
        assert_eq!(rule_title("XYZ-1"), None);
    }
}
