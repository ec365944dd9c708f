//! The opening: exact values of the positions before the lock, on top of
//! the post-lock table (spec/SOLVE.md, "The opening").
//!
//! Before both players have used all four pits, play cannot go round: every
//! move raises the [`Potential`] of the position (proved in spec/SOLVE.md
//! and tested). So the positions before the lock form an acyclic graph
//! whose leaves are the end of the game and the positions after the lock,
//! which the table values; a depth-first search that remembers what it has
//! valued ([`Opening`]) gives every one of them its exact value with each
//! position visited once. Moves are the reference rules' own
//! (`rules::legal_moves`, `rules::apply`), as in the table's solve.
//!
//! Here, as in the table, a position is *normalised* to South to move: a
//! position with North to move is its board turned round with the used
//! pits swapped. Captured counts do not change the play and are dropped.

use std::cmp::Reverse;
use std::time::Instant;

use arrayvec::ArrayVec;

use crate::board::{PITS, Player, ROW, TOTAL_STONES};
use crate::position::Position;
use crate::profile::Profile;
use crate::rules;

use super::file::TableError;
use super::memo::{Memo, Sorted};
use super::moves::sweep_margin;
use super::rank::{rank, turn};

/// All four pits of a player used: their captures are unlocked (LOCK-1).
const ALL_USED: u8 = 0b1111;

/// The potential of a position before the lock: what every move raises,
/// so that no position before the lock comes back (spec/SOLVE.md).
///
/// Compared in this order: more pits used is higher; then fewer stones on
/// the board; then more stones in pits their owner has never used; then a
/// smaller [`Potential::distance`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Potential {
    /// Pits used by their owner, both players together (0..=8).
    pub used_pits: u8,
    /// Stones on the board.
    pub board_stones: u8,
    /// Stones lying in pits their owner has never used.
    pub unused_stones: u8,
    /// The sum, over the stones on the board, of how many pits on in
    /// sowing order the nearest never-used pit is (0 for a stone lying in
    /// one); 0 when every pit is used.
    pub distance: u16,
}

impl Potential {
    /// The potential of `position`.
    #[must_use]
    pub fn of(position: &Position) -> Potential {
        let never_used = |i: usize| {
            let owner = i / ROW;
            position.used[owner] & (1 << (i % ROW)) == 0
        };
        let mut potential = Potential {
            used_pits: (position.used[0].count_ones() + position.used[1].count_ones()) as u8,
            board_stones: position.board_stones(),
            unused_stones: 0,
            distance: 0,
        };
        for i in 0..PITS {
            let stones = position.pits[i];
            if never_used(i) {
                potential.unused_stones += stones;
            }
            if let Some(d) = (0..PITS).find(|&d| never_used((i + d) % PITS)) {
                potential.distance += u16::from(stones) * d as u16;
            }
        }
        potential
    }

    /// The order of potentials: what a move must raise.
    fn order(self) -> (u8, Reverse<u8>, u8, Reverse<u16>) {
        (
            self.used_pits,
            Reverse(self.board_stones),
            self.unused_stones,
            Reverse(self.distance),
        )
    }
}

impl PartialOrd for Potential {
    fn partial_cmp(&self, other: &Potential) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Potential {
    fn cmp(&self, other: &Potential) -> std::cmp::Ordering {
        self.order().cmp(&other.order())
    }
}

/// Whether both players' captures are unlocked: the table's positions.
pub(crate) fn after_lock(position: &Position) -> bool {
    Player::BOTH.iter().all(|&p| position.lock_open(p))
}

/// A position with South to move, standing for itself or, turned, for the
/// same position with North to move: board and used pits (mover first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct State {
    pub board: [u8; PITS],
    pub used: [u8; 2],
}

impl State {
    /// The normalised state of `position`.
    pub(crate) fn of(position: &Position) -> State {
        match position.to_move() {
            Player::South => State {
                board: position.pits,
                used: position.used,
            },
            Player::North => State {
                board: turn(&position.pits),
                used: [position.used[1], position.used[0]],
            },
        }
    }

