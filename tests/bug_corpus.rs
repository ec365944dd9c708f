//! The bug corpus: `kpe engine --bug NAME` engines, each with one seeded
//! rules bug (src/live/bugs.rs), checked live by kpe-check.
//!
//! For every bug: kpe-check catches it, some divergence cites the rule the
//! bug breaks alone (which unit comes first depends on the default
//! reading), no documented reading is named,
//! and every reproduction it prints reproduces: run against the bugged
//! engine it diverges at the same ply, run against the reference rules it
//! conforms (spec/PROTOCOL.md, "What kpe-check runs").
//!
//! Runs are small and seeded (a few random games, perft to depth 2), so the
//! whole corpus takes seconds; one test per bug lets the harness run them
//! side by side.

#[path = "common/collect.rs"]
mod collect;
use collect::{Checked, checked};

use std::path::Path;

use kpe::judge::Divergence;
use kpe::judge::{Answer, Question, compare};
use kpe::live::{
    Bug, BugSession, Diverging, Engine, EngineSubject, LiveOptions, Manifest, repetition_rules,
    reproduction, reproduction_in_game,
};
use kpe::protocol::{Reply, Request};
use kpe::reporter::UnitResult;
use kpe::scenario::{Reference, Subject};
use kpe::{Game, Position, Profile};

/// The profile the engine of `bug` claims: the default, but for a bug of
/// one reading's value, which can only show under that value: the fullest
/// pit played when nothing feeds needs the obligation to lapse (I4), an
/// end at the first recurrence needs a game with no repetition rule (I5),
/// and a capture judged as if the origin were sown needs it skipped (I1).
fn claimed(bug: &str) -> Profile {
    match bug.parse::<Bug>() {
        Ok(Bug::UnfeedablePlaysFullest) => {
            Profile::DEFAULT.set(kpe::Switch::EndWhenUnfeedable, false)
        }
        Ok(Bug::EndsOnRepetition) => Profile::DEFAULT.set(kpe::Switch::EndOnRepetition, false),
        // The landing pit judged as if the origin were sown differs from
        // the real one only when the origin is skipped (I1).
        Ok(Bug::CaptureWhereOriginSown) => Profile::DEFAULT.set(kpe::Switch::SkipOrigin, true),
        _ => Profile::DEFAULT,
    }
}

fn manifest(bug: &str) -> serde_json::Value {
    serde_json::json!({
        "format": "kpe-engine", "version": 1,
        "command": [env!("CARGO_BIN_EXE_kpe"), "engine", "--bug", bug],
        "profile": claimed(bug).to_string(),
        "timeouts": {"start_ms": 10000, "request_ms": 5000},
    })
}

/// Checks the engine with `bug`, claiming the profile [`claimed`] gives.
fn check(bug: &str) -> (Checked, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("engine.json");
    std::fs::write(&path, manifest(bug).to_string()).unwrap();
    let options = LiveOptions {
        seed: Some(11),
        games: Some(8),
        perft_depth: Some(2),
        ..LiveOptions::default()
    };
    let manifest = Manifest::load(&path).unwrap();
    let report = checked(&manifest, &path, &options);
    (report, dir)
}

fn divergences(report: &Checked) -> Vec<(&UnitResult, &Divergence)> {
    report
        .units
        .iter()
        .filter_map(|u| u.divergence.as_deref().map(|d| (u, d)))
        .collect()
}

/// Every printed scenario reproduces: the reference conforms to it under
/// each profile it admits, and the bugged engine fails it at the ply where
/// the divergence was found (`ply` of the scenario's own moves).
fn assert_reproductions(bug: &str, report: &Checked, manifest_path: &Path) {
    let manifest = Manifest::load(manifest_path).unwrap();
    for (unit, d) in divergences(report) {
        let what = format!("{bug}: {} {}", unit.kind, unit.id);
        let scenario = d
            .scenario
            .as_ref()
            .unwrap_or_else(|| panic!("{what} has no reproduction"));
        for profile in scenario.profiles() {
            Reference::new()
                .verify("reproduction", scenario, profile)
                .unwrap_or_else(|e| panic!("{what}: the reference fails its reproduction: {e}"));
        }
        let mut engine = Engine::new(
            manifest.launch(manifest_path.parent().unwrap()),
            manifest.timeouts,
            report.profile,
        );
        let failed = EngineSubject::new(&mut engine)
            .verify("reproduction", scenario, report.profile)
            .expect_err(&format!(
                "{what}: the bugged engine passes its own reproduction:\n{}",
                d.scenario_yaml().unwrap()
            ));
        // The divergence is the scenario's last ply: its one move, or the
        // start when it is about the legal moves there.
        let ply = scenario.moves.len();
        assert_eq!(
            failed.ply,
            ply,
            "{what}: the bugged engine fails its reproduction elsewhere: {failed}\n{}",
            d.scenario_yaml().unwrap()
        );
    }
}

