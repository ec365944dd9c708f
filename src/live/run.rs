//! What `kpe-check` runs against a live engine: the conformance scenarios
//! its profile admits, perft from the initial position, and seeded random
//! games; then minimal reproductions and the reading it follows.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::compare::compare;
use super::engine::{Engine, EngineInfo, Failure};
use super::facts::Question;
use super::manifest::Manifest;
use super::reading::diagnose;
use super::repro::reproduction;
use super::scenarios::{EngineSubject, questions};
use super::shrink::{Diverging, shrink};
use crate::board::Pit;
use crate::check::{
    CheckError, Divergence, Engine as TranscriptEngine, FieldDiff, InputError, RuleSet, Run,
    RunKind, Sink, Summary, UnitResult,
};
use crate::game::Game;
use crate::perft::perft;
use crate::position::Position;
use crate::profile::Profile;
use crate::rules::legal_moves;
use crate::scenario::{ScenarioErrors, Subject, Suite};

/// Engine processes started in one run before kpe-check gives up on it.
pub const MAX_STARTS: u32 = 4;

/// Divergences shrunk to a minimal reproduction in one run (each costs up
/// to [`super::shrink::SHRINK_BUDGET`] questions).
pub const MAX_SHRINKS: usize = 8;

/// Random games that may diverge before the rest are skipped.
pub const MAX_DIVERGING_GAMES: usize = 10;

/// Lines of an engine's stderr shown with a failure, and their width.
const STDERR_LINES: usize = 20;
const STDERR_WIDTH: usize = 160;

/// One in this many plies of a random game also tries an illegal move.
const ILLEGAL_PROBE: u32 = 4;

/// Settings from the command line (or the environment, through
/// [`LiveOptions::or_env`]), overriding the manifest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveOptions {
    /// The seed of the random games (`--seed`).
    pub seed: Option<u64>,
    /// How many random games (`--games`).
    pub games: Option<u32>,
    /// The deepest perft depth (`--perft-depth`).
    pub perft_depth: Option<u32>,
    /// A conformance suite directory (`--suite`) to run instead of the
    /// suite built into the library ([`Suite::bundled`]).
    pub suite: Option<PathBuf>,
    /// Show progress on stderr (only drawn on a terminal).
    pub progress: bool,
}

/// Everything a live run found.
#[derive(Clone, Debug)]
pub struct LiveReport {
    /// Who the engine said it is, if it got that far.
    pub engine: Option<EngineInfo>,
    /// The profile the manifest claims.
    pub profile: Profile,
    /// The seed of the random games.
    pub seed: u64,
    /// Each unit's result, in the order run.
    pub units: Vec<UnitResult>,
    /// The totals given to the report, with the reading named when
    /// something diverged.
    pub summary: Summary,
    /// Requests sent to the engine.
    pub requests: u64,
    /// Things the report should mention (the seed, perft depths skipped,
    /// units skipped); kpe-check prints them on stderr.
    pub notes: Vec<String>,
}

impl LiveReport {
    /// Whether every unit conformed.
    #[must_use]
    pub fn conforms(&self) -> bool {
        self.summary.conforms()
    }
}

/// Environment variable: the seed of the random games.
pub const ENV_SEED: &str = "KPE_CHECK_SEED";
/// Environment variable: how many random games.
pub const ENV_GAMES: &str = "KPE_CHECK_GAMES";
/// Environment variable: the deepest perft depth.
pub const ENV_PERFT_DEPTH: &str = "KPE_CHECK_PERFT_DEPTH";
/// Environment variable: the conformance suite directory.
pub const ENV_SUITE: &str = "KPE_CHECK_SUITE";

impl LiveOptions {
    /// The options kpe-check takes from its environment ([`ENV_SEED`],
    /// [`ENV_GAMES`], [`ENV_PERFT_DEPTH`], [`ENV_SUITE`]), with progress on.
    ///
    /// # Errors
    ///
    /// A message naming the variable whose value is not a number.
    pub fn from_env() -> Result<LiveOptions, String> {
        LiveOptions::from_vars(|name| std::env::var_os(name))
    }

