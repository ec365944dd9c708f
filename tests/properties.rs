//! Property tests over random legal games under random rules profiles.
//!
//! A game is a profile (any of them) and a list of choices, each picking
//! one of the legal moves of the moment, played from the initial position
//! until the game ends or the choices run out (at most 200 plies). The
//! invariants of spec/RULES.md must hold at every ply.
//!
//! Case counts: proptest's default (256 games per property), or
//! `PROPTEST_CASES=n`. Failures are saved to
//! `tests/properties.proptest-regressions` (committed) and replayed first.

use std::collections::BTreeMap;

use kpe::scenario::{Expect, Line, Played, Reference, Scenario, Subject, SwitchName};
use kpe::{
    End, EndReason, Game, Outcome, Pit, Player, Position, Profile, Report, Switch, TOTAL_STONES,
    game_over, legal_moves, play,
};
use proptest::prelude::*;
use proptest::sample::Index;

/// The longest game played.
const MAX_PLIES: usize = 200;

/// A profile and the choices of a game.
fn games() -> impl Strategy<Value = (Profile, Vec<Index>)> {
    (
        0..Profile::COUNT,
        prop::collection::vec(any::<Index>(), 0..=MAX_PLIES),
    )
        .prop_map(|(p, choices)| (Profile::all().nth(p).expect("a profile"), choices))
}

/// Plays the game the choices pick and returns it.
fn play_out(profile: Profile, choices: &[Index]) -> Game {
    let mut game = Game::new(Position::initial(), profile);
    for choice in choices {
        let legal = game.legal_moves();
        if legal.is_empty() {
            break;
        }
        game.play(*choice.get(&legal)).expect("a legal move plays");
    }
    game
}

/// FEED-2 worked out on its own, not by the rules code: whether playing
/// `pit` gives the (empty-rowed) opponent a stone, by sowing (default) or
/// after the move's captures (`feed-after-capture`).
fn would_feed(position: &Position, pit: Pit, profile: Profile) -> bool {
    let mover = position.to_move();
    let theirs = |i: usize| Pit::from_index(i).expect("index < 8").owner() != mover;
    let mut pits = position.pits();
    let origin = pit.index();
    let mut hand = pits[origin];
    pits[origin] = 0;
    let mut at = origin;
    let mut sown_theirs = false;
    while hand > 0 {
        at = (at + 1) % 8;
        // SOW-4 (I1): coming back around to the origin.
        if at == origin && profile.has(Switch::SkipOrigin) {
            continue;
        }
        pits[at] += 1;
        hand -= 1;
        sown_theirs |= theirs(at);
    }
    if !profile.has(Switch::FeedAfterCapture) {
        return sown_theirs;
    }
    let used_after = mover
        .pits()
        .iter()
        .all(|&p| p == pit || position.has_used(p));
    let unlocked = if profile.has(Switch::StrictLock) {
        position.lock_open(mover)
    } else {
        used_after
    };
    if unlocked {
        while theirs(at) && matches!(pits[at], 2 | 4) {
            pits[at] = 0;
            at = (at + 7) % 8;
        }
    }
    (0..8).any(|i| theirs(i) && pits[i] > 0)
}

/// The invariants of one position.
fn check_position(p: &Position) -> Result<(), TestCaseError> {
    // BOARD-3: stones are conserved.
    let total = p.board_stones() + p.captured(Player::South) + p.captured(Player::North);
    prop_assert_eq!(total, TOTAL_STONES, "{}", p);
    // LOCK-2: a pit its owner never used holds at least 6.
    for pit in Pit::ALL {
        if !p.has_used(pit) {
            prop_assert!(
                p.stones(pit) >= 6,
                "{} never used yet holds {} in {}",
                pit,
                p.stones(pit),
                p
            );
        }
    }
    Ok(())
}

