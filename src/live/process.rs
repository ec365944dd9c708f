//! The engine process: spawned with piped stdio; its stdout read line by
//! line and its stdin written by the thread that asks (on Unix, with
//! non-blocking pipes and `poll`; elsewhere through a thread each), its
//! stderr on a thread of its own; with a timeout on every read and every
//! write, a bounded line length, a bounded stderr tail, and the child (with
//! its process group and, on Linux, every orphan it left) killed and reaped
//! on every exit path.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};

use super::interrupt;
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(not(unix))]
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How many bytes of the engine's stderr are kept to show in reports.
pub const STDERR_TAIL: usize = 4096;

/// How many bytes an engine may write to stderr in one session before the
/// checker gives up on it ([`ProcessError::StderrFlood`]).
pub const STDERR_LIMIT: u64 = 16 << 20;

/// How long to wait for an exit status once the engine closed its stdout,
/// or after `quit`, before killing it.
pub const EXIT_GRACE: Duration = Duration::from_millis(500);

/// What to start: the program, its arguments, where, and with which
/// environment additions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The program: a path, or a bare name looked up on `PATH`.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Variables added to (or replacing those of) the checker's environment.
    pub env: BTreeMap<String, String>,
}

impl fmt::Display for Launch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.program.display())?;
        for arg in &self.args {
            write!(f, " {arg}")?;
        }
        Ok(())
    }
}

/// Why talking to the engine process failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProcessError {
    /// The program could not be started.
    Spawn {
        /// The command line.
        command: String,
        /// The operating system's error.
        error: String,
    },
    /// No line came within the timeout, counted in the engine's own time
    /// (spec/PROTOCOL.md, "What a timeout means").
    Timeout {
        /// The timeout.
        waited: Duration,
        /// The wall time kpe-check waited: more than `waited` when the
        /// engine was kept waiting for a CPU or stopped.
        wall: Duration,
    },
    /// A request could not be written within the timeout: the engine does
    /// not read its input.
    WriteTimeout {
        /// How long the checker waited.
        waited: Duration,
    },
    /// The engine closed its stdin (a write failed) but has not exited.
    InputClosed,
    /// After `quit` and the end of its input the engine did not exit.
    NoExit {
        /// How long the checker waited.
        waited: Duration,
    },
    /// The engine exited (or closed its stdout) before answering.
    Exited {
        /// How it ended: `exit status: 1`, `signal: 11 (SIGSEGV)`, or
        /// `still running` when only its stdout was closed.
        status: String,
        /// Whether it exited with status 0 (an early exit rather than a crash).
        clean: bool,
    },
    /// A stdout line longer than [`MAX_LINE`] bytes.
    LineTooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// A stdout line that is not UTF-8.
    NotUtf8,
    /// More than [`STDERR_LIMIT`] bytes on stderr.
    StderrFlood {
        /// The limit in bytes.
        limit: u64,
    },
    /// Reading or writing a pipe failed.
    Io(String),
}

impl fmt::Display for ProcessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProcessError::Spawn { command, error } => {
                write!(f, "could not start `{command}`: {error}")
            }
            ProcessError::Timeout { waited, wall } => {
                write!(f, "no answer within {} ms", waited.as_millis())?;
                if *wall >= clock::wall_cap(*waited) {
                    write!(
                        f,
                        " of the engine's own time: kpe-check gave up after {} ms on the clock, \
                         the most it waits, with the engine kept from a CPU or stopped for most of it",
                        wall.as_millis()
                    )
                } else if *wall > *waited + *waited / 10 {
                    write!(
                        f,
                        " of the engine's own time ({} ms on the clock, the rest spent waiting \
                         for a CPU or stopped)",
                        wall.as_millis()
                    )
                } else {
                    Ok(())
                }
            }
            ProcessError::WriteTimeout { waited } => write!(
                f,
                "the engine does not read its input: a request could not be written within {} ms",
                waited.as_millis()
            ),
            ProcessError::InputClosed => {
                f.write_str("the engine closed its input (stdin) but is still running")
            }
            ProcessError::NoExit { waited } => write!(
                f,
                "the engine did not exit within {} ms of `quit` and the end of its input",
                waited.as_millis()
            ),
            ProcessError::Exited {
                status,
                clean: true,
            } => {
                write!(f, "the engine exited before answering ({status})")
            }
            ProcessError::Exited { status, .. } => {
                write!(f, "the engine crashed or closed its output ({status})")
            }
            ProcessError::LineTooLong { limit } => {
                write!(f, "the engine printed a line longer than {limit} bytes")
            }
            ProcessError::NotUtf8 => f.write_str("the engine printed a line that is not UTF-8"),
            ProcessError::StderrFlood { limit } => write!(
                f,
                "the engine wrote more than {} MiB to stderr",
                limit >> 20
            ),
            ProcessError::Io(e) => write!(f, "talking to the engine failed: {e}"),
        }
    }
}

