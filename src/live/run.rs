//! A live run of `kpe-check`: the plan of units for every profile checked
//! (scenarios, perft counts, random games), run by the scheduler; then the
//! examples of each group of divergences shrunk to minimal reproductions,
//! the reading named (with probes when several profiles still explain
//! everything), and the report written.

use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::engine::{Engine, EngineInfo};
use super::manifest::{Manifest, PerftPlan, Profiles};
use super::schedule::{self, Done, Planned, Settings};
use super::shrink::shrink;
use super::units::{
    Ctx, Probe, Unit, divergence, find_probe, perft_units, random_units, result, scenario_units,
};
use crate::judge::Question;
use crate::judge::{Explanation, Reading, RuleSet, Tally, Unexplained, unexplained};
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::protocol::PROTOCOL_VERSION;
use crate::reporter::{
    Certificate, CheckError, Groups, InputError, Policy, ProfileSummary, Run, RunKind, Shard, Sink,
    SuiteStamp, Summary, UnitResult, Verdict,
};
use crate::scenario::{ScenarioErrors, Suite};
use crate::transcript::Engine as TranscriptEngine;

/// Divergence groups whose example is shrunk to a minimal reproduction in
/// one run (each costs up to [`super::shrink::SHRINK_BUDGET`] questions).
pub const MAX_SHRINKS: usize = 8;

/// The most `--retries` a run takes: a flake that needs more is not one.
pub const MAX_RETRIES: u32 = 10;

/// Probes asked per profile to tell the remaining readings apart.
pub const MAX_PROBES: usize = 8;

/// Settings from the command line (or the environment, through
/// [`LiveOptions::or_env`]), overriding the manifest.
#[derive(Clone, Debug, Default)]
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
    /// Engine processes at once (`--jobs`; default: the number of cores).
    pub jobs: Option<usize>,
    /// Check only this share of the units (`--shard K/N`).
    pub shard: Option<Shard>,
    /// Run a unit on which the engine errored again, up to this many more
    /// times (`--retries N`); one that then passes is reported as flaky.
    pub retries: u32,
    /// The profiles to check (`--profiles`), overriding the manifest's.
    pub profiles: Option<Profiles>,
    /// Random games start from these positions (`--start`), overriding the
    /// manifest's `random.starts`.
    pub starts: Vec<Position>,
    /// Selection, stopping and known divergences.
    pub policy: Policy,
}