    /// [`LiveOptions::from_env`] with the variables looked up by `get`.
    ///
    /// # Errors
    ///
    /// As [`LiveOptions::from_env`].
    pub fn from_vars(
        get: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Result<LiveOptions, String> {
        LiveOptions {
            progress: true,
            ..LiveOptions::default()
        }
        .or_vars(get)
    }

    /// These options (from the command line), with each setting left unset
    /// taken from the environment: command-line flags win over
    /// [`ENV_SEED`], [`ENV_GAMES`], [`ENV_PERFT_DEPTH`] and [`ENV_SUITE`].
    /// A variable whose setting is already given is not read at all.
    ///
    /// # Errors
    ///
    /// A message naming the variable whose value is not a number.
    pub fn or_env(self) -> Result<LiveOptions, String> {
        self.or_vars(|name| std::env::var_os(name))
    }

    /// [`LiveOptions::or_env`] with the variables looked up by `get`.
    ///
    /// # Errors
    ///
    /// As [`LiveOptions::or_env`].
    pub fn or_vars(
        self,
        get: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Result<LiveOptions, String> {
        fn number<T: std::str::FromStr>(
            given: Option<T>,
            name: &str,
            get: impl Fn(&str) -> Option<std::ffi::OsString>,
        ) -> Result<Option<T>, String> {
            if given.is_some() {
                return Ok(given);
            }
            let Some(value) = get(name) else {
                return Ok(None);
            };
            let text = value.to_string_lossy();
            text.trim()
                .parse()
                .map(Some)
                .map_err(|_| format!("{name}={text}: expected a non-negative whole number"))
        }
        Ok(LiveOptions {
            seed: number(self.seed, ENV_SEED, &get)?,
            games: number(self.games, ENV_GAMES, &get)?,
            perft_depth: number(self.perft_depth, ENV_PERFT_DEPTH, &get)?,
            suite: self.suite.or_else(|| get(ENV_SUITE).map(PathBuf::from)),
            progress: self.progress,
        })
    }
}

/// Why a live run stopped before its end.
#[derive(Debug)]
pub enum LiveError {
    /// The conformance suite directory of the options does not load:
    /// nothing was run.
    Suite {
        /// The directory, as given.
        dir: PathBuf,
        /// Every problem found in it.
        errors: ScenarioErrors,
    },
    /// The engine's program could not be started: the manifest's command
    /// is wrong.
    Spawn(Failure),
    /// The report could not be written.
    Output(io::Error),
}

/// `kpe-check MANIFEST`: reads the manifest at `path` and checks its
/// engine, writing the report to `sink` and notes for people (the seed,
/// skipped units) to `notes` as they come.
///
/// # Errors
///
/// [`CheckError::Input`] for a bad manifest or an engine that cannot be
/// started (exit code 2), [`CheckError::Output`] when the report cannot be
/// written.
pub fn check_manifest_file(
    path: &Path,
    options: &LiveOptions,
    sink: &mut dyn Sink,
    notes: &mut dyn Write,
) -> Result<Summary, CheckError> {
    let fail = |sink: &mut dyn Sink, error: InputError| {
        sink.fail(&error).map_err(CheckError::Output)?;
        Err(CheckError::Input(error))
    };
    let manifest = match Manifest::load(path) {
        Ok(manifest) => manifest,
        Err(e) => return fail(sink, e.into_input_error()),
    };
    match check_engine(&manifest, path, options, sink, notes) {
        Ok(report) => Ok(report.summary),
        Err(LiveError::Output(e)) => Err(CheckError::Output(e)),
        Err(LiveError::Suite { dir, errors }) => {
            fail(sink, InputError::suite(&dir.display().to_string(), errors))
        }
        Err(LiveError::Spawn(failure)) => {
            let file = path.display().to_string();
            fail(
                sink,
                InputError::at(&file, "command", 0, 0, failure.kind.to_string()),
            )
        }
    }
}

/// Checks the engine of `manifest` (read from `manifest_path`, whose
/// directory anchors its relative paths): scenarios, perft and random
/// games, with shrinking and the reading named when something diverges.
/// Results go to `sink` as they are produced: the header once the engine
/// has said hello, each unit, then the summary. Notes for people go to
/// `notes` (kpe-check's stderr).
///
/// # Errors
///
/// [`LiveError::Suite`] when `options` names a suite directory that does
/// not load, and [`LiveError::Spawn`] when the engine cannot be started at
/// all, both before anything is written; [`LiveError::Output`] when the report cannot be
/// written, and the run stops there.
pub fn check_engine(
    manifest: &Manifest,
    manifest_path: &Path,
    options: &LiveOptions,
    sink: &mut dyn Sink,
    notes: &mut dyn Write,
) -> Result<LiveReport, LiveError> {
    let base = manifest_path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let (suite_dir, suite) = match &options.suite {
        None => (PathBuf::from(Suite::BUNDLED_DIR), Suite::bundled()),
        Some(dir) => (dir.clone(), Suite::load(dir)),
    };
    let suite = suite.map_err(|errors| LiveError::Suite {
        dir: suite_dir.clone(),
        errors,
    })?;
    let profile = manifest.profile;
    let seed = options
        .seed
        .or(manifest.random.seed)
        .unwrap_or_else(fresh_seed);
    let mut live = Live {
        engine: Engine::new(manifest.launch(base), manifest.timeouts, profile),
        profile,
        units: Vec::new(),
        summary: Summary::default(),
        shrinks: 0,
        notes: Vec::new(),
        sink,
        notes_out: notes,
        output: None,
        progress: Progress::new(options.progress),
    };
    let started = live.engine.start().map(|info| TranscriptEngine {
        name: info.name.clone(),
        version: info.version.clone(),
    });
    if let Err(failure) = &started
        && failure.code == "spawn"
    {
        return Err(LiveError::Spawn(failure.clone()));
    }
    let run = Run {
        source: manifest_path.display().to_string(),
        kind: RunKind::Engine,
        engine: started.as_ref().ok().cloned(),
        profile,
    };
    live.write(|sink| sink.begin(&run));
    match started {
        Ok(_) => {
            live.scenarios(&suite_dir, &suite);
            let mut plan = manifest.perft;
            if let Some(depth) = options.perft_depth {
                plan.max_depth = depth;
            }
            live.perft(plan.max_depth, plan.max_nodes);
            let games = options.games.unwrap_or(manifest.random.games);
            live.random_games(seed, games, manifest.random.max_plies);
            if live.output.is_none()
                && let Err(failure) = live.engine.quit()
            {
                live.push(failed("shutdown", "quit".to_owned(), 0, &failure, None));
            }
        }
        Err(failure) => live.push(failed("startup", "hello".to_owned(), 0, &failure, None)),
    }
    live.progress.finish();
    if !live.summary.conforms() && !live.engine.facts().is_empty() {
        live.summary.reading = Some(diagnose(live.engine.facts(), profile));
    }
    let summary = live.summary.clone();
    live.write(|sink| sink.finish(&summary));
    if let Some(e) = live.output.take() {
        return Err(LiveError::Output(e));
    }
    Ok(LiveReport {
        engine: live.engine.info().cloned(),
        profile,
        seed,
        units: live.units,
        summary,
        requests: live.engine.requests(),
        notes: live.notes,
    })
}

fn fresh_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    // Mix the clock with the process id, so that two runs started together
    // get different seeds; 32 bits keep the number short to type.
    let mixed = (nanos as u64) ^ u64::from(std::process::id()).rotate_left(17);
    mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32
}

struct Live<'a> {
    engine: Engine,
    profile: Profile,
    units: Vec<UnitResult>,
    summary: Summary,
    shrinks: usize,
    notes: Vec<String>,
    sink: &'a mut dyn Sink,
    notes_out: &'a mut dyn Write,
    /// The first error writing the report: the run stops there.
    output: Option<io::Error>,
    progress: Progress,
}