impl std::error::Error for ProcessError {}

mod clock;
mod lines;

pub use clock::{WALL_FACTOR, WALL_FLOOR, wall_cap};
pub use lines::MAX_LINE;
use lines::{Event, When};

/// The last bytes written to stderr, and how many in all.
#[derive(Default)]
struct Tail {
    bytes: VecDeque<u8>,
    total: u64,
    /// The stderr reader has seen the end of the stream.
    done: bool,
}

/// How long the stderr tail of an engine that has exited waits for its
/// reader to reach the end of the stream, so that what the engine wrote
/// just before exiting is shown (a descendant may keep the stream open).
const STDERR_DRAIN: Duration = Duration::from_millis(250);

/// A running engine. Dropping it kills and reaps the child (and, on Unix,
/// everything in its process group).
pub struct EngineProcess {
    child: Child,
    stdin: Option<Writer>,
    lines: lines::Lines,
    tail: Arc<Mutex<Tail>>,
    flooded: Arc<AtomicBool>,
    status: Option<ExitStatus>,
    /// The last line received had more output behind it, not yet taken.
    more: bool,
    /// [`EngineProcess::unsolicited`] has just read the pipe and found
    /// nothing: the next [`EngineProcess::send`] need not read it again.
    checked: bool,
    /// The last line [`EngineProcess::recv`] gave had been read before the
    /// last request was sent: it cannot be the answer to it.
    early: bool,
    /// The bytes of the line being sent, kept for the next one.
    out: Vec<u8>,
    /// System calls made by writers already closed.
    #[cfg(unix)]
    closed_calls: u64,
}