    /// The position of the state: South to move, the stones off the board
    /// counted as South's captures (they change no play).
    pub(crate) fn position(self) -> Position {
        let on_board: u8 = self.board.iter().sum();
        Position {
            pits: self.board,
            captured: [TOTAL_STONES - on_board, 0],
            to_move: Player::South,
            used: self.used,
        }
    }

    /// Whether both locks are open.
    fn after_lock(self) -> bool {
        self.used == [ALL_USED; 2]
    }

    /// The state's key: stones on the board (6 bits), the board's rank
    /// among boards of as many stones (28 bits), the mover's used pits and
    /// the opponent's (4 bits each): 42 bits. Keys of boards with the same
    /// stones sort by rank.
    pub(crate) fn key(self) -> u64 {
        let stones: u8 = self.board.iter().sum();
        u64::from(stones) << 36
            | rank(&self.board) << 8
            | u64::from(self.used[0]) << 4
            | u64::from(self.used[1])
    }
}

/// The most bits a key takes.
#[cfg(test)]
const KEY_BITS: u32 = 42;

/// Where the values the opening stands on come from: the table after the
/// lock, and values already known before it (an opening file).
pub(crate) trait Known {
    /// The table's margin for a state after the lock.
    ///
    /// # Errors
    ///
    /// When the layer is missing or refused.
    fn after_lock(&self, board: &[u8; PITS]) -> Result<i8, TableError>;

    /// A value known before the search, if any.
    ///
    /// # Errors
    ///
    /// When the opening file cannot be read.
    fn before_lock(&self, _key: u64) -> Result<Option<i8>, TableError> {
        Ok(None)
    }
}

/// One move of a position on the search's stack: its captures, the state
/// it leads to, and that state's value if it was known when the position
/// was put on the stack.
#[derive(Clone, Copy)]
struct Child {
    captured: i8,
    state: State,
    known: Option<i8>,
}

/// One position on the search's stack: its moves, the next to try and the
/// best margin so far.
struct Frame {
    state: State,
    children: ArrayVec<Child, ROW>,
    next: usize,
    best: i8,
}

/// Why a search stopped before its value.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// `tick` said stop.
    Asked,
    /// The table could not be read.
    Table(TableError),
}

impl From<TableError> for Stopped {
    fn from(e: TableError) -> Stopped {
        Stopped::Table(e)
    }
}

/// The positions valued between two calls of a search's `tick`.
pub const TICK: u64 = 1 << 16;

/// The exact values of positions before the lock under one profile, from
/// the values after it: a depth-first search that remembers every value it
/// finds, so each position is valued once.
pub(crate) struct Opening {
    profile: Profile,
    memo: Memo,
    /// Positions valued so far.
    pub solved: u64,
}

impl Opening {
    /// A search under `profile` with nothing remembered yet.
    pub(crate) fn new(profile: Profile) -> Opening {
        Opening {
            profile,
            memo: Memo::new(),
            solved: 0,
        }
    }

    /// The margin the mover of `position` can force from here on (its
    /// captures to come and the end sweep, minus the opponent's).
    /// `tick` is called with the positions valued so far every [`TICK`] of
    /// them, and stops the search by returning `false`.
    pub(crate) fn value(
        &mut self,
        position: &Position,
        known: &dyn Known,
        tick: &mut dyn FnMut(u64) -> bool,
    ) -> Result<i8, Stopped> {
        self.value_of(State::of(position), known, tick)
    }

    /// What is known of `state` without searching: the table's value after
    /// the lock, or a remembered or stored value before it.
    fn known(&self, state: State, known: &dyn Known) -> Result<Option<i8>, TableError> {
        if state.after_lock() {
            return known.after_lock(&state.board).map(Some);
        }
        let key = state.key();
        if let Some(v) = self.memo.get(key) {
            return Ok(Some(v));
        }
        known.before_lock(key)
    }