/// Where in a unit a divergence is: the ply and the position before it.
struct At {
    ply: u64,
    before: Option<Position>,
}

impl Live<'_> {
    /// Asks the engine `question` and compares its answer with the rules;
    /// an answer that agrees counts the rules it exercised.
    fn check(&mut self, question: Question) -> Result<Option<Diverging>, Failure> {
        let claimed = self.engine.ask(&question)?;
        if let Some(mismatch) = compare(&question, &claimed, self.profile) {
            return Ok(Some(Diverging {
                question,
                claimed,
                mismatch,
            }));
        }
        let rules = &mut self.summary.rules;
        match question {
            Question::Legal(_) => ["MOVE-1", "MOVE-2"].iter().for_each(|id| rules.insert(id)),
            Question::Play(position, pit) => match crate::rules::play(&position, pit, self.profile)
            {
                Ok((_, report)) => report.rules().iter().for_each(|id| rules.insert(id)),
                Err(illegal) => rules.insert(illegal.reason.rule()),
            },
        }
        Ok(None)
    }

    /// Notes something for people, at once (on kpe-check's stderr).
    fn note(&mut self, note: String) {
        if !self.notes.contains(&note) {
            self.progress.suspend(|| {
                let _ = writeln!(self.notes_out, "note: {note}");
            });
            self.notes.push(note);
        }
    }

    /// Writes to the report, with the progress bar hidden meanwhile (both
    /// may be on the same terminal).
    fn write(&mut self, what: impl FnOnce(&mut dyn Sink) -> io::Result<()>) {
        if self.output.is_some() {
            return;
        }
        let sink = &mut *self.sink;
        let mut result = Ok(());
        self.progress.suspend(|| result = what(sink));
        if let Err(e) = result {
            self.output = Some(e);
        }
    }

    fn push(&mut self, unit: UnitResult) {
        self.summary.add(&unit);
        self.write(|sink| sink.unit(&unit));
        self.units.push(unit);
    }

    /// Whether to stop: the report cannot be written, or the engine failed
    /// too often to go on (noted once).
    fn given_up(&mut self) -> bool {
        if self.output.is_some() {
            return true;
        }
        if self.engine.starts() < MAX_STARTS {
            return false;
        }
        self.note(format!(
            "gave up after starting the engine {MAX_STARTS} times: the remaining units were not run"
        ));
        true
    }

    /// Runs the scenarios of `suite` (read from `dir`) that hold under the
    /// claimed profile.
    fn scenarios(&mut self, dir: &Path, suite: &Suite) {
        let runnable: Vec<(&str, &crate::scenario::Scenario)> = suite
            .scenarios()
            .filter(|(_, s)| s.invalid_start.is_none() && s.profiles().any(|p| p == self.profile))
            .collect();
        self.progress.start("scenarios", runnable.len() as u64);
        for (file, scenario) in runnable {
            if self.given_up() {
                return;
            }
            self.progress.tick();
            let unit = self.scenario(dir, file, scenario);
            self.push(unit);
        }
    }

    fn scenario(
        &mut self,
        dir: &Path,
        file: &str,
        scenario: &crate::scenario::Scenario,
    ) -> UnitResult {
        let location = Some(format!("{}", dir.join(file).display()));
        let id = scenario.id.clone();
        let plies = scenario.moves.len() as u64;
        let mut subject = EngineSubject::new(&mut self.engine);
        let verified = subject.verify(file, scenario, self.profile);
        let engine_failure = subject.failure.take();
        let Err(failure) = verified else {
            for rule in &scenario.rules {
                self.summary.rules.insert(rule);
            }
            return UnitResult::conforming("scenario", id, location, plies);
        };
        if let Some(f) = engine_failure {
            return failed("scenario", id, failure.ply as u64, &f, location);
        }
        // Find the first stateless question the engine gets wrong on the
        // reference's line, to shrink and diagnose it.
        let Ok(start) = scenario.start_text().parse::<Position>() else {
            return UnitResult::conforming("scenario", id, location, plies);
        };
        for (ply, _, question) in questions(start, &scenario.moves, self.profile) {
            match self.check(question) {
                Err(f) => return failed("scenario", id, ply as u64, &f, location),
                Ok(Some(found)) => {
                    let at = At {
                        ply: ply as u64,
                        before: Some(*question.position()),
                    };
                    let divergence = self.divergence(&found, &at, Some(&id));
                    return UnitResult::diverging("scenario", id, location, plies, divergence);
                }
                Ok(None) => {}
            }
        }
        // Every stateless answer agrees: the scenario failed on something
        // only the whole line shows (the outcome of a repetition, say).
        let divergence = Divergence {
            ply: Some(failure.ply as u64),
            before: None,
            mv: failure.mv,
            fields: vec![FieldDiff::new(
                failure.check.clone(),
                failure.expected.clone(),
                failure.actual.clone(),
            )],
            rules: rule_set(scenario.rules.iter().map(String::as_str)),
            notes: vec![failure.to_string()],
            scenario: Some(scenario.clone()),
        };
        UnitResult::diverging("scenario", id, location, plies, divergence)
    }

    fn perft(&mut self, max_depth: u32, max_nodes: u64) {
        if self.given_up() {
            return;
        }
        let root = Position::initial();
        let own = self.engine.info().is_some_and(|i| i.perft);
        let depths: Vec<(u32, u64)> = (1..=max_depth)
            .map(|d| (d, perft(&root, d, self.profile)))
            .take_while(|&(_, nodes)| nodes <= max_nodes)
            .collect();
        if depths.len() < max_depth as usize {
            self.note(format!(
                "perft checked to depth {} only: deeper counts exceed the budget of {max_nodes} nodes",
                depths.len()
            ));
        }
        self.progress.start("perft", depths.len() as u64);
        if own {
            for (depth, nodes) in depths {
                if self.given_up() {
                    return;
                }
                self.progress.tick();
                let unit = self.perft_depth(root, depth, nodes);
                let stop = !unit.conforms();
                self.push(unit);
                if stop {
                    return; // deeper counts would diverge for the same reason
                }
            }
        } else if let Some(&(depth, _)) = depths.last() {
            self.progress.tick();
            let unit = self.perft_walk(root, depth);
            self.push(unit);
        }
    }

    /// The engine's own perft at one depth; on a wrong count, the questions
    /// down the tree that find where it goes wrong.
    fn perft_depth(&mut self, root: Position, depth: u32, nodes: u64) -> UnitResult {
        let id = format!("depth {depth}");
        let claimed = match self.engine.perft(&root, depth) {
            Ok(n) => n,
            Err(f) => return failed("perft", id, 0, &f, None),
        };
        if claimed == nodes {
            return UnitResult::conforming("perft", id, None, u64::from(depth));
        }
        let mut count = FieldDiff::new("nodes", nodes.to_string(), claimed.to_string());
        count.rules = rule_set(["MOVE-1", "MOVE-2", "FEED-1", "END-1"]);
        match self.locate(root, depth, 0) {
            Ok(Some((found, at))) => {
                let mut divergence = self.divergence(&found, &at, None);
                divergence.notes.insert(
                    0,
                    format!("perft({depth}) from the initial position: expected {nodes}, the engine counted {claimed}; the first wrong answer below it:"),
                );
                UnitResult::diverging("perft", id, None, u64::from(depth), divergence)
            }
            Ok(None) => {
                let divergence = Divergence {
                    ply: None,
                    before: Some(root),
                    mv: None,
                    rules: count.rules,
                    fields: vec![count],
                    notes: vec![
                        "the engine's legal moves and moves agree with the rules on every position checked, so its perft count disagrees with its own answers".to_owned(),
                    ],
                    scenario: None,
                };
                UnitResult::diverging("perft", id, None, u64::from(depth), divergence)
            }
            Err(f) => failed("perft", id, 0, &f, None),
        }
    }

    /// Walks down from `position` to the first question the engine answers
    /// wrongly, following children whose perft counts differ.
    fn locate(
        &mut self,
        position: Position,
        depth: u32,
        ply: u64,
    ) -> Result<Option<(Diverging, At)>, Failure> {
        let at = |ply| At {
            ply,
            before: Some(position),
        };
        if let Some(found) = self.check(Question::Legal(position))? {
            return Ok(Some((found, at(ply + 1))));
        }
        let moves = legal_moves(&position, self.profile);
        for &pit in &moves {
            if let Some(found) = self.check(Question::Play(position, pit))? {
                return Ok(Some((found, at(ply + 1))));
            }
        }
        if depth <= 1 {
            return Ok(None);
        }
        for &pit in &moves {
            let Ok((child, _)) = crate::rules::play(&position, pit, self.profile) else {
                continue;
            };
            let want = perft(&child, depth - 1, self.profile);
            if self.engine.perft(&child, depth - 1)? != want {
                return self.locate(child, depth - 1, ply + 1);
            }
        }
        Ok(None)
    }

    /// Without an engine perft: every position within `depth` plies of the
    /// root, asked for its legal moves and each move's result.
    fn perft_walk(&mut self, root: Position, depth: u32) -> UnitResult {
        let id = format!("walk to depth {depth}");
        let mut level = vec![root];
        let mut seen = std::collections::HashSet::from([root]);
        let mut checked = 0;
        for ply in 0..depth {
            let mut next = Vec::new();
            for position in level {
                let mut questions = vec![Question::Legal(position)];
                let moves = legal_moves(&position, self.profile);
                questions.extend(moves.iter().map(|&pit| Question::Play(position, pit)));
                for question in questions {
                    checked += 1;
                    let found = match self.check(question) {
                        Ok(found) => found,
                        Err(f) => return failed("perft", id, u64::from(ply), &f, None),
                    };
                    if let Some(found) = found {
                        let at = At {
                            ply: u64::from(ply) + 1,
                            before: Some(position),
                        };
                        let divergence = self.divergence(&found, &at, None);
                        return UnitResult::diverging("perft", id, None, checked, divergence);
                    }
                }
                for &pit in &moves {
                    if let Ok((child, _)) = crate::rules::play(&position, pit, self.profile)
                        && seen.insert(child)
                    {
                        next.push(child);
                    }
                }
            }
            level = next;
        }
        UnitResult::conforming("perft", id, None, checked)
    }

    fn random_games(&mut self, seed: u64, games: u32, max_plies: u32) {
        if self.given_up() {
            return; // nor print a seed for games that will not be played
        }
        self.note(format!(
            "random games: seed {seed} (repeat with --seed {seed}, {ENV_SEED}={seed}, or \"seed\": {seed} in the manifest's \"random\")"
        ));
        self.progress.start("random games", u64::from(games));
        let mut diverging = 0;
        for index in 0..games {
            if self.given_up() {
                return;
            }
            if diverging >= MAX_DIVERGING_GAMES {
                self.note(format!(
                    "stopped after {MAX_DIVERGING_GAMES} diverging random games: {} not played",
                    games - index
                ));
                return;
            }
            self.progress.tick();
            let unit = self.random_game(seed, index, max_plies);
            if !unit.conforms() {
                diverging += 1;
            }
            self.push(unit);
        }
    }

    /// One random game from the initial position: at each ply the engine's
    /// legal moves, sometimes an illegal move, then a random legal move.
    fn random_game(&mut self, seed: u64, index: u32, max_plies: u32) -> UnitResult {
        let id = format!("{seed}/{index}");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(u64::from(index));
        let mut game = Game::new(Position::initial(), self.profile);
        let mut plies = 0;
        while plies < u64::from(max_plies) {
            let position = *game.current();
            let legal = game.legal_moves();
            // A game over by repetition (END-3) is judged here: the engine
            // sees no history.
            if legal.is_empty() && !legal_moves(&position, self.profile).is_empty() {
                break;
            }
            let mut questions = vec![Question::Legal(position)];
            if rng.random_range(0..ILLEGAL_PROBE) == 0 {
                let illegal: Vec<Pit> = Pit::ALL
                    .into_iter()
                    .filter(|p| !legal.contains(p))
                    .collect();
                if !illegal.is_empty() {
                    let pit = illegal[rng.random_range(0..illegal.len())];
                    questions.push(Question::Play(position, pit));
                }
            }
            let chosen = (!legal.is_empty()).then(|| legal[rng.random_range(0..legal.len())]);
            if let Some(pit) = chosen {
                questions.push(Question::Play(position, pit));
            }
            for question in questions {
                let found = match self.check(question) {
                    Ok(found) => found,
                    Err(f) => return failed("random-game", id, plies + 1, &f, None),
                };
                if let Some(found) = found {
                    let at = At {
                        ply: plies + 1,
                        before: Some(position),
                    };
                    let divergence = self.divergence(&found, &at, None);
                    return UnitResult::diverging("random-game", id, None, plies + 1, divergence);
                }
            }
            let Some(pit) = chosen else {
                break; // the game is over, as the engine agreed
            };
            plies += 1;
            if game.play(pit).is_err() || game.outcome() != crate::game::Outcome::Unfinished {
                break;
            }
        }
        UnitResult::conforming("random-game", id, None, plies)
    }

    /// The report of a divergence: the first wrong answer, shrunk to a
    /// smaller position when the budget allows, with a scenario that
    /// reproduces it.
    fn divergence(&mut self, found: &Diverging, at: &At, unit: Option<&str>) -> Divergence {
        let mut notes = Vec::new();
        let mut minimal = found.clone();
        if self.shrinks < MAX_SHRINKS {
            self.shrinks += 1;
            match shrink(&mut self.engine, found, self.profile) {
                Ok(smaller) => minimal = smaller,
                Err(f) => notes.push(format!("shrinking stopped: {}", f.kind)),
            }
        }
        let first = found.question.position();
        let small = minimal.question.position();
        if small != first {
            notes.push(format!(
                "minimal reproduction: {} in `{small}` ({} stones on the board instead of {})",
                describe(&minimal.question),
                small.board_stones(),
                first.board_stones()
            ));
            for diff in &minimal.mismatch.fields {
                notes.push(format!(
                    "  there {}: expected {}, the engine claimed {}",
                    diff.field, diff.expected, diff.claimed
                ));
            }
        }
        let scenario = reproduction(&minimal, self.profile, unit);
        Divergence {
            ply: Some(at.ply),
            before: at.before,
            mv: found.question.pit(),
            fields: found.mismatch.fields.iter().map(convert).collect(),
            rules: rule_set(found.mismatch.rules.iter().copied()),
            notes,
            scenario: Some(scenario),
        }
    }
}

