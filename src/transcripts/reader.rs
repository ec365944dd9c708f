//! Reading a transcript one game at a time and checking each game as it
//! arrives, so that memory stays bounded whatever the size of the file.
//!
//! A structural scan ([`super::scan`]) finds the header fields and where
//! each game lies in the file; each game is then parsed from its span with
//! serde visitors, and each element of its `plies` is checked and dropped.
//! Fields may come in any order: when `games` comes before some header
//! field (`profile` may follow it, as with sorted keys), those fields are
//! read at the end of the file first (`Top::header_from_end`); where they
//! cannot be, the scan reads on to the end of the object and comes back
//! (the end of `games` found by threads in pieces: [`skip`]); when a
//! game's `plies` come before its `id` or `start`, the game's span is read
//! twice. Games can be checked by several threads ([`chunks`]), the report
//! kept in the file's order. Only a few games per thread, the current ply
//! and the results of diverging games are held.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::position::Position;
use crate::profile::Profile;

use super::quick;
use super::scan::{Mark, ScanError, Scanner, Span};
use crate::judge::diagnose::{Context, diagnose};
use crate::judge::oracle::{GameCheck, Mismatch};
use crate::judge::{Divergence, Recheck, ReportRules, RuleSet, name_reading};
use crate::reporter::{
    CheckError, FileKind, Guarded, InputError, InputErrorKind, Run, RunKind, Sink, Summary,
    UnitResult, guarded,
};
use crate::transcript::{Engine, Ply, TranscriptFormat, VERSION};

mod chunks;
mod skip;

// ---------------------------------------------------------------------------
// Opening files
// ---------------------------------------------------------------------------

fn open(path: &Path, name: &str) -> Result<Guarded<File>, InputError> {
    let name = name.to_owned();
    let meta = std::fs::metadata(path).map_err(|e| InputError::read(&name, e))?;
    if meta.is_dir() {
        return Err(InputError {
            file: name,
            kind: InputErrorKind::Directory,
        });
    }
    if meta.len() == 0 {
        return Err(InputError {
            file: name,
            kind: InputErrorKind::Empty,
        });
    }
    let file = File::open(path).map_err(|e| InputError::read(&name, e))?;
    Ok(guarded(file))
}

// ---------------------------------------------------------------------------
// What kind of file: the top-level `format` field
// ---------------------------------------------------------------------------

/// Reads the top-level `format` field of the file at `path` to tell a
/// transcript from an engine manifest. Reads no further than that field.
///
/// # Errors
///
/// A missing, unreadable or empty file, malformed JSON before `format`, no
/// `format` field, or a value other than `kpe-transcript` and
/// `kpe-engine`.
pub fn file_kind(path: &Path) -> Result<FileKind, InputError> {
    let source = path.display().to_string();
    let mut file = open(path, &source)?.into_inner();
    // The fields before `format` skipped by the structural scan, not
    // parsed; anything out of the ordinary is left to the parse below,
    // whose errors say what is wrong and where.
    match scanned_kind(&mut file) {
        Some(Scanned::Format(value)) => kind_named(&source, &value),
        // Only a transcript has games: its reader checks `format`, later
        // in the file (a header after the games, as with sorted keys, is
        // found with no scan of the games here).
        Some(Scanned::Games) => Ok(FileKind::Transcript),
        None => {
            file.seek(SeekFrom::Start(0))
                .map_err(|e| InputError::read(&source, e))?;
            kind_of(&source, guarded(file))
        }
    }
}

/// What a scan of the top-level members found first.
#[derive(Debug, PartialEq, Eq)]
enum Scanned {
    /// The value of `format`.
    Format(String),
    /// A `games` member.
    Games,
}

/// The value of the top-level `format` field, or a `games` member before
/// it, found by scanning the members before them; `None` where the JSON
/// is not of the plain kind this expects (an object, a string `format` of
/// at most 4 KiB) or a read fails.
fn scanned_kind(file: impl Read) -> Option<Scanned> {
    let mut scan = Scanner::new(file, FILE_START);
    if scan.skip_ws().ok()? != Some(b'{') {
        return None;
    }
    scan.bump();
    loop {
        if scan.skip_ws().ok()? != Some(b'"') {
            return None;
        }
        let raw = scan.string(64).ok()?;
        let key: String = serde_json::from_slice(&raw).ok()?;
        if scan.skip_ws().ok()? != Some(b':') {
            return None;
        }
        scan.bump();
        scan.skip_ws().ok()?;
        if key == "games" {
            return Some(Scanned::Games);
        }
        if key == "format" {
            let mut value = Vec::new();
            let (_, kept) = scan.value_into(&mut value, 4096).ok()?;
            return kept.then(|| serde_json::from_slice(&value).ok().map(Scanned::Format))?;
        }
        scan.value().ok()?;
        if scan.skip_ws().ok()? != Some(b',') {
            return None;
        }
        scan.bump();
    }
}

/// [`file_kind`] for data already at hand; `source` names it in errors.
///
/// # Errors
///
/// As [`file_kind`].
pub fn file_kind_of_reader(source: &str, reader: impl Read) -> Result<FileKind, InputError> {
    kind_of(source, guarded(reader))
}

fn kind_of<R: Read>(source: &str, reader: Guarded<R>) -> Result<FileKind, InputError> {
    let mut found = None;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let result = tracked(&mut de, FormatSniffer { found: &mut found });
    let value = match (found, result) {
        (Some(value), _) => value,
        (None, Err(e)) => return Err(InputError::from_json(source, e)),
        (None, Ok(())) => unreachable!("the sniffer fails unless it finds `format`"),
    };
    kind_named(source, &value)
}

/// The kind of file a `format` value names.
fn kind_named(source: &str, value: &str) -> Result<FileKind, InputError> {
    match value {
        "kpe-transcript" => Ok(FileKind::Transcript),
        "kpe-engine" => Ok(FileKind::EngineManifest),
        other => Err(InputError::at(
            source,
            "format",
            0,
            0,
            format!(
                "unknown format `{}`: expected {}",
                other.escape_debug(),
                accepted_formats()
            ),
        )),
    }
}

fn accepted_formats() -> String {
    FileKind::ACCEPTED
        .iter()
        .map(|(v, what)| format!("\"{v}\" ({what})"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// Stops (with a placeholder error) as soon as `format` is read.
struct FormatSniffer<'a> {
    found: &'a mut Option<String>,
}

impl<'de> DeserializeSeed<'de> for FormatSniffer<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FormatSniffer<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a JSON object with a \"format\" field: {}",
            accepted_formats()
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "format" => {
                    *self.found = Some(map.next_value::<String>()?);
                    return Err(de::Error::custom("found the format"));
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Err(de::Error::custom(format!(
            "missing field `format`: expected {}",
            accepted_formats()
        )))
    }
}

/// Runs `seed` over `de`, noting the JSON path of any error.
fn tracked<'de, D, S>(de: D, seed: S) -> Result<S::Value, serde_path_to_error::Error<D::Error>>
where
    D: de::Deserializer<'de>,
    S: DeserializeSeed<'de>,
{
    let mut track = serde_path_to_error::Track::new();
    seed.deserialize(serde_path_to_error::Deserializer::new(de, &mut track))
        .map_err(|e| serde_path_to_error::Error::new(track.path(), e))
}

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

/// How a transcript is checked.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Options {
    /// How many games are checked at once, each by a thread of its own;
    /// `1` checks them one after the other in the calling thread. The
    /// report is the same, in the file's order, whatever the number.
    /// Default: the number of cores.
    pub jobs: usize,
    /// The input's name in reports and errors (e.g. `-` for standard
    /// input); `None` names it by its path.
    pub name: Option<String>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            jobs: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            name: None,
        }
    }
}

impl Options {
    /// The defaults, with `jobs` games checked at once (at least one).
    #[must_use]
    pub fn jobs(jobs: usize) -> Options {
        Options {
            jobs: jobs.max(1),
            ..Options::default()
        }
    }

    /// These options, naming the input `name` in reports and errors.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Options {
        self.name = Some(name.into());
        self
    }

    fn source(&self, path: &Path) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| path.display().to_string())
    }
}

// ---------------------------------------------------------------------------
// Reading one value from its span
// ---------------------------------------------------------------------------

/// Spans up to this size are read whole and parsed from memory (faster);
/// longer ones, such as a game of millions of plies, are streamed.
const SLICE_MAX: u64 = 1 << 20;

/// A deserialisation that can run on any JSON deserializer.
trait SpanSeed {
    type Value;
    fn run<'de, D: de::Deserializer<'de>>(&mut self, d: D) -> Result<Self::Value, D::Error>;
}

/// Plain `Deserialize` as a [`SpanSeed`].
struct Typed<T>(std::marker::PhantomData<T>);

impl<T: de::DeserializeOwned> SpanSeed for Typed<T> {
    type Value = T;
    fn run<'de, D: de::Deserializer<'de>>(&mut self, d: D) -> Result<T, D::Error> {
        T::deserialize(d)
    }
}

fn typed<T>() -> Typed<T> {
    Typed(std::marker::PhantomData)
}

/// Reads values from their spans in one file.
pub(crate) struct SpanReader {
    file: File,
    buf: Vec<u8>,
    /// The span whose bytes `buf` holds, if any.
    loaded: Option<Span>,
    source: String,
}

impl SpanReader {
    fn open(path: &Path, source: &str) -> Result<SpanReader, InputError> {
        Ok(SpanReader {
            file: File::open(path).map_err(|e| InputError::read(source, e))?,
            buf: Vec::new(),
            loaded: None,
            source: source.to_owned(),
        })
    }

