//! Replaying a game with the reference rules and comparing each ply with
//! what the engine claimed.

use rustc_hash::FxHashMap;

use crate::board::Pit;
use crate::game::{Game, Outcome};
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::report::{Capture, End, EndReason, Report};
use crate::rules::{self, Moves, Reason};

use crate::transcript::Ply;

/// Which claimed fields of a ply differ from the rules' answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mismatch(u8);

impl Mismatch {
    pub(crate) const LEGAL: Mismatch = Mismatch(1);
    pub(crate) const MOVE: Mismatch = Mismatch(2);
    pub(crate) const AFTER: Mismatch = Mismatch(4);
    pub(crate) const CAPTURES: Mismatch = Mismatch(8);
    pub(crate) const GAME_OVER: Mismatch = Mismatch(16);
    pub(crate) const TOTALS: Mismatch = Mismatch(32);
    /// Every field, in the order reports list them.
    pub(crate) const FIELDS: [Mismatch; 6] = [
        Mismatch::LEGAL,
        Mismatch::MOVE,
        Mismatch::AFTER,
        Mismatch::CAPTURES,
        Mismatch::GAME_OVER,
        Mismatch::TOTALS,
    ];

    pub(crate) fn any(self) -> bool {
        self.0 != 0
    }

    pub(crate) fn has(self, field: Mismatch) -> bool {
        self.0 & field.0 != 0
    }

    fn add(&mut self, field: Mismatch) {
        self.0 |= field.0;
    }
}

/// A refused move: the reason, and for `game-over` how the game had ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) reason: Reason,
    pub(crate) end: Option<End>,
}

/// Compares a claim with the rules' answer, field by field.
pub(crate) fn compare(
    claim: &Ply,
    legal: Option<&Moves>,
    result: &Result<(Position, Report), Refusal>,
) -> Mismatch {
    let mut m = Mismatch::default();
    if let (Some(claimed), Some(legal)) = (&claim.legal, legal)
        && !same_moves(claimed, legal)
    {
        m.add(Mismatch::LEGAL);
    }
    match result {
        Err(_) => m.add(Mismatch::MOVE),
        Ok((after, report)) => {
            if !claim.after.is(after) {
                m.add(Mismatch::AFTER);
            }
            if let Some(captures) = &claim.captures
                && !same_captures(captures, &report.captures)
            {
                m.add(Mismatch::CAPTURES);
            }
            if let Some(over) = claim.game_over
                && over != report.end.is_some()
            {
                m.add(Mismatch::GAME_OVER);
            }
            if let Some(totals) = claim.totals
                && Some(totals) != report.end.map(|e| e.totals)
            {
                m.add(Mismatch::TOTALS);
            }
        }
    }
    m
}

/// The same pits, in any order (a pit named twice is named).
pub(crate) fn same_moves(claimed: &[Pit], legal: &[Pit]) -> bool {
    let set = |pits: &[Pit]| pits.iter().fold(0u8, |set, p| set | 1 << p.index());
    set(claimed) == set(legal)
}

/// The same captures, in any order.
pub(crate) fn same_captures(claimed: &[Capture], captures: &[Capture]) -> bool {
    claimed.len() == captures.len()
        && claimed.iter().all(|c| captures.contains(c))
        && captures.iter().all(|c| claimed.contains(c))
}

/// Positions hashed fast (FxHash): SipHash's protection against chosen
/// collisions buys nothing when the only one slowed down would be the
/// file's own author.
type PositionMap<V> = FxHashMap<Position, V>;

/// The positions since the last capture or newly used pit. Captured counts
/// and used pits never go back, so a position can only recur within this
/// stretch: it is all the history the repetition rule (END-3) needs.
///
/// Each position of the stretch is kept once, with the move last played
/// from it, however often the game comes back to it: a game that circles
/// for millions of plies keeps a handful of positions. Following those
/// moves from any position of the stretch leads to the current one without
/// passing any position twice (each step goes to a later last visit), which
/// is the way a reproduction replays the stretch.
#[derive(Clone, Debug)]
pub(crate) struct History {
    pub(crate) start: Position,
    /// Each position of the stretch once, in the order they first
    /// occurred, with the move last played from it.
    visits: Vec<Visit>,
    /// Where each position is in `visits`, once there are more than
    /// [`LISTED`] of them; empty before.
    place: PositionMap<usize>,
    /// The current position's place in `visits`.
    at: usize,
}

/// A position of the stretch and the move last played from it (`None`
/// while it has not been left).
#[derive(Clone, Copy, Debug)]
struct Visit {
    position: Position,
    left_by: Option<Pit>,
}

