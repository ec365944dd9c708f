//! Seeded rules bugs for `kpe engine --bug NAME`: a corpus of wrong engines
//! to test that kpe-check catches each one and names the rule it breaks.
//!
//! This is a second, deliberately separate copy of the answer computation
//! (legal moves, a move's result, its reason code when refused), written
//! step by step like `src/rules.rs` so that each [`Bug`] alters exactly one
//! step. With no bug it answers exactly like the reference (a test checks
//! this over random games); `src/rules.rs` itself is never touched.

use std::fmt;
use std::str::FromStr;

use crate::board::{Pit, Player};
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::protocol::{EndClaim, Reply, Request};
use crate::report::Capture;
use crate::rules::Reason;

/// One seeded rules bug. Each breaks one rule, named by [`Bug::rule`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bug {
    /// No bug: the copy answers like the reference (the corpus's control).
    None,
    /// SOW-1: a move that captures is followed by another move of the same
    /// player (an extra turn).
    ExtraTurnAfterCapture,
    /// SOW-2: the origin pit keeps one of its stones.
    OriginKeepsAStone,
    /// SOW-3: stones are sown clockwise (to the pit before).
    SowClockwise,
    /// SOW-4: North's long sowings follow the other reading of I1 than the
    /// profile's (under the default: North skips the origin, South does
    /// not), half of a reading, which no profile explains.
    NorthSkipsOrigin,
    /// SOW-5: relay sowing: when the last stone lands in a pit that already
    /// held stones, they are taken up and sown on, once.
    RelayOnce,
    /// SOW-5: relay sowing lap after lap: for as long as the last stone
    /// lands in a pit that already held stones, they are taken up and sown
    /// on (at most 32 laps).
    RelayUntilEmpty,
    /// LOCK-1: no opening lock at all.
    NoLock,
    /// LOCK-1: the lock is judged on the opponent's used pits.
    LockOnOpponent,
    /// LOCK-1: captures unlock once three pits have been used.
    LockAfterThreePits,
    /// LOCK-2: the origin pit is not marked used.
    OriginNotMarkedUsed,
    /// LOCK-3: North's unlocking move may not capture, South's may (half of
    /// the `strict-lock` reading).
    NorthStrictLock,
    /// CAP-1: a landing pit made 3 is captured too (and a 3 along the
    /// chain).
    TakesThreesToo,
    /// CAP-1: only twos are captured, never fours.
    CaptureOnlyTwos,
    /// CAP-1, under `skip-origin` only: the sowing skips the origin, but
    /// the capture is judged at the pit where the last stone would have
    /// landed had the origin been sown (one pit short on a sowing of 8 or
    /// more), so a mover with every pit used misses the capture the real
    /// landing pit makes (or takes the wrong pit).
    CaptureWhereOriginSown,
    /// CAP-2: the chain also takes the pit after the landing pit.
    ChainAlsoForward,
    /// CAP-2: no chain: only the landing pit is captured.
    NoChain,
    /// CAP-2: the chain runs on past a pit that holds neither 2 nor 4.
    ChainJumpsABreak,
    /// CAP-3: the chain runs on into the mover's own row.
    ChainIntoOwnRow,
    /// CAP-4: captured stones count for the opponent.
    CapturesCountForOpponent,
    /// CAP-4: captured stones are counted but left on the board.
    CapturedStonesStay,
    /// FEED-1: the feeding rule is ignored.
    NoFeeding,
    /// FEED-1: feeding is demanded while the opponent still has one stone.
    FeedingAtOneStone,
    /// FEED-2: a feeding move must land its last stone in the opponent's row.
    FeedMustLandThere,
    /// FEED-3: when no move feeds, only the fullest pit may be played.
    UnfeedablePlaysFullest,
    /// END-1: the game is said to be over when the mover's row is empty
    /// after the move, although the opponent still has a move.
    EndWhenMoverEmpty,
    /// END-2: no sweep: the final totals are the captured stones only.
    NoSweep,
    /// END-2: the sweep gives each row's stones to the other player.
    SweepToOpponent,
    /// RES-1: the totals leave out the captured stones.
    TotalsWithoutCaptures,
    /// MOVE-4: an opponent's empty pit is refused as `empty-pit`.
    EmptyBeforeNotOwn,
    /// MOVE-4: an empty own pit is refused as `feeding-required` while
    /// feeding is required.
    FeedingBeforeEmpty,
    /// MOVE-4: an opponent's pit is refused as `not-own-pit` even when the
    /// game is over.
    NotOwnBeforeGameOver,
    /// END-3: the engine keeps the game it is asked about (each move played
    /// on the position it gave last) and ends it the first time a position
    /// recurs, under any profile. A bug of one reading's value: it shows
    /// while the engine claims `repetition=continues` (the committed
    /// default), which is what tests/bug_corpus.rs claims for it whatever
    /// the default is. The only bug with state.
    EndsOnRepetition,
    /// LOCK-2, in perft only: the engine's perft remembers subtree counts by
    /// a key in which the two players' used-pit rows alias (their union),
    /// so positions that differ only in whose pits were used share one
    /// count. Its `legal` and `play` answers are the reference's.
    PerftUsedRowsAlias,
    /// END-3, in perft only, under `end-on-repetition`: the engine's perft
    /// never takes a position off its repetition history when it leaves a
    /// subtree, so a sequence ends at a position that only an earlier
    /// sequence reached. Its `legal` and `play` answers are the
    /// reference's, and with no repetition rule so is its perft.
    PerftHistoryKept,
    /// MOVE-3, in perft only: a finished game (no legal move) with plies
    /// still to count is counted as one sequence, as if it were a leaf,
    /// where it has no continuations. Its `legal` and `play` answers are
    /// the reference's.
    PerftFinishedCounted,
    /// FEED-2, under `feed-after-capture` only: whether a move feeds is
    /// judged on its sowing followed by its captures even when the mover is
    /// locked and so captures nothing (LOCK-1), so a feeding move whose
    /// would-be captures empty the opponent's row is refused. Under the
    /// default reading of I3 the captures play no part and it answers like
    /// the reference.
    LockedCaptureStarves,
}

