//! The units of a live run, one kind per file behind one [`Unit`]
//! interface: conformance scenarios, perft counts (from the initial
//! position and the suite's perft tables), seeded random games, and probes
//! that tell readings apart. The scheduler (`schedule.rs`) owns their order,
//! `--jobs`, `--shard` and the stopping rules; a unit only asks its engine
//! and judges the answers.

mod edge;
mod perft;
mod probe;
mod random;
mod scenario;

pub use edge::{EdgeProbe, PER_BOUNDARY, edge_units};
pub use perft::{PerftCount, perft_units};
pub use probe::{PROBE_PLAYOUTS, Probe, find_probe};
pub use random::{RandomGame, random_units};
pub use scenario::{ScenarioUnit, scenario_units};

use super::engine::{Engine, Failure};
use super::repro::reproduction;
use super::shrink::Diverging;
use crate::judge::compare::{Agreed, agreement, compare};
use crate::judge::{Answer, Question};
use crate::judge::{Divergence, FieldDiff, ReportRules, RuleSet};
use crate::position::Position;
use crate::profile::Profile;
use crate::reporter::{EngineError, UnitResult};

/// Lines of an engine's stderr shown with an error, and their width.
const STDERR_LINES: usize = 20;
const STDERR_WIDTH: usize = 160;

/// One thing a live run checks.
pub trait Unit: Send + Sync {
    /// The kind, as reports name it: `scenario`, `perft`, `random-game`,
    /// `probe`.
    fn kind(&self) -> &'static str;

    /// The id, unique within a profile: a scenario id, `perft/...`,
    /// `random/N`, `probe/N`.
    fn id(&self) -> String;

    /// Where it comes from (a scenario file), if anywhere.
    fn location(&self) -> Option<String> {
        None
    }

    /// The rule IDs it exercises, for `--only RULE-ID` (scenarios cite
    /// theirs; the other kinds exercise whatever the game brings).
    fn rules(&self) -> &[String] {
        &[]
    }

    /// The boundaries of the profile it lies on (edge probes), for the
    /// coverage the report gives.
    fn boundaries(&self) -> &[crate::judge::Boundary] {
        &[]
    }

    /// Why the profile or the protocol cannot check it, if so.
    fn skip_reason(&self) -> Option<String> {
        None
    }

    /// Runs the unit against the engine of `ctx`.
    fn run(&self, ctx: &mut Ctx<'_>) -> Outcome;
}

/// The rules a legal-moves answer that agrees exercises.
static LEGAL_RULES: std::sync::LazyLock<RuleSet> =
    std::sync::LazyLock::new(|| ["MOVE-1", "MOVE-2"].into_iter().collect());

/// What a unit runs with: the engine and the profile it is checked under.
pub struct Ctx<'a> {
    /// The engine, started on first use.
    pub engine: &'a mut Engine,
    /// The profile the engine claims for this unit.
    pub profile: Profile,
    /// Rule IDs exercised by the answers that agreed.
    pub rules: RuleSet,
    /// The rules each kind of move exercises, worked out once each rather
    /// than looked up by name on every request.
    memo: ReportRules,
}

/// How a unit ended, before the scheduler times and files it.
pub enum Outcome {
    /// Every answer agreed, over this many plies.
    Conforms(u64),
    /// A wrong answer: where, and the divergence as reported.
    Diverges {
        /// Plies compared, the diverging one included.
        plies: u64,
        /// The divergence.
        divergence: Box<Divergence>,
        /// The first wrong answer, for shrinking.
        found: Option<Box<Diverging>>,
    },
    /// The engine could not be checked.
    Errored {
        /// Plies compared before it failed.
        plies: u64,
        /// The failure.
        failure: Failure,
    },
    /// The unit could not be checked here, and why.
    Skipped(String),
}

