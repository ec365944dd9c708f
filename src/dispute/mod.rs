//! `kpe dispute`: what turning an alternative reading on would change,
//! computed from the reference rules with no code change.
//!
//! Each part compares the default profile with the default with the
//! disputed readings turned to their other value (spec/DISPUTE.md):
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
//! let report = dispute(kpe::dispute::alternative("I1")?, &options)?;
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

use crate::profile::ParseProfileError;

/// The `format` field of the JSON report.
pub const FORMAT: &str = "kpe-dispute";
/// The `version` field of the JSON report. Version 2 (issue 44) is
/// version 1 with the fields added since: `best_play` (part 5),
/// `perft.from_suite` and a pairing's `winner_changed`. Version 3 (issue
/// 45): `best_play.game`, the value of Kpé under both readings, which
/// `best_play.initial` now states in words (it said the initial position
/// was not compared).
pub const VERSION: u32 = 3;

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

/// The profile a dispute compares with the default: the default with each
/// reading `words` names (comma-separated reading IDs `I3`, settings
/// `feeding` or switch names `feed-after-capture`) turned to its other
/// value, whichever the default is; a word `setting=value` sets that value.
/// So `kpe dispute feed-after-capture` after `kpe adopt I3` compares the
/// new default with the reading it replaced.
///
/// # Errors
/// A word that names no reading, setting or value.
pub fn alternative(words: &str) -> Result<Profile, ParseProfileError> {
    words
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty() && *w != "default")
        .try_fold(Profile::DEFAULT, |p, word| {
            if word.contains('=') {
                let one = Profile::read_against(word, Profile::DEFAULT)?;
                let switch = one.changes().next();
                Ok(match switch {
                    Some(s) => p.set(s, one.has(s)),
                    None => p,
                })
            } else {
                match Switch::named(word) {
                    Some(s) => Ok(p.set(s, !Profile::DEFAULT.has(s))),
                    None => word.parse::<Switch>().map(|s| p.set(s, true)),
                }
            }
        })
}

/// The disputed readings of `kpe dispute`'s argument, as [`alternative`]
/// reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Disputed(pub Profile);

impl std::str::FromStr for Disputed {
    type Err = ParseProfileError;

    fn from_str(s: &str) -> Result<Disputed, ParseProfileError> {
        alternative(s).map(Disputed)
    }
}

/// Computes the parts for `alternative` (the default with the disputed
/// readings changed) against the default profile.
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
        readings: alternative.changes().map(reading).collect(),
        scenarios: scenarios::compare(&suite, alternative),
        smallest: search::search(alternative, options),
        play: play::measure(alternative, options),
        perft: perft::compare(alternative, options.perft_depth, &suite),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disputed_reading_is_turned_to_the_other_value_than_the_default() {
        for s in Switch::ALL {
            let other = Profile::DEFAULT.set(s, !Profile::DEFAULT.has(s));
            for word in [s.reading(), s.setting(), s.name()] {
                // Whichever value the default has: after `kpe adopt` the
                // switch name compares the new default with the old one.
                assert_eq!(alternative(word).unwrap(), other, "{word}");
            }
            let same = s.assignment(Profile::DEFAULT);
            assert_eq!(alternative(&same).unwrap(), Profile::DEFAULT, "{same}");
            let set = s.assignment(other);
            assert_eq!(alternative(&set).unwrap(), other, "{set}");
        }
        let two = alternative("I1,feeding").unwrap();
        assert_eq!(
            two.changes().collect::<Vec<_>>(),
            [Switch::SkipOrigin, Switch::FeedAfterCapture]
        );
        assert!(alternative("default").unwrap().is_default());
        assert!(alternative("bogus").is_err());
    }
}