impl EngineProcess {
    /// Starts the engine with piped stdin, stdout and stderr.
    ///
    /// # Errors
    ///
    /// [`ProcessError::Spawn`] when the program cannot be started.
    pub fn spawn(launch: &Launch) -> Result<EngineProcess, ProcessError> {
        let mut child = interrupt::spawn_registered(&mut command(launch)).map_err(|e| {
            let error = if launch.cwd.is_dir() {
                e.to_string()
            } else {
                // The OS says "No such file or directory" either way: say
                // which one is missing.
                format!(
                    "its working directory `{}` does not exist or is not a directory",
                    launch.cwd.display()
                )
            };
            ProcessError::Spawn {
                command: launch.to_string(),
                error,
            }
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            kill_and_reap(&mut child);
            return Err(ProcessError::Spawn {
                command: launch.to_string(),
                error: "its standard streams could not be piped".to_owned(),
            });
        };
        let tail = Arc::new(Mutex::new(Tail::default()));
        let flooded = Arc::new(AtomicBool::new(false));
        let started = lines::Lines::new(stdout).and_then(|(lines, alarm)| {
            spawn_reader("kpe-engine-stderr", {
                let tail = Arc::clone(&tail);
                let flooded = Arc::clone(&flooded);
                move || read_stderr(stderr, &tail, &flooded, &alarm)
            })?;
            Ok((lines, Writer::spawn(stdin)?))
        });
        let (lines, stdin) = match started {
            Ok(started) => started,
            Err(error) => {
                kill_and_reap(&mut child);
                return Err(ProcessError::Spawn {
                    command: launch.to_string(),
                    error,
                });
            }
        };
        Ok(EngineProcess {
            child,
            stdin: Some(stdin),
            lines,
            tail,
            flooded,
            status: None,
            more: false,
            checked: false,
            early: false,
            out: Vec::new(),
            #[cfg(unix)]
            closed_calls: 0,
        })
    }

    /// Writes one line (a newline is added) and flushes it, waiting at most
    /// `timeout` for the engine to take it: an engine that does not read
    /// its input fills the pipe, and the write is abandoned rather than
    /// blocking the checker.
    ///
    /// # Errors
    ///
    /// [`ProcessError::WriteTimeout`] when the write does not finish in
    /// time, [`ProcessError::Exited`] when the engine is gone,
    /// [`ProcessError::InputClosed`] when it closed its stdin but still
    /// runs, or [`ProcessError::Io`] for another write error.
    pub fn send(&mut self, line: &str, timeout: Duration) -> Result<(), ProcessError> {
        self.write_line(line, true, timeout)
    }

    /// Writes one line (or several, joined by newlines) as
    /// [`EngineProcess::send`] does, while earlier requests are still
    /// unanswered (spec/PROTOCOL.md, "Pipelining"): what was read before
    /// it answers those, and is not marked as read before this request.
    ///
    /// # Errors
    ///
    /// As [`EngineProcess::send`].
    pub fn send_more(&mut self, line: &str, timeout: Duration) -> Result<(), ProcessError> {
        self.write_line(line, false, timeout)
    }

    /// Writes `line` and a newline; first, when `mark`, notes what the
    /// engine wrote before it.
    fn write_line(
        &mut self,
        line: &str,
        mark: bool,
        timeout: Duration,
    ) -> Result<(), ProcessError> {
        let Some(writer) = self.stdin.as_mut() else {
            return Err(ProcessError::Io("stdin is already closed".to_owned()));
        };
        self.out.clear();
        self.out.extend_from_slice(line.as_bytes());
        self.out.push(b'\n');
        if !mark {
            self.checked = false;
        } else if std::mem::take(&mut self.checked) {
            // `unsolicited` read the pipe just now: what it holds is all
            // from before this request.
            self.lines.mark_sent();
        } else {
            self.lines.before_send();
        }
        match writer.write(&self.out, timeout) {
            Ok(()) => Ok(()),
            Err(WriteError::Timeout) => Err(ProcessError::WriteTimeout { waited: timeout }),
            Err(WriteError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                Err(self.input_closed())
            }
            Err(WriteError::Io(e)) => Err(ProcessError::Io(e.to_string())),
        }
    }

    /// Waits for the next stdout line, for up to `timeout` of the
    /// engine's own time (src/live/process/clock.rs): on Linux, time it
    /// spends waiting for a CPU or stopped is not counted, up to a wall
    /// time of [`wall_cap`].
    ///
    /// # Errors
    ///
    /// Every way the engine can fail to give a line: timeout, exit, a line
    /// too long or not UTF-8, a stderr flood.
    pub fn recv(&mut self, timeout: Duration) -> Result<String, ProcessError> {
        if self.flooded.load(Ordering::Relaxed) {
            return Err(ProcessError::StderrFlood {
                limit: STDERR_LIMIT,
            });
        }
        let mut budget = clock::Budget::new(timeout, self.group());
        let mut wait = budget.first_wait();
        loop {
            if let Some(event) = self.lines.next(wait) {
                return self.event(event);
            }
            match budget.more() {
                Some(more) => wait = more,
                None => {
                    return Err(ProcessError::Timeout {
                        waited: timeout,
                        wall: budget.wall(),
                    });
                }
            }
        }
    }

    /// The engine's process group (its own: see `command`), on Unix.
    fn group(&self) -> Option<i32> {
        if cfg!(unix) && self.status.is_none() {
            i32::try_from(self.child.id()).ok()
        } else {
            None
        }
    }

    /// The system calls made so far to talk to the engine, on Unix: each
    /// read, write, poll and yield of its requests and replies (not those
    /// that start and end the process); `None` elsewhere, where threads
    /// read and write the pipes.
    #[must_use]
    pub fn calls(&self) -> Option<u64> {
        #[cfg(unix)]
        {
            let writing = self.stdin.as_ref().map_or(0, |w| w.calls);
            Some(self.lines.calls() + self.closed_calls + writing)
        }
        #[cfg(not(unix))]
        {
            None
        }
    }

    /// Whether the last line [`EngineProcess::recv`] gave was read before
    /// the last request was sent, so that it answers an earlier one (an
    /// engine that wrote one answer twice, in two writes too quick for
    /// [`EngineProcess::unsolicited`] to see the second).
    #[must_use]
    pub fn last_was_early(&self) -> bool {
        self.early
    }

    /// A line the engine printed that nobody asked for, if one is waiting.
    ///
    /// # Errors
    ///
    /// Whatever the engine did instead of printing nothing (exit, garbage).
    pub fn unsolicited(&mut self) -> Result<Option<String>, ProcessError> {
        if self.flooded.load(Ordering::Relaxed) {
            return Err(ProcessError::StderrFlood {
                limit: STDERR_LIMIT,
            });
        }
        if std::mem::take(&mut self.more) {
            // Output written together with the last reply is read already:
            // wait for the rest of its line, rather than take it for the
            // answer to the next request.
            return match self.lines.next(EXIT_GRACE) {
                Some(event) => self.event(event).map(Some),
                None => Ok(None),
            };
        }
        match self.lines.next_now() {
            Some(event) => self.event(event).map(Some),
            None => {
                self.checked = true;
                Ok(None)
            }
        }
    }

    /// Closes stdin after sending `quit_line` and waits up to `timeout` for
    /// the engine to exit. Returns a line it printed after `quit`, if any.
    ///
    /// # Errors
    ///
    /// [`ProcessError::Timeout`] when it does not exit in time (it is then
    /// killed), [`ProcessError::Exited`] with `clean: false` when it exits
    /// with a failure status.
    pub fn quit(
        &mut self,
        quit_line: &str,
        timeout: Duration,
    ) -> Result<Option<String>, ProcessError> {
        self.send(quit_line, timeout)?;
        #[cfg(unix)]
        {
            self.closed_calls += self.stdin.as_ref().map_or(0, |w| w.calls);
        }
        self.stdin = None;
        // The engine's own time, as for an answer (`recv`): an engine slow
        // to exit on a starved machine is not one that does not exit.
        let mut budget = clock::Budget::new(timeout, self.group());
        let mut wait = budget.first_wait();
        let mut extra = None;
        loop {
            match self.lines.next(wait) {
                Some(Event::Line { text: line, .. }) => {
                    extra.get_or_insert(line);
                }
                Some(Event::Closed) => break,
                Some(Event::StderrFlood) => {
                    return Err(ProcessError::StderrFlood {
                        limit: STDERR_LIMIT,
                    });
                }
                Some(Event::TooLong) => return Err(ProcessError::LineTooLong { limit: MAX_LINE }),
                Some(Event::NotUtf8) => return Err(ProcessError::NotUtf8),
                Some(Event::ReadError(e)) => return Err(ProcessError::Io(e)),
                None => {
                    if let Some(more) = budget.more() {
                        wait = more;
                        continue;
                    }
                    // Its stdout is still open: it may still run, or a
                    // process it started holds the pipe.
                    return match self.wait_for_exit(Duration::ZERO) {
                        None => Err(ProcessError::NoExit { waited: timeout }),
                        Some(status) if status.success() => Ok(extra),
                        Some(status) => Err(ProcessError::Exited {
                            status: describe(status),
                            clean: false,
                        }),
                    };
                }
            }
        }
        let mut grace = EXIT_GRACE;
        loop {
            match self.wait_for_exit(grace) {
                Some(status) if status.success() => return Ok(extra),
                Some(status) => {
                    return Err(ProcessError::Exited {
                        status: describe(status),
                        clean: false,
                    });
                }
                None => match budget.more() {
                    Some(more) => grace = more,
                    None => return Err(ProcessError::NoExit { waited: timeout }),
                },
            }
        }
    }

    /// The last lines the engine wrote to stderr (at most [`STDERR_TAIL`]
    /// bytes, cut at a line start when possible), and how many bytes it
    /// wrote in all.
    #[must_use]
    pub fn stderr_tail(&self) -> (String, u64) {
        let lock = || {
            self.tail
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if self.status.is_some() {
            let deadline = Instant::now() + STDERR_DRAIN;
            while !lock().done && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(2));
            }
        }
        let tail = lock();
        let bytes: Vec<u8> = tail.bytes.iter().copied().collect();
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if tail.total > bytes.len() as u64
            && let Some(start) = text.find('\n')
            && start + 1 < text.len()
        {
            text.drain(..=start);
        }
        (text, tail.total)
    }

