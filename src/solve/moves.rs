//! Moves forward and backward between solver states, through the reference
//! rules.
//!
//! A solver state is a board with South to move and both locks open (a
//! position with North to move is the [`turn`]ed board). Forward, every
//! move is played by [`rules::apply`] among [`rules::legal_moves`]; backward,
//! a candidate predecessor is made by taking a sowing back, and kept only if
//! the reference rules, played forward from it, give exactly this state
//! without a capture. So no rule is restated here: a wrong candidate is
//! dropped by the rules, and a missing one would show in the tests that
//! compare both directions on every small state.

use crate::board::{PITS, Pit, Player, ROW, TOTAL_STONES};
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::rules;

use super::rank::turn;

/// The position of the solver state `board`: South to move, both locks
/// open, the stones off the board counted as South's captures (they do not
/// change the play, only the totals, which the solver does not use).
pub(crate) fn position(board: &[u8; PITS]) -> Position {
    let on_board: u8 = board.iter().sum();
    Position {
        pits: *board,
        captured: [TOTAL_STONES - on_board, 0],
        to_move: Player::South,
        used: [0b1111; 2],
    }
}

/// The solver state of a position in which both locks are open: its board,
/// turned when North is to move.
pub(crate) fn state_of(position: &Position) -> [u8; PITS] {
    match position.to_move() {
        Player::South => position.pits(),
        Player::North => turn(&position.pits()),
    }
}

/// What one legal move does, or that there is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// No legal move: the game is over, and the sweep gives the mover this
    /// margin (END-1, END-2).
    End(i8),
    /// A move that captures `stones`; `child` is the state after it.
    Capture {
        /// The pit played.
        pit: Pit,
        /// Stones captured.
        stones: u8,
        /// The state after the move (the opponent to move, turned).
        child: [u8; PITS],
    },
    /// A move that captures nothing: the state after it has as many stones.
    Quiet {
        /// The pit played.
        pit: Pit,
        /// The state after the move.
        child: [u8; PITS],
    },
}

/// The sweep margin of the mover if the game ends in `board` (END-2).
pub(crate) fn sweep_margin(board: &[u8; PITS]) -> i8 {
    let own: u8 = board[..ROW].iter().sum();
    let theirs: u8 = board[ROW..].iter().sum();
    // At most 48 stones on either side, so this fits.
    own as i8 - theirs as i8
}

/// Calls `each` with every legal move of the state `board` under
/// `profile`, or once with [`Step::End`] when there is none.
pub(crate) fn steps(board: &[u8; PITS], profile: Profile, mut each: impl FnMut(Step)) {
    let before = position(board);
    let moves = rules::legal_moves(&before, profile);
    if moves.is_empty() {
        each(Step::End(sweep_margin(board)));
        return;
    }
    for pit in moves {
        let (after, report) = rules::apply(&before, pit, profile);
        let child = turn(&after.pits());
        match report.captured() {
            0 => each(Step::Quiet { pit, child }),
            stones => each(Step::Capture { pit, stones, child }),
        }
    }
}

/// Calls `each` with every state from which a legal move that captures
/// nothing leads to `board`, once for each such move (so twice if two
/// moves of one state lead here).
pub(crate) fn predecessors(board: &[u8; PITS], profile: Profile, mut each: impl FnMut([u8; PITS])) {
    // The board just after the move, seen by the player who made it (South
    // in the predecessor's frame; the opponent, North, is now to move).
    let after = turn(board);
    let stones: u8 = after.iter().sum();
    let skip = profile.has(Switch::SkipOrigin);
    for origin in 0..ROW {
        // The stones the origin held: every count whose sowing can leave
        // `after[origin]` in the origin (SOW-4).
        let (low, high): (u16, u16) = if skip {
            // Alternative: the origin is passed over, so it is empty, and
            // every other pit got a stone per full lap of 7.
            if after[origin] != 0 {
                continue;
            }
            let fewest = (0..PITS).filter(|&k| k != origin).map(|k| after[k]).min();
            let most = 7 * (u16::from(fewest.unwrap_or(0)) + 1);
            (1, u16::from(stones).min(most))
        } else {
            // Default: the origin gets one stone per full lap of 8.
            let laps = u16::from(after[origin]);
            ((8 * laps).max(1), (8 * laps + 7).min(u16::from(stones)))
        };
        for sown in low..=high {
            // At most 48 stones.
            match unsow(&after, origin, sown as u8, skip) {
                Unsown::Before(before) => {
                    if replays(&before, origin, &after, profile) {
                        each(before);
                    }
                }
                Unsown::Captures => {}
                // A larger sowing puts at least as many stones in every pit.
                Unsown::TooFew => break,
            }
        }
    }
}

