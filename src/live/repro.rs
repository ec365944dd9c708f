//! A divergence as a conformance scenario, ready to add to the suite: the
//! reference's answers at the position where the engine went wrong.

use std::collections::BTreeMap;

use super::shrink::Diverging;
use crate::game::Outcome;
use crate::judge::compare::expected;
use crate::judge::{Answer, Question};
use crate::profile::{Profile, Switch};
use crate::rules::{self, sweep};
use crate::scenario::{Expect, Rejection, Scenario, SwitchName};

/// The scenario that pins the reference's answer to the diverging question,
/// under the readings that decide it. `unit` names where it was found.
#[must_use]
pub fn reproduction(found: &Diverging, profile: Profile, unit: Option<&str>) -> Scenario {
    let question = &found.question;
    let position = *question.position();
    let answer = expected(question, profile);
    let mut scenario = Scenario {
        id: slug(question),
        rules: found.mismatch.rules.iter().map(|&r| r.to_owned()).collect(),
        description: format!(
            "Found by kpe-check{}: an engine claiming `{profile}` diverged on {} ({}).",
            unit.map(|u| format!(" in `{u}`")).unwrap_or_default(),
            match question {
                Question::Legal(_) => "the legal moves".to_owned(),
                Question::Play(_, pit) => format!("move {pit}"),
            },
            found
                .mismatch
                .fields
                .iter()
                .map(|f| f.field)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        when: pins(question, profile),
        start: (position != crate::Position::initial()).then(|| position.to_string()),
        invalid_start: None,
        moves: question.pit().into_iter().collect(),
        expect: Vec::new(),
        reject: None,
        result: None,
    };
    match answer {
        Answer::Legal(moves) => {
            if moves.is_empty()
                && let Some(reason) = rules::game_over(&position, profile)
            {
                scenario.result = Some(finished(reason, sweep(&position)));
            }
            scenario.expect.push(Expect {
                ply: 0,
                legal: Some(moves),
                ..Expect::default()
            });
        }
        Answer::Played {
            position: after,
            captures,
            ..
        } => {
            scenario.expect.push(Expect {
                ply: 1,
                position: Some(after),
                captures: Some(captures),
                ..Expect::default()
            });
            if let Some(pit) = question.pit()
                && let Ok((_, report)) = rules::play(&position, pit, profile)
            {
                match report.end {
                    Some(end) => scenario.result = Some(finished(end.reason, end.totals)),
                    // The engine ended a game that goes on: the scenario
                    // must say so, or it pins only what the engine got right.
                    None if found
                        .mismatch
                        .fields
                        .iter()
                        .any(|f| matches!(f.field, "game_over" | "totals")) =>
                    {
                        scenario.result = Some(Outcome::Unfinished);
                    }
                    None => {}
                }
            }
        }
        Answer::Illegal(reason) => {
            scenario.reject = Some(Rejection { ply: 1, reason });
        }
    }
    scenario
}

/// The reproduction of a divergence found in a game: `game` is the game up
/// to the diverging question (its current position is the question's).
///
/// When the repetition rule (END-3) matters to the divergence, that is when
/// the position after the move, the reference's or the engine's, occurred
/// earlier in the game, the scenario starts where the repeating stretch
/// began and replays the game's moves from there, so that the history that
/// decides it comes with it; it is pinned to the claimed profile's reading
/// of I5. Otherwise it is [`reproduction`]'s one-question scenario.
#[must_use]
pub fn reproduction_in_game(
    found: &Diverging,
    profile: Profile,
    unit: Option<&str>,
    game: &crate::Game,
) -> Scenario {
    let mut scenario = reproduction(found, profile, unit);
    let question = &found.question;
    let positions = game.positions();
    let Some(first) = repeated_at(found, profile, game) else {
        return scenario;
    };
    // Start at the first occurrence of the repeated position and replay
    // the game from there: the diverging question's plies move up by the
    // length of the stretch.
    let stretch: Vec<crate::Pit> = game.reports()[first..].iter().map(|r| r.pit).collect();
    let shift = stretch.len();
    let start = positions[first];
    scenario.start = (start != crate::Position::initial()).then(|| start.to_string());
    scenario.moves = stretch.into_iter().chain(question.pit()).collect();
    for expect in &mut scenario.expect {
        expect.ply += shift;
    }
    if let Some(reject) = &mut scenario.reject {
        reject.ply += shift;
    }
    scenario.when.insert(
        SwitchName(Switch::EndOnRepetition),
        profile.has(Switch::EndOnRepetition),
    );
    if !scenario.rules.iter().any(|r| r == "END-3") {
        scenario.rules.push("END-3".to_owned());
    }
    scenario.description = format!(
        "{} The position after it occurred {} plies earlier: the scenario replays the game from there.",
        scenario.description,
        shift + 1
    );
    scenario
}

/// Where in `game` the position after the diverging move occurred first
/// (the reference's position after it, or the engine's), if it did.
fn repeated_at(found: &Diverging, profile: Profile, game: &crate::Game) -> Option<usize> {
    let question = &found.question;
    let positions = game.positions();
    if positions.last() != Some(question.position()) {
        return None; // not this game's question
    }
    let after = |answer: &Answer| match answer {
        Answer::Played { position, .. } => position.parse::<crate::Position>().ok(),
        _ => None,
    };
    [after(&expected(question, profile)), after(&found.claimed)]
        .into_iter()
        .flatten()
        .find_map(|a| positions.iter().position(|p| *p == a))
}

/// The rule a divergence found in `game` breaks when it is the repetition
/// rule: `END-3` when the engine and the reference disagree on whether the
/// game is over after a move whose position occurred earlier in the game.
/// `None` otherwise, and then the divergence's own rules stand.
#[must_use]
pub fn repetition_rules(
    found: &Diverging,
    profile: Profile,
    game: &crate::Game,
) -> Option<Vec<&'static str>> {
    let ends_differ = found.mismatch.fields.iter().any(|f| f.field == "game_over");
    (ends_differ && repeated_at(found, profile, game).is_some()).then(|| vec!["END-3"])
}

