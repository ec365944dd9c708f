//! Whether a signal asked the run to stop: the one flag every long loop
//! reads (a live run's scheduler, transcript checking between games,
//! `kpe-check merge` between files and units). The live mode's handler
//! (`crate::live::interrupt`) sets it; it lives here, below both modes,
//! so that each can heed it without importing the other.

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

/// A signal that interrupts a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// SIGHUP (the terminal went away).
    Hup,
    /// SIGINT (Ctrl-C).
    Int,
    /// SIGTERM.
    Term,
}

impl Signal {
    /// Its number on Linux and the BSDs.
    #[must_use]
    pub fn number(self) -> u8 {
        match self {
            Signal::Hup => 1,
            Signal::Int => 2,
            Signal::Term => 15,
        }
    }

    /// The exit code of a run it interrupted: 128 + its number (129, 130,
    /// 143), as shells report a process killed by it.
    #[must_use]
    pub fn exit_code(self) -> u8 {
        128 + self.number()
    }

    /// The signal of a name (`SIGTERM`, as [`fmt::Display`] writes it),
    /// if it is one of the three.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Signal> {
        [Signal::Hup, Signal::Int, Signal::Term]
            .into_iter()
            .find(|s| s.to_string() == name)
    }

    /// The signal of a number, if it is one of the three.
    #[must_use]
    pub fn from_number(n: u8) -> Option<Signal> {
        match n {
            1 => Some(Signal::Hup),
            2 => Some(Signal::Int),
            15 => Some(Signal::Term),
            _ => None,
        }
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Signal::Hup => "SIGHUP",
            Signal::Int => "SIGINT",
            Signal::Term => "SIGTERM",
        })
    }
}

/// The signal that arrived, 0 for none.
static INTERRUPTED: AtomicU8 = AtomicU8::new(0);

/// The signal that interrupted the run, if one did.
#[must_use]
pub fn interrupted() -> Option<Signal> {
    Signal::from_number(INTERRUPTED.load(Ordering::SeqCst))
}

/// Records signal `number` as the one that interrupted the run; whether it
/// is the first (a later one changes nothing).
pub fn record_signal(number: u8) -> bool {
    INTERRUPTED
        .compare_exchange(0, number, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok()
}

/// How long a wait for input lasts before the signal flag is looked at
/// again.
const POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Reads `reader` (standard input, a pipe that may stay open and silent)
/// to its end on a thread of its own, handing each piece to `piece` on
/// this one, and stops at once when a signal arrives: a blocked read cannot
/// be interrupted, so it is left to the thread, which ends with the
/// process.
///
/// # Errors
///
/// What `reader` or `piece` fails with; [`std::io::ErrorKind::Interrupted`]
/// naming the signal when one arrived.
pub fn read_heeding_signals(
    mut reader: impl std::io::Read + Send + 'static,
    mut piece: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::sync::mpsc;
    let (send, receive) = mpsc::sync_channel::<std::io::Result<Vec<u8>>>(4);
    std::thread::Builder::new()
        .name("kpe-input".to_owned())
        .spawn(move || {
            let mut buf = vec![0; 1 << 16];
            loop {
                let sent = match reader.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => send.send(Ok(buf[..n].to_vec())),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => send.send(Err(e)),
                };
                if sent.is_err() {
                    return;
                }
            }
        })?;
    loop {
        if let Some(signal) = interrupted() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                format!("interrupted by {signal}"),
            ));
        }
        match receive.recv_timeout(POLL) {
            Ok(Ok(bytes)) => piece(&bytes)?,
            Ok(Err(e)) => return Err(e),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
        }
    }
}
