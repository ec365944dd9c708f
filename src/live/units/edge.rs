//! Edge probes: positions on the boundaries of the claimed profile, where
//! one reading's two values or the mover's lock decide an answer
//! ([`crate::judge::edge_positions`]), each asked for its legal moves and
//! every legal move's result.

use super::{Ctx, Outcome, Unit, questions_at};
use crate::judge::{Boundary, edge_positions};
use crate::position::Position;
use crate::profile::Profile;

/// Positions sought on each boundary of a profile.
pub const PER_BOUNDARY: usize = 4;

/// One position on one or more boundaries.
pub struct EdgeProbe {
    index: usize,
    position: Position,
    on: Vec<Boundary>,
}

/// The edge probes of `profile`, from `seed`: the same seed, the same
/// positions.
#[must_use]
pub fn edge_units(profile: Profile, seed: u64) -> Vec<EdgeProbe> {
    edge_positions(profile, seed, PER_BOUNDARY)
        .into_iter()
        .enumerate()
        .map(|(index, (position, on))| EdgeProbe {
            index,
            position,
            on,
        })
        .collect()
}

impl Unit for EdgeProbe {
    fn kind(&self) -> &'static str {
        "edge"
    }

    fn id(&self) -> String {
        format!("edge/{}", self.index)
    }

    fn boundaries(&self) -> &[Boundary] {
        &self.on
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Outcome {
        let questions = questions_at(self.position, ctx.profile);
        let asked = questions.len() as u64;
        for question in questions {
            match ctx.check(question) {
                Err(failure) => return Outcome::Errored { plies: 0, failure },
                Ok(Some(found)) => {
                    let mut outcome = ctx.diverged(found, 1, None);
                    if let Outcome::Diverges { divergence, .. } = &mut outcome {
                        let names: Vec<String> = self.on.iter().map(|b| b.name()).collect();
                        divergence.notes.push(format!(
                            "an edge probe: asked because this position lies on the boundaries {}",
                            names.join(", ")
                        ));
                    }
                    return outcome;
                }
                Ok(None) => {}
            }
        }
        Outcome::Conforms(asked)
    }
}
