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