impl Bug {
    /// Every bug with its name and the rule it breaks (the control first).
    pub const ALL: [(&'static str, Bug, &'static str); 37] = [
        ("none", Bug::None, ""),
        (
            "extra-turn-after-capture",
            Bug::ExtraTurnAfterCapture,
            "SOW-1",
        ),
        ("origin-keeps-a-stone", Bug::OriginKeepsAStone, "SOW-2"),
        ("sow-clockwise", Bug::SowClockwise, "SOW-3"),
        ("north-skips-origin", Bug::NorthSkipsOrigin, "SOW-4"),
        ("relay-once", Bug::RelayOnce, "SOW-5"),
        ("relay-until-empty", Bug::RelayUntilEmpty, "SOW-5"),
        ("no-lock", Bug::NoLock, "LOCK-1"),
        ("lock-on-opponent", Bug::LockOnOpponent, "LOCK-1"),
        ("lock-after-three-pits", Bug::LockAfterThreePits, "LOCK-1"),
        ("origin-not-marked-used", Bug::OriginNotMarkedUsed, "LOCK-2"),
        ("north-strict-lock", Bug::NorthStrictLock, "LOCK-3"),
        ("takes-threes-too", Bug::TakesThreesToo, "CAP-1"),
        ("capture-only-twos", Bug::CaptureOnlyTwos, "CAP-1"),
        (
            "capture-where-origin-sown",
            Bug::CaptureWhereOriginSown,
            "CAP-1",
        ),
        ("chain-also-forward", Bug::ChainAlsoForward, "CAP-2"),
        ("no-chain", Bug::NoChain, "CAP-2"),
        ("chain-jumps-a-break", Bug::ChainJumpsABreak, "CAP-2"),
        ("chain-into-own-row", Bug::ChainIntoOwnRow, "CAP-3"),
        (
            "captures-count-for-opponent",
            Bug::CapturesCountForOpponent,
            "CAP-4",
        ),
        ("captured-stones-stay", Bug::CapturedStonesStay, "CAP-4"),
        ("no-feeding", Bug::NoFeeding, "FEED-1"),
        ("feeding-at-one-stone", Bug::FeedingAtOneStone, "FEED-1"),
        ("feed-must-land-there", Bug::FeedMustLandThere, "FEED-2"),
        (
            "unfeedable-plays-fullest",
            Bug::UnfeedablePlaysFullest,
            "FEED-3",
        ),
        ("end-when-mover-empty", Bug::EndWhenMoverEmpty, "END-1"),
        ("no-sweep", Bug::NoSweep, "END-2"),
        ("sweep-to-opponent", Bug::SweepToOpponent, "END-2"),
        (
            "totals-without-captures",
            Bug::TotalsWithoutCaptures,
            "RES-1",
        ),
        ("empty-before-not-own", Bug::EmptyBeforeNotOwn, "MOVE-4"),
        ("feeding-before-empty", Bug::FeedingBeforeEmpty, "MOVE-4"),
        (
            "not-own-before-game-over",
            Bug::NotOwnBeforeGameOver,
            "MOVE-4",
        ),
        ("ends-on-repetition", Bug::EndsOnRepetition, "END-3"),
        ("perft-used-rows-alias", Bug::PerftUsedRowsAlias, "LOCK-2"),
        ("perft-history-kept", Bug::PerftHistoryKept, "END-3"),
        (
            "perft-finished-counted",
            Bug::PerftFinishedCounted,
            "MOVE-3",
        ),
        (
            "locked-capture-starves",
            Bug::LockedCaptureStarves,
            "FEED-2",
        ),
    ];

