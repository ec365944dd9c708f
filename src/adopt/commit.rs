//! Writing an adoption's files as one change (issue 46).
//!
//! An adoption rewrites a dozen files; a kill, a full disk or a second run
//! must never leave some of them adopted and the rest not. The model is
//! git's `index.lock`:
//!
//! 1. take the lock: create [`LOCK_FILE`] at the root with `O_EXCL`, so a
//!    second run is refused while it exists;
//! 2. check that every target is a regular file that can be opened for
//!    writing (a directory where a file is expected, a read-only file or
//!    mount is refused here, before anything is written);
//! 3. write each new text beside its target (`.NAME.kpe-adopt-new`, the
//!    target's permissions, synced);
//! 4. commit: write the list of targets to [`JOURNAL_FILE`] (beside, then
//!    renamed into place);
//! 5. rename each new text over its target;
//! 6. remove the journal, then the lock.
//!
//! Until step 4 the tree is as before, and whatever stops the run,
//! [`recover`] deletes the new texts; from step 4 on the journal says the
//! change is decided, and [`recover`] renames what is left. A run that finds
//! the lock refuses and says how to recover; `kpe adopt --recover` does it.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::error::{AdoptError, Holder};

/// The lock, relative to the root: it exists while a `kpe adopt` runs (or
/// after one was stopped before it finished) and holds that run's process
/// ID.
pub const LOCK_FILE: &str = ".kpe-adopt.lock";
/// The journal, relative to the root: the targets of a decided change, one
/// relative path a line after a header line.
pub const JOURNAL_FILE: &str = ".kpe-adopt.journal";
/// The end of the name of a new text written beside its target.
pub const NEW_SUFFIX: &str = ".kpe-adopt-new";
/// A test hook: with `KPE_ADOPT_STOP_AFTER=K`, `kpe adopt` exits at once
/// (status [`STOPPED_EXIT`], nothing cleaned up) after its step K, as if it
/// had been killed there. Steps count from 1: the lock, each new text, the
/// journal, each rename, the journal's removal.
pub const STOP_AFTER_VAR: &str = "KPE_ADOPT_STOP_AFTER";
/// The exit status of a run stopped by [`STOP_AFTER_VAR`] (a shell's code
/// for SIGKILL).
pub const STOPPED_EXIT: i32 = 137;

const JOURNAL_HEADER: &str = "kpe-adopt-journal 1";

/// The new text's place beside `target`.
fn beside(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}{NEW_SUFFIX}"))
}

/// Counts the steps of a run and stops it after the one
/// [`STOP_AFTER_VAR`] names.
struct Steps {
    done: u32,
    stop: Option<u32>,
}

impl Steps {
    fn new() -> Steps {
        let stop = std::env::var(STOP_AFTER_VAR)
            .ok()
            .and_then(|v| v.parse().ok());
        Steps { done: 0, stop }
    }

    fn step(&mut self) {
        self.done += 1;
        if self.stop == Some(self.done) {
            std::process::exit(STOPPED_EXIT);
        }
    }
}

/// The lock of one run, taken with `O_EXCL` before any file is read;
/// [`Lock::release`] removes it. A lock that is dropped unreleased (a change
/// left half made) stays on disk for [`recover`].
pub(super) struct Lock {
    path: PathBuf,
    steps: Steps,
}

impl Lock {
    pub(super) fn take(root: &Path) -> Result<Lock, AdoptError> {
        let path = root.join(LOCK_FILE);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                let mut lock = Lock {
                    path,
                    steps: Steps::new(),
                };
                if let Err(e) = writeln!(file, "{}", std::process::id()) {
                    let _ = fs::remove_file(&lock.path);
                    return Err(AdoptError::Io(lock.path, e));
                }
                lock.steps.step();
                Ok(lock)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                Err(AdoptError::Locked(Holder::of(&path), path))
            }
            Err(e) => Err(AdoptError::Io(path, e)),
        }
    }

    pub(super) fn release(self) -> Result<(), AdoptError> {
        fs::remove_file(&self.path).map_err(|e| AdoptError::Io(self.path.clone(), e))
    }
}

