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
//!
//! No handler runs when the checker is killed by SIGKILL. For that,
//! [`guard_engines_with`] (Unix) has the first engine start a *watch*:
//! `kpe-check` itself run as [`run_watch`], in a process group of its own,
//! whose standard input is a pipe only the checker holds. The registry
//! tells it each engine's process group as the engine starts, and again
//! as it is reaped. When the checker dies, however it dies, the kernel
//! closes the pipe; the watch reads its end and kills every process group
//! still registered with SIGKILL: the engine, and whatever it started
//! (a launcher's child, a shell's, `cargo run`'s) that stayed in its
//! group. The watch then exits with status 0, and whoever inherits it
//! reaps it. On a normal exit the checker closes the pipe and reaps the
//! watch itself ([`release_watch`]).

use std::collections::BTreeSet;
use std::io::{self, Write as _};
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

/// Starts every engine through `exe GUARD_ARG PARENT WATCH PROGRAM ARGS...`,
/// where `exe` (kpe-check itself) handles [`GUARD_ARG`] with [`run_guard`]:
/// the guard asks the kernel to kill it when the checker dies, even by
/// SIGKILL (`PR_SET_PDEATHSIG`), tells the watch (WATCH, its pid, or `-`)
/// its process group, and then becomes the engine (`exec`, same pid, same
/// process group), so that an engine which ignores the end of its input
/// does not outlive a checker that could not clean up, and the watch
/// knows its group before the engine can start anything. Linux only;
/// elsewhere engines start directly.
///
/// On every Unix it also has the first engine start the watch of the
/// engines' process groups (see the module documentation), `exe
/// WATCH_ARG`, handled by [`run_watch`].
pub fn guard_engines_with(exe: std::path::PathBuf) {
    if cfg!(unix) {
        let _ = WATCH_EXE.set(exe.clone());
    }
    if cfg!(target_os = "linux") {
        let _ = GUARD.set(exe);
    }
}

/// The guard program and its first arguments for an engine, if engines
/// are guarded; the watch is started first, if engines are watched.
pub(crate) fn guard() -> Option<(&'static std::path::Path, Vec<std::ffi::OsString>)> {
    let exe = GUARD.get()?;
    let watch = {
        let mut live = engines();
        live.start_watch();
        live.watch_pid()
    };
    let parent = std::process::id().to_string();
    let watch = watch.map_or_else(|| "-".to_owned(), |pid| pid.to_string());
    Some((
        exe.as_path(),
        vec![GUARD_ARG.into(), parent.into(), watch.into()],
    ))
}

/// The guard's part (`kpe-check GUARD_ARG PARENT WATCH PROGRAM ARGS...`):
/// set the parent-death signal to SIGKILL, make sure the parent is still
/// the checker (it may have died before), tell the watch this process's
/// group, then `exec` the engine (a bare name is looked up on `PATH`).
/// Returns only when that fails, with the message to print.
#[must_use]
pub fn run_guard(args: &[std::ffi::OsString]) -> String {
    let (Some(parent), Some(watch), Some(program)) = (args.first(), args.get(1), args.get(2))
    else {
        return "usage: kpe-check __kpe-engine-guard PARENT WATCH PROGRAM [ARGS...]".to_owned();
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
        if let Some(watch) = watch.to_str().and_then(|w| w.parse::<u32>().ok()) {
            tell_watch(watch);
        }
        let error = Command::new(program).args(&args[3..]).exec();
        format!(
            "cannot start {}: {error}",
            std::path::Path::new(program).display()
        )
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (parent, watch, program);
        "engines are guarded on Linux only".to_owned()
    }
}

/// Writes `+PGID` (this process's group, which the engine it becomes
/// leads) to the watch `watch`, through its standard input's pipe as
/// `/proc` opens it for writing. The checker, still alive (the guard
/// checked), has not reaped its watch, so the pid is the watch's. A
/// failure is silent: the checker tells the watch too, a moment later.
#[cfg(target_os = "linux")]
fn tell_watch(watch: u32) {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    if let Ok(mut pipe) = std::fs::OpenOptions::new()
        .write(true)
        .open(format!("/proc/{watch}/fd/0"))
    {
        let _ = pipe.write_all(format!("+{me}\n").as_bytes());
    }
}

/// The first argument by which `kpe-check` runs itself as the watch of
/// its engines' process groups ([`run_watch`]).
pub const WATCH_ARG: &str = "__kpe-engine-watch";

/// The program the watch is run as (`kpe-check` itself), set by
/// [`guard_engines_with`]; unset, no watch is started.
static WATCH_EXE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// The watch's part (`kpe-check WATCH_ARG CHECKER-PID`; the pid is only
/// for people reading the process list): reads `+PGID` and `-PGID`
/// lines on standard input (a process group to kill if the checker dies,
/// and one that is gone), and at the end of the input, which comes when
/// the checker exits or dies, kills every group still listed with
/// SIGKILL, twice (a process forking as the first kill lands is caught by
/// the second). Returns the process's exit code: 0, or 2 when run
/// otherwise than by kpe-check (standard input a terminal).
#[must_use]
pub fn run_watch() -> u8 {
    use std::io::{BufRead as _, IsTerminal as _};
    let input = std::io::stdin();
    if input.is_terminal() {
        let _ = writeln!(
            std::io::stderr(),
            "{WATCH_ARG} is kpe-check's own: it guards the engines kpe-check starts"
        );
        return 2;
    }
    let mut groups = BTreeSet::new();
    for line in input.lock().lines() {
        let Ok(line) = line else { break };
        let (sign, pid) = line.split_at(line.len().min(1));
        let Ok(pid) = pid.parse::<i32>() else {
            continue;
        };
        match sign {
            "+" => {
                groups.insert(pid);
            }
            "-" => {
                groups.remove(&pid);
            }
            _ => {}
        }
    }
    #[cfg(unix)]
    for round in 0..2 {
        if round > 0 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        for &pgid in &groups {
            if let Some(pgid) = rustix::process::Pid::from_raw(pgid) {
                let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
            }
        }
    }
    0
}

