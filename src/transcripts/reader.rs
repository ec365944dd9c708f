// Measured (issue 22, 2026-12-04, load 0.3-1.2, `check_speed` on the
// bench file with sorted keys, fastest of 10 rounds): reading the header
// fields that follow `games` from the end of the file
// (`Top::header_from_end`) takes a check to 59.6 ms against 73.4 ms
// without it (1.23x);
// sorted keys then cost what the format's own order does. serde reads
// each game's span (`super::span`); what is hand-written here is the top
// level, whose fields may come in any order around a `games` too large to
// hold.

//! Reading a transcript one game at a time and checking each game as it
//! arrives, so that memory stays bounded whatever the size of the file.
//!
//! A structural scan ([`super::scan`]) finds the header fields and where
//! each game lies in the file; each game is then parsed from its span with
//! serde visitors, and each element of its `plies` is checked and dropped.
//! Fields may come in any order: when `games` comes before some header
//! field (`profile` may follow it, as with sorted keys), those fields are
//! read at the end of the file first (`Top::header_from_end`); where they
//! cannot be, the scan reads on to the end of the object and comes back;
//! when a game's `plies` come before its `id` or `start`, the game's span
//! is read twice. Games can be checked by several threads, handed out in
//! batches ([`super::drive`]), the report kept in the file's order. Only a few games per thread, the current ply
//! and the results of diverging games are held.

use std::fmt;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Deserialize;
use serde::de::{self, Visitor};

use crate::profile::Profile;

use super::game::{BATCH_BYTES, BATCH_GAMES, Batch, GameAt, quick_leading, run_game};
use super::handler::GameHandler;
use super::kind::open;
use super::quick;
use super::scan::{FILE_START, Mark, ScanError, Scanner, Span};
use super::span::{SLICE_MAX, SpanReader, SpanSeed, typed};
use crate::judge::ReportRules;
use crate::reporter::{CheckError, InputError, InputErrorKind};
use crate::transcript::{Engine, TranscriptFormat, VERSION};

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

/// How a transcript is checked.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Options {
    /// The input's name in reports and errors (e.g. `-` for standard
    /// input); `None` names it by its path.
    pub name: Option<String>,
}

