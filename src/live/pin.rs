//! Each worker of a live run, and the engine it starts, on one core.
//!
//! A worker and its engine take turns: one writes a line and waits, the
//! other wakes, answers and waits. On two cores every turn wakes an idle
//! core, which on a virtual machine costs tens of microseconds of kernel
//! time on both sides; on one core a turn is a plain switch between two
//! processes. So each worker pins itself to one of the cores the process
//! may use, dealt in turn from the core the run started on (worker `k` on
//! the `k`-th allowed core after it, modulo their number, so that runs
//! started side by side do not all begin on the first core), before it
//! starts an engine: Linux copies a thread's
//! cores to the processes it starts, so the engine, and anything the
//! engine starts, shares the worker's core.
//!
//! Measured on an idle 2-core virtual machine, 300 random games against
//! `kpe engine` (issue 22): `--jobs 1` took 4.54 s unpinned and 0.71 s with
//! the whole run under `taskset -c 0`; the benchmark `cargo bench --bench
//! live` prints both sides' CPU a request.
//!
//! With a pipeline (the manifest's `pipeline`, spec/PROTOCOL.md) the
//! engine shares its worker's core too. It once had a core of its own
//! while the worker spun waiting for its answers: on a busy machine that
//! was 3 to 19 times slower than not pinning at all, and a correct engine
//! was once errored (issue 42), so it was removed.
//!
//! Pinning is on Linux only, and only when the process may use more than
//! one core (with one there is nothing to choose).
//! [`super::LiveOptions::unpinned`] (`KPE_CHECK_PIN=0`) turns it off, for
//! an engine that wants cores of its own (a JVM sizes its heap and
//! compiler threads by the cores it may use).

/// The cores the workers are dealt to, in order (empty when they are not
/// pinned). Each engine shares its worker's core.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cores(Vec<usize>);

impl Cores {
    /// The cores this process may use, when workers are to be `pinned`:
    /// on Linux, with more than one core allowed.
    #[must_use]
    pub fn for_workers(pinned: bool) -> Cores {
        if !pinned {
            return Cores::default();
        }
        Cores::from_allowed(allowed(), current())
    }

    /// Workers dealt to `allowed`, starting at `first` (or at the first
    /// allowed core after it), or not pinned when there is at most one.
    #[must_use]
    pub fn from_allowed(mut allowed: Vec<usize>, first: usize) -> Cores {
        if allowed.len() > 1 {
            let start = allowed.iter().position(|&c| c >= first).unwrap_or(0);
            allowed.rotate_left(start);
            Cores(allowed)
        } else {
            Cores::default()
        }
    }

    /// The core of worker `k`, if workers are pinned.
    #[must_use]
    pub fn of_worker(&self, k: usize) -> Option<usize> {
        (!self.0.is_empty()).then(|| self.0[k % self.0.len()])
    }

    /// Pins the calling thread to worker `k`'s core. A refusal (a core
    /// taken away meanwhile) leaves the thread where it was: pinning only
    /// saves time, it never changes what is checked.
    pub fn pin_worker(&self, k: usize) {
        if let Some(core) = self.of_worker(k) {
            let _ = pin_current_thread(core);
        }
    }
}

/// The cores the calling thread may use, in increasing order (empty when
/// that cannot be asked).
#[cfg(target_os = "linux")]
#[must_use]
pub fn allowed() -> Vec<usize> {
    use rustix::thread::{CpuSet, sched_getaffinity};
    sched_getaffinity(None).map_or_else(
        |_| Vec::new(),
        |set| (0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect(),
    )
}

/// The core the calling thread runs on now.
#[cfg(target_os = "linux")]
fn current() -> usize {
    rustix::thread::sched_getcpu()
}

/// The core the calling thread runs on (not asked outside Linux).
#[cfg(not(target_os = "linux"))]
fn current() -> usize {
    0
}

/// The cores the calling thread may use (not asked outside Linux).
#[cfg(not(target_os = "linux"))]
#[must_use]
pub fn allowed() -> Vec<usize> {
    Vec::new()
}

/// Lets the calling thread run on `core` only.
///
/// # Errors
///
/// The operating system's refusal (no such core, or not allowed).
#[cfg(target_os = "linux")]
pub fn pin_current_thread(core: usize) -> std::io::Result<()> {
    use rustix::thread::{CpuSet, sched_setaffinity};
    if core >= CpuSet::MAX_CPU {
        return Err(std::io::Error::other(format!("no core {core}")));
    }
    let mut set = CpuSet::new();
    set.set(core);
    sched_setaffinity(None, &set).map_err(std::io::Error::from)
}

/// Lets the calling thread run on `core` only (a no-op outside Linux).
///
/// # Errors
///
/// Never.
#[cfg(not(target_os = "linux"))]
pub fn pin_current_thread(_core: usize) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_are_dealt_over_the_allowed_cores_in_turn() {
        let dealt = |first| {
            let cores = Cores::from_allowed(vec![2, 5, 7], first);
            (0..7).map(|k| cores.of_worker(k)).collect::<Vec<_>>()
        };
        assert_eq!(
            dealt(0),
            [2, 5, 7, 2, 5, 7, 2].map(Some).to_vec(),
            "worker k on the k-th allowed core, modulo their number"
        );
        assert_eq!(
            dealt(5),
            [5, 7, 2, 5, 7, 2, 5].map(Some).to_vec(),
            "from the core the run started on"
        );
        assert_eq!(
            dealt(3),
            [5, 7, 2, 5, 7, 2, 5].map(Some).to_vec(),
            "from the next allowed core"
        );
        assert_eq!(dealt(9), dealt(0), "past the last: from the first");
    }

    #[test]
    fn one_core_or_none_pins_nothing() {
        assert_eq!(Cores::from_allowed(vec![3], 3).of_worker(0), None);
        assert_eq!(Cores::from_allowed(Vec::new(), 0).of_worker(1), None);
    }

    /// A pinned thread runs on its core only, and a process it starts
    /// inherits that core.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_pinned_thread_and_the_process_it_starts_keep_to_one_core() {
        let all = allowed();
        assert!(!all.is_empty(), "the allowed cores can be read on Linux");
        let core = *all.last().unwrap();
        std::thread::spawn(move || {
            pin_current_thread(core).unwrap();
            assert_eq!(allowed(), vec![core]);
            // A child started from here inherits the single core.
            let out = std::process::Command::new("cat")
                .arg("/proc/self/status")
                .output()
                .expect("cat runs");
            let text = String::from_utf8_lossy(&out.stdout);
            let line = text
                .lines()
                .find(|l| l.starts_with("Cpus_allowed_list:"))
                .unwrap();
            assert_eq!(line.split_whitespace().nth(1), Some(&*core.to_string()));
        })
        .join()
        .unwrap();
        // Other threads keep every allowed core.
        assert_eq!(allowed(), all);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_core_out_of_range_is_refused_not_a_panic() {
        assert!(pin_current_thread(usize::MAX).is_err());
    }
}
