//! Reading a transcript one game at a time and checking each game as it
//! arrives, so that memory stays bounded whatever the size of the file.
//!
//! The JSON is walked with serde visitors: the top-level object's header
//! fields are kept, then each element of `games` is read, and each element
//! of its `plies` is checked and dropped. Only the current ply, the current
//! game's replay state and the results of diverging games are held. Header
//! fields must come before `games`, and `id` and `start` before `plies`;
//! spec/TRANSCRIPT.md says so and the error names the field that is late.

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::position::Position;
use crate::profile::Profile;

use super::diagnose::{Context, diagnose};
use super::input::{FileKind, Guarded, InputError, InputErrorKind, guarded};
use super::oracle::GameCheck;
use super::reading::{Recheck, name_reading};
use super::render::Sink;
use super::report::{Run, RunKind, Summary, UnitResult};
use super::rules::ReportRules;
use super::transcript::{Engine, Ply, TranscriptFormat, VERSION};

/// Why a check run stopped early.
#[derive(Debug)]
pub enum CheckError {
    /// The input is bad: exit 2.
    Input(InputError),
    /// A report could not be written.
    Output(io::Error),
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Input(e) => e.fmt(f),
            CheckError::Output(e) => write!(f, "cannot write the report: {e}"),
        }
    }
}

impl std::error::Error for CheckError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CheckError::Input(e) => Some(e),
            CheckError::Output(e) => Some(e),
        }
    }
}

impl From<InputError> for CheckError {
    fn from(e: InputError) -> CheckError {
        CheckError::Input(e)
    }
}

// ---------------------------------------------------------------------------
// Opening files
// ---------------------------------------------------------------------------