/// A stretch of up to this many positions is searched straight through:
/// most stretches are that short (a capture or a newly used pit ends them),
/// and looking through a few positions costs less than hashing one.
const LISTED: usize = 16;

impl History {
    fn new(start: Position) -> History {
        let mut history = History {
            start,
            visits: Vec::new(),
            place: PositionMap::default(),
            at: 0,
        };
        history.restart(start);
        history
    }

    /// The current position.
    fn current(&self) -> Position {
        self.visits[self.at].position
    }

    /// Where `position` is in `visits`, if it occurred in the stretch.
    fn find(&self, position: &Position) -> Option<usize> {
        if self.place.is_empty() {
            self.visits.iter().position(|v| v.position == *position)
        } else {
            self.place.get(position).copied()
        }
    }

    /// Whether `position` occurred earlier in the game.
    pub(crate) fn contains(&self, position: &Position) -> bool {
        self.find(position).is_some()
    }

    /// How many distinct positions the stretch holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.visits.len()
    }

    /// The move last played from `position`, if it is in the stretch and
    /// was left.
    fn last_move(&self, position: &Position) -> Option<Pit> {
        self.visits[self.find(position)?].left_by
    }

    /// Moves on to `next` by `mv`; whether `next` occurred earlier. One
    /// search a ply: the current position's move is kept by its place.
    fn push(&mut self, mv: Pit, next: Position) -> bool {
        let same_stretch = next.captured == self.start.captured && next.used == self.start.used;
        if !same_stretch {
            // A new stretch, which no earlier position is in.
            self.restart(next);
            return false;
        }
        self.visits[self.at].left_by = Some(mv);
        if let Some(at) = self.find(&next) {
            self.at = at;
            return true;
        }
        self.at = self.visits.len();
        self.visits.push(Visit {
            position: next,
            left_by: None,
        });
        if !self.place.is_empty() {
            self.place.insert(next, self.at);
        } else if self.visits.len() > LISTED {
            let places = self.visits.iter().enumerate();
            self.place.extend(places.map(|(at, v)| (v.position, at)));
        }
        false
    }

    /// A new stretch from `start`; the list and the map keep their room
    /// (no allocation per capture).
    fn restart(&mut self, start: Position) {
        self.visits.clear();
        self.visits.push(Visit {
            position: start,
            left_by: None,
        });
        self.place.clear();
        self.at = 0;
        self.start = start;
    }

    /// The moves from `from`, a position of the stretch, to the current
    /// position, played under `profile` (the game's own), passing no
    /// position twice; `None` if `from` is not in the stretch.
    pub(crate) fn path(&self, from: Position, profile: Profile) -> Option<Vec<Pit>> {
        let mut at = from;
        let mut moves = Vec::new();
        while at != self.current() {
            let mv = self.last_move(&at)?;
            moves.push(mv);
            if moves.len() > self.visits.len() {
                return None;
            }
            at = rules::play(&at, mv, profile).ok()?.0;
        }
        Some(moves)
    }

    /// The moves from the last earlier occurrence of the current position
    /// back to it, when it has occurred before.
    pub(crate) fn cycle(&self, profile: Profile) -> Option<Vec<Pit>> {
        let mv = self.last_move(&self.current())?;
        let next = rules::play(&self.current(), mv, profile).ok()?.0;
        let mut moves = vec![mv];
        moves.extend(self.path(next, profile)?);
        Some(moves)
    }
}

/// One game being replayed under one profile.
#[derive(Clone, Debug)]
pub(crate) struct GameCheck {
    pub(crate) profile: Profile,
    pub(crate) position: Position,
    /// Whether `position` had occurred earlier in the game.
    pub(crate) repeated: bool,
    pub(crate) history: History,
    /// How the game stands now under its own profile: the last move's
    /// report says it, so it is not worked out again for the next move.
    end: Option<End>,
}

impl GameCheck {
    pub(crate) fn new(start: Position, profile: Profile) -> GameCheck {
        let mut check = GameCheck {
            profile,
            position: start,
            repeated: false,
            history: History::new(start),
            end: None,
        };
        check.end = check.end_now(profile);
        check
    }

    /// The same check of a new game from `start`, keeping the room the
    /// history took.
    pub(crate) fn restart(&mut self, start: Position) {
        self.position = start;
        self.repeated = false;
        self.history.restart(start);
        self.end = self.end_now(self.profile);
    }

