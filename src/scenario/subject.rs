//! Running a scenario against a subject: anything that can check a
//! position, tell where a game line stands and play a move.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{Expect, Scenario};
use crate::board::Pit;
use crate::game::{Game, Outcome};
use crate::position::Position;
use crate::profile::Profile;
use crate::report::{Capture, End, Event};

// ---------------------------------------------------------------------------
// Running scenarios against a subject
// ---------------------------------------------------------------------------

/// A game line: a start position, a rules profile and the moves played from
/// it so far. Everything a subject needs to know where a game stands,
/// including its history (for `end-on-repetition`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// The start position, in kpe notation.
    pub start: &'a str,
    /// The rules profile.
    pub profile: Profile,
    /// The moves played from `start`, all accepted.
    pub moves: &'a [Pit],
}

/// What a subject says about a position text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "verdict", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Verdict {
    /// The text is a valid position; `position` is its canonical notation.
    Valid {
        /// The position as the subject prints it.
        position: String,
    },
    /// The text is refused.
    Invalid {
        /// The position error code, e.g. `wrong-total`.
        code: String,
    },
}

impl Verdict {
    /// The reference rules' verdict on a position text.
    #[must_use]
    pub fn reference(position: &str) -> Verdict {
        match position.parse::<Position>() {
            Ok(p) => Verdict::Valid {
                position: p.to_string(),
            },
            Err(e) => Verdict::Invalid {
                code: e.code().to_owned(),
            },
        }
    }
}

/// Where a game stands: its legal moves and its outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Standing {
    /// The legal moves, in any order; empty when the game is over.
    pub legal: Vec<Pit>,
    /// How the game stands; `None` if the subject does not say (then a
    /// scenario's `result` cannot be checked against it).
    pub outcome: Option<Outcome>,
}

/// What a move did, as a subject reports it. Fields a subject does not
/// report are `None`, and expectations about them are skipped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveResult {
    /// The position after the move, in kpe notation (before any sweep).
    pub position: String,
    /// The pits sown into, in order.
    pub sown: Option<Vec<Pit>>,
    /// The landing pit.
    pub landing: Option<Pit>,
    /// The captured pits, landing pit first.
    pub captures: Vec<Capture>,
    /// The events of the move, in any order.
    pub events: Option<Vec<Event>>,
    /// The end of the game, if the move ended it.
    pub end: Option<End>,
}

/// A subject's answer to a move: played, or refused with a reason code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "status", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Played {
    /// The move was played.
    Accepted {
        /// What it did.
        result: MoveResult,
    },
    /// The move was refused.
    Refused {
        /// The reason code, e.g. `empty-pit`.
        reason: String,
    },
}

/// A subject could not answer at all (a crashed engine, an unreadable
/// reply, a line it cannot replay): not a rules disagreement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubjectError {
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for SubjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SubjectError {}

/// A scenario expectation that a subject did not meet.
///
/// Its `Display` names the file, the scenario, its rule IDs, the profile
/// and the ply, then shows the expected and actual values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The scenario file, as named by the caller.
    pub file: String,
    /// The scenario id.
    pub scenario: String,
    /// The rule IDs the scenario cites.
    pub rules: Vec<String>,
    /// The profile it was run under.
    pub profile: Profile,
    /// The ply: 0 for the start position, n for the n-th move.
    pub ply: usize,
    /// The move at that ply, if any.
    pub mv: Option<Pit>,
    /// What was compared, e.g. `position` or `legal moves`.
    pub check: String,
    /// What the scenario expects.
    pub expected: String,
    /// What the subject gave.
    pub actual: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: scenario `{}` (rules {}), profile `{}`, ply {}",
            self.file,
            self.scenario,
            self.rules.join(" "),
            self.profile,
            self.ply
        )?;
        if let Some(mv) = self.mv {
            write!(f, " (move {mv})")?;
        }
        write!(
            f,
            ": {} differs\n  expected: {}\n  actual:   {}",
            self.check, self.expected, self.actual
        )
    }
}

impl std::error::Error for Failure {}

/// How many checks a verified scenario made, and how many it skipped
/// because the subject does not report that detail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verified {
    /// Comparisons made, each of which matched.
    pub checked: usize,
    /// Expectations the subject gave no value for.
    pub skipped: usize,
}

