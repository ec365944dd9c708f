//! Building a table layer by layer, writing each layer as it is finished
//! and taking up the finished ones again after an interruption.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::class::Class;
use super::file::{self, LayerData, TableError};
use super::layer::{self, LayerStats};
use super::rank::layer_size;
use crate::board::TOTAL_STONES;

/// The most stones one move captures: four pits of 4 (CAP-1, CAP-2).
pub(crate) const MAX_CAPTURE: u8 = 16;

/// What `kpe solve` is asked to do.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// The class to solve.
    pub class: Class,
    /// Solve the layers of 0, 2, .. up to this many stones.
    pub max_stones: u8,
    /// Where the layer files go: `DIR/<class>/layer-NN.kpet`.
    pub dir: PathBuf,
}

/// One layer, solved now or found finished.
#[derive(Clone, Debug)]
pub struct LayerReport {
    /// Stones on the board.
    pub stones: u8,
    /// States in the layer.
    pub states: u64,
    /// The layer file.
    pub path: PathBuf,
    /// The figures of the solve, `None` when the file was already there
    /// (and has been checked).
    pub solved: Option<LayerStats>,
    /// Time since the build started.
    pub elapsed: Duration,
    /// States of the layers still to solve after this one.
    pub states_left: u64,
    /// States solved so far in this run.
    pub states_done: u64,
}

impl LayerReport {
    /// The estimated time left: the time per state so far, times the states
    /// left; `None` before any layer was solved in this run.
    #[must_use]
    pub fn eta(&self) -> Option<Duration> {
        if self.states_done == 0 {
            return None;
        }
        Some(
            self.elapsed
                .mul_f64(self.states_left as f64 / self.states_done as f64),
        )
    }
}

/// The layers up to `max_stones`: 0, 2, 4, ... Only even layers are
/// reachable: 48 stones less even captured totals, as every capture size
/// is even (CAP-1, CAP-2: `board::CAPTURE_SIZES`), which also keeps every
/// margin even (src/solve/entry.rs).
pub(crate) fn layers(max_stones: u8) -> impl Iterator<Item = u8> {
    const _: () = assert!(
        crate::board::CAPTURES_ARE_EVEN,
        "the solver's layers and value bytes need even captures"
    );
    (0..=max_stones.min(TOTAL_STONES)).step_by(2)
}

/// Solves every layer of `options.class` up to `options.max_stones`, lowest
/// first, writing each to its file; a layer whose file is already there is
/// checked and kept, so an interrupted build resumes after its last
/// finished layer. `report` hears of each layer when done, `progress` of
/// the states dealt with inside one.
///
/// # Errors
///
/// A [`TableError`] when a layer file that is there is refused (it is
/// never overwritten: remove it to solve it again), or a file cannot be
/// written.
pub fn solve(
    options: &SolveOptions,
    progress: &(dyn Fn(u64) + Sync),
    report: &mut dyn FnMut(&LayerReport),
) -> Result<Vec<LayerReport>, TableError> {
    let started = Instant::now();
    let profile = options.class.profile();
    let mut below: Vec<Option<Vec<u8>>> = vec![None; usize::from(TOTAL_STONES) + 1];
    let mut done = Vec::new();
    let todo: Vec<u8> = layers(options.max_stones)
        .filter(|&s| !file::layer_path(&options.dir, options.class, s).exists())
        .collect();
    let mut states_left: u64 = todo.iter().map(|&s| layer_size(s)).sum();
    let mut states_done = 0;
    for stones in layers(options.max_stones) {
        let path = file::layer_path(&options.dir, options.class, stones);
        let (data, solved) = if todo.contains(&stones) {
            let solved = layer::solve(stones, profile, &below, progress);
            let data = LayerData {
                values: solved.values,
                depths: solved.depths,
            };
            file::write(&options.dir, options.class, stones, &data)?;
            states_left -= layer_size(stones);
            states_done += layer_size(stones);
            (data, Some(solved.stats))
        } else {
            (file::read(&options.dir, options.class, stones)?, None)
        };
        below[usize::from(stones)] = Some(data.values);
        // Only the layers one capture can reach stay in memory.
        if let Some(old) = stones.checked_sub(MAX_CAPTURE) {
            below[usize::from(old)] = None;
        }
        let layer = LayerReport {
            stones,
            states: layer_size(stones),
            path,
            solved,
            elapsed: started.elapsed(),
            states_left,
            states_done,
        };
        report(&layer);
        done.push(layer);
    }
    Ok(done)
}

/// Solves the layers up to `max_stones` in memory, with no files: for
/// small tables (tests, `kpe dispute`).
pub(crate) fn solve_in_memory(class: Class, max_stones: u8) -> Vec<Option<LayerData>> {
    let mut below: Vec<Option<Vec<u8>>> = vec![None; usize::from(TOTAL_STONES) + 1];
    let mut out = vec![None; usize::from(TOTAL_STONES) + 1];
    for stones in layers(max_stones) {
        let solved = layer::solve(stones, class.profile(), &below, &|_| {});
        below[usize::from(stones)] = Some(solved.values.clone());
        out[usize::from(stones)] = Some(LayerData {
            values: solved.values,
            depths: solved.depths,
        });
    }
    out
}

/// The directory `kpe solve` and `kpe value` use when none is given.
#[must_use]
pub fn default_dir() -> &'static Path {
    Path::new("kpe-tables")
}
