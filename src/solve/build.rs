//! Building a table layer by layer, writing each layer as it is finished
//! and taking up the finished ones again after an interruption.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::class::Class;
use super::entry;
use super::file::{self, LayerData, TableError};
use super::layer::{self, LayerStats};
use super::memo::Sorted;
use super::opening::{Known, Opening, Stopped, solve_from};
use super::opening_file::{self, OpeningFile, OpeningSummary};
use super::rank::{layer_size, rank};
use crate::board::{PITS, TOTAL_STONES};
use crate::position::Position;
use crate::profile::Profile;
use crate::rules;

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
    let _lock = lock(&options.dir, options.class)?;
    let profile = options.class.profile();
    let mut below: Vec<Option<Vec<u8>>> = vec![None; usize::from(TOTAL_STONES) + 1];
    let mut done = Vec::new();
    let todo: Vec<u8> = layers(options.max_stones)
        .filter(|&s| !file::present(&file::layer_path(&options.dir, options.class, s)))
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

/// Holds the lock of a class folder while a solve writes it; released
/// when dropped (and by the system when the process dies).
#[derive(Debug)]
pub struct SolveLock {
    _file: fs::File,
}

/// Takes the lock of `DIR/<class>/` (the file `.kpe-solve.lock` in it,
/// locked with `flock`), so that two solves never write one table.
///
/// # Errors
///
/// [`TableError::Locked`] when another process holds it,
/// [`TableError::Io`] when the folder or the file cannot be made.
pub fn lock(dir: &Path, class: Class) -> Result<SolveLock, TableError> {
    let folder = file::class_dir(dir, class);
    let path = folder.join(".kpe-solve.lock");
    let io = |error| TableError::Io {
        path: path.clone(),
        error,
    };
    fs::create_dir_all(&folder).map_err(io)?;
    let lock = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io)?;
    match lock.try_lock() {
        Ok(()) => Ok(SolveLock { _file: lock }),
        Err(fs::TryLockError::WouldBlock) => Err(TableError::Locked { path }),
        Err(fs::TryLockError::Error(error)) => Err(io(error)),
    }
}

/// One opening, solved now or found finished.
#[derive(Clone, Debug)]
pub struct OpeningReport {
    /// The profile (one of the two the class covers).
    pub profile: Profile,
    /// The opening file.
    pub path: PathBuf,
    /// Its root's value and best moves, and its positions.
    pub summary: OpeningSummary,
    /// The time the solve took, `None` when the file was there (and has
    /// been checked).
    pub solved: Option<Duration>,
}

/// The post-lock values of every layer, as the opening search reads them.
struct Loaded(Vec<Option<Vec<u8>>>);

impl Known for Loaded {
    fn after_lock(&self, board: &[u8; PITS]) -> Result<i8, TableError> {
        let stones: u8 = board.iter().sum();
        let layer = self.0[usize::from(stones)]
            .as_ref()
            .expect("every layer is loaded before the opening");
        Ok(entry::margin(layer[rank(board) as usize]))
    }
}

/// The values of sorted opening entries, on top of loaded layers.
struct Entries<'a>(&'a Loaded, &'a Sorted);

impl Known for Entries<'_> {
    fn after_lock(&self, board: &[u8; PITS]) -> Result<i8, TableError> {
        self.0.after_lock(board)
    }

    fn before_lock(&self, key: u64) -> Result<Option<i8>, TableError> {
        Ok(self.1.get(key))
    }
}

/// Solves the openings of `class` (one for each profile it covers) on top
/// of its complete table (all layers up to 48 stones, which must be
/// there): the value of every position before the lock that play from the
/// initial position reaches, written to `opening-lock=<reading>.kpeo`. An
/// opening file that is there is checked and kept. With two threads or
/// more in rayon's pool, the openings still to solve are solved at once,
/// one a thread (each search is one thread's; each has a memo of its own).
/// `tick` hears of the positions valued so far (every [`TICK`] of them),
/// `report` of each opening when done.
///
/// # Errors
///
/// A [`TableError`] when a layer or an opening file is refused, or a file
/// cannot be written.
pub fn solve_openings(
    dir: &Path,
    class: Class,
    tick: &(dyn Fn(Profile, u64) + Sync),
    report: &(dyn Fn(&OpeningReport) + Sync),
) -> Result<Vec<OpeningReport>, TableError> {
    solve_openings_from(dir, class, &Position::initial(), tick, report)
}