/// Everything a live run found.
#[derive(Clone, Debug)]
pub struct LiveReport {
    /// The run's header, as reported.
    pub run: Run,
    /// Who the engine said it is, if it got that far.
    pub engine: Option<EngineInfo>,
    /// The profile the manifest claims (the first one checked).
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
    /// Where the scheduler's workers spent their time (not in the report).
    pub time: super::schedule::WorkerTime,
    /// Things the report mentions (perft depths cut short, units left
    /// out), as in [`Summary::notes`].
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
        let games = number(self.games, ENV_GAMES, &get)?;
        if let Some(n) = games
            && n > super::manifest::MAX_GAMES
        {
            return Err(format!(
                "{n} random games (--games or {ENV_GAMES}) is more than one run plays: at most {}",
                super::manifest::MAX_GAMES
            ));
        }
        Ok(LiveOptions {
            seed: number(self.seed, ENV_SEED, &get)?,
            games,
            perft_depth: number(self.perft_depth, ENV_PERFT_DEPTH, &get)?,
            suite: self.suite.or_else(|| get(ENV_SUITE).map(PathBuf::from)),
            ..self
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
    /// The report could not be written.
    Output(io::Error),
}

/// `kpe-check MANIFEST`: reads the manifest at `path` and checks its
/// engine, writing the report to `sink`.
///
/// # Errors
///
/// [`CheckError::Input`] for a bad manifest or suite (exit code 2),
/// [`CheckError::Output`] when the report cannot be written.
pub fn check_manifest_file(
    path: &Path,
    options: &LiveOptions,
    sink: &mut dyn Sink,
) -> Result<Summary, CheckError> {
    let fail = |sink: &mut dyn Sink, error: InputError| {
        sink.fail(&error).map_err(CheckError::Output)?;
        Err(CheckError::Input(error))
    };
    let manifest = match Manifest::load(path) {
        Ok(manifest) => manifest,
        Err(e) => return fail(sink, e.into_input_error()),
    };
    match check_engine(&manifest, path, options, sink) {
        Ok(report) => Ok(report.summary),
        Err(LiveError::Output(e)) => Err(CheckError::Output(e)),
        Err(LiveError::Suite { dir, errors }) => {
            fail(sink, InputError::suite(&dir.display().to_string(), errors))
        }
    }
}

/// What a live run is made of, before anything is asked: the plan and the
/// header.
struct Prepared {
    plan: Vec<Planned>,
    run: Run,
    summary: Summary,
    profiles: Vec<Profile>,
    seed: u64,
    roots: Vec<Position>,
}

fn load_suite(options: &LiveOptions) -> Result<(PathBuf, Suite), LiveError> {
    let (suite_dir, suite) = match &options.suite {
        None => (PathBuf::from(Suite::BUNDLED_DIR), Suite::bundled()),
        Some(dir) => (dir.clone(), Suite::load(dir)),
    };
    let suite = suite.map_err(|errors| LiveError::Suite {
        dir: suite_dir.clone(),
        errors,
    })?;
    Ok((suite_dir, suite))
}

fn prepare(
    manifest: &Manifest,
    manifest_path: &Path,
    options: &LiveOptions,
) -> Result<Prepared, LiveError> {
    let (suite_dir, suite) = load_suite(options)?;
    let profiles = options
        .profiles
        .as_ref()
        .or(manifest.profiles.as_ref())
        .map_or_else(|| vec![manifest.profile], Profiles::list);
    let seed = options
        .seed
        .or(manifest.random.seed)
        .unwrap_or_else(fresh_seed);
    let games = options.games.unwrap_or(manifest.random.games);
    let max_plies = manifest.random.max_plies;
    let mut perft_plan = manifest.perft;
    if let Some(depth) = options.perft_depth {
        perft_plan.max_depth = depth;
    }
    let starts = if options.starts.is_empty() {
        manifest.random.starts.clone()
    } else {
        options.starts.clone()
    };
    let mut summary = Summary::default();
    let random = RandomPlan {
        seed,
        games,
        max_plies,
        starts: &starts,
    };
    let all = every_unit(
        &suite_dir,
        &suite,
        &profiles,
        perft_plan,
        &random,
        &mut summary,
    );
    let mut plan = selected(all, options, &mut summary);
    // Coverage of the whole plan, before the shard's share is taken: every
    // shard reports the same, so that merged shards say what the
    // unsharded run says.
    for (index, &profile) in profiles.iter().enumerate() {
        summary.note(edge_coverage(&plan, index, profile));
    }
    let planned = options.shard.map(|_| plan.len() as u64);
    if let Some(shard) = options.shard {
        plan.retain(|p| shard.contains(p.seq));
    }
    let mut run = Run::new(
        manifest_path.display().to_string(),
        RunKind::Engine,
        profiles[0],
    );
    run.profiles = profiles.clone();
    run.certificate = Certificate {
        suite: Some(SuiteStamp {
            version: crate::scenario::SUITE_VERSION,
            digest: suite.digest(),
        }),
        seed: Some(seed),
        games: Some(games),
        max_plies: Some(max_plies),
        perft_depth: Some(perft_plan.max_depth),
        planned,
        ..selection_certificate(options)
    };
    let mut roots = vec![Position::initial()];
    roots.extend(starts);
    roots.extend(
        suite
            .scenarios()
            .filter_map(|(_, s)| s.start_text().parse::<Position>().ok()),
    );
    Ok(Prepared {
        plan,
        run,
        summary,
        profiles,
        seed,
        roots,
    })
}

/// The random games of a plan: how many, from which seed and starts, and
/// how long each may be.
struct RandomPlan<'a> {
    seed: u64,
    games: u32,
    max_plies: u32,
    starts: &'a [Position],
}

/// Every unit of the run, profile by profile: the suite's scenarios, perft,
/// the random games and the edge positions. A perft cut by the node budget
/// is noted in `summary`.
fn every_unit(
    suite_dir: &Path,
    suite: &Suite,
    profiles: &[Profile],
    perft_plan: PerftPlan,
    random: &RandomPlan<'_>,
    summary: &mut Summary,
) -> Vec<Planned> {
    let mut all: Vec<Planned> = Vec::new();
    for (index, &profile) in profiles.iter().enumerate() {
        let mut units: Vec<Box<dyn Unit>> = Vec::new();
        units.extend(
            scenario_units(suite_dir, suite, profile)
                .into_iter()
                .map(|u| Box::new(u) as Box<dyn Unit>),
        );
        let (perft, cut) = perft_units(suite, profile, perft_plan.max_depth, perft_plan.max_nodes);
        if let Some(depth) = cut {
            summary.note(format!(
                "perft from the initial position checked to depth {depth} only: deeper counts exceed the budget of {} nodes",
                perft_plan.max_nodes
            ));
        }
        units.extend(perft.into_iter().map(|u| Box::new(u) as Box<dyn Unit>));
        units.extend(
            random_units(random.seed, random.games, random.max_plies, random.starts)
                .into_iter()
                .map(|u| Box::new(u) as Box<dyn Unit>),
        );
        units.extend(
            super::units::edge_units(profile, random.seed)
                .into_iter()
                .map(|u| Box::new(u) as Box<dyn Unit>),
        );
        all.extend(units.into_iter().map(|unit| Planned {
            profile_index: index,
            profile,
            seq: 0,
            unit,
        }));
    }
    all
}

/// The units `--only` and `--skip` select, numbered in plan order; how many
/// were left out is noted in `summary`.
fn selected(all: Vec<Planned>, options: &LiveOptions, summary: &mut Summary) -> Vec<Planned> {
    let before = all.len();
    let mut plan: Vec<Planned> = all
        .into_iter()
        .filter(|p| options.policy.selects(&p.unit.id(), p.unit.rules()))
        .collect();
    let left_out = before - plan.len();
    if left_out > 0 {
        summary.note(format!("{left_out} units left out by --only/--skip"));
    }
    for (k, planned) in plan.iter_mut().enumerate() {
        planned.seq = k as u64;
    }
    plan
}

/// The certificate's part that `options` decide alone: the protocol, the
/// shard, `--only` and `--skip`.
fn selection_certificate(options: &LiveOptions) -> Certificate {
    Certificate {
        protocol: Some(PROTOCOL_VERSION),
        shard: options.shard,
        only: options
            .policy
            .only
            .iter()
            .map(ToString::to_string)
            .collect(),
        skip: options
            .policy
            .skip
            .iter()
            .map(ToString::to_string)
            .collect(),
        ..Certificate::default()
    }
}

/// The note of how many edge probes of `plan` lie on each boundary of
/// `profile` (the plan's `index`th).
fn edge_coverage(plan: &[Planned], index: usize, profile: Profile) -> String {
    let mut on: Vec<(crate::judge::Boundary, usize)> = crate::judge::Boundary::all()
        .into_iter()
        .map(|b| (b, 0))
        .collect();
    for planned in plan.iter().filter(|p| p.profile_index == index) {
        for b in planned.unit.boundaries() {
            if let Some(count) = on.iter_mut().find(|(x, _)| x == b) {
                count.1 += 1;
            }
        }
    }
    coverage_note(profile, &on)
}

/// The ids of the units a run of `manifest` would check, after `--only`,
/// `--skip` and `--shard`, without starting the engine (`--list`): one per
/// line, with the profile in brackets when several are checked. Units the
/// profile or the protocol cannot check are left out.
///
/// # Errors
///
/// As [`check_engine`], for a suite that does not load.
pub fn list_units(
    manifest: &Manifest,
    manifest_path: &Path,
    options: &LiveOptions,
) -> Result<Vec<String>, LiveError> {
    let prepared = prepare(manifest, manifest_path, options)?;
    let several = prepared.profiles.len() > 1;
    Ok(prepared
        .plan
        .iter()
        .filter(|p| p.unit.skip_reason().is_none())
        .map(|p| {
            if several {
                format!("{} [{}]", p.unit.id(), p.profile)
            } else {
                p.unit.id()
            }
        })
        .collect())
}

/// Checks the engine of `manifest` (read from `manifest_path`, whose
/// directory anchors its relative paths) under each profile it is to be
/// certified for: scenarios, perft and random games, run by the scheduler;
/// then shrinking, the reading named and probes. The report goes to `sink`
/// when the run is over.
///
/// # Errors
///
/// [`LiveError::Suite`] when `options` names a suite directory that does
/// not load, before anything is run; [`LiveError::Output`] when the report
/// cannot be written.
pub fn check_engine(
    manifest: &Manifest,
    manifest_path: &Path,
    options: &LiveOptions,
    sink: &mut dyn Sink,
) -> Result<LiveReport, LiveError> {
    let base = manifest_path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Prepared {
        plan,
        mut run,
        mut summary,
        profiles,
        seed,
        roots,
    } = prepare(manifest, manifest_path, options)?;
    let launch = manifest.launch(base);
    let timeouts = manifest.timeouts;
    let make = move |profile: Profile| Engine::new(launch.clone(), timeouts, profile);
    let progress = Progress::new(options.progress, plan.len() as u64);
    // A signal (src/live/interrupt.rs) stops the run between units.
    let interrupted = || super::interrupt::interrupted().is_some();
    let jobs = options
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let spool = super::spool::FactSpool::new();
    let ran = schedule::run(
        &plan,
        &Settings {
            jobs,
            retries: options.retries,
            policy: &options.policy,
            engine: &make,
            tick: &|| progress.tick(),
            interrupted: &interrupted,
            spool: &spool,
        },
    );
    progress.finish();
    let mut done = ran.done;
    let mut spares = Spares {
        profiles: &profiles,
        make: &make,
        engines: profiles.iter().map(|_| None).collect(),
    };
    if !interrupted() {
        shrink_examples(&mut done, &mut spares);
    }
    let rows = name_readings(&mut done, &mut spares, options, seed, &roots, &spool);
    let (requests, info) = spares.quit(ran.requests, ran.info.clone());
    let mut shutdown = ran.shutdown;
    let units = report_units(&mut summary, rows, done, &mut shutdown, options);
    closing_notes(&mut summary, &units, manifest.timeouts.start_ms, options);
    let info = info.or(ran.info);
    run.engine = info.as_ref().map(|i| TranscriptEngine {
        name: i.name.clone(),
        version: i.version.clone(),
    });
    // The version the engine spoke, by whose meaning it was checked.
    if let Some(i) = &info {
        run.certificate.protocol = Some(i.protocol);
    }
    let write = |sink: &mut dyn Sink| -> io::Result<()> {
        sink.begin(&run)?;
        for unit in &units {
            sink.unit(unit)?;
        }
        sink.finish(&summary)
    };
    write(sink).map_err(LiveError::Output)?;
    let notes = summary.notes.clone();
    Ok(LiveReport {
        run: run.clone(),
        engine: info,
        profile: profiles[0],
        seed,
        units,
        summary,
        requests,
        time: ran.time,
        notes,
    })
}

/// The summary's last notes: a slow engine start, the signal that stopped
/// the run, or the `--expect-fail` lines that matched no unit.
fn closing_notes(
    summary: &mut Summary,
    units: &[UnitResult],
    start_ms: u64,
    options: &LiveOptions,
) {
    if let Some(note) = slow_start_note(units, start_ms) {
        summary.note(note);
    }
    if let Some(signal) = super::interrupt::interrupted() {
        summary.interrupted = Some(signal.to_string());
    } else if options.shard.is_none() {
        // A shard sees only its share: the lines for the others' units
        // would all be noted.
        let mut unmatched = crate::reporter::Unmatched::new(&options.policy);
        for unit in units {
            unmatched.see(unit);
        }
        for note in unmatched.notes() {
            summary.note(note);
        }
    }
}

/// The edge coverage of `profile` as the report's note: one line per
/// boundary that can occur under it, with the probes on it; the boundaries
/// that cannot occur are named once, with why, instead of counted as 0.
fn coverage_note(profile: Profile, on: &[(crate::judge::Boundary, usize)]) -> String {
    let mut note = format!(
        "edge coverage of {profile} (probes on each boundary, spec/PROTOCOL.md \"Edge probes\"):"
    );
    let mut impossible: Vec<(String, &str)> = Vec::new();
    for (b, n) in on {
        match b.impossible_under(profile) {
            Some(why) => impossible.push((b.name(), why)),
            None if *n == 0 => note.push_str(&format!(
                "\n  {}: none found in {} sampled positions",
                b.name(),
                crate::judge::MAX_SAMPLES
            )),
            None => note.push_str(&format!("\n  {}: {n}", b.name())),
        }
    }
    if let Some((_, why)) = impossible.first() {
        note.push_str(&format!(
            "\n  not probed, as {} cannot occur under {profile} ({why}):",
            if impossible.len() == 1 {
                "it".to_owned()
            } else {
                format!("these {}", impossible.len())
            }
        ));
        for (name, _) in &impossible {
            note.push_str(&format!("\n    {name}"));
        }
    }
    note
}

/// The report's note when some start of the engine answered its hello later
/// than the start timeout and the engine was started once more.
fn slow_start_note(units: &[UnitResult], start_ms: u64) -> Option<String> {
    let slow: Vec<&UnitResult> = units
        .iter()
        .filter(|u| u.retried.iter().any(schedule::is_slow_start))
        .collect();
    let first = slow.first()?;
    let then = if slow
        .iter()
        .any(|u| u.reason.as_deref() == Some(crate::reporter::DID_NOT_START))
    {
        "it did not answer the second time either"
    } else {
        "it answered then, and the run went on"
    };
    Some(format!(
        "slow start: the engine gave no hello within the start timeout ({start_ms} ms) on {} \
         (first: {}) and was started once more; {then}: raise `timeouts.start_ms` if it needs longer",
        if slow.len() == 1 {
            "1 start".to_owned()
        } else {
            format!("{} starts", slow.len())
        },
        first.label()
    ))
}

/// Engines started after the scheduled run (to shrink and to probe), one
/// per profile, each on first use.
struct Spares<'a> {
    profiles: &'a [Profile],
    make: &'a dyn Fn(Profile) -> Engine,
    engines: Vec<Option<Engine>>,
}

