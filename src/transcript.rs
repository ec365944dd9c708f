//! The transcript format: what an engine writes about the games it played
//! (spec/TRANSCRIPT.md). Plain serde data; the JSON Schema in
//! `spec/transcript.schema.json` is generated from these types.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::board::{PITS, Pit, Player, ROW};
use crate::position::{Position, PositionError, Setup};
use crate::profile::Profile;
use crate::report::Capture;

/// The value of a transcript's top-level `format` field.
pub const FORMAT: &str = "kpe-transcript";
/// The transcript format version this build reads and writes.
pub const VERSION: u32 = 1;

/// A whole transcript: the header and every game.
///
/// `kpe-check` does not read a transcript into this type (that would hold
/// every game in memory); it streams the same fields one game at a time,
/// in whatever order they come.
/// The type is the format's definition: the JSON Schema is generated from
/// it, and engines written in Rust can serialise it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "kpe transcript",
    description = "Games an engine played, with what the engine claimed at every ply (spec/TRANSCRIPT.md). Fields may come in any order."
)]
#[schemars(extend("$id" = "urn:kpe:schema:transcript:1"))]
pub struct Transcript {
    /// Always `kpe-transcript`.
    pub format: TranscriptFormat,
    /// The format version: 1.
    #[schemars(range(min = 1, max = 1))]
    pub version: u32,
    /// The engine that played the games.
    pub engine: Engine,
    /// The rules profile the engine claims to follow; absent means
    /// `default`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "fast::some"
    )]
    #[schemars(with = "Profile")]
    pub profile: Option<Profile>,
    /// The games, in any number; each is checked on its own.
    pub games: Vec<TranscriptGame>,
}

/// The format name, a single value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum TranscriptFormat {
    /// `kpe-transcript`.
    #[serde(rename = "kpe-transcript")]
    Transcript,
}

/// The engine that wrote a transcript.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Engine {
    /// Its name, e.g. `kpe-js`.
    pub name: String,
    /// Its version, free text, e.g. `0.3.1`.
    pub version: String,
}

/// An object only: serde's derived reader would also take a list
/// (`"engine": ["e", "1"]`) as the fields in order, which the format does
/// not allow (spec/TRANSCRIPT.md).
impl<'de> Deserialize<'de> for Engine {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Engine, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Fields {
            name: String,
            version: String,
        }
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Engine;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(r#"an object {"name": ..., "version": ...}"#)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Engine, A::Error> {
                let Fields { name, version } =
                    Fields::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(Engine { name, version })
            }
        }
        d.deserialize_map(V)
    }
}

/// One game: where it started and every ply played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TranscriptGame {
    /// A name for the game in reports, unique in the file (e.g. `g17` or a
    /// seed).
    pub id: String,
    /// The start position in kpe notation; absent means the initial
    /// position. It must be a position some game could reach.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "fast::some"
    )]
    #[schemars(with = "Position")]
    pub start: Option<Position>,
    /// The plies in the order they were played.
    pub plies: Vec<Ply>,
}

/// One ply: the move and what the engine claims about it.
///
/// Only `move` and `after` are required; every other field that is present
/// is checked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ply {
    /// The pit moved from: `S1`..`S4` or `N1`..`N4`.
    #[serde(rename = "move", deserialize_with = "fast::pit")]
    pub mv: Pit,
    /// The position after the move, before any end-of-game sweep.
    pub after: Notation,
    /// The legal moves before the move, in any order (empty if the engine
    /// thinks the game is over).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "fast::pits"
    )]
    #[schemars(with = "Vec<Pit>", length(max = 8))]
    pub legal: Option<Vec<Pit>>,
    /// The pits the move captured and how many stones each held, in any
    /// order; `[]` for no capture.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "fast::captures"
    )]
    #[schemars(with = "Vec<Capture>", length(max = 8))]
    pub captures: Option<Vec<Capture>>,
    /// Whether the game is over after the move.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "fast::some"
    )]
    #[schemars(with = "bool")]
    pub game_over: Option<bool>,
    /// The final totals, South then North, after the end sweep; only with
    /// `"game_over": true`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "fast::totals"
    )]
    #[schemars(with = "[u8; 2]")]
    pub totals: Option<[u8; 2]>,
}

