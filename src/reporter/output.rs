//! Report files (`--junit FILE`, `--html FILE`): written whole to a
//! temporary file beside the target and renamed into place, so that a
//! reader never sees half a report and a failed run leaves the old one;
//! and checked before the run starts, so that a report never overwrites
//! an input, two reports of one run never share a file, and an
//! unwritable path is named before any work is done.

use std::fmt;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` through a temporary file in the same folder,
/// renamed into place when complete. A symlink at `path` is replaced, not
/// followed, so its target is never written.
///
/// # Errors
///
/// The temporary file cannot be made, written or renamed; the message
/// names `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let named =
        |e: io::Error| io::Error::new(e.kind(), format!("{}: {}", path.display(), os_words(&e)));
    let mut temp = beside(path).map_err(named)?;
    temp.write_all(bytes).map_err(named)?;
    temp.as_file_mut().flush().map_err(named)?;
    temp.persist(path).map_err(|e| named(e.error))?;
    Ok(())
}

/// Writes to `path` what `write` writes, through a temporary file in the
/// same folder, renamed into place when complete, as
/// [`write_atomically`]: a report too large to hold in memory is written
/// as it is made.
///
/// # Errors
///
/// The temporary file cannot be made, written or renamed (the message
/// names `path`), or `write`'s error.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut dyn io::Write) -> io::Result<()>,
) -> io::Result<()> {
    let named =
        |e: io::Error| io::Error::new(e.kind(), format!("{}: {}", path.display(), os_words(&e)));
    let temp = beside(path).map_err(named)?;
    let mut out = io::BufWriter::new(temp);
    write(&mut out).map_err(named)?;
    let temp = out.into_inner().map_err(|e| named(e.into_error()))?;
    temp.persist(path).map_err(|e| named(e.error))?;
    Ok(())
}

/// A temporary file in the folder of `path`, to be renamed onto it. It is
/// made with the permissions any new file gets (read and write for all,
/// less the umask: 0644 under umask 022), as a report written in place
/// would be, not tempfile's private 0600: a report is for sharing, and a
/// CI step running as another user must be able to read it.
fn beside(path: &Path) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".kpe-report-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(folder_of(path))
}

/// The operating system's words for `e`, without the name of the scratch
/// file that tempfile adds to them (which says nothing to the user).
fn os_words(e: &io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at path ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// The folder a file at `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Why the output files of a run are refused before it starts.
#[derive(Debug)]
pub struct OutputError {
    /// The flag that names the output (`--junit`, `--html`).
    pub flag: &'static str,
    /// The path it names.
    pub path: PathBuf,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.flag, self.path.display(), self.message)
    }
}

impl std::error::Error for OutputError {}

/// The file behind a path, by identity (device and inode on Unix), when it
/// exists; symlinks are followed.
fn identity(path: &Path) -> Option<(u64, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// The path made absolute and cleaned as far as it exists (its folder
/// resolved, so `./a/../t.json` and `t.json` compare equal).
fn resolved(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let folder = std::fs::canonicalize(folder_of(path)).unwrap_or_else(|_| folder_of(path).into());
    match path.file_name() {
        Some(name) => folder.join(name),
        None => folder,
    }
}

/// Whether two paths name the same file: by identity, or (for files not
/// yet made) by their resolved paths.
fn same_file(a: &Path, b: &Path) -> bool {
    match (identity(a), identity(b)) {
        (Some(x), Some(y)) => x == y,
        _ => resolved(a) == resolved(b),
    }
}

/// Checks the report files of a run before it starts: none may be one of
/// `inputs` (by path or by identity, through symlinks and hard links), no
/// two may be the same file, none may be a directory or a special file,
/// and each must be writable where it is (a temporary file is made and
/// removed beside it).
///
/// # Errors
///
/// [`OutputError`] naming the flag and the path.
pub fn check_outputs(
    inputs: &[&Path],
    outputs: &[(&'static str, &Path)],
) -> Result<(), OutputError> {
    let refuse = |flag: &'static str, path: &Path, message: String| OutputError {
        flag,
        path: path.to_owned(),
        message,
    };
    for (k, &(flag, path)) in outputs.iter().enumerate() {
        if let Some(input) = inputs
            .iter()
            .find(|i| i.as_os_str() != "-" && same_file(i, path))
        {
            return Err(refuse(
                flag,
                path,
                format!(
                    "is the input {}: the report would overwrite it; name another file",
                    input.display()
                ),
            ));
        }
        if let Some((other, _)) = outputs[..k].iter().find(|(_, p)| same_file(p, path)) {
            return Err(refuse(
                flag,
                path,
                format!("is also the file of {other}: each report needs its own file"),
            ));
        }
        if let Ok(meta) = std::fs::metadata(path)
            && !meta.is_file()
        {
            let kind = crate::scenario::file_type_name(&meta.file_type());
            return Err(refuse(
                flag,
                path,
                format!("it is {kind}; a report is written to a regular file"),
            ));
        }
        let folder = folder_of(path);
        if let Err(e) = tempfile::Builder::new()
            .prefix(".kpe-report-")
            .tempfile_in(folder)
        {
            return Err(refuse(
                flag,
                path,
                format!(
                    "cannot write a file in {}: {}",
                    folder.display(),
                    os_words(&e)
                ),
            ));
        }
    }
    Ok(())
}
