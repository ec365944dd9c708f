//! Bugs at the edges, checked live: one that shows only in perft, one
//! that shows only under one reading, and what the report says of them
//! (spec/PROTOCOL.md, "What kpe-check runs" and "Which rule a divergence
//! cites"; spec/REPORT.md, "Naming the reading").

#[path = "common/collect.rs"]
mod collect;
use collect::{Checked, checked};

use kpe::live::{LiveOptions, Manifest};
use kpe::reporter::UnitResult;
use kpe::{Position, Profile, perft};

/// The profile `words` name against the all-off profile, in today's
/// spelling: the tests state their profiles so, and their figures hold
/// whatever the default is (`kpe adopt`).
fn old(words: &str) -> String {
    Profile::read_against(words, Profile::ALL_OFF)
        .unwrap()
        .to_string()
}

/// Checks `kpe engine ARGS...` claiming `profile` (read by [`old`]), with
/// the default perft depth and a few seeded games.
fn check(args: &[&str], profile: &str, games: u32) -> Checked {
    check_only(args, profile, games, &[])
}

/// [`check`] with `--only PATTERN` for each of `only`.
fn check_only(args: &[&str], profile: &str, games: u32, only: &[&str]) -> Checked {
    let profile = old(profile);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("engine.json");
    let mut command = vec![env!("CARGO_BIN_EXE_kpe"), "engine"];
    command.extend(args);
    let manifest = serde_json::json!({
        "format": "kpe-engine", "version": 1, "command": command, "profile": profile,
        "timeouts": {"start_ms": 10000, "request_ms": 5000},
    });
    std::fs::write(&path, manifest.to_string()).unwrap();
    let mut options = LiveOptions {
        seed: Some(5),
        games: Some(games),
        ..LiveOptions::default()
    };
    options.policy.only = only.iter().map(|p| p.parse().unwrap()).collect();
    let manifest = Manifest::load(&path).unwrap();
    checked(&manifest, &path, &options)
}

#[test]
fn a_perft_only_bug_is_traced_to_its_smallest_subtree_and_cites_lock_2() {
    let report = check(&["--bug", "perft-used-rows-alias"], "default", 4);
    let diverged: Vec<&UnitResult> = report
        .units
        .iter()
        .filter(|u| u.divergence.is_some())
        .collect();
    assert!(!diverged.is_empty(), "the perft-only bug is missed");
    for unit in &diverged {
        assert_eq!(unit.kind, "perft", "{}", unit.id);
        let d = unit.divergence.as_deref().unwrap();
        assert_eq!(d.rules.to_string(), "LOCK-2", "{} {:?}", unit.id, d.notes);
        assert_eq!(d.fields[0].rules.to_string(), "LOCK-2");
        // The reproduction: a perft table of the subtree, right by the
        // rules, and the engine's count there is the claimed one.
        let table = d.perft.as_ref().expect("a perft table reproduces it");
        let top: Position = table.start.as_ref().unwrap().parse().unwrap();
        assert_eq!(Some(top), d.before);
        for (k, &nodes) in table.nodes.iter().enumerate() {
            assert_eq!(perft(&top, k as u32 + 1, table.rules), nodes);
        }
        assert_ne!(d.fields[0].claimed, table.nodes.last().unwrap().to_string());
        assert!(
            d.notes.iter().any(|n| n.contains("smallest subtree")),
            "{:?}",
            d.notes
        );
    }
    // No reading is named that counts as the claim does, and the claim
    // itself is the nearest.
    let reading = report.summary.reading.as_ref().expect("a reading verdict");
    assert!(!reading.explained(), "{reading}");
    let nearest = reading.nearest.as_ref().expect("a nearest profile");
    assert_eq!(nearest.profile.to_string(), old("default"), "{reading}");
    assert!(
        reading.text.contains("the claimed profile itself"),
        "{reading}"
    );
}