impl Options {
    /// These options, naming the input `name` in reports and errors.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Options {
        self.name = Some(name.into());
        self
    }

    pub(super) fn source(&self, path: &Path) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| path.display().to_string())
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
pub(super) enum TopField {
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
pub(super) enum TopState {
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
pub(super) enum Rest {
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
pub(super) fn file_end(path: &Path, len: u64) -> io::Result<(u64, Vec<u8>)> {
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
pub(super) struct Top {
    source: String,
    path: PathBuf,
    pub(super) scan: Scanner<File>,
    values: SpanReader,
    format: Option<TranscriptFormat>,
    version: Option<Version>,
    engine: Option<Engine>,
    profile: Option<Profile>,
    /// Where `games` starts, when it came before some header field.
    games_at: Option<Mark>,
    /// Where each game lies, noted while `games` was skipped.
    noted: Option<Vec<Span>>,
    /// Whether a header after `games` is first looked for at the end of
    /// the file ([`Top::header_from_end`]).
    pub(super) try_end: bool,
    /// It was found there.
    pub(super) from_end: bool,
    games_seen: bool,
    pub(super) state: TopState,
    /// The scan is at the first byte of game `index` of [`TopState::Games`]
    /// (the comma before it passed), not read yet.
    at_game: bool,
    /// Bad input found while filling a batch, reported after it.
    late_error: Option<InputError>,
}

impl Top {
    pub(super) fn open(path: &Path, source: &str) -> Result<Top, InputError> {
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

    pub(super) fn io(&self, e: io::Error) -> InputError {
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
    pub(super) fn header(&mut self) -> Result<Header, InputError> {
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
    pub(super) fn note_games(&mut self) -> io::Result<Option<Vec<Span>>> {
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
            let (field, key_at) = self.key()?;
            if field == TopField::Games {
                if let Some(found) = self.games_member(key_at)? {
                    return Ok(found);
                }
            } else {
                self.header_member(field, key_at)?;
            }
            after_value = true;
        }
    }

    /// A member's key, its colon and the blanks after it: which field it
    /// names, and where the key starts.
    fn key(&mut self) -> Result<(TopField, Mark), InputError> {
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
        Ok((field, key_at))
    }

    /// The `games` member (its key at `key_at`): [`Found::Games`] when the
    /// games can be streamed now, `None` when they were skipped to read
    /// the header after them first.
    fn games_member(&mut self, key_at: Mark) -> Result<Option<Found>, InputError> {
        if self.games_seen {
            return Err(self.at(".", key_at, "duplicate field `games`"));
        }
        self.games_seen = true;
        // The file's last bytes tell whether some header field may follow,
        // and which.
        let (start, last) = if self.complete() {
            (0, Vec::new())
        } else {
            file_end(&self.path, HEADER_AT_END_BYTES).unwrap_or_default()
        };
        if self.complete() || (self.has_required() && Top::games_end_the_file(&last)) {
            self.open_games(Rest::Unread)?;
            return Ok(Some(Found::Games));
        }
        // Find them first, at the end of the file if they can be read
        // there.
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
            return Ok(Some(Found::Games));
        }
        let at = self.scan.mark();
        self.games_at = Some(at);
        self.skip_games()?;
        Ok(None)
    }

    /// A header member, `field` (its key at `key_at`): its value read and
    /// kept, once.
    fn header_member(&mut self, field: TopField, key_at: Mark) -> Result<(), InputError> {
        let name = field.name();
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
            TopField::Games => unreachable!("handled by games_member"),
        };
        if duplicated {
            return Err(self.at(".", key_at, format!("duplicate field `{name}`")));
        }
        Ok(())
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
    pub(super) fn game_start(&mut self) -> Result<Option<usize>, InputError> {
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
pub(super) type Kept = Option<std::ops::Range<usize>>;

impl Top {
    /// The next games, with their bytes, as one batch;
    /// `None` once every game has been found. Bad input after some games
    /// of a batch is reported at the next call, once they are checked.
    /// `room` is a buffer to hold the bytes.
    pub(super) fn next_batch(&mut self, mut room: Vec<u8>) -> Result<Option<Batch>, InputError> {
        if let Some(e) = self.late_error.take() {
            return Err(e);
        }
        room.clear();
        if let TopState::Noted { next } = self.state {
            return self.noted_batch(next, room);
        }
        let mut batch = Batch {
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
pub(super) const LEADING: usize = 256 * 1024;

/// The outcomes of consecutive games, up to the first bad input.
pub(super) type Outcomes<M> = Vec<Result<<M as Mode>::Outcome, InputError>>;

impl Top {
    /// The outcomes of the next games, checked on this thread as they are
    /// read: a game of the plain shape where it lies in the scan's buffer,
    /// with no scan (the quick reader finds its end), any other scanned
    /// first. Otherwise as [`Self::next_batch`]: as many games, `None`
    /// once every game has been found, and bad input after some games
    /// reported at the next call, once they are reported.
    pub(super) fn checked_batch<M: Mode>(
        &mut self,
        mode: &M,
        worker: &mut Worker,
        stop: &AtomicBool,
    ) -> Result<Option<Outcomes<M>>, InputError> {
        if let TopState::Noted { .. } = self.state {
            let batch = self.next_batch(Vec::new())?;
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
    pub(super) fn checked_game<M: Mode>(
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
    fn noted_batch(&mut self, next: usize, room: Vec<u8>) -> Result<Option<Batch>, InputError> {
        let spans = self.noted.as_deref().unwrap_or_default();
        let Some(first) = spans.get(next) else {
            self.state = TopState::Done;
            self.noted = None;
            return Ok(None);
        };
        let mut batch = Batch {
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

pub(super) enum Found {
    /// At the first game, the header known.
    Games,
    /// The object ended.
    End,
}

/// Refuses any value as `games` but an array, in serde's words.
pub(super) struct NotGames;

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
pub(super) struct Version;

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
// Running the games, in one thread or many
// ---------------------------------------------------------------------------

/// A thread's own means to read and check games.
pub(crate) struct Worker {
    pub(super) reader: SpanReader,
    pub(super) memo: ReportRules,
}

impl Worker {
    pub(super) fn open(path: &Path, source: &str) -> Result<Worker, InputError> {
        Ok(Worker {
            reader: SpanReader::open(path, source)?,
            memo: ReportRules::new(),
        })
    }
}

/// What is checked in each game, on any thread: a handler is given the
/// game's plies as they are read, then makes the game's outcome.
pub(super) trait Mode: Sync {
    type Outcome: Send;
    type Game<'w>: GameHandler
    where
        Self: 'w;
    /// A handler for the next game; `memo` is the thread's own.
    fn start<'w>(&'w self, memo: &'w mut ReportRules) -> Self::Game<'w>;
    /// What the game at `index` came to, once read.
    fn outcome(&self, index: usize, game: Self::Game<'_>) -> Self::Outcome;
}

/// Reads and checks the game `at` locates.
pub(super) fn check_game<M: Mode>(
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
pub(super) fn check_leading<M: Mode>(
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
pub(super) trait Consumer {
    type Mode: Mode;
    fn header(&mut self, header: Header) -> Result<Self::Mode, Abort>;
    fn game(
        &mut self,
        mode: &Self::Mode,
        outcome: <Self::Mode as Mode>::Outcome,
    ) -> Result<(), Abort>;
}

/// The outcomes of a batch's games, up to the first bad input (or until
/// `stop`).
pub(super) fn check_batch<M: Mode>(
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

/// Why a consumer stops the run.
pub(crate) enum Abort {
    /// Writing a report failed.
    Output(io::Error),
    /// Nothing more to learn from the rest of the file.
    Done,
}

impl Abort {
    pub(super) fn into_result(self) -> Result<(), CheckError> {
        match self {
            Abort::Output(e) => Err(CheckError::Output(e)),
            Abort::Done => Ok(()),
        }
    }
}
