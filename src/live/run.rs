//! A live run of `kpe-check`: the plan of units for every profile checked
//! (scenarios, perft counts, random games), run by the scheduler; then the
//! examples of each group of divergences shrunk to minimal reproductions,
//! the reading named (with probes when several profiles still explain
//! everything), and the report written. The units finished go to disk in
//! plan order as the run goes ([`super::finished`]); the passes after it
//! read them back one at a time, so memory does not grow with `--games`.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use super::engine::{Engine, EngineInfo};
use super::finished::{Done, Finished, Stored};
use super::manifest::{Manifest, PerftPlan, Profiles};
use super::plan::{Plan, ProfileUnits, RandomGames};
use super::schedule::{self, Settings};
use super::shrink::shrink;
use super::units::{Ctx, Probe, Unit, divergence, find_probe, perft_units, result, scenario_units};
use crate::judge::{Answer, Question};
use crate::judge::{Divergence, Explanation, Reading, RuleSet, Tally, Unexplained, unexplained};
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::protocol::PROTOCOL_VERSION;
use crate::reporter::{
    Certificate, CheckError, InputError, Policy, ProfileSummary, Run, RunKind, Shard, Sink,
    SuiteStamp, Summary, UnitResult, Verdict,
};
use crate::scenario::{ScenarioErrors, Suite};
use crate::transcript::Engine as TranscriptEngine;

/// Divergence groups whose example is shrunk to a minimal reproduction in
/// one run (each costs up to [`super::shrink::SHRINK_BUDGET`] questions).
pub const MAX_SHRINKS: usize = 8;

/// The most `--retries` a run takes: each retry starts the engine afresh,
/// and a worker starts it at most [`super::MAX_STARTS`] times for a
/// profile, the first run included, so more could never take effect.
pub const MAX_RETRIES: u32 = super::MAX_STARTS - 1;

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
    /// Leave workers and engines on whatever cores the operating system
    /// gives them ([`super::ENV_PIN`]`=0`), instead of pinning each worker
    /// and its engine (src/live/pin.rs).
    pub unpinned: bool,
}

/// Everything a live run found but its units, which went to the sink one
/// at a time and were not kept.
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
    /// The totals given to the report, with the reading named when
    /// something diverged.
    pub summary: Summary,
    /// Requests sent to the engine.
    pub requests: u64,
    /// Where the scheduler's workers spent their time (not in the report).
    pub time: super::schedule::WorkerTime,
    /// The most unit results held in memory at once, waiting for an
    /// earlier unit of the plan to finish: never more than
    /// [`super::WINDOW`], whatever `--games` is (each is written to a
    /// temporary file and dropped once the units before it are done).
    pub held: usize,
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
/// Environment variable: `0` leaves workers and engines unpinned
/// ([`LiveOptions::unpinned`]), `1` pins them (the default).
pub const ENV_PIN: &str = "KPE_CHECK_PIN";