#[test]
fn a_perft_whose_history_is_not_unwound_cites_end_3_and_names_no_reading() {
    // Issue 43: the engine's perft keeps every position it entered in its
    // repetition history, so the initial position's perft(5) counts 880
    // where the rules give 952; some subtree may count as another reading
    // would, by chance, but the other counts rule every reading out. Under
    // a full run and with perft alone, the rule is END-3 and no reading
    // is named.
    for only in [&[][..], &["perft/*"][..]] {
        let report = check_only(
            &["--bug", "perft-history-kept"],
            "end-on-repetition",
            2,
            only,
        );
        let diverged: Vec<&UnitResult> = report
            .units
            .iter()
            .filter(|u| u.divergence.is_some())
            .collect();
        assert!(!diverged.is_empty(), "{only:?}: the history bug is missed");
        for unit in &diverged {
            assert_eq!(unit.kind, "perft", "{only:?}: {}", unit.id);
            let d = unit.divergence.as_deref().unwrap();
            assert_eq!(
                d.rules.to_string(),
                "END-3",
                "{only:?} {}: {:?}",
                unit.id,
                d.notes
            );
            assert!(
                d.notes.iter().any(|n| n.contains("repetition history")),
                "{:?}",
                d.notes
            );
            assert!(
                d.notes.iter().all(|n| !n.contains("another reading")),
                "{only:?}: a reading is named: {:?}",
                d.notes
            );
            // Every count the engine gave on the way down is recorded.
            assert!(d.counts.len() > 1, "{:?}", d.counts);
        }
        let depth5 = diverged
            .iter()
            .find(|u| u.id == "perft/initial/5")
            .expect("perft(5) diverges");
        let root = depth5.divergence.as_deref().unwrap().counts[0];
        assert_eq!((root.depth, root.nodes), (5, 880));
        let reading = report.summary.reading.as_ref().expect("a reading verdict");
        assert!(!reading.explained(), "{only:?}: {reading}");
    }
}

#[test]
fn a_perft_that_counts_a_finished_game_cites_move_3() {
    // The engine's perft counts a finished game as one sequence whatever
    // the plies left; the suite's endgame tables reach finished games.
    let report = check(&["--bug", "perft-finished-counted"], "default", 2);
    let diverged: Vec<&UnitResult> = report
        .units
        .iter()
        .filter(|u| u.divergence.is_some())
        .collect();
    assert!(!diverged.is_empty(), "the finished-game perft is missed");
    for unit in &diverged {
        assert_eq!(unit.kind, "perft", "{}", unit.id);
        let d = unit.divergence.as_deref().unwrap();
        assert_eq!(d.rules.to_string(), "MOVE-3", "{} {:?}", unit.id, d.notes);
        assert!(
            d.notes.iter().all(|n| !n.contains("another reading")),
            "{:?}",
            d.notes
        );
    }
    let reading = report.summary.reading.as_ref().expect("a reading verdict");
    assert!(!reading.explained(), "{reading}");
}

#[test]
fn a_perft_that_ignores_repetition_cites_end_3() {
    let report = check(
        &["--fault", "perft-without-repetition"],
        "end-on-repetition",
        2,
    );
    let d = report
        .units
        .iter()
        .find_map(|u| u.divergence.as_deref().filter(|_| u.kind == "perft"))
        .expect("the repetition-blind perft is caught");
    assert_eq!(d.rules.to_string(), "END-3", "{:?}", d.notes);
    assert!(d.perft.is_some());
}

#[test]
fn a_bug_of_one_readings_edge_is_caught_by_the_edge_probes_under_every_seed() {
    // Under feed-after-capture the engine counts a locked mover's
    // captures when it judges feeding; under the default reading of I3
    // captures play no part, and it conforms.
    let fac = old("feed-after-capture");
    for seed in [1, 2, 3] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("engine.json");
        let manifest = serde_json::json!({
            "format": "kpe-engine", "version": 1, "profile": fac,
            "command": [env!("CARGO_BIN_EXE_kpe"), "engine", "--bug", "locked-capture-starves"],
        });
        std::fs::write(&path, manifest.to_string()).unwrap();
        let options = LiveOptions {
            seed: Some(seed),
            games: Some(2),
            perft_depth: Some(2),
            ..LiveOptions::default()
        };
        let manifest = Manifest::load(&path).unwrap();
        let report = checked(&manifest, &path, &options);
        let first = report
            .units
            .iter()
            .find(|u| u.divergence.is_some())
            .unwrap_or_else(|| panic!("seed {seed}: missed"));
        let d = first.divergence.as_deref().unwrap();
        assert_eq!(d.rules.to_string(), "FEED-2", "seed {seed}: {}", first.id);
        assert!(
            report
                .summary
                .notes
                .iter()
                .any(|n| n.contains(&format!("edge coverage of {fac} "))
                    && n.contains("the lock (LOCK-1) on the legal moves")),
            "{:?}",
            report.summary.notes
        );
    }
    let report = check(&["--bug", "locked-capture-starves"], "default", 2);
    assert!(report.conforms(), "{:?}", report.summary);
}

