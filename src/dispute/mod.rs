//! `kpe dispute`: what turning an alternative reading on would change,
//! computed from the reference rules with no code change.
//!
//! Four parts, each comparing the default profile with the default plus the
//! disputed switches (spec/DISPUTE.md):
//!
//! 1. [`scenarios`]: every conformance scenario whose trace differs, both
//!    traces side by side with the first differing ply;
//! 2. [`search`]: the smallest valid positions (fewest stones first) where
//!    the readings answer differently, as ready-to-paste scenarios;
//! 3. [`play`]: how much it matters in seeded random and greedy play, with
//!    95% confidence intervals;
//! 4. [`perft`]: the first depth where the perft counts part;
//! 5. [`best`]: with best play, from both readings' solved tables
//!    (spec/SOLVE.md): the fewest stones at which a position's value
//!    differs, and where best play departs.
//!
//! ```
//! use kpe::dispute::{Options, dispute};
//! let options = Options { games: 4, perft_depth: 5, ..Options::default() };
//! let report = dispute("skip-origin".parse()?, &options)?;
//! assert_eq!(report.perft.first_difference, Some(5));
//! assert_eq!(report.smallest.stones, Some(8));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod best;
mod model;
mod options;
pub mod page;
pub mod perft;
pub mod play;
pub mod scenarios;
pub mod search;
mod spec;
mod text;

use std::fmt;

use crate::profile::{Profile, Switch};
use crate::scenario::{ScenarioErrors, Suite};

pub use model::Dispute;
pub use options::{MAX_DISPUTE_EXAMPLES, MAX_DISPUTE_GAMES, MAX_DISPUTE_PLIES, Options};
pub use spec::{Reading, reading};

/// The `format` field of the JSON report.
pub const FORMAT: &str = "kpe-dispute";
/// The `version` field of the JSON report.
pub const VERSION: u32 = 1;

/// Why a dispute could not be computed.
#[derive(Debug)]
#[non_exhaustive]
pub enum DisputeError {
    /// No switch was named: the default compared with itself changes nothing.
    NoSwitch,
    /// The built-in conformance suite does not load (a kpe build problem).
    Suite(ScenarioErrors),
}

impl fmt::Display for DisputeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DisputeError::NoSwitch => write!(
                f,
                "name at least one switch to dispute: {}",
                Switch::ALL.map(Switch::name).join(", ")
            ),
            DisputeError::Suite(e) => write!(f, "the built-in suite does not load:\n{e}"),
        }
    }
}

impl std::error::Error for DisputeError {}

/// Computes the four parts for `alternative` (the default plus the
/// disputed switches) against the default profile.
///
/// # Errors
///
/// [`DisputeError::NoSwitch`] when `alternative` is the default profile;
/// [`DisputeError::Suite`] if the built-in suite does not load.
pub fn dispute(alternative: Profile, options: &Options) -> Result<Dispute, DisputeError> {
    if alternative.is_default() {
        return Err(DisputeError::NoSwitch);
    }
    let suite = Suite::bundled().map_err(DisputeError::Suite)?;
    Ok(Dispute {
        format: FORMAT.to_owned(),
        version: VERSION,
        alternative,
        readings: alternative.switches().map(reading).collect(),
        scenarios: scenarios::compare(&suite, alternative),
        smallest: search::search(alternative, options),
        play: play::measure(alternative, options),
        perft: perft::compare(alternative, options.perft_depth),
        best_play: best::compare(alternative, options),
    })
}

impl Dispute {
    /// The report for people, as `kpe dispute` prints it.
    #[must_use]
    pub fn to_text(&self) -> String {
        text::render(self)
    }

    /// The self-contained HTML page of `kpe dispute --html`.
    #[must_use]
    pub fn to_html(&self) -> String {
        page::render(self)
    }
}

/// The JSON Schema of the report ([`Dispute`]), as committed in
/// `spec/dispute.schema.json`.
#[must_use]
pub fn schema() -> schemars::Schema {
    schemars::schema_for!(Dispute)
}