    /// Reads `len` bytes from `start` into `out`.
    fn read_range(&mut self, start: u64, len: u64, out: &mut Vec<u8>) -> Result<(), InputError> {
        let read = |e| InputError::read(&self.source, e);
        self.loaded = None;
        self.file.seek(SeekFrom::Start(start)).map_err(read)?;
        out.resize(len as usize, 0);
        self.file
            .read_exact(out)
            .map_err(|e| InputError::read(&self.source, e))
    }

    /// Reads the `len` bytes from `start` into `out`, or as many as there
    /// are.
    fn read_upto(&mut self, start: u64, len: usize, out: &mut Vec<u8>) -> io::Result<()> {
        self.loaded = None;
        self.file.seek(SeekFrom::Start(start))?;
        out.clear();
        (&mut self.file).take(len as u64).read_to_end(out)?;
        Ok(())
    }

    /// Takes `bytes` as the bytes of `span`, already read by the scan, so
    /// that parsing it reads nothing from the file.
    fn hold(&mut self, span: &Span, bytes: &[u8]) {
        self.buf.clear();
        self.buf.extend_from_slice(bytes);
        self.loaded = Some(*span);
    }

    /// The bytes of `span`, if it is short enough to be read whole.
    fn load(&mut self, span: &Span) -> Result<Option<&[u8]>, InputError> {
        if span.len > SLICE_MAX {
            return Ok(None);
        }
        if self.loaded != Some(*span) {
            self.loaded = None;
            self.file
                .seek(SeekFrom::Start(span.start))
                .map_err(|e| InputError::read(&self.source, e))?;
            self.buf.resize(span.len as usize, 0);
            self.file
                .read_exact(&mut self.buf)
                .map_err(|e| InputError::read(&self.source, e))?;
            self.loaded = Some(*span);
        }
        Ok(Some(&self.buf))
    }

    /// Runs `seed` over the value at `span`; an error names its place in
    /// the file and its JSON path below `prefix` (with `paths`; without,
    /// the path is only `prefix`, which is faster).
    fn parse<S: SpanSeed>(
        &mut self,
        span: &Span,
        prefix: &str,
        seed: &mut S,
        paths: bool,
    ) -> Result<S::Value, InputError> {
        let result = if self.load(span)?.is_some() {
            // Valid UTF-8 checked once for the whole span (fast on ASCII)
            // spares serde_json a check per string; a span that is not
            // goes through the byte reader, which says where it breaks.
            match std::str::from_utf8(&self.buf) {
                Ok(text) => run_on(&mut serde_json::Deserializer::from_str(text), seed, paths),
                Err(_) => run_on(
                    &mut serde_json::Deserializer::from_slice(&self.buf),
                    seed,
                    paths,
                ),
            }
        } else {
            self.file
                .seek(SeekFrom::Start(span.start))
                .map_err(|e| InputError::read(&self.source, e))?;
            let reader = guarded((&self.file).take(span.len));
            run_on(
                &mut serde_json::Deserializer::from_reader(reader),
                seed,
                paths,
            )
        };
        result.map_err(|e| relocate(InputError::from_json(&self.source, e), prefix, span))
    }
}

fn run_on<'de, R: serde_json::de::Read<'de>, S: SpanSeed>(
    de: &mut serde_json::Deserializer<R>,
    seed: &mut S,
    paths: bool,
) -> Result<S::Value, serde_path_to_error::Error<serde_json::Error>> {
    let bare = |e| serde_path_to_error::Error::new(serde_path_to_error::Track::new().path(), e);
    let value = if paths {
        let mut track = serde_path_to_error::Track::new();
        seed.run(serde_path_to_error::Deserializer::new(&mut *de, &mut track))
            .map_err(|e| serde_path_to_error::Error::new(track.path(), e))?
    } else {
        seed.run(&mut *de).map_err(bare)?
    };
    // Nothing but the value lies in its span.
    de.end().map_err(bare)?;
    Ok(value)
}

/// An error found in a span, placed in the whole file.
fn relocate(mut error: InputError, prefix: &str, span: &Span) -> InputError {
    match &mut error.kind {
        InputErrorKind::Json {
            path, line, column, ..
        } => {
            *path = join(prefix, path);
            if *line != 0 {
                (*line, *column) = span.absolute(*line, *column);
            }
        }
        InputErrorKind::TooLong { line, column, .. } => {
            let (l, c) = span.absolute(*line as usize, *column as usize);
            (*line, *column) = (l as u64, c as u64);
        }
        _ => {}
    }
    error
}

fn join(prefix: &str, path: &str) -> String {
    match (prefix, path) {
        ("" | ".", p) => p.to_owned(),
        (p, ".") => p.to_owned(),
        (p, rest) if rest.starts_with('[') => format!("{p}{rest}"),
        (p, rest) => format!("{p}.{rest}"),
    }
}

// ---------------------------------------------------------------------------
// The top-level object: the header, and where each game lies
// ---------------------------------------------------------------------------

/// The transcript's header, once read.
pub(crate) struct Header {
    pub(crate) engine: Engine,
    pub(crate) profile: Profile,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum TopField {
    Format,
    Version,
    Engine,
    Profile,
    Games,
}

impl TopField {
    const ALL: [TopField; 5] = [
        TopField::Format,
        TopField::Version,
        TopField::Engine,
        TopField::Profile,
        TopField::Games,
    ];

    fn name(self) -> &'static str {
        match self {
            TopField::Format => "format",
            TopField::Version => "version",
            TopField::Engine => "engine",
            TopField::Profile => "profile",
            TopField::Games => "games",
        }
    }
}

/// Where the top-level scan is.
enum TopState {
    /// Reading the header's members.
    Members,
    /// In `games`: `index` games found so far; `rest` says what is left
    /// to read once it ends.
    Games {
        index: usize,
        rest: Rest,
    },
    /// The games were found while the header was still incomplete: they
    /// are read from the spans noted then, `next` being the next one.
    Noted {
        next: usize,
    },
    Done,
}

/// What follows `games` in the top-level object, for the scan to read or
/// not once `games` ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rest {
    /// Not read yet: the header came first, and the rest is read then.
    Unread,
    /// Read already: the header came after `games` and was read first.
    Read,
    /// Read from the end of the file ([`Top::header_from_end`]), from the
    /// `]` at offset `close`. If `games` ends anywhere else, the file is
    /// not a transcript (see there): the rest is read as if it were
    /// unread, the fields that came before `games` (`before`: format,
    /// version, engine, profile) kept, to report what is wrong where it
    /// stands.
    FromEnd { close: u64, before: [bool; 4] },
}

/// How far from the end of a transcript header fields after `games` are
/// looked for, when `games` comes before some of them.
pub const HEADER_AT_END_BYTES: u64 = 64 * 1024;

/// After how many `]` at most (followed by `,` and a header field's name,
/// the last first) header fields at the end of a transcript are looked for.
pub const HEADER_AT_END_TRIES: usize = 4;

/// The last `len` bytes of the file at `path` (or all of it), and the
/// offset of the first.
fn file_end(path: &Path, len: u64) -> io::Result<(u64, Vec<u8>)> {
    let mut file = File::open(path)?;
    let size = file.seek(SeekFrom::End(0))?;
    let start = size.saturating_sub(len);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::with_capacity((size - start) as usize);
    file.take(size - start).read_to_end(&mut bytes)?;
    Ok((start, bytes))
}

/// At most this many games' spans are noted while `games` is skipped to
/// find a header field that follows it (16 MiB); a transcript with more
/// is scanned a second time instead.
pub const MAX_NOTED_GAMES: usize = 1 << 19;

/// The top-level object of a transcript file, scanned once: header fields
/// are read as they come; if some header field is still to come when
/// `games` does (`profile` may follow it, as with sorted keys), it is read
/// at the end of the file, or else `games` is skipped and its games are
/// found in a second scan from where it starts.
struct Top {
    source: String,
    path: PathBuf,
    scan: Scanner<File>,
    values: SpanReader,
    format: Option<TranscriptFormat>,
    version: Option<Version>,
    engine: Option<Engine>,
    profile: Option<Profile>,
    /// Where `games` starts, when it came before some header field.
    games_at: Option<Mark>,
    /// Where each game lies, noted while `games` was skipped.
    noted: Option<Vec<Span>>,
    /// With how many threads, in pieces of how many bytes, `games` is
    /// skipped when a header field follows it ([`skip`]), rather than read
    /// value by value with its games noted.
    sharing: Option<(usize, usize)>,
    /// It was.
    shared: bool,
    /// Whether a header after `games` is first looked for at the end of
    /// the file ([`Top::header_from_end`]).
    try_end: bool,
    /// It was found there.
    from_end: bool,
    games_seen: bool,
    state: TopState,
    /// The scan is at the first byte of game `index` of [`TopState::Games`]
    /// (the comma before it passed), not read yet.
    at_game: bool,
    /// Bad input found while filling a batch, reported after it.
    late_error: Option<InputError>,
}

const FILE_START: Mark = Mark {
    offset: 0,
    line: 1,
    column: 1,
};

impl Top {
    fn open(path: &Path, source: &str) -> Result<Top, InputError> {
        // No token guard here: the scan keeps at most a key's first bytes,
        // and a value's span is parsed whole only when it is short (no
        // token in it can be too long), else through the guard.
        let file = open(path, source)?.into_inner();
        Ok(Top {
            source: source.to_owned(),
            path: path.to_owned(),
            scan: Scanner::new(file, FILE_START),
            values: SpanReader::open(path, source)?,
            format: None,
            version: None,
            engine: None,
            profile: None,
            games_at: None,
            noted: None,
            sharing: None,
            shared: false,
            try_end: true,
            from_end: false,
            games_seen: false,
            state: TopState::Members,
            at_game: false,
            late_error: None,
        })
    }