#[test]
fn a_requested_profile_the_engine_does_not_play_keeps_the_run_from_conforming() {
    // The engine plays and announces skip-origin only; the run asks for
    // skip-origin and default: default's units are all skipped.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("engine.json");
    let manifest = serde_json::json!({
        "format": "kpe-engine", "version": 1, "profile": old("skip-origin"),
        "profiles": [old("skip-origin"), old("default")],
        "command": [env!("CARGO_BIN_EXE_kpe"), "engine", "--rules", old("skip-origin"), "--announce"],
    });
    std::fs::write(&path, manifest.to_string()).unwrap();
    let options = LiveOptions {
        seed: Some(1),
        games: Some(1),
        perft_depth: Some(1),
        ..LiveOptions::default()
    };
    let manifest = Manifest::load(&path).unwrap();
    let report = checked(&manifest, &path, &options);
    assert_eq!(report.summary.diverging(), 0, "{:?}", report.summary);
    assert!(!report.conforms(), "{:?}", report.summary.verdict());
    assert_eq!(report.summary.verdict().exit_code(), 4);
}

/// The coverage note of issue 23 was one long line ending `... on the legal
/// moves 0` for boundaries that cannot occur: now each boundary that can
/// occur is a line of its own with its count, and those that cannot are
/// listed once, said as such.
#[test]
fn the_edge_coverage_note_lists_one_boundary_a_line_and_names_the_impossible_ones() {
    let report = check(&[], "default", 1);
    let note = report
        .summary
        .notes
        .iter()
        .find(|n| n.starts_with(&format!("edge coverage of {}", old("default"))))
        .expect("a coverage note");
    let lines: Vec<&str> = note.lines().collect();
    assert!(!note.contains(" 0\n") && !note.ends_with(" 0"), "{note}");
    let counted: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("  ") && !l.starts_with("    ") && l.contains(": "))
        .copied()
        .collect();
    // Every boundary that can occur under the all-off profile (feeding by
    // sowing) is on its own line.
    let possible = kpe::judge::Boundary::all()
        .into_iter()
        .filter(|b| b.impossible_under(Profile::ALL_OFF).is_none())
        .count();
    assert_eq!(counted.len(), possible, "{note}");
    for line in &counted {
        assert_eq!(line.matches(" on ").count(), 1, "{line}");
    }
    // The rest are listed as not probed, each on its line: today I1, I2
    // and the lock on the legal moves.
    let impossible: Vec<String> = kpe::judge::Boundary::all()
        .into_iter()
        .filter(|b| b.impossible_under(Profile::ALL_OFF).is_some())
        .map(|b| format!("    {}", b.name()))
        .collect();
    assert!(impossible.contains(&"    the lock (LOCK-1) on the legal moves".to_owned()));
    let at = lines
        .iter()
        .position(|l| {
            l.starts_with(&format!(
                "  not probed, as these {} cannot occur under {}",
                impossible.len(),
                old("default")
            ))
        })
        .unwrap_or_else(|| panic!("{note}"));
    assert_eq!(lines[at + 1..], impossible[..]);
    // Under feed-after-capture every boundary can occur.
    let report = check(&[], "feed-after-capture", 1);
    let note = report
        .summary
        .notes
        .iter()
        .find(|n| n.starts_with(&format!("edge coverage of {}", old("feed-after-capture"))))
        .expect("a coverage note");
    assert!(!note.contains("not probed"), "{note}");
    assert_eq!(note.lines().count(), 11, "{note}");
}