/// The watch, once started: the process and the pipe to its input.
struct Watch {
    child: Child,
    input: std::process::ChildStdin,
}

/// Where the watch stands.
enum WatchState {
    /// Not needed yet: no engine has started.
    Idle,
    /// Running.
    On(Watch),
    /// It could not be started (said once on stderr), or it was released.
    Off,
}

impl Watch {
    /// Starts `exe WATCH_ARG` in a process group of its own (a Ctrl-C at
    /// the terminal, which the checker handles, does not reach it), with
    /// its input a pipe from this process and nothing else open.
    fn start(exe: &std::path::Path) -> io::Result<Watch> {
        let mut command = Command::new(exe);
        command
            .arg(WATCH_ARG)
            // For people reading the process list: whose engines.
            .arg(std::process::id().to_string())
            .current_dir("/")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt as _;
            command.process_group(0);
        }
        let mut child = command.spawn()?;
        let Some(input) = child.stdin.take() else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::other("its input could not be piped"));
        };
        // A watch that stopped reading (stopped by a signal) never makes
        // the checker wait: a line it cannot take is dropped.
        #[cfg(unix)]
        rustix::io::ioctl_fionbio(&input, true)?;
        Ok(Watch { child, input })
    }

    /// Tells the watch `sign` (`+` or `-`) and the process group `pgid`.
    fn tell(&mut self, sign: char, pgid: i32) {
        use std::io::Write as _;
        let _ = self.input.write_all(format!("{sign}{pgid}\n").as_bytes());
    }
}

/// Whether [`install`] made this process a child subreaper.
static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// The live engines and the watch of their process groups.
struct Registry {
    /// The pids of the live engines (each also its process group id). An
    /// entry is removed, under this lock, before its child is reaped, so a
    /// pid found here always names an unreaped child and signalling it
    /// cannot hit an unrelated process.
    live: BTreeSet<i32>,
    /// The watch, told of every entry added to `live` or removed from it.
    watch: WatchState,
}

impl Registry {
    fn contains(&self, pid: &i32) -> bool {
        self.live.contains(pid)
    }

    fn iter(&self) -> impl Iterator<Item = &i32> {
        self.live.iter()
    }

    /// Starts the watch if engines are watched and it has not started yet.
    fn start_watch(&mut self) {
        if matches!(self.watch, WatchState::Idle)
            && let Some(exe) = WATCH_EXE.get()
        {
            self.watch = match Watch::start(exe) {
                Ok(watch) => WatchState::On(watch),
                Err(e) => {
                    let _ = writeln!(
                        std::io::stderr(),
                        "kpe-check: warning: cannot start the watch that kills the engines' \
                         processes if kpe-check is killed: {e}"
                    );
                    WatchState::Off
                }
            };
        }
    }

    /// Records a new engine and tells the watch.
    fn insert(&mut self, pid: i32) {
        if let WatchState::On(watch) = &mut self.watch {
            watch.tell('+', pid);
        }
        self.live.insert(pid);
    }

    fn remove(&mut self, pid: &i32) {
        if self.live.remove(pid)
            && let WatchState::On(watch) = &mut self.watch
        {
            watch.tell('-', *pid);
        }
    }

    /// The watch's pid, if it runs: a child of this process that is not
    /// an orphan.
    fn watch_pid(&self) -> Option<i32> {
        match &self.watch {
            WatchState::On(watch) => i32::try_from(watch.child.id()).ok(),
            _ => None,
        }
    }
}

static ENGINES: Mutex<Registry> = Mutex::new(Registry {
    live: BTreeSet::new(),
    watch: WatchState::Idle,
});

fn engines() -> MutexGuard<'static, Registry> {
    ENGINES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Ends the watch, if one was started: closes its input (it then kills
/// any engine group still registered, which a finished run has none of)
/// and reaps it, waiting at most a few seconds. Call it once the run is
/// over; engines started after it are not watched.
pub fn release_watch() {
    let watch = std::mem::replace(&mut engines().watch, WatchState::Off);
    let WatchState::On(Watch { mut child, input }) = watch else {
        return;
    };
    drop(input);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while matches!(child.try_wait(), Ok(None)) {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
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
    // The watch runs before the first engine does.
    live.start_watch();
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
    #[cfg(target_os = "linux")]
    {
        // Looked at without reaping it, so that it leaves the registry
        // (and the watch's list) while its pid still names it.
        use rustix::process::{WaitId, WaitIdOptions, waitid};
        let pid = rustix::process::Pid::from_child(child);
        let peek = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        match waitid(WaitId::Pid(pid), peek) {
            Ok(None) => return Ok(None),
            Ok(Some(_)) => forget(&mut live, child),
            // Reaped already (its status is kept by `child`), or no child.
            Err(_) => {}
        }
    }
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

/// Removes a child from the registry (it is about to be reaped).
fn forget(live: &mut Registry, child: &Child) {
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
        let watch = live.watch_pid();
        let orphans: Vec<i32> = children()
            .into_iter()
            .filter(|pid| !live.contains(pid) && Some(*pid) != watch)
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