    fn at(&self, path: &str, at: Mark, message: impl Into<String>) -> InputError {
        InputError::at(
            &self.source,
            path,
            at.line as usize,
            at.column as usize,
            message.into(),
        )
    }

    fn scan_error(&mut self, path: &str, e: ScanError) -> InputError {
        match e {
            ScanError::Io(e) => InputError::from_io(&self.source, e),
            ScanError::Syntax { at, message } => self.at(path, at, message),
        }
    }

    fn io(&self, e: io::Error) -> InputError {
        InputError::from_io(&self.source, e)
    }

    fn complete(&self) -> bool {
        self.format.is_some()
            && self.version.is_some()
            && self.engine.is_some()
            && self.profile.is_some()
    }

    fn has_required(&self) -> bool {
        self.format.is_some() && self.version.is_some() && self.engine.is_some()
    }

    /// Whether the file ends with `]` and `}` (and whitespace), from its
    /// last bytes `end`: then the object's last value is an array, and the
    /// one array a transcript holds is `games`, so no header field follows
    /// it (in a file that is not a transcript, the scan finds what is wrong
    /// when it gets there). This spares `profile`-less files a second scan.
    fn games_end_the_file(end: &[u8]) -> bool {
        let mut rest = end
            .iter()
            .rev()
            .filter(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'));
        rest.next() == Some(&b'}') && rest.next() == Some(&b']')
    }

    /// Reads the header: up to `games` if every header field came before
    /// it, else the whole object.
    fn header(&mut self) -> Result<Header, InputError> {
        match self.scan.skip_ws().map_err(|e| self.io(e))? {
            None => {
                return Err(InputError {
                    file: self.source.clone(),
                    kind: InputErrorKind::Empty,
                });
            }
            Some(b'{') => self.scan.bump(),
            Some(_) => {
                return Err(self.at(
                    ".",
                    self.scan.mark(),
                    "expected a kpe transcript: a JSON object with format, version, engine, \
                     profile and games",
                ));
            }
        }
        match self.members(false)? {
            Found::Games => {}
            Found::End => {
                self.finish()?;
                let Some(at) = self.games_at else {
                    unreachable!("finish() refuses a transcript without games")
                };
                if self.noted.is_some() {
                    self.state = TopState::Noted { next: 0 };
                } else {
                    // Back to `games`, now that the header is known.
                    self.rescan_from(at)?;
                    self.open_games(Rest::Read)?;
                }
            }
        }
        Ok(Header {
            engine: self.engine.clone().expect("the header is complete"),
            profile: self.profile.unwrap_or_default(),
        })
    }

    /// Scans on from `at` (a place already scanned once).
    fn rescan_from(&mut self, at: Mark) -> Result<(), InputError> {
        let mut file = File::open(&self.path).map_err(|e| InputError::read(&self.source, e))?;
        file.seek(SeekFrom::Start(at.offset))
            .map_err(|e| self.io(e))?;
        self.scan = Scanner::new(file, at);
        Ok(())
    }

    /// Skips the value of `games` while some header field is still to
    /// come, noting where each game lies so that checking them needs no
    /// second scan. Anything out of the ordinary (not an array, bad JSON
    /// between games, too many games) drops the notes: the value is then
    /// skipped whole, and scanned again once the header is known, as bad
    /// input must be reported after the games before it.
    fn skip_games(&mut self) -> Result<(), InputError> {
        let at = self.scan.mark();
        match self.note_games() {
            Ok(Some(spans)) => {
                self.noted = Some(spans);
                return Ok(());
            }
            Ok(None) => {}
            Err(e) => return Err(self.io(e)),
        }
        self.rescan_from(at)?;
        self.scan
            .value()
            .map_err(|e| self.scan_error("games", e))
            .map(|_| ())
    }

    /// The spans of the games, if `games` is a well-formed array of at most
    /// [`MAX_NOTED_GAMES`] values.
    fn note_games(&mut self) -> io::Result<Option<Vec<Span>>> {
        if self.scan.peek()? != Some(b'[') {
            return Ok(None);
        }
        self.scan.bump();
        let mut spans = Vec::new();
        loop {
            let mut next = self.scan.skip_ws()?;
            if !spans.is_empty() {
                match next {
                    Some(b',') => {
                        self.scan.bump();
                        next = self.scan.skip_ws()?;
                        if next == Some(b']') {
                            return Ok(None);
                        }
                    }
                    Some(b']') => {}
                    _ => return Ok(None),
                }
            }
            match next {
                Some(b']') => {
                    self.scan.bump();
                    return Ok(Some(spans));
                }
                Some(b',' | b'}' | b':') | None => return Ok(None),
                Some(_) if spans.len() == MAX_NOTED_GAMES => return Ok(None),
                Some(_) => match self.scan.value() {
                    Ok(span) => spans.push(span),
                    Err(ScanError::Io(e)) => return Err(e),
                    Err(_) => return Ok(None),
                },
            }
        }
    }

    /// At the value of `games`: checks it is an array and enters it.
    fn open_games(&mut self, rest: Rest) -> Result<(), InputError> {
        if self.scan.peek().map_err(|e| self.io(e))? != Some(b'[') {
            let span = self.scan.value().map_err(|e| self.scan_error("games", e))?;
            return Err(
                match self.values.parse(&span, "games", &mut NotGames, true) {
                    Err(e) => e,
                    Ok(()) => unreachable!("only an array is games, and this is none"),
                },
            );
        }
        self.scan.bump();
        self.state = TopState::Games { index: 0, rest };
        Ok(())
    }

    /// Reads members of the top-level object until `games` can be
    /// streamed or the object ends. `after_value`: a member was just read.
    fn members(&mut self, mut after_value: bool) -> Result<Found, InputError> {
        loop {
            let next = self.scan.skip_ws().map_err(|e| self.io(e))?;
            if after_value {
                match next {
                    Some(b',') => self.scan.bump(),
                    Some(b'}') => {
                        self.scan.bump();
                        return Ok(Found::End);
                    }
                    None => {
                        return Err(self.at(".", self.scan.mark(), "EOF while parsing an object"));
                    }
                    Some(_) => {
                        return Err(self.at(".", self.scan.mark(), "expected `,` or `}`"));
                    }
                }
            } else if next == Some(b'}') {
                self.scan.bump();
                return Ok(Found::End);
            }
            // A key.
            let key_at = self.scan.mark();
            match self.scan.skip_ws().map_err(|e| self.io(e))? {
                Some(b'"') => {}
                None => return Err(self.at(".", key_at, "EOF while parsing an object")),
                Some(_) => return Err(self.at(".", key_at, "key must be a string")),
            }
            let raw = self.scan.string(64).map_err(|e| self.io(e))?;
            let key: String = serde_json::from_slice(&raw)
                .unwrap_or_else(|_| String::from_utf8_lossy(&raw[1..]).into_owned());
            let Some(field) = TopField::ALL.into_iter().find(|f| f.name() == key) else {
                return Err(self.at(
                    &key,
                    self.scan.mark(),
                    format!(
                        "unknown field `{}`, expected one of `format`, `version`, `engine`, \
                         `profile`, `games`",
                        key.escape_debug()
                    ),
                ));
            };
            match self.scan.skip_ws().map_err(|e| self.io(e))? {
                Some(b':') => self.scan.bump(),
                None => return Err(self.at(".", self.scan.mark(), "EOF while parsing an object")),
                Some(_) => return Err(self.at(".", self.scan.mark(), "expected `:`")),
            }
            self.scan.skip_ws().map_err(|e| self.io(e))?;
            let name = field.name();
            let duplicate = || format!("duplicate field `{name}`");
            if field == TopField::Games {
                if self.games_seen {
                    return Err(self.at(".", key_at, duplicate()));
                }
                self.games_seen = true;
                // The file's last bytes tell whether some header field may
                // follow, and which.
                let (start, last) = if self.complete() {
                    (0, Vec::new())
                } else {
                    file_end(&self.path, HEADER_AT_END_BYTES).unwrap_or_default()
                };
                if self.complete() || (self.has_required() && Top::games_end_the_file(&last)) {
                    self.open_games(Rest::Unread)?;
                    return Ok(Found::Games);
                }
                // Find them first, at the end of the file if they can be
                // read there.
                if self.try_end
                    && let Some((close, end)) = self.header_from_end(start, &last)
                {
                    let before = [
                        self.format.is_some(),
                        self.version.is_some(),
                        self.engine.is_some(),
                        self.profile.is_some(),
                    ];
                    (self.format, self.version) = (end.format, end.version);
                    (self.engine, self.profile) = (end.engine, end.profile);
                    self.from_end = true;
                    self.open_games(Rest::FromEnd { close, before })?;
                    return Ok(Found::Games);
                }
                let at = self.scan.mark();
                self.games_at = Some(at);
                let shared = self.sharing.and_then(|(jobs, len)| {
                    skip::games_end(&self.path, &self.source, at, jobs, len)
                });
                match shared {
                    Some(end) => {
                        self.shared = true;
                        self.rescan_from(end)?;
                    }
                    None => self.skip_games()?,
                }
                after_value = true;
                continue;
            }
            let span = self.scan.value().map_err(|e| self.scan_error(name, e))?;
            let values = &mut self.values;
            let duplicated = match field {
                TopField::Format => self
                    .format
                    .replace(values.parse(&span, name, &mut typed(), true)?)
                    .is_some(),
                TopField::Version => self
                    .version
                    .replace(values.parse(&span, name, &mut typed(), true)?)
                    .is_some(),
                TopField::Engine => self
                    .engine
                    .replace(values.parse(&span, name, &mut typed(), true)?)
                    .is_some(),
                TopField::Profile => self
                    .profile
                    .replace(values.parse(&span, name, &mut typed(), true)?)
                    .is_some(),
                TopField::Games => unreachable!("handled above"),
            };
            if duplicated {
                return Err(self.at(".", key_at, duplicate()));
            }
            after_value = true;
        }
    }

    /// Reads the rest of the object, after `games`, and what follows it.
    fn rest(&mut self) -> Result<(), InputError> {
        match self.members(true)? {
            Found::End => self.finish(),
            Found::Games => unreachable!("a second `games` is a duplicate"),
        }
    }

    /// The header fields after `games`, read from the end of the file (its
    /// last `bytes`, from offset `start`): the offset of the `]` they
    /// follow, and a [`Top`] holding them with those read before `games`.
    ///
    /// In the last [`HEADER_AT_END_BYTES`] of the file, each `]` followed
    /// by `,` and the name of a header field is tried, the last first
    /// ([`HEADER_AT_END_TRIES`] at most): the text after it must read as
    /// header fields that did not come before `games`, then `}` and nothing
    /// more, and with the fields before `games` hold every required one.
    ///
    /// In a transcript, such a `]` can only be the one that closes `games`,
    /// so its games can be checked before the reading gets there:
    /// - If the `]` is outside a string, the text after it reads alike from
    ///   it and from the start of the file, and closes one bracket more
    ///   than it opens; so the `]` closes an array that is the value of a
    ///   field of the top-level object, and the only one is `games`.
    /// - If it were inside a string, reading on from it as from outside
    ///   one would take each string of the file for the text between two
    ///   strings, and that text for a string: no backslash can come
    ///   outside a string, and no quote without one inside. That reading
    ///   would end inside a string where the file ends outside one, so it
    ///   could not end with `}`.
    ///
    /// A file in which such a `]` is found but `games` ends elsewhere is
    /// therefore no transcript, and reading it on from where `games` ends
    /// finds what is wrong ([`Rest::FromEnd`]).
    fn header_from_end(&self, start: u64, bytes: &[u8]) -> Option<(u64, Top)> {
        let names_a_field = |i: usize| {
            let comma = quick::after_ws(bytes, i + 1);
            let quote = quick::after_ws(bytes, comma + 1);
            let name = bytes.get(quote + 1..).unwrap_or_default();
            bytes.get(comma) == Some(&b',')
                && bytes.get(quote) == Some(&b'"')
                && TopField::ALL.into_iter().any(|f| {
                    let n = f.name().as_bytes();
                    f != TopField::Games && name.starts_with(n) && name.get(n.len()) == Some(&b'"')
                })
        };
        memchr::memrchr_iter(b']', bytes)
            .filter(|&i| names_a_field(i))
            .take(HEADER_AT_END_TRIES)
            .find_map(|i| {
                let close = start + i as u64;
                self.rest_after(close).map(|end| (close, end))
            })
    }

    /// A [`Top`] holding the header fields read so far and those read after
    /// the `]` at offset `close`, if the rest of the file reads as the rest
    /// of a transcript's top-level object from there.
    fn rest_after(&self, close: u64) -> Option<Top> {
        let mut end = Top::open(&self.path, &self.source).ok()?;
        end.format = self.format;
        end.version = self.version.as_ref().map(|_| Version);
        end.engine.clone_from(&self.engine);
        end.profile = self.profile;
        end.games_seen = true;
        // The place is wrong but never shown: an error gives the try up.
        let at = Mark {
            offset: close + 1,
            ..FILE_START
        };
        end.rescan_from(at).ok()?;
        end.rest().ok()?;
        Some(end)
    }

    /// `games` ended at `close`, not at the `]` that the header fields read
    /// from the end of the file follow ([`Top::header_from_end`]): the rest
    /// is read as it stands, with the fields that came before `games`
    /// (`before`), to find what is wrong with the file.
    fn rest_not_at_end(&mut self, close: Mark, before: [bool; 4]) -> Result<(), InputError> {
        let [format, version, engine, profile] = before;
        if !format {
            self.format = None;
        }
        if !version {
            self.version = None;
        }
        if !engine {
            self.engine = None;
        }
        if !profile {
            self.profile = None;
        }
        self.rest()?;
        // Not reached by a file that reads as a transcript to its end.
        Err(self.at(
            "games",
            close,
            "`games` ends here, not where the header fields at the end of the file \
             say it does",
        ))
    }

    /// After the object's closing brace: nothing may follow, and the
    /// required fields must all have come.
    fn finish(&mut self) -> Result<(), InputError> {
        if self.scan.skip_ws().map_err(|e| self.io(e))?.is_some() {
            return Err(self.at(".", self.scan.mark(), "trailing characters"));
        }
        for (name, missing) in [
            ("format", self.format.is_none()),
            ("version", self.version.is_none()),
            ("engine", self.engine.is_none()),
            ("games", !self.games_seen),
        ] {
            if missing {
                return Err(self.at(".", self.scan.mark(), format!("missing field `{name}`")));
            }
        }
        Ok(())
    }

    /// The next game's index and span; `None` once every game has been
    /// found and the rest of the file read.
    fn next_game(&mut self, out: &mut Vec<u8>) -> Result<Option<(usize, Span, Kept)>, InputError> {
        let Some(index) = self.game_start()? else {
            return Ok(None);
        };
        let (span, kept) = self.scanned_game(index, out)?;
        Ok(Some((index, span, kept)))
    }

    /// Scans the game at `index` (at its first byte), its bytes appended
    /// to `out` if it is short enough: its span and where they are.
    fn scanned_game(
        &mut self,
        index: usize,
        out: &mut Vec<u8>,
    ) -> Result<(Span, Kept), InputError> {
        let from = out.len();
        let (span, kept) = match self.scan.value_into(out, SLICE_MAX as usize) {
            Ok(found) => found,
            Err(e) => return Err(self.scan_error(&format!("games[{index}]"), e)),
        };
        self.passed(index);
        Ok((span, kept.then_some(from..out.len())))
    }

    /// Passes games `index..index + games`, checked elsewhere, unread:
    /// `len` bytes from the first byte of the first, holding `lines` line
    /// breaks (`column` being the column after the last), to the first
    /// byte of the game after them when `at_next`, else to the end of the
    /// last.
    fn pass_games(
        &mut self,
        index: usize,
        games: usize,
        len: u64,
        lines: u64,
        column: Option<u64>,
        at_next: bool,
    ) -> Result<(), InputError> {
        self.scan.pass(len, lines, column).map_err(|e| self.io(e))?;
        self.passed(index + games - 1);
        self.at_game = at_next;
        Ok(())
    }

    /// The game at `index` has been read: the next one is after it.
    fn passed(&mut self, index: usize) {
        self.at_game = false;
        if let TopState::Games { rest, .. } = self.state {
            self.state = TopState::Games {
                index: index + 1,
                rest,
            };
        }
    }

    /// At the next game, past the comma before it: its index; `None` once
    /// every game has been found and the rest of the file read. Called
    /// again before the game is passed, it stays there.
    fn game_start(&mut self) -> Result<Option<usize>, InputError> {
        let TopState::Games { index, rest } = self.state else {
            return Ok(None);
        };
        if self.at_game {
            return Ok(Some(index));
        }
        let eof = |top: &Top| top.at("games", top.scan.mark(), "EOF while parsing a list");
        let mut next = self.scan.skip_ws().map_err(|e| self.io(e))?;
        if index > 0 {
            match next {
                Some(b',') => {
                    self.scan.bump();
                    next = self.scan.skip_ws().map_err(|e| self.io(e))?;
                    if next == Some(b']') {
                        return Err(self.at("games", self.scan.mark(), "trailing comma"));
                    }
                }
                Some(b']') => {}
                None => return Err(eof(self)),
                Some(_) => return Err(self.at("games", self.scan.mark(), "expected `,` or `]`")),
            }
        }
        match next {
            None => Err(eof(self)),
            Some(b']') => {
                let close = self.scan.mark();
                self.scan.bump();
                self.state = TopState::Done;
                match rest {
                    Rest::Read => {}
                    Rest::FromEnd { close: end, .. } if end == close.offset => {}
                    Rest::Unread => self.rest()?,
                    Rest::FromEnd { before, .. } => self.rest_not_at_end(close, before)?,
                }
                Ok(None)
            }
            Some(_) => {
                self.at_game = true;
                Ok(Some(index))
            }
        }
    }
}

/// Where a game's bytes were kept, if they were.
type Kept = Option<std::ops::Range<usize>>;

impl Top {
    /// The next games, with their bytes, as one batch numbered `seq`;
    /// `None` once every game has been found. Bad input after some games
    /// of a batch is reported at the next call, once they are checked.
    /// `room` is a buffer to hold the bytes (one handed back by a thread
    /// done with its batch, which spares an allocation a batch).
    fn next_batch(&mut self, seq: usize, mut room: Vec<u8>) -> Result<Option<Batch>, InputError> {
        if let Some(e) = self.late_error.take() {
            return Err(e);
        }
        room.clear();
        if let TopState::Noted { next } = self.state {
            return self.noted_batch(seq, next, room);
        }
        let mut batch = Batch {
            seq,
            first: 0,
            bytes: room,
            games: Vec::new(),
        };
        while batch.games.len() < BATCH_GAMES && batch.bytes.len() < BATCH_BYTES {
            match self.next_game(&mut batch.bytes) {
                Ok(Some((index, span, kept))) => {
                    if batch.games.is_empty() {
                        batch.first = index;
                    }
                    batch.games.push((span, kept));
                }
                Ok(None) => break,
                Err(e) if batch.games.is_empty() => return Err(e),
                Err(e) => {
                    self.late_error = Some(e);
                    break;
                }
            }
        }
        Ok((!batch.games.is_empty()).then_some(batch))
    }
}

/// A game is read where it lies in the scan's buffer when this many bytes
/// (or the rest of the file) are there: a larger game may not fit, and is
/// then scanned first.
const LEADING: usize = 256 * 1024;

/// The outcomes of consecutive games, up to the first bad input.
type Outcomes<M> = Vec<Result<<M as Mode>::Outcome, InputError>>;

impl Top {
    /// The outcomes of the next games, checked on this thread as they are
    /// read: a game of the plain shape where it lies in the scan's buffer,
    /// with no scan (the quick reader finds its end), any other scanned
    /// first. Otherwise as [`Self::next_batch`]: as many games, `None`
    /// once every game has been found, and bad input after some games
    /// reported at the next call, once they are reported.
    fn checked_batch<M: Mode>(
        &mut self,
        mode: &M,
        worker: &mut Worker,
        stop: &AtomicBool,
    ) -> Result<Option<Outcomes<M>>, InputError> {
        if let TopState::Noted { .. } = self.state {
            let batch = self.next_batch(0, Vec::new())?;
            return Ok(batch.map(|batch| check_batch(mode, worker, &batch, stop)));
        }
        if let Some(e) = self.late_error.take() {
            return Err(e);
        }
        let (mut outcomes, mut bytes, mut kept) = (Vec::new(), 0, Vec::new());
        while outcomes.len() < BATCH_GAMES && bytes < BATCH_BYTES {
            let found = self.game_start().and_then(|index| {
                let Some(index) = index else {
                    return Ok(None);
                };
                let (outcome, len) = self.checked_game(mode, worker, index, &mut kept)?;
                bytes += len;
                Ok(Some(outcome))
            });
            let outcome = match found {
                Ok(Some(outcome)) => outcome,
                Ok(None) => break,
                Err(e) if outcomes.is_empty() => return Err(e),
                Err(e) => {
                    self.late_error = Some(e);
                    break;
                }
            };
            let bad = outcome.is_err();
            outcomes.push(outcome);
            if bad || stop.load(Ordering::Relaxed) {
                break;
            }
        }
        Ok((!outcomes.is_empty()).then_some(outcomes))
    }

