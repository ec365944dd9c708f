//! A solved table: looking positions up, and the value of every move.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::build::{layers, solve_in_memory};
use super::class::Class;
use super::entry;
use super::file::{self, LayerData, TableError};
use super::moves::state_of;
use super::opening::{Known, State};
use super::opening_file::OpeningFile;
use super::rank::rank;
use crate::board::{PITS, Pit, Player, TOTAL_STONES};
use crate::position::Position;
use crate::profile::{Profile, Switch};

/// What the table says of one position after the lock: the margin its
/// mover can force from here on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Entry {
    /// The stones the mover gets from here on minus the opponent's:
    /// captures still to come plus the end sweep (END-2), with play that
    /// never ends adding nothing.
    pub margin: i8,
    /// The 0 holds only by play that never captures again: one player can
    /// keep it only by going round for ever.
    pub endless: bool,
    /// Plies until a capture or the end with best play (the winner hurrying,
    /// the loser holding out), at most 1022 (1022 or more); 1023 for an
    /// endless 0.
    pub depth: u16,
}

/// Where the layers come from.
#[derive(Clone, Debug)]
enum Source {
    /// Layer files under this directory, read when first needed.
    Files(PathBuf),
    /// Solved in memory.
    Memory,
}

/// A table of one class: the layers of 0, 2, .. up to [`Table::max_stones`]
/// stones.
#[derive(Debug)]
pub struct Table {
    class: Class,
    source: Source,
    max_stones: Option<u8>,
    layers: Mutex<Vec<Option<Arc<LayerData>>>>,
    /// The opening files, by `strict-lock` off and on, once looked for.
    openings: Mutex<[Option<Option<Arc<OpeningFile>>>; 2]>,
}

impl Table {
    /// The table of `class` under `dir` (`DIR/<class>/layer-NN.kpet`). It
    /// covers the layers from 0 stones up to the highest one there; files
    /// are read, and checked, when first needed. Anything at a layer's path
    /// counts as there (a broken link, a FIFO), to be refused with its
    /// reason when read, never taken for the end of the table.
    ///
    /// # Errors
    ///
    /// [`TableError::Gap`] when a layer below the highest one is missing.
    pub fn open(dir: &Path, class: Class) -> Result<Table, TableError> {
        let there: Vec<u8> = layers(TOTAL_STONES)
            .filter(|&s| file::present(&file::layer_path(dir, class, s)))
            .collect();
        let max_stones = there.last().copied();
        if let Some(top) = max_stones
            && let Some(missing) = layers(top).find(|s| !there.contains(s))
        {
            return Err(TableError::Gap {
                missing: file::layer_path(dir, class, missing),
                above: file::layer_path(dir, class, top),
            });
        }
        Ok(Table {
            class,
            source: Source::Files(dir.to_path_buf()),
            max_stones,
            layers: Mutex::new(vec![None; usize::from(TOTAL_STONES) + 1]),
            openings: Mutex::new([None, None]),
        })
    }

    /// Solves the layers of `class` up to `max_stones` in memory (seconds
    /// up to about 16 stones in a release build).
    #[must_use]
    pub fn in_memory(class: Class, max_stones: u8) -> Table {
        let layers = solve_in_memory(class, max_stones)
            .into_iter()
            .map(|layer| layer.map(Arc::new))
            .collect();
        Table {
            class,
            source: Source::Memory,
            max_stones: Some(max_stones.min(TOTAL_STONES) & !1),
            layers: Mutex::new(layers),
            openings: Mutex::new([None, None]),
        }
    }

    /// The class the table was solved for.
    #[must_use]
    pub const fn class(&self) -> Class {
        self.class
    }

    /// The most stones on the board of a covered position; `None` for a
    /// table with no layer at all.
    #[must_use]
    pub const fn max_stones(&self) -> Option<u8> {
        self.max_stones
    }

