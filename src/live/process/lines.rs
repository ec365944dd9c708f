//! The engine's stdout as lines. On Unix it is read where the checker
//! waits for it, non-blocking, with `poll` for the timeout: a reply wakes
//! the waiting thread itself, with no reader thread to hand it over (each
//! hand-over wakes a thread, tens of microseconds on a virtual machine).
//! Elsewhere a reader thread reads it and passes the lines on a channel.
//!
//! Either way a line is at most [`MAX_LINE`] bytes (longer is
//! [`Event::TooLong`]), at most one line and one read are held at once,
//! and a flood of stderr ([`Alarm::raise`]) ends the wait at once.

use std::process::ChildStdout;
use std::time::{Duration, Instant};

/// The longest stdout line accepted from an engine, in bytes, not counting
/// its newline. A longer line
/// is a failure ([`super::ProcessError::LineTooLong`]), never an allocation of
/// whatever size the engine likes.
pub const MAX_LINE: usize = 1 << 20;

/// What reading the engine's output gives the checker.
pub(super) enum Event {
    /// A line, and whether more output had already been read behind it
    /// (the engine wrote them together).
    Line {
        text: String,
        more: bool,
        at: When,
    },
    TooLong,
    NotUtf8,
    Closed,
    ReadError(String),
    StderrFlood,
}

/// When a line was read.
#[derive(Clone, Copy)]
pub(super) enum When {
    /// Then (by a reader thread, not yet compared with the last request).
    #[cfg(not(unix))]
    At(Instant),
    /// After the last request was sent (read where the checker waits).
    #[cfg(unix)]
    AfterSend,
    /// Before the last request was sent: it cannot be the answer to it.
    BeforeSend,
}

#[cfg(unix)]
pub(super) use direct::{Alarm, Lines};
#[cfg(not(unix))]
pub(super) use threaded::{Alarm, Lines};

/// Bytes asked of the pipe at a time.
const READ: usize = 1 << 16;

/// Where the line in `buffer` ends (its newline), if one does within the
/// longest line accepted, and whether the buffer already holds more than
/// that with no newline.
fn line_end(buffer: &[u8]) -> (Option<usize>, bool) {
    let limit = buffer.len().min(MAX_LINE + 1);
    let end = memchr::memchr(b'\n', &buffer[..limit]);
    (end, end.is_none() && buffer.len() > MAX_LINE)
}

/// A line's bytes, its newline and a carriage return before it taken off,
/// as an event.
fn line_event(mut line: Vec<u8>, more: bool, at: When) -> Event {
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    match String::from_utf8(line) {
        Ok(text) => Event::Line { text, more, at },
        Err(_) => Event::NotUtf8,
    }
}

#[cfg(unix)]
mod direct {
    use std::io::{ErrorKind, Read};
    use std::os::fd::OwnedFd;

    use rustix::event::{PollFd, PollFlags, Timespec, poll};

    use super::*;

    /// The stdout of the engine, read on demand.
    pub(in crate::live::process) struct Lines {
        stdout: ChildStdout,
        /// What one read takes.
        chunk: Box<[u8]>,
        /// Bytes read and not given out yet: at most one line and a read.
        buffer: Vec<u8>,
        /// This many bytes at the start of `buffer` were read before the
        /// last request was sent.
        before: usize,
        /// How the stream ended (closed, or a read error), once it has:
        /// given out after the lines before it.
        end: Option<Event>,
        /// The end was given out: only [`Event::Closed`] follows.
        ended: bool,
        /// Readable once the engine has flooded its stderr.
        alarm: OwnedFd,
        /// The stderr reader has not ended: the alarm may still be raised.
        alarm_open: bool,
        /// The last read tried before waiting found output: the engine
        /// tends to have answered by the time its answer is waited for
        /// (on a busy machine it runs as soon as it is written to, before
        /// the checker goes on), so the next wait reads before it polls.
        eager: bool,
        /// Waits since a read was last tried before polling, while not
        /// [`Lines::eager`]: every [`PROBE`]th wait tries one.
        since_probe: u32,
        /// System calls made to read and wait: reads and polls.
        calls: u64,
    }

    /// While reading first finds nothing, one wait in this many still
    /// tries it, to notice when the engine starts answering at once.
    const PROBE: u32 = 8;

    /// What the stderr reader raises when the engine floods it.
    pub(in crate::live::process) struct Alarm(OwnedFd);

    impl Alarm {
        /// Wakes whoever waits for a line, for good.
        pub(in crate::live::process) fn raise(&self) {
            // Non-blocking, and written once: it never waits.
            let _ = rustix::io::write(&self.0, &[1]);
        }
    }