impl LiveOptions {
    /// The options kpe-check takes from its environment ([`ENV_SEED`],
    /// [`ENV_GAMES`], [`ENV_PERFT_DEPTH`], [`ENV_SUITE`], [`ENV_PIN`]),
    /// with progress on.
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
    /// A variable whose setting is already given is not read at all;
    /// [`ENV_PIN`]`=0` unpins options that are pinned.
    ///
    /// # Errors
    ///
    /// A message naming the variable whose value is not a number (or, for
    /// [`ENV_PIN`], not `0` or `1`).
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
        let unpinned = self.unpinned
            || match get(ENV_PIN) {
                None => false,
                Some(v) if v == "0" => true,
                Some(v) if v == "1" => false,
                Some(v) => {
                    return Err(format!(
                        "{ENV_PIN}={}: expected 0 (leave workers and engines unpinned) or 1 (pin them)",
                        v.to_string_lossy()
                    ));
                }
            };
        Ok(LiveOptions {
            seed: number(self.seed, ENV_SEED, &get)?,
            games,
            perft_depth: number(self.perft_depth, ENV_PERFT_DEPTH, &get)?,
            suite: self.suite.or_else(|| get(ENV_SUITE).map(PathBuf::from)),
            unpinned,
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
struct Prepared<'a> {
    plan: Plan<'a>,
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

fn prepare<'a>(
    manifest: &Manifest,
    manifest_path: &Path,
    options: &'a LiveOptions,
) -> Result<Prepared<'a>, LiveError> {
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
    let random = RandomGames {
        seed,
        games,
        max_plies,
        starts: starts.as_slice().into(),
    };
    let all = every_unit(
        &suite_dir,
        &suite,
        &profiles,
        perft_plan,
        &random,
        &mut summary,
    );
    let plan = Plan::new(all, &options.policy, options.shard);
    let left_out = plan.left_out();
    if left_out > 0 {
        summary.note(format!("{left_out} units left out by --only/--skip"));
    }
    // Coverage of the whole plan, before the shard's share is taken: every
    // shard reports the same, so that merged shards say what the
    // unsharded run says.
    if games == 0 {
        summary.note(
            "no edge probes: they are drawn from the seed with the random games, and --games is 0",
        );
    } else {
        for (index, &profile) in profiles.iter().enumerate() {
            summary.note(edge_coverage(&plan, index, profile));
        }
    }
    let planned = options.shard.map(|_| plan.selected());
    let certificate = Certificate {
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
    Ok(Prepared {
        plan,
        run: engine_run(manifest_path, &profiles, certificate),
        roots: roots(starts, &suite),
        summary,
        profiles,
        seed,
    })
}

/// The run of the engine of manifest `manifest_path`, on `profiles`
/// (the first the one it claims), certified by `certificate`.
fn engine_run(manifest_path: &Path, profiles: &[Profile], certificate: Certificate) -> Run {
    let mut run = Run::new(
        manifest_path.display().to_string(),
        RunKind::Engine,
        profiles[0],
    );
    run.profiles = profiles.to_vec();
    run.certificate = certificate;
    run
}

/// The positions the games start from: the initial one, the `starts`
/// asked for, and each scenario's start.
fn roots(starts: Vec<Position>, suite: &Suite) -> Vec<Position> {
    let mut roots = vec![Position::initial()];
    roots.extend(starts);
    roots.extend(
        suite
            .scenarios()
            .filter_map(|(_, s)| s.start_text().parse::<Position>().ok()),
    );
    roots
}

/// Every unit of the run, profile by profile: the suite's scenarios, perft,
/// the random games (made when the plan reaches them) and the edge
/// positions. The edge probes are the seed's, as the games are: with no
/// random game (`--games 0`) there is none, so that `--games 0
/// --perft-depth 0` checks the suite's scenarios and nothing else. A perft
/// cut by the node budget is noted in `summary`.
fn every_unit(
    suite_dir: &Path,
    suite: &Suite,
    profiles: &[Profile],
    perft_plan: PerftPlan,
    random: &RandomGames,
    summary: &mut Summary,
) -> Vec<ProfileUnits> {
    let mut all = Vec::new();
    for &profile in profiles {
        let mut before: Vec<Arc<dyn Unit>> = Vec::new();
        before.extend(
            scenario_units(suite_dir, suite, profile)
                .into_iter()
                .map(|u| Arc::new(u) as Arc<dyn Unit>),
        );
        let (perft, cut) = perft_units(
            suite_dir,
            suite,
            profile,
            perft_plan.max_depth,
            perft_plan.max_nodes,
        );
        if let Some(depth) = cut {
            summary.note(format!(
                "perft from the initial position checked to depth {depth} only: deeper counts exceed the budget of {} nodes",
                perft_plan.max_nodes
            ));
        }
        before.extend(perft.into_iter().map(|u| Arc::new(u) as Arc<dyn Unit>));
        let after: Vec<Arc<dyn Unit>> = if random.games == 0 {
            Vec::new()
        } else {
            super::units::edge_units(profile, random.seed)
                .into_iter()
                .map(|u| Arc::new(u) as Arc<dyn Unit>)
                .collect()
        };
        all.push(ProfileUnits {
            profile,
            before,
            games: random.clone(),
            after,
        });
    }
    all
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
fn edge_coverage(plan: &Plan<'_>, index: usize, profile: Profile) -> String {
    let mut on: Vec<(crate::judge::Boundary, usize)> = crate::judge::Boundary::all()
        .into_iter()
        .map(|b| (b, 0))
        .collect();
    // Only the units made with the plan lie on boundaries, not the games.
    for unit in plan.fixed(index) {
        for b in unit.boundaries() {
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
    let (timeouts, pipeline) = (manifest.timeouts, manifest.pipeline);
    let make = move |profile: Profile| {
        Engine::new(launch.clone(), timeouts, profile).with_pipeline(pipeline)
    };
    let spool = super::spool::FactSpool::new();
    let ran = run_plan(&plan, options, &make, &spool);
    let mut finished = ran.finished;
    let mut spares = Spares {
        profiles: &profiles,
        make: &make,
        engines: profiles.iter().map(|_| None).collect(),
    };
    // Interrupted by a signal (src/live/interrupt.rs): nothing shrunk.
    let shrunk = if super::interrupt::interrupted().is_some() {
        Vec::new()
    } else {
        shrink_examples(&finished, &mut spares)
    };
    let mut probes = Vec::new();
    let rows = name_readings(
        &mut finished,
        &mut probes,
        &mut spares,
        options,
        seed,
        &roots,
        &spool,
    )
    .map_err(LiveError::Output)?;
    let (requests, info) = spares.quit(ran.requests, ran.info.clone());
    let info = info.or(ran.info);
    name_engine(&mut run, info.as_ref());
    if let Some(note) = info.as_ref().and_then(protocol_note) {
        summary.note(note);
    }
    sink.begin(&run).map_err(LiveError::Output)?;
    let closing = report_units(
        &mut summary,
        rows,
        Parts {
            finished: &mut finished,
            probes,
            shutdown: ran.shutdown,
            shrunk,
        },
        options,
        &spool,
        sink,
    )
    .map_err(LiveError::Output)?;
    closing_notes(&mut summary, closing, manifest.timeouts.start_ms, options);
    sink.finish(&summary).map_err(LiveError::Output)?;
    let notes = summary.notes.clone();
    Ok(LiveReport {
        run,
        engine: info,
        profile: profiles[0],
        seed,
        summary,
        requests,
        time: ran.time,
        held: ran.held,
        notes,
    })
}

/// The plan run by `options.jobs` workers (as many as the cores by
/// default), each with its own engine from `make` (sharing its worker's
/// core: src/live/pin.rs), ticking the progress bar; a signal
/// (src/live/interrupt.rs) stops the run between units.
fn run_plan(
    plan: &Plan<'_>,
    options: &LiveOptions,
    make: &(dyn Fn(Profile) -> Engine + Sync),
    spool: &super::spool::FactSpool,
) -> schedule::Ran {
    let progress = super::progress::Progress::new(options.progress, plan.len() as u64);
    let interrupted = || super::interrupt::interrupted().is_some();
    let jobs = options
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let ran = schedule::run(
        plan,
        &Settings {
            jobs,
            retries: options.retries,
            policy: &options.policy,
            engine: make,
            tick: &|| progress.tick(),
            interrupted: &interrupted,
            spool,
            cores: &super::pin::Cores::for_workers(!options.unpinned),
        },
    );
    progress.finish();
    ran
}

/// The engine's name and version in `run`, and the protocol version it
/// spoke, by whose meaning it was checked (none if it never answered).
fn name_engine(run: &mut Run, info: Option<&EngineInfo>) {
    run.engine = info.map(|i| TranscriptEngine {
        name: i.name.clone(),
        version: i.version.clone(),
    });
    if let Some(i) = info {
        run.certificate.protocol = Some(i.protocol);
    }
}

/// The report's note on an engine that refused kpe-check's first hello
/// and took an older one (spec/PROTOCOL.md, "Versions"), if it did.
fn protocol_note(info: &EngineInfo) -> Option<String> {
    if info.refused.is_empty() {
        return None;
    }
    let v = info.protocol;
    Some(format!(
        "protocol: the engine refused {}; started again, it took {} and answered version {v}, \
         so it was checked by version {v}'s meaning (spec/PROTOCOL.md, \"Versions\")",
        info.refused.join("; then "),
        info.took
    ))
}

/// What the summary's last notes need of the units, taken as they are
/// reported.
struct Closing<'a> {
    slow: SlowStarts,
    unmatched: crate::reporter::Unmatched<'a>,
}

impl Closing<'_> {
    fn see(&mut self, unit: &UnitResult) {
        self.slow.see(unit);
        self.unmatched.see(unit);
    }
}

/// The summary's last notes: a slow engine start, the signal that stopped
/// the run, or the `--expect-fail` lines that matched no unit.
fn closing_notes(
    summary: &mut Summary,
    closing: Closing<'_>,
    start_ms: u64,
    options: &LiveOptions,
) {
    if let Some(note) = closing.slow.note(start_ms) {
        summary.note(note);
    }
    if let Some(signal) = super::interrupt::interrupted() {
        summary.interrupted = Some(signal.to_string());
    } else if options.shard.is_none() {
        // A shard sees only its share: the lines for the others' units
        // would all be noted.
        for note in closing.unmatched.notes() {
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

/// The units whose engine answered its hello later than the start timeout
/// on some start, after which it was started once more.
#[derive(Default)]
struct SlowStarts {
    count: usize,
    /// The first such unit's label.
    first: Option<String>,
    /// Whether one of them did not start the second time either.
    gave_up: bool,
}

impl SlowStarts {
    fn see(&mut self, unit: &UnitResult) {
        if !unit.retried.iter().any(schedule::is_slow_start) {
            return;
        }
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(unit.label());
        }
        self.gave_up |= unit.reason.as_deref() == Some(crate::reporter::DID_NOT_START);
    }

    /// The report's note when some start of the engine answered its hello
    /// later than the start timeout and the engine was started once more.
    fn note(&self, start_ms: u64) -> Option<String> {
        let first = self.first.as_ref()?;
        let then = if self.gave_up {
            "it did not answer the second time either"
        } else {
            "it answered then, and the run went on"
        };
        Some(format!(
            "slow start: the engine gave no hello within the start timeout ({start_ms} ms) on {} \
             (first: {first}) and was started once more; {then}: raise `timeouts.start_ms` if it needs longer",
            if self.count == 1 {
                "1 start".to_owned()
            } else {
                format!("{} starts", self.count)
            },
        ))
    }
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

/// Shrinks the example of each diverging group, in plan order: the
/// divergence of each example with its minimal reproduction, by the
/// example's profile and id, to be put in its place when the units are
/// reported.
fn shrink_examples(finished: &Finished, spares: &mut Spares<'_>) -> Vec<Shrunk> {
    let examples: Vec<(String, Option<Profile>)> = finished
        .groups
        .sorted()
        .iter()
        .filter(|g| g.verdict == Verdict::Diverges)
        .take(MAX_SHRINKS)
        .map(|g| (g.example.id.clone(), g.example.profile))
        .collect();
    let mut shrunk = Vec::new();
    for (id, profile) in examples {
        let Some(example) = finished
            .examples
            .iter()
            .find(|e| e.id == id && e.profile == profile)
        else {
            continue;
        };
        let found = &example.found;
        let claimed = spares.profiles[example.profile_index];
        let engine = spares.get(example.profile_index);
        let minimal = shrink(engine, found, claimed);
        // The shrinking questions make the example smaller; they are not
        // the unit's answers, which alone judge the reading ([`explain`]).
        let _ = engine.take_journal();
        let mut div = example.divergence.clone();
        match minimal {
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
            Ok(_) => continue,
            Err(f) => div.notes.push(format!("shrinking stopped: {}", f.kind)),
        }
        shrunk.push(Shrunk {
            profile,
            id,
            divergence: div,
        });
    }
    shrunk
}

/// A group's example with its minimal reproduction: the divergence that
/// replaces the unit's own when it is reported.
struct Shrunk {
    profile: Option<Profile>,
    id: String,
    divergence: Box<Divergence>,
}

/// One profile's row of the summary: its index, the profile, the reading
/// named for it, how well each profile explains its answers, and whether
/// its units were judged under the other profiles (each unit's record of
/// it is then given in a shard's report).
type Row = (usize, Profile, Option<Reading>, Vec<Explanation>, bool);

/// Names the reading of each profile that diverged, probing when several
/// profiles still explain everything; the probes join `probes`.
///
/// # Errors
///
/// The finished units could not be read back.
fn name_readings(
    finished: &mut Finished,
    probes: &mut Vec<Done>,
    spares: &mut Spares<'_>,
    options: &LiveOptions,
    seed: u64,
    roots: &[Position],
    spool: &super::spool::FactSpool,
) -> io::Result<Vec<Row>> {
    let interrupted = || super::interrupt::interrupted().is_some();
    let mut rows = Vec::new();
    for (index, &profile) in spares.profiles.iter().enumerate() {
        let diverged = finished.diverged(index);
        let mut explanations = Vec::new();
        let mut reading = None;
        let explained = (diverged || options.shard.is_some()) && !interrupted();
        if explained {
            // The scheduled units are judged once; each probe adds to them.
            let scheduled = tally_scheduled(finished, index, profile, spool)?;
            let mut asked = 0;
            loop {
                explanations = explain(&scheduled, probes, index, profile, spool);
                let r = crate::judge::reading_from(profile, &explanations, KEPT);
                let candidates: Vec<Profile> = r.conforms_under.clone();
                if !diverged || candidates.len() < 2 || asked >= MAX_PROBES {
                    reading = diverged.then_some(r);
                    break;
                }
                let Some(probe) = find_probe(asked, &candidates, roots, seed) else {
                    let mut r = r;
                    r.unseparated = Some(unseparated(&candidates));
                    reading = Some(r.stated());
                    break;
                };
                asked += 1;
                let answered =
                    run_probe(&probe, spares.get(index), profile, index, options, probes);
                if !answered {
                    explanations = explain(&scheduled, probes, index, profile, spool);
                    reading = Some(crate::judge::reading_from(profile, &explanations, KEPT));
                    break;
                }
            }
        }
        rows.push((index, profile, reading, explanations, explained));
    }
    Ok(rows)
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

/// What the report is made of besides the summary's rows: the scheduled
/// units, the probes, the engines' failures after `quit`, and the shrunk
/// examples.
struct Parts<'a> {
    finished: &'a mut Finished,
    probes: Vec<Done>,
    shutdown: Vec<Done>,
    shrunk: Vec<Shrunk>,
}

/// Writes the report's units to `sink` in plan order (each profile's
/// units, probes and shutdown), one at a time, counting them into
/// `summary` with each profile's row; what the closing notes need of them.
///
/// # Errors
///
/// The sink's, or the finished units could not be read back.
fn report_units<'o>(
    summary: &mut Summary,
    rows: Vec<Row>,
    parts: Parts<'_>,
    options: &'o LiveOptions,
    spool: &super::spool::FactSpool,
    sink: &mut dyn Sink,
) -> io::Result<Closing<'o>> {
    let Parts {
        finished,
        probes,
        shutdown,
        mut shrunk,
    } = parts;
    let mut out = Reported {
        summary,
        sink,
        several: rows.len() > 1,
        shard: options.shard.is_some(),
        closing: Closing {
            slow: SlowStarts::default(),
            unmatched: crate::reporter::Unmatched::new(&options.policy),
        },
        spool,
    };
    out.summary.rules.extend(finished.rules);
    let mut rows = rows.into_iter();
    let mut current: Option<(Row, crate::reporter::Counts)> = None;
    finished.each(|mut stored| {
        while current
            .as_ref()
            .is_none_or(|((index, ..), _)| *index < stored.profile_index)
        {
            if let Some((row, counts)) = current.take() {
                out.close_row(row, counts, &probes, &shutdown)?;
            }
            let Some(row) = rows.next() else {
                break;
            };
            current = Some((row, crate::reporter::Counts::default()));
        }
        // A group's example is reported with its minimal reproduction.
        if let Some(k) = shrunk
            .iter()
            .position(|s| s.id == stored.result.id && s.profile == stored.result.profile)
        {
            stored.result.divergence = Some(shrunk.swap_remove(k).divergence);
        }
        let mut none = crate::reporter::Counts::default();
        let (record, counts) = match &mut current {
            Some((row, counts)) => (out.record(&Answered::of_stored(&stored), row), counts),
            None => (Vec::new(), &mut none),
        };
        out.put(stored.result, record, counts)
    })?;
    if let Some((row, counts)) = current.take() {
        out.close_row(row, counts, &probes, &shutdown)?;
    }
    for row in rows {
        out.close_row(row, crate::reporter::Counts::default(), &probes, &shutdown)?;
    }
    if !out.several {
        out.summary.reading = out.summary.profiles.first().and_then(|p| p.reading.clone());
    }
    Ok(out.closing)
}

/// Where the report's units go, one at a time.
struct Reported<'a, 'o> {
    summary: &'a mut Summary,
    sink: &'a mut dyn Sink,
    several: bool,
    shard: bool,
    closing: Closing<'o>,
    spool: &'a super::spool::FactSpool,
}

impl Reported<'_, '_> {
    /// What `unit`, of `row`'s profile, leaves unexplained, as a shard's
    /// report gives it (empty elsewhere, and when the profile's units were
    /// not judged under the others).
    fn record(&self, unit: &Answered<'_>, row: &Row) -> Vec<Unexplained> {
        let (_, claimed, _, _, explained) = *row;
        if !self.shard || !explained {
            return Vec::new();
        }
        unexplained(&left_unexplained(unit, &checked(claimed), self.spool))
    }

    /// Counts `unit` into `counts` and the summary, and writes it.
    fn put(
        &mut self,
        mut unit: UnitResult,
        record: Vec<Unexplained>,
        counts: &mut crate::reporter::Counts,
    ) -> io::Result<()> {
        if !self.several {
            unit.profile = None;
        }
        // A shard's units say what they leave unexplained, so that
        // `kpe-check merge` counts only the units the whole run keeps.
        if self.shard {
            unit.unexplained = record;
        }
        counts.add(&unit);
        self.summary.add(&unit);
        self.closing.see(&unit);
        self.sink.unit(&unit)
    }

    /// The end of `row`'s units: its probes, its engines' failures after
    /// `quit`, then its line of the summary.
    fn close_row(
        &mut self,
        row: Row,
        mut counts: crate::reporter::Counts,
        probes: &[Done],
        shutdown: &[Done],
    ) -> io::Result<()> {
        let index = row.0;
        for d in probes.iter().filter(|d| d.profile_index == index) {
            let record = self.record(&Answered::of_done(d), &row);
            self.summary.rules.extend(d.rules);
            self.put(d.result.clone(), record, &mut counts)?;
        }
        for d in shutdown.iter().filter(|d| d.profile_index == index) {
            self.summary.rules.extend(d.rules);
            self.put(d.result.clone(), Vec::new(), &mut counts)?;
        }
        let (_, profile, reading, explanations, _) = row;
        rows_push(
            self.summary,
            profile,
            counts,
            reading,
            explanations,
            self.shard,
        );
        Ok(())
    }
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

/// The profiles a unit of an engine claiming `claimed` is judged under:
/// the claim first (the nearest profile may be the claim itself,
/// spec/REPORT.md, "Naming the reading"), then the re-checked ones.
fn checked(claimed: Profile) -> Vec<Profile> {
    std::iter::once(claimed).chain(rechecked(claimed)).collect()
}

/// What explaining a unit needs of it: its result, and its answers.
struct Answered<'a> {
    result: &'a UnitResult,
    found: bool,
    spooled: Option<super::spool::Spooled>,
    facts: &'a [(Question, Answer)],
}

impl Answered<'_> {
    fn of_stored(s: &Stored) -> Answered<'_> {
        Answered {
            result: &s.result,
            found: s.found,
            spooled: s.spooled,
            facts: &s.facts,
        }
    }

    fn of_done(d: &Done) -> Answered<'_> {
        Answered {
            result: &d.result,
            found: d.found.is_some(),
            spooled: d.spooled,
            facts: &d.facts,
        }
    }
}

/// Under each re-checked profile, the scheduled units of profile `index`
/// whose answers it leaves unexplained, by the rules that decide them. A
/// unit is judged by its own answers (the scheduled run's, or a probe's,
/// [`explain`]), not by the questions asked while shrinking it, which only
/// make its example smaller: so a unit counts the same whoever shrank it,
/// in the whole run or in a shard.
///
/// # Errors
///
/// The finished units could not be read back.
fn tally_scheduled(
    finished: &mut Finished,
    index: usize,
    claimed: Profile,
    spool: &super::spool::FactSpool,
) -> io::Result<Tally> {
    let profiles = checked(claimed);
    let mut tally = Tally::new(profiles.iter().copied());
    // One unit's answers in memory at a time.
    finished.each(|stored| {
        if stored.profile_index == index {
            count(&mut tally, &Answered::of_stored(&stored), &profiles, spool);
        }
        Ok(())
    })?;
    Ok(tally)
}

/// How well each re-checked profile explains the units of profile
/// `index`: those of the scheduled run (`scheduled`, from
/// [`tally_scheduled`]), then the probes.
fn explain(
    scheduled: &Tally,
    probes: &[Done],
    index: usize,
    claimed: Profile,
    spool: &super::spool::FactSpool,
) -> Vec<Explanation> {
    let profiles = checked(claimed);
    let mut tally = scheduled.clone();
    for d in probes.iter().filter(|d| d.profile_index == index) {
        count(&mut tally, &Answered::of_done(d), &profiles, spool);
    }
    tally.explanations()
}

/// Counts `unit` into `tally` under each of `profiles` that leaves it
/// unexplained.
fn count(
    tally: &mut Tally,
    unit: &Answered<'_>,
    profiles: &[Profile],
    spool: &super::spool::FactSpool,
) {
    for (profile, broken) in left_unexplained(unit, profiles, spool) {
        tally.unexplained(profile, broken.iter().map(str::to_owned));
    }
}

/// The profiles of `profiles` that leave `unit`'s answers unexplained,
/// each with the rules that decide them. Its answers are read back once,
/// and judged under every profile at once.
fn left_unexplained(
    unit: &Answered<'_>,
    profiles: &[Profile],
    spool: &super::spool::FactSpool,
) -> Vec<(Profile, RuleSet)> {
    let spooled = unit
        .spooled
        .map(|at| spool.load(at).unwrap_or_default())
        .unwrap_or_default();
    let mut left: Vec<(Profile, RuleSet)> = Vec::new();
    for &profile in profiles {
        let mut broken = RuleSet::new();
        for (question, answer) in spooled.iter().chain(unit.facts) {
            if let Some(m) = crate::judge::compare(question, answer, profile) {
                m.rules.iter().for_each(|r| broken.insert(r));
            }
        }
        broken.extend(wrong_count_under(unit.result, profile));
        if !broken.is_empty() || is_unexplained_without_facts(unit) {
            left.push((profile, broken));
        }
    }
    left
}

/// The rules of a perft unit whose count is wrong though its answers are
/// right, when `profile` does not give the engine's counts either: a count
/// no profile's answers show, judged by that profile's own count of every
/// count the engine gave on the way down (the unit's own, each subtree
/// followed, the children of the smallest), so that a profile that gives
/// one subtree by chance while another count rules it out explains
/// nothing. Empty for every other unit.
fn wrong_count_under(result: &UnitResult, profile: Profile) -> RuleSet {
    let Some(div) = result.divergence.as_deref() else {
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
    let gives = |position: &crate::Position, depth: u32, nodes: u64| {
        crate::perft::perft(position, depth, profile) == nodes
    };
    if gives(&top, depth, claimed)
        && div
            .counts
            .iter()
            .all(|c| gives(&c.position, c.depth, c.nodes))
    {
        RuleSet::new()
    } else {
        div.rules
    }
}

/// A unit that diverged on something its answers do not show (a whole
/// line's outcome) counts as unexplained under every profile.
fn is_unexplained_without_facts(unit: &Answered<'_>) -> bool {
    unit.result.verdict == Verdict::Diverges && !unit.found && unit.result.kind == "scenario"
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
