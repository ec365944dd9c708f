//! Opening files: the value of every position before the lock that play
//! from the initial position reaches, under one profile.
//!
//! `DIR/<class>/opening-lock=<reading>.kpeo` is a text header, a blank
//! line, then one little-endian `u64` per position in increasing order:
//! the position's key (`opening.rs`: stones, board rank, used pits of the
//! mover and of the opponent) shifted left 8 bits, the margin as a signed
//! byte in the low 8. A position is looked up by binary search in the file
//! (about 30 reads), so nothing is loaded; the whole body's SHA-256 is
//! checked once when the file is opened.

use std::fs;
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::FileExt as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::class::Class;
use super::file::{self, HEADER_MAX, TableError, header_fields, open_regular};
use crate::board::Pit;
use crate::position::Position;
use crate::profile::{Profile, Switch};

/// The first line of every opening file.
pub const MAGIC: &str = "kpe-solve-opening";
/// The opening format this kpe writes.
pub const FORMAT: u32 = 1;
/// How the body is laid out.
pub const LAYOUT: &str =
    "sorted,south-to-move,u64le:(stones<<36|rank<<8|used-mover<<4|used-opponent)<<8|margin-i8";
/// Bytes per position.
const ENTRY: u64 = 8;

/// The opening file of `profile` (of `class`) under `dir`.
#[must_use]
pub fn opening_path(dir: &Path, class: Class, profile: Profile) -> PathBuf {
    file::class_dir(dir, class).join(format!(
        "opening-{}.kpeo",
        Switch::StrictLock.assignment(profile)
    ))
}

/// What an opening file says of its root, besides the body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningSummary {
    /// The position play starts from.
    pub root: Position,
    /// Its value for the player to move.
    pub value: i8,
    /// The moves that attain it.
    pub best: Vec<Pit>,
    /// Positions before the lock the file holds.
    pub states: u64,
}

/// Writes an opening file all at once, beside its place and renamed when
/// complete. `entries` gives the body's entries in order, each time it is
/// called (twice: once for the checksum the header holds, once to write
/// them), so that they need not be held in a second copy.
///
/// # Errors
///
/// [`TableError::Io`] when it cannot be written.
pub(crate) fn write<I: Iterator<Item = u64>>(
    dir: &Path,
    class: Class,
    profile: Profile,
    summary: &OpeningSummary,
    entries: impl Fn() -> I,
) -> Result<PathBuf, TableError> {
    let path = opening_path(dir, class, profile);
    let io = |error| TableError::Io {
        path: path.clone(),
        error,
    };
    fs::create_dir_all(file::class_dir(dir, class)).map_err(io)?;
    let mut sha = Sha256::new();
    let mut states = 0u64;
    for e in entries() {
        sha.update(e.to_le_bytes());
        states += 1;
    }
    let sha: String = sha.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let best: Vec<String> = summary.best.iter().map(ToString::to_string).collect();
    let header = format!(
        "{MAGIC}\nformat: {FORMAT}\nclass: {class}\nprofile: {}\nlayout: {LAYOUT}\nroot: {}\nvalue: {}\nbest: {}\nstates: {}\nsha256: {sha}\n\n",
        profile.explicit(),
        summary.root,
        summary.value,
        best.join(" "),
        states
    );
    let partial = path.with_extension("kpeo.partial");
    let mut out = io::BufWriter::new(fs::File::create(&partial).map_err(io)?);
    out.write_all(header.as_bytes()).map_err(io)?;
    for e in entries() {
        out.write_all(&e.to_le_bytes()).map_err(io)?;
    }
    out.flush().map_err(io)?;
    out.get_ref().sync_all().map_err(io)?;
    drop(out);
    fs::rename(&partial, &path).map_err(io)?;
    Ok(path)
}

/// An opening file, checked and open for lookups.
#[derive(Debug)]
pub struct OpeningFile {
    path: PathBuf,
    file: fs::File,
    body: u64,
    summary: OpeningSummary,
}

impl OpeningFile {
    /// Opens and checks the opening file of `profile` under `dir`: `None`
    /// when there is none.
    ///
    /// # Errors
    ///
    /// A [`TableError`] naming the file when it is no regular file, its
    /// header is not what was asked for, its length is not what the header
    /// promises, or its checksum does not match.
    pub fn open(
        dir: &Path,
        class: Class,
        profile: Profile,
    ) -> Result<Option<OpeningFile>, TableError> {
        OpeningFile::open_rooted(dir, class, profile, &Position::initial())
    }