    /// Checks game `index`, the scan at its first byte, on this thread:
    /// where it lies in the scan's buffer if it has the plain shape, else
    /// scanned first (its bytes kept in `kept`). Its outcome and length.
    fn checked_game<M: Mode>(
        &mut self,
        mode: &M,
        worker: &mut Worker,
        index: usize,
        kept: &mut Vec<u8>,
    ) -> Result<(Result<M::Outcome, InputError>, usize), InputError> {
        let window = match self.scan.window(LEADING) {
            Ok(window) => window,
            Err(e) => return Err(self.io(e)),
        };
        if let Some((outcome, len)) = check_leading(mode, &mut worker.memo, index, window) {
            self.scan.advance(len);
            self.passed(index);
            return Ok((Ok(outcome), len));
        }
        kept.clear();
        let (span, range) = self.scanned_game(index, kept)?;
        let at = GameAt {
            index,
            span,
            bytes: range.map(|r| &kept[r]),
        };
        Ok((check_game(mode, worker, &at), span.len as usize))
    }
}

impl Top {
    /// The next batch of noted games, their bytes read in one piece.
    fn noted_batch(
        &mut self,
        seq: usize,
        next: usize,
        room: Vec<u8>,
    ) -> Result<Option<Batch>, InputError> {
        let spans = self.noted.as_deref().unwrap_or_default();
        let Some(first) = spans.get(next) else {
            self.state = TopState::Done;
            self.noted = None;
            return Ok(None);
        };
        let mut batch = Batch {
            seq,
            first: next,
            bytes: room,
            games: Vec::new(),
        };
        if first.len > SLICE_MAX {
            // Read as it is checked.
            batch.games.push((*first, None));
        } else {
            let mut end = next;
            while end < spans.len()
                && end - next < BATCH_GAMES
                && spans[end].len <= SLICE_MAX
                && (end == next
                    || spans[end].start + spans[end].len - first.start <= BATCH_BYTES as u64)
            {
                end += 1;
            }
            let last = spans[end - 1];
            self.values.read_range(
                first.start,
                last.start + last.len - first.start,
                &mut batch.bytes,
            )?;
            for span in &spans[next..end] {
                let from = (span.start - first.start) as usize;
                batch
                    .games
                    .push((*span, Some(from..from + span.len as usize)));
            }
        }
        self.state = TopState::Noted {
            next: next + batch.games.len(),
        };
        Ok(Some(batch))
    }
}

enum Found {
    /// At the first game, the header known.
    Games,
    /// The object ended.
    End,
}

/// Refuses any value as `games` but an array, in serde's words.
struct NotGames;

impl SpanSeed for NotGames {
    type Value = ();
    fn run<'de, D: de::Deserializer<'de>>(&mut self, d: D) -> Result<(), D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ();
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of games")
            }
        }
        d.deserialize_seq(V)
    }
}

