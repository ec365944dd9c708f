//! The rules profile: one named setting for each reading the sources leave
//! open, each with two named values (spec/RULES.md, "Readings"). The
//! readings are one table, [`READINGS`]. The authority's default assignment is data: it is read from
//! `spec/default.yaml` when the crate is built, and `kpe adopt` changes it.

use std::fmt;
use std::str::FromStr;

/// One point the sources leave open, as one row of [`READINGS`]: the
/// reading's ID, the rule it belongs to, its setting with two named values
/// and what each says, the switch that names the second value, and where
/// it can change an answer. Everything else that lists the readings
/// ([`Switch`], the profiles, their JSON Schema pattern, help texts,
/// completions, the spec's table) is derived from the rows or checked
/// against them by a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The reading's ID in spec/RULES.md, `I1`, `I2`, ...
    pub id: &'static str,
    /// The rule ID whose paragraph states the reading (`SOW-4`).
    pub rule: &'static str,
    /// The setting's name in the named form `setting=value`.
    pub setting: &'static str,
    /// The setting's two values: the first with the switch off, the second
    /// with it on.
    pub values: [&'static str; 2],
    /// What each value says, for people: `says[0]` for `values[0]`.
    pub says: [&'static str; 2],
    /// The switch name: the second value, on command lines and in files.
    pub switch: &'static str,
    /// Where the reading can change an answer.
    pub matters: Matters,
}

/// Where a reading can change an answer: the places that must learn of a
/// new reading, each reading its own field of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Matters {
    /// The file and function of the rules that read the switch
    /// (`("src/rules.rs", "sow")`); a test finds the switch there.
    pub step: (&'static str, &'static str),
    /// What the solver's tables do with it (`kpe solve`, spec/SOLVE.md).
    pub solver: SolverRole,
    /// What `kpe edges` looks for at its flip (spec/DISPUTE.md).
    pub edges: EdgeRole,
}

/// What the solver's tables do with a reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverRole {
    /// It changes moves, captures or the end once both players' captures
    /// are unlocked: each of its values has tables of its own.
    Apart,
    /// It has nothing left to decide once both locks are open: its two
    /// values share a table.
    Shared,
    /// No table covers its second value, for the reason `why` (which
    /// `kpe solve` gives when refusing such a profile).
    Uncovered {
        /// Why no table covers it: "a position's value depends on ...".
        why: &'static str,
    },
}

/// What `kpe edges` looks for where a reading flips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeRole {
    /// Positions where flipping it changes the legal moves or a move's
    /// result. `legal_when_fed_by_sowing`: whether it can change the legal
    /// moves while feeding is judged by sowing (the first value of
    /// `feeding`), where which moves feed depends only on how far each
    /// pit's stones reach.
    Flips {
        /// Whether the legal moves can change under feeding by sowing.
        legal_when_fed_by_sowing: bool,
    },
    /// None: it decides on a game's history, which no single position shows.
    History,
}

/// Declares the readings: the [`Switch`] enum and the table [`READINGS`],
/// one entry each, so that a reading is written in one place.
macro_rules! readings {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident => $row:expr,
    )*) => {
        /// One alternative reading, by its switch name: the row of
        /// [`READINGS`] at the same index.
        ///
        /// The all-off profile has every switch off; turning one on selects
        /// that reading's second value.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Switch {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Switch {
            /// Every switch, in reading order.
            pub const ALL: [Switch; READINGS.len()] = [$(Switch::$variant),*];
        }

        /// The readings the sources leave open, in reading order: the one
        /// table every list of readings comes from (spec/RULES.md,
        /// "Readings", is checked against it).
        pub const READINGS: [Reading; [$(stringify!($variant)),*].len()] = [$($row),*];

        /// The enum variant's name of each reading, for the test that finds
        /// each switch in its rules step.
        #[cfg(test)]
        const VARIANTS: [&str; READINGS.len()] = [$(stringify!($variant)),*];
    };
}