impl Spares<'_> {
    /// The engine of profile `index`, started if it is not yet.
    fn get(&mut self, index: usize) -> &mut Engine {
        let (make, profile) = (self.make, self.profiles[index]);
        self.engines[index].get_or_insert_with(|| make(profile))
    }

    /// Quits every engine started, adding its requests to `requests`; the
    /// engine's `hello` if `info` has none yet.
    fn quit(self, mut requests: u64, mut info: Option<EngineInfo>) -> (u64, Option<EngineInfo>) {
        for mut engine in self.engines.into_iter().flatten() {
            requests += engine.requests();
            if info.is_none() {
                info = engine.info().cloned();
            }
            let _ = engine.quit();
        }
        (requests, info)
    }
}

/// Shrinks the example of each diverging group, in plan order, and puts
/// the minimal reproduction into its divergence.
fn shrink_examples(done: &mut [Done], spares: &mut Spares<'_>) {
    let mut groups = Groups::default();
    for d in done.iter() {
        groups.add(&d.result);
    }
    let examples: Vec<(String, Option<Profile>)> = groups
        .sorted()
        .iter()
        .filter(|g| g.verdict == Verdict::Diverges)
        .take(MAX_SHRINKS)
        .map(|g| (g.example.id.clone(), g.example.profile))
        .collect();
    for (id, profile) in examples {
        let Some(d) = done
            .iter_mut()
            .find(|d| d.result.id == id && d.result.profile == profile)
        else {
            continue;
        };
        let Some(found) = d.found.clone() else {
            continue;
        };
        let claimed = spares.profiles[d.profile_index];
        let engine = spares.get(d.profile_index);
        let shrunk = shrink(engine, &found, claimed);
        // The shrinking questions make the example smaller; they are not
        // the unit's answers, which alone judge the reading ([`explain`]).
        let _ = engine.take_journal();
        let Some(div) = d.result.divergence.as_mut() else {
            continue;
        };
        match shrunk {
            Ok(minimal) if minimal.question.position() != found.question.position() => {
                let small = *minimal.question.position();
                div.notes.push(format!(
                    "minimal reproduction: {} in `{small}` ({} stones on the board instead of {})",
                    describe(&minimal.question),
                    small.board_stones(),
                    found.question.position().board_stones()
                ));
                for diff in &minimal.mismatch.fields {
                    div.notes.push(format!(
                        "  there {}: expected {}, the engine claimed {}",
                        diff.field, diff.expected, diff.claimed
                    ));
                }
                div.scenario = divergence(&minimal, 1, claimed, Some(&id)).scenario;
            }
            Ok(_) => {}
            Err(f) => div.notes.push(format!("shrinking stopped: {}", f.kind)),
        }
    }
}

