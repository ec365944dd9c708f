//! `kpe dispute`: the four parts for every switch, the JSON report and its
//! committed schema, and the command line's errors.
//!
//! Regenerate the committed schema with
//! `UPDATE_SCHEMAS=1 cargo test --test dispute schemas` and commit it.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use assert_cmd::Command;
use kpe::dispute::{Dispute, Options, dispute};
use kpe::scenario::{Reference, Scenario, Subject, parse_file};
use kpe::{Profile, Switch};
use predicates::prelude::*;

fn kpe() -> Command {
    Command::cargo_bin("kpe").expect("the kpe binary is built")
}

/// Small enough for a debug build.
fn small() -> Options {
    Options {
        games: 12,
        max_plies: 300,
        max_stones: 14,
        perft_depth: 6,
        ..Options::default()
    }
}

/// The report for `switches` with [`small`] settings, computed once per
/// test binary (several tests read the same reports).
fn run(switches: &str) -> Dispute {
    static DONE: OnceLock<Mutex<HashMap<String, Dispute>>> = OnceLock::new();
    let done = DONE.get_or_init(Mutex::default);
    if let Some(d) = done.lock().unwrap().get(switches) {
        return d.clone();
    }
    let d = dispute(kpe::dispute::alternative(switches).unwrap(), &small()).unwrap();
    done.lock().unwrap().insert(switches.to_owned(), d.clone());
    d
}

/// The default with the other reading of each of `switches`.
fn flip(switches: &[Switch]) -> Profile {
    switches
        .iter()
        .fold(Profile::DEFAULT, |p, &s| p.set(s, !p.has(s)))
}

/// The suite's perft count at `depth` from the initial position under
/// `profile` (conformance/perft.yaml), whatever the default is.
fn suite_perft(profile: Profile, depth: usize) -> i64 {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/conformance/perft.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let file = kpe::scenario::parse_perft_file("perft.yaml", &text).unwrap();
    // The suite has tables for some profiles; for the others (after `kpe
    // adopt`, the default with one reading changed may be one) the count is
    // the reference's.
    let nodes = file
        .tables
        .iter()
        .find(|t| t.start.is_none() && t.rules == profile)
        .map_or_else(
            || kpe::perft(&kpe::Position::initial(), depth as u32, profile),
            |t| t.nodes[depth - 1],
        );
    i64::try_from(nodes).unwrap()
}

/// Whether the default profile sows the origin pit of a long sowing
/// (SOW-4, I1), asked of the reference: some figures follow from it.
fn default_sows_origin() -> bool {
    let eight: kpe::Position = "8,6,6,6/6,6,6,4 S 0/0 1---/1234".parse().unwrap();
    let s1 = kpe::Pit::ALL[0];
    let (after, _) = kpe::play(&eight, s1, Profile::DEFAULT).unwrap();
    after.stones(s1) == 1
}

/// Whether the default lets the game go on when the empty-rowed opponent
/// cannot be fed (FEED-3, I4), asked of the reference.
fn default_lapses_when_unfeedable() -> bool {
    // South to move, North's row empty, S1's two stones cannot reach it.
    let unfeedable: kpe::Position = "2,0,0,0/0,0,0,0 S 22/24 1234/1234".parse().unwrap();
    !kpe::legal_moves(&unfeedable, Profile::DEFAULT).is_empty()
}