    fn event(&mut self, event: Event) -> Result<String, ProcessError> {
        match event {
            Event::Line { text, more, at } => {
                self.more = more;
                self.early = matches!(at, When::BeforeSend);
                Ok(text)
            }
            Event::TooLong => Err(ProcessError::LineTooLong { limit: MAX_LINE }),
            Event::NotUtf8 => Err(ProcessError::NotUtf8),
            Event::Closed => Err(self.exited()),
            Event::ReadError(e) => Err(ProcessError::Io(e)),
            Event::StderrFlood => Err(ProcessError::StderrFlood {
                limit: STDERR_LIMIT,
            }),
        }
    }

    /// Whether the engine has closed its stdin (Unix; elsewhere only a
    /// write finds out), and then how: it ended, or it still runs with its
    /// input closed ([`ProcessError::InputClosed`]).
    pub fn input_gone(&mut self) -> Option<ProcessError> {
        let gone = self.stdin.as_mut().is_some_and(Writer::reader_gone);
        gone.then(|| self.input_closed())
    }

    /// A write found its stdin closed: say how it ended, or that it still
    /// runs with its input closed.
    fn input_closed(&mut self) -> ProcessError {
        match self.wait_for_exit(EXIT_GRACE) {
            Some(status) => ProcessError::Exited {
                status: describe(status),
                clean: status.success(),
            },
            None => ProcessError::InputClosed,
        }
    }