readings! {
    /// I1 `skip-origin`: a sowing of 8 or more stones skips its origin pit.
    SkipOrigin => Reading {
        id: "I1",
        rule: "SOW-4",
        setting: "origin",
        values: ["sown", "skipped"],
        says: [
            "a sowing of 8+ stones sows its origin pit too",
            "a sowing of 8+ stones skips its origin pit",
        ],
        switch: "skip-origin",
        matters: Matters {
            step: ("src/rules.rs", "sow"),
            solver: SolverRole::Apart,
            edges: EdgeRole::Flips { legal_when_fed_by_sowing: false },
        },
    },
    /// I2 `strict-lock`: the move that starts from a player's last unused
    /// pit cannot capture; only moves after it can.
    StrictLock => Reading {
        id: "I2",
        rule: "LOCK-3",
        setting: "lock",
        values: ["after-sowing", "before-sowing"],
        says: [
            "the move from the last unused pit may capture",
            "the move from the last unused pit cannot capture",
        ],
        switch: "strict-lock",
        matters: Matters {
            step: ("src/rules.rs", "may_capture"),
            solver: SolverRole::Shared,
            edges: EdgeRole::Flips { legal_when_fed_by_sowing: false },
        },
    },
    /// I3 `feed-after-capture`: a feeding move is one that leaves the
    /// opponent at least one stone after its captures.
    FeedAfterCapture => Reading {
        id: "I3",
        rule: "FEED-2",
        setting: "feeding",
        values: ["by-sowing", "after-capture"],
        says: [
            "a feeding move is one that sows into the opponent's row",
            "a feeding move must leave the opponent a stone after captures",
        ],
        switch: "feed-after-capture",
        matters: Matters {
            step: ("src/rules.rs", "feeds"),
            solver: SolverRole::Apart,
            edges: EdgeRole::Flips { legal_when_fed_by_sowing: true },
        },
    },
    /// I4 `end-when-unfeedable`: when the opponent's row is empty and no
    /// move can feed it, the game ends at once.
    EndWhenUnfeedable => Reading {
        id: "I4",
        rule: "FEED-3",
        setting: "unfeedable",
        values: ["lapses", "ends-game"],
        says: [
            "when the opponent cannot be fed, the feeding obligation lapses",
            "the game ends when the empty-rowed opponent cannot be fed",
        ],
        switch: "end-when-unfeedable",
        matters: Matters {
            step: ("src/rules.rs", "legal_moves_and_feeding"),
            solver: SolverRole::Apart,
            edges: EdgeRole::Flips { legal_when_fed_by_sowing: true },
        },
    },
    /// I5 `end-on-repetition`: the game ends the first time a position
    /// recurs.
    EndOnRepetition => Reading {
        id: "I5",
        rule: "END-3",
        setting: "repetition",
        values: ["continues", "ends-game"],
        says: [
            "a repeated position does not end the game",
            "the game ends at the first repeated position",
        ],
        switch: "end-on-repetition",
        matters: Matters {
            step: ("src/game.rs", "play"),
            solver: SolverRole::Uncovered {
                why: "a position's value depends on the game's history, not on the position alone",
            },
            edges: EdgeRole::History,
        },
    },
}

// A profile keeps one bit a switch in a `u8`, and `Profile::all` counts
// one past the last profile in it.
const _: () = assert!(
    READINGS.len() < 8,
    "a profile's bits (u8) hold fewer than eight readings"
);

