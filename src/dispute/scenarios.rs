//! Part 1: the conformance scenarios whose answers differ under the
//! alternative, both traces side by side, ply by ply.

use serde::Serialize;

use crate::board::Pit;
use crate::game::Game;
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::scenario::{Scenario, Suite};

/// Every scenario of the suite compared under both readings.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ScenarioPart {
    /// Scenarios compared (those with a valid start position).
    pub compared: usize,
    /// The scenarios whose traces differ, in suite order.
    pub differing: Vec<ScenarioDiff>,
}

/// One scenario whose answers differ.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ScenarioDiff {
    /// The scenario file, e.g. `sowing.yaml`.
    pub file: String,
    /// The scenario id.
    pub id: String,
    /// The rule IDs it exercises.
    pub rules: Vec<String>,
    /// What it shows, for people.
    pub description: String,
    /// The profile of the default side: the default, except for readings
    /// outside the dispute that the scenario pins, which stay as pinned.
    pub default_profile: Profile,
    /// The alternative side: the same with the disputed switches on.
    pub alternative_profile: Profile,
    /// Whether the scenario is written for the default side (holds under
    /// `default_profile`).
    pub written_for_default: bool,
    /// Whether it is written for the alternative side.
    pub written_for_alternative: bool,
    /// The first ply whose answers differ: 0 is the start position.
    pub first_difference: usize,
    /// Every ply of both traces, from the start position (ply 0).
    pub plies: Vec<PlyPair>,
    /// How the game stands after the moves, default reading.
    pub default_outcome: String,
    /// How it stands under the alternative.
    pub alternative_outcome: String,
}

/// One ply under both readings.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PlyPair {
    /// 0 for the start position, n after the n-th move.
    pub ply: usize,
    /// The move played at this ply (none at ply 0).
    #[serde(rename = "move")]
    pub mv: Option<Pit>,
    /// The default reading's answer.
    pub default: Step,
    /// The alternative's answer.
    pub alternative: Step,
    /// Whether the two answers differ.
    pub differs: bool,
}

/// What the rules answered at one ply under one reading.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Step {
    /// What the move did, in words (`South plays S1: sows 8 ...`), or why it
    /// was refused, or that it was not reached.
    pub did: String,
    /// The position after the move (the start at ply 0); none when the
    /// move was refused or not reached.
    pub position: Option<Position>,
    /// The legal moves in that position (none once the game is over).
    pub legal: Vec<Pit>,
}

/// Compares every scenario of `suite` with and without the switches of
/// `alternative`, other readings as the scenario pins them.
#[must_use]
pub fn compare(suite: &Suite, alternative: Profile) -> ScenarioPart {
    let mut compared = 0;
    let mut differing = Vec::new();
    for (file, scenario) in suite.scenarios() {
        let Ok(start) = scenario.start_text().parse::<Position>() else {
            continue; // an invalid start is refused under every reading
        };
        compared += 1;
        if let Some(diff) = compare_one(file, scenario, start, alternative) {
            differing.push(diff);
        }
    }
    ScenarioPart {
        compared,
        differing,
    }
}

/// The two traces of one scenario, if they differ.
fn compare_one(
    file: &str,
    scenario: &Scenario,
    start: Position,
    alternative: Profile,
) -> Option<ScenarioDiff> {
    // The readings the scenario pins and the dispute leaves alone stay as
    // pinned, so a scenario written for another reading of another rule
    // is compared on its own ground.
    let disputed: Vec<Switch> = alternative.changes().collect();
    let mut base = Profile::DEFAULT;
    for (switch, &on) in &scenario.when {
        if !disputed.contains(&switch.0) {
            base = base.set(switch.0, on);
        }
    }
    let against = disputed
        .iter()
        .fold(base, |p, &s| p.set(s, alternative.has(s)));
    let (default_steps, default_outcome) = steps(scenario, start, base);
    let (alt_steps, alternative_outcome) = steps(scenario, start, against);
    let plies: Vec<PlyPair> = default_steps
        .into_iter()
        .zip(alt_steps)
        .enumerate()
        .map(|(ply, (default, alternative))| PlyPair {
            ply,
            mv: ply.checked_sub(1).map(|i| scenario.moves[i]),
            differs: default != alternative,
            default,
            alternative,
        })
        .collect();
    let first_difference = plies
        .iter()
        .position(|p| p.differs)
        .or_else(|| (default_outcome != alternative_outcome).then_some(plies.len() - 1))?;
    let holds = |p: Profile| scenario.profiles().any(|q| q == p);
    Some(ScenarioDiff {
        file: file.to_owned(),
        id: scenario.id.clone(),
        rules: scenario.rules.clone(),
        description: scenario.description.clone(),
        default_profile: base,
        alternative_profile: against,
        written_for_default: holds(base),
        written_for_alternative: holds(against),
        first_difference,
        plies,
        default_outcome,
        alternative_outcome,
    })
}