/// One profile's row of the summary: its index, the profile, the reading
/// named for it, how well each profile explains its answers, and what each
/// of its units leaves unexplained (in `done` order; empty when the reading
/// was not looked for).
type Row = (
    usize,
    Profile,
    Option<Reading>,
    Vec<Explanation>,
    Vec<Vec<Unexplained>>,
);

/// Names the reading of each profile that diverged, probing when several
/// profiles still explain everything; the probes join `done`.
fn name_readings(
    done: &mut Vec<Done>,
    spares: &mut Spares<'_>,
    options: &LiveOptions,
    seed: u64,
    roots: &[Position],
    spool: &super::spool::FactSpool,
) -> Vec<Row> {
    let interrupted = || super::interrupt::interrupted().is_some();
    let mut rows = Vec::new();
    for (index, &profile) in spares.profiles.iter().enumerate() {
        let diverged = done
            .iter()
            .any(|d| d.profile_index == index && d.result.verdict == Verdict::Diverges);
        let mut explanations = Vec::new();
        let mut records = Vec::new();
        let mut reading = None;
        if (diverged || options.shard.is_some()) && !interrupted() {
            let mut probes = 0;
            loop {
                (explanations, records) = explain(done, index, profile, spool);
                let r = crate::judge::reading_from(profile, &explanations, KEPT);
                let candidates: Vec<Profile> = r.conforms_under.clone();
                if !diverged || candidates.len() < 2 || probes >= MAX_PROBES {
                    reading = diverged.then_some(r);
                    break;
                }
                let Some(probe) = find_probe(probes, &candidates, roots, seed) else {
                    let mut r = r;
                    r.unseparated = Some(unseparated(&candidates));
                    reading = Some(r.stated());
                    break;
                };
                probes += 1;
                let answered = run_probe(&probe, spares.get(index), profile, index, options, done);
                if !answered {
                    (explanations, records) = explain(done, index, profile, spool);
                    reading = Some(crate::judge::reading_from(profile, &explanations, KEPT));
                    break;
                }
            }
        }
        rows.push((index, profile, reading, explanations, records));
    }
    rows
}