    /// The bug's name, as `--bug` takes it.
    #[must_use]
    pub fn name(self) -> &'static str {
        Bug::ALL
            .iter()
            .find(|(_, b, _)| *b == self)
            .map_or("none", |(n, _, _)| n)
    }

    /// The rule ID the bug breaks (empty for [`Bug::None`]).
    #[must_use]
    pub fn rule(self) -> &'static str {
        Bug::ALL
            .iter()
            .find(|(_, b, _)| *b == self)
            .map_or("", |(_, _, r)| r)
    }
}

impl fmt::Display for Bug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Bug {
    type Err = String;

    fn from_str(s: &str) -> Result<Bug, String> {
        Bug::ALL
            .iter()
            .find(|(name, _, _)| *name == s)
            .map(|&(_, b, _)| b)
            .ok_or_else(|| {
                let names: Vec<&str> = Bug::ALL.iter().map(|(n, _, _)| *n).collect();
                format!("unknown bug `{s}`: expected one of {}", names.join(", "))
            })
    }
}

/// A session of a bugged engine: the bug, and for [`Bug::EndsOnRepetition`]
/// the game it believes it is playing.
#[derive(Clone, Debug)]
pub struct Session {
    bug: Bug,
    /// The positions of the current game, the last one the engine gave.
    game: Vec<Position>,
}

impl Session {
    /// A new session.
    #[must_use]
    pub fn new(bug: Bug) -> Session {
        Session {
            bug,
            game: Vec::new(),
        }
    }

    /// The answer to a `legal` or `play` request; `None` for the others,
    /// which are answered like the reference.
    pub fn answer(&mut self, request: &Request, profile: Profile) -> Option<Reply> {
        let reply = answer(self.bug, request, profile)?;
        if self.bug != Bug::EndsOnRepetition {
            return Some(reply);
        }
        let Request::Play { position, .. } = request else {
            return Some(reply);
        };
        // A move on another position than the last one given starts a new
        // game.
        if self.game.last() != Some(position) {
            self.game = vec![*position];
        }
        let Reply::Played {
            position: after,
            captures,
            end,
        } = reply
        else {
            return Some(reply);
        };
        let Ok(next) = after.parse::<Position>() else {
            return Some(Reply::Played {
                position: after,
                captures,
                end,
            });
        };
        // END-3 (the bug): a recurrence ends the game, under any profile.
        let end = if end.is_none() && self.game.contains(&next) {
            Some(EndClaim {
                totals: crate::rules::sweep(&next),
            })
        } else {
            end
        };
        self.game.push(next);
        Some(Reply::Played {
            position: after,
            captures,
            end,
        })
    }
}

/// The bugged engine's answer to a `legal` or `play` request; `None` for
/// the other requests, which it answers like the reference. Stateless:
/// [`Bug::EndsOnRepetition`] answers like the reference here and needs a
/// [`Session`].
#[must_use]
pub fn answer(bug: Bug, request: &Request, profile: Profile) -> Option<Reply> {
    match *request {
        Request::Legal { position } => Some(Reply::Legal {
            moves: legal(bug, &position, profile),
        }),
        Request::Play { position, pit } => Some(play(bug, &position, pit, profile)),
        Request::Perft { position, depth } if bug == Bug::PerftUsedRowsAlias && depth <= 12 => {
            Some(Reply::Perft {
                nodes: aliased_perft(&position, depth, profile),
            })
        }
        Request::Perft { position, depth } if bug == Bug::PerftHistoryKept && depth <= 12 => {
            let mut history = vec![position];
            Some(Reply::Perft {
                nodes: history_kept_perft(&position, depth, profile, &mut history),
            })
        }
        Request::Perft { position, depth } if bug == Bug::PerftFinishedCounted && depth <= 12 => {
            Some(Reply::Perft {
                nodes: finished_counted_perft(&position, depth, profile),
            })
        }
        _ => None,
    }
}

/// [`Bug::PerftFinishedCounted`]'s perft: a position with no legal move
/// counts 1 however many plies are left (the bug: MOVE-3 gives it none).
/// With no repetition rule, as the sample's tests claim.
fn finished_counted_perft(position: &Position, depth: u32, profile: Profile) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = crate::rules::legal_moves(position, profile);
    if moves.is_empty() {
        return 1;
    }
    moves
        .into_iter()
        .map(|pit| {
            let (child, _) = crate::rules::apply(position, pit, profile);
            finished_counted_perft(&child, depth - 1, profile)
        })
        .sum()
}

