//! The transcript mode's entry points: the main pass, checking each game
//! under the claimed profile and reporting it, and the pass that re-checks
//! diverging games under other profiles.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::position::Position;
use crate::profile::Profile;

use super::drive::drive;
use super::handler::GameHandler;
use super::reader::{Abort, Consumer, Header, Mode, Options};
use crate::judge::diagnose::cited_rules;
use crate::judge::diagnose::{Context, diagnose};
use crate::judge::oracle::{GameCheck, Mismatch};
use crate::judge::{Divergence, Explanation, Recheck, ReportRules, RuleSet, Tally, name_reading};
use crate::reporter::{CheckError, InputError, Run, RunKind, Sink, Summary, UnitResult};
use crate::transcript::{Engine, Ply};

// ---------------------------------------------------------------------------
// The main pass: check under the claimed profile and report
// ---------------------------------------------------------------------------

pub(super) struct MainMode {
    pub(super) engine: Engine,
    pub(super) profile: Profile,
}

pub(super) struct MainGame<'a> {
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
}

/// Where game `index` is in the file, as reports name it.
pub(super) fn game_location(index: usize) -> String {
    format!("games[{index}]")
}

pub(super) struct MainPass<'a> {
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
        run.certificate.transcript = Some(crate::transcript::VERSION);
        self.profile = header.profile;
        self.sink.begin(&run).map_err(Abort::Output)?;
        Ok(MainMode {
            engine: header.engine,
            profile: header.profile,
        })
    }

    fn game(&mut self, _: &MainMode, (unit, rules): (UnitResult, RuleSet)) -> Result<(), Abort> {
        self.summary.rules.extend(rules);
        self.summary.add(&unit);
        self.sink.unit(&unit).map_err(Abort::Output)?;
        // A signal stops the check between games: what was checked is
        // reported, the rest of the file is not read.
        if let Some(signal) = crate::reporter::interrupted() {
            self.summary.interrupted = Some(signal.to_string());
            return Err(Abort::Done);
        }
        Ok(())
    }
}