/// [`solve_openings`] from `root` (the initial position, but for tests,
/// which start from a position with few stones on a small table).
pub(crate) fn solve_openings_from(
    dir: &Path,
    class: Class,
    root: &Position,
    tick: &(dyn Fn(Profile, u64) + Sync),
    report: &(dyn Fn(&OpeningReport) + Sync),
) -> Result<Vec<OpeningReport>, TableError> {
    let _lock = lock(dir, class)?;
    let mut done = Vec::new();
    let mut to_solve = Vec::new();
    for profile in class.covers() {
        if let Some(file) = OpeningFile::open_rooted(dir, class, profile, root)? {
            let r = OpeningReport {
                profile,
                path: file.path().to_path_buf(),
                summary: file.summary().clone(),
                solved: None,
            };
            report(&r);
            done.push(r);
        } else {
            to_solve.push(profile);
        }
    }
    if to_solve.is_empty() {
        return Ok(done);
    }
    let mut values = vec![None; usize::from(TOTAL_STONES) + 1];
    for stones in layers(root.board_stones()) {
        values[usize::from(stones)] = Some(file::read(dir, class, stones)?.values);
    }
    let known = Loaded(values);
    let solve_one = |profile: Profile| -> Result<OpeningReport, TableError> {
        let (entries, took) = match solve_from(root, profile, &known, &mut |n| {
            tick(profile, n);
            true
        }) {
            Ok(done) => done,
            Err(Stopped::Table(e)) => return Err(e),
            Err(Stopped::Asked) => unreachable!("the solve is never asked to stop"),
        };
        let summary = summary_of(root, profile, &Entries(&known, &entries))?;
        let summary = OpeningSummary {
            states: entries.len(),
            ..summary
        };
        let path = opening_file::write(dir, class, profile, &summary, || entries.iter())?;
        let r = OpeningReport {
            profile,
            path,
            summary,
            solved: Some(took),
        };
        report(&r);
        Ok(r)
    };
    let solved: Vec<Result<OpeningReport, TableError>> = if rayon::current_num_threads() >= 2 {
        // One search a thread: the pool's threads, not the scans' chunks.
        std::thread::scope(|scope| {
            let handles: Vec<_> = to_solve
                .iter()
                .map(|&profile| scope.spawn(move || solve_one(profile)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        })
    } else {
        to_solve.into_iter().map(solve_one).collect()
    };
    for r in solved {
        done.push(r?);
    }
    done.sort_by_key(|r| class.covers().iter().position(|&p| p == r.profile));
    Ok(done)
}

/// The value and best moves of `root` from values all known.
fn summary_of(
    root: &Position,
    profile: Profile,
    known: &dyn Known,
) -> Result<OpeningSummary, TableError> {
    let mut search = Opening::new(profile);
    let mut never = |_| true;
    let mut moves = Vec::new();
    for pit in rules::legal_moves(root, profile) {
        let (after, report) = rules::apply(root, pit, profile);
        let value = match search.value(&after, known, &mut never) {
            Ok(v) => v,
            Err(Stopped::Table(e)) => return Err(e),
            Err(Stopped::Asked) => unreachable!("never asked to stop"),
        };
        moves.push((pit, report.captured() as i8 - value));
    }
    let value = moves.iter().map(|&(_, v)| v).max().unwrap_or(0);
    Ok(OpeningSummary {
        root: *root,
        value,
        best: moves
            .iter()
            .filter(|&&(_, v)| v == value)
            .map(|&(p, _)| p)
            .collect(),
        states: 0,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Player;
    use crate::solve::analysis::exact_values;
    use crate::solve::opening::State;
    use crate::solve::table::Table;

    /// The opening of a 12-stone position before the lock (North has never
    /// used N4), solved on a table of files, as `kpe solve` solves the
    /// opening of the initial position on the full table.
    /// The openings of a class solved at once (a pool of two threads) and
    /// one after the other (a pool of one) write the same files, whichever
    /// finishes first; the reports come in the class's order either way.
    #[test]
    fn openings_solved_at_once_or_in_turn_write_the_same_files() {
        let class = Class::DEFAULT;
        let root: Position = "1,1,2,0/1,0,1,6 S 36/0 1234/123-".parse().unwrap();
        let solve_with = |threads: usize| {
            let dir = tempfile::tempdir().unwrap();
            let options = SolveOptions {
                class,
                max_stones: 12,
                dir: dir.path().to_path_buf(),
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let reports = pool.install(|| {
                assert_eq!(rayon::current_num_threads(), threads);
                solve(&options, &|_| {}, &mut |_| {}).unwrap();
                solve_openings_from(dir.path(), class, &root, &|_, _| {}, &|_| {}).unwrap()
            });
            let profiles: Vec<Profile> = reports.iter().map(|r| r.profile).collect();
            assert_eq!(profiles, class.covers(), "{threads} threads");
            let files: Vec<Vec<u8>> = reports.iter().map(|r| fs::read(&r.path).unwrap()).collect();
            (files, dir)
        };
        let (at_once, _a) = solve_with(2);
        let (in_turn, _b) = solve_with(1);
        assert_eq!(at_once, in_turn);
    }

    #[test]
    fn an_opening_is_solved_written_checked_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let class = Class::DEFAULT;
        let options = SolveOptions {
            class,
            max_stones: 12,
            dir: dir.path().to_path_buf(),
        };
        solve(&options, &|_| {}, &mut |_| {}).unwrap();
        let root: Position = "1,1,2,0/1,0,1,6 S 36/0 1234/123-".parse().unwrap();
        let reports = solve_openings_from(dir.path(), class, &root, &|_, _| {}, &|_| {}).unwrap();
        let memory = Table::in_memory(class, 12);
        for (report, profile) in reports.iter().zip(class.covers()) {
            assert_eq!(report.profile, profile);
            assert!(report.solved.is_some());
            let moves = rules::legal_moves(&root, profile);
            let after: Vec<Position> = moves
                .iter()
                .map(|&pit| rules::play(&root, pit, profile).unwrap().0)
                .collect();
            let values = exact_values(&memory, profile, &after).unwrap();
            let margins: Vec<i8> = moves
                .iter()
                .zip(&after)
                .zip(&values)
                .map(|((_, a), &v)| {
                    let captured = a.captured(Player::South) - root.captured(Player::South);
                    captured as i8 - v
                })
                .collect();
            let value = *margins.iter().max().unwrap();
            assert_eq!(report.summary.value, value, "{profile}");
            assert_eq!(exact_values(&memory, profile, &[root]).unwrap(), [value]);
            let best: Vec<_> = moves
                .iter()
                .zip(&margins)
                .filter(|&(_, &m)| m == value)
                .map(|(&p, _)| p)
                .collect();
            assert_eq!(report.summary.best, best);
            // Every position before the lock after the first move is in the
            // file with its value.
            let file = OpeningFile::open_rooted(dir.path(), class, profile, &root)
                .unwrap()
                .unwrap();
            assert!(file.summary().states > 10, "{:?}", file.summary());
            for (a, &v) in after.iter().zip(&values) {
                if !super::super::opening::after_lock(a) {
                    assert_eq!(file.get(State::of(a).key()).unwrap(), Some(v), "{a}");
                }
            }
        }
        // Run again: both are found finished and checked, not solved.
        let again = solve_openings_from(dir.path(), class, &root, &|_, _| {}, &|_| {}).unwrap();
        assert!(again.iter().all(|r| r.solved.is_none()));
        assert_eq!(again[0].summary, reports[0].summary);
        // One byte of a body changed: refused by its checksum.
        let path = &reports[1].path;
        let mut bytes = fs::read(path).unwrap();
        *bytes.last_mut().unwrap() ^= 2;
        fs::write(path, &bytes).unwrap();
        let e = solve_openings_from(dir.path(), class, &root, &|_, _| {}, &|_| {}).unwrap_err();
        assert!(matches!(e, TableError::Checksum { .. }), "{e}");
    }
}