/// [`Bug::PerftHistoryKept`]'s perft: under `end-on-repetition` a position
/// already in `history` ends the sequence (END-3), but a position is pushed
/// when its subtree is entered and never popped when it is left (the bug).
fn history_kept_perft(
    position: &Position,
    depth: u32,
    profile: Profile,
    history: &mut Vec<Position>,
) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = crate::rules::legal_moves(position, profile);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut n = 0;
    for pit in moves {
        let (child, _) = crate::rules::apply(position, pit, profile);
        if profile.has(Switch::EndOnRepetition) {
            if history.contains(&child) {
                continue;
            }
            history.push(child);
        }
        n += history_kept_perft(&child, depth - 1, profile, history);
    }
    n
}

/// [`Bug::PerftUsedRowsAlias`]'s perft: its move-making shares one
/// used-pit row between the players (LOCK-2 broken: a pit either player
/// moved from is used for both), so a player counts as unlocked, and
/// captures, once the two between them have used all four pit numbers.
fn aliased_perft(position: &Position, depth: u32, profile: Profile) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    for pit in crate::rules::legal_moves(position, profile) {
        let (mut child, _) = crate::rules::apply(position, pit, profile);
        let shared = child.used[0] | child.used[1];
        child.used = [shared, shared];
        n += aliased_perft(&child, depth - 1, profile);
    }
    n
}

/// The bugged engine's legal moves in `position` under `profile`.
#[must_use]
pub fn legal(bug: Bug, position: &Position, profile: Profile) -> Vec<Pit> {
    Rules { bug, profile }.legal(position)
}

/// The bugged engine's answer to playing `pit` in `position`: `played` or
/// `illegal`.
#[must_use]
pub fn play(bug: Bug, position: &Position, pit: Pit, profile: Profile) -> Reply {
    Rules { bug, profile }.play(position, pit)
}

struct Rules {
    bug: Bug,
    profile: Profile,
}

impl Rules {
    fn is(&self, bug: Bug) -> bool {
        self.bug == bug
    }

    /// MOVE-1, MOVE-2: the non-empty pits of the mover's row.
    fn candidates(p: &Position) -> Vec<Pit> {
        p.to_move()
            .pits()
            .into_iter()
            .filter(|&q| p.stones(q) > 0)
            .collect()
    }

    /// FEED-1: whether the opponent must be fed.
    fn must_feed(&self, p: &Position) -> bool {
        let theirs = p.row_stones(p.to_move().opponent());
        if self.is(Bug::NoFeeding) {
            return false;
        }
        if self.is(Bug::FeedingAtOneStone) {
            return theirs <= 1;
        }
        theirs == 0
    }

    fn legal(&self, p: &Position) -> Vec<Pit> {
        let candidates = Self::candidates(p);
        if candidates.is_empty() || !self.must_feed(p) {
            return candidates;
        }
        let feeding: Vec<Pit> = candidates
            .iter()
            .copied()
            .filter(|&q| self.feeds(p, q))
            .collect();
        if !feeding.is_empty() {
            return feeding;
        }
        // FEED-3 (I4).
        if self.profile.has(Switch::EndWhenUnfeedable) {
            return Vec::new();
        }
        if self.is(Bug::UnfeedablePlaysFullest) {
            let most = candidates.iter().map(|&q| p.stones(q)).max().unwrap_or(0);
            return candidates
                .into_iter()
                .filter(|&q| p.stones(q) == most)
                .take(1)
                .collect();
        }
        candidates
    }

    /// FEED-2 (I3).
    fn feeds(&self, p: &Position, pit: Pit) -> bool {
        let opponent = p.to_move().opponent();
        let (after, sown, landing, _) = self.apply(p, pit);
        if self.is(Bug::FeedMustLandThere) {
            return landing.owner() == opponent;
        }
        if self.profile.has(Switch::FeedAfterCapture) {
            if self.is(Bug::LockedCaptureStarves) {
                // The captures the lock forbids are counted anyway.
                let mut unlocked = *p;
                let (_, landing) = self.sow(&mut unlocked, pit);
                self.mark(&mut unlocked, pit);
                self.capture(&mut unlocked, landing);
                return unlocked.row_stones(opponent) > 0;
            }
            after.row_stones(opponent) > 0
        } else {
            sown.iter().any(|q| q.owner() == opponent)
        }
    }