fn open(path: &Path) -> Result<Guarded<File>, InputError> {
    let name = path.display().to_string();
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
/// `format` field (or one after `games`), or a value other than
/// `kpe-transcript` and `kpe-engine`.
pub fn file_kind(path: &Path) -> Result<FileKind, InputError> {
    let reader = open(path)?;
    kind_of(&path.display().to_string(), reader)
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
    match value.as_str() {
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
                "games" => {
                    return Err(de::Error::custom(format!(
                        "`games` comes before `format`: the header fields (format, version, \
                         engine, profile) must come first; expected format {}",
                        accepted_formats()
                    )));
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

// ---------------------------------------------------------------------------
// The streaming walk over a transcript
// ---------------------------------------------------------------------------

/// The transcript's header, once read.
pub(crate) struct Header {
    pub(crate) engine: Engine,
    pub(crate) profile: Profile,
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

/// How to find the JSON path of an input error found by a walk without
/// paths: walk the same input again, with paths, doing nothing else.
enum Retrace<'a> {
    /// The input cannot be read again: keep the error as it is.
    No,
    /// Read the file again.
    File(&'a Path),
}

impl Retrace<'_> {
    fn walk<H: Handler, R: Read>(
        &self,
        source: &str,
        reader: Guarded<R>,
        handler: &mut H,
    ) -> Result<(), CheckError> {
        match self {
            Retrace::No => walk(source, reader, handler, true),
            Retrace::File(path) => match walk(source, reader, handler, false) {
                Err(CheckError::Input(first)) => {
                    // The same input fails the same way; this time note where.
                    match open(path).and_then(|r| match walk(source, r, &mut Ignore, true) {
                        Err(CheckError::Input(traced)) => Err(traced),
                        _ => Ok(()),
                    }) {
                        Err(traced) => Err(CheckError::Input(traced)),
                        Ok(()) => Err(CheckError::Input(first)),
                    }
                }
                other => other,
            },
        }
    }
}

/// A handler that only reads.
struct Ignore;

impl Handler for Ignore {
    fn header(&mut self, _: &Header) -> Result<(), Abort> {
        Ok(())
    }
    fn begin_game(&mut self, _: usize, _: &str, _: Position) -> Result<(), Abort> {
        Ok(())
    }
    fn ply(&mut self, _: &Ply) -> Result<bool, Abort> {
        Ok(false)
    }
    fn end_game(&mut self) -> Result<(), Abort> {
        Ok(())
    }
}

/// Why a handler stops the walk.
pub(crate) enum Abort {
    /// Writing a report failed.
    Output(io::Error),
    /// Nothing more to learn from the rest of the file.
    Done,
}

/// What is done with the transcript as it is read.
pub(crate) trait Handler {
    fn header(&mut self, header: &Header) -> Result<(), Abort>;
    fn begin_game(&mut self, index: usize, id: &str, start: Position) -> Result<(), Abort>;
    /// Returns whether the game still wants plies.
    fn ply(&mut self, ply: &Ply) -> Result<bool, Abort>;
    fn end_game(&mut self) -> Result<(), Abort>;
}

struct Walk<'h, H> {
    handler: &'h mut H,
    abort: Option<Abort>,
}

impl<H: Handler> Walk<'_, H> {
    fn call<T, E: de::Error>(&mut self, result: Result<T, Abort>) -> Result<T, E> {
        result.map_err(|abort| {
            self.abort = Some(abort);
            E::custom("stopped")
        })
    }
}

/// Walks a transcript from `reader`, calling `handler`.
///
/// With `paths`, errors carry their JSON path; that costs some speed, so a
/// file is walked without, and walked again with paths only when it is bad
/// (see [`Retrace`]).
fn walk<H: Handler, R: Read>(
    source: &str,
    reader: Guarded<R>,
    handler: &mut H,
    paths: bool,
) -> Result<(), CheckError> {
    let mut w = Walk {
        handler,
        abort: None,
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let top = if paths {
        tracked(&mut de, TopSeed(&mut w))
    } else {
        TopSeed(&mut w).deserialize(&mut de).map_err(|e| {
            serde_path_to_error::Error::new(serde_path_to_error::Track::new().path(), e)
        })
    };
    let result = top.and_then(|()| {
        // Nothing but whitespace may follow the object.
        de.end().map_err(|e| {
            serde_path_to_error::Error::new(serde_path_to_error::Track::new().path(), e)
        })
    });
    match (w.abort, result) {
        (Some(Abort::Output(e)), _) => Err(CheckError::Output(e)),
        (Some(Abort::Done), _) | (None, Ok(())) => Ok(()),
        (None, Err(e)) => Err(CheckError::Input(InputError::from_json(source, e))),
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum TopField {
    Format,
    Version,
    Engine,
    Profile,
    Games,
}

impl TopField {
    fn name(&self) -> &'static str {
        match self {
            TopField::Format => "format",
            TopField::Version => "version",
            TopField::Engine => "engine",
            TopField::Profile => "profile",
            TopField::Games => "games",
        }
    }
}

struct TopSeed<'w, 'h, H>(&'w mut Walk<'h, H>);

impl<'de, H: Handler> DeserializeSeed<'de> for TopSeed<'_, '_, H> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, H: Handler> Visitor<'de> for TopSeed<'_, '_, H> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a kpe transcript: an object with format, version, engine, profile and games")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let walk = self.0;
        let mut format: Option<TranscriptFormat> = None;
        let mut version: Option<u32> = None;
        let mut engine: Option<Engine> = None;
        let mut profile: Option<Profile> = None;
        let mut games_read = false;
        while let Some(key) = map.next_key::<TopField>()? {
            if games_read {
                return Err(de::Error::custom(format!(
                    "`{}` comes after `games`: every header field must come before `games`, \
                     so that games can be checked as they are read (spec/TRANSCRIPT.md)",
                    key.name()
                )));
            }
            let duplicate = match key {
                TopField::Format => format.replace(map.next_value()?).is_some(),
                TopField::Version => version.replace(map.next_value_seed(VersionSeed)?).is_some(),
                TopField::Engine => engine.replace(map.next_value()?).is_some(),
                TopField::Profile => profile.replace(map.next_value()?).is_some(),
                TopField::Games => {
                    let missing = [
                        ("format", format.is_none()),
                        ("version", version.is_none()),
                        ("engine", engine.is_none()),
                    ];
                    if let Some((name, _)) = missing.iter().find(|(_, m)| *m) {
                        return Err(de::Error::custom(format!(
                            "`games` comes before `{name}`: the header (format, version, engine, \
                             and optionally profile) must come first, and `{name}` is required"
                        )));
                    }
                    let header = Header {
                        engine: engine.clone().expect("checked above"),
                        profile: profile.unwrap_or_default(),
                    };
                    let r = walk.handler.header(&header);
                    walk.call(r)?;
                    map.next_value_seed(GamesSeed(&mut *walk))?;
                    games_read = true;
                    false
                }
            };
            if duplicate {
                return Err(de::Error::duplicate_field(key.name()));
            }
        }
        for (name, missing) in [
            ("format", format.is_none()),
            ("version", version.is_none()),
            ("engine", engine.is_none()),
            ("games", !games_read),
        ] {
            if missing {
                return Err(de::Error::missing_field(name));
            }
        }
        Ok(())
    }
}

/// The format version, which must be one this build reads.
struct VersionSeed;

impl<'de> DeserializeSeed<'de> for VersionSeed {
    type Value = u32;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<u32, D::Error> {
        let v = u64::deserialize(d)?;
        if v == u64::from(VERSION) {
            Ok(VERSION)
        } else {
            Err(de::Error::custom(format!(
                "unsupported transcript version {v}: this kpe-check reads version {VERSION}"
            )))
        }
    }
}

struct GamesSeed<'w, 'h, H>(&'w mut Walk<'h, H>);

impl<'de, H: Handler> DeserializeSeed<'de> for GamesSeed<'_, '_, H> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, H: Handler> Visitor<'de> for GamesSeed<'_, '_, H> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of games")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while seq
            .next_element_seed(GameSeed {
                walk: &mut *self.0,
                index,
            })?
            .is_some()
        {
            index += 1;
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum GameField {
    Id,
    Start,
    Plies,
}

impl GameField {
    fn name(&self) -> &'static str {
        match self {
            GameField::Id => "id",
            GameField::Start => "start",
            GameField::Plies => "plies",
        }
    }
}

struct GameSeed<'w, 'h, H> {
    walk: &'w mut Walk<'h, H>,
    index: usize,
}

impl<'de, H: Handler> DeserializeSeed<'de> for GameSeed<'_, '_, H> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, H: Handler> Visitor<'de> for GameSeed<'_, '_, H> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a game: an object with id, start (optional) and plies")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let walk = self.walk;
        let mut id: Option<String> = None;
        let mut start: Option<Position> = None;
        let mut plies_read = false;
        while let Some(key) = map.next_key::<GameField>()? {
            if plies_read {
                return Err(de::Error::custom(format!(
                    "`{}` comes after `plies`: a game's `id` and `start` must come before its \
                     `plies` (spec/TRANSCRIPT.md)",
                    key.name()
                )));
            }
            let duplicate = match key {
                GameField::Id => id.replace(map.next_value()?).is_some(),
                GameField::Start => start.replace(map.next_value()?).is_some(),
                GameField::Plies => {
                    let Some(id) = &id else {
                        return Err(de::Error::custom(
                            "`plies` comes before `id`: a game's `id` (required) and `start` \
                             must come before its `plies`",
                        ));
                    };
                    let r = walk.handler.begin_game(
                        self.index,
                        id,
                        start.unwrap_or_else(Position::initial),
                    );
                    walk.call(r)?;
                    map.next_value_seed(PliesSeed(&mut *walk))?;
                    let r = walk.handler.end_game();
                    walk.call(r)?;
                    plies_read = true;
                    false
                }
            };
            if duplicate {
                return Err(de::Error::duplicate_field(key.name()));
            }
        }
        if id.is_none() {
            return Err(de::Error::missing_field("id"));
        }
        if !plies_read {
            return Err(de::Error::missing_field("plies"));
        }
        Ok(())
    }
}