/// Asks `probe` of `engine` and adds its unit to `done`: whether the
/// engine answered the probe's question.
fn run_probe(
    probe: &Probe,
    engine: &mut Engine,
    profile: Profile,
    index: usize,
    options: &LiveOptions,
    done: &mut Vec<Done>,
) -> bool {
    let started = std::time::Instant::now();
    let mut ctx = Ctx::new(engine, profile);
    let outcome = probe.run(&mut ctx);
    let rules = ctx.rules;
    let facts = ctx.engine.take_journal();
    let (mut unit, found) = result(probe, outcome);
    unit.time = started.elapsed().as_secs_f64();
    unit.profile = Some(profile);
    options.policy.classify(&mut unit);
    let answered = facts.iter().any(|(q, _)| *q == probe.question());
    done.push(Done {
        result: unit,
        found: found.map(Box::new),
        rules,
        facts,
        spooled: None,
        profile_index: index,
    });
    answered
}

/// The report's units in plan order (each profile's units, probes and
/// shutdown), counted into `summary` with each profile's row.
fn report_units(
    summary: &mut Summary,
    rows: Vec<Row>,
    mut done: Vec<Done>,
    shutdown: &mut [Done],
    options: &LiveOptions,
) -> Vec<UnitResult> {
    let mut units: Vec<UnitResult> = Vec::with_capacity(done.len() + shutdown.len());
    let several = rows.len() > 1;
    for (index, profile, reading, explanations, records) in rows {
        let mut counts = crate::reporter::Counts::default();
        let mut records = records.into_iter();
        let mine = done
            .iter_mut()
            .filter(|d| d.profile_index == index)
            .chain(shutdown.iter_mut().filter(|d| d.profile_index == index));
        for d in mine {
            // Each result is moved into the report, not copied: the units
            // are held once, whatever `--games` is.
            let mut unit = std::mem::replace(&mut d.result, UnitResult::moved_out());
            d.found = None;
            if !several {
                unit.profile = None;
            }
            // A shard's units say what they leave unexplained, so that
            // `kpe-check merge` counts only the units the whole run keeps.
            if options.shard.is_some() {
                unit.unexplained = records.next().unwrap_or_default();
            }
            counts.add(&unit);
            summary.add(&unit);
            summary.rules.extend(d.rules);
            units.push(unit);
        }
        rows_push(
            summary,
            profile,
            counts,
            reading,
            explanations,
            options.shard.is_some(),
        );
    }
    if !several {
        summary.reading = summary.profiles.first().and_then(|p| p.reading.clone());
    }
    units
}