    fn refuse(&self, p: &Position, pit: Pit, legal: &[Pit]) -> Option<Reason> {
        let over = legal.is_empty();
        let not_own = pit.owner() != p.to_move();
        let empty = p.stones(pit) == 0;
        if self.is(Bug::NotOwnBeforeGameOver) && not_own {
            return Some(Reason::NotOwnPit);
        }
        if over {
            return Some(Reason::GameOver);
        }
        if self.is(Bug::EmptyBeforeNotOwn) && empty {
            return Some(Reason::EmptyPit);
        }
        if not_own {
            return Some(Reason::NotOwnPit);
        }
        if self.is(Bug::FeedingBeforeEmpty) && empty && self.must_feed(p) {
            let feeding_exists = Self::candidates(p).iter().any(|&q| self.feeds(p, q));
            if feeding_exists {
                return Some(Reason::FeedingRequired);
            }
        }
        if empty {
            return Some(Reason::EmptyPit);
        }
        if !legal.contains(&pit) {
            return Some(Reason::FeedingRequired);
        }
        None
    }

    fn play(&self, p: &Position, pit: Pit) -> Reply {
        let legal = self.legal(p);
        if let Some(reason) = self.refuse(p, pit, &legal) {
            return Reply::Illegal {
                reason: reason.code().to_owned(),
            };
        }
        let (after, _, _, captures) = self.apply(p, pit);
        let end = self.over(&after, p.to_move()).then(|| EndClaim {
            totals: self.totals(&after),
        });
        Reply::Played {
            position: after.to_string(),
            captures,
            end,
        }
    }

    /// Sows and captures: the position after the move, the pits sown, the
    /// landing pit, the captures.
    fn apply(&self, p: &Position, pit: Pit) -> (Position, Vec<Pit>, Pit, Vec<Capture>) {
        let mover = p.to_move();
        let mut next = *p;
        let (sown, landing) = self.sow(&mut next, pit);
        self.mark(&mut next, pit);
        let mut captured = Vec::new();
        if self.may_capture(p, &next) {
            captured = self.capture(&mut next, landing);
        }
        // SOW-1: the turn passes.
        next.to_move = if self.is(Bug::ExtraTurnAfterCapture) && !captured.is_empty() {
            mover
        } else {
            mover.opponent()
        };
        (next, sown, landing, captured)
    }

    /// LOCK-2.
    fn mark(&self, p: &mut Position, pit: Pit) {
        if !self.is(Bug::OriginNotMarkedUsed) {
            p.mark_used(pit);
        }
    }

    /// SOW-2 to SOW-5.
    fn sow(&self, p: &mut Position, pit: Pit) -> (Vec<Pit>, Pit) {
        let mover = p.to_move();
        // SOW-4 (I1): whether the origin is passed over under the profile.
        let mut skip_origin = self.profile.has(Switch::SkipOrigin);
        if self.is(Bug::NorthSkipsOrigin) && mover == Player::North {
            skip_origin = !skip_origin;
        }
        let mut sown = Vec::new();
        let mut origin = pit;
        let mut current = pit;
        let mut relayed = false;
        let mut laps = 0;
        loop {
            // SOW-2.
            let mut hand = p.pits[origin.index()];
            if self.is(Bug::OriginKeepsAStone) && hand > 1 && !relayed {
                hand -= 1;
                p.pits[origin.index()] = 1;
            } else {
                p.pits[origin.index()] = 0;
            }
            // 56 steps always end a sowing (as in src/rules.rs).
            for _ in 0..56 {
                if hand == 0 {
                    break;
                }
                // SOW-3.
                current = if self.is(Bug::SowClockwise) {
                    current.prev()
                } else {
                    current.next()
                };
                // SOW-4.
                if current == origin && skip_origin {
                    continue;
                }
                p.pits[current.index()] += 1;
                hand -= 1;
                sown.push(current);
            }
            // SOW-5: single lap, except the relay bugs' relays.
            let relays = (self.is(Bug::RelayOnce) && !relayed)
                || (self.is(Bug::RelayUntilEmpty) && laps < 32);
            if relays && p.pits[current.index()] > 1 {
                relayed = true;
                laps += 1;
                origin = current;
                continue;
            }
            if self.is(Bug::CaptureWhereOriginSown) && skip_origin {
                // The landing pit as if the origin were sown: the pit
                // before the real one when the sowing came round to it.
                let stones = sown.len();
                let landing = (0..stones).fold(pit, |at, _| at.next());
                return (sown, landing);
            }
            return (sown, current);
        }
    }

