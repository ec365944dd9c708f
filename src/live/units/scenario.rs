//! A conformance scenario as a unit: its line played through the engine by
//! the scenario runner, and the first stateless answer that departs from
//! the rules found for the report.

use std::path::Path;

use super::{Ctx, Outcome, Unit};
use crate::judge::{Divergence, FieldDiff};
use crate::live::repro::{repetition_rules, reproduction_in_game};
use crate::live::scenarios::{EngineSubject, questions};
use crate::position::Position;
use crate::profile::Profile;
use crate::scenario::{Scenario, Subject, Suite};

/// One scenario of the suite.
pub struct ScenarioUnit {
    file: String,
    location: String,
    scenario: Scenario,
    skip: Option<String>,
}

/// The scenarios of `suite` (read from `dir`) as units under `profile`, in
/// suite order: those the profile does not admit, and those with an
/// invalid start (the protocol carries only valid positions), are skipped
/// with the reason.
#[must_use]
pub fn scenario_units(dir: &Path, suite: &Suite, profile: Profile) -> Vec<ScenarioUnit> {
    suite
        .scenarios()
        .map(|(file, scenario)| {
            let skip = if scenario.invalid_start.is_some() {
                Some("invalid starts, which the protocol cannot carry".to_owned())
            } else if !scenario.profiles().any(|p| p == profile) {
                Some(format!("pinned to readings other than {profile}"))
            } else {
                None
            };
            ScenarioUnit {
                file: file.to_owned(),
                location: dir.join(file).display().to_string(),
                scenario: scenario.clone(),
                skip,
            }
        })
        .collect()
}

impl Unit for ScenarioUnit {
    fn kind(&self) -> &'static str {
        "scenario"
    }

    fn id(&self) -> String {
        self.scenario.id.clone()
    }

    fn location(&self) -> Option<String> {
        Some(self.location.clone())
    }

    fn rules(&self) -> &[String] {
        &self.scenario.rules
    }

    fn skip_reason(&self) -> Option<String> {
        self.skip.clone()
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Outcome {
        let scenario = &self.scenario;
        let plies = scenario.moves.len() as u64;
        let mut subject = EngineSubject::new(ctx.engine);
        let verified = subject.verify(&self.file, scenario, ctx.profile);
        let engine_failure = subject.failure.take();
        let Err(failure) = verified else {
            for rule in &scenario.rules {
                ctx.rules.insert(rule);
            }
            return Outcome::Conforms(plies);
        };
        if let Some(f) = engine_failure {
            return Outcome::Errored {
                plies: failure.ply as u64,
                failure: f,
            };
        }
        // Find the first stateless question the engine gets wrong on the
        // reference's line, to shrink and diagnose it.
        let Ok(start) = scenario.start_text().parse::<Position>() else {
            return Outcome::Conforms(plies);
        };
        for (ply, before, question) in questions(start, &scenario.moves, ctx.profile) {
            match ctx.check(question) {
                Err(f) => {
                    return Outcome::Errored {
                        plies: ply as u64,
                        failure: f,
                    };
                }
                Ok(Some(found)) => {
                    // The line so far, whose history the repetition rule
                    // (END-3) may need, as for a random game.
                    let mut game = crate::Game::new(start, ctx.profile);
                    let played = before.iter().all(|&pit| game.play(pit).is_ok());
                    if played && let Some(rules) = repetition_rules(&found, ctx.profile, &game) {
                        let scenario =
                            reproduction_in_game(&found, ctx.profile, Some(&scenario.id), &game);
                        let mut outcome = ctx.diverged(found, ply as u64, Some(&self.scenario.id));
                        super::cite_repetition(&mut outcome, &rules, scenario);
                        return outcome;
                    }
                    return ctx.diverged(found, ply as u64, Some(&scenario.id));
                }
                Ok(None) => {}
            }
        }
        // Every stateless answer agrees: the scenario failed on something
        // only the whole line shows (the outcome of a repetition, say).
        let divergence = Divergence {
            ply: Some(failure.ply as u64),
            before: None,
            mv: failure.mv,
            fields: vec![FieldDiff::new(
                failure.check.clone(),
                failure.expected.clone(),
                failure.actual.clone(),
            )],
            rules: scenario.rules.iter().map(String::as_str).collect(),
            notes: vec![failure.to_string()],
            scenario: Some(scenario.clone()),
            perft: None,
            counts: Vec::new(),
        };
        Outcome::Diverges {
            plies,
            divergence: Box::new(divergence),
            found: None,
        }
    }
}