struct PliesSeed<'w, 'h, H>(&'w mut Walk<'h, H>);

impl<'de, H: Handler> DeserializeSeed<'de> for PliesSeed<'_, '_, H> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, H: Handler> Visitor<'de> for PliesSeed<'_, '_, H> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of plies")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let walk = self.0;
        let mut wanted = true;
        while let Some(ply) = seq.next_element_seed(PlySeed)? {
            if wanted {
                let r = walk.handler.ply(&ply);
                wanted = walk.call(r)?;
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

// ---------------------------------------------------------------------------
// The main pass: check under the claimed profile and report
// ---------------------------------------------------------------------------

struct Current {
    index: usize,
    id: String,
    check: GameCheck,
    plies: u64,
    divergence: Option<super::report::Divergence>,
    started: std::time::Instant,
}

struct MainPass<'a> {
    source: &'a str,
    sink: &'a mut dyn Sink,
    summary: Summary,
    memo: ReportRules,
    header: Option<Header>,
    game: Option<Current>,
}

impl Handler for MainPass<'_> {
    fn header(&mut self, header: &Header) -> Result<(), Abort> {
        let mut run = Run::new(self.source, RunKind::Transcript, header.profile);
        run.engine = Some(header.engine.clone());
        self.header = Some(Header {
            engine: header.engine.clone(),
            profile: header.profile,
        });
        self.sink.begin(&run).map_err(Abort::Output)
    }

    fn begin_game(&mut self, index: usize, id: &str, start: Position) -> Result<(), Abort> {
        let profile = self.header.as_ref().map(|h| h.profile).unwrap_or_default();
        self.game = Some(Current {
            index,
            id: id.to_owned(),
            check: GameCheck::new(start, profile),
            plies: 0,
            divergence: None,
            started: std::time::Instant::now(),
        });
        Ok(())
    }

    fn ply(&mut self, ply: &Ply) -> Result<bool, Abort> {
        let game = self.game.as_mut().expect("plies come inside a game");
        game.plies += 1;
        match game.check.step(ply) {
            Ok(report) => {
                self.summary.rules.extend(self.memo.of(&report));
                Ok(true)
            }
            Err(mismatch) => {
                let ctx = Context {
                    source: self.source,
                    engine: self.header.as_ref().map(|h| &h.engine),
                    unit: &game.id,
                    ply: game.plies,
                };
                game.divergence = Some(diagnose(&game.check, ply, mismatch, &ctx));
                Ok(false)
            }
        }
    }

    fn end_game(&mut self) -> Result<(), Abort> {
        let game = self.game.take().expect("a game ends after it begins");
        let location = Some(format!("games[{}]", game.index));
        let mut unit = match game.divergence {
            None => UnitResult::conforming("game", game.id, location, game.plies),
            Some(d) => UnitResult::diverging("game", game.id, location, game.plies, d),
        };
        unit.time = game.started.elapsed().as_secs_f64();
        self.summary.add(&unit);
        self.sink.unit(&unit).map_err(Abort::Output)
    }
}