fn rows_push(
    summary: &mut Summary,
    profile: Profile,
    counts: crate::reporter::Counts,
    reading: Option<Reading>,
    explanations: Vec<Explanation>,
    keep: bool,
) {
    summary.profiles.push(ProfileSummary {
        profile,
        counts,
        verdict: counts.verdict(),
        reading,
        explanations: if keep { explanations } else { Vec::new() },
    });
}

fn describe(question: &Question) -> String {
    match question {
        Question::Legal(_) => "the legal moves".to_owned(),
        Question::Play(_, pit) => format!("move {pit}"),
    }
}

/// The profiles re-checked for an engine claiming `claimed` (itself
/// included, for the nearest profile): every one that agrees on I5, which no stateless answer tells apart.
fn rechecked(claimed: Profile) -> Vec<Profile> {
    Profile::all()
        .filter(|&p| {
            p != claimed && p.has(Switch::EndOnRepetition) == claimed.has(Switch::EndOnRepetition)
        })
        .collect()
}

/// The readings no stateless answer tells apart: kept as claimed.
const KEPT: &[Switch] = &[Switch::EndOnRepetition];

/// Under each re-checked profile, the units of profile `index` whose
/// answers it leaves unexplained, by the rules that decide them; and each
/// unit's own record of it, in `done` order. A unit is judged by its own
/// answers (the scheduled run's, or a probe's), not by the questions asked
/// while shrinking it, which only make its example smaller: so a unit
/// counts the same whoever shrank it, in the whole run or in a shard.
#[must_use]
fn explain(
    done: &[Done],
    index: usize,
    claimed: Profile,
    spool: &super::spool::FactSpool,
) -> (Vec<Explanation>, Vec<Vec<Unexplained>>) {
    let units: Vec<&Done> = done.iter().filter(|d| d.profile_index == index).collect();
    // The claimed profile is a candidate too: the nearest profile may be
    // the claim itself (spec/REPORT.md, "Naming the reading").
    let profiles: Vec<Profile> = std::iter::once(claimed).chain(rechecked(claimed)).collect();
    let mut tally = Tally::new(profiles.iter().copied());
    let mut records = Vec::with_capacity(units.len());
    // Each unit's answers are read back once, and judged under every
    // re-checked profile at once: one unit's answers in memory at a time.
    for d in &units {
        let spooled = d
            .spooled
            .map(|at| spool.load(at).unwrap_or_default())
            .unwrap_or_default();
        let mut left: Vec<(Profile, RuleSet)> = Vec::new();
        for &profile in &profiles {
            let mut broken = RuleSet::new();
            for (question, answer) in spooled.iter().chain(&d.facts) {
                if let Some(m) = crate::judge::compare(question, answer, profile) {
                    m.rules.iter().for_each(|r| broken.insert(r));
                }
            }
            broken.extend(wrong_count_under(d, profile));
            if !broken.is_empty() || is_unexplained_without_facts(d) {
                tally.unexplained(profile, broken.iter().map(str::to_owned));
                left.push((profile, broken));
            }
        }
        records.push(unexplained(&left));
    }
    (tally.explanations(), records)
}