/// Legal moves, refusals and feeding in one position of a game.
fn check_moves(game: &Game) -> Result<(), TestCaseError> {
    let p = game.current();
    let profile = game.profile();
    let legal = legal_moves(p, profile);
    // END-1, FEED-3, worked out from the position alone: the game is over
    // when the mover's row is empty, or, under end-when-unfeedable, when the
    // opponent's row is empty and no move would feed it; and then (only
    // then) there are no legal moves.
    let mover = p.to_move();
    let unfeedable = profile.has(Switch::EndWhenUnfeedable)
        && p.row_stones(mover.opponent()) == 0
        && !mover
            .pits()
            .into_iter()
            .any(|q| p.stones(q) > 0 && would_feed(p, q, profile));
    let over = if p.row_stones(mover) == 0 {
        Some(EndReason::NoStones)
    } else if unfeedable {
        Some(EndReason::Unfeedable)
    } else {
        None
    };
    prop_assert_eq!(game_over(p, profile), over, "{} under {}", p, profile);
    prop_assert_eq!(legal.is_empty(), over.is_some(), "{} under {}", p, profile);
    let ended = matches!(game.outcome(), Outcome::Finished { .. });
    prop_assert_eq!(game.legal_moves().is_empty(), ended, "{}", p);
    // Every legal move plays; every other pit is refused for its reason.
    for pit in Pit::ALL {
        match play(p, pit, profile) {
            Ok(_) => prop_assert!(
                legal.contains(&pit),
                "{} played in {} but is not legal",
                pit,
                p
            ),
            Err(e) => {
                prop_assert!(
                    !legal.contains(&pit),
                    "legal {} refused in {}: {}",
                    pit,
                    p,
                    e
                );
                let expected = if legal.is_empty() {
                    "game-over"
                } else if pit.owner() != mover {
                    "not-own-pit"
                } else if p.stones(pit) == 0 {
                    "empty-pit"
                } else {
                    "feeding-required"
                };
                prop_assert_eq!(e.reason.code(), expected, "{} in {}", pit, p);
            }
        }
    }
    // FEED-1..3: with the opponent's row empty, the legal moves are the
    // feeding ones if any; otherwise every non-empty pit (default I4) or
    // none (end-when-unfeedable).
    if p.row_stones(mover.opponent()) == 0 && p.row_stones(mover) > 0 {
        let candidates: Vec<Pit> = mover
            .pits()
            .into_iter()
            .filter(|&q| p.stones(q) > 0)
            .collect();
        let feeding: Vec<Pit> = candidates
            .iter()
            .copied()
            .filter(|&q| would_feed(p, q, profile))
            .collect();
        // When a feeding move exists, every legal move feeds, judged on
        // what the move actually did by the profile's reading of FEED-2.
        if !feeding.is_empty() {
            for &q in &legal {
                let (after, report) = play(p, q, profile).expect("a legal move plays");
                let fed = if profile.has(Switch::FeedAfterCapture) {
                    after.row_stones(mover.opponent()) > 0
                } else {
                    report.sown.iter().any(|s| s.owner() != mover)
                };
                prop_assert!(fed, "legal {} does not feed in {} under {}", q, p, profile);
            }
        }
        let expected = if !feeding.is_empty() {
            feeding
        } else if profile.has(Switch::EndWhenUnfeedable) {
            Vec::new()
        } else {
            candidates
        };
        prop_assert_eq!(
            legal.to_vec(),
            expected,
            "feeding in {} under {}",
            p,
            profile
        );
    }
    Ok(())
}

/// The invariants of one move.
fn check_move(
    before: &Position,
    after: &Position,
    r: &Report,
    profile: Profile,
) -> Result<(), TestCaseError> {
    let mover = before.to_move();
    prop_assert_eq!(r.mover, mover);
    for c in &r.captures {
        // CAP-3: only the opponent's pits. CAP-1/CAP-2: 2 or 4 each.
        prop_assert_ne!(c.pit.owner(), mover, "own pit captured in {}", before);
        prop_assert!(
            matches!(c.stones, 2 | 4),
            "capture of {} in {}",
            c.stones,
            before
        );
        prop_assert_eq!(after.stones(c.pit), 0);
    }
    // CAP-4: the stones count for the mover, and only for them.
    prop_assert_eq!(after.captured(mover), before.captured(mover) + r.captured());
    prop_assert_eq!(
        after.captured(mover.opponent()),
        before.captured(mover.opponent())
    );
    // LOCK-1, LOCK-3: a locked player never captures; the move from the
    // last unused pit may capture only under the default reading of I2.
    let unlocked = if profile.has(Switch::StrictLock) {
        before.lock_open(mover)
    } else {
        after.lock_open(mover)
    };
    if !unlocked {
        prop_assert!(
            r.captures.is_empty(),
            "locked capture in {} under {}",
            before,
            profile
        );
    }
    // The report as JSON says the same as the report.
    let json = serde_json::to_value(r).expect("a report serialises");
    let name = r.pit.to_string();
    prop_assert_eq!(json["move"].as_str(), Some(name.as_str()));
    let captures: Vec<kpe::Capture> =
        serde_json::from_value(json["captures"].clone()).expect("captures read back");
    prop_assert_eq!(&captures[..], &r.captures[..]);
    let end: Option<End> = serde_json::from_value(json["end"].clone()).expect("end reads back");
    prop_assert_eq!(end, r.end);
    Ok(())
}