impl Ply {
    /// A ply that claims only the position after `mv`.
    #[must_use]
    pub fn new(mv: Pit, after: &Position) -> Ply {
        Ply {
            mv,
            after: Notation::from(after),
            legal: None,
            captures: None,
            game_over: None,
            totals: None,
        }
    }
}

/// A position as an engine wrote it: notation with the right shape (see
/// `spec/NOTATION.md`), but not necessarily a position any game could reach.
/// A claim such as "South captured 2 while still locked" is worth reporting
/// as a divergence rather than refusing the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Notation {
    pits: [u32; PITS],
    captured: [u32; 2],
    to_move: Player,
    used: [[bool; ROW]; 2],
}

impl Notation {
    /// The plain data, unvalidated.
    #[must_use]
    pub fn setup(&self) -> Setup {
        Setup {
            pits: self.pits.to_vec(),
            captured: self.captured,
            to_move: self.to_move,
            used: self.used,
        }
    }

    /// The position, if some game could reach it.
    ///
    /// # Errors
    ///
    /// The [`PositionError`] that makes it impossible.
    pub fn position(&self) -> Result<Position, PositionError> {
        Position::from_setup(&self.setup())
    }

    /// Whether this is exactly `position`.
    #[must_use]
    pub fn is(&self, position: &Position) -> bool {
        self.to_move == position.to_move()
            && Pit::ALL
                .iter()
                .all(|&p| self.pits[p.index()] == u32::from(position.stones(p)))
            && Player::BOTH.iter().all(|&pl| {
                self.captured[pl.index()] == u32::from(position.captured(pl))
                    && pl.pits().iter().all(|&p| {
                        self.used[pl.index()][usize::from(p.number()) - 1] == position.has_used(p)
                    })
            })
    }

    fn from_setup(setup: &Setup) -> Option<Notation> {
        Some(Notation {
            pits: setup.pits.as_slice().try_into().ok()?,
            captured: setup.captured,
            to_move: setup.to_move,
            used: setup.used,
        })
    }
}

impl From<&Position> for Notation {
    fn from(position: &Position) -> Notation {
        Notation::from_setup(&position.to_setup()).expect("a position has 8 pits")
    }
}

impl std::str::FromStr for Notation {
    type Err = PositionError;

    /// Reads the notation's shape only (see [`Setup`]).
    fn from_str(text: &str) -> Result<Notation, PositionError> {
        if let Some(n) = fast::notation(text.as_bytes()) {
            return Ok(n);
        }
        // Anything but the plain canonical text: the library's reader says
        // what is wrong, and where.
        let setup: Setup = text.parse()?;
        Notation::from_setup(&setup).ok_or(PositionError::PitCount {
            found: setup.pits.len(),
        })
    }
}

impl fmt::Display for Notation {
    /// The notation, exactly as it was read (the notation is canonical).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, n) in self.pits.iter().enumerate() {
            let sep = match i {
                0 => "",
                ROW => "/",
                _ => ",",
            };
            write!(f, "{sep}{n}")?;
        }
        write!(
            f,
            " {} {}/{} ",
            self.to_move.letter(),
            self.captured[0],
            self.captured[1]
        )?;
        for (k, used) in self.used.iter().enumerate() {
            if k > 0 {
                f.write_str("/")?;
            }
            for (i, &u) in used.iter().enumerate() {
                if u {
                    write!(f, "{}", i + 1)?;
                } else {
                    f.write_str("-")?;
                }
            }
        }
        Ok(())
    }
}

impl Serialize for Notation {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Notation {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Notation, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Notation;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a position in kpe notation")
            }
            // Borrowed from the parser's buffer: no allocation per ply.
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Notation, E> {
                text.parse()
                    .map_err(|e| E::custom(format_args!("bad position notation: {e}")))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

impl schemars::JsonSchema for Notation {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        Position::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Position::json_schema(generator)
    }
}

/// The canonical notation at a place in a transcript's bytes, read
/// without allocating.
pub(crate) use fast::notation_at;

pub(crate) use fast::MAX_LISTED;

/// Reading plies without allocating: a million plies a second is the aim.
mod fast {
    use std::fmt;

