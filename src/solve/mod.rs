//! Kpé solved: the margin best play forces from every position after the
//! opening lock, by retrograde analysis (spec/SOLVE.md).
//!
//! Once both players' captures are unlocked, what follows depends only on
//! the board and the player to move, and a capture only lowers the stones
//! on the board. So the states are solved layer by layer, fewest stones
//! first ([`solve`]), each layer from the ones below, and stored one byte of
//! value and one of depth per state in a file per layer ([`file`]). A
//! [`Table`] looks positions up; [`analyse`] gives the value, the best moves
//! and a line of best play, searching down to the table for positions it
//! does not cover.
//!
//! ```
//! use kpe::solve::{Budget, Class, Table, analyse};
//! use kpe::Position;
//!
//! // The chase: one stone each, four pits apart. Neither player can ever
//! // capture, so best play goes round for ever and is worth 0 (endless).
//! // The default's class: its readings with no repetition rule, which no
//! // table covers (the default itself unless it ends games on repetition).
//! let table = Table::in_memory(Class::DEFAULT, 4);
//! let chase: Position = "1,0,0,0/1,0,0,0 S 22/24 1234/1234".parse()?;
//! let rules = Class::DEFAULT.profile();
//! let value = analyse(&table, &chase, rules, Budget::default())?;
//! assert_eq!((value.margin, value.endless), (Some(0), true));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod analysis;
mod build;
mod class;
mod entry;
pub mod file;
mod layer;
mod memo;
mod moves;
mod opening;
pub mod opening_file;
mod perfect;
mod rank;
mod solved;
mod table;

pub use analysis::{
    Analysis, BestLine, Budget, LineEnd, MAX_LINE, ValueError, ValueSource, analyse, choose,
    exact_values,
};
pub use build::{
    LayerReport, OpeningReport, SolveLock, SolveOptions, default_dir, lock, solve, solve_openings,
};
pub use class::{Class, NotCovered};
pub use file::TableError;
pub use layer::LayerStats;
pub use opening::{Potential, TICK};
pub use opening_file::{OpeningFile, OpeningSummary};
pub use perfect::{Perfect, SEARCH_TIME};
pub use rank::{layer_size, next, rank, turn, unrank};
pub use solved::{
    GameValue, SOLVED_FILE, SOLVED_VERSION, parse as parse_solved, solved, value_of_the_game,
};
pub use table::{Entry, MoveValue, Table};

/// The environment variable that names the folder of the solved tables,
/// before the user's cache folder ([`tables_dir`]).
pub const TABLES_ENV: &str = "KPE_TABLES";

/// The folder `kpe solve` writes its tables to, and `kpe value` and `kpe
/// engine --perfect` read them from, when `--dir` is not given: the
/// folder [`TABLES_ENV`] names; else the user's cache folder,
/// `$XDG_CACHE_HOME/kpe` (an absolute `XDG_CACHE_HOME`, as the XDG base
/// directory specification asks), else `$HOME/.cache/kpe` (on Windows
/// `%LOCALAPPDATA%\kpe`); else, with none of these set, `kpe-tables` in
/// the current folder. `var` reads an environment variable
/// (`std::env::var_os`); an empty value counts as unset.
#[must_use]
pub fn tables_dir(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> std::path::PathBuf {
    use std::path::PathBuf;
    let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = set(TABLES_ENV) {
        return dir;
    }
    if let Some(cache) = set("XDG_CACHE_HOME").filter(|p| p.is_absolute()) {
        return cache.join("kpe");
    }
    if cfg!(windows)
        && let Some(local) = set("LOCALAPPDATA")
    {
        return local.join("kpe");
    }
    if let Some(home) = set("HOME") {
        return home.join(".cache").join("kpe");
    }
    PathBuf::from("kpe-tables")
}

/// Serialises a value by its `Display`.
fn serialize_display<T: std::fmt::Display, S: serde::Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}