impl Switch {
    /// This switch's row of the readings table.
    #[must_use]
    pub const fn row(self) -> &'static Reading {
        &READINGS[self as usize]
    }

    /// The switch name used on command lines and in files.
    #[must_use]
    pub const fn name(self) -> &'static str {
        self.row().switch
    }

    /// The reading this switch selects the second value of: `I1`, `I2`, ...
    #[must_use]
    pub const fn reading(self) -> &'static str {
        self.row().id
    }

    /// The rule ID whose paragraph states the reading (`SOW-4`).
    #[must_use]
    pub const fn rule(self) -> &'static str {
        self.row().rule
    }

    /// The setting's name in the named form `setting=value`.
    #[must_use]
    pub const fn setting(self) -> &'static str {
        self.row().setting
    }

    /// The setting's two values: the first is the value with the switch off,
    /// the second the value with it on (the one the switch name names).
    #[must_use]
    pub const fn values(self) -> [&'static str; 2] {
        self.row().values
    }

    /// What the reading says with the switch on or off, for people.
    #[must_use]
    pub const fn says(self, on: bool) -> &'static str {
        self.row().says[on as usize]
    }

    /// The value this setting has in `profile`.
    #[must_use]
    pub const fn value_in(self, profile: Profile) -> &'static str {
        self.values()[profile.has(self) as usize]
    }

    /// This setting as `profile` sets it: `origin=sown`.
    #[must_use]
    pub fn assignment(self, profile: Profile) -> String {
        format!("{}={}", self.setting(), self.value_in(profile))
    }

    /// The switch a person names by reading ID (`I3`), setting name
    /// (`feeding`) or switch name (`feed-after-capture`).
    #[must_use]
    pub fn named(word: &str) -> Option<Switch> {
        let word = word.trim();
        Switch::ALL.into_iter().find(|s| {
            s.reading().eq_ignore_ascii_case(word) || s.setting() == word || s.name() == word
        })
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

/// An assignment of the readings: which value each setting has.
///
/// Written relative to the authority's default ([`Profile::DEFAULT`]):
/// `default`, or the settings that differ from it joined by commas in
/// reading order. A setting whose value is the one its switch names is
/// written as the switch name (`skip-origin,strict-lock`, the form since
/// version 0.1); one whose value is the other is written `setting=value`
/// (`feeding=by-sowing`). Both forms, and `setting=value` for any setting,
/// are read everywhere a profile is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Profile {
    bits: u8,
}

impl serde::Serialize for Profile {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// In a file a profile is written as its schema says: `default` or words
/// joined by commas, with no spaces and never empty (the command line also
/// takes spaces and the empty string, see [`FromStr`]).
impl<'de> serde::Deserialize<'de> for Profile {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(FileProfile)
    }
}

/// The visitor of a profile in a file.
struct FileProfile;

impl serde::de::Visitor<'_> for FileProfile {
    type Value = Profile;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a profile string")
    }

    fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Profile, E> {
        if text.is_empty() || text.contains(char::is_whitespace) {
            return Err(E::custom(format!(
                "profile {text:?}: a profile in a file is `default` or switch names and \
                 setting=value pairs joined by commas, with no spaces (spec/RULES.md)"
            )));
        }
        text.parse().map_err(E::custom)
    }
}

impl Profile {
    /// The authority's default reading of every open point, as
    /// `spec/default.yaml` states it (read when the crate is built).
    pub const DEFAULT: Profile = match parse_default_file(DEFAULT_FILE) {
        Ok(p) => p,
        Err(_) => panic!("spec/default.yaml is not a valid default assignment"),
    };

    /// The profile with every switch off: each setting at its first value
    /// (`origin=sown,lock=after-sowing,...`), whatever the default is.
    pub const ALL_OFF: Profile = Profile { bits: 0 };

