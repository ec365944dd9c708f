//! `kpe-check`: checking another engine against the reference rules.
//!
//! An engine's claims come in *units*: a game from a transcript (this
//! module), or, in the live mode, a scenario, a random game or a perft depth.
//! Each unit is replayed with the reference rules and ends as a
//! [`UnitResult`]: it conforms, or it has one [`Divergence`], the first place
//! where the engine's claim differs from the rules, with the position before,
//! the move, a field-level diff of expected against claimed, the rule IDs
//! that decide the differing fields and a ready-to-paste conformance
//! scenario that reproduces it. A [`Summary`] counts the units and plies and
//! the rules they exercised; when something diverges, [`name_reading`] asks
//! which of the 32 rules profiles would explain everything.
//!
//! Results go to a [`Sink`] as they are produced: [`HumanSink`] (the default
//! report, coloured on a terminal), [`JsonSink`] (`--format json`),
//! [`JunitSink`] (`--junit FILE`) and [`HtmlSink`] (`--html FILE`).
//!
//! ```
//! use kpe::check::{FileKind, JsonSink, check_transcript_reader};
//!
//! let text = r#"{
//!   "format": "kpe-transcript", "version": 1,
//!   "engine": {"name": "demo", "version": "1.0"},
//!   "games": [{"id": "g1", "plies": [
//!     {"move": "S1", "after": "0,7,7,7/7,7,7,6 N 0/0 1---/----"},
//!     {"move": "N1", "after": "1,7,7,7/0,8,8,7 S 0/0 1---/1---"}
//!   ]}]
//! }"#;
//! let mut out = JsonSink::new(Vec::new());
//! let summary = check_transcript_reader("demo.json", text.as_bytes(), &mut out)?;
//! assert_eq!(summary.units, 1);
//! assert_eq!(summary.conforming, 0); // N1 from 7 stones ends in S4, not as claimed
//! assert_eq!(kpe::check::file_kind_of_reader("demo.json", text.as_bytes())?, FileKind::Transcript);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The transcript format is specified in `spec/TRANSCRIPT.md`, with a JSON
//! Schema generated from [`Transcript`] in `spec/transcript.schema.json`.

mod diagnose;
mod input;
mod merge;
mod oracle;
mod policy;
mod quick;
mod reader;
mod reading;
mod render;
mod render_html;
mod report;
mod rules;
mod scan;
mod transcript;

pub use input::{FileKind, InputError, InputErrorKind, MAX_TOKEN_BYTES};
pub use merge::{merge_files, merge_reports};
pub use policy::{
    DID_NOT_START, Expectation, MAX_DIVERGING_GAMES, Pattern, Policy, PolicySink, chain_of,
    is_failure, normalize, stop_reason, stopped_reason,
};
pub use reader::{
    CheckError, HEADER_AT_END_BYTES, HEADER_AT_END_TRIES, MAX_NOTED_GAMES, Options, TranscriptFile,
    check_transcript_file, check_transcript_file_with, check_transcript_reader, file_kind,
    file_kind_of_reader, spool,
};
pub use reading::Nearest;
pub use reading::{Reading, Recheck, name_reading, reading_from, switch_summary};
pub use render::{
    Detail, HumanSink, JsonSink, JunitSink, Sink, Tee, junit_classname, parse_json_report,
};
pub use render_html::HtmlSink;
pub use report::{
    Certificate, Counts, Divergence, EXIT_CODES, EngineError, Explanation, FieldDiff, Group,
    GroupRef, Groups, InputErrorReport, JsonReport, KPE_CHECK_VERSION, ProfileSummary,
    REPORT_FORMAT, REPORT_VERSION, RuleCount, Run, RunKind, RunVerdict, Shard, SuiteStamp, Summary,
    UnitResult, Verdict, report_schema,
};
pub(crate) use rules::ReportRules;
pub use rules::{RULE_IDS, RuleSet, rule_title};
pub use transcript::{
    Engine, FORMAT, Notation, Ply, Transcript, TranscriptFormat, TranscriptGame, VERSION,
    transcript_schema,
};