fn finished(reason: crate::EndReason, totals: [u8; 2]) -> Outcome {
    Outcome::Finished {
        reason,
        totals,
        winner: crate::End { reason, totals }.winner(),
    }
}

/// The readings the answer depends on, pinned to the claimed profile's
/// choice; every switch when no smaller set keeps the answer the same.
fn pins(question: &Question, profile: Profile) -> BTreeMap<SwitchName, bool> {
    let answer = expected(question, profile);
    let deciding: Vec<Switch> = Switch::ALL
        .into_iter()
        .filter(|&s| expected(question, profile.set(s, !profile.has(s))) != answer)
        .collect();
    let agrees = |p: &Profile| deciding.iter().all(|&s| p.has(s) == profile.has(s));
    let enough = Profile::all()
        .filter(agrees)
        .all(|p| expected(question, p) == answer);
    let pinned: Vec<Switch> = if enough {
        deciding
    } else {
        Switch::ALL.to_vec()
    };
    pinned
        .into_iter()
        .map(|s| (SwitchName(s), profile.has(s)))
        .collect()
}

/// A stable id from the question: `kpe-check-<move>-<hash>`.
fn slug(question: &Question) -> String {
    // FNV-1a over the question's text: the same question, the same id.
    let text = question.to_string();
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let what = match question {
        Question::Legal(_) => "legal".to_owned(),
        Question::Play(_, pit) => pit.to_string().to_lowercase(),
    };
    format!("kpe-check-{what}-{:08x}", hash as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::compare::compare;
    use crate::scenario::{Reference, Subject};

    #[test]
    fn the_scenario_holds_for_the_reference_and_pins_only_what_decides_it() {
        let question = Question::Play(
            "8,6,6,6/6,6,6,4 S 0/0 1---/1234".parse().unwrap(),
            "S1".parse().unwrap(),
        );
        // The engine plays the other I1 reading than the default's.
        let other = expected(&question, Profile::DEFAULT.flipped(Switch::SkipOrigin));
        let mismatch = compare(&question, &other, Profile::DEFAULT).unwrap();
        let found = Diverging {
            question,
            claimed: other,
            mismatch,
        };
        let scenario = reproduction(&found, Profile::DEFAULT, Some("g1"));
        assert!(crate::scenario::is_slug(&scenario.id), "{}", scenario.id);
        assert_eq!(
            scenario.when.keys().map(|k| k.0).collect::<Vec<_>>(),
            [Switch::SkipOrigin]
        );
        for profile in scenario.profiles() {
            Reference::new()
                .verify("repro", &scenario, profile)
                .unwrap();
        }
        let yaml = serde_yaml::to_string(&[&scenario]).unwrap();
        let pinned = format!("skip-origin: {}", Profile::DEFAULT.has(Switch::SkipOrigin));
        assert!(yaml.contains(&pinned), "{yaml}");
    }
}