/// Whether the first divergence is one where a single answer cannot tell
/// LOCK-1 from LOCK-3: the mover's unlocking move captures nothing while the
/// opponent's pits are not all used, which a lock judged on the opponent's
/// pits (LOCK-1) and the strict reading of the unlocking move (LOCK-3) both
/// give; kpe-check cites LOCK-3 there. Which scenario diverges first depends
/// on the scenarios the claimed reading selects, which a change of reading
/// swaps (docs/GUIDE.md, "Settling a rule dispute").
fn lock_rules_one_answer_cannot_tell(
    rule: &str,
    cited: &[&str],
    d: &Divergence,
    profile: Profile,
) -> bool {
    let (Some(p), Some(last)) = (d.before, d.mv) else {
        return false;
    };
    if rule != "LOCK-1" || cited != ["LOCK-3"] {
        return false;
    }
    let mover = p.to_move();
    let (after, report) = kpe::play(&p, last, profile).unwrap();
    !p.lock_open(mover)
        && after.lock_open(mover)
        && !p.lock_open(mover.opponent())
        && !report.captures.is_empty()
        && d.fields
            .iter()
            .any(|f| f.field == "captures" && f.claimed == "none")
}

/// Runs the corpus entry `bug` and checks everything the module doc says.
fn corpus(bug: &str) {
    let rule = bug.parse::<Bug>().unwrap().rule();
    let (report, dir) = check(bug);
    let found = divergences(&report);
    assert!(!found.is_empty(), "{bug} (breaks {rule}) was not caught");
    let cites = |d: &Divergence| -> Vec<&str> {
        let cited: Vec<&str> = d.rules.iter().collect();
        if lock_rules_one_answer_cannot_tell(rule, &cited, d, report.profile) {
            vec![rule]
        } else {
            cited
        }
    };
    // Which unit diverges first, and so which rule it cites, depends on the
    // scenarios the default reading selects, which `kpe adopt` swaps (under
    // `end-when-unfeedable` a demand to feed can first show as a game said
    // to be over, END-1); so the test finds a divergence that shows the bug
    // with its rule alone, as there is under every default.
    assert!(
        found.iter().any(|(_, d)| cites(d) == [rule]),
        "{bug}: no divergence cites {rule} alone: {:?}",
        found
            .iter()
            .map(|(u, d)| (u.id.as_str(), cites(d)))
            .collect::<Vec<_>>()
    );
    let reading = report.summary.reading.as_ref().expect("a reading verdict");
    assert!(!reading.explained(), "{bug}: a reading is named: {reading}");
    assert_reproductions(bug, &report, &dir.path().join("engine.json"));
}

macro_rules! corpus_tests {
    ($($test:ident: $bug:literal,)*) => {
        $(
            #[test]
            fn $test() {
                corpus($bug);
            }
        )*

        #[test]
        fn every_bug_has_a_test() {
            let tested = [$($bug,)* "ends-on-repetition", "perft-used-rows-alias", "perft-history-kept", "perft-finished-counted", "locked-capture-starves"];
            for (name, _, _) in Bug::ALL {
                assert!(name == "none" || tested.contains(&name), "no test for {name}");
            }
        }
    };
}

