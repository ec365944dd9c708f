//! A signal recorded before work starts (issue 25): transcript checking
//! stops between games and reports what it checked, marked interrupted;
//! `kpe-check merge` stops before writing anything. The signal flag is
//! global to the process, so these checks live in a test binary of their
//! own, in one test.

use std::path::Path;

use kpe::reporter::{CheckError, JsonSink, Signal, interrupted, record_signal};

#[test]
fn a_recorded_signal_stops_transcripts_between_games_and_merges_before_output() {
    let transcript = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/transcripts/capture-while-locked.json");
    assert!(record_signal(Signal::Int.number()));
    assert!(
        !record_signal(Signal::Term.number()),
        "the first signal stays"
    );
    assert_eq!(interrupted(), Some(Signal::Int));
    let mut out = Vec::new();
    let summary = {
        let mut sink = JsonSink::new(&mut out);
        let mut options = kpe::transcripts::Options::default();
        options.jobs = 1;
        kpe::transcripts::check_transcript_file_with(&transcript, &options, &mut sink)
            .expect("a clean stop")
    };
    // Two games in the file: the first is checked and reported, then the
    // check stops.
    assert_eq!(summary.units, 1);
    assert_eq!(summary.interrupted.as_deref(), Some("SIGINT"));
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["units"].as_array().unwrap().len(), 1);
    assert_eq!(report["summary"]["interrupted"], "SIGINT");
    let mut out = Vec::new();
    let mut sink = JsonSink::new(&mut out);
    let merged = kpe::reporter::merge_files(std::slice::from_ref(&transcript), &mut sink);
    assert!(matches!(merged, Err(CheckError::Interrupted(Signal::Int))));
    drop(sink);
    assert!(
        out.is_empty(),
        "the merge wrote {}",
        String::from_utf8_lossy(&out)
    );
}