/// The format version, which must be one this build reads.
struct Version;

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Version, D::Error> {
        let v = u64::deserialize(d)?;
        if v == u64::from(VERSION) {
            Ok(Version)
        } else {
            Err(de::Error::custom(format!(
                "unsupported transcript version {v}: this kpe-check reads version {VERSION}"
            )))
        }
    }
}

// ---------------------------------------------------------------------------
// One game, its fields in any order
// ---------------------------------------------------------------------------

/// What is done with a game's plies as they are read.
pub(crate) trait GameHandler {
    /// A game begins (again, if its fields come in an order that needs a
    /// second reading): forget any earlier start.
    fn begin(&mut self, id: &str, start: Position);
    /// Returns whether the game still wants plies.
    fn ply(&mut self, ply: &Ply) -> bool;
}

/// A handler that only reads.
pub(crate) struct NoGame;

impl GameHandler for NoGame {
    fn begin(&mut self, _: &str, _: Position) {}
    fn ply(&mut self, _: &Ply) -> bool {
        false
    }
}

/// Which reading of a game's span.
pub(crate) enum Pass {
    /// The first: plies are checked at once if `id` came before them
    /// (and `start` too, or never).
    First,
    /// Again, `id` and `start` known: check the plies.
    Second { id: String, start: Position },
}

/// What the first reading found.
#[derive(Debug)]
pub(crate) struct GameRead {
    pub(crate) id: String,
    pub(crate) start: Position,
    /// The plies still need checking (they came before `id`, or before
    /// `start`, and were skipped or checked from the wrong start).
    pub(crate) again: bool,
}

struct GameRun<'h, H> {
    handler: &'h mut H,
    pass: Pass,
}

impl<H: GameHandler> SpanSeed for GameRun<'_, H> {
    type Value = Option<GameRead>;
    fn run<'de, D: de::Deserializer<'de>>(&mut self, d: D) -> Result<Option<GameRead>, D::Error> {
        d.deserialize_map(self)
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum GameField {
    Id,
    Start,
    Plies,
}

impl<'de, H: GameHandler> Visitor<'de> for &mut GameRun<'_, H> {
    type Value = Option<GameRead>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a game: an object with id, start (optional) and plies")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<GameRead>, A::Error> {
        if let Pass::Second { id, start } = &self.pass {
            // Everything was read once: only the plies are left to check.
            while let Some(key) = map.next_key::<GameField>()? {
                if let GameField::Plies = key {
                    self.handler.begin(id, *start);
                    map.next_value_seed(PliesSeed(&mut *self.handler))?;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            return Ok(None);
        }
        let mut id: Option<String> = None;
        let mut start: Option<Position> = None;
        let mut plies_seen = false;
        let mut again = false;
        while let Some(key) = map.next_key::<GameField>()? {
            let duplicate = match key {
                GameField::Id => {
                    again |= plies_seen;
                    id.replace(map.next_value()?).is_some()
                }
                GameField::Start => {
                    again |= plies_seen;
                    start.replace(map.next_value()?).is_some()
                }
                GameField::Plies => {
                    if let Some(id) = &id {
                        self.handler
                            .begin(id, start.unwrap_or_else(Position::initial));
                        map.next_value_seed(PliesSeed(&mut *self.handler))?;
                    } else {
                        // Checked once `id` is known, in a second reading.
                        map.next_value_seed(PliesSeed(&mut NoGame))?;
                        again = true;
                    }
                    std::mem::replace(&mut plies_seen, true)
                }
            };
            if duplicate {
                let name = match key {
                    GameField::Id => "id",
                    GameField::Start => "start",
                    GameField::Plies => "plies",
                };
                return Err(de::Error::duplicate_field(name));
            }
        }
        let Some(id) = id else {
            return Err(de::Error::missing_field("id"));
        };
        if !plies_seen {
            return Err(de::Error::missing_field("plies"));
        }
        Ok(Some(GameRead {
            id,
            start: start.unwrap_or_else(Position::initial),
            again,
        }))
    }
}

struct PliesSeed<'h, H>(&'h mut H);

impl<'de, H: GameHandler> DeserializeSeed<'de> for PliesSeed<'_, H> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, H: GameHandler> Visitor<'de> for PliesSeed<'_, H> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of plies")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut wanted = true;
        while let Some(ply) = seq.next_element_seed(PlySeed)? {
            if wanted {
                wanted = self.0.ply(&ply);
            }
        }
        Ok(())
    }
}

/// A ply, with the checks its fields need together.
struct PlySeed;

impl<'de> DeserializeSeed<'de> for PlySeed {
    type Value = Ply;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Ply, D::Error> {
        let ply = Ply::deserialize(d)?;
        if ply.totals.is_some() && ply.game_over != Some(true) {
            return Err(de::Error::custom(
                "`totals` is given but not `\"game_over\": true`: final totals exist only once the game is over",
            ));
        }
        Ok(ply)
    }
}