    /// A profile with exactly the given switches on (the others off,
    /// whatever the default is).
    #[must_use]
    pub fn with(switches: &[Switch]) -> Profile {
        switches
            .iter()
            .fold(Profile::ALL_OFF, |p, &s| p.set(s, true))
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

    /// This profile with `switch` turned the other way: the other value of
    /// its setting.
    #[must_use]
    pub const fn flipped(self, switch: Switch) -> Profile {
        self.set(switch, !self.has(switch))
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

    /// Every profile: every combination of the switches, the all-off
    /// profile first, in a fixed order that does not depend on the default.
    pub fn all() -> impl Iterator<Item = Profile> {
        (0..=Profile::ALL_BITS).map(|bits| Profile { bits })
    }

    /// The bits of the profile with every switch on.
    const ALL_BITS: u8 = (1 << READINGS.len()) - 1;

    /// How many profiles there are: two values a reading, combined.
    pub const COUNT: usize = 1 << READINGS.len();

    /// Whether this is the default profile.
    #[must_use]
    pub const fn is_default(self) -> bool {
        self.bits == Profile::DEFAULT.bits
    }

    /// The switches whose value differs from the default's, in reading order.
    pub fn changes(self) -> impl Iterator<Item = Switch> {
        Switch::ALL
            .into_iter()
            .filter(move |&s| self.has(s) != Profile::DEFAULT.has(s))
    }

    /// This profile written relative to `default` (see [`Profile`]).
    #[must_use]
    pub fn written_against(self, default: Profile) -> String {
        let words: Vec<String> = Switch::ALL
            .into_iter()
            .filter(|&s| self.has(s) != default.has(s))
            .map(|s| {
                if self.has(s) {
                    s.name().to_owned()
                } else {
                    s.assignment(self)
                }
            })
            .collect();
        if words.is_empty() {
            "default".to_owned()
        } else {
            words.join(",")
        }
    }

    /// This profile with every setting spelled out, in reading order
    /// (`origin=sown,lock=after-sowing,...`): a name that means the same
    /// whatever the default is.
    #[must_use]
    pub fn explicit(self) -> String {
        Switch::ALL.map(|s| s.assignment(self)).join(",")
    }

    /// Reads a profile written relative to `default` (see [`Profile`]).
    ///
    /// # Errors
    /// An unknown switch, setting or value, named in the error.
    pub fn read_against(s: &str, default: Profile) -> Result<Profile, ParseProfileError> {
        let s = s.trim();
        if s.is_empty() || s == "default" {
            return Ok(default);
        }
        s.split(',').try_fold(default, |p, word| {
            let word = word.trim();
            let bad = || ParseProfileError {
                word: word.to_owned(),
            };
            match word.split_once('=') {
                Some((setting, value)) => {
                    let switch = Switch::ALL
                        .into_iter()
                        .find(|s| s.setting() == setting.trim())
                        .ok_or_else(bad)?;
                    let on = switch
                        .values()
                        .iter()
                        .position(|v| *v == value.trim())
                        .ok_or_else(bad)?;
                    Ok(p.set(switch, on == 1))
                }
                None => Ok(p.set(word.parse::<Switch>()?, true)),
            }
        })
    }
}

impl Default for Profile {
    fn default() -> Profile {
        Profile::DEFAULT
    }
}

/// The text of `spec/default.yaml`, the authority's default assignment.
pub const DEFAULT_FILE: &str = include_str!("../spec/default.yaml");

/// The version of the default-assignment file format (`spec/default.yaml`):
/// its optional line `version: 1`. A file without it is of version 1, the
/// format before the line existed.
pub const DEFAULT_FILE_VERSION: u32 = 1;

/// Reads a default-assignment file: `setting: value` lines (one for each
/// setting, in any order), an optional `version: 1` line
/// ([`DEFAULT_FILE_VERSION`]), blank lines and `#` comments.
///
/// # Errors
/// The first line that is not a known setting with one of its two values,
/// and a file that leaves a setting out or states one twice.
pub const fn parse_default_file(text: &str) -> Result<Profile, DefaultFileError> {
    let b = text.as_bytes();
    let mut bits = 0u8;
    let mut seen = 0u8;
    let mut version_seen = false;
    let mut line = 1;
    let mut start = 0;
    while start <= b.len() {
        let mut end = start;
        while end < b.len() && b[end] != b'\n' {
            end += 1;
        }
        // The line without its comment and surrounding spaces.
        let mut stop = start;
        while stop < end && b[stop] != b'#' {
            stop += 1;
        }
        let (from, to) = trim(b, start, stop);
        if from < to {
            let mut colon = from;
            while colon < to && b[colon] != b':' {
                colon += 1;
            }
            let (key_from, key_to) = trim(b, from, colon);
            let (value_from, value_to) = trim(b, if colon < to { colon + 1 } else { to }, to);
            let mut found = false;
            // `version: 1` names the file format's version
            // (DEFAULT_FILE_VERSION); a file without it is of version 1.
            if same(b, key_from, key_to, "version") {
                if !same(b, value_from, value_to, "1") {
                    return Err(DefaultFileError {
                        line,
                        what: "a version other than 1",
                    });
                }
                if version_seen {
                    return Err(DefaultFileError {
                        line,
                        what: "a setting stated twice",
                    });
                }
                version_seen = true;
                found = true;
            }
            let mut i = 0;
            while i < Switch::ALL.len() {
                let s = Switch::ALL[i];
                if same(b, key_from, key_to, s.setting()) {
                    found = true;
                    let on = if same(b, value_from, value_to, s.values()[0]) {
                        false
                    } else if same(b, value_from, value_to, s.values()[1]) {
                        true
                    } else {
                        return Err(DefaultFileError {
                            line,
                            what: "a value the setting does not have",
                        });
                    };
                    if seen & s.bit() != 0 {
                        return Err(DefaultFileError {
                            line,
                            what: "a setting stated twice",
                        });
                    }
                    seen |= s.bit();
                    if on {
                        bits |= s.bit();
                    }
                }
                i += 1;
            }
            if !found {
                return Err(DefaultFileError {
                    line,
                    what: "an unknown setting",
                });
            }
        }
        line += 1;
        start = end + 1;
    }
    if seen != Profile::ALL_BITS {
        return Err(DefaultFileError {
            line: 0,
            what: "a setting left out",
        });
    }
    Ok(Profile { bits })
}

/// `b[from..to]` without leading and trailing spaces.
const fn trim(b: &[u8], mut from: usize, mut to: usize) -> (usize, usize) {
    while from < to && b[from].is_ascii_whitespace() {
        from += 1;
    }
    while to > from && b[to - 1].is_ascii_whitespace() {
        to -= 1;
    }
    (from, to)
}

/// Whether `b[from..to]` is `word`.
const fn same(b: &[u8], from: usize, to: usize, word: &str) -> bool {
    let w = word.as_bytes();
    if to - from != w.len() {
        return false;
    }
    let mut i = 0;
    while i < w.len() {
        if b[from + i] != w[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Why a default-assignment file could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefaultFileError {
    /// The 1-based line, or 0 for the file as a whole.
    pub line: usize,
    /// What was found where a `setting: value` line was expected.
    pub what: &'static str,
}

impl fmt::Display for DefaultFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: ", self.line)?;
        }
        write!(
            f,
            "{}: expected one `setting: value` line for each of {}",
            self.what,
            Switch::ALL.map(Switch::setting).join(", ")
        )
    }
}

impl std::error::Error for DefaultFileError {}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.written_against(Profile::DEFAULT))
    }
}

