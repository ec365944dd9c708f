//! Layer files: one solved layer with a header that says what it holds.
//!
//! A file is a short text header, a blank line, then the body: one
//! little-endian `u16` for every state in rank order, its value and depth
//! (`entry.rs`).
//! The header names the format, the class and the profiles it covers, the
//! layout, the stones, the number of states and the SHA-256 of the body;
//! each is checked when the file is read, and a file that disagrees with
//! what was asked for, or with itself, is refused with the file and the
//! field named.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::class::Class;
use super::entry;
use super::rank::layer_size;
use crate::profile::Profile;

/// The first line of every layer file.
pub const MAGIC: &str = "kpe-solve-table";
/// The format version this kpe writes. Version 1 named a class and the
/// profiles it covers relative to the default, so after `kpe adopt` its
/// `default/` would have passed for the new default's; version 2 names
/// them by their settings. Version 1 files are still read, as written
/// against the all-off profile (the only default released with them).
pub const FORMAT: u32 = 2;
/// How the body is laid out.
pub const LAYOUT: &str = "ranked-boards,south-to-move,u16le:margin/2+24|depth<<6";
/// The longest header of a layer or opening file read, in bytes.
pub const HEADER_MAX: usize = 4096;

/// One layer as stored: each state's value byte and depth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerData {
    /// Value bytes, one per state in rank order: the margin as a signed
    /// byte, its lowest bit set for an endless 0.
    pub values: Vec<u8>,
    /// Depths, in the same order: plies to a capture or the end with best
    /// play, 1023 for an endless 0.
    pub depths: Vec<u16>,
}