/// An implementation of the rules that scenarios can be run against.
///
/// The three operations take plain data that is easy to fill from JSON
/// (positions as notation text, pits, reason codes), so an engine in
/// another process can implement them. Each call carries the whole game
/// line, so a subject needs no state between calls (it may cache).
/// [`Subject::verify`] runs a scenario with them.
pub trait Subject {
    /// Checks a position text: valid (with its canonical notation) or
    /// refused with a position error code.
    ///
    /// # Errors
    ///
    /// A [`SubjectError`] when the subject cannot answer.
    fn check_position(&mut self, position: &str) -> Result<Verdict, SubjectError>;

    /// The legal moves and outcome at the end of `line`.
    ///
    /// # Errors
    ///
    /// A [`SubjectError`] when the subject cannot answer.
    fn standing(&mut self, line: &Line<'_>) -> Result<Standing, SubjectError>;

    /// Plays `pit` at the end of `line`.
    ///
    /// # Errors
    ///
    /// A [`SubjectError`] when the subject cannot answer; a refused move is
    /// an answer ([`Played::Refused`]), not an error.
    fn play(&mut self, line: &Line<'_>, pit: Pit) -> Result<Played, SubjectError>;

    /// Runs `scenario` under `profile` and checks every expectation: the
    /// start is accepted (or refused with `invalid_start`), each move is
    /// accepted, the `expect` entries hold at their plies, the `reject`ed
    /// move is refused with its reason, and the `result` holds after the
    /// moves. `file` is used in the failure message.
    ///
    /// # Errors
    ///
    /// The first [`Failure`]: later plies depend on earlier ones.
    fn verify(
        &mut self,
        file: &str,
        scenario: &Scenario,
        profile: Profile,
    ) -> Result<Verified, Box<Failure>> {
        let mut run = Run {
            file,
            scenario,
            profile,
            verified: Verified::default(),
        };
        let start = scenario.start_text();
        let verdict = self
            .check_position(&start)
            .map_err(|e| run.subject_error(0, e))?;
        let Some(canonical) = run.start(verdict)? else {
            return Ok(run.verified);
        };
        let last = scenario.last_ply();
        let moves = &scenario.moves;
        let line = |ply: usize| Line {
            start: &start,
            profile,
            moves: &moves[..ply],
        };
        let mut result = None;
        for ply in 0..=last {
            if ply > 0 {
                let played = self
                    .play(&line(ply - 1), moves[ply - 1])
                    .map_err(|e| run.subject_error(ply, e))?;
                result = Some(run.accepted(ply, played)?);
            }
            for e in scenario.expect.iter().filter(|e| e.ply == ply) {
                if let Some(position) = &e.position {
                    let actual = match &result {
                        Some(r) if ply > 0 => r.position.clone(),
                        _ => canonical.clone(),
                    };
                    run.compare(ply, "position", position, &actual)?;
                }
                if let Some(legal) = &e.legal {
                    let standing = self
                        .standing(&line(ply))
                        .map_err(|err| run.subject_error(ply, err))?;
                    let mut actual = standing.legal;
                    actual.sort();
                    run.compare(ply, "legal moves", &show_pits(legal), &show_pits(&actual))?;
                }
                if let Some(r) = result.as_ref().filter(|_| ply > 0) {
                    run.move_fields(ply, e, r)?;
                }
            }
        }
        if let Some(reject) = &scenario.reject {
            let ply = reject.ply;
            let played = self
                .play(&line(ply - 1), moves[ply - 1])
                .map_err(|e| run.subject_error(ply, e))?;
            run.refusal(ply, &reject.reason, played)?;
        }
        if let Some(expected) = &scenario.result {
            let standing = self
                .standing(&line(last))
                .map_err(|e| run.subject_error(last, e))?;
            run.compare_opt(
                last,
                "result",
                &show_outcome(expected),
                standing.outcome.as_ref().map(show_outcome),
            )?;
        }
        Ok(run.verified)
    }
}

/// The state of one [`Subject::verify`] run, for building failures.
struct Run<'a> {
    file: &'a str,
    scenario: &'a Scenario,
    profile: Profile,
    verified: Verified,
}

impl Run<'_> {
    fn fail(&self, ply: usize, check: &str, expected: String, actual: String) -> Box<Failure> {
        Box::new(Failure {
            file: self.file.to_owned(),
            scenario: self.scenario.id.clone(),
            rules: self.scenario.rules.clone(),
            profile: self.profile,
            ply,
            mv: ply
                .checked_sub(1)
                .and_then(|i| self.scenario.moves.get(i).copied()),
            check: check.to_owned(),
            expected,
            actual,
        })
    }

