//! Why `kpe adopt` could not adopt, and who holds its lock.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::profile::Switch;

/// Why an adoption could not be made. Nothing is changed when it fails,
/// except after [`AdoptError::Unfinished`].
#[derive(Debug)]
#[non_exhaustive]
pub enum AdoptError {
    /// The word names no reading (exit code 2).
    UnknownReading(String),
    /// The root does not exist, is not a directory, or has no
    /// `spec/default.yaml`: what it is (exit code 2).
    NotAProject(PathBuf, String),
    /// A file is not in the expected form: where and what (exit code 2).
    Malformed(PathBuf, String),
    /// A file to be written is not a regular file (or has a path the
    /// journal cannot name): why, in words (exit code 1).
    NotAFile(PathBuf, &'static str),
    /// A file could not be read or written (exit code 1).
    Io(PathBuf, std::io::Error),
    /// The lock exists: who holds it, and the lock's path (exit code 1).
    Locked(Holder, PathBuf),
    /// A rename failed after the change was decided: the journal and the
    /// lock are kept, and `kpe adopt --recover` finishes it (exit code 1).
    Unfinished {
        /// The repository's root.
        root: PathBuf,
        /// The file and the error.
        cause: String,
    },
}

impl AdoptError {
    /// The exit code `kpe adopt` gives: 2 for bad arguments or input (an
    /// unknown reading, a root that is not the project, a malformed file),
    /// 1 when the files are sound but cannot be changed now.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            AdoptError::UnknownReading(_)
            | AdoptError::NotAProject(..)
            | AdoptError::Malformed(..) => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for AdoptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdoptError::UnknownReading(word) => write!(
                f,
                "unknown reading `{}`: expected a reading ID ({}), a setting ({}) or a switch ({})",
                word.escape_debug(),
                Switch::ALL.map(Switch::reading).join(", "),
                Switch::ALL.map(Switch::setting).join(", "),
                Switch::ALL.map(Switch::name).join(", ")
            ),
            AdoptError::NotAProject(root, what) => write!(
                f,
                "{}: not a kpe repository: {what} (give its root with --root)",
                root.display()
            ),
            AdoptError::NotAFile(path, what) => write!(
                f,
                "{}: cannot be written: {what}; nothing was changed",
                path.display()
            ),
            AdoptError::Io(path, e) => write!(f, "{}: {e}", path.display()),
            AdoptError::Malformed(path, what) => write!(f, "{}: {what}", path.display()),
            AdoptError::Locked(holder, lock) => {
                write!(
                    f,
                    "{} exists: {holder}. If no `kpe adopt` is running here, `kpe adopt --recover{}` \
                     finishes or undoes the stopped one and removes the lock",
                    lock.display(),
                    root_flag(lock)
                )?;
                if let Holder::Running(_) = holder {
                    // `--recover` refuses while that process runs: the way
                    // out when its ID now belongs to another program.
                    write!(
                        f,
                        " (it refuses while that process runs: if it is not a `kpe adopt`, \
                         delete the lock first)"
                    )?;
                }
                Ok(())
            }
            AdoptError::Unfinished { root, cause } => write!(
                f,
                "{cause}: the adoption was decided but not every file is renamed into place; \
                 fix the cause, then `kpe adopt --recover --root {}` finishes it",
                root.display()
            ),
        }
    }
}

impl std::error::Error for AdoptError {}

/// ` --root DIR` for the lock's folder, unless it is the current one.
fn root_flag(lock: &Path) -> String {
    match lock.parent() {
        Some(dir) if !dir.as_os_str().is_empty() && dir != Path::new(".") => {
            format!(" --root {}", dir.display())
        }
        _ => String::new(),
    }
}

/// Who holds a lock, as far as can be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// The lock names a process that is running (or whose ID was reused).
    Running(u32),
    /// The lock names a process that is not running: a stopped run.
    Gone(u32),
    /// The lock names a process this system cannot look for, or none.
    Unknown,
}

impl Holder {
    pub(super) fn of(lock: &Path) -> Holder {
        let Some(pid) = fs::read_to_string(lock)
            .ok()
            .and_then(|t| t.trim().parse::<u32>().ok())
        else {
            return Holder::Unknown;
        };
        if cfg!(target_os = "linux") {
            if Path::new("/proc").join(pid.to_string()).exists() {
                Holder::Running(pid)
            } else {
                Holder::Gone(pid)
            }
        } else {
            Holder::Unknown
        }
    }
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Holder::Running(pid) => write!(f, "another `kpe adopt` (process {pid}) is running"),
            Holder::Gone(pid) => write!(
                f,
                "the `kpe adopt` that took it (process {pid}) is not running: it was stopped before it finished"
            ),
            Holder::Unknown => {
                write!(
                    f,
                    "another `kpe adopt` is running, or one was stopped before it finished"
                )
            }
        }
    }
}