/// Why a profile could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseProfileError {
    word: String,
}

impl fmt::Display for ParseProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.word.contains('=') {
            return write!(
                f,
                "unknown rules setting `{}`: expected `setting=value`, one of {}",
                self.word.escape_debug(),
                Switch::ALL
                    .map(|s| format!("{}={}", s.setting(), s.values().join("|")))
                    .join(", ")
            );
        }
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

    /// Reads `default`, or switch names and `setting=value` pairs separated
    /// by commas (any order, surrounding spaces ignored), each changing the
    /// default. The empty string is the default profile.
    fn from_str(s: &str) -> Result<Profile, ParseProfileError> {
        Profile::read_against(s, Profile::DEFAULT)
    }
}

impl schemars::JsonSchema for Profile {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Profile".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        // One word: a switch name, or a setting with one of its values.
        let word = READINGS
            .map(|r| r.switch)
            .into_iter()
            .chain(
                READINGS
                    .map(|r| format!("{}=({})", r.setting, r.values.join("|")))
                    .iter()
                    .map(String::as_str),
            )
            .collect::<Vec<_>>()
            .join("|");
        let switches = READINGS
            .map(|r| format!("{} ({})", r.switch, r.id))
            .join(", ");
        let settings = READINGS
            .map(|r| format!("{}={}", r.setting, r.values.join("|")))
            .join(", ");
        schemars::json_schema!({
            "type": "string",
            "pattern": format!("^(default|(({word})(,({word}))*))$"),
            "description": format!(
                "A rules profile, relative to the authority's default (spec/default.yaml): \
                 `default`, or comma-separated changes to it: a switch name for the second \
                 value of its setting, {switches}, or `setting=value`: {settings}."
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_round_trips_through_its_name_against_every_default() {
        for default in Profile::all() {
            for p in Profile::all() {
                let text = p.written_against(default);
                assert_eq!(Profile::read_against(&text, default).unwrap(), p, "{text}");
            }
        }
        for p in Profile::all() {
            assert_eq!(p.to_string().parse::<Profile>().unwrap(), p);
        }
        assert_eq!(Profile::all().count(), Profile::COUNT);
        assert_eq!(
            Profile::all()
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
            1 << Switch::ALL.len()
        );
    }

    #[test]
    fn names_are_order_insensitive_and_errors_name_the_word() {
        let off = Profile::ALL_OFF;
        let p = Profile::read_against("strict-lock, skip-origin", off).unwrap();
        assert_eq!(p.written_against(off), "skip-origin,strict-lock");
        // Naming a switch twice keeps it on.
        let twice = Profile::read_against("skip-origin,skip-origin", off).unwrap();
        assert_eq!(twice, Profile::with(&[Switch::SkipOrigin]));
        assert_eq!(Switch::EndOnRepetition.to_string(), "end-on-repetition");
        let err = "skip-origin,bogus".parse::<Profile>().unwrap_err();
        assert!(err.to_string().contains("`bogus`"), "{err}");
        let err = "feeding=sometimes".parse::<Profile>().unwrap_err();
        assert!(err.to_string().contains("`feeding=sometimes`"), "{err}");
    }

    #[test]
    fn the_named_form_sets_either_value_and_the_old_form_is_still_read() {
        let all = Profile::with(&Switch::ALL);
        for switch in Switch::ALL {
            let [first, second] = switch.values();
            let by_value = |v: &str| format!("{}={v}", switch.setting());
            assert_eq!(
                Profile::read_against(&by_value(second), Profile::ALL_OFF).unwrap(),
                Profile::with(&[switch])
            );
            assert_eq!(
                Profile::read_against(switch.name(), Profile::ALL_OFF).unwrap(),
                Profile::with(&[switch])
            );
            assert_eq!(
                Profile::read_against(&by_value(first), all).unwrap(),
                all.set(switch, false)
            );
            // Against the all-on default, the all-off profile names every setting.
            assert!(
                Profile::ALL_OFF
                    .written_against(all)
                    .contains(&by_value(first))
            );
            assert_eq!(Switch::named(switch.reading()), Some(switch));
            assert_eq!(Switch::named(switch.setting()), Some(switch));
            assert_eq!(Switch::named(switch.name()), Some(switch));
        }
        assert_eq!(
            Profile::ALL_OFF.written_against(Profile::ALL_OFF),
            "default"
        );
        let next = format!("I{}", Switch::ALL.len() + 1);
        assert_eq!(Switch::named(&next), None);
    }

    #[test]
    fn the_default_file_is_read_and_bad_ones_are_refused_naming_the_line() {
        assert_eq!(parse_default_file(DEFAULT_FILE), Ok(Profile::DEFAULT));
        assert_eq!("default".parse::<Profile>().unwrap(), Profile::DEFAULT);
        assert!(Profile::DEFAULT.is_default());
        assert_eq!(Profile::default(), Profile::DEFAULT);
        // Every setting once: these as written, any other at its first value.
        let mut good = "origin: skipped\nlock: after-sowing # I2\n\nfeeding: by-sowing\nunfeedable: ends-game\nrepetition: continues\n".to_owned();
        for s in Switch::ALL {
            if !good.contains(&format!("{}:", s.setting())) {
                good.push_str(&format!("{}: {}\n", s.setting(), s.values()[0]));
            }
        }
        let good = good.as_str();
        assert_eq!(
            parse_default_file(good),
            Ok(Profile::with(&[
                Switch::SkipOrigin,
                Switch::EndWhenUnfeedable
            ]))
        );
        let bad_value = good.replace("lock: after-sowing", "lock: never");
        let err = parse_default_file(&bad_value).unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.to_string().starts_with("line 2: a value"), "{err}");
        assert_eq!(
            parse_default_file(&good.replace("origin", "orrigin"))
                .unwrap_err()
                .line,
            1
        );
        let twice = format!("{good}origin: sown\n");
        assert_eq!(
            parse_default_file(&twice).unwrap_err().what,
            "a setting stated twice"
        );
        let missing = good.replace("repetition: continues\n", "");
        assert_eq!(parse_default_file(&missing).unwrap_err().line, 0);
        // The format's version (issue 44): 1 or none; another is refused.
        assert!(DEFAULT_FILE.contains(&format!("\nversion: {DEFAULT_FILE_VERSION}\n")));
        let versioned = format!("version: 1\n{good}");
        assert_eq!(parse_default_file(&versioned), parse_default_file(good));
        let two = format!("version: 2\n{good}");
        let err = parse_default_file(&two).unwrap_err();
        assert_eq!((err.line, err.what), (1, "a version other than 1"));
        let twice = format!("version: 1\n{versioned}");
        assert_eq!(
            parse_default_file(&twice).unwrap_err().what,
            "a setting stated twice"
        );
    }

    #[test]
    fn setting_a_switch_off_clears_only_that_switch() {
        let all = Profile::with(&Switch::ALL);
        for switch in Switch::ALL {
            let off = all.set(switch, false);
            assert!(!off.has(switch), "{switch}");
            assert_eq!(off.switches().count(), Switch::ALL.len() - 1, "{switch}");
            assert!(Switch::ALL.iter().all(|&s| s == switch || off.has(s)));
            // Off twice stays off; off on the default is the default.
            assert_eq!(off.set(switch, false), off);
            assert_eq!(Profile::ALL_OFF.set(switch, false), Profile::ALL_OFF);
            assert_eq!(off.set(switch, true), all);
        }
    }

    #[test]
    fn the_readings_table_is_well_formed() {
        let mut words = std::collections::BTreeSet::new();
        for (k, (row, switch)) in READINGS.iter().zip(Switch::ALL).enumerate() {
            // Exact: as many switches as rows, each the row at its index.
            assert_eq!(switch as usize, k);
            assert_eq!(switch.row(), row);
            assert_eq!(row.id, format!("I{}", k + 1), "IDs run in order");
            assert_ne!(row.values[0], row.values[1], "{}", row.id);
            assert!(row.says.iter().all(|s| !s.is_empty()), "{}", row.id);
            // A word a person may type names one thing only.
            for word in [row.switch, row.setting] {
                assert!(words.insert(word), "`{word}` names two things");
            }
        }
        assert_eq!(Switch::ALL.len(), READINGS.len());
        assert_eq!(VARIANTS.len(), READINGS.len());
    }

    /// Each reading's switch is read in the step its row names: the body of
    /// `fn step` in that file mentions `Switch::Variant`.
    #[test]
    fn each_reading_is_read_in_the_step_its_row_names() {
        for (row, variant) in READINGS.iter().zip(VARIANTS) {
            let (file, step) = row.matters.step;
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
            let text = std::fs::read_to_string(&path).unwrap();
            let head = format!("fn {step}(");
            let at = text
                .find(&head)
                .unwrap_or_else(|| panic!("{}: no `{head}` in {file}", row.id));
            // The function's body: up to the brace at the indent of `fn`.
            let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
            let indent = &text[line_start..at];
            let indent = &indent[..indent.len() - indent.trim_start().len()];
            let body = &text[at..];
            let end = body.find(&format!("\n{indent}}}\n")).unwrap_or(body.len());
            assert!(
                body[..end].contains(&format!("Switch::{variant}")),
                "{}: `{step}` in {file} does not read Switch::{variant}",
                row.id
            );
        }
    }

    #[test]
    fn the_schema_pattern_admits_every_word_and_no_other() {
        let schema = serde_json::to_value(schemars::schema_for!(Profile)).unwrap();
        let pattern = schema["pattern"].as_str().unwrap();
        let re = regex::Regex::new(pattern).unwrap();
        for default in Profile::all() {
            for p in Profile::all() {
                let text = p.written_against(default);
                assert!(re.is_match(&text), "{text} against {pattern}");
                assert!(re.is_match(&p.explicit()), "{}", p.explicit());
            }
        }
        for bad in [
            "",
            "sideways",
            "origin=maybe",
            "skip-origin,",
            "skip-origin, strict-lock",
        ] {
            assert!(!re.is_match(bad), "{bad:?}");
        }
        for row in READINGS {
            assert!(pattern.contains(row.switch), "{pattern}");
            for value in row.values {
                assert!(pattern.contains(value), "{pattern}");
            }
            let description = schema["description"].as_str().unwrap();
            assert!(description.contains(&format!("{} ({})", row.switch, row.id)));
        }
    }
}
