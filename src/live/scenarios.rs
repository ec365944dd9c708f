//! The conformance scenarios run against an engine: the engine process as a
//! [`Subject`] of the scenario runner.

use std::collections::HashSet;

use super::engine::{Engine, Failure};
use crate::board::Pit;
use crate::game::Outcome;
use crate::judge::{Answer, Question};
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::report::{End, EndReason};
use crate::rules::sweep;
use crate::scenario::{Line, MoveResult, Played, Standing, Subject, SubjectError, Verdict};

/// An engine seen through the scenario runner's eyes.
///
/// The protocol is stateless, so a game line is replayed by chaining the
/// engine's own answers: each move is played on the position the engine
/// gave for the move before. Repetition (END-3) is judged here, on those
/// positions, since no question carries the game's history.
pub struct EngineSubject<'a> {
    engine: &'a mut Engine,
    /// The engine failure behind the last [`SubjectError`], with its stderr.
    pub failure: Option<Failure>,
}

impl<'a> EngineSubject<'a> {
    /// A subject backed by `engine`.
    pub fn new(engine: &'a mut Engine) -> EngineSubject<'a> {
        EngineSubject {
            engine,
            failure: None,
        }
    }

    fn ask(&mut self, question: &Question) -> Result<Answer, SubjectError> {
        match self.engine.ask(question) {
            Ok(answer) => Ok(answer.clone()),
            Err(failure) => {
                let message = failure.kind.to_string();
                self.failure = Some(failure);
                Err(SubjectError { message })
            }
        }
    }

    /// The engine's positions along `line`, the start first, and the end it
    /// claimed after the last move (if any).
    fn replay(&mut self, line: &Line<'_>) -> Result<(Vec<Position>, Option<End>), SubjectError> {
        let start: Position = line.start.parse().map_err(|e| SubjectError {
            message: format!("start `{}`: {e}", line.start),
        })?;
        let mut positions = vec![start];
        let mut end = None;
        for (i, &pit) in line.moves.iter().enumerate() {
            let before = *positions.last().expect("never empty");
            match self.play_once(&positions, line.profile, before, pit)? {
                Played::Accepted { result } => {
                    let after: Position = result.position.parse().map_err(|e| SubjectError {
                        message: format!(
                            "ply {}: the engine's position `{}` cannot be used: {e}",
                            i + 1,
                            result.position
                        ),
                    })?;
                    positions.push(after);
                    end = result.end;
                }
                Played::Refused { reason } => {
                    return Err(SubjectError {
                        message: format!("ply {}: the engine refused {pit} ({reason})", i + 1),
                    });
                }
            }
        }
        Ok((positions, end))
    }

    fn play_once(
        &mut self,
        earlier: &[Position],
        profile: Profile,
        before: Position,
        pit: Pit,
    ) -> Result<Played, SubjectError> {
        Ok(match self.ask(&Question::Play(before, pit))? {
            Answer::Played {
                position,
                captures,
                end,
            } => {
                let after = position.parse::<Position>().ok();
                let mut end = end.map(|claim| End {
                    reason: after.map_or(EndReason::NoStones, reason_for),
                    totals: claim.totals,
                });
                // END-3 (I5), judged by kpe-check on the engine's positions.
                if end.is_none()
                    && profile.has(Switch::EndOnRepetition)
                    && let Some(after) = after
                    && earlier.contains(&after)
                {
                    end = Some(End {
                        reason: EndReason::Repetition,
                        totals: sweep(&after),
                    });
                }
                Played::Accepted {
                    result: MoveResult {
                        position,
                        sown: None,
                        landing: None,
                        captures,
                        events: None,
                        end,
                    },
                }
            }
            Answer::Illegal(reason) => Played::Refused { reason },
            Answer::Legal(_) => {
                return Err(SubjectError {
                    message: "the engine answered a move with legal moves".to_owned(),
                });
            }
        })
    }
}

/// Whether some position of the line occurred earlier in it.
fn repeats(positions: &[Position]) -> bool {
    let mut seen = HashSet::new();
    positions.iter().any(|p| !seen.insert(*p))
}

/// Why a game that the engine says is over ended, judged from the position.
fn reason_for(after: Position) -> EndReason {
    if after.row_stones(after.to_move()) == 0 {
        EndReason::NoStones
    } else {
        EndReason::Unfeedable
    }
}

fn outcome(end: End) -> Outcome {
    Outcome::Finished {
        reason: end.reason,
        totals: end.totals,
        winner: end.winner(),
    }
}

impl Subject for EngineSubject<'_> {
    /// The protocol only ever sends valid positions, so a start is judged
    /// by the reference; scenarios about invalid starts are not run against
    /// engines.
    fn check_position(&mut self, position: &str) -> Result<Verdict, SubjectError> {
        Ok(Verdict::reference(position))
    }

    fn standing(&mut self, line: &Line<'_>) -> Result<Standing, SubjectError> {
        let (positions, end) = self.replay(line)?;
        let current = *positions.last().expect("never empty");
        let repeated = line.profile.has(Switch::EndOnRepetition)
            && positions.len() > 1
            && positions[..positions.len() - 1].contains(&current);
        if repeated {
            let end = End {
                reason: EndReason::Repetition,
                totals: sweep(&current),
            };
            return Ok(Standing {
                legal: Vec::new(),
                outcome: Some(outcome(end)),
            });
        }
        let legal = match self.ask(&Question::Legal(current))? {
            Answer::Legal(moves) => moves,
            _ => {
                return Err(SubjectError {
                    message: "the engine answered a legal-moves question with a move".to_owned(),
                });
            }
        };
        // The engine states the end (and totals) in its answer to a move;
        // before any move it has stated nothing about the outcome.
        let outcome = match end {
            Some(end) => Some(outcome(end)),
            None if line.moves.is_empty() && legal.is_empty() => None,
            None => Some(Outcome::Unfinished),
        };
        Ok(Standing { legal, outcome })
    }

    fn play(&mut self, line: &Line<'_>, pit: Pit) -> Result<Played, SubjectError> {
        let (positions, _) = self.replay(line)?;
        let before = *positions.last().expect("never empty");
        // MOVE-3 after an end by repetition (END-3), judged here.
        if line.profile.has(Switch::EndOnRepetition) && repeats(&positions) {
            return Ok(Played::Refused {
                reason: crate::rules::Reason::GameOver.code().to_owned(),
            });
        }
        self.play_once(&positions, line.profile, before, pit)
    }
}

/// The scenario's line, as the reference plays it: the questions asked at
/// each ply, in order, for finding the first one the engine answers wrongly.
/// Each comes with its 1-based ply (the legal moves before move `n` belong
/// to ply `n`) and the moves played before it.
#[must_use]
pub fn questions(
    start: Position,
    moves: &[Pit],
    profile: Profile,
) -> Vec<(usize, Vec<Pit>, Question)> {
    let mut out = Vec::new();
    let mut seen = HashSet::from([start]);
    let mut position = start;
    for (i, &pit) in moves.iter().enumerate() {
        out.push((i + 1, moves[..i].to_vec(), Question::Legal(position)));
        out.push((i + 1, moves[..i].to_vec(), Question::Play(position, pit)));
        match crate::rules::play(&position, pit, profile) {
            Ok((after, _)) => {
                position = after;
                if !seen.insert(after) && profile.has(Switch::EndOnRepetition) {
                    return out;
                }
            }
            Err(_) => return out,
        }
    }
    out.push((moves.len() + 1, moves.to_vec(), Question::Legal(position)));
    out
}