    /// LOCK-1, LOCK-3.
    fn may_capture(&self, before: &Position, after_sowing: &Position) -> bool {
        let mover = before.to_move();
        if self.is(Bug::NoLock) {
            return true;
        }
        if self.is(Bug::LockOnOpponent) {
            return after_sowing.lock_open(mover.opponent());
        }
        if self.is(Bug::LockAfterThreePits) {
            return after_sowing.used[mover.index()].count_ones() >= 3;
        }
        let strict = if self.is(Bug::NorthStrictLock) {
            mover == Player::North
        } else {
            self.profile.has(Switch::StrictLock)
        };
        if strict {
            before.lock_open(mover)
        } else {
            after_sowing.lock_open(mover)
        }
    }

    fn takes(&self, stones: u8) -> bool {
        if self.is(Bug::TakesThreesToo) {
            return matches!(stones, 2..=4);
        }
        if self.is(Bug::CaptureOnlyTwos) {
            return stones == 2;
        }
        matches!(stones, 2 | 4)
    }

    /// CAP-1 to CAP-4.
    fn capture(&self, p: &mut Position, landing: Pit) -> Vec<Capture> {
        let mover = p.to_move();
        let mut out = Vec::new();
        let opponents = |q: Pit| q.owner() != mover;
        // CAP-1: the landing pit.
        if !opponents(landing) || !self.takes(p.stones(landing)) {
            return out;
        }
        let take = |p: &mut Position, q: Pit, out: &mut Vec<Capture>| {
            let stones = p.stones(q);
            if !self.is(Bug::CapturedStonesStay) {
                p.pits[q.index()] = 0;
            }
            let to = if self.is(Bug::CapturesCountForOpponent) {
                mover.opponent()
            } else {
                mover
            };
            p.captured[to.index()] += stones;
            out.push(Capture { pit: q, stones });
        };
        take(p, landing, &mut out);
        if self.is(Bug::NoChain) {
            return out;
        }
        // CAP-2, CAP-3: backward through the run.
        let mut q = landing.prev();
        let mut jumped = false;
        while opponents(q) || self.is(Bug::ChainIntoOwnRow) {
            if q == landing {
                break;
            }
            if self.takes(p.stones(q)) {
                take(p, q, &mut out);
            } else if self.is(Bug::ChainJumpsABreak) && !jumped && opponents(q.prev()) {
                jumped = true;
            } else {
                break;
            }
            q = q.prev();
        }
        if self.is(Bug::ChainAlsoForward) {
            let after = landing.next();
            if opponents(after) && self.takes(p.stones(after)) {
                take(p, after, &mut out);
            }
        }
        out
    }

    /// END-1 (with FEED-3): whether the game is over in `after`, the mover
    /// of the move having been `mover`.
    fn over(&self, after: &Position, mover: Player) -> bool {
        if self.is(Bug::EndWhenMoverEmpty) && after.row_stones(mover) == 0 {
            return true;
        }
        self.legal(after).is_empty()
    }