corpus_tests! {
    sow_1_extra_turn_after_capture: "extra-turn-after-capture",
    sow_2_origin_keeps_a_stone: "origin-keeps-a-stone",
    sow_3_sow_clockwise: "sow-clockwise",
    sow_4_north_skips_origin: "north-skips-origin",
    sow_5_relay_once: "relay-once",
    sow_5_relay_until_empty: "relay-until-empty",
    lock_1_no_lock: "no-lock",
    lock_1_lock_on_opponent: "lock-on-opponent",
    lock_1_lock_after_three_pits: "lock-after-three-pits",
    lock_2_origin_not_marked_used: "origin-not-marked-used",
    lock_3_north_strict_lock: "north-strict-lock",
    cap_1_takes_threes_too: "takes-threes-too",
    cap_1_capture_only_twos: "capture-only-twos",
    cap_1_capture_where_origin_sown: "capture-where-origin-sown",
    cap_2_chain_also_forward: "chain-also-forward",
    cap_2_no_chain: "no-chain",
    cap_2_chain_jumps_a_break: "chain-jumps-a-break",
    cap_3_chain_into_own_row: "chain-into-own-row",
    cap_4_captures_count_for_opponent: "captures-count-for-opponent",
    cap_4_captured_stones_stay: "captured-stones-stay",
    feed_1_no_feeding: "no-feeding",
    feed_1_feeding_at_one_stone: "feeding-at-one-stone",
    feed_2_feed_must_land_there: "feed-must-land-there",
    feed_3_unfeedable_plays_fullest: "unfeedable-plays-fullest",
    end_1_end_when_mover_empty: "end-when-mover-empty",
    end_2_no_sweep: "no-sweep",
    end_2_sweep_to_opponent: "sweep-to-opponent",
    res_1_totals_without_captures: "totals-without-captures",
    move_4_empty_before_not_own: "empty-before-not-own",
    move_4_feeding_before_empty: "feeding-before-empty",
    move_4_not_own_before_game_over: "not-own-before-game-over",
}

/// The control: the copy with no bug conforms.
#[test]
fn the_corpus_control_conforms() {
    let (report, _dir) = check("none");
    assert!(report.conforms(), "{:?}", divergences(&report));
}

/// An engine started on `manifest_path`, claiming `profile`.
fn engine(manifest_path: &Path, profile: Profile) -> Engine {
    let manifest = Manifest::load(manifest_path).unwrap();
    Engine::new(
        manifest.launch(manifest_path.parent().unwrap()),
        manifest.timeouts,
        profile,
    )
}

fn as_answer(reply: Reply) -> Answer {
    Answer::from_reply(reply).unwrap_or_else(|other| panic!("not an answer to play: {other:?}"))
}

/// END-3: the one bug with state. The engine ends a game the first time a
/// position recurs while claiming no repetition rule (the default with
/// `repetition=continues`, whatever the default is), so its answer
/// depends on the game it was asked about: the reproduction must replay the
/// repeating stretch, and the rule it breaks is END-3.
#[test]
fn end_3_ends_on_repetition_reproduces_with_its_history() {
    // Caught live.
    let profile = claimed("ends-on-repetition");
    let (report, dir) = check("ends-on-repetition");
    assert!(
        !divergences(&report).is_empty(),
        "ends-on-repetition was not caught"
    );
    // Its first divergence, a conformance scenario's line (issue 23: it
    // cited END-1), cites END-3 and so do its fields; its reproduction
    // replays the line's history.
    let (unit, first) = divergences(&report)[0];
    assert_eq!(unit.kind, "scenario", "{}", unit.id);
    assert_eq!(first.rules.to_string(), "END-3", "{}: {first:?}", unit.id);
    assert!(first.fields.iter().all(|f| f.rules.to_string() == "END-3"));
    assert!(first.scenario.as_ref().unwrap().moves.len() > 1);
    // The chase: one stone each, four pits apart, for ever with no
    // repetition rule.
    let start: Position = "1,0,0,0/1,0,0,0 S 22/24 1234/1234".parse().unwrap();
    let mut game = Game::new(start, profile);
    let pit = loop {
        let pit = game.legal_moves()[0];
        let mut next = game.clone();
        next.play(pit).unwrap();
        if next.is_repetition() {
            break pit;
        }
        assert!(game.positions().len() < 100, "the chase does not repeat");
        game = next;
    };
    // The engine's answer to that move, in a session that saw the game.
    let mut session = BugSession::new(Bug::EndsOnRepetition);
    for (before, report) in game.positions().iter().zip(game.reports()) {
        let request = Request::Play {
            position: *before,
            pit: report.pit,
        };
        session.answer(&request, profile).unwrap();
    }
    let question = Question::Play(*game.current(), pit);
    let claimed = as_answer(session.answer(&question.request(), profile).unwrap());
    let mismatch = compare(&question, &claimed, profile).expect("it diverges");
    let found = Diverging {
        question,
        claimed,
        mismatch,
    };
    assert_eq!(
        repetition_rules(&found, profile, &game),
        Some(vec!["END-3"])
    );
    let manifest_path = dir.path().join("engine.json");
    // The one-question scenario does not reproduce: a fresh engine has no
    // history, so it answers right.
    let plain = reproduction(&found, profile, None);
    let mut fresh = engine(&manifest_path, profile);
    assert!(
        EngineSubject::new(&mut fresh)
            .verify("plain", &plain, profile)
            .is_ok()
    );
    // With the stretch it does: the reference conforms, under every profile
    // it admits; the bugged engine fails at the same ply.
    let scenario = reproduction_in_game(&found, profile, Some("chase"), &game);
    assert!(scenario.moves.len() > 1, "{scenario:?}");
    assert!(scenario.rules.iter().any(|r| r == "END-3"));
    for profile in scenario.profiles() {
        assert!(!profile.has(kpe::Switch::EndOnRepetition));
        Reference::new()
            .verify("reproduction", &scenario, profile)
            .unwrap_or_else(|e| panic!("the reference fails the reproduction: {e}"));
    }
    let mut fresh = engine(&manifest_path, profile);
    let failed = EngineSubject::new(&mut fresh)
        .verify("reproduction", &scenario, profile)
        .expect_err("the bugged engine passes the reproduction");
    assert_eq!(failed.ply, scenario.moves.len(), "{failed}");
}