fn describe(question: &Question) -> String {
    match question {
        Question::Legal(_) => "the legal moves".to_owned(),
        Question::Play(_, pit) => format!("move {pit}"),
    }
}

fn convert(diff: &super::compare::FieldDiff) -> FieldDiff {
    let mut out = FieldDiff::new(diff.field, diff.expected.clone(), diff.claimed.clone());
    out.rules = rule_set(diff.rules.iter().copied());
    out.details = diff.details.iter().map(convert).collect();
    out
}

fn rule_set<'a>(ids: impl IntoIterator<Item = &'a str>) -> RuleSet {
    let mut set = RuleSet::new();
    for id in ids {
        set.insert(id);
    }
    set
}

/// A unit the engine failed to answer: the failure as a divergence with no
/// rule, its request and stderr tail in the notes.
fn failed(
    kind: &'static str,
    id: String,
    ply: u64,
    failure: &Failure,
    location: Option<String>,
) -> UnitResult {
    let mut notes = Vec::new();
    if let Some(request) = &failure.request {
        notes.push(format!("request: {request}"));
    }
    if failure.stderr_tail.is_empty() {
        notes.push("stderr: (empty)".to_owned());
    } else {
        notes.push(format!(
            "stderr ({} bytes in all), last lines:",
            failure.stderr_bytes
        ));
        let lines: Vec<&str> = failure.stderr_tail.lines().collect();
        let shown = &lines[lines.len().saturating_sub(STDERR_LINES)..];
        notes.extend(shown.iter().map(|line| {
            let mut chars = line.chars();
            let head: String = chars.by_ref().take(STDERR_WIDTH).collect();
            if chars.next().is_some() {
                format!("| {head}…")
            } else {
                format!("| {head}")
            }
        }));
    }
    let divergence = Divergence {
        ply: (ply > 0).then_some(ply),
        before: None,
        mv: None,
        fields: vec![FieldDiff::new(
            "engine",
            "a well-formed reply in turn and in time",
            format!("{} ({})", failure.kind, failure.code),
        )],
        rules: RuleSet::new(),
        notes,
        scenario: None,
    };
    UnitResult::diverging(kind, id, location, ply, divergence)
}

/// Progress on stderr, drawn only on a terminal.
struct Progress {
    enabled: bool,
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new(wanted: bool) -> Progress {
        use std::io::IsTerminal;
        Progress {
            enabled: wanted && std::io::stderr().is_terminal(),
            bar: None,
        }
    }

    fn start(&mut self, what: &str, len: u64) {
        self.finish();
        if !self.enabled {
            return;
        }
        let bar = indicatif::ProgressBar::new(len);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {elapsed}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(what.to_owned());
        self.bar = Some(bar);
    }

    fn tick(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// Runs `f` with the bar hidden, so that a line printed meanwhile is
    /// not drawn over.
    fn suspend(&self, f: impl FnOnce()) {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