/// Reads the game at `span`, giving its plies to `handler`; a game whose
/// fields need it is read twice. An error is located with its JSON path
/// by reading the game once more, with paths noted.
fn run_game<H: GameHandler>(
    reader: &mut SpanReader,
    game: &GameAt<'_>,
    handler: &mut H,
) -> Result<(), InputError> {
    let (span, index) = (&game.span, game.index);
    // The plain shape, read fast; anything else (or bad input) is read
    // by serde below, which says what is wrong and where.
    let done = match game.bytes {
        Some(bytes) => quick_game(bytes, handler),
        None => reader
            .load(span)?
            .is_some_and(|bytes| quick_game(bytes, handler)),
    };
    if done {
        return Ok(());
    }
    if let Some(bytes) = game.bytes {
        reader.hold(span, bytes);
    }
    let prefix = format!("games[{index}]");
    let traced = |reader: &mut SpanReader, first: InputError| -> InputError {
        let mut run = GameRun {
            handler: &mut NoGame,
            pass: Pass::First,
        };
        match reader.parse(span, &prefix, &mut run, true) {
            Err(traced) => traced,
            Ok(_) => first,
        }
    };
    let mut run = GameRun {
        handler: &mut *handler,
        pass: Pass::First,
    };
    let read = match reader.parse(span, &prefix, &mut run, false) {
        Ok(read) => read.expect("the first reading returns what it found"),
        Err(e) => return Err(traced(reader, e)),
    };
    if read.again {
        let mut run = GameRun {
            handler,
            pass: Pass::Second {
                id: read.id,
                start: read.start,
            },
        };
        reader.parse(span, &prefix, &mut run, true)?;
    }
    Ok(())
}

/// Reads the game in `bytes` with serde alone, as [`run_game`] does when
/// the quick reader is unsure (for tests comparing the two).
#[cfg(test)]
pub(crate) fn serde_game<H: GameHandler>(
    bytes: &[u8],
    pass: Pass,
    handler: &mut H,
) -> Result<Option<GameRead>, serde_json::Error> {
    let mut run = GameRun { handler, pass };
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let read = run.run(&mut de)?;
    de.end()?;
    Ok(read)
}

/// Reads a game of the plain shape with [`quick`]; false if it is not.
fn quick_game<H: GameHandler>(bytes: &[u8], handler: &mut H) -> bool {
    quick_leading(bytes, handler)
        .is_some_and(|len| bytes[len..].iter().all(u8::is_ascii_whitespace))
}

/// Reads the game `bytes` start with, if it has the plain shape; its
/// length.
fn quick_leading<H: GameHandler>(bytes: &[u8], handler: &mut H) -> Option<usize> {
    let Ok((Some(read), len)) = quick::leading(bytes, &Pass::First, handler) else {
        return None;
    };
    if !read.again {
        return Some(len);
    }
    let second = Pass::Second {
        id: read.id,
        start: read.start,
    };
    quick::game(&bytes[..len], &second, handler).ok()?;
    Some(len)
}

/// A game to check: its index, where it lies, and its bytes when the scan
/// kept them (else they are read from the file).
pub(crate) struct GameAt<'a> {
    index: usize,
    span: Span,
    bytes: Option<&'a [u8]>,
}

/// Consecutive games, handed to a thread at once with their bytes: one
/// hand-off per batch, not per game, and no second reading of the file.
struct Batch {
    /// Its place among the batches.
    seq: usize,
    /// The index of its first game.
    first: usize,
    bytes: Vec<u8>,
    /// Each game's span and, when kept, where its bytes are in `bytes`.
    games: Vec<(Span, Option<std::ops::Range<usize>>)>,
}

/// A batch takes games until it holds this many bytes or games.
const BATCH_BYTES: usize = 256 * 1024;
const BATCH_GAMES: usize = 512;

impl Batch {
    fn games(&self) -> impl Iterator<Item = GameAt<'_>> {
        self.games
            .iter()
            .enumerate()
            .map(|(k, (span, range))| GameAt {
                index: self.first + k,
                span: *span,
                bytes: range.clone().map(|r| &self.bytes[r]),
            })
    }
}

// ---------------------------------------------------------------------------
// Running the games, in one thread or many
// ---------------------------------------------------------------------------

/// A thread's own means to read and check games.
pub(crate) struct Worker {
    reader: SpanReader,
    memo: ReportRules,
}

impl Worker {
    fn open(path: &Path, source: &str) -> Result<Worker, InputError> {
        Ok(Worker {
            reader: SpanReader::open(path, source)?,
            memo: ReportRules::new(),
        })
    }
}