    impl Lines {
        pub(in crate::live::process) fn new(stdout: ChildStdout) -> Result<(Lines, Alarm), String> {
            let (alarm, raise) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
                .map_err(|e| format!("could not make a pipe: {e}"))?;
            let nonblocking = |e| format!("could not make a pipe non-blocking: {e}");
            rustix::io::ioctl_fionbio(&stdout, true).map_err(nonblocking)?;
            rustix::io::ioctl_fionbio(&raise, true).map_err(nonblocking)?;
            let lines = Lines {
                stdout,
                chunk: vec![0; READ].into_boxed_slice(),
                buffer: Vec::new(),
                before: 0,
                end: None,
                ended: false,
                alarm,
                alarm_open: true,
                eager: false,
                since_probe: 0,
                calls: 0,
            };
            Ok((lines, Alarm(raise)))
        }

        /// Reads what the engine has written so far: a line among it was
        /// written before the request about to be sent.
        pub(in crate::live::process) fn before_send(&mut self) {
            while self.end.is_none() && self.buffer.len() <= MAX_LINE && self.fill() {}
            self.mark_sent();
        }

        /// Notes that everything held now came before the request about to
        /// be sent, without reading (the caller has just read the pipe).
        pub(in crate::live::process) fn mark_sent(&mut self) {
            self.before = self.buffer.len();
        }

        /// The next event, waiting for it at most `timeout`: `None` if the
        /// time is up first.
        pub(in crate::live::process) fn next(&mut self, timeout: Duration) -> Option<Event> {
            // Read once poll says there is something, when there is no time
            // to wait, or first when the engine has lately answered by the
            // time it was waited for ([`Lines::eager`]): otherwise reading
            // first would cost a read for nothing. The clock is read only
            // when a poll waits (the time starts then), and again when
            // one has to be repeated.
            let mut deadline = None;
            let mut left = timeout;
            let mut ready = self.read_first();
            let mut first = ready;
            let mut polled = false;
            loop {
                if let Some(event) = self.held() {
                    return Some(event);
                }
                if ready || left.is_zero() {
                    let got = self.fill();
                    if std::mem::take(&mut first) {
                        self.eager = got;
                    }
                    if got {
                        continue;
                    }
                }
                if left.is_zero() {
                    return None;
                }
                let now = Instant::now();
                let deadline = *deadline.get_or_insert(now + timeout);
                if polled {
                    left = deadline.saturating_duration_since(now);
                    if left.is_zero() {
                        continue;
                    }
                }
                if let Some(event) = self.wait(left) {
                    return Some(event);
                }
                (ready, polled) = (true, true);
            }
        }

        /// The system calls made to read and wait so far: each read and
        /// poll.
        pub(in crate::live::process) fn calls(&self) -> u64 {
            self.calls
        }

        /// Whether this wait reads before it polls (see [`Lines::eager`]).
        fn read_first(&mut self) -> bool {
            if self.eager {
                return true;
            }
            self.since_probe += 1;
            if self.since_probe < PROBE {
                return false;
            }
            self.since_probe = 0;
            true
        }

        /// The next event if one is held or can be read without waiting.
        pub(in crate::live::process) fn next_now(&mut self) -> Option<Event> {
            loop {
                if let Some(event) = self.held() {
                    return Some(event);
                }
                if !self.fill() {
                    return None;
                }
            }
        }

        /// What is held already: a line, or the end of the stream.
        fn held(&mut self) -> Option<Event> {
            if let Some(event) = self.line() {
                return Some(event);
            }
            if self.ended {
                return Some(Event::Closed);
            }
            let end = self.end.take()?;
            self.ended = true;
            Some(end)
        }

        /// Waits at most `left` for the stdout to be readable (or closed):
        /// an event only if the stderr reader raised its alarm.
        fn wait(&mut self, left: Duration) -> Option<Event> {
            let left = Timespec::try_from(left).unwrap_or(Timespec {
                tv_sec: i64::MAX,
                tv_nsec: 0,
            });
            let mut fds = [
                PollFd::new(&self.stdout, PollFlags::IN),
                PollFd::new(&self.alarm, PollFlags::IN),
            ];
            // The alarm only while the stderr reader can raise it: once
            // it has ended, the pipe would wake every poll.
            let watched = if self.alarm_open { 2 } else { 1 };
            self.calls += 1;
            match poll(&mut fds[..watched], Some(&left)) {
                Ok(_) if fds[1].revents().contains(PollFlags::IN) => {
                    return Some(Event::StderrFlood);
                }
                Ok(_) => self.alarm_open &= fds[1].revents().is_empty(),
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => self.end = Some(Event::ReadError(e.to_string())),
            }
            None
        }

