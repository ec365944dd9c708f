//! Shrinking a divergence to a minimal reproduction: positions with fewer
//! stones on the board that still make the engine diverge the same way on
//! the same question.

use std::collections::HashSet;

use super::engine::{Engine, Failure};
use crate::board::{PITS, Pit, Player};
use crate::judge::compare::{Mismatch, compare};
use crate::judge::{Answer, Question};
use crate::position::{Position, Setup};
use crate::profile::Profile;

/// The most questions one shrink may put to the engine.
pub const SHRINK_BUDGET: usize = 2_000;

/// A divergence: the question, the engine's answer and how it differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diverging {
    /// The question.
    pub question: Question,
    /// The engine's answer.
    pub claimed: Answer,
    /// How it differs from the reference.
    pub mismatch: Mismatch,
}

/// Greedily shrinks `found`: tries smaller positions (stones removed from
/// the board and counted as captured, in even amounts, keeping the position
/// valid), keeps the first one on which the engine still diverges with the
/// same differing fields, and starts again from it, until no smaller
/// position diverges or the budget of questions is spent.
///
/// # Errors
///
/// A [`Failure`] of the engine while shrinking; the caller keeps the
/// unshrunk divergence.
pub fn shrink(
    engine: &mut Engine,
    found: &Diverging,
    profile: Profile,
) -> Result<Diverging, Failure> {
    let shape = found.mismatch.shape();
    let mut best = found.clone();
    let mut asked = 0;
    let mut tried: HashSet<Position> = HashSet::new();
    'improve: loop {
        for candidate in candidates(best.question.position(), best.question.pit()) {
            if !tried.insert(candidate) {
                continue;
            }
            if asked >= SHRINK_BUDGET {
                break 'improve;
            }
            asked += 1;
            let question = best.question.at(candidate);
            let claimed = engine.ask(&question)?;
            if let Some(mismatch) = compare(&question, claimed, profile)
                && mismatch.shape() == shape
            {
                best = Diverging {
                    question,
                    claimed: claimed.clone(),
                    mismatch,
                };
                continue 'improve;
            }
        }
        break;
    }
    Ok(best)
}

/// Valid positions with fewer stones on the board than `position`, the
/// biggest reductions first. `keep` is a pit that must stay non-empty (the
/// move being played).
#[must_use]
pub fn candidates(position: &Position, keep: Option<Pit>) -> Vec<Position> {
    let setup = position.to_setup();
    let floor = |i: usize| u32::from(keep.is_some_and(|p| p.index() == i));
    let spare = |i: usize| setup.pits[i].saturating_sub(floor(i));
    // Removal plans: (pit index, stones) lists whose total is even, since
    // captured counts are even and so the board's total is.
    let mut plans: Vec<Vec<(usize, u32)>> = Vec::new();
    for i in 0..PITS {
        let s = spare(i);
        if s == 0 {
            continue;
        }
        if s % 2 == 0 {
            plans.push(vec![(i, s)]);
        } else {
            for j in (0..PITS).filter(|&j| j != i && spare(j) > 0) {
                plans.push(vec![(i, s), (j, 1)]);
            }
            if s > 1 {
                plans.push(vec![(i, s - 1)]);
            }
        }
        if s > 2 {
            plans.push(vec![(i, 2)]);
        }
        for j in (i + 1..PITS).filter(|&j| spare(j) > 0) {
            plans.push(vec![(i, 1), (j, 1)]);
        }
    }
    let total = |plan: &Vec<(usize, u32)>| plan.iter().map(|&(_, n)| n).sum::<u32>();
    plans.sort_by_key(|plan| std::cmp::Reverse(total(plan)));
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for plan in &plans {
        let removed = total(plan);
        for receiver in Player::BOTH {
            for unlock in [false, true] {
                let mut next: Setup = setup.clone();
                for &(i, n) in plan {
                    next.pits[i] -= n;
                }
                next.captured[receiver.index()] += removed;
                if unlock {
                    next.used[receiver.index()] = [true; 4];
                }
                if let Ok(p) = Position::from_setup(&next)
                    && seen.insert(p)
                {
                    out.push(p);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_valid_smaller_and_keep_the_moved_pit() {
        let p: Position = "9,10,8,3/1,3,1,9 S 0/4 1234/1234".parse().unwrap();
        let s4: Pit = "S4".parse().unwrap();
        let all = candidates(&p, Some(s4));
        assert!(!all.is_empty());
        for c in &all {
            assert!(c.board_stones() < p.board_stones(), "{c}");
            assert!(c.stones(s4) >= 1, "{c}");
        }
        // The biggest reduction comes first: S2's 10 stones.
        assert_eq!(all[0].board_stones(), p.board_stones() - 10);
    }

    #[test]
    fn locked_players_get_no_captures_unless_unlocked() {
        let p = Position::initial();
        for c in candidates(&p, None) {
            for player in Player::BOTH {
                assert!(c.captured(player) == 0 || c.lock_open(player), "{c}");
            }
        }
    }
}
