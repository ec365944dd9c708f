//! Which rule decides a perft count that is wrong although every one-move
//! answer below it is right (spec/PROTOCOL.md, "Which rule a divergence
//! cites", perft).
//!
//! The engine's counts on the way down to the smallest differing subtree
//! are compared with the counts of a few models of a move tree gone wrong,
//! each tied to the rule it breaks: another reading of one switch (that
//! switch's rule), a finished game counted as a sequence (MOVE-3), the
//! repetition history not unwound after a subtree (END-3), the players'
//! used-pit rows shared or the origin never marked used (LOCK-2). The first
//! model that gives *every* count the engine gave names the rule: one that
//! gives the subtree's count by chance while the root's count rules it out
//! names nothing. When none does, the rules deciding any count are cited.

use rustc_hash::FxHashSet;

use crate::perft::perft;
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::rules::{apply, game_over, legal_moves};

use super::divergence::PerftClaim;
use super::rules::RuleSet;

/// The rules any perft count depends on, cited when no model explains a
/// wrong count: which moves are legal (MOVE-1, MOVE-2, FEED-1) and when the
/// game ends (END-1).
pub const ANY_COUNT: [&str; 4] = ["MOVE-1", "MOVE-2", "FEED-1", "END-1"];

/// What decides a wrong count `claimed` of `depth` plies from `root` under
/// `profile`: the rule and a sentence saying why, or [`ANY_COUNT`] and
/// `None` when no model gives the engine's count. `others` are the other
/// counts the engine gave (the unit's own count, the subtrees followed
/// down, the children of this one): a model is named only when it gives
/// each of them too.
#[must_use]
pub fn count_rule(
    root: &Position,
    depth: u32,
    profile: Profile,
    claimed: u64,
    others: &[PerftClaim],
) -> (RuleSet, Option<String>) {
    let all: Vec<PerftClaim> = std::iter::once(PerftClaim {
        position: *root,
        depth,
        nodes: claimed,
    })
    .chain(others.iter().copied())
    .collect();
    let gives_all = |count: &dyn Fn(&Position, u32) -> u64| {
        all.iter().all(|c| count(&c.position, c.depth) == c.nodes)
    };
    let one = |rule: &'static str| std::iter::once(rule).collect::<RuleSet>();
    // A finished game has no continuations: a count of one where the rules
    // give none is the end ignored, whatever ended it.
    if depth > 0 && claimed > 0 && legal_moves(root, profile).is_empty() {
        let why = match game_over(root, profile) {
            Some(reason) => format!("{reason}, {}", reason.rule()),
            None => "no legal move".to_owned(),
        };
        return (
            one("MOVE-3"),
            Some(format!(
                "the game is over at `{root}` ({why}), so it has no continuations and counts 0 at depth {depth}; the engine counted {claimed}: its perft goes on past the end (MOVE-3)"
            )),
        );
    }
    for switch in Switch::ALL {
        let other = profile.set(switch, !profile.has(switch));
        if gives_all(&|p, d| perft(p, d, other)) {
            let rule = switch.rule();
            return (
                one(rule),
                Some(format!(
                    "{claimed} is the count with {} read the other way ({rule}), as is every other count the engine gave: the engine's perft follows another reading than its answers",
                    switch.name()
                )),
            );
        }
    }
    for (fault, rule, what, how) in FAULTS {
        if fault.applies(profile) && gives_all(&|p, d| faulty(p, d, profile, fault)) {
            return (
                one(rule),
                Some(format!(
                    "{claimed} is the count of this tree with {what} ({rule}), as is every other count the engine gave: {how}"
                )),
            );
        }
    }
    (ANY_COUNT.into_iter().collect(), None)
}

/// The models of a faulty perft, each with the rule it breaks, what it
/// does, and what that says of the engine.
const FAULTS: [(Fault, &str, &str, &str); 5] = [
    (
        Fault::FinishedCounted,
        "MOVE-3",
        "a finished game counted as one sequence however many plies are left",
        "the engine's perft goes on past the end of a game",
    ),
    (
        Fault::HistoryKept,
        "END-3",
        "the positions of the sequences already counted kept in the repetition history (not taken off after each subtree)",
        "the engine's perft ends a sequence at a position that only another sequence reached",
    ),
    (
        Fault::HistoryKeptWithLeaves,
        "END-3",
        "the positions of the sequences already counted, their last ply's included, kept in the repetition history (not taken off after each subtree)",
        "the engine's perft ends a sequence at a position that only another sequence reached",
    ),
    (
        Fault::SharedUsedRows,
        "LOCK-2",
        "the two players' used pits kept in one shared row",
        "the engine's perft keeps the used pits otherwise than its answers do",
    ),
    (
        Fault::OriginNotMarked,
        "LOCK-2",
        "the origin pit never marked used",
        "the engine's perft keeps the used pits otherwise than its answers do",
    ),
];