/// The rules of a perft unit whose count is wrong though its answers are
/// right, when `profile` does not give the engine's count either: a count
/// no profile's answers show, judged by that profile's own count of the
/// smallest differing subtree. Empty for every other unit.
fn wrong_count_under(d: &Done, profile: Profile) -> RuleSet {
    let Some(div) = d.result.divergence.as_deref() else {
        return RuleSet::new();
    };
    let (Some(table), Some(top)) = (&div.perft, div.before) else {
        return RuleSet::new();
    };
    let Some(claimed) = div
        .fields
        .first()
        .and_then(|f| f.claimed.parse::<u64>().ok())
    else {
        return RuleSet::new();
    };
    let depth = u32::try_from(table.nodes.len()).unwrap_or(u32::MAX);
    if crate::perft::perft(&top, depth, profile) == claimed {
        RuleSet::new()
    } else {
        div.rules
    }
}

/// A unit that diverged on something its answers do not show (a whole
/// line's outcome) counts as unexplained under every profile.
fn is_unexplained_without_facts(d: &Done) -> bool {
    d.result.verdict == Verdict::Diverges && d.found.is_none() && d.result.kind == "scenario"
}

fn unseparated(candidates: &[Profile]) -> String {
    let names: Vec<String> = candidates.iter().map(ToString::to_string).collect();
    format!(
        "no position found where {} answer differently (searched {} random playouts per profile): the engine's answers cannot separate them",
        names.join(" and "),
        super::units::PROBE_PLAYOUTS
    )
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

/// Progress on stderr, drawn only on a terminal: units done, rate and ETA.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new(wanted: bool, len: u64) -> Progress {
        use std::io::IsTerminal;
        if !wanted || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = indicatif::ProgressBar::new(len);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{prefix:>9} [{bar:30}] {pos}/{len} units, {per_sec}, ETA {eta}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix("kpe-check");
        Progress { bar: Some(bar) }
    }

    fn tick(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