    fn subject_error(&self, ply: usize, error: SubjectError) -> Box<Failure> {
        self.fail(
            ply,
            "subject answer",
            "an answer".into(),
            format!("error: {error}"),
        )
    }

    fn compare(
        &mut self,
        ply: usize,
        check: &str,
        expected: &str,
        actual: &str,
    ) -> Result<(), Box<Failure>> {
        if expected == actual {
            self.verified.checked += 1;
            Ok(())
        } else {
            Err(self.fail(ply, check, expected.to_owned(), actual.to_owned()))
        }
    }

    /// Checks the subject's verdict on the start position: `Ok(None)` when
    /// the scenario expects it refused and it was (nothing else to run),
    /// `Ok(Some(canonical))` when it is valid as expected.
    fn start(&mut self, verdict: Verdict) -> Result<Option<String>, Box<Failure>> {
        if let Some(code) = &self.scenario.invalid_start {
            let expected = Verdict::Invalid { code: code.clone() };
            let check = "start position verdict";
            self.compare(0, check, &show_verdict(&expected), &show_verdict(&verdict))?;
            return Ok(None);
        }
        match verdict {
            Verdict::Valid { position } => Ok(Some(position)),
            Verdict::Invalid { code } => Err(self.fail(
                0,
                "start position verdict",
                "valid".into(),
                format!("invalid: {code}"),
            )),
        }
    }

    /// What a move the scenario plays did; a refusal is a failure.
    fn accepted(&self, ply: usize, played: Played) -> Result<MoveResult, Box<Failure>> {
        match played {
            Played::Accepted { result } => Ok(result),
            Played::Refused { reason } => Err(self.fail(
                ply,
                "move verdict",
                "accepted".into(),
                format!("refused: {reason}"),
            )),
        }
    }

    /// Compares what one move did with the `expect` entry at its ply: the
    /// sown pits, landing pit, captures and events it states.
    fn move_fields(&mut self, ply: usize, e: &Expect, r: &MoveResult) -> Result<(), Box<Failure>> {
        if let Some(sown) = &e.sown {
            self.compare_opt(
                ply,
                "sown pits",
                &show_pits(sown),
                r.sown.as_deref().map(show_pits),
            )?;
        }
        if let Some(landing) = &e.landing {
            self.compare_opt(
                ply,
                "landing pit",
                &landing.to_string(),
                r.landing.map(|p| p.to_string()),
            )?;
        }
        if let Some(captures) = &e.captures {
            self.compare(
                ply,
                "captures",
                &show_captures(captures),
                &show_captures(&r.captures),
            )?;
        }
        if let Some(events) = &e.events {
            let actual = r.events.as_ref().map(|ev| show_events(ev));
            self.compare_opt(ply, "events", &show_events(events), actual)?;
        }
        Ok(())
    }

    /// Compares the subject's answer to a move the scenario rejects with
    /// the refusal `reason` it expects.
    fn refusal(&mut self, ply: usize, reason: &str, played: Played) -> Result<(), Box<Failure>> {
        let actual = match played {
            Played::Accepted { result } => format!("accepted: {}", result.position),
            Played::Refused { reason } => format!("refused: {reason}"),
        };
        self.compare(ply, "move verdict", &format!("refused: {reason}"), &actual)
    }

    fn compare_opt(
        &mut self,
        ply: usize,
        check: &str,
        expected: &str,
        actual: Option<String>,
    ) -> Result<(), Box<Failure>> {
        match actual {
            Some(actual) => self.compare(ply, check, expected, &actual),
            None => {
                self.verified.skipped += 1;
                Ok(())
            }
        }
    }
}