    use serde::Deserialize;
    use serde::de::{self, Deserializer, SeqAccess, Visitor};

    use super::Notation;
    use crate::board::{PITS, Pit, Player};
    use crate::report::Capture;

    /// The canonical notation, read without allocating; `None` for
    /// anything else, which the library's reader then explains.
    pub(super) fn notation(text: &[u8]) -> Option<Notation> {
        notation_at(text, 0).and_then(|(n, end)| (end == text.len()).then_some(n))
    }

    /// The canonical notation at `at` in `bytes`, and where it ends (what
    /// follows is not looked at); `None` if none starts there.
    pub(crate) fn notation_at(bytes: &[u8], mut at: usize) -> Option<(Notation, usize)> {
        const AFTER_PIT: [u8; PITS] = [b',', b',', b',', b'/', b',', b',', b',', b' '];
        let mut pits = [0; PITS];
        for (pit, sep) in pits.iter_mut().zip(AFTER_PIT) {
            (*pit, at) = number_then(bytes, at, sep)?;
        }
        let to_move = match bytes.get(at)? {
            b'S' => Player::South,
            b'N' => Player::North,
            _ => return None,
        };
        at = literal(bytes, at + 1, b' ')?;
        let (south, at) = number_then(bytes, at, b'/')?;
        let (north, at) = number_then(bytes, at, b' ')?;
        // `1234/1234` with `-` for each pit not used yet.
        let used: &[u8; 9] = bytes.get(at..at + 9)?.try_into().ok()?;
        if used[4] != b'/' {
            return None;
        }
        let mut rows = [[false; 4]; 2];
        for (row, marks) in rows.iter_mut().zip([&used[..4], &used[5..]]) {
            for ((slot, &mark), digit) in row.iter_mut().zip(marks).zip(b'1'..) {
                *slot = match mark {
                    b'-' => false,
                    c if c == digit => true,
                    _ => return None,
                };
            }
        }
        let notation = Notation {
            pits,
            captured: [south, north],
            to_move,
            used: rows,
        };
        Some((notation, at + 9))
    }

    /// A number of one to three digits, without a leading zero, at `at`,
    /// then the byte `sep` (not a digit); the number and where `sep` ends.
    #[inline]
    fn number_then(text: &[u8], at: usize, sep: u8) -> Option<(u32, usize)> {
        let digit = |k: usize| {
            text.get(at + k)
                .map(|b| b.wrapping_sub(b'0'))
                .filter(|&d| d <= 9)
                .map(u32::from)
        };
        let first = digit(0)?;
        if text.get(at + 1) == Some(&sep) {
            return Some((first, at + 2));
        }
        let second = digit(1).filter(|_| first != 0)?;
        if text.get(at + 2) == Some(&sep) {
            return Some((first * 10 + second, at + 3));
        }
        let third = digit(2)?;
        (text.get(at + 3) == Some(&sep)).then_some((first * 100 + second * 10 + third, at + 4))
    }

    /// Just past the byte `c` at `at`.
    fn literal(text: &[u8], at: usize, c: u8) -> Option<usize> {
        (text.get(at) == Some(&c)).then_some(at + 1)
    }

    /// A pit name, read from the parser's buffer.
    struct PitName(Pit);

