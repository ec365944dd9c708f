//! The transcript mode of `kpe-check`: checking the games an engine wrote
//! down against the reference rules.
//!
//! An engine's claims come in *units*: a game from a transcript (this
//! module), or, in the live mode ([`crate::live`]), a scenario, a random
//! game or a perft depth.
//! Each unit is replayed with the reference rules and ends as a
//! [`UnitResult`](crate::reporter::UnitResult): it conforms, or it has one [`Divergence`](crate::judge::Divergence), the first place
//! where the engine's claim differs from the rules, with the position before,
//! the move, a field-level diff of expected against claimed, the rule IDs
//! that decide the differing fields and a ready-to-paste conformance
//! scenario that reproduces it. A [`Summary`](crate::reporter::Summary) counts the units and plies and
//! the rules they exercised; when something diverges, [`name_reading`](crate::judge::name_reading) asks
//! which rules profiles would explain everything.
//!
//! Results go to a [`Sink`](crate::reporter::Sink) as they are produced: [`HumanSink`](crate::reporter::HumanSink) (the default
//! report, coloured on a terminal), [`JsonSink`](crate::reporter::JsonSink) (`--format json`),
//! [`JunitSink`](crate::reporter::JunitSink) (`--junit FILE`) and [`HtmlSink`](crate::reporter::HtmlSink) (`--html FILE`).
//!
//! ```
//! use kpe::reporter::{FileKind, JsonSink};
//! use kpe::transcripts::check_transcript_reader;
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
//! assert_eq!(kpe::transcripts::file_kind_of_reader("demo.json", text.as_bytes())?, FileKind::Transcript);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The transcript format is specified in `spec/TRANSCRIPT.md`, with a JSON
//! Schema generated from [`Transcript`](crate::transcript::Transcript) in `spec/transcript.schema.json`.

mod check;
mod drive;
mod game;
mod handler;
mod kind;
mod quick;
mod reader;
mod scan;
mod span;

pub use check::{
    TranscriptFile, check_transcript_file, check_transcript_file_with, check_transcript_reader,
    spool, spool_stdin,
};
pub use kind::{file_kind, file_kind_of_reader};
pub use reader::{HEADER_AT_END_BYTES, HEADER_AT_END_TRIES, MAX_NOTED_GAMES, Options};
