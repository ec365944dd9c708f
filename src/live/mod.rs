//! `kpe-check` live: drive an engine over the JSON-lines protocol
//! ([`crate::protocol`]) and check it against the reference rules.
//!
//! An engine is described by a [`Manifest`]. [`check_engine`] starts it,
//! runs every conformance scenario its profile admits, perft from the initial
//! position and seeded random games, comparing each answer with the rules;
//! each divergence is shrunk to a minimal position and printed as a scenario,
//! and the readings that would explain the engine's answers are named
//! ([`crate::judge::diagnose`], through [`crate::judge::name_reading`]).
//! [`serve`] is the other side: the reference rules speaking the protocol,
//! behind `kpe engine`.
//!
//! This mode imports judgement ([`crate::judge`]) and the report model
//! ([`crate::reporter`]), never the transcript mode.

pub(crate) mod bugs;
mod engine;
mod finished;
pub mod interrupt;
mod manifest;
mod pin;
mod plan;
mod process;
mod progress;
mod repro;
mod run;
mod scenarios;
mod schedule;
mod serve;
mod shrink;
mod spool;
pub mod units;

pub use bugs::{Bug, Session as BugSession};
pub use engine::{DOUBLED_WAIT, Engine, EngineInfo, Failure, FailureKind};
pub use manifest::{
    AllProfiles, Format, MANIFEST_VERSION, Manifest, ManifestError, OLDEST_MANIFEST_VERSION,
    PerftPlan, Profiles, RandomPlan, Timeouts, schema as manifest_schema,
};
pub use manifest::{MAX_GAMES, MAX_MANIFEST, MAX_PERFT_NODES, MAX_PIPELINE};
pub use process::{EXIT_GRACE, WALL_FACTOR, WALL_FLOOR, wall_cap};
pub use process::{EngineProcess, Launch, MAX_LINE, ProcessError, STDERR_LIMIT, STDERR_TAIL};
pub use repro::{repetition_rules, reproduction, reproduction_in_game};
pub use run::{
    ENV_GAMES, ENV_PERFT_DEPTH, ENV_PIN, ENV_SEED, ENV_SUITE, LiveError, LiveOptions, LiveReport,
    MAX_RETRIES, MAX_SHRINKS, check_engine, check_manifest_file, list_units,
};
pub use scenarios::EngineSubject;
pub use schedule::{MAX_STARTS, WINDOW, WorkerTime};
pub use serve::{
    FIRST_START_MARK, HANG_EVERY, MAX_PERFT_DEPTH, MAX_REQUEST_LINE, SLOW_DELAY, SLOW_START_DELAY,
    STOPPED_MARK,
};
pub use serve::{Fault, ServeOptions, serve, serve_perfect};
pub use shrink::{Diverging, SHRINK_BUDGET, candidates, shrink};