    /// The rules' answer to `mv` now under the game's own profile; the legal
    /// moves only when asked for.
    pub(crate) fn answer(
        &self,
        mv: Pit,
        with_legal: bool,
    ) -> (Option<Moves>, Result<(Position, Report), Refusal>) {
        self.answer_under(self.profile, mv, with_legal)
    }

    /// How the game stands now under `profile`: over or not, and why.
    pub(crate) fn end_under(&self, profile: Profile) -> Option<End> {
        if profile == self.profile {
            return self.end;
        }
        self.end_now(profile)
    }

    /// [`Self::end_under`], worked out from the position and the history.
    fn end_now(&self, profile: Profile) -> Option<End> {
        let reason = rules::game_over(&self.position, profile).or_else(|| {
            // END-3 (I5): the first recurrence ends the game.
            (self.repeated && profile.has(Switch::EndOnRepetition)).then_some(EndReason::Repetition)
        })?;
        Some(End {
            reason,
            totals: rules::sweep(&self.position),
        })
    }

    /// The rules' answer to `mv` in this same game (same position, same
    /// history) under any `profile`.
    pub(crate) fn answer_under(
        &self,
        profile: Profile,
        mv: Pit,
        with_legal: bool,
    ) -> (Option<Moves>, Result<(Position, Report), Refusal>) {
        if let Some(end) = self.end_under(profile) {
            // MOVE-3: no move once the game is over.
            let refusal = Refusal {
                reason: Reason::GameOver,
                end: Some(end),
            };
            return (with_legal.then(Moves::new), Err(refusal));
        }
        let legal = with_legal.then(|| rules::legal_moves(&self.position, profile));
        let result = match rules::play(&self.position, mv, profile) {
            Err(e) => Err(Refusal {
                reason: e.reason,
                end: None,
            }),
            Ok((next, mut report)) => {
                // END-3 (I5): the first recurrence ends the game.
                if report.end.is_none()
                    && profile.has(Switch::EndOnRepetition)
                    && self.history.contains(&next)
                {
                    report.end = Some(End {
                        reason: EndReason::Repetition,
                        totals: rules::sweep(&next),
                    });
                }
                Ok((next, report))
            }
        };
        (legal, result)
    }

    /// Checks one claimed ply. On success the game moves on and the move's
    /// report comes back; on a mismatch nothing changes, so the caller can
    /// diagnose it from the position before.
    pub(crate) fn step(&mut self, claim: &Ply) -> Result<Report, Mismatch> {
        let (legal, result) = self.answer(claim.mv, claim.legal.is_some());
        let mismatch = compare(claim, legal.as_ref(), &result);
        if mismatch.any() {
            return Err(mismatch);
        }
        let Ok((next, report)) = result else {
            unreachable!("a refused move is a mismatch")
        };
        self.repeated = self.history.push(claim.mv, next);
        self.position = next;
        // The report's end is `end_now` at `next`: the rules' end or, for
        // END-3, the first recurrence (`answer_under`).
        self.end = report.end;
        Ok(report)
    }
}

/// What the rules say at the last move of `moves` played from `start`, by
/// replaying them as a [`Game`] (which applies END-3 from `start` on).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Replay {
    /// The legal moves before the last move.
    pub(crate) legal: Vec<Pit>,
    /// After the last move: the position, its captures and how the game
    /// stands; or the 1-based ply of the first refused move and why.
    pub(crate) last: Result<(Position, Vec<Capture>, Outcome), (usize, Reason)>,
}

