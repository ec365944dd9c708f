//! Which rule a divergence cites (spec/PROTOCOL.md): one mutant transcript
//! per class of mistake, each checked for the rule its divergence cites and
//! for field labels that agree with it.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

/// A transcript of one game from `start` with one ply, `ply` being the
/// ply's JSON object.
fn transcript(start: &str, ply: &str) -> String {
    transcript_under("default", start, ply)
}

/// [`transcript`] of an engine claiming `profile`.
fn transcript_under(profile: &str, start: &str, ply: &str) -> String {
    format!(
        r#"{{"format": "kpe-transcript", "version": 1, "engine": {{"name": "mutant", "version": "1"}},
        "profile": "{profile}",
        "games": [{{"id": "g1", "start": "{start}", "plies": [{ply}]}}]}}"#
    )
}

/// The divergence kpe-check reports for the only game of `text`.
fn divergence(text: &str) -> Value {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("mutant.json");
    std::fs::write(&path, text).expect("written");
    let out = Command::cargo_bin("kpe-check")
        .expect("built")
        .arg(Path::new(&path))
        .args(["--format", "json"])
        .output()
        .expect("kpe-check runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    report["units"][0]["divergence"].clone()
}

/// Asserts the divergence cites `rule` alone and that every field is
/// labelled with it.
fn cites(text: &str, rule: &str) {
    let d = divergence(text);
    assert_eq!(d["rules"], serde_json::json!([rule]), "{d:#}");
    for field in d["fields"].as_array().expect("fields") {
        assert_eq!(field["rules"], serde_json::json!([rule]), "{field:#}");
    }
    assert_eq!(d["scenario"]["rules"], serde_json::json!([rule]), "{d:#}");
}

const RELAY: &str = "0,0,0,0/3,0,0,5 N 16/24 1234/1234";
const CHAIN: &str = "2,4,5,2/5,1,0,5 S 16/8 1234/1234";

#[test]
fn relay_sowing_cites_sow_5_with_or_without_the_capture_it_makes() {
    // N4 sows S1..S4 and N1; an engine that sows N1's 4 stones on (relay)
    // lands in S1 with 2, and may capture them.
    cites(
        &transcript(
            RELAY,
            r#"{"move": "N4", "after": "2,1,1,1/0,1,1,1 S 16/24 1234/1234", "captures": []}"#,
        ),
        "SOW-5",
    );
    cites(
        &transcript(
            RELAY,
            r#"{"move": "N4", "after": "0,1,1,1/0,1,1,1 S 16/26 1234/1234", "captures": [{"pit": "S1", "stones": 2}]}"#,
        ),
        "SOW-5",
    );
}

#[test]
fn relay_sowing_of_two_and_three_laps_cites_sow_5() {
    // Issue 43's example: S3's six stones land in S1, making 7; the engine
    // sows those on (landing in N4, making 8), then those (round to N4
    // itself, empty since taken up): two laps of relay, every stone taken
    // up and sown in order.
    cites(
        &transcript(
            "6,6,6,6/6,6,6,6 S 0/0 ----/----",
            r#"{"move": "S3", "after": "1,8,2,9/9,9,9,1 N 0/0 --3-/----", "captures": []}"#,
        ),
        "SOW-5",
    );
    // S2's stone lands in S3 (2); relayed to N1 (2), to N3 (3), to S2
    // (empty): three laps.
    cites(
        &transcript(
            "0,1,1,1/1,2,2,2 S 18/20 1234/1234",
            r#"{"move": "S2", "after": "1,1,0,2/0,3,0,3 N 18/20 1234/1234", "captures": []}"#,
        ),
        "SOW-5",
    );
}

#[test]
fn a_capture_missed_by_a_mover_who_used_every_pit_cites_cap_1() {
    // The suite's `cap-north-wrap-from-n4-origin-skipped-captures` under
    // skip-origin: N4's eight stones pass over N4 and the last makes 2 in
    // S1. North has moved from all four pits (and captured before): an
    // engine that leaves S1 (it took the landing pit to be N4, as if the
    // origin were sown) breaks CAP-1, not the lock.
    cites(
        &transcript_under(
            "skip-origin",
            "0,5,9,6/7,3,6,8 N 2/2 1234/1234",
            r#"{"move": "N4", "after": "2,6,10,7/8,4,7,0 S 2/2 1234/1234", "captures": []}"#,
        ),
        "CAP-1",
    );
}

#[test]
fn a_capture_found_only_in_the_chain_cites_cap_2() {
    // S2 lands in N2 (2 stones, captured); N1 holds 6 and stops the chain.
    cites(
        &transcript(
            CHAIN,
            r#"{"move": "S2", "after": "2,0,6,3/0,0,0,5 N 24/8 1234/1234", "captures": [{"pit": "N2", "stones": 2}, {"pit": "N1", "stones": 6}]}"#,
        ),
        "CAP-2",
    );
}

#[test]
fn a_chain_into_the_movers_own_row_cites_cap_3_and_labels_no_other() {
    cites(
        &transcript(
            CHAIN,
            r#"{"move": "S2", "after": "2,0,6,0/6,0,0,5 N 22/8 1234/1234", "captures": [{"pit": "N2", "stones": 2}, {"pit": "S4", "stones": 3}]}"#,
        ),
        "CAP-3",
    );
}

#[test]
fn a_missing_feeding_duty_cites_feed_1() {
    // South's row is empty; only N4 feeds, and its last stone lands in
    // S3, in South's row: a move every idea of feeding counts. An engine
    // that lists every pit has no feeding duty: FEED-1.
    cites(
        &transcript(
            "0,0,0,0/3,0,0,3 N 18/24 1234/1234",
            r#"{"move": "N4", "after": "1,1,1,0/3,0,0,0 S 18/24 1234/1234", "legal": ["N1", "N4"]}"#,
        ),
        "FEED-1",
    );
}

#[test]
fn every_pit_listed_when_the_only_feeding_moves_end_beyond_the_row_cites_feed_2() {
    // South's row is empty; only N4 feeds, and it sows S1..S4 and ends in
    // North's own N1. An engine for which only a move ending in the empty
    // row feeds sees nothing that feeds, so the duty lapses and it lists
    // every pit: its idea of what feeds is wrong (FEED-2), not the duty
    // (spec/PROTOCOL.md, "Which rule a divergence cites").
    cites(
        &transcript(
            RELAY,
            r#"{"move": "N4", "after": "1,1,1,1/4,0,0,0 S 16/24 1234/1234", "legal": ["N1", "N4"]}"#,
        ),
        "FEED-2",
    );
}

#[test]
fn legal_moves_judged_on_a_relay_sowing_cite_sow_5() {
    // North must feed South's empty row and nothing feeds: every pit is
    // legal. With relay, N1's two stones land on N3's stone and relay on
    // into South's row, N2's land in N3 and relay on too: an engine that
    // keeps the feeding duty but sows with relay lists N1 and N2 only.
    // Pinned to feeding by sowing (I3's default), so the test holds
    // after `kpe adopt I3` too.
    cites(
        &transcript_under(
            "feeding=by-sowing",
            "0,0,0,0/2,1,1,0 N 22/22 1234/1234",
            r#"{"move": "N1", "after": "0,0,0,0/0,2,2,0 S 22/22 1234/1234", "legal": ["N1", "N2"]}"#,
        ),
        "SOW-5",
    );
}

#[test]
fn an_empty_legal_list_where_a_move_feeds_cites_end_1() {
    cites(
        &transcript(
            RELAY,
            r#"{"move": "N4", "after": "1,1,1,1/4,0,0,0 S 16/24 1234/1234", "legal": []}"#,
        ),
        "END-1",
    );
}

#[test]
fn games_whose_ids_slug_alike_get_distinct_scenario_ids_that_load_together() {
    // The same relay in three games whose ids differ only in case and
    // punctuation: their reproductions, pasted into one suite file, load.
    let ply = r#"{"move": "S3", "after": "1,8,2,9/9,9,9,1 N 0/0 --3-/----", "captures": []}"#;
    let games: Vec<String> = ["g1", "G1", "g_1"]
        .iter()
        .map(|id| {
            format!(
                r#"{{"id": "{id}", "start": "6,6,6,6/6,6,6,6 S 0/0 ----/----", "plies": [{ply}]}}"#
            )
        })
        .collect();
    let text = format!(
        r#"{{"format": "kpe-transcript", "version": 1, "engine": {{"name": "mutant", "version": "1"}},
        "games": [{}]}}"#,
        games.join(", ")
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("mutant.json");
    std::fs::write(&path, text).expect("written");
    let out = Command::cargo_bin("kpe-check")
        .expect("built")
        .arg(&path)
        .args(["--format", "json"])
        .output()
        .expect("kpe-check runs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let scenarios: Vec<Value> = report["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| u["divergence"]["scenario"].clone())
        .collect();
    let ids: Vec<&str> = scenarios
        .iter()
        .map(|s| s["id"].as_str().expect("an id"))
        .collect();
    assert_eq!(ids.len(), 3, "{report:#}");
    assert_eq!(ids[0], "mutant-g1-ply-1");
    assert!(
        ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2],
        "{ids:?}"
    );
    // The description names the engine and the game, not the path typed.
    let description = scenarios[0]["description"].as_str().expect("a description");
    assert!(
        description.contains("by mutant 1, game g1") && !description.contains("mutant.json"),
        "{description}"
    );
    let suite = dir.path().join("suite");
    std::fs::create_dir(&suite).expect("a suite folder");
    // JSON is YAML: the file as a suite reads it.
    let yaml = serde_json::json!({
        "topic": "three reproductions pasted together",
        "scenarios": scenarios,
    })
    .to_string();
    std::fs::write(suite.join("found.yaml"), yaml).expect("written");
    let loaded = kpe::scenario::Suite::load(&suite).unwrap_or_else(|e| panic!("{e}"));
    let count: usize = loaded.files.iter().map(|f| f.scenarios.len()).sum();
    assert_eq!(count, 3);
}
