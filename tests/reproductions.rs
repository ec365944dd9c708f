//! Reproductions of repetition divergences found in transcripts (issue
//! 23): the scenario carries the line from where the repeating stretch
//! began, so that `kpe suite` replays the history that decides it, and the
//! report says where such a scenario cannot be replayed (a live run).

use std::path::Path;
use std::process::{Command, Stdio};

use kpe::{Game, Profile, Switch};
use serde_json::{Value, json};

/// The chase: one stone each, four pits apart, after every capture made.
const CHASE: &str = "0,1,0,0/0,1,0,0 N 18/28 1234/1234";

/// The profile that plays on past a repetition and the one that ends the
/// game there, as a transcript names them: stated against the all-off
/// profile, so they mean the same whatever the authority's default is.
fn continues() -> String {
    Profile::ALL_OFF.to_string()
}

fn ends() -> String {
    Profile::with(&[Switch::EndOnRepetition]).to_string()
}

/// The chase played by the reference rules under the all-off profile (no
/// repetition rule) up to the move that brings back a position, as
/// transcript plies; the last ply's game over as `end_at_repetition` says.
fn chase_plies(end_at_repetition: bool) -> Vec<Value> {
    let mut game = Game::new(CHASE.parse().unwrap(), Profile::ALL_OFF);
    let mut plies = Vec::new();
    loop {
        let pit = game.legal_moves()[0];
        game.play(pit).unwrap();
        let after = *game.current();
        let mut ply = json!({
            "move": pit.to_string(), "after": after.to_string(), "captures": [],
            "game_over": false,
        });
        if game.is_repetition() {
            if end_at_repetition {
                ply["game_over"] = json!(true);
                ply["totals"] = json!(kpe::sweep(&after));
            }
            plies.push(ply);
            return plies;
        }
        plies.push(ply);
        assert!(plies.len() < 100, "the chase does not repeat");
    }
}

/// Checks a one-game transcript claiming `profile`: the divergence.
fn diverge(dir: &Path, profile: &str, plies: Vec<Value>) -> Value {
    let t = json!({
        "format": "kpe-transcript", "version": 1,
        "engine": {"name": "chaser", "version": "1"},
        "profile": profile,
        "games": [{"id": "chase", "start": CHASE, "plies": plies}],
    });
    let path = dir.join("t.json");
    std::fs::write(&path, t.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .arg(&path)
        .args(["--format", "json"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["units"][0]["divergence"].clone()
}

/// Runs `kpe suite --dir` on a suite of one scenario: its exit code and
/// what it said.
fn suite_of(dir: &Path, scenario: &Value) -> (i32, String) {
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    // JSON is YAML.
    let file = json!({"topic": "reproduction", "scenarios": [scenario]});
    std::fs::write(suite.join("repro.yaml"), file.to_string()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kpe"))
        .args(["suite", "--dir"])
        .arg(&suite)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn notes(divergence: &Value) -> Vec<String> {
    divergence["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect()
}

/// The bug of issue 23: an engine that ends the chase at the first
/// repetition while claiming no repetition rule (then the default) got a scenario of one move with
/// no history (`start: 0,1,0,0/0,1,0,0 N 18/28 1234/1234`, `moves: [N2]`),
/// which no engine fails.
#[test]
fn an_end_by_repetition_the_claim_does_not_have_reproduces_from_the_stretch() {
    let dir = tempfile::tempdir().unwrap();
    let plies = chase_plies(true);
    let divergence = diverge(dir.path(), &continues(), plies.clone());
    assert_eq!(divergence["rules"], json!(["END-3"]), "{divergence}");
    let scenario = &divergence["scenario"];
    // The whole stretch, from the start of the game (no capture since).
    assert_eq!(scenario["start"], CHASE, "{scenario}");
    let moves: Vec<&str> = plies.iter().map(|p| p["move"].as_str().unwrap()).collect();
    assert_eq!(scenario["moves"], json!(moves), "{scenario}");
    // The rules' answer there is what the engine got wrong.
    assert_eq!(scenario["result"]["state"], "unfinished", "{scenario}");
    assert_eq!(scenario["when"], json!({"end-on-repetition": false}));
    // `kpe suite` replays it and agrees; with the engine's answer instead
    // it would not.
    let (code, said) = suite_of(dir.path(), scenario);
    assert_eq!(code, 0, "{said}");
    let mut engine_answer = scenario.clone();
    engine_answer["result"] = json!({"state": "finished", "reason": "repetition",
        "totals": plies.last().unwrap()["totals"], "winner": "N"});
    let (code, said) = suite_of(&dir.path().join("falsified"), &engine_answer);
    assert_eq!(code, 1, "{said}");
    let notes = notes(&divergence);
    assert!(
        notes
            .iter()
            .any(|n| n.contains("needs the game's history (END-3)")
                && n.contains("only against an engine that keeps the history")),
        "{notes:?}"
    );
}

#[test]
fn a_repetition_the_engine_plays_through_reproduces_and_says_live_cannot_show_it() {
    let dir = tempfile::tempdir().unwrap();
    let divergence = diverge(dir.path(), &ends(), chase_plies(false));
    assert_eq!(divergence["rules"], json!(["END-3"]), "{divergence}");
    let scenario = &divergence["scenario"];
    assert!(
        scenario["moves"].as_array().unwrap().len() > 1,
        "{scenario}"
    );
    assert_eq!(scenario["result"]["reason"], "repetition", "{scenario}");
    let (code, said) = suite_of(dir.path(), scenario);
    assert_eq!(code, 0, "{said}");
    let notes = notes(&divergence);
    assert!(
        notes.iter().any(|n| n.contains("needs the game's history")
            && n.contains("live run cannot reproduce it")),
        "{notes:?}"
    );
}