pub(crate) fn replay(start: Position, moves: &[Pit], profile: Profile) -> Replay {
    let mut game = Game::new(start, profile);
    let mut legal = Vec::new();
    for (i, &mv) in moves.iter().enumerate() {
        if i + 1 == moves.len() {
            legal = game.legal_moves().to_vec();
        }
        if let Err(e) = game.play(mv) {
            return Replay {
                legal,
                last: Err((i + 1, e.reason)),
            };
        }
    }
    let captures = game
        .reports()
        .last()
        .map(|r| r.captures.to_vec())
        .unwrap_or_default();
    Replay {
        legal,
        last: Ok((*game.current(), captures, game.outcome())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claimed_legal_moves_are_compared_as_sets() {
        let pits =
            |names: &[&str]| -> Vec<Pit> { names.iter().map(|m| m.parse().unwrap()).collect() };
        let legal = pits(&["S1", "S3"]);
        assert!(same_moves(&pits(&["S3", "S1"]), &legal));
        assert!(same_moves(&pits(&["S1", "S3", "S1"]), &legal));
        assert!(!same_moves(&pits(&["S1"]), &legal));
        assert!(!same_moves(&pits(&["S1", "S3", "S4"]), &legal));
        assert!(!same_moves(&pits(&["S1", "N3"]), &legal));
        assert!(!same_moves(&[], &legal));
        assert!(same_moves(&[], &[]));
    }

    #[test]
    fn a_game_circling_for_ever_keeps_each_position_once() {
        // Issue 9 item 6: memory grew with every ply of a long game. One
        // stone each, four pits apart: the game comes back every 8 plies.
        let start: Position = "1,0,0,0/1,0,0,0 S 22/24 1234/1234".parse().unwrap();
        let cycle: Vec<Pit> = ["S1", "N1", "S2", "N2", "S3", "N3", "S4", "N4"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        // Stated against the all-off profile (repetition=continues), so the
        // game goes on past each recurrence whatever the default is.
        let profile = Profile::ALL_OFF;
        let mut check = GameCheck::new(start, profile);
        for k in 0..80_005 {
            let mv = cycle[k % cycle.len()];
            let (next, _) = rules::play(&check.position, mv, profile).unwrap();
            check.step(&Ply::new(mv, &next)).unwrap();
        }
        assert_eq!(check.history.len(), 8);
        assert!(check.repeated);
        // From any position of the stretch, a way to the current one that
        // passes no position twice, and that the rules replay.
        let mut at = start;
        for &mv in &cycle {
            let path = check.history.path(at, profile).unwrap();
            assert!(path.len() < 8, "{path:?}");
            let game = Game::replay(at, profile, &path).unwrap();
            assert_eq!(game.current(), &check.position);
            at = rules::play(&at, mv, profile).unwrap().0;
        }
        // The current position came before: the moves back to it.
        let cycle_back = check.history.cycle(profile).unwrap();
        assert_eq!(cycle_back.len(), 8);
        let game = Game::replay(check.position, profile, &cycle_back).unwrap();
        assert_eq!(game.current(), &check.position);
        // A position outside the stretch has no way.
        assert_eq!(check.history.path(Position::initial(), profile), None);
    }

    #[test]
    fn the_history_answers_as_a_plain_list_of_the_stretch_would() {
        // Random games, checked against the whole stretch kept in a list:
        // whether each position came before, and a way from earlier
        // positions to the current one. Long stretches are searched by
        // the map, short ones straight through; both must be reached.
        // Stated against the all-off profile (repetition=continues), so the
        // game goes on past each recurrence whatever the default is.
        let profile = Profile::ALL_OFF;
        let (mut long_stretches, mut seen_in_long) = (0, 0);
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..400 {
            let mut check = GameCheck::new(Position::initial(), profile);
            let mut stretch = vec![check.position];
            for _ in 0..300 {
                let legal = rules::legal_moves(&check.position, profile);
                if legal.is_empty() {
                    break;
                }
                let mv = crate::testing::pick(&mut seed, &legal);
                let (next, _) = rules::play(&check.position, mv, profile).unwrap();
                if next.captured != stretch[0].captured || next.used != stretch[0].used {
                    stretch.clear();
                }
                let seen = stretch.contains(&next);
                assert_eq!(check.history.contains(&next), seen);
                check.step(&Ply::new(mv, &next)).unwrap();
                assert_eq!(check.repeated, seen);
                if !seen {
                    stretch.push(next);
                }
                assert_eq!(check.history.len(), stretch.len());
                if stretch.len() > LISTED {
                    long_stretches += 1;
                    seen_in_long += usize::from(seen);
                }
                let from = stretch[(seed >> 32) as usize % stretch.len()];
                let path = check.history.path(from, profile).unwrap();
                assert!(path.len() < stretch.len(), "{path:?}");
                let game = Game::replay(from, profile, &path).unwrap();
                assert_eq!(game.current(), &check.position);
            }
        }
        assert!(
            long_stretches > 100 && seen_in_long > 0,
            "{long_stretches} {seen_in_long}"
        );
    }

    #[test]
    fn a_capture_or_a_newly_used_pit_starts_a_new_stretch() {
        let mut check = GameCheck::new(Position::initial(), Profile::DEFAULT);
        let mv: Pit = "S1".parse().unwrap();
        let (next, _) = rules::play(&check.position, mv, Profile::DEFAULT).unwrap();
        check.step(&Ply::new(mv, &next)).unwrap();
        // S1 is newly used: the initial position cannot recur.
        assert_eq!(check.history.len(), 1);
        assert!(!check.history.contains(&Position::initial()));
    }
}