    /// [`OpeningFile::open`] for an opening from `root` (tests solve one
    /// from a position with few stones).
    pub(crate) fn open_rooted(
        dir: &Path,
        class: Class,
        profile: Profile,
        root: &Position,
    ) -> Result<Option<OpeningFile>, TableError> {
        let path = opening_path(dir, class, profile);
        let file = match open_regular(&path, 48) {
            Ok(file) => file,
            Err(TableError::Missing { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let io = |error| TableError::Io {
            path: path.clone(),
            error,
        };
        let mut head = Vec::new();
        (&file)
            .take(HEADER_MAX as u64)
            .read_to_end(&mut head)
            .map_err(io)?;
        let not_one = || TableError::NotATable { path: path.clone() };
        let end = head
            .windows(2)
            .position(|w| w == b"\n\n")
            .ok_or_else(not_one)?;
        let text = std::str::from_utf8(&head[..end]).map_err(|_| not_one())?;
        if text.lines().next() != Some(MAGIC) {
            return Err(not_one());
        }
        let names = [
            "format", "class", "profile", "layout", "root", "value", "best", "states", "sha256",
        ];
        let fields = header_fields(&path, text, &names)?;
        let field = |name: &'static str| {
            fields
                .iter()
                .find(|(k, _)| *k == name)
                .map_or("(missing)", |&(_, v)| v)
        };
        let header = |name: &'static str, expected: String| TableError::Header {
            path: path.clone(),
            field: name,
            expected,
            found: field(name).to_owned(),
        };
        for (name, expected) in [
            ("format", FORMAT.to_string()),
            ("class", class.to_string()),
            ("profile", profile.explicit()),
            ("layout", LAYOUT.to_owned()),
            ("root", root.to_string()),
        ] {
            if field(name) != expected {
                return Err(header(name, expected));
            }
        }
        let value: i8 = field("value")
            .parse()
            .ok()
            .filter(|v: &i8| (-48..=48).contains(v) && v % 2 == 0)
            .ok_or_else(|| header("value", "an even margin, -48 to 48".to_owned()))?;
        let best = field("best")
            .split(' ')
            .map(str::parse::<Pit>)
            .collect::<Result<Vec<Pit>, _>>()
            .map_err(|_| header("best", "pits such as `S1 S3`".to_owned()))?;
        let states: u64 = field("states")
            .parse()
            .map_err(|_| header("states", "a count of positions".to_owned()))?;
        let body = end as u64 + 2;
        let len = file.metadata().map_err(io)?.len();
        let expected = states.saturating_mul(ENTRY);
        if len.saturating_sub(body) != expected || len < body {
            return Err(TableError::Length {
                path,
                expected,
                found: len.saturating_sub(body),
            });
        }
        let mut sha = Sha256::new();
        let mut reader = &file;
        io::Seek::seek(&mut reader, io::SeekFrom::Start(body)).map_err(io)?;
        let mut reader = io::BufReader::with_capacity(1 << 20, reader.take(expected));
        io::copy(&mut reader, &mut Hashing(&mut sha)).map_err(io)?;
        let found: String = sha.finalize().iter().map(|b| format!("{b:02x}")).collect();
        if found != field("sha256") {
            return Err(TableError::Checksum {
                path,
                expected: field("sha256").to_owned(),
                found,
            });
        }
        Ok(Some(OpeningFile {
            path,
            file,
            body,
            summary: OpeningSummary {
                root: *root,
                value,
                best,
                states,
            },
        }))
    }

    /// What the header says of the root.
    #[must_use]
    pub fn summary(&self) -> &OpeningSummary {
        &self.summary
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn entry(&self, i: u64) -> Result<u64, TableError> {
        let mut bytes = [0u8; 8];
        self.file
            .read_exact_at(&mut bytes, self.body + i * ENTRY)
            .map_err(|error| TableError::Io {
                path: self.path.clone(),
                error,
            })?;
        Ok(u64::from_le_bytes(bytes))
    }

    /// The value of the position with this key, if the file holds it.
    ///
    /// # Errors
    ///
    /// [`TableError::Io`] when the file cannot be read, and
    /// [`TableError::Entry`] for an entry whose value no solve writes.
    pub(crate) fn get(&self, key: u64) -> Result<Option<i8>, TableError> {
        let (mut lo, mut hi) = (0, self.summary.states);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let entry = self.entry(mid)?;
            match (entry >> 8).cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let margin = entry as u8 as i8;
                    if !(-48..=48).contains(&margin) || margin % 2 != 0 {
                        return Err(TableError::Entry {
                            path: self.path.clone(),
                            rank: mid,
                            word: entry as u16,
                        });
                    }
                    return Ok(Some(margin));
                }
            }
        }
        Ok(None)
    }
}

/// A writer that feeds a hash.
struct Hashing<'a>(&'a mut Sha256);

impl io::Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
