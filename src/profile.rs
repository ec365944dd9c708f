//! The rules profile: one named switch for each reading I1 to I5 that the
//! sources leave open (spec/RULES.md, "Readings").

use std::fmt;
use std::str::FromStr;

/// One alternative reading, by its switch name.
///
/// The default profile has every switch off; turning one on selects that
/// reading's alternative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Switch {
    /// I1 `skip-origin`: a sowing of 8 or more stones skips its origin pit.
    SkipOrigin,
    /// I2 `strict-lock`: the move that starts from a player's last unused pit
    /// cannot capture; only moves after it can.
    StrictLock,
    /// I3 `feed-after-capture`: a feeding move is one that leaves the opponent
    /// at least one stone after its captures.
    FeedAfterCapture,
    /// I4 `end-when-unfeedable`: when the opponent's row is empty and no move
    /// can feed it, the game ends at once.
    EndWhenUnfeedable,
    /// I5 `end-on-repetition`: the game ends the first time a position recurs.
    EndOnRepetition,
}

impl Switch {
    /// Every switch, in reading order I1..I5.
    pub const ALL: [Switch; 5] = [
        Switch::SkipOrigin,
        Switch::StrictLock,
        Switch::FeedAfterCapture,
        Switch::EndWhenUnfeedable,
        Switch::EndOnRepetition,
    ];

    /// The switch name used on command lines and in files.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Switch::SkipOrigin => "skip-origin",
            Switch::StrictLock => "strict-lock",
            Switch::FeedAfterCapture => "feed-after-capture",
            Switch::EndWhenUnfeedable => "end-when-unfeedable",
            Switch::EndOnRepetition => "end-on-repetition",
        }
    }

    /// The reading this switch selects the alternative of: `I1`..`I5`.
    #[must_use]
    pub const fn reading(self) -> &'static str {
        match self {
            Switch::SkipOrigin => "I1",
            Switch::StrictLock => "I2",
            Switch::FeedAfterCapture => "I3",
            Switch::EndWhenUnfeedable => "I4",
            Switch::EndOnRepetition => "I5",
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for Switch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of readings: which alternative switches are on.
///
/// Written as `default` (no switch on) or as switch names joined by commas,
/// in reading order, e.g. `skip-origin,strict-lock`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Profile {
    bits: u8,
}

crate::as_text::serde_as_text!(Profile);

impl Profile {
    /// The spec's own reading of every open point: all switches off.
    pub const DEFAULT: Profile = Profile { bits: 0 };

    /// A profile with exactly the given switches on.
    #[must_use]
    pub fn with(switches: &[Switch]) -> Profile {
        switches
            .iter()
            .fold(Profile::DEFAULT, |p, &s| p.set(s, true))
    }

    /// This profile with `switch` turned on or off.
    #[must_use]
    pub const fn set(self, switch: Switch, on: bool) -> Profile {
        let bits = if on {
            self.bits | switch.bit()
        } else {
            self.bits & !switch.bit()
        };
        Profile { bits }
    }

    /// Whether `switch` is on.
    #[must_use]
    pub const fn has(self, switch: Switch) -> bool {
        self.bits & switch.bit() != 0
    }

    /// The switches that are on, in reading order.
    pub fn switches(self) -> impl Iterator<Item = Switch> {
        Switch::ALL.into_iter().filter(move |&s| self.has(s))
    }

    /// All 32 profiles: every combination of the five switches, default first.
    pub fn all() -> impl Iterator<Item = Profile> {
        (0..32u8).map(|bits| Profile { bits })
    }

    /// Whether this is the default profile.
    #[must_use]
    pub const fn is_default(self) -> bool {
        self.bits == 0
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_default() {
            return f.write_str("default");
        }
        for (i, s) in self.switches().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(s.name())?;
        }
        Ok(())
    }
}

/// Why a profile could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseProfileError {
    word: String,
}

impl fmt::Display for ParseProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown rules switch `{}`: expected `default` or a comma-separated list of {}",
            self.word.escape_debug(),
            Switch::ALL.map(Switch::name).join(", ")
        )
    }
}

impl std::error::Error for ParseProfileError {}

impl FromStr for Switch {
    type Err = ParseProfileError;

    fn from_str(s: &str) -> Result<Switch, ParseProfileError> {
        Switch::ALL
            .into_iter()
            .find(|sw| sw.name() == s)
            .ok_or_else(|| ParseProfileError { word: s.to_owned() })
    }
}

impl FromStr for Profile {
    type Err = ParseProfileError;

    /// Reads `default`, or switch names separated by commas (any order,
    /// surrounding spaces ignored). The empty string is the default profile.
    fn from_str(s: &str) -> Result<Profile, ParseProfileError> {
        let s = s.trim();
        if s.is_empty() || s == "default" {
            return Ok(Profile::DEFAULT);
        }
        s.split(',').try_fold(Profile::DEFAULT, |p, word| {
            Ok(p.set(word.trim().parse::<Switch>()?, true))
        })
    }
}

impl schemars::JsonSchema for Profile {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Profile".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^(default|((skip-origin|strict-lock|feed-after-capture|end-when-unfeedable|end-on-repetition)(,(skip-origin|strict-lock|feed-after-capture|end-when-unfeedable|end-on-repetition))*))$",
            "description": "A rules profile: `default`, or the alternative readings switched on, comma-separated: skip-origin (I1), strict-lock (I2), feed-after-capture (I3), end-when-unfeedable (I4), end-on-repetition (I5)."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_round_trips_through_its_name() {
        for p in Profile::all() {
            assert_eq!(p.to_string().parse::<Profile>().unwrap(), p);
        }
        assert_eq!(Profile::all().count(), 32);
    }

    #[test]
    fn names_are_order_insensitive_and_errors_name_the_word() {
        let p: Profile = "strict-lock, skip-origin".parse().unwrap();
        assert_eq!(p.to_string(), "skip-origin,strict-lock");
        // Naming a switch twice keeps it on.
        let twice: Profile = "skip-origin,skip-origin".parse().unwrap();
        assert_eq!(twice, Profile::with(&[Switch::SkipOrigin]));
        assert_eq!(Switch::EndOnRepetition.to_string(), "end-on-repetition");
        let err = "skip-origin,bogus".parse::<Profile>().unwrap_err();
        assert!(err.to_string().contains("`bogus`"), "{err}");
    }

    #[test]
    fn setting_a_switch_off_clears_only_that_switch() {
        let all = Profile::with(&Switch::ALL);
        for switch in Switch::ALL {
            let off = all.set(switch, false);
            assert!(!off.has(switch), "{switch}");
            assert_eq!(off.switches().count(), 4, "{switch}");
            assert!(Switch::ALL.iter().all(|&s| s == switch || off.has(s)));
            // Off twice stays off; off on the default is the default.
            assert_eq!(off.set(switch, false), off);
            assert_eq!(Profile::DEFAULT.set(switch, false), Profile::DEFAULT);
            assert_eq!(off.set(switch, true), all);
        }
    }
}