#[test]
fn skip_origin_changes_scenarios_small_positions_play_and_perft() {
    let d = run("skip-origin");
    assert_eq!(d.format, "kpe-dispute");
    assert_eq!(d.readings.len(), 1);
    assert_eq!(d.readings[0].rule, "SOW-4");
    // Part 1: both halves of each origin pair change, from the wrapping move.
    let ids: Vec<&str> = d
        .scenarios
        .differing
        .iter()
        .map(|s| s.id.as_str())
        .collect();
    assert!(
        ids.contains(&"cap-wrap-from-s4-origin-sown-no-capture"),
        "{ids:?}"
    );
    assert!(
        ids.contains(&"cap-wrap-from-s4-origin-skipped-captures"),
        "{ids:?}"
    );
    for s in &d.scenarios.differing {
        let first = &s.plies[s.first_difference];
        assert!(
            first.differs || s.default_outcome != s.alternative_outcome,
            "{}",
            s.id
        );
        assert!(
            s.plies[..s.first_difference].iter().all(|p| !p.differs),
            "{}",
            s.id
        );
    }
    // No scenario without a wrapping sowing changes.
    assert!(!ids.contains(&"first-move-s4"), "{ids:?}");
    // Part 2: a sowing of 8 is the least that wraps.
    assert_eq!(d.smallest.stones, Some(8));
    assert_eq!(d.smallest.line, Some(1));
    assert!(!d.smallest.needs_history);
    // Part 3: every pairing, both readings, all games accounted for.
    assert_eq!(d.play.pairings.len(), 3);
    assert!(d.play.pairings[0].plies_changed.count > 0);
    // Part 4: I1 first shows at depth 5 (the suite's tables: 952 with the
    // origin sown, 918 with it skipped).
    assert_eq!(d.perft.first_difference, Some(5));
    let (default, alternative) = (
        suite_perft(Profile::DEFAULT, 5),
        suite_perft(flip(&[Switch::SkipOrigin]), 5),
    );
    assert_ne!(default, alternative);
    assert_eq!(d.perft.depths[4].difference, alternative - default);
}

#[test]
fn each_switch_parts_where_the_spec_says() {
    let stones = |s: &str| run(s).smallest.stones;
    // I2: the unlocking move needs an unused pit of 6 and a landing of 2.
    let strict = run("strict-lock");
    assert_eq!(strict.readings[0].rule, "LOCK-3");
    assert_eq!(strict.smallest.stones, Some(8));
    assert!(
        strict.smallest.examples[0]
            .differs
            .contains(&"captures".to_owned())
    );
    // I3: a sowing that feeds and takes every stone back must put two
    // stones into each empty pit (12 stones from S4 when the origin is
    // sown, as by default today, 11 when it is skipped), and the mover
    // needs another move that feeds for it to matter: 14 (or 12).
    // When nothing feeds and the game then ends (I4 `ends-game`), the
    // other feeding move is not needed: 12 stones with the origin sown.
    let found = stones("feed-after-capture").unwrap();
    if default_lapses_when_unfeedable() {
        assert_eq!(found, if default_sows_origin() { 14 } else { 12 });
    } else if default_sows_origin() {
        assert_eq!(found, 12);
    } else {
        assert!(found <= 12, "{found}");
    }
    // I4 and I5 show with two stones.
    let unfeedable = run("end-when-unfeedable");
    assert_eq!(unfeedable.smallest.stones, Some(2));
    assert_eq!(unfeedable.perft.first_difference, None);
    let repetition = run("end-on-repetition");
    assert!(repetition.smallest.needs_history);
    assert_eq!(repetition.smallest.stones, Some(2));
    let line = repetition.smallest.line.unwrap();
    assert!(line > 1, "a repetition needs a line: {line}");
    let e = &repetition.smallest.examples[0];
    assert_eq!(e.moves.len(), line);
    assert_eq!(e.differs, ["end"]);
    // The side that ends the game there, whichever of the two is the default.
    let ending = if Profile::DEFAULT.has(Switch::EndOnRepetition) {
        &e.default
    } else {
        &e.alternative
    };
    assert!(ending.outcome.contains("END-3"), "{}", ending.outcome);
    assert!(
        repetition
            .scenarios
            .differing
            .iter()
            .any(|s| s.id.contains("repetition"))
    );
}