    fn value_of(
        &mut self,
        root: State,
        known: &dyn Known,
        tick: &mut dyn FnMut(u64) -> bool,
    ) -> Result<i8, Stopped> {
        if let Some(v) = self.known(root, known)? {
            return Ok(v);
        }
        let mut stack = vec![self.frame(root, known)?];
        loop {
            let frame = stack.last_mut().expect("the stack ends with the root");
            if frame.next == frame.children.len() {
                // Every move valued: the best is this position's value.
                let (state, value) = (frame.state, frame.best);
                self.memo.insert(state.key(), value);
                self.solved += 1;
                if self.solved.is_multiple_of(TICK) && !tick(self.solved) {
                    return Err(Stopped::Asked);
                }
                stack.pop();
                let Some(parent) = stack.last_mut() else {
                    return Ok(value);
                };
                let captured = parent.children[parent.next].captured;
                parent.best = parent.best.max(captured - value);
                parent.next += 1;
                continue;
            }
            let child = frame.children[frame.next];
            // A move's state unknown when the frame was made may have been
            // valued since, in the search below an earlier move.
            let value = match child.known {
                Some(v) => Some(v),
                None => self.known(child.state, known)?,
            };
            match value {
                Some(v) => {
                    frame.best = frame.best.max(child.captured - v);
                    frame.next += 1;
                }
                None => {
                    let next = self.frame(child.state, known)?;
                    stack.push(next);
                }
            }
        }
    }

    /// The frame of `state`: each legal move played, and the value of the
    /// state it leads to looked up, all before any is searched. The
    /// lookups are what the search spends its time on, in memory too large
    /// for the caches; made together they wait for memory together.
    fn frame(&self, state: State, known: &dyn Known) -> Result<Frame, TableError> {
        let position = state.position();
        let moves = rules::legal_moves(&position, self.profile);
        // No move: the game is over and the sweep decides (END-1, END-2).
        let best = if moves.is_empty() {
            sweep_margin(&state.board)
        } else {
            i8::MIN
        };
        let mut children = ArrayVec::new();
        for pit in moves {
            let (after, report) = rules::apply(&position, pit, self.profile);
            let child = State::of(&after);
            children.push(Child {
                // At most 16 stones.
                captured: report.captured() as i8,
                state: child,
                known: None,
            });
        }
        for child in &mut children {
            child.known = self.known(child.state, known)?;
        }
        Ok(Frame {
            state,
            children,
            next: 0,
            best,
        })
    }

    /// The positions remembered, with their values, in key order.
    pub(crate) fn into_sorted(self) -> Sorted {
        self.memo.into_sorted()
    }
}

