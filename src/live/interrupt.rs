//! Interruption and the engines' descendants: the registry of live engine
//! processes, the orphan sweep, and the SIGINT/SIGTERM/SIGHUP handler.
//!
//! Every engine is spawned through [`spawn_registered`], which records its
//! pid (also its process group id) while the registry lock is held, so the
//! handler and the sweep always know which of the checker's children are
//! engines. [`install`] (called by `kpe-check` at start) does two things:
//!
//! - On Linux it makes the checker a *child subreaper*
//!   (`PR_SET_CHILD_SUBREAPER`): a process an engine started that detached
//!   itself (`setsid`, a double fork) is re-parented to the checker when its
//!   parent dies, instead of to init. After each engine is killed, every
//!   child of the checker that is not a registered engine is such an orphan,
//!   and [`sweep_orphans`] kills and reaps it (and, round by round, its own
//!   children as they are re-parented in turn). Elsewhere only the engine's
//!   process group is killed.
//! - It handles SIGINT, SIGTERM and SIGHUP on a thread: the first one is
//!   recorded ([`interrupted`]), every registered engine's process group is
//!   killed, orphans are swept, and no new engine may start
//!   ([`spawn_registered`] refuses), so the run winds down at once and its
//!   report says what was checked so far; the caller exits with
//!   [`Signal::exit_code`]. A second signal ends the process at once.

use std::collections::BTreeSet;
use std::io;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

pub use crate::reporter::{Signal, interrupted};

/// The first argument by which `kpe-check` runs itself as the guard of an
/// engine ([`run_guard`]).
pub const GUARD_ARG: &str = "__kpe-engine-guard";

/// The program engines are started through (Linux: `kpe-check` itself,
/// see [`guard_engines_with`]); unset, they are started directly.
static GUARD: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// Starts every engine through `exe GUARD_ARG PARENT PROGRAM ARGS...`, where
/// `exe` (kpe-check itself) handles [`GUARD_ARG`] with [`run_guard`]: the
/// guard asks the kernel to kill it when the checker dies, even by SIGKILL
/// (`PR_SET_PDEATHSIG`), and then becomes the engine (`exec`, same pid,
/// same process group), so that an engine which ignores the end of its
/// input does not outlive a checker that could not clean up. Linux only;
/// elsewhere nothing changes.
pub fn guard_engines_with(exe: std::path::PathBuf) {
    if cfg!(target_os = "linux") {
        let _ = GUARD.set(exe);
    }
}

/// The guard program and its first arguments for an engine, if engines
/// are guarded.
pub(crate) fn guard() -> Option<(&'static std::path::Path, Vec<std::ffi::OsString>)> {
    let exe = GUARD.get()?;
    let parent = std::process::id().to_string();
    Some((exe.as_path(), vec![GUARD_ARG.into(), parent.into()]))
}

/// The guard's part (`kpe-check GUARD_ARG PARENT PROGRAM ARGS...`): set
/// the parent-death signal to SIGKILL, make sure the parent is still the
/// checker (it may have died before), then `exec` the engine. Returns only
/// when that fails, with the message to print.
#[must_use]
pub fn run_guard(args: &[std::ffi::OsString]) -> String {
    let (Some(parent), Some(program)) = (args.first(), args.get(1)) else {
        return "usage: kpe-check __kpe-engine-guard PARENT PROGRAM [ARGS...]".to_owned();
    };
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt as _;
        if let Err(e) =
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
        {
            return format!("cannot ask to die with kpe-check: {e}");
        }
        let expected = parent.to_str().and_then(|p| p.parse::<u32>().ok());
        let actual = rustix::process::getppid().map(|p| p.as_raw_nonzero().get().unsigned_abs());
        if expected.is_none() || expected != actual {
            return "kpe-check ended before its engine started".to_owned();
        }
        let error = Command::new(program).args(&args[2..]).exec();
        format!(
            "cannot start {}: {error}",
            std::path::Path::new(program).display()
        )
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (parent, program);
        "engines are guarded on Linux only".to_owned()
    }
}

/// Whether [`install`] made this process a child subreaper.
static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// The pids of the live engines (each also its process group id). An entry
/// is removed, under this lock, before or as its child is reaped, so a pid
/// found here always names an unreaped child and signalling it cannot hit
/// an unrelated process.
static ENGINES: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn engines() -> MutexGuard<'static, BTreeSet<i32>> {
    ENGINES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Makes this process a child subreaper (Linux) and handles SIGINT, SIGTERM
