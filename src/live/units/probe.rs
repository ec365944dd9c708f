//! Probes: questions chosen because the profiles that still explain an
//! engine's answers answer them differently. Asking one narrows the
//! reading down without luck (issue: an engine following two alternative
//! readings at once is named with exactly those two).

use chacha20::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use super::{Ctx, Outcome, Unit, agrees};
use crate::board::Pit;
use crate::game::{Game, Outcome as GameOutcome};
use crate::judge::Question;
use crate::judge::compare::expected;
use crate::position::Position;
use crate::profile::Profile;

/// Random playouts searched for a probe, per candidate profile.
pub const PROBE_PLAYOUTS: u32 = 400;

/// One question that separates candidate profiles.
pub struct Probe {
    index: usize,
    question: Question,
    /// The candidates it separates, for the report.
    between: Vec<Profile>,
}

impl Probe {
    /// The question asked.
    #[must_use]
    pub fn question(&self) -> Question {
        self.question
    }
}

/// A question whose answers differ between some of `candidates`, found by
/// seeded random playouts under each candidate from `roots`, or `None`
/// when none turns up within [`PROBE_PLAYOUTS`] playouts each.
#[must_use]
pub fn find_probe(
    index: usize,
    candidates: &[Profile],
    roots: &[Position],
    seed: u64,
) -> Option<Probe> {
    if candidates.len() < 2 {
        return None;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x70b3_5eed);
    rng.set_stream(index as u64);
    for round in 0..PROBE_PLAYOUTS {
        let profile = candidates[round as usize % candidates.len()];
        let root = roots[rng.random_range(0..roots.len().max(1)) % roots.len().max(1)];
        let mut game = Game::new(root, profile);
        for _ in 0..200 {
            let position = *game.current();
            let mut questions = vec![Question::Legal(position)];
            questions.extend(
                Pit::ALL
                    .into_iter()
                    .map(|pit| Question::Play(position, pit)),
            );
            for question in questions {
                let answers: Vec<_> = candidates.iter().map(|&p| expected(&question, p)).collect();
                if answers.iter().any(|a| *a != answers[0]) {
                    let between = candidates
                        .iter()
                        .zip(&answers)
                        .filter(|(_, a)| **a != answers[0])
                        .map(|(p, _)| *p)
                        .chain(std::iter::once(candidates[0]))
                        .collect();
                    return Some(Probe {
                        index,
                        question,
                        between,
                    });
                }
            }
            let legal = game.legal_moves();
            if legal.is_empty() || game.outcome() != GameOutcome::Unfinished {
                break;
            }
            let pit = legal[rng.random_range(0..legal.len())];
            if game.play(pit).is_err() {
                break;
            }
        }
    }
    None
}

impl Unit for Probe {
    fn kind(&self) -> &'static str {
        "probe"
    }

    fn id(&self) -> String {
        format!("probe/{}", self.index)
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Outcome {
        let answer = match ctx.engine.ask(&self.question) {
            Ok(answer) => answer,
            Err(failure) => return Outcome::Errored { plies: 0, failure },
        };
        if agrees(&self.question, answer, ctx.profile) {
            return Outcome::Conforms(1);
        }
        match ctx.check(self.question) {
            Ok(Some(found)) => {
                let mut outcome = ctx.diverged(found, 1, None);
                if let Outcome::Diverges { divergence, .. } = &mut outcome {
                    let names: Vec<String> = self.between.iter().map(ToString::to_string).collect();
                    divergence.notes.push(format!(
                        "a probe: asked because {} answer it differently",
                        names.join(" and ")
                    ));
                }
                outcome
            }
            Ok(None) => Outcome::Conforms(1),
            Err(failure) => Outcome::Errored { plies: 0, failure },
        }
    }
}
