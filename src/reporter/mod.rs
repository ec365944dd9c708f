//! The report model of a check run and every view of it.
//!
//! Both modes write [`UnitResult`]s to a [`Sink`]: [`HumanSink`] (the
//! default report, coloured on a terminal), [`JsonSink`] (`--format json`),
//! [`JunitSink`] (`--junit FILE`) and [`HtmlSink`] (`--html FILE`), and the
//! side files [`ExpectFailWriter`] (`--write-expect-fail FILE`),
//! [`ScenarioWriter`] (`--write-scenarios FILE`) and
//! [`BadgeSink`] (`--badge FILE`). The
//! model ([`JsonReport`], [`Summary`], [`Certificate`]) is one value; the
//! renderers only read it, and [`merge_files`] reads it back from the JSON
//! reports of shards. [`Policy`] is what a run selects and expects, and
//! [`InputError`] is bad input, named at its file, line and column.
//!
//! This layer imports judgement ([`crate::judge`]) and the rules; the two
//! modes import it, never the other way round.

mod input;
mod merge;
mod output;
mod policy;
mod render;
mod render_html;
mod report;
mod side;
mod stop;

pub use input::{CheckError, FileKind, InputError, InputErrorKind, MAX_TOKEN_BYTES};

/// The most threads or engine processes `--jobs` asks for: more is refused
/// (each engine holds pipes and a process; the machine's limits on open
/// files and processes would fail first, and be blamed on the input).
pub const MAX_JOBS: u32 = 256;
pub(crate) use input::{Guarded, guarded};
pub use merge::{MAX_REPORT, merge_files, merge_reports, parse_report_bytes, read_report};
pub use output::{OutputError, check_outputs, write_atomically, write_atomically_with};
pub use policy::{
    DID_NOT_START, EXPECT_FAIL_VERSION, EXPECT_FAIL_VERSION_TAG, Expectation, MAX_DIVERGING_GAMES,
    MAX_EXPECT_FAIL, Pattern, Policy, PolicySink, StopState, Unmatched, chain_of, is_failure,
    normalize, stop_reason, stopped_reason,
};
pub use render::{
    Detail, HumanSink, JUNIT_VERSION, JsonSink, JunitSink, Sink, Tee, junit_classname,
    parse_json_report, xml_safe,
};
pub use render_html::HtmlSink;
pub use report::{
    Certificate, Counts, EXIT_CODES, EngineError, Group, GroupRef, Groups, InputErrorReport,
    JsonReport, KPE_CHECK_VERSION, MAX_SHARDS, OLDEST_REPORT_VERSION, ProfileSummary,
    REPORT_FORMAT, REPORT_VERSION, Run, RunKind, RunVerdict, Shard, SuiteStamp, Summary,
    UnitResult, Verdict, report_schema,
};
pub use side::{Badge, BadgeSink, ExpectFailWriter, SCENARIO_FILE_HEADER, ScenarioWriter};
pub use stop::{Signal, interrupted, read_heeding_signals, record_signal};
