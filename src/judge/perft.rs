//! Which rule decides a perft count that is wrong although every one-move
//! answer below it is right (spec/PROTOCOL.md, "Which rule a divergence
//! cites", perft).
//!
//! The engine's count of the smallest differing subtree is compared with
//! the counts of a few models of a move tree gone wrong, each tied to the
//! rule it breaks: another reading of one switch (that switch's rule), the
//! players' used-pit rows shared (LOCK-2), the origin never marked used
//! (LOCK-2). The first model that gives the engine's count names the rule;
//! when none does, the rules deciding any count are cited.

use crate::perft::perft;
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::rules::{apply, legal_moves};

use super::rules::RuleSet;

/// The rules any perft count depends on, cited when no model explains a
/// wrong count: which moves are legal (MOVE-1, MOVE-2, FEED-1) and when the
/// game ends (END-1).
pub const ANY_COUNT: [&str; 4] = ["MOVE-1", "MOVE-2", "FEED-1", "END-1"];

/// What decides a wrong count `claimed` of `depth` plies from `root` under
/// `profile`: the rule and a sentence saying why, or [`ANY_COUNT`] and
/// `None` when no model gives the engine's count.
#[must_use]
pub fn count_rule(
    root: &Position,
    depth: u32,
    profile: Profile,
    claimed: u64,
) -> (RuleSet, Option<String>) {
    for switch in Switch::ALL {
        let other = profile.set(switch, !profile.has(switch));
        if perft(root, depth, other) == claimed {
            let rule = switch.rule();
            return (
                std::iter::once(rule).collect(),
                Some(format!(
                    "{claimed} is the count with {} read the other way ({rule}): the engine's perft follows another reading than its answers",
                    switch.name()
                )),
            );
        }
    }
    let models: [(&str, &str, Corrupt); 2] = [
        (
            "LOCK-2",
            "the two players' used pits kept in one shared row",
            shared_used_rows,
        ),
        (
            "LOCK-2",
            "the origin pit never marked used",
            origin_not_marked,
        ),
    ];
    for (rule, what, corrupt) in models {
        if corrupted_perft(root, depth, profile, corrupt) == claimed {
            return (
                std::iter::once(rule).collect(),
                Some(format!(
                    "{claimed} is the count of this tree with {what} ({rule}): the engine's perft keeps the used pits otherwise than its answers do"
                )),
            );
        }
    }
    (ANY_COUNT.into_iter().collect(), None)
}

/// A change to the position after a move inside a faulty perft.
type Corrupt = fn(&Position, &mut Position);

fn shared_used_rows(_: &Position, child: &mut Position) {
    let shared = child.used[0] | child.used[1];
    child.used = [shared, shared];
}

fn origin_not_marked(before: &Position, child: &mut Position) {
    child.used = before.used;
}

/// Perft with `corrupt` applied after every move (no repetition rule: the
/// models are of the move-making, and a repetition profile is matched by
/// the switch models first).
fn corrupted_perft(position: &Position, depth: u32, profile: Profile, corrupt: Corrupt) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    for pit in legal_moves(position, profile) {
        let (mut child, _) = apply(position, pit, profile);
        corrupt(position, &mut child);
        n += corrupted_perft(&child, depth - 1, profile, corrupt);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_with_shared_used_rows_cites_lock_2() {
        // The first depth at which the aliased rows change the count
        // depends on the reading (5 with the lock after sowing, deeper
        // under strict-lock).
        let root = Position::initial();
        let (depth, bad) = (5..=8)
            .map(|d| {
                (
                    d,
                    corrupted_perft(&root, d, Profile::DEFAULT, shared_used_rows),
                )
            })
            .find(|&(d, bad)| bad != perft(&root, d, Profile::DEFAULT))
            .expect("the aliased rows change a count by depth 8");
        let (rules, note) = count_rule(&root, depth, Profile::DEFAULT, bad);
        assert_eq!(rules.to_string(), "LOCK-2");
        assert!(note.is_some_and(|n| n.contains("shared")));
    }

    #[test]
    fn a_count_of_another_reading_cites_its_rule_and_others_cite_any_count() {
        let root = Position::initial();
        let other = Profile::DEFAULT.flipped(Switch::SkipOrigin);
        let (rules, _) = count_rule(&root, 5, Profile::DEFAULT, perft(&root, 5, other));
        assert_eq!(rules.to_string(), "SOW-4");
        let (rules, note) = count_rule(&root, 5, Profile::DEFAULT, 1);
        assert_eq!(rules.to_string(), "MOVE-1 MOVE-2 FEED-1 END-1");
        assert!(note.is_none());
    }
}