/// Part 5 gives the value of Kpé under both readings from spec/solved.yaml
/// (issue 45): the recorded row when there is one, else why not (no table
/// covers a reading with a repetition rule; a row not yet computed names
/// its command); the headline says what adopting does to it when both are
/// known.
#[test]
fn part_5_gives_the_value_of_the_game_under_both_readings() {
    // Margins as the reports write them: a sign, but none on 0.
    let text = |v: i8| {
        if v == 0 {
            "0".to_owned()
        } else {
            format!("{v:+}")
        }
    };
    for switches in ["strict-lock", "feed-after-capture", "end-on-repetition"] {
        let d = run(switches);
        let g = &d.best_play.game;
        for (v, profile) in [
            (&g.default, Profile::DEFAULT),
            (&g.alternative, d.alternative),
        ] {
            assert_eq!(v.profile, profile.explicit(), "{switches}");
            match kpe::solve::value_of_the_game(profile) {
                Some(row) => {
                    assert_eq!(
                        (v.value, &v.best),
                        (Some(row.value), &row.best),
                        "{switches}"
                    );
                    assert!(v.why_not.is_none());
                    assert!(
                        d.best_play
                            .initial
                            .contains(&format!("{} for South", text(row.value))),
                        "{}",
                        d.best_play.initial
                    );
                }
                None => {
                    assert_eq!(v.value, None, "{switches}");
                    let why = v.why_not.as_deref().unwrap();
                    if profile.has(Switch::EndOnRepetition) {
                        assert!(why.contains("END-3"), "{why}");
                    } else {
                        assert!(
                            why.contains("not yet computed: `kpe solve --rules "),
                            "{why}"
                        );
                    }
                    assert!(d.best_play.initial.contains(why), "{}", d.best_play.initial);
                }
            }
        }
        let report = d.to_text();
        let headline = report.lines().nth(1).unwrap();
        match (g.default.value, g.alternative.value) {
            (Some(a), Some(b)) if a == b => assert!(
                headline.ends_with(&format!(
                    "; it leaves the value of Kpé at {} for South.",
                    text(a)
                )),
                "{headline}"
            ),
            (Some(a), Some(b)) => assert!(
                headline.ends_with(&format!(
                    "; it changes the value of Kpé from {} to {} for South.",
                    text(a),
                    text(b)
                )),
                "{headline}"
            ),
            _ => assert!(!headline.contains("value of Kpé"), "{headline}"),
        }
        assert!(report.contains(&d.best_play.initial), "{switches}");
        // The page's first block (its lead) carries the headline and the
        // verdict, and with them the value of the game.
        let page = d.to_html();
        let lead = &page[..page.find("<h2").unwrap_or(page.len())];
        assert!(lead.contains("value of Kpé: "), "{switches}: {lead}");
        if g.default.value.is_some() && g.alternative.value.is_some() {
            assert!(
                lead.contains("the value of Kpé at ") || lead.contains("the value of Kpé from "),
                "{lead}"
            );
        }
    }
}

#[test]
fn two_switches_are_compared_together_with_the_default() {
    let d = run("strict-lock,skip-origin");
    assert_eq!(
        d.alternative,
        flip(&[Switch::SkipOrigin, Switch::StrictLock])
    );
    assert_eq!(d.readings.len(), 2);
    assert_eq!(d.perft.first_difference, Some(5));
    for e in &d.smallest.examples {
        let scenarios: Vec<Scenario> = serde_yaml::from_str(&e.yaml).unwrap();
        for s in &scenarios {
            for p in s.profiles() {
                Reference::new().verify("pasted", s, p).unwrap();
            }
        }
    }
}

#[test]
fn the_example_scenarios_appended_as_printed_to_a_conformance_file_hold() {
    for switch in Switch::ALL {
        let d = run(switch.name());
        assert!(!d.smallest.examples.is_empty(), "{switch}");
        for e in &d.smallest.examples {
            // Appended as printed, with no re-indenting (issue 44).
            let text = format!("topic: pasted\nscenarios:\n{}", e.yaml);
            let file = parse_file("pasted.yaml", &text)
                .unwrap_or_else(|err| panic!("{switch}: {err}\n{text}"));
            assert_eq!(file.scenarios.len(), 2);
            let [default, alternative] = [&file.scenarios[0], &file.scenarios[1]];
            assert!(default.profiles().any(|p| p.is_default()), "{switch}");
            assert!(
                alternative.profiles().any(|p| p == flip(&[switch])),
                "{switch}"
            );
            for s in &file.scenarios {
                for p in s.profiles() {
                    Reference::new()
                        .verify("pasted.yaml", s, p)
                        .unwrap_or_else(|f| panic!("{switch}: {f}"));
                }
            }
            // And each fails under the other reading: it pins the dispute.
            let other = if default.profiles().any(|p| p.is_default()) {
                flip(&[switch])
            } else {
                Profile::DEFAULT
            };
            assert!(
                Reference::new()
                    .verify("pasted.yaml", default, other)
                    .is_err(),
                "{switch}"
            );
        }
    }
}