        /// The next line held, or that the buffer holds too long a one.
        fn line(&mut self) -> Option<Event> {
            if self.ended {
                return None;
            }
            let (end, too_long) = line_end(&self.buffer);
            let used = match end {
                Some(end) => end + 1,
                None if too_long => {
                    self.buffer = Vec::new();
                    self.ended = true;
                    return Some(Event::TooLong);
                }
                // The last line, with no newline.
                None if self.end.is_some() && !self.buffer.is_empty() => self.buffer.len(),
                None => return None,
            };
            // The line is copied out and the buffer kept, with its
            // capacity, for the next read.
            let line = self.buffer[..used].to_vec();
            self.buffer.drain(..used);
            let at = if used <= self.before {
                When::BeforeSend
            } else {
                When::AfterSend
            };
            self.before = self.before.saturating_sub(used);
            Some(line_event(line, !self.buffer.is_empty(), at))
        }

        /// Reads once without waiting: whether anything came (the end of
        /// the stream, or an error, is noted in `end`).
        fn fill(&mut self) -> bool {
            if self.end.is_some() {
                return false;
            }
            let read = loop {
                self.calls += 1;
                match self.stdout.read(&mut self.chunk) {
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    read => break read,
                }
            };
            let got = match read {
                Ok(0) => {
                    self.end = Some(Event::Closed);
                    0
                }
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => 0,
                Err(e) => {
                    self.end = Some(Event::ReadError(e.to_string()));
                    0
                }
            };
            self.buffer.extend_from_slice(&self.chunk[..got]);
            got > 0
        }
    }
}

#[cfg(not(unix))]
mod threaded {
    use std::io::{BufRead, BufReader, Read};
    use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
    use std::thread;

    use super::*;

    /// Lines read ahead of the checker: past this the reader thread waits,
    /// so an engine that prints without end blocks instead of filling
    /// memory.
    const READ_AHEAD: usize = 64;

    /// The stdout of the engine, read by a thread of its own.
    pub(in crate::live::process) struct Lines {
        events: Receiver<Event>,
        /// When the last request was sent.
        sent: Option<Instant>,
    }

    /// What the stderr reader raises when the engine floods it.
    pub(in crate::live::process) struct Alarm(SyncSender<Event>);

    impl Alarm {
        /// Wakes whoever waits for a line.
        pub(in crate::live::process) fn raise(&self) {
            // Never block here: the engine must not wait on its stderr.
            let _ = self.0.try_send(Event::StderrFlood);
        }
    }

    impl Lines {
        pub(in crate::live::process) fn new(stdout: ChildStdout) -> Result<(Lines, Alarm), String> {
            let (sender, events) = sync_channel(READ_AHEAD);
            let alarm = Alarm(sender.clone());
            // The thread is not joined: it ends when the pipe closes, which
            // the kill in `Drop` guarantees for the child; a stray
            // grandchild holding the pipe open cannot make the checker wait.
            thread::Builder::new()
                .name("kpe-engine-stdout".to_owned())
                .spawn(move || read_stdout(stdout, &sender))
                .map_err(|e| format!("could not start a reader thread: {e}"))?;
            Ok((Lines { events, sent: None }, alarm))
        }

        /// Notes when the request about to be sent is sent.
        pub(in crate::live::process) fn before_send(&mut self) {
            self.sent = Some(Instant::now());
        }

        /// The same, for a caller that has just looked for output.
        pub(in crate::live::process) fn mark_sent(&mut self) {
            self.before_send();
        }

        /// The next event, waiting for it at most `timeout`: `None` if the
        /// time is up first.
        pub(in crate::live::process) fn next(&mut self, timeout: Duration) -> Option<Event> {
            match self.events.recv_timeout(timeout) {
                Ok(Event::Line {
                    text,
                    more,
                    at: When::At(at),
                }) => Some(Event::Line {
                    text,
                    more,
                    at: if self.sent.is_some_and(|sent| at < sent) {
                        When::BeforeSend
                    } else {
                        When::At(at)
                    },
                }),
                Ok(event) => Some(event),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => Some(Event::Closed),
            }
        }
    }

    impl Lines {
        /// The next event if one has come, without waiting.
        pub(in crate::live::process) fn next_now(&mut self) -> Option<Event> {
            self.next(Duration::ZERO)
        }
    }

    fn read_stdout(stdout: impl Read, sender: &SyncSender<Event>) {
        let mut reader = BufReader::with_capacity(READ, stdout);
        let mut line = Vec::new();
        loop {
            line.clear();
            let read = (&mut reader)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut line);
            let event = match read {
                Ok(0) => {
                    let _ = sender.send(Event::Closed);
                    return;
                }
                Ok(_) if line_end(&line).1 => {
                    let _ = sender.send(Event::TooLong);
                    return;
                }
                Ok(_) => {
                    let more = !reader.buffer().is_empty();
                    line_event(std::mem::take(&mut line), more, When::At(Instant::now()))
                }
                Err(e) => {
                    let _ = sender.send(Event::ReadError(e.to_string()));
                    return;
                }
            };
            if sender.send(event).is_err() {
                return; // the checker is gone
            }
        }
    }
}