/// A scenario that records everything the reference did in `game`.
fn record(game: &Game) -> Scenario {
    let moves: Vec<Pit> = game.reports().iter().map(|r| r.pit).collect();
    let mut expect = vec![Expect {
        ply: 0,
        position: Some(game.start().to_string()),
        legal: Some(legal_moves(game.start(), game.profile()).to_vec()),
        ..Expect::default()
    }];
    let mut replay = Game::new(*game.start(), game.profile());
    for (i, r) in game.reports().iter().enumerate() {
        replay.play(r.pit).expect("replays");
        expect.push(Expect {
            ply: i + 1,
            position: Some(game.positions()[i + 1].to_string()),
            legal: Some(replay.legal_moves().to_vec()),
            sown: Some(r.sown.to_vec()),
            landing: Some(r.landing),
            captures: Some(r.captures.to_vec()),
            events: Some(r.events()),
        });
    }
    let when: BTreeMap<SwitchName, bool> = Switch::ALL
        .iter()
        .map(|&s| (SwitchName(s), game.profile().has(s)))
        .collect();
    Scenario {
        id: "recorded".to_owned(),
        rules: vec!["SOW-3".to_owned()],
        description: String::new(),
        when,
        start: Some(game.start().to_string()),
        invalid_start: None,
        moves,
        expect,
        reject: None,
        result: Some(game.outcome()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The feeding model above ([`would_feed`]) is a deliberate copy of
    /// FEED-2 (spec/RULES.md, "Deliberate copies of the rules"): under every
    /// profile, in every position of a random game, for every non-empty pit
    /// of the mover, it says what the reference's `kpe::feeds` says.
    #[test]
    fn the_feeding_model_agrees_with_the_rules_under_every_profile(
        choices in prop::collection::vec(any::<Index>(), 0..=MAX_PLIES),
    ) {
        for profile in Profile::all() {
            let game = play_out(profile, &choices);
            for p in game.positions() {
                for pit in p.to_move().pits() {
                    if p.stones(pit) == 0 {
                        continue;
                    }
                    prop_assert_eq!(
                        would_feed(p, pit, profile),
                        kpe::feeds(p, pit, profile),
                        "{} in {} under {}", pit, p, profile
                    );
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    /// Stones conserved, captures only of 2s and 4s from the opponent's
    /// row, no capture while locked, unused pits hold 6 or more, feeding
    /// forced exactly when it can be, legal moves play and nothing else
    /// does, no legal moves exactly when the game is over.
    #[test]
    fn rules_invariants_hold_along_random_games((profile, choices) in games()) {
        let game = play_out(profile, &choices);
        let mut replay = Game::new(*game.start(), profile);
        check_position(replay.current())?;
        check_moves(&replay)?;
        for r in game.reports() {
            let before = *replay.current();
            let report = replay.play(r.pit).expect("replays").clone();
            let after = *replay.current();
            check_move(&before, &after, &report, profile)?;
            check_position(&after)?;
            check_moves(&replay)?;
            // The end is reported exactly when the next player has no move.
            prop_assert_eq!(report.end.is_some(), replay.legal_moves().is_empty());
        }
        // After the end, including a repetition under end-on-repetition,
        // every move is refused as game-over.
        if let Outcome::Finished { .. } = replay.outcome() {
            for pit in Pit::ALL {
                let err = replay.clone().play(pit).expect_err("the game is over");
                prop_assert_eq!(err.reason.code(), "game-over");
            }
        }
    }

    /// Notation and JSON round trips of positions, outcomes, reports and
    /// scenarios.
    #[test]
    fn notation_and_serde_round_trip((profile, choices) in games()) {
        let game = play_out(profile, &choices);
        for p in game.positions() {
            let text = p.to_string();
            prop_assert_eq!(&text.parse::<Position>().expect("reads back"), p);
            let json = serde_json::to_string(p).expect("serialises");
            prop_assert_eq!(&serde_json::from_str::<Position>(&json).expect("reads back"), p);
        }
        let outcome = game.outcome();
        let json = serde_json::to_string(&outcome).expect("serialises");
        prop_assert_eq!(serde_json::from_str::<Outcome>(&json).expect("reads back"), outcome);
        let scenario = record(&game);
        let json = serde_json::to_string(&scenario).expect("serialises");
        prop_assert_eq!(&serde_json::from_str::<Scenario>(&json).expect("reads back"), &scenario);
        let yaml = serde_yaml::to_string(&scenario).expect("serialises");
        prop_assert_eq!(&serde_yaml::from_str::<Scenario>(&yaml).expect("reads back"), &scenario);
        // What a subject answers, as JSON.
        let moves: Vec<Pit> = game.reports().iter().map(|r| r.pit).collect();
        if let Some((&last, earlier)) = moves.split_last() {
            let start = game.start().to_string();
            let line = Line { start: &start, profile, moves: earlier };
            let played = Reference::new().play(&line, last).expect("answers");
            let accepted = matches!(played, Played::Accepted { .. });
            prop_assert!(accepted, "the last move of the game is refused: {:?}", played);
            let json = serde_json::to_string(&played).expect("serialises");
            prop_assert_eq!(serde_json::from_str::<Played>(&json).expect("reads back"), played);
        }
    }

    /// The same moves always give the same game, and a scenario recorded
    /// from a game passes against the reference under its profile.
    #[test]
    fn replays_agree_and_recorded_games_pass_as_scenarios((profile, choices) in games()) {
        let game = play_out(profile, &choices);
        let moves: Vec<Pit> = game.reports().iter().map(|r| r.pit).collect();
        for _ in 0..2 {
            let again = Game::replay(Position::initial(), profile, &moves).expect("replays");
            prop_assert_eq!(again.positions(), game.positions());
            prop_assert_eq!(again.reports(), game.reports());
            prop_assert_eq!(again.outcome(), game.outcome());
        }
        let scenario = record(&game);
        prop_assert_eq!(scenario.profiles().collect::<Vec<_>>(), vec![profile]);
        let verified = Reference::new().verify("recorded.yaml", &scenario, profile);
        prop_assert!(verified.is_ok(), "{}", verified.unwrap_err());
    }
}