/// and SIGHUP as the module documentation says. Call it once, early; a
/// second call adds nothing.
///
/// # Errors
///
/// The operating system refused to register the handlers or to make the
/// process a subreaper.
pub fn install() -> io::Result<()> {
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    #[cfg(target_os = "linux")]
    {
        rustix::process::set_child_subreaper(Some(rustix::process::getpid()))?;
        SUBREAPER.store(true, Ordering::SeqCst);
    }
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
        std::thread::Builder::new()
            .name("kpe-signals".to_owned())
            .spawn(move || {
                for number in signals.forever() {
                    let number = u8::try_from(number).unwrap_or(15);
                    let first = crate::reporter::record_signal(number);
                    kill_all();
                    if !first {
                        std::process::exit(i32::from(128 + number));
                    }
                }
            })?;
    }
    Ok(())
}

/// Spawns `command` and records the child as a live engine, under the
/// registry lock (so the sweep never takes it for an orphan).
///
/// # Errors
///
/// The spawn failed, or the run was interrupted (no engine starts then).
pub(crate) fn spawn_registered(command: &mut Command) -> io::Result<Child> {
    let mut live = engines();
    if let Some(signal) = interrupted() {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            format!("kpe-check was interrupted by {signal}"),
        ));
    }
    let child = command.spawn()?;
    if let Ok(pid) = i32::try_from(child.id()) {
        live.insert(pid);
    }
    Ok(child)
}

/// Polls `child` for an exit status; when it has exited it is reaped and
/// leaves the registry in one step, under the lock.
pub(crate) fn try_wait(child: &mut Child) -> io::Result<Option<std::process::ExitStatus>> {
    let mut live = engines();
    let status = child.try_wait()?;
    if status.is_some() {
        forget(&mut live, child);
    }
    Ok(status)
}

/// Kills `child` and everything in its process group, reaps it, then
/// sweeps the orphans it left.
pub(crate) fn kill_and_reap(child: &mut Child) {
    {
        let mut live = engines();
        #[cfg(unix)]
        if live.contains(&pid_of(child)) {
            // Unreaped (it is in the registry), so its pid still names its
            // group and cannot name another.
            let _ = rustix::process::kill_process_group(
                rustix::process::Pid::from_child(child),
                rustix::process::Signal::KILL,
            );
        }
        forget(&mut live, child);
    }
    let _ = child.kill();
    let _ = child.wait();
    sweep_orphans();
}

/// Removes a child from the registry (it is reaped or about to be).
fn forget(live: &mut BTreeSet<i32>, child: &Child) {
    live.remove(&pid_of(child));
}

fn pid_of(child: &Child) -> i32 {
    i32::try_from(child.id()).unwrap_or(i32::MAX)
}

/// Kills every live engine's process group, then sweeps the orphans. The
/// engines stay registered: their owners reap them.
pub fn kill_all() {
    #[cfg(unix)]
    {
        let live = engines();
        for &pid in live.iter() {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }
    sweep_orphans();
}

/// The most rounds of the sweep: each round kills the orphans found, whose
/// own children are re-parented to the checker for the next round.
const SWEEP_ROUNDS: usize = 64;

/// Kills and reaps every child of this process that is not a registered
/// engine: descendants of engines re-parented here because the checker is a
/// subreaper. Does nothing unless [`install`] made it one.
pub fn sweep_orphans() {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    #[cfg(target_os = "linux")]
    for _ in 0..SWEEP_ROUNDS {
        let live = engines();
        let orphans: Vec<i32> = children()
            .into_iter()
            .filter(|pid| !live.contains(pid))
            .collect();
        drop(live);
        if orphans.is_empty() {
            return;
        }
        for pid in orphans {
            // A child of ours, unreaped: its pid cannot be reused yet.
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::empty());
            }
        }
    }
}

/// The pids of this process's children, from `/proc/PID/stat` (the fourth
/// field, after the parenthesised command name, is the parent's pid).
#[cfg(target_os = "linux")]
fn children() -> Vec<i32> {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != me)
        .filter(|&pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| parent_of(&stat))
                == Some(me)
        })
        .collect()
}

/// The parent pid in the text of `/proc/PID/stat`.
fn parent_of(stat: &str) -> Option<i32> {
    let (_, after) = stat.rsplit_once(')')?;
    after.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_pid_is_read_after_the_command_name() {
        assert_eq!(parent_of("42 (a b) c) S 7 42 42 0"), Some(7));
        assert_eq!(parent_of("42 (sleep) R 1 1"), Some(1));
        assert_eq!(parent_of("garbage"), None);
    }

    #[test]
    fn exit_codes_are_128_plus_the_signal() {
        assert_eq!(Signal::Int.exit_code(), 130);
        assert_eq!(Signal::Term.exit_code(), 143);
        assert_eq!(Signal::Hup.exit_code(), 129);
        for s in [Signal::Hup, Signal::Int, Signal::Term] {
            assert_eq!(Signal::from_number(s.number()), Some(s));
        }
    }
}