pub(super) fn show_pits(pits: &[Pit]) -> String {
    if pits.is_empty() {
        return "(none)".to_owned();
    }
    pits.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn show_captures(captures: &[Capture]) -> String {
    if captures.is_empty() {
        return "(none)".to_owned();
    }
    captures
        .iter()
        .map(|c| format!("{}:{}", c.pit, c.stones))
        .collect::<Vec<_>>()
        .join(" ")
}

fn show_events(events: &[Event]) -> String {
    let mut sorted = events.to_vec();
    sorted.sort();
    if sorted.is_empty() {
        return "(none)".to_owned();
    }
    sorted
        .iter()
        .map(|e| {
            serde_json::to_value(e).map_or_else(
                |_| format!("{e:?}"),
                |v| v.as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn show_outcome(outcome: &Outcome) -> String {
    serde_json::to_string(outcome).unwrap_or_else(|_| format!("{outcome:?}"))
}

fn show_verdict(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Valid { position } => format!("valid: {position}"),
        Verdict::Invalid { code } => format!("invalid: {code}"),
    }
}

/// The subject backed by this crate's rules: [`Position`] for positions and
/// [`Game`] for play, so `end-on-repetition` sees the whole line.
///
/// It keeps the last game it replayed, so running a scenario ply by ply
/// replays each move once.
#[derive(Clone, Debug, Default)]
pub struct Reference {
    game: Option<Game>,
}

impl Reference {
    /// A reference subject with nothing cached.
    #[must_use]
    pub fn new() -> Reference {
        Reference::default()
    }

    /// The game at the end of `line`, replayed from the cache when it
    /// extends the last line.
    fn game(&mut self, line: &Line<'_>) -> Result<&mut Game, SubjectError> {
        let start: Position = line.start.parse().map_err(|e| SubjectError {
            message: format!("start `{}`: {e}", line.start),
        })?;
        let reusable = self.game.as_ref().is_some_and(|g| {
            g.start() == &start
                && g.profile() == line.profile
                && g.reports().len() <= line.moves.len()
                && g.reports().iter().zip(line.moves).all(|(r, m)| r.pit == *m)
        });
        if !reusable {
            self.game = Some(Game::new(start, line.profile));
        }
        let game = self.game.as_mut().expect("the game was just set");
        let done = game.reports().len();
        for (i, &pit) in line.moves.iter().enumerate().skip(done) {
            if let Err(e) = game.play(pit) {
                return Err(SubjectError {
                    message: format!("the line cannot be replayed: ply {}: {e}", i + 1),
                });
            }
        }
        Ok(game)
    }
}

impl Subject for Reference {
    fn check_position(&mut self, position: &str) -> Result<Verdict, SubjectError> {
        Ok(Verdict::reference(position))
    }

    fn standing(&mut self, line: &Line<'_>) -> Result<Standing, SubjectError> {
        let game = self.game(line)?;
        Ok(Standing {
            legal: game.legal_moves().to_vec(),
            outcome: Some(game.outcome()),
        })
    }

    fn play(&mut self, line: &Line<'_>, pit: Pit) -> Result<Played, SubjectError> {
        let game = self.game(line)?;
        Ok(match game.play(pit) {
            Ok(report) => {
                let report = report.clone();
                Played::Accepted {
                    result: MoveResult {
                        position: game.current().to_string(),
                        sown: Some(report.sown.to_vec()),
                        landing: Some(report.landing),
                        captures: report.captures.to_vec(),
                        events: Some(report.events()),
                        end: report.end,
                    },
                }
            }
            Err(e) => Played::Refused {
                reason: e.reason.code().to_owned(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_replays_from_its_cache_and_from_scratch_alike() {
        let start = Position::initial().to_string();
        let moves: Vec<Pit> = ["S1", "N1", "S2"].map(|m| m.parse().unwrap()).to_vec();
        let line = |n| Line {
            start: &start,
            profile: Profile::DEFAULT,
            moves: &moves[..n],
        };
        let mut cached = Reference::new();
        for n in 0..=3 {
            let fresh = Reference::new().standing(&line(n)).unwrap();
            assert_eq!(cached.standing(&line(n)).unwrap(), fresh, "after {n} moves");
        }
        // Going back to a shorter line replays from scratch.
        let fresh = Reference::new().standing(&line(1)).unwrap();
        assert_eq!(cached.standing(&line(1)).unwrap(), fresh);
        // A line that cannot be replayed is a subject error, not a panic.
        let bad = [moves[0], moves[0]];
        let err = cached
            .standing(&Line {
                start: &start,
                profile: Profile::DEFAULT,
                moves: &bad,
            })
            .unwrap_err();
        assert!(err.message.contains("ply 2"), "{err}");
        let err = cached
            .standing(&Line {
                start: "nonsense",
                profile: Profile::DEFAULT,
                moves: &[],
            })
            .unwrap_err();
        assert!(err.message.contains("column 1"), "{err}");
    }
}