pub(super) fn main_pass(
    path: &Path,
    source: &str,
    sink: &mut dyn Sink,
) -> Result<(Summary, Profile), CheckError> {
    let mut pass = MainPass {
        source,
        sink,
        summary: Summary::default(),
        profile: Profile::default(),
    };
    let result = drive(path, source, &mut pass).map_err(|e| match e {
        CheckError::Input(e) => match std::fs::File::open(path) {
            Ok(file) => CheckError::Input(e.name_the_byte(file)),
            Err(_) => CheckError::Input(e),
        },
        e => e,
    });
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

/// [`spool`] of standard input, which may stay open and silent: a signal
/// stops the copy at once ([`crate::reporter::read_heeding_signals`]).
///
/// # Errors
///
/// When standard input or the temporary file fails, or a signal arrived
/// ([`io::ErrorKind::Interrupted`]).
pub fn spool_stdin() -> io::Result<tempfile::NamedTempFile> {
    let mut file = tempfile::NamedTempFile::new()?;
    let out = file.as_file_mut();
    crate::reporter::read_heeding_signals(io::stdin(), |piece| out.write_all(piece))?;
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
    let (mut summary, profile) = main_pass(path, &source, sink)?;
    if summary.interrupted.is_none()
        && let Some(signal) = crate::reporter::interrupted()
    {
        summary.interrupted = Some(signal.to_string());
    }
    if summary.diverging > 0 && summary.interrupted.is_none() {
        let mut file = TranscriptFile::with_options(path, options);
        let named = name_reading(profile, &mut file).and_then(|mut reading| {
            if !reading.explained() {
                // No profile explains every game: the nearest one, counted
                // game by game as the live mode counts its units.
                let explanations = file.explain(profile)?;
                reading.nearest = crate::judge::nearest(profile, &explanations);
                reading = reading.stated();
            }
            Ok(reading)
        });
        match named {
            // A transcript's units are its games, and its reading counts them so.
            Ok(reading) => summary.reading = Some(reading.stated_in("game")),
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

impl TranscriptFile {
    /// How well each profile explains the file's games, the claimed one
    /// first and then the others in [`Profile::all`] order: the games it
    /// leaves diverging, by the rules each one's first divergence under it
    /// cites. Every game is read under every profile, in one pass.
    ///
    /// # Errors
    ///
    /// As [`Recheck::conforms_under`].
    pub fn explain(&self, claimed: Profile) -> Result<Vec<Explanation>, CheckError> {
        let profiles: Vec<Profile> = std::iter::once(claimed)
            .chain(Profile::all().filter(|&p| p != claimed))
            .collect();
        let mut pass = ExplainPass {
            tally: Tally::new(profiles.iter().copied()),
            profiles,
        };
        let source = self.options.source(&self.path);
        drive(&self.path, &source, &mut pass)?;
        Ok(pass.tally.explanations())
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
        drive(&self.path, &source, &mut pass)?;
        Ok(pass.ok)
    }
}

pub(super) struct ReadingPass {
    profiles: Vec<Profile>,
    ok: Vec<bool>,
}

pub(super) struct ReadingMode {
    profiles: Vec<Profile>,
    /// The profiles no game has refuted yet (as far as the reports go).
    alive: Vec<AtomicBool>,
}

pub(super) struct ReadingGame<'a> {
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

// ---------------------------------------------------------------------------
// Counting, under every profile, the games each leaves diverging
// ---------------------------------------------------------------------------

pub(super) struct ExplainPass {
    profiles: Vec<Profile>,
    tally: Tally,
}

pub(super) struct ExplainMode {
    profiles: Vec<Profile>,
}

/// One game under every profile: what each one's first divergence cites,
/// `None` while it conforms.
pub(super) struct ExplainGame<'a> {
    profiles: &'a [Profile],
    cited: Vec<Option<RuleSet>>,
    games: Vec<Option<GameCheck>>,
}

impl GameHandler for ExplainGame<'_> {
    fn begin(&mut self, _: &str, start: Position) {
        self.cited = vec![None; self.profiles.len()];
        self.games = self
            .profiles
            .iter()
            .map(|&p| Some(GameCheck::new(start, p)))
            .collect();
    }

    fn ply(&mut self, ply: &Ply) -> bool {
        let mut wanted = false;
        for (k, slot) in self.games.iter_mut().enumerate() {
            if let Some(game) = slot {
                match game.step(ply) {
                    Ok(_) => wanted = true,
                    Err(mismatch) => {
                        self.cited[k] = Some(cited_rules(game, ply, mismatch));
                        *slot = None;
                    }
                }
            }
        }
        wanted
    }
}

impl Mode for ExplainMode {
    type Outcome = Vec<Option<RuleSet>>;
    type Game<'w> = ExplainGame<'w>;

    fn start<'w>(&'w self, _: &'w mut ReportRules) -> ExplainGame<'w> {
        ExplainGame {
            profiles: &self.profiles,
            cited: vec![None; self.profiles.len()],
            games: Vec::new(),
        }
    }

    fn outcome(&self, _: usize, game: ExplainGame<'_>) -> Vec<Option<RuleSet>> {
        game.cited
    }
}

impl Consumer for ExplainPass {
    type Mode = ExplainMode;

    fn header(&mut self, _: Header) -> Result<ExplainMode, Abort> {
        Ok(ExplainMode {
            profiles: self.profiles.clone(),
        })
    }

    fn game(&mut self, _: &ExplainMode, cited: Vec<Option<RuleSet>>) -> Result<(), Abort> {
        for (&profile, rules) in self.profiles.iter().zip(cited) {
            if let Some(rules) = rules {
                self.tally
                    .unexplained(profile, rules.iter().map(str::to_owned));
            }
        }
        Ok(())
    }
}
