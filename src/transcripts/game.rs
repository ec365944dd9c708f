//! One game read from its span, its fields in any order, with serde or
//! the quick reader.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::position::Position;

use super::handler::{GameHandler, GameRead, NoGame, Pass};
use super::quick;
use super::scan::Span;
use crate::reporter::InputError;
use crate::transcript::Ply;

use super::span::{SpanReader, SpanSeed};

pub(super) struct GameRun<'h, H> {
    handler: &'h mut H,
    pass: Pass,
}

impl<H: GameHandler> SpanSeed for GameRun<'_, H> {
    type Value = Option<GameRead>;
    fn run<'de, D: de::Deserializer<'de>>(&mut self, d: D) -> Result<Option<GameRead>, D::Error> {
        d.deserialize_map(self)
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
pub(super) enum GameField {
    Id,
    Start,
    Plies,
}

impl<'de, H: GameHandler> Visitor<'de> for &mut GameRun<'_, H> {
    type Value = Option<GameRead>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a game: an object with id, start (optional) and plies")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<GameRead>, A::Error> {
        if let Pass::Second { id, start } = &self.pass {
            // Everything was read once: only the plies are left to check.
            while let Some(key) = map.next_key::<GameField>()? {
                if let GameField::Plies = key {
                    self.handler.begin(id, *start);
                    map.next_value_seed(PliesSeed(&mut *self.handler))?;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            return Ok(None);
        }
        let mut id: Option<String> = None;
        let mut start: Option<Position> = None;
        let mut plies_seen = false;
        let mut again = false;
        while let Some(key) = map.next_key::<GameField>()? {
            let duplicate = match key {
                GameField::Id => {
                    again |= plies_seen;
                    id.replace(map.next_value()?).is_some()
                }
                GameField::Start => {
                    again |= plies_seen;
                    start.replace(map.next_value()?).is_some()
                }
                GameField::Plies => {
                    if let Some(id) = &id {
                        self.handler
                            .begin(id, start.unwrap_or_else(Position::initial));
                        map.next_value_seed(PliesSeed(&mut *self.handler))?;
                    } else {
                        // Checked once `id` is known, in a second reading.
                        map.next_value_seed(PliesSeed(&mut NoGame))?;
                        again = true;
                    }
                    std::mem::replace(&mut plies_seen, true)
                }
            };
            if duplicate {
                let name = match key {
                    GameField::Id => "id",
                    GameField::Start => "start",
                    GameField::Plies => "plies",
                };
                return Err(de::Error::duplicate_field(name));
            }
        }
        let Some(id) = id else {
            return Err(de::Error::missing_field("id"));
        };
        if !plies_seen {
            return Err(de::Error::missing_field("plies"));
        }
        Ok(Some(GameRead {
            id,
            start: start.unwrap_or_else(Position::initial),
            again,
        }))
    }
}

pub(super) struct PliesSeed<'h, H>(&'h mut H);

impl<'de, H: GameHandler> DeserializeSeed<'de> for PliesSeed<'_, H> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, H: GameHandler> Visitor<'de> for PliesSeed<'_, H> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of plies")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut wanted = true;
        while let Some(ply) = seq.next_element_seed(PlySeed)? {
            if wanted {
                wanted = self.0.ply(&ply);
            }
        }
        Ok(())
    }
}

/// A ply, with the checks its fields need together.
pub(super) struct PlySeed;

impl<'de> DeserializeSeed<'de> for PlySeed {
    type Value = Ply;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Ply, D::Error> {
        let ply = Ply::deserialize(d)?;
        if ply.totals.is_some() && ply.game_over != Some(true) {
            return Err(de::Error::custom(
                "`totals` is given but not `\"game_over\": true`: final totals exist only once the game is over",
            ));
        }
        Ok(ply)
    }
}