/// Writes each `(target, text)` as one change under the lock: either every
/// target has its new text, or (on an error before the commit) none has
/// and no new text is left beside them.
///
/// # Errors
/// The lock is held ([`AdoptError::Locked`]); a target is not a regular
/// file or cannot be written, or a new text cannot be written beside it
/// (nothing changed then); a rename failed after the commit
/// ([`AdoptError::Unfinished`]: the journal and the lock are kept for
/// `kpe adopt --recover`).
pub(super) fn write_all(
    mut lock: Lock,
    root: &Path,
    files: &[(PathBuf, String)],
) -> Result<(), AdoptError> {
    let prepared = prepare(root, files, &mut lock.steps);
    if let Err(e) = prepared {
        for (target, _) in files {
            let _ = fs::remove_file(beside(target));
        }
        lock.release()?;
        return Err(e);
    }
    let journal = root.join(JOURNAL_FILE);
    let mut record = format!("{JOURNAL_HEADER}\n");
    for (target, _) in files {
        let relative = target.strip_prefix(root).unwrap_or(target);
        record.push_str(&relative.to_string_lossy());
        record.push('\n');
    }
    if let Err(e) = write_synced(&beside(&journal), &record, None)
        .and_then(|()| fs::rename(beside(&journal), &journal))
    {
        for (target, _) in files {
            let _ = fs::remove_file(beside(target));
        }
        let _ = fs::remove_file(beside(&journal));
        lock.release()?;
        return Err(AdoptError::Io(journal, e));
    }
    lock.steps.step();
    for (target, _) in files {
        fs::rename(beside(target), target).map_err(|e| AdoptError::Unfinished {
            root: root.to_owned(),
            cause: format!("{}: {e}", target.display()),
        })?;
        lock.steps.step();
    }
    fs::remove_file(&journal).map_err(|e| AdoptError::Unfinished {
        root: root.to_owned(),
        cause: format!("{}: {e}", journal.display()),
    })?;
    lock.steps.step();
    lock.release()
}

/// Checks every target, then writes every new text beside its target.
fn prepare(root: &Path, files: &[(PathBuf, String)], steps: &mut Steps) -> Result<(), AdoptError> {
    let mut permissions = Vec::new();
    for (target, _) in files {
        // The journal names each file by its path as text.
        if target
            .strip_prefix(root)
            .unwrap_or(target)
            .to_str()
            .is_none()
        {
            return Err(AdoptError::NotAFile(
                target.clone(),
                "its path is not UTF-8, which the journal cannot name",
            ));
        }
        let io = |e| AdoptError::Io(target.clone(), e);
        let meta = fs::symlink_metadata(target).map_err(io)?;
        if !meta.is_file() {
            return Err(AdoptError::NotAFile(target.clone(), kind(&meta)));
        }
        // Opened for writing, not truncated: a read-only file or mount is
        // refused now, not after other files were changed.
        fs::OpenOptions::new()
            .append(true)
            .open(target)
            .map_err(io)?;
        permissions.push(meta.permissions());
    }
    for ((target, text), mode) in files.iter().zip(permissions) {
        let new = beside(target);
        write_synced(&new, text, Some(mode)).map_err(|e| AdoptError::Io(new.clone(), e))?;
        steps.step();
    }
    Ok(())
}

/// What a directory entry is, in words.
fn kind(meta: &fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "it is a directory, not a regular file"
    } else if t.is_symlink() {
        "it is a symbolic link, not a regular file"
    } else {
        "it is not a regular file"
    }
}

fn write_synced(path: &Path, text: &str, mode: Option<fs::Permissions>) -> std::io::Result<()> {
    let mut file = fs::File::create(path)?;
    file.write_all(text.as_bytes())?;
    if let Some(mode) = mode {
        file.set_permissions(mode)?;
    }
    file.sync_all()
}

/// What [`recover`] found and did.
#[derive(Debug, PartialEq, Eq)]
pub enum Recovery {
    /// No lock, journal or new text: nothing to do.
    Nothing,
    /// A stopped run had decided its change: these files (relative to the
    /// root) were renamed into place, and the change is whole.
    Finished(Vec<PathBuf>),
    /// A stopped run had not decided its change: these new texts were
    /// deleted, and the tree is as before it.
    Undone(Vec<PathBuf>),
    /// Only a lock was left: the run had not begun writing, or had
    /// finished all but removing its lock; no file is half written.
    StaleLock,
}