    /// The engine's stdout closed: say how it ended.
    fn exited(&mut self) -> ProcessError {
        match self.wait_for_exit(EXIT_GRACE) {
            Some(status) => ProcessError::Exited {
                status: describe(status),
                clean: status.success(),
            },
            None => ProcessError::Exited {
                status: "it closed its output but is still running".to_owned(),
                clean: false,
            },
        }
    }

    fn wait_for_exit(&mut self, grace: Duration) -> Option<ExitStatus> {
        if self.status.is_some() {
            return self.status;
        }
        let deadline = Instant::now() + grace;
        loop {
            match interrupt::try_wait(&mut self.child) {
                Ok(Some(status)) => {
                    self.status = Some(status);
                    return Some(status);
                }
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(2)),
                Ok(None) | Err(_) => return None,
            }
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.stdin = None;
        if self.status.is_none() {
            kill_and_reap(&mut self.child);
        } else {
            // It exited by itself; what it started may not have.
            interrupt::sweep_orphans();
        }
    }
}

/// The command that starts `launch`: through the guard, when kpe-check
/// set one up (it makes the engine die with the checker; a program that is
/// not there, as a path or on `PATH`, is started directly, so that its
/// error is the operating system's), with piped streams and, on Unix, in a
/// process group of its own.
fn command(launch: &Launch) -> Command {
    let guarded = interrupt::guard().filter(|_| found(launch));
    let mut command = match &guarded {
        Some((exe, first)) => {
            let mut c = Command::new(exe);
            c.args(first).arg(&launch.program);
            c
        }
        None => Command::new(&launch.program),
    };
    command
        .args(&launch.args)
        .current_dir(&launch.cwd)
        .envs(&launch.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        // Its own process group, so that killing it also kills whatever
        // it started (a shell wrapper's child, for instance).
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    command
}

/// Whether `launch`'s program is a file: as a path, or when it is a bare
/// name, in a folder of the `PATH` it is started with (its own `env`'s,
/// else the checker's; a relative folder is taken from its working
/// directory), as `exec` looks it up.
fn found(launch: &Launch) -> bool {
    if launch.program.components().count() != 1 || launch.program.is_absolute() {
        return launch.program.is_file();
    }
    let path = match launch.env.get("PATH") {
        Some(path) => std::ffi::OsString::from(path),
        None => std::env::var_os("PATH").unwrap_or_default(),
    };
    std::env::split_paths(&path).any(|dir| launch.cwd.join(dir).join(&launch.program).is_file())
}

/// Kills the child and everything in its process group, reaps it, and
/// (on Linux, in kpe-check) kills and reaps the orphans it left.
fn kill_and_reap(child: &mut Child) {
    interrupt::kill_and_reap(child);
}

/// Why a write to the engine failed.
enum WriteError {
    Timeout,
    Io(std::io::Error),
}

/// The engine's stdin. On Unix it is written directly, non-blocking, with
/// `poll` for the timeout: a request costs no hand-over to another thread
/// (each of which wakes a thread, tens of microseconds on a virtual
/// machine). Elsewhere it is written on a thread of its own. Either way a
/// write into a full pipe (an engine that does not read) is given up on
/// after its timeout, and dropping the writer closes the stdin.
#[cfg(unix)]
struct Writer {
    stdin: ChildStdin,
    /// A write was given up on, maybe with part of its line written:
    /// nothing more can be written.
    stuck: bool,
    /// System calls made: writes, and polls while the pipe is full.
    calls: u64,
}

#[cfg(unix)]
impl Writer {
    fn spawn(stdin: ChildStdin) -> Result<Writer, String> {
        rustix::io::ioctl_fionbio(&stdin, true)
            .map_err(|e| format!("could not make its stdin non-blocking: {e}"))?;
        Ok(Writer {
            stdin,
            stuck: false,
            calls: 0,
        })
    }

    fn write(&mut self, bytes: &[u8], timeout: Duration) -> Result<(), WriteError> {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        use std::io::ErrorKind;
        if self.stuck {
            return Err(WriteError::Timeout);
        }
        // The clock is read only once the pipe is full (the write waits).
        let mut deadline = None;
        let mut rest = bytes;
        while !rest.is_empty() {
            self.calls += 1;
            match self.stdin.write(rest) {
                Ok(0) => return Err(WriteError::Io(ErrorKind::WriteZero.into())),
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    let now = Instant::now();
                    let left = deadline
                        .get_or_insert(now + timeout)
                        .saturating_duration_since(now);
                    if left.is_zero() {
                        self.stuck = true;
                        return Err(WriteError::Timeout);
                    }
                    let left = Timespec::try_from(left).unwrap_or(Timespec {
                        tv_sec: i64::MAX,
                        tv_nsec: 0,
                    });
                    let mut fds = [PollFd::new(&self.stdin, PollFlags::OUT)];
                    self.calls += 1;
                    // Room in the pipe, its reader gone (the next write says
                    // so) or the time up (the next round says so).
                    match poll(&mut fds, Some(&left)) {
                        Ok(_) | Err(rustix::io::Errno::INTR) => {}
                        Err(e) => return Err(WriteError::Io(e.into())),
                    }
                }
                Err(e) => return Err(WriteError::Io(e)),
            }
        }
        Ok(())
    }

    /// Whether the engine has closed its end of the pipe: `poll` says
    /// `POLLERR` on a pipe's writing end whose reader is gone, without a
    /// write.
    fn reader_gone(&mut self) -> bool {
        use rustix::event::{PollFd, PollFlags, Timespec, poll};
        let mut fds = [PollFd::new(&self.stdin, PollFlags::OUT)];
        self.calls += 1;
        let now = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        poll(&mut fds, Some(&now)).is_ok() && fds[0].revents().contains(PollFlags::ERR)
    }
}

