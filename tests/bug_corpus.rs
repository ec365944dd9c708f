//! The bug corpus: `kpe engine --bug NAME` engines, each with one seeded
//! rules bug (src/live/bugs.rs), checked live by kpe-check.
//!
//! For every bug: kpe-check catches it, the rules it cites for the first
//! divergence are the rule the bug breaks, no documented reading is named,
//! and every reproduction it prints reproduces: run against the bugged
//! engine it diverges at the same ply, run against the reference rules it
//! conforms (spec/PROTOCOL.md, "What kpe-check runs").
//!
//! Runs are small and seeded (a few random games, perft to depth 2), so the
//! whole corpus takes seconds; one test per bug lets the harness run them
//! side by side.

use std::path::Path;

use kpe::check::{Divergence, InputError, Sink, Summary, UnitResult};
use kpe::live::{Bug, Engine, EngineSubject, LiveOptions, LiveReport, Manifest, check_engine};
use kpe::scenario::{Reference, Subject};

/// A sink that keeps nothing: the tests look at the returned report.
struct Discard;

impl Sink for Discard {
    fn begin(&mut self, _: &kpe::check::Run) -> std::io::Result<()> {
        Ok(())
    }
    fn unit(&mut self, _: &UnitResult) -> std::io::Result<()> {
        Ok(())
    }
    fn finish(&mut self, _: &Summary) -> std::io::Result<()> {
        Ok(())
    }
    fn fail(&mut self, _: &InputError) -> std::io::Result<()> {
        Ok(())
    }
}

fn manifest(bug: &str) -> serde_json::Value {
    serde_json::json!({
        "format": "kpe-engine", "version": 1,
        "command": [env!("CARGO_BIN_EXE_kpe"), "engine", "--bug", bug],
        "profile": "default",
        "timeouts": {"start_ms": 10000, "request_ms": 5000},
    })
}

/// Checks the engine with `bug`, claiming the default profile.
fn check(bug: &str) -> (LiveReport, tempfile::TempDir) {
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
    let mut notes = Vec::new();
    let report = check_engine(&manifest, &path, &options, &mut Discard, &mut notes).unwrap();
    (report, dir)
}

fn divergences(report: &LiveReport) -> Vec<(&UnitResult, &Divergence)> {
    report
        .units
        .iter()
        .filter_map(|u| u.divergence.as_deref().map(|d| (u, d)))
        .collect()
}

/// Every printed scenario reproduces: the reference conforms to it under
/// each profile it admits, and the bugged engine fails it at the ply where
/// the divergence was found (`ply` of the scenario's own moves).
fn assert_reproductions(bug: &str, report: &LiveReport, manifest_path: &Path) {
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

/// Runs the corpus entry `bug` and checks everything the module doc says.
fn corpus(bug: &str) {
    let rule = bug.parse::<Bug>().unwrap().rule();
    let (report, dir) = check(bug);
    let found = divergences(&report);
    let (unit, first) = found
        .first()
        .unwrap_or_else(|| panic!("{bug} (breaks {rule}) was not caught"));
    let cited: Vec<&str> = first.rules.iter().collect();
    assert_eq!(
        cited,
        [rule],
        "{bug}: its first divergence ({} {}, fields {:?}) cites {cited:?}, not {rule}",
        unit.kind,
        unit.id,
        first.fields
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
            let tested = [$($bug),*];
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
    lock_1_no_lock: "no-lock",
    lock_1_lock_on_opponent: "lock-on-opponent",
    lock_1_lock_after_three_pits: "lock-after-three-pits",
    lock_2_origin_not_marked_used: "origin-not-marked-used",
    lock_3_north_strict_lock: "north-strict-lock",
    cap_1_capture_threes: "capture-threes",
    cap_1_capture_only_twos: "capture-only-twos",
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