/// Reads the game at `span`, giving its plies to `handler`; a game whose
/// fields need it is read twice. An error is located with its JSON path
/// by reading the game once more, with paths noted.
pub(super) fn run_game<H: GameHandler>(
    reader: &mut SpanReader,
    game: &GameAt<'_>,
    handler: &mut H,
) -> Result<(), InputError> {
    let (span, index) = (&game.span, game.index);
    // The plain shape, read fast; anything else (or bad input) is read
    // by serde below, which says what is wrong and where.
    let done = match game.bytes {
        Some(bytes) => quick_game(bytes, handler),
        None => reader
            .load(span)?
            .is_some_and(|bytes| quick_game(bytes, handler)),
    };
    if done {
        return Ok(());
    }
    if let Some(bytes) = game.bytes {
        reader.hold(span, bytes);
    }
    let prefix = format!("games[{index}]");
    let traced = |reader: &mut SpanReader, first: InputError| -> InputError {
        let mut run = GameRun {
            handler: &mut NoGame,
            pass: Pass::First,
        };
        match reader.parse(span, &prefix, &mut run, true) {
            Err(traced) => traced,
            Ok(_) => first,
        }
    };
    let mut run = GameRun {
        handler: &mut *handler,
        pass: Pass::First,
    };
    let read = match reader.parse(span, &prefix, &mut run, false) {
        Ok(read) => read.expect("the first reading returns what it found"),
        Err(e) => return Err(traced(reader, e)),
    };
    if read.again {
        let mut run = GameRun {
            handler,
            pass: Pass::Second {
                id: read.id,
                start: read.start,
            },
        };
        reader.parse(span, &prefix, &mut run, true)?;
    }
    Ok(())
}

/// Reads the game in `bytes` with serde alone, as [`run_game`] does when
/// the quick reader is unsure (for tests comparing the two).
#[cfg(test)]
pub(crate) fn serde_game<H: GameHandler>(
    bytes: &[u8],
    pass: Pass,
    handler: &mut H,
) -> Result<Option<GameRead>, serde_json::Error> {
    let mut run = GameRun { handler, pass };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let read = run.run(&mut de)?;
    de.end()?;
    Ok(read)
}

/// Reads a game of the plain shape with [`quick`]; false if it is not.
pub(super) fn quick_game<H: GameHandler>(bytes: &[u8], handler: &mut H) -> bool {
    quick_leading(bytes, handler)
        .is_some_and(|len| bytes[len..].iter().all(u8::is_ascii_whitespace))
}

/// Reads the game `bytes` start with, if it has the plain shape; its
/// length.
pub(super) fn quick_leading<H: GameHandler>(bytes: &[u8], handler: &mut H) -> Option<usize> {
    let Ok((Some(read), len)) = quick::leading(bytes, &Pass::First, handler) else {
        return None;
    };
    if !read.again {
        return Some(len);
    }
    let second = Pass::Second {
        id: read.id,
        start: read.start,
    };
    quick::game(&bytes[..len], &second, handler).ok()?;
    Some(len)
}

/// A game to check: its index, where it lies, and its bytes when the scan
/// kept them (else they are read from the file).
pub(crate) struct GameAt<'a> {
    pub(super) index: usize,
    pub(super) span: Span,
    pub(super) bytes: Option<&'a [u8]>,
}

/// Consecutive games read at once with their bytes, so that the file is
/// not read a second time.
pub(super) struct Batch {
    /// The index of its first game.
    pub(super) first: usize,
    pub(super) bytes: Vec<u8>,
    /// Each game's span and, when kept, where its bytes are in `bytes`.
    pub(super) games: Vec<(Span, Option<std::ops::Range<usize>>)>,
}

/// A batch takes games until it holds this many bytes or games.
pub(super) const BATCH_BYTES: usize = 256 * 1024;
pub(super) const BATCH_GAMES: usize = 512;

impl Batch {
    pub(super) fn games(&self) -> impl Iterator<Item = GameAt<'_>> {
        self.games
            .iter()
            .enumerate()
            .map(|(k, (span, range))| GameAt {
                index: self.first + k,
                span: *span,
                bytes: range.clone().map(|r| &self.bytes[r]),
            })
    }
}