/// One way a perft goes wrong while the answers are right.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// A position with no continuation (no legal move, or a repetition
    /// under `end-on-repetition`) counts 1 whatever the depth left.
    FinishedCounted,
    /// Under `end-on-repetition`, a position entered is never taken off
    /// the history: a later sequence ends at a position an earlier one
    /// reached.
    HistoryKept,
    /// [`Fault::HistoryKept`], the last ply's positions entered too.
    HistoryKeptWithLeaves,
    /// After each move both players' used rows are their union.
    SharedUsedRows,
    /// After each move the used rows are those before it.
    OriginNotMarked,
}

impl Fault {
    /// Whether the fault can change a count under `profile` (the history
    /// matters only with a repetition rule).
    fn applies(self, profile: Profile) -> bool {
        !matches!(self, Fault::HistoryKept | Fault::HistoryKeptWithLeaves)
            || profile.has(Switch::EndOnRepetition)
    }
}

/// The state of one faulty count: the repetition history (when the
/// profile has one) and the remembered counts.
struct Walk {
    profile: Profile,
    fault: Fault,
    history: Option<Vec<Position>>,
    /// For [`Fault::HistoryKept`], the history as a set, never shrunk.
    kept: FxHashSet<Position>,
}

/// Perft of `depth` plies from `position` under `profile` with `fault`,
/// counted as `crate::perft` counts (a repeated position is a node at its
/// own depth with no continuations), the fault aside.
fn faulty(position: &Position, depth: u32, profile: Profile, fault: Fault) -> u64 {
    let repetition = profile.has(Switch::EndOnRepetition);
    let mut walk = Walk {
        profile,
        fault,
        history: repetition.then(|| vec![*position]),
        kept: std::iter::once(*position).collect(),
    };
    walk.count(position, depth)
}

impl Walk {
    fn count(&mut self, position: &Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = legal_moves(position, self.profile);
        if moves.is_empty() && self.fault == Fault::FinishedCounted {
            return 1;
        }
        if depth == 1 {
            if self.fault == Fault::HistoryKeptWithLeaves && self.history.is_some() {
                for &pit in &moves {
                    self.kept.insert(apply(position, pit, self.profile).0);
                }
            }
            return moves.len() as u64;
        }
        let mut n = 0;
        for pit in moves {
            let (mut child, _) = apply(position, pit, self.profile);
            match self.fault {
                Fault::SharedUsedRows => {
                    let shared = child.used[0] | child.used[1];
                    child.used = [shared, shared];
                }
                Fault::OriginNotMarked => child.used = position.used,
                _ => {}
            }
            n += self.child(&child, depth - 1);
        }
        n
    }