/// What taking a sowing back finds.
enum Unsown {
    /// The board before the sowing.
    Before([u8; PITS]),
    /// The sowing would have captured at its last pit.
    Captures,
    /// Some pit holds fewer stones than the sowing puts there.
    TooFew,
}

/// The board before sowing `sown` stones (1 or more) from `origin` gave
/// `after`, if `after` can be the result of that sowing with no capture.
fn unsow(after: &[u8; PITS], origin: usize, sown: u8, skip: bool) -> Unsown {
    let (lap, targets) = if skip { (7, 7) } else { (8, 8) };
    let laps = sown / lap;
    let rest = sown % lap;
    let mut before = *after;
    for step in 0..targets {
        // The pit `step + 1` places after the origin (the origin itself
        // last, when it is sown into).
        let pit = (origin + 1 + usize::from(step)) % PITS;
        let got = laps + u8::from(step < rest);
        let Some(left) = before[pit].checked_sub(got) else {
            return Unsown::TooFew;
        };
        before[pit] = left;
    }
    if before[origin] != 0 {
        // Only the default's origin gets stones (one a lap), and `sown` was
        // chosen to give it exactly what it holds.
        return Unsown::TooFew;
    }
    before[origin] = sown;
    // The last stone's pit: a 2 or 4 there in the opponent's row would
    // have been captured (CAP-1), so no quiet move ends there.
    let last = if skip {
        (origin + 1 + usize::from((sown - 1) % 7)) % PITS
    } else {
        (origin + usize::from(sown)) % PITS
    };
    if last >= ROW && crate::board::is_capture_size(after[last]) {
        return Unsown::Captures;
    }
    Unsown::Before(before)
}

/// Whether the reference rules, in the state `before`, allow `origin` and
/// play it to exactly `after` with no capture.
fn replays(before: &[u8; PITS], origin: usize, after: &[u8; PITS], profile: Profile) -> bool {
    let position = position(before);
    let pit = Pit::ALL[origin];
    if !rules::legal_moves(&position, profile).contains(&pit) {
        return false;
    }
    let (played, report) = rules::apply(&position, pit, profile);
    report.captures.is_empty() && played.pits() == *after
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::class::Class;
    use crate::solve::rank::{layer_size, next, unrank};
    use rustc_hash::FxHashMap;

    /// Every quiet edge of every state with `stones` stones, found forward,
    /// as (predecessor, child) counts.
    fn edges_forward(stones: u8, profile: Profile) -> FxHashMap<([u8; 8], [u8; 8]), u32> {
        let mut edges = FxHashMap::default();
        let mut board = unrank(stones, 0).unwrap();
        loop {
            steps(&board, profile, |step| {
                if let Step::Quiet { child, .. } = step {
                    *edges.entry((board, child)).or_insert(0) += 1;
                }
            });
            if !next(&mut board) {
                break;
            }
        }
        edges
    }

    /// The un-move is a deliberate copy of the sowing, backward (spec/RULES.md,
    /// "Deliberate copies of the rules"): under every profile a table covers
    /// (each class's, with the shared reading either way), it finds exactly
    /// the quiet moves the reference rules play forward.
    #[test]
    fn predecessors_are_exactly_the_quiet_moves_played_forward() {
        for profile in Class::all().flat_map(Class::covers) {
            let class = Class::of(profile).unwrap();
            for stones in [1u8, 2, 3, 6, 8] {
                let forward = edges_forward(stones, profile);
                let mut backward = FxHashMap::default();
                for r in 0..layer_size(stones) {
                    let child = unrank(stones, r).unwrap();
                    predecessors(&child, profile, |before| {
                        *backward.entry((before, child)).or_insert(0) += 1;
                    });
                }
                assert_eq!(forward, backward, "{stones} stones under {class}");
            }
        }
    }

    #[test]
    fn north_to_move_is_the_turned_board() {
        let p: Position = "1,0,0,0/0,0,2,3 N 20/22 1234/1234".parse().unwrap();
        assert_eq!(state_of(&p), [0, 0, 2, 3, 1, 0, 0, 0]);
        assert_eq!(position(&state_of(&p)).to_move(), Player::South);
        assert_eq!(sweep_margin(&state_of(&p)), 4);
    }
}