    /// The directory of the layer files, if the table has files.
    #[must_use]
    pub fn dir(&self) -> Option<&Path> {
        match &self.source {
            Source::Files(dir) => Some(dir),
            Source::Memory => None,
        }
    }

    /// Whether the table has the position: both locks open and no more
    /// stones on the board than it covers.
    #[must_use]
    pub fn covers(&self, position: &Position) -> bool {
        Player::BOTH.iter().all(|&p| position.lock_open(p))
            && self
                .max_stones
                .is_some_and(|m| position.board_stones() <= m)
    }

    fn layer(&self, stones: u8) -> Result<Arc<LayerData>, TableError> {
        let mut layers = self.layers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(layer) = &layers[usize::from(stones)] {
            return Ok(Arc::clone(layer));
        }
        let Source::Files(dir) = &self.source else {
            return Err(TableError::Missing {
                path: PathBuf::from("(in memory)"),
                stones,
            });
        };
        let layer = Arc::new(file::read(dir, self.class, stones)?);
        layers[usize::from(stones)] = Some(Arc::clone(&layer));
        Ok(layer)
    }

    /// The table's entry for `position`, which it must cover
    /// ([`Table::covers`]).
    ///
    /// # Errors
    ///
    /// A [`TableError`] when the layer's file is missing or refused; a
    /// position the table does not cover is [`TableError::Missing`] too.
    pub fn entry(&self, position: &Position) -> Result<Entry, TableError> {
        let stones = position.board_stones();
        if !self.covers(position) {
            let path = match &self.source {
                Source::Files(dir) => file::layer_path(dir, self.class, stones),
                Source::Memory => PathBuf::from("(in memory)"),
            };
            return Err(TableError::Missing { path, stones });
        }
        let layer = self.layer(stones)?;
        let i = rank(&state_of(position)) as usize;
        let byte = layer.values[i];
        Ok(Entry {
            margin: entry::margin(byte),
            endless: entry::endless(byte),
            depth: layer.depths[i],
        })
    }
}

impl Table {
    /// The opening file of `profile` (one of the two the class covers),
    /// opened and checked when first asked for; `None` when there is none
    /// (or the table is in memory).
    ///
    /// # Errors
    ///
    /// A [`TableError`] when the file is there but refused.
    pub fn opening(&self, profile: Profile) -> Result<Option<Arc<OpeningFile>>, TableError> {
        let Source::Files(dir) = &self.source else {
            return Ok(None);
        };
        let slot = usize::from(profile.has(Switch::StrictLock));
        let mut openings = self.openings.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = &openings[slot] {
            return Ok(known.clone());
        }
        let opened = OpeningFile::open(dir, self.class, profile)?.map(Arc::new);
        openings[slot] = Some(opened.clone());
        Ok(opened)
    }
}

/// The values the opening search stands on: this table after the lock,
/// and an opening file before it, if there is one.
pub(crate) struct TableKnown<'a> {
    pub table: &'a Table,
    pub opening: Option<Arc<OpeningFile>>,
}

impl Known for TableKnown<'_> {
    fn after_lock(&self, board: &[u8; PITS]) -> Result<i8, TableError> {
        let state = State {
            board: *board,
            used: [0b1111; 2],
        };
        Ok(self.table.entry(&state.position())?.margin)
    }

    fn before_lock(&self, key: u64) -> Result<Option<i8>, TableError> {
        match &self.opening {
            Some(file) => file.get(key),
            None => Ok(None),
        }
    }
}

/// A move and what it is worth to the mover with best play after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct MoveValue {
    /// The pit played.
    #[serde(rename = "move")]
    pub pit: Pit,
    /// Stones it captures.
    pub captures: u8,
    /// The margin it gives the mover: its captures minus the margin of the
    /// opponent after it. `None` when the search could only bound it.
    pub margin: Option<i8>,
    /// The lowest and highest margin it can give (equal when exact).
    pub bounds: [i8; 2],
    /// The table entry after the move, when the table covers it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Entry>,
}