    /// END-2, RES-1.
    fn totals(&self, p: &Position) -> [u8; 2] {
        Player::BOTH.map(|player| {
            let captured = p.captured(player);
            let own = p.row_stones(player);
            let other = p.row_stones(player.opponent());
            if self.is(Bug::NoSweep) {
                captured
            } else if self.is(Bug::SweepToOpponent) {
                captured + other
            } else if self.is(Bug::TotalsWithoutCaptures) {
                own
            } else {
                captured + own
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::answer as answer_request;
    use super::*;
    use crate::judge::{Answer, Question, compare, expected};

    fn answer(bug: Bug, q: &Question, profile: Profile) -> Answer {
        match *q {
            Question::Legal(p) => {
                let mut moves = legal(bug, &p, profile);
                moves.sort();
                Answer::Legal(moves)
            }
            Question::Play(p, pit) => {
                Answer::from_reply(play(bug, &p, pit, profile)).unwrap_or_else(|o| panic!("{o:?}"))
            }
        }
    }

    /// Random games under every profile: the copy with no bug gives the
    /// reference's answer to every question, and every bug is seen to
    /// differ somewhere.
    #[test]
    fn the_copy_answers_like_the_reference_and_each_bug_differs() {
        use rand::{RngExt, SeedableRng};
        let mut rng = chacha20::ChaCha8Rng::seed_from_u64(3);
        let mut differs = std::collections::BTreeSet::new();
        for profile in Profile::all() {
            for _ in 0..6 {
                let mut p = Position::initial();
                for _ in 0..120 {
                    let mut questions = vec![Question::Legal(p)];
                    questions.extend(Pit::ALL.map(|pit| Question::Play(p, pit)));
                    for q in &questions {
                        let want = expected(q, profile);
                        assert_eq!(answer(Bug::None, q, profile), want, "{q:?} {profile}");
                        for (name, bug, _) in Bug::ALL {
                            if !differs.contains(name) && answer(bug, q, profile) != want {
                                differs.insert(name);
                            }
                        }
                    }
                    let moves = crate::legal_moves(&p, profile);
                    if moves.is_empty() {
                        break;
                    }
                    let pit = moves[rng.random_range(0..moves.len())];
                    p = crate::play(&p, pit, profile).unwrap().0;
                }
            }
        }
        let missing: Vec<&str> = Bug::ALL
            .iter()
            .map(|(n, _, _)| *n)
            // The one bug with state shows only in a session (tests/bug_corpus.rs);
            // the perft-only bug only in perft (tests/edges.rs); the bug of
            // one reading's edge is too rare for random play (which is why
            // it is here) and is checked where it lives, below.
            .filter(|n| {
                ![
                    "none",
                    "ends-on-repetition",
                    "perft-used-rows-alias",
                    "perft-history-kept",
                    "perft-finished-counted",
                    "locked-capture-starves",
                ]
                .contains(n)
                    && !differs.contains(n)
            })
            .collect();
        assert!(missing.is_empty(), "bugs never seen: {missing:?}");
    }

    #[test]
    fn the_edge_bugs_differ_where_they_should_and_nowhere_else() {
        // locked-capture-starves: South is locked (only S4 used), North's
        // row is empty; S4's sowing would capture every pit of North's row
        // if South could capture, which it cannot.
        let p: Position = "6,6,6,12/0,0,0,0 S 0/18 ---4/1234".parse().unwrap();
        let fac = Profile::with(&[Switch::FeedAfterCapture]);
        let all: Vec<Pit> = ["S1", "S2", "S3", "S4"]
            .map(|s| s.parse().unwrap())
            .to_vec();
        assert_eq!(crate::legal_moves(&p, fac).to_vec(), all);
        assert_eq!(legal(Bug::LockedCaptureStarves, &p, fac), all[..3].to_vec());
        let by_sowing = fac.set(Switch::FeedAfterCapture, false);
        assert_eq!(
            legal(Bug::LockedCaptureStarves, &p, by_sowing),
            crate::legal_moves(&p, by_sowing).to_vec()
        );
        // perft-used-rows-alias: right answers, a wrong count at depth 5
        // (under the default, whichever it is: the first depth where the
        // count parts is found, not stated).
        let root = Position::initial();
        let profile = Profile::DEFAULT;
        let parts = (1..=7).find(|&depth| {
            let request = Request::Perft {
                position: root,
                depth,
            };
            super::answer(Bug::PerftUsedRowsAlias, &request, profile)
                != Some(Reply::Perft {
                    nodes: crate::perft(&root, depth, profile),
                })
        });
        assert!(parts.is_some(), "the aliased perft never parts by depth 7");
        assert_eq!(
            legal(Bug::PerftUsedRowsAlias, &root, profile),
            crate::legal_moves(&root, profile).to_vec()
        );
        // Under the all-off profile, the figures of issue 23.
        let request = Request::Perft {
            position: root,
            depth: 5,
        };
        assert_eq!(
            super::answer(Bug::PerftUsedRowsAlias, &request, Profile::ALL_OFF),
            Some(Reply::Perft { nodes: 951 })
        );
        assert_eq!(crate::perft(&root, 5, Profile::ALL_OFF), 952);
    }

    #[test]
    fn a_capture_judged_where_the_origin_would_be_sown_cites_cap_1() {
        // The suite's `cap-north-wrap-from-n4-origin-skipped-captures`:
        // under skip-origin N4's eight stones pass over N4 and the last
        // makes 2 in S1; the engine looks for the capture in N4, its own
        // pit. North has used every pit: CAP-1, not the lock (issue 43).
        let skip = Profile::with(&[Switch::SkipOrigin]);
        let question = Question::Play(
            "0,5,9,6/7,3,6,8 N 2/2 1234/1234".parse().unwrap(),
            "N4".parse().unwrap(),
        );
        let claimed = answer(Bug::CaptureWhereOriginSown, &question, skip);
        let m = compare(&question, &claimed, skip).expect("the capture is missed");
        assert_eq!(m.rules, ["CAP-1"], "{:?}", m.fields);
        // With the origin sown the two landing pits are one: no bug.
        let sown = skip.set(Switch::SkipOrigin, false);
        assert_eq!(
            answer(Bug::CaptureWhereOriginSown, &question, sown),
            expected(&question, sown)
        );
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_listed() {
        for (name, bug, rule) in Bug::ALL {
            assert_eq!(name.parse::<Bug>(), Ok(bug));
            assert_eq!(bug.to_string(), name);
            assert_eq!(bug.rule(), rule);
        }
        // A bug's name never names a reading: a bug and a reading of the
        // same name would read as the same thing in a report.
        for (name, _, _) in Bug::ALL {
            for s in Switch::ALL {
                let words = [
                    s.name(),
                    s.setting(),
                    s.reading(),
                    s.values()[0],
                    s.values()[1],
                ];
                assert!(
                    !words.contains(&name),
                    "bug `{name}` is named like reading {}",
                    s.reading()
                );
            }
        }
        let err = "nope".parse::<Bug>().unwrap_err();
        assert!(
            err.contains("`nope`") && err.contains("chain-also-forward"),
            "{err}"
        );
    }

    /// The profile the citation examples below were found under: the
    /// all-off one, stated so that they hold whatever the default is.
    const EXAMPLES: Profile = Profile::ALL_OFF;

    /// The engine of `bug` asked `question`.
    fn bugged(bug: &str, question: &Question) -> Answer {
        let bug: Bug = bug.parse().unwrap();
        let reply = answer_request(bug, &question.request(), EXAMPLES).unwrap();
        match reply {
            crate::protocol::Reply::Legal { mut moves } => {
                moves.sort();
                Answer::Legal(moves)
            }
            other => Answer::from_reply(other).unwrap_or_else(|o| panic!("{o:?}")),
        }
    }

    #[test]
    fn the_rule_cited_is_the_step_the_engine_got_wrong() {
        // The examples of issue 9, each cited wrongly before.
        for (bug, position, question, rules) in [
            // The chain also takes the pit after the landing pit: CAP-2,
            // not CAP-3.
            (
                "chain-also-forward",
                "0,28,3,2/2,5,1,7 N 0/0 1-34/1234",
                Some("N2"),
                vec!["CAP-2"],
            ),
            // The lock judged on the opponent's used pits: LOCK-1, not
            // CAP-1 and CAP-4.
            (
                "lock-on-opponent",
                "0,4,0,0/7,1,0,0 S 36/0 1234/-234",
                Some("S2"),
                vec!["LOCK-1"],
            ),
            // Feeding demanded while North still has a stone: FEED-1, not
            // MOVE-1 and MOVE-2.
            (
                "feeding-at-one-stone",
                "1,2,0,4/0,0,1,0 S 20/20 1234/1234",
                None,
                vec!["FEED-1"],
            ),
            // Captured stones credited to the opponent: CAP-4 alone.
            (
                "captures-count-for-opponent",
                "9,10,8,3/1,3,1,9 S 0/4 1234/1234",
                Some("S4"),
                vec!["CAP-4"],
            ),
            // Relay lap after lap (issue 43): from the start S3's stones
            // land in S1, relayed to N4, then round to N4 itself: SOW-5,
            // not SOW-2 and SOW-3.
            (
                "relay-until-empty",
                "6,6,6,6/6,6,6,6 S 0/0 ----/----",
                Some("S3"),
                vec!["SOW-5"],
            ),
            // An empty own pit refused as feeding-required: MOVE-4.
            (
                "feeding-before-empty",
                "3,0,1,2/0,0,0,0 S 20/22 1234/1234",
                Some("S2"),
                vec!["MOVE-4"],
            ),
        ] {
            let position: Position = position.parse().unwrap();
            let question = match question {
                Some(pit) => Question::Play(position, pit.parse().unwrap()),
                None => Question::Legal(position),
            };
            let claimed = bugged(bug, &question);
            let m = compare(&question, &claimed, EXAMPLES)
                .unwrap_or_else(|| panic!("{bug}: no divergence"));
            assert_eq!(m.rules, rules, "{bug}: {:?}", m.fields);
        }
        // The legal moves say what is missing.
        let question = Question::Legal("1,2,0,4/0,0,1,0 S 20/20 1234/1234".parse().unwrap());
        let m = compare(
            &question,
            &bugged("feeding-at-one-stone", &question),
            EXAMPLES,
        )
        .unwrap();
        let missing = &m.fields[0].details[0];
        assert_eq!(
            (missing.field, missing.expected.as_str()),
            ("legal.missing", "S1 S2")
        );
        // A pit named twice is one too many.
        let twice = Answer::Legal(vec![
            Pit::ALL[0],
            Pit::ALL[0],
            Pit::ALL[1],
            Pit::ALL[2],
            Pit::ALL[3],
        ]);
        let m = compare(&Question::Legal(Position::initial()), &twice, EXAMPLES).unwrap();
        let extra = &m.fields[0].details[0];
        assert_eq!((extra.field, extra.claimed.as_str()), ("legal.extra", "S1"));
    }
}