/// What is checked in each game, on any thread: a handler is given the
/// game's plies as they are read, then makes the game's outcome.
trait Mode: Sync {
    type Outcome: Send;
    type Game<'w>: GameHandler
    where
        Self: 'w;
    /// A handler for the next game; `memo` is the thread's own.
    fn start<'w>(&'w self, memo: &'w mut ReportRules) -> Self::Game<'w>;
    /// What the game at `index` came to, once read.
    fn outcome(&self, index: usize, game: Self::Game<'_>) -> Self::Outcome;
    /// `outcome`, made for some index, made for game `index`.
    fn renumber(&self, outcome: &mut Self::Outcome, index: usize);
}

/// Reads and checks the game `at` locates.
fn check_game<M: Mode>(
    mode: &M,
    worker: &mut Worker,
    at: &GameAt<'_>,
) -> Result<M::Outcome, InputError> {
    let mut game = mode.start(&mut worker.memo);
    run_game(&mut worker.reader, at, &mut game)?;
    Ok(mode.outcome(at.index, game))
}

/// Checks the game `bytes` start with, the game at `index`, if it has the
/// plain shape: its outcome and its length.
fn check_leading<M: Mode>(
    mode: &M,
    memo: &mut ReportRules,
    index: usize,
    bytes: &[u8],
) -> Option<(M::Outcome, usize)> {
    let mut game = mode.start(memo);
    let len = quick_leading(bytes, &mut game)?;
    Some((mode.outcome(index, game), len))
}

/// What is done with the header and the games' outcomes, in file order,
/// on the calling thread.
trait Consumer {
    type Mode: Mode;
    fn header(&mut self, header: Header) -> Result<Self::Mode, Abort>;
    fn game(
        &mut self,
        mode: &Self::Mode,
        outcome: <Self::Mode as Mode>::Outcome,
    ) -> Result<(), Abort>;
}

/// Why a consumer stops the run.
pub(crate) enum Abort {
    /// Writing a report failed.
    Output(io::Error),
    /// Nothing more to learn from the rest of the file.
    Done,
}

impl Abort {
    fn into_result(self) -> Result<(), CheckError> {
        match self {
            Abort::Output(e) => Err(CheckError::Output(e)),
            Abort::Done => Ok(()),
        }
    }
}

/// The next games, for the calling thread to hand out or already checked.
enum Next<M: Mode> {
    Hand(Batch),
    Checked(Outcomes<M>),
}

/// Reads the transcript at `path`, checking its games with `jobs` threads
/// and giving the outcomes to `consumer` in the file's order.
///
/// With one job the calling thread checks each game as it reads it, with
/// no scan for a game of the plain shape. With more, the games are found
/// and checked in parallel in pieces of the file ([`chunks`]); for a file
/// where that does not pay (most games not of the plain shape, or the
/// header after games whose end was not found in pieces, [`skip`]), the
/// calling thread scans games and hands them out in batches
/// ([`drive_batches`]).
fn drive<C: Consumer>(
    path: &Path,
    source: &str,
    jobs: usize,
    consumer: &mut C,
) -> Result<(), CheckError> {
    drive_with(path, source, jobs, chunks::Chunking::FILE, consumer).map(|_| ())
}

/// [`drive`], the file cut into pieces as `chunking` says: how the pieces
/// went.
fn drive_with<C: Consumer>(
    path: &Path,
    source: &str,
    jobs: usize,
    chunking: chunks::Chunking,
    consumer: &mut C,
) -> Result<chunks::Tally, CheckError> {
    let mut top = Top::open(path, source)?;
    top.sharing = Some((jobs, chunking.skip));
    top.try_end = chunking.from_end;
    let header = top.header()?;
    let mode = match consumer.header(header) {
        Ok(mode) => mode,
        Err(abort) => return abort.into_result().map(|()| chunks::Tally::default()),
    };
    let mut tally = chunks::Tally {
        skipped: top.shared,
        from_end: top.from_end,
        ..chunks::Tally::default()
    };
    let stop = AtomicBool::new(false);
    if jobs <= 1 {
        let mut worker = Worker::open(path, source)?;
        while let Some(outcomes) = top.checked_batch(&mode, &mut worker, &stop)? {
            for outcome in outcomes {
                if let Err(abort) = consumer.game(&mode, outcome?) {
                    return abort.into_result().map(|()| chunks::Tally::default());
                }
            }
        }
        return Ok(tally);
    }
    if let TopState::Games { .. } = top.state {
        let run = chunks::Run {
            path,
            source,
            jobs,
            chunking,
        };
        if run.drive(&mut top, &mode, consumer, &mut tally)? == chunks::Flow::Done {
            return Ok(tally);
        }
    }
    drive_batches(&mut top, &mode, path, source, jobs, consumer)?;
    Ok(tally)
}

/// Checks the rest of the games with `jobs` threads: while another thread
/// has fewer than two batches, the calling thread scans the next games
/// and hands them to it as a batch, with their bytes; otherwise it checks
/// the next games itself as it reads them.
fn drive_batches<C: Consumer>(
    top: &mut Top,
    mode: &C::Mode,
    path: &Path,
    source: &str,
    jobs: usize,
    consumer: &mut C,
) -> Result<(), CheckError> {
    let stop = AtomicBool::new(false);
    // The calling thread checks games too, as it reads them, while every
    // other thread has batches to check: `jobs` threads in all, on `jobs`
    // cores.
    let mut own = Worker::open(path, source)?;
    let workers = (1..jobs)
        .map(|_| Worker::open(path, source))
        .collect::<Result<Vec<_>, _>>()?;
    // Each other thread has one batch being checked and one waiting.
    let ahead = 2 * (jobs - 1);
    let (job_tx, job_rx) = mpsc::sync_channel::<Batch>(ahead);
    let job_rx = Mutex::new(job_rx);
    std::thread::scope(|s| {
        // Owned here, so that it is dropped (and the threads end) however
        // this closure ends, a panic included.
        let job_tx = job_tx;
        let (result_tx, result_rx) = mpsc::channel::<Answer<<C::Mode as Mode>::Outcome>>();
        for mut worker in workers {
            let (job_rx, result_tx, stop) = (&job_rx, result_tx.clone(), &stop);
            s.spawn(move || {
                loop {
                    let job = job_rx.lock().map(|rx| rx.recv());
                    let Ok(Ok(batch)) = job else { break };
                    if stop.load(Ordering::Relaxed) {
                        continue;
                    }
                    // A panic (a bug) goes to the calling thread, which
                    // would otherwise wait for this batch for ever.
                    let outcomes = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        check_batch(mode, &mut worker, &batch, stop)
                    }));
                    if outcomes.is_err() {
                        // Skip the rest, so the job channel never fills.
                        stop.store(true, Ordering::Relaxed);
                    }
                    if result_tx.send((batch.seq, outcomes, batch.bytes)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(result_tx);
        // Batches handed out at most this far ahead of the one reported
        // next: memory stays a few batches per thread.
        let window = jobs * 8;
        // Byte buffers of batches done, for the next ones.
        let mut pool: Vec<Vec<u8>> = Vec::new();
        let (mut sent, mut next) = (0, 0);
        // Batches handed to the other threads and not answered yet.
        let mut handed = 0;
        let mut scanned = false;
        let mut scan_error = None;
        let mut waiting = BTreeMap::new();
        let result = 'run: loop {
            while !scanned && sent < next + window {
                while let Ok(answer) = result_rx.try_recv() {
                    answered(answer, &mut handed, &mut pool, &mut waiting);
                }
                let found = if handed < ahead {
                    top.next_batch(sent, pool.pop().unwrap_or_default())
                        .map(|batch| batch.map(Next::<C::Mode>::Hand))
                } else {
                    // Every other thread is busy: check the next games
                    // here, as they are read.
                    top.checked_batch(mode, &mut own, &stop)
                        .map(|outcomes| outcomes.map(Next::Checked))
                };
                match found {
                    Ok(Some(Next::Hand(batch))) => {
                        sent += 1;
                        handed += 1;
                        if let Err(mpsc::TrySendError::Full(batch)) = job_tx.try_send(batch) {
                            // Not expected (the channel holds `ahead`).
                            handed -= 1;
                            let outcomes = check_batch(mode, &mut own, &batch, &stop);
                            waiting.insert(batch.seq, outcomes);
                            pool.push(batch.bytes);
                        }
                    }
                    Ok(Some(Next::Checked(outcomes))) => {
                        waiting.insert(sent, outcomes);
                        sent += 1;
                    }
                    Ok(None) => scanned = true,
                    Err(e) => {
                        scan_error = Some(e);
                        scanned = true;
                    }
                }
                if waiting.contains_key(&next) {
                    break;
                }
            }
            if next == sent && scanned {
                break scan_error.map_or(Ok(()), |e| Err(CheckError::Input(e)));
            }
            // Once nothing more can be read (every game read, or as far
            // ahead as the window allows), a batch no other thread has taken
            // yet is checked here rather than waited for; before that, the
            // games still to read are this thread's share. The lock is held
            // by a thread only while it waits for a batch, when none is
            // queued.
            let idle = scanned || sent >= next + window;
            let queued = idle
                .then(|| job_rx.try_lock().ok().and_then(|rx| rx.try_recv().ok()))
                .flatten();
            if let Some(batch) = queued {
                handed -= 1;
                let outcomes = check_batch(mode, &mut own, &batch, &stop);
                waiting.insert(batch.seq, outcomes);
                pool.push(batch.bytes);
            } else if !waiting.contains_key(&next) {
                // The next batch to report is another thread's: wait for
                // any answer (it gives back a buffer, and perhaps `next`).
                let answer = result_rx
                    .recv()
                    .expect("a worker answers every batch it takes");
                answered(answer, &mut handed, &mut pool, &mut waiting);
            }
            while let Ok(answer) = result_rx.try_recv() {
                answered(answer, &mut handed, &mut pool, &mut waiting);
            }
            while let Some(outcomes) = waiting.remove(&next) {
                next += 1;
                for outcome in outcomes {
                    let outcome = match outcome {
                        Ok(outcome) => outcome,
                        Err(e) => break 'run Err(CheckError::Input(e)),
                    };
                    if let Err(abort) = consumer.game(mode, outcome) {
                        break 'run abort.into_result();
                    }
                }
            }
        };
        stop.store(true, Ordering::Relaxed);
        drop(job_tx);
        result
    })
}

/// Another thread's answer: the batch's place, its outcomes (or the
/// thread's panic) and the batch's byte buffer.
type Answer<O> = (
    usize,
    std::thread::Result<Vec<Result<O, InputError>>>,
    Vec<u8>,
);

/// Takes in another thread's answer: one batch fewer handed out, its
/// buffer for the next batch, its outcomes waiting for their turn (a
/// panic goes on here).
fn answered<O>(
    (seq, outcomes, bytes): Answer<O>,
    handed: &mut usize,
    pool: &mut Vec<Vec<u8>>,
    waiting: &mut BTreeMap<usize, Vec<Result<O, InputError>>>,
) {
    *handed -= 1;
    pool.push(bytes);
    let outcomes = outcomes.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    waiting.insert(seq, outcomes);
}

/// The outcomes of a batch's games, up to the first bad input (or until
/// `stop`).
fn check_batch<M: Mode>(
    mode: &M,
    worker: &mut Worker,
    batch: &Batch,
    stop: &AtomicBool,
) -> Vec<Result<M::Outcome, InputError>> {
    let mut outcomes = Vec::new();
    for game in batch.games() {
        let outcome = check_game(mode, worker, &game);
        let bad = outcome.is_err();
        outcomes.push(outcome);
        if bad || stop.load(Ordering::Relaxed) {
            break;
        }
    }
    outcomes
}

// ---------------------------------------------------------------------------
// The main pass: check under the claimed profile and report
// ---------------------------------------------------------------------------

struct MainMode {
    source: String,
    engine: Engine,
    profile: Profile,
}

struct MainGame<'a> {
    mode: &'a MainMode,
    memo: &'a mut ReportRules,
    id: String,
    check: GameCheck,
    plies: u64,
    /// The first claim the rules refute, with what differs: diagnosed
    /// once the game's reading is over (a first reading from the wrong
    /// start, when `start` comes after `plies`, is not worth a diagnosis).
    refuted: Option<(Ply, Mismatch)>,
    rules: RuleSet,
    started: std::time::Instant,
}

impl MainGame<'_> {
    fn divergence(&self) -> Option<Divergence> {
        let (ply, mismatch) = self.refuted.as_ref()?;
        let ctx = Context {
            source: &self.mode.source,
            engine: Some(&self.mode.engine),
            unit: &self.id,
            ply: self.plies,
        };
        Some(diagnose(&self.check, ply, *mismatch, &ctx))
    }
}

impl GameHandler for MainGame<'_> {
    fn begin(&mut self, id: &str, start: Position) {
        self.id = id.to_owned();
        self.check.restart(start);
        self.plies = 0;
        self.refuted = None;
        self.rules = RuleSet::new();
    }

    fn ply(&mut self, ply: &Ply) -> bool {
        self.plies += 1;
        match self.check.step(ply) {
            Ok(report) => {
                self.rules.extend(self.memo.of(&report));
                true
            }
            Err(mismatch) => {
                self.refuted = Some((ply.clone(), mismatch));
                false
            }
        }
    }
}

impl Mode for MainMode {
    type Outcome = (UnitResult, RuleSet);
    type Game<'w> = MainGame<'w>;

    fn start<'w>(&'w self, memo: &'w mut ReportRules) -> MainGame<'w> {
        MainGame {
            mode: self,
            memo,
            id: String::new(),
            check: GameCheck::new(Position::initial(), self.profile),
            plies: 0,
            refuted: None,
            rules: RuleSet::new(),
            started: std::time::Instant::now(),
        }
    }

    fn outcome(&self, index: usize, game: MainGame<'_>) -> (UnitResult, RuleSet) {
        let location = Some(game_location(index));
        let mut unit = match game.divergence() {
            None => UnitResult::conforming("game", game.id, location, game.plies),
            Some(d) => UnitResult::diverging("game", game.id, location, game.plies, d),
        };
        unit.time = game.started.elapsed().as_secs_f64();
        (unit, game.rules)
    }

    fn renumber(&self, (unit, _): &mut (UnitResult, RuleSet), index: usize) {
        unit.location = Some(game_location(index));
    }
}

/// Where game `index` is in the file, as reports name it.
fn game_location(index: usize) -> String {
    format!("games[{index}]")
}

struct MainPass<'a> {
    source: &'a str,
    sink: &'a mut dyn Sink,
    summary: Summary,
    profile: Profile,
}