/// One step per ply (the start and each move) of `scenario` under
/// `profile`, and the outcome in words.
fn steps(scenario: &Scenario, start: Position, profile: Profile) -> (Vec<Step>, String) {
    let mut game = Game::new(start, profile);
    let mut out = vec![Step {
        did: "start".to_owned(),
        position: Some(start),
        legal: game.legal_moves().to_vec(),
    }];
    let mut stopped = false;
    for &pit in &scenario.moves {
        if stopped {
            out.push(Step {
                did: "not reached: an earlier move was refused".to_owned(),
                position: None,
                legal: Vec::new(),
            });
            continue;
        }
        match game.play(pit) {
            Ok(report) => {
                let did = report.to_string();
                out.push(Step {
                    did,
                    position: Some(*game.current()),
                    legal: game.legal_moves().to_vec(),
                });
            }
            Err(e) => {
                stopped = true;
                out.push(Step {
                    did: format!(
                        "refused: {} ({}, {})",
                        pit,
                        e.reason.code(),
                        e.reason.rule()
                    ),
                    position: None,
                    legal: Vec::new(),
                });
            }
        }
    }
    (out, game.outcome().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse_file;

    #[test]
    fn a_scenario_differs_from_its_first_changed_ply_and_the_same_one_does_not() {
        let file = parse_file(
            "t.yaml",
            r"
topic: t
scenarios:
  - id: wraps-at-ply-two
    rules: [SOW-4]
    start: 8,6,6,6/6,6,6,4 S 0/0 1---/1234
    moves: [S2, N1, S1]
    result: {state: unfinished}
  - id: never-wraps
    rules: [SOW-3]
    moves: [S1]
    result: {state: unfinished}
  - id: wraps-with-strict-lock
    rules: [SOW-4]
    when: {strict-lock: true}
    start: 8,6,6,6/6,6,6,4 S 0/0 1---/1234
    moves: [S1]
    result: {state: unfinished}
",
        )
        .unwrap();
        let suite = Suite {
            version: None,
            digest: None,
            files: vec![crate::scenario::SuiteFile {
                file: "t.yaml".into(),
                topic: "t".into(),
                scenarios: file.scenarios,
            }],
            perft: None,
        };
        // The other I1 reading than the default's, whichever that is.
        let other = Profile::DEFAULT.flipped(Switch::SkipOrigin);
        let part = compare(&suite, other);
        assert_eq!(part.compared, 3);
        assert_eq!(part.differing.len(), 2);
        // A reading outside the dispute stays as the scenario pins it.
        let pinned = &part.differing[1];
        assert_eq!(
            pinned.default_profile,
            Profile::DEFAULT.set(Switch::StrictLock, true)
        );
        assert_eq!(
            pinned.alternative_profile,
            other.set(Switch::StrictLock, true)
        );
        assert!(pinned.written_for_default && pinned.written_for_alternative);
        assert_eq!(part.differing[0].default_profile, Profile::DEFAULT);
        let d = &part.differing[0];
        assert_eq!(d.id, "wraps-at-ply-two");
        assert_eq!(d.first_difference, 3);
        assert!(!d.plies[2].differs && d.plies[3].differs);
        assert_eq!(d.plies[3].mv, Some("S1".parse().unwrap()));
        assert!(d.written_for_default && d.written_for_alternative);
        assert_ne!(d.plies[3].default.position, d.plies[3].alternative.position);
    }
}