    /// The count below `child`, with the repetition rule.
    fn child(&mut self, child: &Position, depth: u32) -> u64 {
        if self.history.is_none() {
            return self.count(child, depth);
        }
        let repeated = if matches!(
            self.fault,
            Fault::HistoryKept | Fault::HistoryKeptWithLeaves
        ) {
            !self.kept.insert(*child)
        } else {
            self.history.as_ref().is_some_and(|h| h.contains(child))
        };
        if repeated {
            return u64::from(self.fault == Fault::FinishedCounted);
        }
        if let Some(h) = &mut self.history {
            h.push(*child);
        }
        let n = self.count(child, depth);
        if let Some(h) = &mut self.history {
            h.pop();
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(position: Position, depth: u32, nodes: u64) -> PerftClaim {
        PerftClaim {
            position,
            depth,
            nodes,
        }
    }

    #[test]
    fn the_models_count_as_the_reference_where_their_fault_never_shows() {
        // No repetition rule: the history is not kept; depth 3 from the
        // start: no game ends and no used pit matters yet.
        let root = Position::initial();
        for (fault, ..) in FAULTS {
            assert_eq!(
                faulty(&root, 3, Profile::ALL_OFF, fault),
                perft(&root, 3, Profile::ALL_OFF)
            );
        }
    }

    #[test]
    fn a_count_with_shared_used_rows_cites_lock_2() {
        // The first depth at which the aliased rows change the count
        // depends on the reading (5 with the lock after sowing, deeper
        // under strict-lock).
        let root = Position::initial();
        let (depth, bad) = (5..=8)
            .map(|d| (d, faulty(&root, d, Profile::DEFAULT, Fault::SharedUsedRows)))
            .find(|&(d, bad)| bad != perft(&root, d, Profile::DEFAULT))
            .expect("the aliased rows change a count by depth 8");
        let (rules, note) = count_rule(&root, depth, Profile::DEFAULT, bad, &[]);
        assert_eq!(rules.to_string(), "LOCK-2");
        assert!(note.is_some_and(|n| n.contains("shared")));
    }

    #[test]
    fn a_count_of_another_reading_cites_its_rule_and_others_cite_any_count() {
        let root = Position::initial();
        let other = Profile::DEFAULT.flipped(Switch::SkipOrigin);
        let (rules, _) = count_rule(&root, 5, Profile::DEFAULT, perft(&root, 5, other), &[]);
        assert_eq!(rules.to_string(), "SOW-4");
        let (rules, note) = count_rule(&root, 5, Profile::DEFAULT, 1, &[]);
        assert_eq!(rules.to_string(), "MOVE-1 MOVE-2 FEED-1 END-1");
        assert!(note.is_none());
    }

    #[test]
    fn a_reading_that_gives_the_subtree_but_not_the_root_is_not_named() {
        // The subtree counts as skip-origin would, by chance; the root's
        // count, the engine's too, is not skip-origin's: no reading.
        let root = Position::initial();
        let other = Profile::DEFAULT.flipped(Switch::SkipOrigin);
        let top = apply(
            &root,
            legal_moves(&root, Profile::DEFAULT)[0],
            Profile::DEFAULT,
        )
        .0;
        let subtree = perft(&top, 4, other);
        let wrong_root = claim(root, 5, perft(&root, 5, other) + 1);
        let (rules, note) = count_rule(&top, 4, Profile::DEFAULT, subtree, &[wrong_root]);
        assert_eq!(rules.to_string(), "MOVE-1 MOVE-2 FEED-1 END-1", "{note:?}");
        // With the root's count skip-origin's too, it is named.
        let right_root = claim(root, 5, perft(&root, 5, other));
        let (rules, _) = count_rule(&top, 4, Profile::DEFAULT, subtree, &[right_root]);
        assert_eq!(rules.to_string(), "SOW-4");
    }

    #[test]
    fn a_history_never_unwound_cites_end_3_and_names_no_reading() {
        let profile = Profile::DEFAULT.set(Switch::EndOnRepetition, true);
        let root = Position::initial();
        let (depth, bad) = (4..=8)
            .map(|d| (d, faulty(&root, d, profile, Fault::HistoryKept)))
            .find(|&(d, bad)| bad != perft(&root, d, profile))
            .expect("the history kept changes a count by depth 8");
        let (rules, note) = count_rule(&root, depth, profile, bad, &[]);
        assert_eq!(rules.to_string(), "END-3");
        let note = note.expect("a note");
        assert!(
            note.contains("repetition history") && !note.contains("reading"),
            "{note}"
        );
    }

    #[test]
    fn a_finished_game_counted_with_plies_left_cites_move_3() {
        // South has nothing to play: the game is over.
        let over: Position = "0,0,0,0/1,0,0,1 S 22/24 1234/1234".parse().unwrap();
        assert!(legal_moves(&over, Profile::DEFAULT).is_empty());
        let (rules, note) = count_rule(&over, 2, Profile::DEFAULT, 1, &[]);
        assert_eq!(rules.to_string(), "MOVE-3");
        assert!(note.is_some_and(|n| n.contains("past the end")));
        // Above it, the model of such a perft gives the count: North's
        // N4 captures the last two stones of South's row, which ends the
        // game; a perft of two plies counts it once.
        let before: Position = "1,0,0,0/0,0,0,1 N 22/24 1234/1234".parse().unwrap();
        assert_eq!(perft(&before, 2, Profile::DEFAULT), 0);
        assert_eq!(
            faulty(&before, 2, Profile::DEFAULT, Fault::FinishedCounted),
            1
        );
        let (rules, _) = count_rule(&before, 2, Profile::DEFAULT, 1, &[]);
        assert_eq!(rules.to_string(), "MOVE-3");
    }
}