#[cfg(not(unix))]
struct Writer {
    lines: Option<SyncSender<Vec<u8>>>,
    done: Receiver<std::io::Result<()>>,
    /// A write was given up on and may still be blocked: nothing more can
    /// be written.
    stuck: bool,
}

#[cfg(not(unix))]
impl Writer {
    fn spawn(mut stdin: ChildStdin) -> Result<Writer, String> {
        let (lines, queue) = sync_channel::<Vec<u8>>(1);
        let (report, done) = sync_channel(1);
        thread::Builder::new()
            .name("kpe-engine-stdin".to_owned())
            .spawn(move || {
                for bytes in queue {
                    let written = stdin.write_all(&bytes).and_then(|()| stdin.flush());
                    let failed = written.is_err();
                    if report.send(written).is_err() || failed {
                        return;
                    }
                }
            })
            .map_err(|e| format!("could not start a writer thread: {e}"))?;
        Ok(Writer {
            lines: Some(lines),
            done,
            stuck: false,
        })
    }

    fn write(&mut self, bytes: &[u8], timeout: Duration) -> Result<(), WriteError> {
        let closed = || {
            WriteError::Io(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "stdin is closed",
            ))
        };
        if self.stuck {
            return Err(WriteError::Timeout);
        }
        let lines = self.lines.as_ref().ok_or_else(closed)?;
        if lines.send(bytes.to_vec()).is_err() {
            return Err(closed());
        }
        match self.done.recv_timeout(timeout) {
            Ok(result) => result.map_err(WriteError::Io),
            Err(RecvTimeoutError::Timeout) => {
                self.stuck = true;
                Err(WriteError::Timeout)
            }
            Err(RecvTimeoutError::Disconnected) => Err(closed()),
        }
    }

    /// Whether the engine has closed its stdin: not known here without a
    /// write.
    fn reader_gone(&mut self) -> bool {
        false
    }
}

fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                6 => " (SIGABRT)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                15 => " (SIGTERM)",
                _ => "",
            };
            return format!("killed by signal {signal}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => status.to_string(),
    }
}

fn spawn_reader(name: &str, body: impl FnOnce() + Send + 'static) -> Result<(), String> {
    // The thread is not joined: it ends when the pipe closes, which the kill
    // in `Drop` guarantees for the child; a stray grandchild holding the
    // pipe open cannot make the checker wait.
    thread::Builder::new()
        .name(name.to_owned())
        .spawn(body)
        .map(drop)
        .map_err(|e| format!("could not start a reader thread: {e}"))
}