/// Why a table, or one layer file of it, cannot be used.
#[derive(Debug)]
#[non_exhaustive]
pub enum TableError {
    /// The layer file is not there.
    Missing {
        /// The file looked for.
        path: PathBuf,
        /// The layer: stones on the board.
        stones: u8,
    },
    /// The file cannot be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        error: io::Error,
    },
    /// The file does not start as a layer file does.
    NotATable {
        /// The file.
        path: PathBuf,
    },
    /// A header field is not what was expected.
    Header {
        /// The file.
        path: PathBuf,
        /// The field.
        field: &'static str,
        /// What it should say.
        expected: String,
        /// What it says (`(missing)` when absent).
        found: String,
    },
    /// The body is not as long as the header says.
    Length {
        /// The file.
        path: PathBuf,
        /// Bytes the header promises.
        expected: u64,
        /// Bytes there are.
        found: u64,
    },
    /// The body's SHA-256 is not the header's.
    Checksum {
        /// The file.
        path: PathBuf,
        /// The header's checksum.
        expected: String,
        /// The body's.
        found: String,
    },
    /// The path is there but is no regular file (a FIFO, a device, a
    /// folder): it is not opened, so a FIFO cannot make the reader wait.
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is.
        kind: &'static str,
    },
    /// A line of the header is not one field of a layer file, or names a
    /// field twice.
    HeaderLine {
        /// The file.
        path: PathBuf,
        /// The line, counted from 1 (the magic line).
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// A layer below the highest one is missing: the table has a hole.
    Gap {
        /// The missing layer's file.
        missing: PathBuf,
        /// A layer above it that is there.
        above: PathBuf,
    },
    /// Another `kpe solve` holds the lock of the class folder.
    Locked {
        /// The lock file.
        path: PathBuf,
    },
    /// An entry that no solve writes (the checksum matched, so the file
    /// was written wrong).
    Entry {
        /// The file.
        path: PathBuf,
        /// The state's rank.
        rank: u64,
        /// The entry.
        word: u16,
    },
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::Missing { path, stones } => write!(
                f,
                "{}: no such layer file: the table has no layer of {stones} stones (build it with `kpe solve`)",
                path.display()
            ),
            TableError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            TableError::NotATable { path } => write!(
                f,
                "{}: not a kpe table layer: expected the first line `{MAGIC}`",
                path.display()
            ),
            TableError::Header {
                path,
                field,
                expected,
                found,
            } => write!(
                f,
                "{}: header field `{field}` says `{found}`, expected `{expected}`",
                path.display()
            ),
            TableError::Length {
                path,
                expected,
                found,
            } => write!(
                f,
                "{}: the body holds {found} bytes, the header promises {expected} (truncated or padded file)",
                path.display()
            ),
            TableError::Checksum {
                path,
                expected,
                found,
            } => write!(
                f,
                "{}: checksum mismatch: the header says sha256 {expected}, the body's is {found} (corrupt file)",
                path.display()
            ),
            TableError::NotRegular { path, kind } => write!(
                f,
                "{}: not a regular file ({kind}): a table layer must be a plain file; not read",
                path.display()
            ),
            TableError::HeaderLine {
                path,
                line,
                problem,
            } => write!(f, "{}:{line}: header: {problem}", path.display()),
            TableError::Gap { missing, above } => write!(
                f,
                "{}: no such layer file, but {} is there: the table has a missing layer (solve it again with `kpe solve`, which fills the gap)",
                missing.display(),
                above.display()
            ),
            TableError::Locked { path } => write!(
                f,
                "{}: another `kpe solve` is writing this table (it holds this lock); wait for it to finish, or solve into another --dir",
                path.display()
            ),
            TableError::Entry { path, rank, word } => write!(
                f,
                "{}: state {rank} holds {word:#06x}, which is no value (the file was written wrong)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for TableError {}

/// The directory of `class`'s layer files under `dir`.
#[must_use]
pub fn class_dir(dir: &Path, class: Class) -> PathBuf {
    dir.join(class.to_string())
}

/// Where layer format 1 kept the layer of `stones` stones of `class`.
fn layer_path_format_1(dir: &Path, class: Class, stones: u8) -> PathBuf {
    dir.join(class.name_in_format_1())
        .join(format!("layer-{stones:02}.kpet"))
}

/// The layer file of `stones` stones of `class` under `dir`.
#[must_use]
pub fn layer_path(dir: &Path, class: Class, stones: u8) -> PathBuf {
    class_dir(dir, class).join(format!("layer-{stones:02}.kpet"))
}

/// The `covers:` field of a class's layers: its two profiles, explicit.
fn covers(class: Class) -> String {
    class.covers().map(Profile::explicit).join(" ")
}

/// The `covers:` field format 1 wrote: the profiles against the all-off
/// profile (`default strict-lock`).
fn covers_format_1(class: Class) -> String {
    class
        .covers()
        .map(|p| p.written_against(Profile::ALL_OFF))
        .join(" ")
}

fn header(class: Class, stones: u8, sha: &str) -> String {
    let covers = covers(class);
    format!(
        "{MAGIC}\nformat: {FORMAT}\nclass: {class}\ncovers: {covers}\nlayout: {LAYOUT}\nstones: {stones}\nstates: {}\nsha256: {sha}\n\n",
        layer_size(stones)
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn body(data: &LayerData) -> Vec<u8> {
    let mut body = vec![0u8; 2 * data.values.len()];
    body.par_chunks_mut(2)
        .zip(data.values.par_iter().zip(&data.depths))
        .for_each(|(out, (&v, &d))| out.copy_from_slice(&entry::pack(v, d).to_le_bytes()));
    body
}

/// Writes a layer file, all at once: to a `.partial` file first, renamed
/// into place when complete, so an interrupted write leaves no layer file.
///
/// # Errors
///
/// [`TableError::Io`] when the directory or the file cannot be written.
pub fn write(
    dir: &Path,
    class: Class,
    stones: u8,
    data: &LayerData,
) -> Result<PathBuf, TableError> {
    let path = layer_path(dir, class, stones);
    let io = |error| TableError::Io {
        path: path.clone(),
        error,
    };
    fs::create_dir_all(class_dir(dir, class)).map_err(io)?;
    let partial = path.with_extension("kpet.partial");
    let body = body(data);
    let sha = hex(&Sha256::digest(&body));
    let mut file = io::BufWriter::new(fs::File::create(&partial).map_err(io)?);
    file.write_all(header(class, stones, &sha).as_bytes())
        .and_then(|()| file.write_all(&body))
        .and_then(|()| file.flush())
        .map_err(io)?;
    file.get_ref().sync_all().map_err(io)?;
    drop(file);
    fs::rename(&partial, &path).map_err(io)?;
    Ok(path)
}

/// Reads and checks the layer file of `stones` stones of `class`.
///
/// # Errors
///
/// [`TableError::Missing`] when there is no such file; the other kinds when
/// it cannot be read, or its header, length, checksum or a value byte is
/// wrong.
pub fn read(dir: &Path, class: Class, stones: u8) -> Result<LayerData, TableError> {
    let path = layer_path(dir, class, stones);
    match read_bytes(&path, stones) {
        Ok(bytes) => parse(
            &path,
            &bytes,
            (FORMAT, class.to_string(), covers(class)),
            stones,
        ),
        Err(missing @ TableError::Missing { .. }) => {
            // A table solved before format 2, under its old name.
            let old = layer_path_format_1(dir, class, stones);
            match read_bytes(&old, stones) {
                Ok(bytes) => parse(
                    &old,
                    &bytes,
                    (1, class.name_in_format_1(), covers_format_1(class)),
                    stones,
                ),
                Err(TableError::Missing { .. }) => Err(missing),
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// What `metadata` says a path that is no regular file is.
fn kind_of(meta: &fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    let t = meta.file_type();
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a plain file"
    }
}

/// Opens `path` for reading if it is a regular file (after following
/// symbolic links): a missing file is [`TableError::Missing`], a symbolic
/// link loop or an unreadable path [`TableError::Io`], anything but a
/// regular file [`TableError::NotRegular`], never opened.
pub(crate) fn open_regular(path: &Path, stones: u8) -> Result<fs::File, TableError> {
    let owned = || path.to_owned();
    let meta = fs::metadata(path).map_err(|error| {
        if error.kind() == io::ErrorKind::NotFound && fs::symlink_metadata(path).is_err() {
            TableError::Missing {
                path: owned(),
                stones,
            }
        } else {
            // A loop of links, a dangling link, no permission: said, not
            // taken for a missing layer.
            TableError::Io {
                path: owned(),
                error,
            }
        }
    })?;
    if !meta.is_file() {
        return Err(TableError::NotRegular {
            path: owned(),
            kind: kind_of(&meta),
        });
    }
    fs::File::open(path).map_err(|error| TableError::Io {
        path: owned(),
        error,
    })
}

/// Whether something is at `path` (a file, or a link even if broken): a
/// layer that is there, to be read and checked, not taken for missing.
pub(crate) fn present(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// Reads a layer file, at most the header and the body the header of a
/// layer of `stones` stones can promise, and one byte more to tell a longer
/// file (so a link to `/dev/zero` is not read until memory runs out).
fn read_bytes(path: &Path, stones: u8) -> Result<Vec<u8>, TableError> {
    use std::io::Read as _;
    let file = open_regular(path, stones)?;
    let limit = HEADER_MAX as u64 + 2 * layer_size(stones) + 1;
    let mut bytes = Vec::new();
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|error| TableError::Io {
            path: path.to_owned(),
            error,
        })?;
    Ok(bytes)
}

/// The fields of a header's text (after its magic line): each line a
/// `name: value` among `names`, each name at most once. Anything else is
/// refused with its line.
pub(crate) fn header_fields<'t>(
    path: &Path,
    text: &'t str,
    names: &[&str],
) -> Result<Vec<(&'t str, &'t str)>, TableError> {
    let mut fields: Vec<(&str, &str)> = Vec::new();
    for (k, line) in text.lines().enumerate().skip(1) {
        let problem = |problem: String| TableError::HeaderLine {
            path: path.to_owned(),
            line: k + 1,
            problem,
        };
        let Some((name, value)) = line.split_once(": ") else {
            return Err(problem(format!(
                "`{line}` is not a field: expected `name: value`"
            )));
        };
        if !names.contains(&name) {
            return Err(problem(format!(
                "unknown field `{name}`: expected one of {}",
                names.join(", ")
            )));
        }
        if fields.iter().any(|&(n, _)| n == name) {
            return Err(problem(format!("field `{name}` is given twice")));
        }
        fields.push((name, value));
    }
    Ok(fields)
}

/// Checks a layer file's bytes against what was asked for: the format
/// version and the class's name in that version, and the stones.
fn parse(
    path: &Path,
    bytes: &[u8],
    (format, class, covers): (u32, String, String),
    stones: u8,
) -> Result<LayerData, TableError> {
    let path = path.to_path_buf();
    let head = &bytes[..bytes.len().min(HEADER_MAX)];
    let Some(end) = head.windows(2).position(|w| w == b"\n\n") else {
        return Err(TableError::NotATable { path });
    };
    let Ok(text) = std::str::from_utf8(&head[..end]) else {
        return Err(TableError::NotATable { path });
    };
    if text.lines().next() != Some(MAGIC) {
        return Err(TableError::NotATable { path });
    }
    let names = [
        "format", "class", "covers", "layout", "stones", "states", "sha256",
    ];
    let fields = header_fields(&path, text, &names)?;
    let field = |name: &str| fields.iter().find(|(k, _)| *k == name).map(|&(_, v)| v);
    let states = layer_size(stones);
    let want = [
        ("format", format.to_string()),
        ("class", class),
        ("covers", covers),
        ("layout", LAYOUT.to_owned()),
        ("stones", stones.to_string()),
        ("states", states.to_string()),
    ];
    for (name, expected) in want {
        let found = field(name).unwrap_or("(missing)");
        if found != expected {
            return Err(TableError::Header {
                path,
                field: name,
                expected,
                found: found.to_owned(),
            });
        }
    }
    let body = &bytes[end + 2..];
    let expected_len = 2 * states;
    if body.len() as u64 != expected_len {
        return Err(TableError::Length {
            path,
            expected: expected_len,
            found: body.len() as u64,
        });
    }
    let found = hex(&Sha256::digest(body));
    let expected = field("sha256").unwrap_or("(missing)");
    if found != expected {
        return Err(TableError::Checksum {
            path,
            expected: expected.to_owned(),
            found,
        });
    }
    let n = states as usize;
    let mut data = LayerData {
        values: Vec::with_capacity(n),
        depths: Vec::with_capacity(n),
    };
    for (rank, pair) in body.chunks_exact(2).enumerate() {
        let word = u16::from_le_bytes([pair[0], pair[1]]);
        let Some((value, depth)) = entry::unpack(word) else {
            return Err(TableError::Entry {
                path,
                rank: rank as u64,
                word,
            });
        };
        data.values.push(value);
        data.depths.push(depth);
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Switch;

    fn sample(stones: u8) -> LayerData {
        let n = layer_size(stones) as usize;
        LayerData {
            values: (0..n)
                .map(|i| entry::encode((i % 3) as i8 * 2, false))
                .collect(),
            depths: (0..n).map(|i| (i % 7) as u16).collect(),
        }
    }

    #[test]
    fn a_written_layer_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let data = sample(4);
        // The class is named by its settings, whatever the default.
        let class = Class::DEFAULT;
        let path = write(dir.path(), class, 4, &data).unwrap();
        assert!(
            path.ends_with(format!("{class}/layer-04.kpet")),
            "{}",
            path.display()
        );
        assert_eq!(read(dir.path(), class, 4).unwrap(), data);
        let text = fs::read(&path).unwrap();
        let [without, with] = class.covers().map(Profile::explicit);
        let header =
            format!("kpe-solve-table\nformat: 2\nclass: {class}\ncovers: {without} {with}\n");
        assert!(text.starts_with(header.as_bytes()), "{header}");
        assert!(with.contains("lock=before-sowing"), "{with}");
    }

    /// Regression (issue 24): format 1 named classes against the default,
    /// so after `kpe adopt` a table of the old default's sat where the new
    /// default's was looked for. A format-1 file is still read, under its
    /// old name as written against the all-off profile, and never as
    /// another class's.
    #[test]
    fn a_layer_of_format_1_is_read_under_its_old_name() {
        let dir = tempfile::tempdir().unwrap();
        let data = sample(4);
        // A layer file's header, edited as text; its body kept.
        let edit = |path: &Path, from: &str, to: &str| {
            let bytes = fs::read(path).unwrap();
            let end = bytes.windows(2).position(|w| w == b"\n\n").unwrap();
            let head = std::str::from_utf8(&bytes[..end])
                .unwrap()
                .replacen(from, to, 1);
            [head.as_bytes(), &bytes[end..]].concat()
        };
        for class in Class::all() {
            let path = write(dir.path(), class, 4, &data).unwrap();
            fs::write(&path, edit(&path, "format: 2\n", "format: 1\n")).unwrap();
            fs::write(
                &path,
                edit(
                    &path,
                    &format!("covers: {}\n", covers(class)),
                    &format!("covers: {}\n", covers_format_1(class)),
                ),
            )
            .unwrap();
            let old = edit(
                &path,
                &format!("class: {class}\n"),
                &format!("class: {}\n", class.name_in_format_1()),
            );
            fs::remove_dir_all(class_dir(dir.path(), class)).unwrap();
            let old_path = layer_path_format_1(dir.path(), class, 4);
            fs::create_dir_all(old_path.parent().unwrap()).unwrap();
            fs::write(&old_path, old).unwrap();
            assert_eq!(read(dir.path(), class, 4).unwrap(), data, "{class}");
        }
        // A format-1 file whose header names another class is refused.
        let class = Class::of(Profile::with(&[Switch::SkipOrigin])).unwrap();
        let old_path = layer_path_format_1(dir.path(), class, 4);
        let other = edit(&old_path, "class: skip-origin\n", "class: default\n");
        fs::write(&old_path, other).unwrap();
        let e = read(dir.path(), class, 4).unwrap_err();
        assert!(
            e.to_string()
                .contains("`class` says `default`, expected `skip-origin`"),
            "{e}"
        );
    }

    #[test]
    fn a_corrupt_truncated_or_foreign_layer_is_refused_with_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), Class::DEFAULT, 4, &sample(4)).unwrap();
        let good = fs::read(&path).unwrap();
        let refused = |bytes: &[u8], class: Class, stones: u8| {
            fs::write(&path, bytes).unwrap();
            read(dir.path(), class, stones).unwrap_err()
        };
        // One byte of the body changed.
        let mut bad = good.clone();
        *bad.last_mut().unwrap() ^= 1;
        let e = refused(&bad, Class::DEFAULT, 4);
        assert!(matches!(e, TableError::Checksum { .. }), "{e}");
        assert!(
            e.to_string().contains("layer-04.kpet: checksum mismatch"),
            "{e}"
        );
        // Truncated.
        let e = refused(&good[..good.len() - 10], Class::DEFAULT, 4);
        assert!(matches!(e, TableError::Length { .. }), "{e}");
        // Another class's file under this class's name.
        let mine = Class::DEFAULT.profile();
        let other = Class::of(mine.set(Switch::SkipOrigin, !mine.has(Switch::SkipOrigin))).unwrap();
        let foreign = fs::read(write(dir.path(), other, 4, &sample(4)).unwrap()).unwrap();
        let e = refused(&foreign, Class::DEFAULT, 4);
        let says = format!(
            "header field `class` says `{other}`, expected `{}`",
            Class::DEFAULT
        );
        assert!(e.to_string().contains(&says), "{e}");
        // Not a layer file at all.
        let e = refused(b"hello\n\nworld", Class::DEFAULT, 4);
        assert!(matches!(e, TableError::NotATable { .. }), "{e}");
        // A layer of other stones renamed.
        fs::remove_file(&path).unwrap();
        let e = read(dir.path(), Class::DEFAULT, 4).unwrap_err();
        assert!(matches!(e, TableError::Missing { stones: 4, .. }), "{e}");
        let six = fs::read(write(dir.path(), Class::DEFAULT, 6, &sample(6)).unwrap()).unwrap();
        let e = refused(&six, Class::DEFAULT, 4);
        assert!(
            e.to_string().contains("`stones` says `6`, expected `4`"),
            "{e}"
        );
    }

    #[test]
    fn an_entry_no_solve_writes_is_refused_even_with_a_good_checksum() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), Class::DEFAULT, 2, &sample(2)).unwrap();
        let path = layer_path(dir.path(), Class::DEFAULT, 2);
        let mut bytes = fs::read(&path).unwrap();
        let at = bytes.len() - 2 * 36 + 2 * 3;
        bytes[at] = 60;
        let sha = hex(&Sha256::digest(&bytes[bytes.len() - 72..]));
        let text = String::from_utf8_lossy(&bytes[..bytes.len() - 72]).into_owned();
        let start = text.find("sha256: ").unwrap() + 8;
        bytes.splice(start..start + 64, sha.bytes());
        fs::write(&path, &bytes).unwrap();
        let e = read(dir.path(), Class::DEFAULT, 2).unwrap_err();
        assert!(matches!(e, TableError::Entry { rank: 3, .. }), "{e}");
    }
}