impl Consumer for MainPass<'_> {
    type Mode = MainMode;

    fn header(&mut self, header: Header) -> Result<MainMode, Abort> {
        let mut run = Run::new(self.source, RunKind::Transcript, header.profile);
        run.engine = Some(header.engine.clone());
        self.profile = header.profile;
        self.sink.begin(&run).map_err(Abort::Output)?;
        Ok(MainMode {
            source: self.source.to_owned(),
            engine: header.engine,
            profile: header.profile,
        })
    }

    fn game(&mut self, _: &MainMode, (unit, rules): (UnitResult, RuleSet)) -> Result<(), Abort> {
        self.summary.rules.extend(rules);
        self.summary.add(&unit);
        self.sink.unit(&unit).map_err(Abort::Output)
    }
}

fn main_pass(
    path: &Path,
    source: &str,
    jobs: usize,
    sink: &mut dyn Sink,
) -> Result<(Summary, Profile), CheckError> {
    let mut pass = MainPass {
        source,
        sink,
        summary: Summary::default(),
        profile: Profile::default(),
    };
    let result = drive(path, source, jobs, &mut pass);
    if let Err(CheckError::Input(e)) = &result {
        // Close the reports cleanly; the input error is what matters.
        let _ = pass.sink.fail(e);
    }
    result?;
    Ok((pass.summary, pass.profile))
}

/// Copies `reader` into a temporary file, so that it can be read more than
/// once (as checking a transcript whose fields come in any order, and
/// naming the reading, need).
///
/// # Errors
///
/// When `reader` or the temporary file fails.
pub fn spool(mut reader: impl Read) -> io::Result<tempfile::NamedTempFile> {
    let mut file = tempfile::NamedTempFile::new()?;
    io::copy(&mut reader, file.as_file_mut())?;
    file.as_file_mut().flush()?;
    Ok(file)
}

/// Checks the transcript read from `reader` (e.g. standard input) like
/// [`check_transcript_file`]: it is first copied to a temporary file
/// ([`spool`]); `source` names it in reports and errors.
///
/// # Errors
///
/// [`CheckError::Input`] for bad input (after telling `sink`), and
/// [`CheckError::Output`] when `sink` fails.
pub fn check_transcript_reader(
    source: &str,
    reader: impl Read,
    sink: &mut dyn Sink,
) -> Result<Summary, CheckError> {
    let file = match spool(reader) {
        Ok(file) => file,
        Err(e) => {
            let e = InputError::read(source, e);
            let _ = sink.fail(&e);
            return Err(e.into());
        }
    };
    check_transcript_file_with(file.path(), &Options::default().named(source), sink)
}

/// Checks the transcript at `path`: every game under the claimed profile,
/// each result sent to `sink` as soon as it is known; then, if some game
/// diverged, reads the file again to find the profiles under which every
/// game conforms ([`name_reading`]). Games are checked by as many threads
/// as there are cores ([`Options::default`]).
///
/// # Errors
///
/// [`CheckError::Input`] for bad input (after telling `sink`), and
/// [`CheckError::Output`] when `sink` fails.
pub fn check_transcript_file(path: &Path, sink: &mut dyn Sink) -> Result<Summary, CheckError> {
    check_transcript_file_with(path, &Options::default(), sink)
}

/// [`check_transcript_file`] with [`Options`]: how many games at once,
/// and the input's name.
///
/// # Errors
///
/// As [`check_transcript_file`].
pub fn check_transcript_file_with(
    path: &Path,
    options: &Options,
    sink: &mut dyn Sink,
) -> Result<Summary, CheckError> {
    let source = options.source(path);
    let (mut summary, profile) = main_pass(path, &source, options.jobs, sink)?;
    if summary.diverging > 0 {
        let mut file = TranscriptFile::with_options(path, options);
        match name_reading(profile, &mut file) {
            Ok(reading) => summary.reading = Some(reading),
            Err(CheckError::Input(e)) => {
                let _ = sink.fail(&e);
                return Err(CheckError::Input(e));
            }
            Err(e) => return Err(e),
        }
    }
    sink.finish(&summary).map_err(CheckError::Output)?;
    Ok(summary)
}

// ---------------------------------------------------------------------------
// Re-checking under other profiles, in one more pass over the file
// ---------------------------------------------------------------------------

/// A transcript file as a [`Recheck`]: all profiles asked about are checked
/// together in a single pass over the file.
#[derive(Clone, Debug)]
pub struct TranscriptFile {
    path: PathBuf,
    options: Options,
}

impl TranscriptFile {
    /// The transcript at `path`, read with the default [`Options`].
    #[must_use]
    pub fn new(path: &Path) -> TranscriptFile {
        TranscriptFile::with_options(path, &Options::default())
    }

    /// The transcript at `path`, read with `options`.
    #[must_use]
    pub fn with_options(path: &Path, options: &Options) -> TranscriptFile {
        TranscriptFile {
            path: path.to_owned(),
            options: options.clone(),
        }
    }
}

impl Recheck for TranscriptFile {
    type Error = CheckError;

    fn conforms_under(&mut self, profile: Profile) -> Result<bool, CheckError> {
        Ok(self.conforms_under_each(&[profile])?[0])
    }

    fn conforms_under_each(&mut self, profiles: &[Profile]) -> Result<Vec<bool>, CheckError> {
        let mut pass = ReadingPass {
            profiles: profiles.to_vec(),
            ok: vec![true; profiles.len()],
        };
        let source = self.options.source(&self.path);
        drive(&self.path, &source, self.options.jobs, &mut pass)?;
        Ok(pass.ok)
    }
}

struct ReadingPass {
    profiles: Vec<Profile>,
    ok: Vec<bool>,
}

struct ReadingMode {
    profiles: Vec<Profile>,
    /// The profiles no game has refuted yet (as far as the reports go).
    alive: Vec<AtomicBool>,
}

struct ReadingGame<'a> {
    profiles: &'a [Profile],
    alive: Vec<bool>,
    ok: Vec<bool>,
    games: Vec<Option<GameCheck>>,
}

impl GameHandler for ReadingGame<'_> {
    fn begin(&mut self, _: &str, start: Position) {
        self.ok = vec![true; self.profiles.len()];
        self.games = (0..self.profiles.len())
            .map(|k| self.alive[k].then(|| GameCheck::new(start, self.profiles[k])))
            .collect();
    }

    fn ply(&mut self, ply: &Ply) -> bool {
        let mut wanted = false;
        for (k, slot) in self.games.iter_mut().enumerate() {
            if let Some(game) = slot {
                if game.step(ply).is_err() {
                    self.ok[k] = false;
                    *slot = None;
                } else {
                    wanted = true;
                }
            }
        }
        wanted
    }
}

impl Mode for ReadingMode {
    type Outcome = Vec<bool>;
    type Game<'w> = ReadingGame<'w>;

    fn start<'w>(&'w self, _: &'w mut ReportRules) -> ReadingGame<'w> {
        ReadingGame {
            profiles: &self.profiles,
            alive: self
                .alive
                .iter()
                .map(|a| a.load(Ordering::Relaxed))
                .collect(),
            ok: vec![true; self.profiles.len()],
            games: Vec::new(),
        }
    }

    fn outcome(&self, _: usize, game: ReadingGame<'_>) -> Vec<bool> {
        game.ok
    }

    fn renumber(&self, _: &mut Vec<bool>, _: usize) {}
}

impl Consumer for ReadingPass {
    type Mode = ReadingMode;

    fn header(&mut self, _: Header) -> Result<ReadingMode, Abort> {
        Ok(ReadingMode {
            profiles: self.profiles.clone(),
            alive: self.ok.iter().map(|&ok| AtomicBool::new(ok)).collect(),
        })
    }

    fn game(&mut self, mode: &ReadingMode, ok: Vec<bool>) -> Result<(), Abort> {
        for (k, ok) in ok.into_iter().enumerate() {
            if !ok {
                self.ok[k] = false;
                mode.alive[k].store(false, Ordering::Relaxed);
            }
        }
        if !self.ok.contains(&true) {
            return Err(Abort::Done);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(text: &str) -> Option<Scanned> {
        let mut file = tempfile::tempfile().expect("a temporary file");
        file.write_all(text.as_bytes()).expect("written");
        file.seek(SeekFrom::Start(0)).expect("rewound");
        scanned_kind(file)
    }

    #[test]
    fn the_format_is_found_by_a_scan_or_left_to_the_parse() {
        let games = r#"[{"id": "a", "plies": [{"move": "S1", "after": "x\"]}"}]}]"#;
        // Only a transcript has games: its reader checks the format.
        let text =
            format!(r#"{{"engine": {{"n": "e"}}, "games": {games}, "format": "kpe-engine"}}"#);
        assert_eq!(scanned(&text), Some(Scanned::Games));
        for (text, found) in [
            (
                format!(r#"{{"engine": {{"n": "e"}}, "a": {games}, "format": "kpe-transcript"}}"#),
                Some("kpe-transcript"),
            ),
            (
                r#" { "form\u0061t" : "kpe-engine" } "#.to_owned(),
                Some("kpe-engine"),
            ),
            (
                r#"{"a": [1, {"b": "}"}], "format": "x\u0041"}"#.to_owned(),
                Some("xA"),
            ),
            // Left to the parse, which says what is wrong and where.
            (r#"{"format": 3}"#.to_owned(), None),
            (r#"[{"format": "kpe-engine"}]"#.to_owned(), None),
            (r#"{"a": 1 "format": "kpe-engine"}"#.to_owned(), None),
            (r#"{"a": 1}"#.to_owned(), None),
            (format!(r#"{{"format": "{}"}}"#, "k".repeat(5000)), None),
            (String::new(), None),
        ] {
            assert_eq!(
                scanned(&text),
                found.map(|f| Scanned::Format(f.to_owned())),
                "{text}"
            );
            // What the scan finds, the parse finds too.
            if let Some(found) = found {
                assert_eq!(
                    format!("{:?}", kind_named("t", found)),
                    format!("{:?}", kind_of("t", guarded(text.as_bytes()))),
                    "{text}"
                );
            }
        }
    }
}