impl<'a> Ctx<'a> {
    /// A unit's context: `engine` asked under `profile`, no rule
    /// exercised yet.
    pub fn new(engine: &'a mut Engine, profile: Profile) -> Ctx<'a> {
        Ctx {
            engine,
            profile,
            rules: RuleSet::new(),
            memo: ReportRules::new(),
        }
    }

    /// Asks the engine `question` and compares its answer with the rules;
    /// an answer that agrees counts the rules it exercised.
    ///
    /// # Errors
    ///
    /// The engine's [`Failure`].
    pub fn check(&mut self, question: Question) -> Result<Option<Diverging>, Failure> {
        let claimed = self.engine.ask(&question)?;
        // Judged with one look at the rules, which also says which rules
        // the answer exercised; the answer is copied only when it is wrong.
        match agreement(&question, claimed, self.profile) {
            Err(mismatch) => {
                return Ok(Some(Diverging {
                    question,
                    claimed: claimed.clone(),
                    mismatch,
                }));
            }
            Ok(Agreed::Legal) => self.rules.extend(*LEGAL_RULES),
            Ok(Agreed::Play(Ok((_, report)))) => self.rules.extend(self.memo.of(&report)),
            Ok(Agreed::Play(Err(illegal))) => self.rules.insert(illegal.reason.rule()),
        }
        Ok(None)
    }

    /// The outcome of a wrong answer `found` at 1-based `ply` of a unit
    /// named `unit` (a scenario id, when the reproduction should say so).
    #[must_use]
    pub fn diverged(&self, found: Diverging, ply: u64, unit: Option<&str>) -> Outcome {
        let divergence = Box::new(divergence(&found, ply, self.profile, unit));
        Outcome::Diverges {
            plies: ply,
            divergence,
            found: Some(Box::new(found)),
        }
    }
}

/// The report of a wrong answer: the position before, the move, the
/// differing fields with their rules, and a scenario that reproduces it
/// (shrunk later, for the example of its group).
#[must_use]
pub fn divergence(found: &Diverging, ply: u64, profile: Profile, unit: Option<&str>) -> Divergence {
    Divergence {
        ply: Some(ply),
        before: Some(*found.question.position()),
        mv: found.question.pit(),
        fields: found.mismatch.fields.iter().map(convert).collect(),
        rules: found.mismatch.rules.iter().copied().collect(),
        notes: Vec::new(),
        scenario: Some(reproduction(found, profile, unit)),
        perft: None,
        counts: Vec::new(),
    }
}

fn convert(diff: &crate::judge::compare::FieldDiff) -> FieldDiff {
    let mut out = FieldDiff::new(diff.field, diff.expected.clone(), diff.claimed.clone());
    out.rules = diff.rules.iter().copied().collect();
    out.details = diff.details.iter().map(convert).collect();
    out
}

/// A divergence that the repetition rule decides (END-3): it cites `rules`
/// and so do its fields, its reproduction is `scenario` (which replays the
/// stretch whose history decides it), and it is not shrunk, since the
/// history matters.
pub(crate) fn cite_repetition(
    outcome: &mut Outcome,
    rules: &[&'static str],
    scenario: crate::scenario::Scenario,
) {
    if let Outcome::Diverges {
        divergence, found, ..
    } = outcome
    {
        let cited: crate::judge::RuleSet = rules.iter().copied().collect();
        divergence.rules = cited;
        for field in &mut divergence.fields {
            field.rules = cited;
        }
        divergence.scenario = Some(scenario);
        *found = None;
    }
}

/// A failure of the engine as the report states it, with its stderr tail.
#[must_use]
pub fn engine_error(failure: &Failure, ply: u64) -> EngineError {
    let lines: Vec<&str> = failure.stderr_tail.lines().collect();
    let shown = &lines[lines.len().saturating_sub(STDERR_LINES)..];
    EngineError {
        code: failure.code.to_owned(),
        message: failure.kind.to_string(),
        ply: (ply > 0).then_some(ply),
        request: failure.request.clone(),
        stderr: shown
            .iter()
            .map(|line| {
                let mut chars = line.chars();
                let head: String = chars.by_ref().take(STDERR_WIDTH).collect();
                if chars.next().is_some() {
                    format!("{head}…")
                } else {
                    head
                }
            })
            .collect(),
        stderr_bytes: failure.stderr_bytes,
    }
}

/// The unit result of `outcome` for `unit`.
#[must_use]
pub fn result(unit: &dyn Unit, outcome: Outcome) -> (UnitResult, Option<Diverging>) {
    let (kind, id, location) = (unit.kind(), unit.id(), unit.location());
    match outcome {
        Outcome::Conforms(plies) => (UnitResult::conforming(kind, id, location, plies), None),
        Outcome::Diverges {
            plies,
            divergence,
            found,
        } => (
            UnitResult::diverging(kind, id, location, plies, *divergence),
            found.map(|f| *f),
        ),
        Outcome::Errored { plies, failure } => (
            UnitResult::errored(kind, id, location, plies, engine_error(&failure, plies)),
            None,
        ),
        Outcome::Skipped(reason) => (UnitResult::skipped(kind, id, location, reason), None),
    }
}

/// What the reference says to a question the engine also answered: used by
/// the units that walk positions.
#[must_use]
pub fn questions_at(position: Position, profile: Profile) -> Vec<Question> {
    let mut questions = vec![Question::Legal(position)];
    questions.extend(
        crate::rules::legal_moves(&position, profile)
            .iter()
            .map(|&pit| Question::Play(position, pit)),
    );
    questions
}

/// Whether `answer` agrees with the rules of `profile` on `question`.
#[must_use]
pub fn agrees(question: &Question, answer: &Answer, profile: Profile) -> bool {
    compare(question, answer, profile).is_none()
}