/// Transcript mode cites the same rule for the same mistake: one-ply
/// transcripts of the bugged engines' answers (the examples of issue 9,
/// each once cited wrongly), checked by `kpe-check FILE.json`.
#[test]
fn transcripts_of_the_bugged_answers_cite_the_same_rule() {
    for (bug, start, pit, legal, rule) in [
        (
            "chain-also-forward",
            "0,28,3,2/2,5,1,7 N 0/0 1-34/1234",
            "N2",
            false,
            "CAP-2",
        ),
        (
            "lock-on-opponent",
            "0,4,0,0/7,1,0,0 S 36/0 1234/-234",
            "S2",
            false,
            "LOCK-1",
        ),
        (
            "feeding-at-one-stone",
            "1,2,0,4/0,0,1,0 S 20/20 1234/1234",
            "S4",
            true,
            "FEED-1",
        ),
        (
            "origin-keeps-a-stone",
            "6,6,6,6/6,6,6,6 S 0/0 ----/----",
            "S3",
            false,
            "SOW-2",
        ),
        (
            "no-sweep",
            "0,0,0,0/1,1,0,0 N 14/32 1234/1234",
            "N1",
            false,
            "END-2",
        ),
    ] {
        let bug: Bug = bug.parse().unwrap();
        let example: Position = start.parse().unwrap();
        let example_pit: kpe::Pit = pit.parse().unwrap();
        // The example shows the bug under the default it was found under;
        // under another default the test finds a position where it shows.
        let (position, pit, rule) = match live_rules(bug, example, example_pit, legal) {
            Some(cited) => {
                assert_eq!(cited, [rule], "{bug}: live mode cites {cited:?}");
                (example, example_pit, rule.to_owned())
            }
            None => {
                let (p, q) = find_showing(bug, legal);
                let cited = live_rules(bug, p, q, legal).unwrap();
                (p, q, cited.join(" "))
            }
        };
        let start = position.to_string();
        let mut session = BugSession::new(bug);
        let Reply::Played {
            position: after,
            captures,
            end,
        } = session
            .answer(&Request::Play { position, pit }, Profile::DEFAULT)
            .unwrap()
        else {
            panic!("{bug} refuses {pit}");
        };
        let mut ply = serde_json::json!({
            "move": pit.to_string(), "after": after, "captures": captures,
            "game_over": end.is_some(),
        });
        if let Some(end) = end {
            ply["totals"] = serde_json::json!(end.totals);
        }
        if legal {
            let Some(Reply::Legal { moves }) =
                session.answer(&Request::Legal { position }, Profile::DEFAULT)
            else {
                panic!("no legal moves");
            };
            ply["legal"] = serde_json::json!(moves);
        }
        // The header comes first, so the text is written in order.
        let transcript = format!(
            r#"{{"format": "kpe-transcript", "version": 1, "engine": {{"name": "{bug}", "version": "1"}}, "games": [{{"id": "g", "start": "{start}", "plies": [{ply}]}}]}}"#
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        std::fs::write(&path, &transcript).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kpe-check"))
            .arg(&path)
            .args(["--format", "json"])
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let divergence = &report["units"][0]["divergence"];
        assert_eq!(
            divergence["rules"],
            serde_json::json!(rule.split(' ').collect::<Vec<_>>()),
            "{bug}: {report}"
        );
        let notes = divergence["notes"].as_array().cloned().unwrap_or_default();
        assert!(
            notes.iter().all(|n| !n
                .as_str()
                .unwrap_or("")
                .contains("what the rules give under")),
            "{bug}: a reading is named: {notes:?}"
        );
    }
}

/// The rules live mode cites when the engine of `bug` is asked to play
/// `pit` in `position` under the default (its legal moves there too when
/// `legal`), or `None` when its answers are the reference's.
fn live_rules(bug: Bug, position: Position, pit: kpe::Pit, legal: bool) -> Option<Vec<String>> {
    let mut questions = vec![Question::Play(position, pit)];
    if legal {
        questions.insert(0, Question::Legal(position));
    }
    questions.into_iter().find_map(|question| {
        let reply = BugSession::new(bug)
            .answer(&question.request(), Profile::DEFAULT)
            .unwrap();
        let claimed = match reply {
            Reply::Legal { mut moves } => {
                moves.sort();
                Answer::Legal(moves)
            }
            other => as_answer(other),
        };
        compare(&question, &claimed, Profile::DEFAULT)
            .map(|m| m.rules.iter().map(|r| (*r).to_owned()).collect())
    })
}

/// A position and move of seeded random games under the default where the
/// engine of `bug` answers differently from the reference (a move it plays,
/// so that a transcript can record it).
fn find_showing(bug: Bug, legal: bool) -> (Position, kpe::Pit) {
    use rand::{RngExt, SeedableRng};
    let mut rng = chacha20::ChaCha8Rng::seed_from_u64(9);
    for _ in 0..2000 {
        let mut game = Game::new(Position::initial(), Profile::DEFAULT);
        for _ in 0..200 {
            let p = *game.current();
            let moves = game.legal_moves().to_vec();
            if moves.is_empty() {
                break;
            }
            for &pit in &moves {
                let played = matches!(
                    BugSession::new(bug)
                        .answer(&Request::Play { position: p, pit }, Profile::DEFAULT),
                    Some(Reply::Played { .. })
                );
                if played && live_rules(bug, p, pit, legal).is_some() {
                    return (p, pit);
                }
            }
            game.play(moves[rng.random_range(0..moves.len())]).unwrap();
        }
    }
    panic!("{bug} shows nowhere in 2000 random games");
}

// ---------------------------------------------------------------------------
// Protocol points of spec/PROTOCOL.md the corpus relies on
// ---------------------------------------------------------------------------

/// An engine that answers the hello with `hello_reply` and then nothing
/// (with the directory it runs in).
#[cfg(unix)]
fn scripted(hello_reply: &str) -> (Engine, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("engine.json");
    let script = format!("read line; echo '{hello_reply}'; read line");
    let manifest = serde_json::json!({
        "format": "kpe-engine", "version": 1, "command": ["sh", "-c", script],
        "timeouts": {"start_ms": 10000, "request_ms": 2000},
    });
    std::fs::write(&path, manifest.to_string()).unwrap();
    (engine(&path, Profile::DEFAULT), dir)
}

#[cfg(unix)]
#[test]
fn a_hello_needs_name_and_version_and_an_error_hello_fails_the_start() {
    // name and version are required.
    let (mut e, _dir) = scripted(r#"{"type":"hello","protocol":1}"#);
    let failure = e.start().map(|_| ()).unwrap_err();
    assert_eq!(failure.code, "garbage", "{}", failure.kind);
    // An engine that cannot play the profile asked answers with `error`.
    let (mut e, _dir) = scripted(r#"{"type":"error","message":"cannot play strict-lock"}"#);
    let failure = e.start().map(|_| ()).unwrap_err();
    assert!(
        ["engine-error", "wrong-reply"].contains(&failure.code),
        "{}",
        failure.kind
    );
    assert!(
        failure.kind.to_string().contains("error"),
        "{}",
        failure.kind
    );
}

#[test]
fn kpe_engine_answers_a_request_with_an_unknown_field_with_error_and_goes_on() {
    let input = [
        r#"{"type":"hello","protocol":1,"profile":"default"}"#,
        r#"{"type":"legal","position":"6,6,6,6/6,6,6,6 S 0/0 ----/----","depth":3}"#,
        r#"{"type":"legal","position":"6,6,6,6/6,6,6,6 S 0/0 ----/----"}"#,
    ]
    .join("\n");
    let mut out = Vec::new();
    kpe::live::serve(
        input.as_bytes(),
        &mut out,
        kpe::live::ServeOptions::default(),
    )
    .unwrap();
    let lines: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[1].starts_with(r#"{"type":"error""#) && lines[1].contains("unknown field `depth`"),
        "{}",
        lines[1]
    );
    assert_eq!(
        lines[2],
        r#"{"type":"legal","moves":["S1","S2","S3","S4"]}"#
    );
}