/// Finishes or undoes what a stopped `kpe adopt` at `root` started, then
/// removes its lock (see [`super::recover`]); without a journal, new texts
/// are looked for in `folders` (relative to the root).
pub(super) fn recover(root: &Path, folders: &[&str]) -> Result<Recovery, AdoptError> {
    let lock = root.join(LOCK_FILE);
    if lock.exists() {
        let holder = Holder::of(&lock);
        if matches!(holder, Holder::Running(pid) if pid != std::process::id()) {
            return Err(AdoptError::Locked(holder, lock));
        }
    }
    let journal = root.join(JOURNAL_FILE);
    let outcome = match fs::read_to_string(&journal) {
        Ok(text) => {
            let mut lines = text.lines();
            if lines.next() != Some(JOURNAL_HEADER) || !text.ends_with('\n') {
                return Err(AdoptError::Malformed(
                    journal,
                    format!(
                        "not a journal of `kpe adopt` (its first line is not `{JOURNAL_HEADER}`, or it is cut short); \
                         restore the files it would list by hand (`git checkout`), then delete it and {LOCK_FILE}"
                    ),
                ));
            }
            let mut renamed = Vec::new();
            for line in lines {
                let target = root.join(line);
                let new = beside(&target);
                if new.exists() {
                    fs::rename(&new, &target).map_err(|e| AdoptError::Io(target.clone(), e))?;
                    renamed.push(PathBuf::from(line));
                }
            }
            fs::remove_file(&journal).map_err(|e| AdoptError::Io(journal.clone(), e))?;
            Recovery::Finished(renamed)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut deleted = Vec::new();
            for dir in folders.iter().map(|d| root.join(d)) {
                let Ok(entries) = fs::read_dir(&dir) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let name = entry.file_name();
                    let name = name.to_string_lossy();
                    if name.starts_with('.') && name.ends_with(NEW_SUFFIX) {
                        let path = entry.path();
                        fs::remove_file(&path).map_err(|e| AdoptError::Io(path.clone(), e))?;
                        deleted.push(path.strip_prefix(root).unwrap_or(&path).to_owned());
                    }
                }
            }
            let journal_new = beside(&journal);
            if journal_new.exists() {
                fs::remove_file(&journal_new)
                    .map_err(|e| AdoptError::Io(journal_new.clone(), e))?;
                deleted.push(PathBuf::from(journal_new.file_name().unwrap_or_default()));
            }
            deleted.sort();
            match (deleted.is_empty(), lock.exists()) {
                (true, false) => return Ok(Recovery::Nothing),
                (true, true) => Recovery::StaleLock,
                (false, _) => Recovery::Undone(deleted),
            }
        }
        Err(e) => return Err(AdoptError::Io(journal, e)),
    };
    match fs::remove_file(&lock) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(AdoptError::Io(lock, e)),
        _ => Ok(outcome),
    }
}

impl Recovery {
    /// The report `kpe adopt --recover` prints.
    #[must_use]
    pub fn to_text(&self) -> String {
        let list = |files: &[PathBuf]| {
            files
                .iter()
                .map(|f| format!("\n  {}", f.display()))
                .collect::<String>()
        };
        match self {
            Recovery::Nothing => "Nothing to recover: no `kpe adopt` was stopped here.".to_owned(),
            Recovery::Finished(files) => format!(
                "Finished the adoption a stopped `kpe adopt` had decided: every file now has the new default ({} renamed into place now).{}",
                files.len(),
                list(files)
            ),
            Recovery::StaleLock => format!(
                "Removed the lock {LOCK_FILE} of a stopped `kpe adopt`; it had left no file half written \
                 (it stopped before writing, or after its last rename: spec/default.yaml says which default is in force)."
            ),
            Recovery::Undone(files) => format!(
                "Undid a `kpe adopt` stopped before it changed any file: the tree is as before it ({} new text{} deleted).{}",
                files.len(),
                if files.len() == 1 { "" } else { "s" },
                list(files)
            ),
        }
    }
}