fn main_pass<R: Read>(
    source: &str,
    reader: Guarded<R>,
    retrace: &Retrace<'_>,
    sink: &mut dyn Sink,
) -> Result<(Summary, Profile), CheckError> {
    let mut pass = MainPass {
        source,
        sink,
        summary: Summary::default(),
        memo: ReportRules::new(),
        header: None,
        game: None,
    };
    let result = retrace.walk(source, reader, &mut pass);
    if let Err(CheckError::Input(e)) = &result {
        // Close the reports cleanly; the input error is what matters.
        let _ = pass.sink.fail(e);
    }
    result?;
    let profile = pass.header.map(|h| h.profile).unwrap_or_default();
    Ok((pass.summary, profile))
}

/// Checks the transcript read from `reader`, sending each game's result to
/// `sink` as soon as it is known, and returns the summary. A reader cannot
/// be read twice, so the reading is not named (see
/// [`check_transcript_file`]).
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
    let (summary, _) = main_pass(source, guarded(reader), &Retrace::No, sink)?;
    sink.finish(&summary).map_err(CheckError::Output)?;
    Ok(summary)
}

/// Checks the transcript at `path`: every game under the claimed profile,
/// each result sent to `sink` as soon as it is known; then, if some game
/// diverged, reads the file again to find the profiles under which every
/// game conforms ([`name_reading`]).
///
/// # Errors
///
/// As [`check_transcript_reader`].
pub fn check_transcript_file(path: &Path, sink: &mut dyn Sink) -> Result<Summary, CheckError> {
    let source = path.display().to_string();
    let reader = match open(path) {
        Ok(r) => r,
        Err(e) => {
            let _ = sink.fail(&e);
            return Err(e.into());
        }
    };
    let (mut summary, profile) = main_pass(&source, reader, &Retrace::File(path), sink)?;
    if summary.diverging > 0 {
        let mut file = TranscriptFile::new(path);
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
}

impl TranscriptFile {
    /// The transcript at `path`.
    #[must_use]
    pub fn new(path: &Path) -> TranscriptFile {
        TranscriptFile {
            path: path.to_owned(),
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
            games: vec![None; profiles.len()],
        };
        let source = self.path.display().to_string();
        Retrace::File(&self.path).walk(&source, open(&self.path)?, &mut pass)?;
        Ok(pass.ok)
    }
}

struct ReadingPass {
    profiles: Vec<Profile>,
    ok: Vec<bool>,
    games: Vec<Option<GameCheck>>,
}

impl Handler for ReadingPass {
    fn header(&mut self, _: &Header) -> Result<(), Abort> {
        Ok(())
    }

    fn begin_game(&mut self, _: usize, _: &str, start: Position) -> Result<(), Abort> {
        for (k, game) in self.games.iter_mut().enumerate() {
            *game = self.ok[k].then(|| GameCheck::new(start, self.profiles[k]));
        }
        Ok(())
    }

    fn ply(&mut self, ply: &Ply) -> Result<bool, Abort> {
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
        if !self.ok.contains(&true) {
            return Err(Abort::Done);
        }
        Ok(wanted)
    }

    fn end_game(&mut self) -> Result<(), Abort> {
        Ok(())
    }
}
