//! A game record: a start position and the moves played from it, replayed by
//! the rules, with the repetition check of `end-on-repetition` (END-3).

use std::fmt;

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use crate::board::{Pit, Player};
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::report::{End, EndReason, Report};
use crate::rules::{self, IllegalMove, Moves, Reason};

/// How a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "state", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Outcome {
    /// The player to move still has a legal move.
    Unfinished,
    /// The game is over.
    Finished {
        /// Why it ended.
        reason: EndReason,
        /// Final totals after the sweep, South then North (END-2, RES-1).
        totals: [u8; 2],
        /// The winner; `null` for a draw (RES-2, RES-3).
        winner: Option<Player>,
    },
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Unfinished => f.write_str("unfinished"),
            Outcome::Finished { reason, totals, .. } => End {
                reason: *reason,
                totals: *totals,
            }
            .fmt(f),
        }
    }
}

/// A move refused during a replay, with the ply (1-based) it was at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    /// 1-based number of the refused move in the record.
    pub ply: usize,
    /// The refusal.
    pub error: IllegalMove,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ply {}: {}", self.ply, self.error)
    }
}

impl std::error::Error for ReplayError {}

/// A game: start position, profile, and every move played so far.
///
/// ```
/// use kpe::{Game, Position, Profile};
/// let moves = ["S1", "N1"].map(|m| m.parse().unwrap());
/// let game = Game::replay(Position::initial(), Profile::DEFAULT, &moves).unwrap();
/// assert_eq!(game.current().to_string(), "1,8,8,8/0,8,8,7 S 0/0 1---/1---");
/// assert_eq!(game.outcome().to_string(), "unfinished");
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    profile: Profile,
    positions: Vec<Position>,
    reports: Vec<Report>,
    /// Every position so far, for the repetition check; kept only under
    /// `end-on-repetition`, the one reading that needs it.
    seen: FxHashSet<Position>,
    end: Option<End>,
}

impl Game {
    /// A game about to start from `start`.
    #[must_use]
    pub fn new(start: Position, profile: Profile) -> Game {
        let end = rules::game_over(&start, profile).map(|reason| End {
            reason,
            totals: rules::sweep(&start),
        });
        Game {
            profile,
            positions: vec![start],
            reports: Vec::new(),
            seen: if profile.has(Switch::EndOnRepetition) {
                FxHashSet::from_iter([start])
            } else {
                FxHashSet::default()
            },
            end,
        }
    }

    /// Replays `moves` from `start`.
    ///
    /// # Errors
    ///
    /// Returns the first refused move with its ply number.
    pub fn replay(start: Position, profile: Profile, moves: &[Pit]) -> Result<Game, ReplayError> {
        let mut game = Game::new(start, profile);
        for (i, &pit) in moves.iter().enumerate() {
            game.play(pit)
                .map_err(|error| ReplayError { ply: i + 1, error })?;
        }
        Ok(game)
    }

    /// Plays one move and returns its report.
    ///
    /// # Errors
    ///
    /// Returns an [`IllegalMove`] when the rules refuse the move, including
    /// any move after the game has ended by repetition (MOVE-3).
    pub fn play(&mut self, pit: Pit) -> Result<&Report, IllegalMove> {
        let current = *self.current();
        if self.end.is_some() {
            return Err(IllegalMove {
                pit,
                position: current,
                reason: Reason::GameOver,
            });
        }
        let (next, mut report) = rules::play(&current, pit, self.profile)?;
        // END-3 (I5): under the alternative the first recurrence ends the game.
        if report.end.is_none()
            && self.profile.has(Switch::EndOnRepetition)
            && !self.seen.insert(next)
        {
            report.end = Some(End {
                reason: EndReason::Repetition,
                totals: rules::sweep(&next),
            });
        }
        self.end = report.end;
        self.positions.push(next);
        self.reports.push(report);
        Ok(self.reports.last().expect("a report was just pushed"))
    }

    /// The profile the game is played under.
    #[must_use]
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// The start position.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The position now.
    #[must_use]
    pub fn current(&self) -> &Position {
        self.positions
            .last()
            .expect("a game always has its start position")
    }

    /// Every position so far, the start first.
    #[must_use]
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The report of each move played, in order.
    #[must_use]
    pub fn reports(&self) -> &[Report] {
        &self.reports
    }

    /// Whether the current position occurred earlier in the game.
    #[must_use]
    pub fn is_repetition(&self) -> bool {
        self.positions[..self.positions.len() - 1].contains(self.current())
    }

    /// The legal moves now: none once the game is over, including by
    /// repetition under `end-on-repetition`.
    #[must_use]
    pub fn legal_moves(&self) -> Moves {
        if self.end.is_some() {
            Moves::new()
        } else {
            rules::legal_moves(self.current(), self.profile)
        }
    }

    /// How the game stands.
    #[must_use]
    pub fn outcome(&self) -> Outcome {
        match self.end {
            None => Outcome::Unfinished,
            Some(end) => Outcome::Finished {
                reason: end.reason,
                totals: end.totals,
                winner: end.winner(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chase() -> Position {
        // One stone each, four pits apart: they chase each other for ever.
        "1,0,0,0/1,0,0,0 S 22/24 1234/1234".parse().unwrap()
    }

    fn moves(names: &[&str]) -> Vec<Pit> {
        names.iter().map(|m| m.parse().unwrap()).collect()
    }

    #[test]
    fn end_3_repetition_ends_the_game_only_under_end_on_repetition() {
        let cycle = moves(&["S1", "N1", "S2", "N2", "S3", "N3", "S4", "N4"]);
        // Both readings stated, whatever the default is.
        let game = Game::replay(chase(), Profile::ALL_OFF, &cycle).unwrap();
        assert_eq!(game.outcome(), Outcome::Unfinished);
        assert!(game.is_repetition());
        let strict = Profile::with(&[Switch::EndOnRepetition]);
        let game = Game::replay(chase(), strict, &cycle).unwrap();
        assert_eq!(
            game.outcome(),
            Outcome::Finished {
                reason: EndReason::Repetition,
                totals: [23, 25],
                winner: Some(Player::North),
            }
        );
        let err = Game::replay(
            chase(),
            strict,
            &moves(&["S1", "N1", "S2", "N2", "S3", "N3", "S4", "N4", "S1"]),
        )
        .unwrap_err();
        assert_eq!(err.ply, 9);
        assert_eq!(err.error.reason, Reason::GameOver);
    }

    #[test]
    fn replay_errors_name_the_ply_and_the_record_keeps_every_position() {
        let err = Game::replay(
            Position::initial(),
            Profile::DEFAULT,
            &moves(&["S1", "N1", "N1"]),
        )
        .unwrap_err();
        assert_eq!(err.ply, 3);
        assert_eq!(
            err.to_string(),
            "ply 3: illegal move N1 for South in `1,8,8,8/0,8,8,7 S 0/0 1---/1---`: \
             N1 is North's pit (not-own-pit, MOVE-1)"
        );
        let game = Game::replay(chase(), Profile::DEFAULT, &moves(&["S1", "N1"])).unwrap();
        assert_eq!(game.start(), &chase());
        assert_eq!(game.positions().len(), 3);
        assert_eq!(game.positions()[0], chase());
        assert_eq!(&game.positions()[2], game.current());
        assert_eq!(game.reports().len(), 2);
        assert!(!game.is_repetition());
    }
}
