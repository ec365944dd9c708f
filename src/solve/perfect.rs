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

    fn table(&self, class: Class) -> Result<std::sync::Arc<Table>, String> {
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(table) = tables.get(&class) {
            return Ok(std::sync::Arc::clone(table));
        }
        let table = std::sync::Arc::new(Table::open(&self.dir, class).map_err(|e| e.to_string())?);
        tables.insert(class, std::sync::Arc::clone(&table));
        Ok(table)
    }

    /// The move to play in `position` under `profile`, and the margin it
    /// keeps. From the table when it covers the position (the winner takes
    /// the shortest way to a capture or the end, so it cannot be held off
    /// by going round); before the lock, from the opening (the opening
    /// file, or an exact search of at most [`SEARCH_TIME`] down to the
    /// table). A move is never played from bounds: a position whose value
    /// is not found exactly is an error.
    ///
    /// # Errors
    ///
    /// What is wrong, for people: the game is over, the profile has no
    /// table, the table has no layer for the position, a layer file is
    /// missing or refused, or the exact search did not finish in time.
    pub fn best(&self, position: &Position, profile: Profile) -> Result<(Pit, Option<i8>), String> {
        if rules::legal_moves(position, profile).is_empty() {
            return Err(format!(
                "the game is over in `{position}`: there is no move to play"
            ));
        }
        let class = Class::of(profile).map_err(|e| e.to_string())?;
        let table = self.table(class)?;
        let enough = table
            .max_stones()
            .is_some_and(|m| position.board_stones() <= m);
        if !enough {
            return Err(format!(
                "no perfect play for `{position}`: the table of {class} in {} has {}; it needs the layers up to {} stones (build them with `kpe solve --rules {profile}`)",
                self.dir.display(),
                table
                    .max_stones()
                    .map_or("no layer".to_owned(), |m| format!(
                        "layers up to {m} stones"
                    )),
                position.board_stones()
            ));
        }
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
        let (Some(margin), Some(line)) = (analysis.margin, &analysis.line) else {
            return Err(format!(
                "no perfect play for `{position}`: its exact value was not found in {} s (no opening file for {profile}: build it with `kpe solve --rules {profile}`); a search gave bounds only",
                SEARCH_TIME.as_secs()
            ));
        };
        let pit = *line.moves.first().expect("a position with legal moves");
        Ok((pit, Some(margin)))
    }
}