fn read_stderr(
    mut stderr: impl Read,
    tail: &Mutex<Tail>,
    flooded: &AtomicBool,
    alarm: &lines::Alarm,
) {
    let mut buffer = [0u8; 8192];
    loop {
        let n = match stderr.read(&mut buffer) {
            Ok(0) | Err(_) => {
                tail.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .done = true;
                return;
            }
            Ok(n) => n,
        };
        let total = {
            let mut tail = tail
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            tail.total += n as u64;
            tail.bytes.extend(&buffer[..n]);
            let excess = tail.bytes.len().saturating_sub(STDERR_TAIL);
            tail.bytes.drain(..excess);
            tail.total
        };
        if total > STDERR_LIMIT && !flooded.swap(true, Ordering::Relaxed) {
            alarm.raise();
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> EngineProcess {
        EngineProcess::spawn(&Launch {
            program: "sh".into(),
            args: vec!["-c".to_owned(), script.to_owned()],
            cwd: ".".into(),
            env: BTreeMap::new(),
        })
        .unwrap()
    }

    /// A bare program name is found on the `PATH` it is started with (its
    /// own, else the checker's), as `exec` finds it, so that the guard
    /// (src/live/interrupt.rs) starts it; a name on no folder of it is not.
    #[test]
    fn a_bare_name_is_found_on_the_path_it_is_started_with() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("my-engine"), "").unwrap();
        let launch = |program: &str, path: Option<&str>| Launch {
            program: program.into(),
            args: Vec::new(),
            cwd: dir.path().to_path_buf(),
            env: path
                .map(|p| BTreeMap::from([("PATH".to_owned(), p.to_owned())]))
                .unwrap_or_default(),
        };
        let elsewhere = "/nonexistent-kpe-folder";
        assert!(found(&launch("my-engine", Some(&format!("{elsewhere}:.")))));
        assert!(!found(&launch("my-engine", Some(elsewhere))));
        assert!(found(&launch(
            "my-engine",
            Some(&dir.path().display().to_string())
        )));
        assert!(!found(&launch("no-such-kpe-engine", None)));
        assert!(found(&launch(
            &dir.path().join("my-engine").display().to_string(),
            None
        )));
        assert!(!found(&launch("./missing", None)));
    }

    /// The system calls of one exchange, each counted: the read that looks
    /// for a line out of turn before the request, its write, the poll that
    /// waits for the reply and the read that takes it (issue 22's bench
    /// divides these by the requests).
    #[test]
    fn each_read_write_and_poll_is_counted() {
        let mut process = sh("read request; echo one; sleep 30");
        assert_eq!(process.calls(), Some(0));
        process.send("go", Duration::from_secs(30)).unwrap();
        assert_eq!(process.calls(), Some(2), "a read finding nothing, a write");
        assert_eq!(process.recv(Duration::from_secs(30)).unwrap(), "one");
        assert_eq!(process.calls(), Some(4), "a poll, a read");
        assert_eq!(process.unsolicited().unwrap(), None);
        assert_eq!(process.calls(), Some(5), "a read finding nothing");
    }

    /// Regression: a line written together with a reply was at times taken
    /// for the answer to the next request (the reader thread had not passed
    /// it on yet), so `kpe engine --fault extra-line` was judged a wrong
    /// reply instead of out of turn when the machine was busy.
    #[test]
    fn a_line_written_with_the_reply_is_unsolicited() {
        let mut process = sh("read request; printf 'one\\ntwo\\n'; sleep 30");
        process.send("go", Duration::from_secs(30)).unwrap();
        assert_eq!(process.recv(Duration::from_secs(30)).unwrap(), "one");
        assert_eq!(process.unsolicited().unwrap().as_deref(), Some("two"));
        assert_eq!(process.unsolicited().unwrap(), None);
    }

    /// Regression (issue 10): an answer written twice, in two writes, was
    /// judged out of turn in some runs and a wrong reply in others: the
    /// second line, not yet passed on when the next request was sent, was
    /// taken for its answer. A line read before the request was sent is
    /// now known to be early.
    #[test]
    fn a_line_read_before_the_request_was_sent_is_early() {
        let mut process =
            sh("read request; echo one; echo two; read request; echo three; sleep 30");
        process.send("go", Duration::from_secs(30)).unwrap();
        assert_eq!(process.recv(Duration::from_secs(30)).unwrap(), "one");
        assert!(!process.last_was_early());
        // `two` is read by now; the checker sends without looking.
        thread::sleep(Duration::from_millis(300));
        process.send("next", Duration::from_secs(30)).unwrap();
        assert_eq!(process.recv(Duration::from_secs(30)).unwrap(), "two");
        assert!(process.last_was_early());
        assert_eq!(process.recv(Duration::from_secs(30)).unwrap(), "three");
        assert!(!process.last_was_early());
    }

    /// Replies read before polling (an engine that has answered by the
    /// time it is waited for) are the same lines, in turn, a reply written
    /// in two parts comes whole, and a line written after its reply is
    /// still out of turn.
    #[test]
    fn replies_read_before_polling_are_whole_and_in_turn() {
        let mut process = sh("while read r; do
                case $r in
                    split) printf 'sp'; sleep 0.2; echo 'lit' ;;
                    twice) echo one; sleep 0.2; echo two ;;
                    *) echo \"re $r\" ;;
                esac
            done");
        let wait = Duration::from_secs(30);
        for round in 0..3 {
            for i in 0..20 {
                assert_eq!(process.unsolicited().unwrap(), None);
                process.send(&format!("{round}.{i}"), wait).unwrap();
                assert_eq!(process.recv(wait).unwrap(), format!("re {round}.{i}"));
                assert!(!process.last_was_early());
            }
            process.send("split", wait).unwrap();
            assert_eq!(process.recv(wait).unwrap(), "split");
        }
        process.send("twice", wait).unwrap();
        assert_eq!(process.recv(wait).unwrap(), "one");
        thread::sleep(Duration::from_millis(400));
        assert_eq!(process.unsolicited().unwrap().as_deref(), Some("two"));
    }

    /// Regression (issue 10): a line of exactly MAX_LINE bytes was refused
    /// as longer than MAX_LINE (the newline was counted).
    #[test]
    fn a_line_of_exactly_the_limit_is_accepted() {
        let script = format!(
            "head -c {MAX_LINE} /dev/zero | tr '\\0' a; echo; head -c {} /dev/zero | tr '\\0' b; echo; sleep 30",
            MAX_LINE + 1
        );
        let mut process = sh(&script);
        let line = process.recv(Duration::from_secs(30)).unwrap();
        assert_eq!(line.len(), MAX_LINE);
        assert_eq!(
            process.recv(Duration::from_secs(30)),
            Err(ProcessError::LineTooLong { limit: MAX_LINE })
        );
    }

    /// Regression (issue 10): an engine that closed its stdin was said to
    /// have closed its output.
    #[test]
    fn a_closed_stdin_is_named_as_such() {
        let mut process = sh("exec 0<&-; echo ready; sleep 30");
        assert_eq!(process.recv(Duration::from_secs(30)).unwrap(), "ready");
        let err = process.send("go", Duration::from_secs(30)).unwrap_err();
        assert_eq!(err, ProcessError::InputClosed);
        assert!(
            err.to_string().contains("closed its input (stdin)"),
            "{err}"
        );
    }

    /// Regression (issue 10): an engine that does not exit after `quit` got
    /// "no answer within ...".
    #[test]
    fn an_engine_that_does_not_exit_after_quit_is_named_as_such() {
        let mut process = sh("cat > /dev/null; sleep 30");
        let err = process
            .quit("quit", Duration::from_millis(200))
            .unwrap_err();
        assert!(matches!(err, ProcessError::NoExit { .. }), "{err:?}");
        assert!(
            err.to_string()
                .contains("did not exit within 200 ms of `quit`"),
            "{err}"
        );
    }

    /// Regression: once the stderr reader had ended (the engine closed its
    /// stderr, or exited), the wait for a line woke at once and took that
    /// for a flood of stderr (`engine/quit` errored with `stderr-flood` in
    /// some runs).
    #[test]
    fn a_closed_stderr_is_no_flood() {
        let mut process = sh("exec 2>&-; read request; echo one; read request; echo two");
        thread::sleep(Duration::from_millis(100));
        process.send("go", Duration::from_secs(30)).unwrap();
        assert_eq!(process.recv(Duration::from_secs(30)).unwrap(), "one");
        assert_eq!(
            process.quit("quit", Duration::from_secs(30)),
            Ok(Some("two".to_owned()))
        );
    }

    /// A flood of stderr ends the wait for a line at once.
    #[test]
    fn a_flood_of_stderr_ends_the_wait() {
        // Not a timeout: the flood is seen while waiting.
        let mut process = sh("head -c 17000000 /dev/zero >&2; sleep 60");
        assert_eq!(
            process.recv(Duration::from_secs(30)),
            Err(ProcessError::StderrFlood {
                limit: STDERR_LIMIT
            })
        );
    }

    /// Regression (issue 10, failure 3), at the pipe: a write into a full
    /// pipe that nobody reads gives up after the timeout.
    #[test]
    fn a_write_nobody_reads_times_out() {
        let mut process = sh("sleep 30");
        let chunk = "x".repeat(1 << 16);
        let mut result = Ok(());
        for _ in 0..64 {
            result = process.send(&chunk, Duration::from_millis(100));
            if result.is_err() {
                break;
            }
        }
        assert_eq!(
            result,
            Err(ProcessError::WriteTimeout {
                waited: Duration::from_millis(100)
            })
        );
    }
}