/// Solves the opening from `root` under `profile`: the value of every
/// position before the lock that play from `root` reaches. Returns the
/// entries in key order and the time taken.
pub(crate) fn solve_from(
    root: &Position,
    profile: Profile,
    known: &dyn Known,
    tick: &mut dyn FnMut(u64) -> bool,
) -> Result<(Sorted, std::time::Duration), Stopped> {
    let started = Instant::now();
    let mut opening = Opening::new(profile);
    opening.value(root, known, tick)?;
    Ok((opening.into_sorted(), started.elapsed()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Pit;
    use crate::position::Setup;
    use crate::solve::rank::{layer_size, unrank};

    /// Checks that playing `pit` in `p` (before the lock) raises the
    /// potential in the way spec/SOLVE.md says, whatever the profile: a
    /// first use of a pit adds a used pit; else a capture takes stones off
    /// the board with the used pits as they were; else a sowing that
    /// reaches a never-used pit (always so from 8 stones, or 7 when the
    /// origin is skipped) adds stones to such pits; else the stones moved
    /// come nearer the next never-used pit.
    fn raises_the_potential(p: &Position, pit: Pit, profile: Profile) -> Result<(), String> {
        let before = Potential::of(p);
        let (after, report) = rules::apply(p, pit, profile);
        let now = Potential::of(&after);
        let first_use = !p.has_used(pit);
        let reached_unused = report.sown.iter().any(|&q| !p.has_used(q));
        let fine = if first_use {
            now.used_pits == before.used_pits + 1
        } else if report.captured() > 0 {
            now.used_pits == before.used_pits && now.board_stones < before.board_stones
        } else if reached_unused {
            (now.used_pits, now.board_stones) == (before.used_pits, before.board_stones)
                && now.unused_stones > before.unused_stones
        } else {
            (now.used_pits, now.board_stones, now.unused_stones)
                == (before.used_pits, before.board_stones, before.unused_stones)
                && now.distance < before.distance
        };
        if fine && now > before {
            Ok(())
        } else {
            Err(format!(
                "{pit} in `{p}` under {profile}: potential {before:?} then {now:?}"
            ))
        }
    }

    #[test]
    fn every_move_before_the_lock_raises_the_potential_on_every_small_position() {
        let mut checked = 0u64;
        for used in 0..=255u8 {
            let used = [used & 15, used >> 4];
            if used == [ALL_USED; 2] {
                continue;
            }
            // A pit its owner never used holds 6 stones or more (LOCK-2):
            // boards of up to 12 stones are those 6s plus any few more.
            let never: Vec<usize> = (0..PITS)
                .filter(|&i| used[i / ROW] & (1 << (i % ROW)) == 0)
                .collect();
            let base = 6 * never.len() as u8;
            for stones in (base..=12).step_by(2) {
                for r in 0..layer_size(stones - base) {
                    let mut board = unrank(stones - base, r).unwrap();
                    for &i in &never {
                        board[i] += 6;
                    }
                    let unlocked = usize::from(used[0] != ALL_USED);
                    let mut captured = [0; 2];
                    captured[unlocked] = u32::from(TOTAL_STONES - stones);
                    for to_move in Player::BOTH {
                        let setup = Setup {
                            pits: board.iter().map(|&b| u32::from(b)).collect(),
                            captured,
                            to_move,
                            used: used.map(|u| std::array::from_fn(|k| u & (1 << k) != 0)),
                        };
                        let Ok(p) = Position::from_setup(&setup) else {
                            continue;
                        };
                        for profile in Profile::all() {
                            for pit in rules::legal_moves(&p, profile) {
                                raises_the_potential(&p, pit, profile).unwrap();
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        // Not vacuous: the valid positions before the lock with up to 12
        // stones on the board have this many moves under all 32 profiles.
        assert!(checked > 500_000, "{checked} moves");
    }

    proptest::proptest! {
        #[test]
        fn every_move_before_the_lock_of_a_random_game_raises_the_potential(
            bits in 0u8..32,
            choices in proptest::collection::vec(0usize..4, 0..200),
        ) {
            let profile = Profile::all().nth(usize::from(bits)).unwrap();
            let mut p = Position::initial();
            for c in choices {
                let moves = rules::legal_moves(&p, profile);
                if moves.is_empty() || after_lock(&p) {
                    break;
                }
                let pit = moves[c % moves.len()];
                if let Err(e) = raises_the_potential(&p, pit, profile) {
                    proptest::prop_assert!(false, "{}", e);
                }
                p = rules::play(&p, pit, profile).unwrap().0;
            }
        }
    }

    #[test]
    fn a_key_fits_its_bits_and_north_to_move_is_the_turned_state() {
        let p: Position = "7,0,8,6/9,6,6,6 N 0/0 -2--/1---".parse().unwrap();
        let s = State::of(&p);
        assert_eq!(s.board, [9, 6, 6, 6, 7, 0, 8, 6]);
        assert_eq!(s.used, [0b0001, 0b0010]);
        assert!(s.key() < 1 << KEY_BITS);
        let all48 = State {
            board: [48, 0, 0, 0, 0, 0, 0, 0],
            used: [15, 15],
        };
        assert!(all48.key() < 1 << KEY_BITS);
    }
}
