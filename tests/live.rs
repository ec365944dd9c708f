//! kpe-check's live mode: engines driven over the protocol.

use kpe::check::UnitResult;
use kpe::live::{LiveOptions, LiveReport, Manifest, check_engine};

fn kpe() -> &'static str {
    env!("CARGO_BIN_EXE_kpe")
}

/// Writes a manifest into a fresh temporary directory and checks it.
fn check(manifest: serde_json::Value, options: &LiveOptions) -> LiveReport {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("engine.json");
    std::fs::write(&path, manifest.to_string()).unwrap();
    let manifest = Manifest::load(&path).unwrap();
    check_engine(&manifest, &path, options, &mut |_| {})
}

fn quick() -> LiveOptions {
    LiveOptions {
        seed: Some(7),
        games: Some(10),
        perft_depth: Some(3),
        ..LiveOptions::default()
    }
}

fn kpe_engine(args: &[&str], profile: &str) -> serde_json::Value {
    let mut command = vec![kpe().to_owned(), "engine".to_owned()];
    command.extend(args.iter().map(|a| (*a).to_owned()));
    serde_json::json!({
        "format": "kpe-engine", "version": 1, "command": command, "profile": profile,
        "timeouts": {"start_ms": 5000, "request_ms": 2000},
    })
}

fn diverging(report: &LiveReport) -> Vec<&UnitResult> {
    report.units.iter().filter(|u| !u.conforms()).collect()
}

#[test]
fn the_reference_engine_conforms() {
    let report = check(kpe_engine(&[], "default"), &quick());
    assert!(report.conforms(), "{:#?}", diverging(&report));
    assert!(report.units.iter().any(|u| u.kind == "random-game"));
    assert!(report.units.iter().any(|u| u.kind == "perft"));
    println!(
        "{} units, {} requests, notes {:?}",
        report.units.len(),
        report.requests,
        report.notes
    );
}

#[test]
fn an_engine_following_skip_origin_is_named() {
    let report = check(kpe_engine(&["--rules", "skip-origin"], "default"), &quick());
    let bad = diverging(&report);
    assert!(!bad.is_empty());
    let d = bad[0].divergence.as_ref().unwrap();
    println!("{bad:#?}\n{:?}", report.diagnosis);
    println!("{}", d.scenario_yaml().unwrap());
}