#[test]
fn text_report_leads_with_a_summary_and_prints_the_four_parts_and_the_seed() {
    let out = kpe()
        .args([
            "dispute",
            "skip-origin",
            "--games",
            "6",
            "--perft-depth",
            "5",
        ])
        .args(["--max-stones", "8", "--seed", "42"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let first: Vec<&str> = text.lines().take(7).collect();
    assert_eq!(
        first[0],
        format!(
            "kpe dispute: default against {}",
            flip(&[Switch::SkipOrigin])
        )
    );
    // The answer in one sentence, then the verdict of each part.
    let alt = flip(&[Switch::SkipOrigin]);
    assert!(
        first[1].starts_with(&format!(
            "Adopting I1 `origin={}` changes ",
            Switch::SkipOrigin.value_in(alt)
        )) && first[1].contains(" conformance scenarios and the result of "),
        "{first:?}"
    );
    assert!(first[3].contains("scenarios:"), "{first:?}");
    assert!(
        first[4].contains("smallest positions: 8 stones"),
        "{first:?}"
    );
    let (default, alternative) = (
        suite_perft(Profile::DEFAULT, 5),
        suite_perft(flip(&[Switch::SkipOrigin]), 5),
    );
    let part = format!(
        "perft: counts part at depth 5 ({default} against {alternative}, {:+})",
        alternative - default
    );
    assert!(first[6].contains(&part), "{part}: {first:?}");
    assert!(first[6].contains("from the suite's "), "{first:?}");
    // Game length under each reading, for every pairing.
    assert_eq!(text.matches("  game length (plies): default ").count(), 3);
    for heading in ["== 1.", "== 2.", "== 3.", "== 4.", "seed 42", "**SOW-4**"] {
        assert!(text.contains(heading), "{heading} missing");
    }
    assert!(
        text.contains(">> ply 1"),
        "the first differing ply is marked"
    );
}

#[test]
fn json_report_is_reproducible_by_seed_and_matches_the_schema_shape() {
    let json = |seed: &str| {
        let out = kpe()
            .args([
                "dispute",
                "end-when-unfeedable",
                "--format",
                "json",
                "--games",
                "8",
            ])
            .args(["--perft-depth", "4", "--max-stones", "6", "--seed", seed])
            .assert()
            .success();
        serde_json::from_slice::<serde_json::Value>(&out.get_output().stdout).unwrap()
    };
    let a = json("7");
    assert_eq!(a, json("7"));
    assert_ne!(a["play"], json("8")["play"]);
    assert_eq!(a["format"], "kpe-dispute");
    assert_eq!(
        a["alternative"],
        flip(&[Switch::EndWhenUnfeedable]).to_string()
    );
    assert_eq!(a["play"]["seed"], 7);
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("spec/dispute.schema.json").unwrap())
            .unwrap();
    let required = schema["required"].as_array().unwrap();
    for key in required {
        assert!(a.get(key.as_str().unwrap()).is_some(), "{key} missing");
    }
    assert_eq!(a.as_object().unwrap().len(), required.len());
}

#[test]
fn schemas_are_current() {
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some_and(|v| v == "1");
    let file = "spec/dispute.schema.json";
    let text = serde_json::to_string_pretty(&kpe::dispute::schema()).unwrap() + "\n";
    if update {
        std::fs::write(file, &text).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(file).unwrap_or_default();
    assert!(
        committed == text,
        "{file} is out of date: regenerate with `UPDATE_SCHEMAS=1 cargo test --test dispute schemas` and commit"
    );
}

#[test]
fn no_switch_an_unknown_switch_and_an_unwritable_page_are_usage_errors() {
    kpe()
        .args(["dispute", "default"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "name at least one switch to dispute",
        ));
    kpe()
        .args(["dispute", "skip-origin,bogus"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown rules switch `bogus`"));
    kpe()
        .args([
            "dispute",
            "skip-origin",
            "--games",
            "1",
            "--perft-depth",
            "1",
        ])
        .args(["--max-stones", "2", "--html", "/nonexistent-dir/page.html"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--html /nonexistent-dir/page.html: cannot write a file in /nonexistent-dir",
        ));
}