    impl<'de> Deserialize<'de> for PitName {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PitName, D::Error> {
            struct V;
            impl Visitor<'_> for V {
                type Value = PitName;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a pit name, S1..S4 or N1..N4")
                }
                fn visit_str<E: de::Error>(self, s: &str) -> Result<PitName, E> {
                    s.parse().map(PitName).map_err(E::custom)
                }
            }
            d.deserialize_str(V)
        }
    }

    /// `totals`: two numbers, South's then North's; a list of another
    /// length is named as such (serde's array reader would say `trailing
    /// characters` of a third).
    pub(super) fn totals<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[u8; 2]>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = [u8; 2];
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("two numbers, [South, North]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[u8; 2], A::Error> {
                let short = |n| {
                    de::Error::custom(format!(
                        "`totals` has {n} number{}; expected 2, [South, North]",
                        if n == 1 { "" } else { "s" }
                    ))
                };
                let south = seq.next_element()?.ok_or_else(|| short(0))?;
                let north = seq.next_element()?.ok_or_else(|| short(1))?;
                let mut n = 2;
                while seq.next_element::<de::IgnoredAny>()?.is_some() {
                    n += 1;
                }
                if n > 2 {
                    return Err(short(n));
                }
                Ok([south, north])
            }
        }
        d.deserialize_seq(V).map(Some)
    }

    /// An optional field that, when present, must hold a value (`null` is
    /// not a way to leave it out).
    pub(super) fn some<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        T::deserialize(d).map(Some)
    }

    pub(super) fn pit<'de, D: Deserializer<'de>>(d: D) -> Result<Pit, D::Error> {
        PitName::deserialize(d).map(|p| p.0)
    }

    /// The longest list of pits a ply can name: the board's 8 pits. A ply
    /// has at most 4 legal moves and captures at most 4 pits, so a longer
    /// list repeats a pit; reading stops there, whatever the list's length.
    pub(crate) const MAX_LISTED: usize = PITS;

    fn too_many<E: de::Error>(what: &str) -> E {
        E::custom(format_args!(
            "more than {MAX_LISTED} {what}: a ply has at most 4 legal moves and captures at \
             most 4 pits, and the board has {MAX_LISTED} pits"
        ))
    }

    pub(super) fn pits<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Pit>>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Vec<Pit>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of pit names")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Pit>, A::Error> {
                let mut pits = Vec::with_capacity(4);
                while let Some(PitName(p)) = seq.next_element()? {
                    if pits.len() == MAX_LISTED {
                        return Err(too_many("legal moves"));
                    }
                    pits.push(p);
                }
                Ok(pits)
            }
        }
        d.deserialize_seq(V).map(Some)
    }

    /// A capture as written in a transcript.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct CaptureIn {
        pit: PitName,
        stones: u8,
    }

    pub(super) fn captures<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Vec<Capture>>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Vec<Capture>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of captures")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Capture>, A::Error> {
                let mut captures = Vec::with_capacity(4);
                while let Some(c) = seq.next_element::<CaptureIn>()? {
                    if captures.len() == MAX_LISTED {
                        return Err(too_many("captures"));
                    }
                    captures.push(Capture {
                        pit: c.pit.0,
                        stones: c.stones,
                    });
                }
                Ok(captures)
            }
        }
        d.deserialize_seq(V).map(Some)
    }
}

/// The JSON Schema of the transcript format, as committed in
/// `spec/transcript.schema.json`.
#[must_use]
pub fn transcript_schema() -> String {
    let schema = schemars::schema_for!(Transcript);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema serialises");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_prints_as_read_and_compares_without_validating() {
        for text in [
            "6,6,6,6/6,6,6,6 S 0/0 ----/----",
            "0,7,7,7/7,7,7,6 N 0/0 1---/----",
            "6,6,6,6/6,6,6,4 S 2/0 ----/----", // impossible, but readable
        ] {
            let n: Notation = text.parse().unwrap();
            assert_eq!(n.to_string(), text);
        }
        let p = Position::initial();
        assert!(Notation::from(&p).is(&p));
        let n: Notation = "6,6,6,6/6,6,6,6 N 0/0 ----/----".parse().unwrap();
        assert!(!n.is(&p));
        let n: Notation = "6,6,6,6/6,6,6,4 S 2/0 ----/----".parse().unwrap();
        assert_eq!(n.position().unwrap_err().code(), "captured-while-locked");
    }

    proptest::proptest! {
        #[test]
        fn the_fast_reader_agrees_with_the_library(
            text in "(0|00|[1-9][0-9]{0,3})(,[0-9]{1,2}){3}[/,][0-9]{1,2}(,[0-9]{1,2}){3} [SNs] [0-9]{1,2}/[0-9]{1,3} [1-][2-][3-][4-]/[1-][2-][34-][4-] ?",
        ) {
            let library = text.parse::<Setup>().ok().and_then(|s| Notation::from_setup(&s));
            proptest::prop_assert_eq!(fast::notation(text.as_bytes()), library);
        }
    }
}
