//! A perfect player: the move of best play from the tables, for `kpe
//! engine --perfect`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rustc_hash::FxHashMap;

use super::analysis::{Budget, analyse, choose};
use super::class::Class;
use super::table::Table;
use crate::board::Pit;
use crate::position::Position;
use crate::profile::Profile;
use crate::rules;

/// How long the player searches a position the table does not cover.
pub const SEARCH_TIME: Duration = Duration::from_secs(2);

/// Plays the moves of perfect play from the tables under one directory,
/// opening each class's table when first asked.
#[derive(Debug)]
pub struct Perfect {
    dir: PathBuf,
    tables: Mutex<FxHashMap<Class, std::sync::Arc<Table>>>,
}

impl Perfect {
    /// A player reading the tables under `dir`.
    #[must_use]
    pub fn new(dir: &Path) -> Perfect {
        Perfect {
            dir: dir.to_path_buf(),
            tables: Mutex::new(FxHashMap::default()),
        }
    }

    fn table(&self, class: Class) -> std::sync::Arc<Table> {
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        std::sync::Arc::clone(
            tables
                .entry(class)
                .or_insert_with(|| std::sync::Arc::new(Table::open(&self.dir, class))),
        )
    }

    /// The move to play in `position` under `profile`, and the margin it
    /// keeps when known. From the table when it covers the position (the
    /// winner takes the shortest way to a capture or the end, so it cannot
    /// be held off by going round); else the move with the best bounds of a
    /// search of [`SEARCH_TIME`] down to the table.
    ///
    /// # Errors
    ///
    /// What is wrong, for people: the game is over, the profile has no
    /// table, or a layer file is missing or refused.
    pub fn best(&self, position: &Position, profile: Profile) -> Result<(Pit, Option<i8>), String> {
        if rules::legal_moves(position, profile).is_empty() {
            return Err(format!(
                "the game is over in `{position}`: there is no move to play"
            ));
        }
        let class = Class::of(profile).map_err(|e| e.to_string())?;
        let table = self.table(class);
        if table.covers(position) {
            let chosen = choose(&table, position, profile).map_err(|e| e.to_string())?;
            let (pit, margin) = chosen.expect("a position with legal moves has a best one");
            return Ok((pit, Some(margin)));
        }
        let budget = Budget {
            time: SEARCH_TIME,
            ..Budget::default()
        };
        let analysis = analyse(&table, position, profile, budget).map_err(|e| e.to_string())?;
        let pick = analysis
            .moves
            .iter()
            .max_by_key(|m| (m.bounds[0], m.bounds[1], std::cmp::Reverse(m.pit)))
            .expect("a position with legal moves has one");
        Ok((pick.pit, analysis.margin))
    }
}
