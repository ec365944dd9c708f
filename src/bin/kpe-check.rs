//! `kpe-check`: check another Kpé engine against the reference rules.
//!
//! Thin: parse arguments, pick the mode from the file's `format` field, call
//! the library, map the verdict to an exit code.

use std::io::{self, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory as _, Parser, Subcommand, ValueEnum};
use kpe::reporter::{
    BadgeSink, CheckError, Detail, ExpectFailWriter, FileKind, HtmlSink, HumanSink, JsonSink,
    JunitSink, Pattern, Policy, PolicySink, RunVerdict, ScenarioWriter, Shard, Sink, Summary, Tee,
};

#[path = "common/completed.rs"]
mod completed;

const AFTER_HELP: &str = "\
Exit codes:
  0  conforms: every unit checked conforms (known divergences aside)
  1  diverges: at least one rules divergence; the report shows each group once,
     the rule it breaks and a scenario that reproduces it
  2  bad input or usage: unreadable file, malformed JSON, unknown field or
     format version, impossible start position, bad arguments
  3  errored: no divergence, but the engine could not be checked on some unit
     (it did not start, crashed, hung or broke the protocol)
  4  nothing checked: no games, or every unit skipped or filtered out
  130/143/129  interrupted by SIGINT/SIGTERM/SIGHUP: the engine is killed and
     what was checked so far is reported

A closed standard output (`kpe-check ... | head`) changes nothing: the run
goes on, writes its report files, and exits with its verdict's code.

FILE is a transcript (\"format\": \"kpe-transcript\", spec/TRANSCRIPT.md; `-`
reads standard input) or an engine manifest (\"format\": \"kpe-engine\",
spec/PROTOCOL.md). `kpe-check merge REPORT.json...` combines the JSON reports
of --shard runs into the report of the whole run; `kpe-check completions
SHELL` prints a shell completion script.

Live mode settings are taken, first found first: from the flags --seed,
--games, --perft-depth and --suite; from the environment variables
KPE_CHECK_SEED, KPE_CHECK_GAMES, KPE_CHECK_PERFT_DEPTH and KPE_CHECK_SUITE;
from the manifest; else the defaults. With a transcript the live flags are a
usage error (exit 2) and the variables are ignored.";

const LIVE: &str = "Live mode (engine manifests only)";
const SELECT: &str = "Selecting units";
const OUTPUT: &str = "Output";

/// kpe-check checks a Kpé engine against the reference rules of
/// spec/RULES.md, from a transcript of the games it played or by driving
/// it live over the engine protocol.
///
/// It reports a verdict (conforms, diverges, errored, nothing checked), the
/// rules each divergence breaks with a scenario that reproduces it, grouped
/// so that each kind of bug is shown once, and the rules profile (the
/// readings the sources leave open, spec/RULES.md) the engine actually
/// follows.
#[derive(Parser)]
#[command(
    name = "kpe-check",
    version,
    about = "kpe-check checks a Kpé engine against the reference rules, from a transcript of its games or by driving it live.",
    long_about,
    after_help = AFTER_HELP,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// A transcript or an engine manifest (JSON); `-` reads a transcript
    /// from standard input.
    #[arg(required = true)]
    file: Option<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
    /// Print the ids of the units the run would check, one a line, and
    /// exit without starting the engine (for a transcript: its games, which
    /// are read through to find them).
    #[arg(long, help_heading = SELECT)]
    list: bool,
    /// Check only the units whose id matches this glob (`cap-*`,
    /// `random/*`, `perft/initial/*`) or that exercise this rule ID
    /// (`CAP-2`); repeatable.
    #[arg(long, value_name = "PATTERN", help_heading = SELECT)]
    only: Vec<String>,
    /// Leave out the units matching this glob or rule ID; repeatable.
    #[arg(long, value_name = "PATTERN", help_heading = SELECT)]
    skip: Vec<String>,
    /// Known divergences, one a line: `UNIT-ID RULE-ID[,RULE-ID...]
    /// [PROFILE]`. They are reported as expected and do not fail the run;
    /// a listed unit that now conforms is reported as fixed.
    #[arg(long, value_name = "FILE", help_heading = SELECT)]
    expect_fail: Option<PathBuf>,
    /// Stop after N failing units (divergences and engine errors); the rest
    /// are reported as not run.
    #[arg(long, value_name = "N", help_heading = SELECT)]
    max_failures: Option<u64>,
    /// Stop at the first failing unit (--max-failures 1).
    #[arg(long, help_heading = SELECT)]
    fail_fast: bool,
    /// Check only the K-th of N shares of the units (1-based), for the
    /// runners of a CI matrix; combine the JSON reports with `kpe-check
    /// merge`. Engine manifests only: sharding saves engine time, and a
    /// transcript has none to save (it is read in one pass, on one thread);
    /// split a large transcript into files instead.
    #[arg(long, value_name = "K/N", help_heading = SELECT)]
    shard: Option<Shard>,
    /// How many engine processes to run at once (live mode), one thread
    /// each; the report is the same whatever the number [default: the
    /// number of cores]. A transcript is checked on one thread whatever N:
    /// its games cost about what reading their bytes does
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(kpe::reporter::MAX_JOBS)))]
    jobs: Option<u32>,
    /// The seed of the random games; the report states the seed it used
    /// [default: the manifest's random.seed, else a fresh one] [env:
    /// KPE_CHECK_SEED]
    #[arg(long, value_name = "N", help_heading = LIVE)]
    seed: Option<u64>,
    /// How many random games to play per profile [default: the manifest's
    /// random.games, else 100] [env: KPE_CHECK_GAMES]
    #[arg(long, value_name = "N", help_heading = LIVE, value_parser = clap::value_parser!(u32).range(0..=i64::from(kpe::live::MAX_GAMES)))]
    games: Option<u32>,
    /// The deepest perft depth from the initial position, 0 for none
    /// [default: the manifest's perft.max_depth, else 6] [env:
    /// KPE_CHECK_PERFT_DEPTH]
    #[arg(long, value_name = "N", help_heading = LIVE)]
    perft_depth: Option<u32>,
    /// A conformance suite directory (*.yaml scenario files) to run instead
    /// of the suite built into kpe-check; one that does not load is bad
    /// input (exit 2) [env: KPE_CHECK_SUITE]
    #[arg(long, value_name = "DIR", help_heading = LIVE)]
    suite: Option<PathBuf>,
    /// The profiles to certify, each in turn with its own hello: `all`, or
    /// profiles separated by `|` (e.g. `default|skip-origin,strict-lock`)
    /// [default: the manifest's profiles, else its profile]
    #[arg(long, value_name = "LIST|all", help_heading = LIVE, value_parser = completed::profiles(), hide_possible_values = true)]
    profiles: Option<kpe::live::Profiles>,
    /// Run a unit on which the engine errored (crashed, hung, broke the
    /// protocol) up to N more times, with a fresh engine; one that then
    /// passes is reported as flaky and does not fail the run. A divergence
    /// is never run again. Each worker starts the engine at most 4 times
    /// per profile (retries included), so N is at most 3; units left when
    /// the starts run out are errored, never skipped
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = LIVE,
          value_parser = retries)]
    retries: u32,
    /// Start the random games from this position (notation) instead of the
    /// initial one; repeatable, the games take them in turn.
    #[arg(long, value_name = "POSITION", help_heading = LIVE)]
    start: Vec<kpe::Position>,
}

#[derive(clap::Args)]
struct OutputArgs {
    /// Report format on standard output.
    #[arg(long, value_enum, default_value_t = Format::Human, help_heading = OUTPUT)]
    format: Format,
    /// Also write a JUnit XML report to this file, for CI systems.
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    junit: Option<PathBuf>,
    /// Also write the report as one self-contained HTML page to this file.
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    html: Option<PathBuf>,
    /// Write this run's divergences to FILE in the format --expect-fail
    /// reads, so that the next run can take them as known.
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    write_expect_fail: Option<PathBuf>,
    /// Append this run's reproductions (each group's scenario, as the
    /// report prints it) to the scenario file FILE, made when absent; an id
    /// already in the suite the run checks (--suite DIR, else the built-in
    /// one) or in FILE is refused (exit 2) and nothing is written.
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    write_scenarios: Option<PathBuf>,
    /// Write a badge of the verdict: a shields.io endpoint JSON to FILE and
    /// an SVG beside it, FILE with the extension `.svg`.
    #[arg(long, value_name = "FILE", help_heading = OUTPUT)]
    badge: Option<PathBuf>,
    /// Colour in the human report: auto (on a terminal, unless NO_COLOR is
    /// set), always or never.
    #[arg(long, value_enum, default_value_t = Color::Auto, help_heading = OUTPUT)]
    color: Color,
    /// Print only the verdict line.
    #[arg(long, short, conflicts_with = "verbose", help_heading = OUTPUT)]
    quiet: bool,
    /// Also list every unit that passed or was skipped.
    #[arg(long, short, help_heading = OUTPUT)]
    verbose: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Combine the JSON reports of `--shard K/N` runs into the report the
    /// unsharded run would have given: the same verdicts, counts, groups
    /// and exit code.
    Merge {
        /// The shard reports (`kpe-check --format json --shard K/N ... >
        /// shard-K.json`).
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Print a shell completion script for kpe-check (bash, zsh, fish,
    /// elvish, powershell), profile names included: docs/GUIDE.md, "Shell
    /// completions", says where to put it.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

impl Cli {
    /// The live mode settings given on the command line, by flag name.
    fn live_flags(&self) -> Vec<&'static str> {
        [
            ("--seed", self.seed.is_some()),
            ("--games", self.games.is_some()),
            ("--perft-depth", self.perft_depth.is_some()),
            ("--suite", self.suite.is_some()),
            ("--shard", self.shard.is_some()),
            ("--profiles", self.profiles.is_some()),
            ("--start", !self.start.is_empty()),
            ("--retries", self.retries > 0),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect()
    }

    fn policy(&self) -> Result<Policy, kpe::reporter::InputError> {
        let patterns = |list: &[String], flag: &str| {
            list.iter()
                .map(|p| {
                    p.parse::<Pattern>().map_err(|e| {
                        Cli::command()
                            .error(
                                clap::error::ErrorKind::ValueValidation,
                                format!("{flag}: {e}"),
                            )
                            .exit()
                    })
                })
                .collect::<Result<Vec<_>, ()>>()
                .unwrap_or_default()
        };
        let mut policy = Policy {
            only: patterns(&self.only, "--only"),
            skip: patterns(&self.skip, "--skip"),
            max_failures: if self.fail_fast {
                Some(1)
            } else {
                self.max_failures
            },
            expected: Vec::new(),
            expected_file: None,
        };
        if let Some(path) = &self.expect_fail {
            policy.load_expected(path)?;
            policy.expected_file = Some(path.display().to_string());
        }
        Ok(policy)
    }

    /// The live mode settings: the flags, then the environment.
    fn live_options(&self, policy: Policy) -> Result<kpe::live::LiveOptions, String> {
        kpe::live::LiveOptions {
            seed: self.seed,
            games: self.games,
            perft_depth: self.perft_depth,
            suite: self.suite.clone(),
            progress: !self.out.quiet,
            jobs: self.jobs.map(|j| j as usize),
            shard: self.shard,
            retries: self.retries,
            profiles: self.profiles.clone(),
            starts: self.start.clone(),
            policy,
            unpinned: false,
        }
        .or_env()
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// A report for people.
    Human,
    /// One JSON object (spec/report.schema.json).
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

/// The sinks the output flags ask for, and a run over them.
/// `--retries N`: at most [`kpe::live::MAX_RETRIES`], with the reason
/// when more is asked (they could never take effect).
fn retries(text: &str) -> Result<u32, String> {
    let n: u32 = text.parse().map_err(|_| {
        format!(
            "`{text}` is not a number of retries (0 to {})",
            kpe::live::MAX_RETRIES
        )
    })?;
    if n > kpe::live::MAX_RETRIES {
        return Err(format!(
            "at most {max}: each retry starts the engine afresh, and a worker starts it at most \
             {starts} times per profile, the first run included, so {n} retries could never take effect",
            max = kpe::live::MAX_RETRIES,
            starts = kpe::live::MAX_STARTS,
        ));
    }
    Ok(n)
}

/// A sink writing to standard output, for which a closed pipe (the reader
/// gone, as `head` goes once it has its lines) is not an error: from then
/// on it takes everything and writes nothing, and the run goes on to its
/// verdict, its exit code and its report files.
struct Unpiped<S> {
    sink: S,
    closed: bool,
}

impl<S: Sink> Unpiped<S> {
    fn new(sink: S) -> Unpiped<S> {
        Unpiped {
            sink,
            closed: false,
        }
    }

    fn unless_closed(&mut self, write: impl FnOnce(&mut S) -> io::Result<()>) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match write(&mut self.sink) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }
}

impl<S: Sink> Sink for Unpiped<S> {
    fn begin(&mut self, run: &kpe::reporter::Run) -> io::Result<()> {
        self.unless_closed(|s| s.begin(run))
    }
    fn unit(&mut self, unit: &kpe::reporter::UnitResult) -> io::Result<()> {
        self.unless_closed(|s| s.unit(unit))
    }
    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        self.unless_closed(|s| s.finish(summary))
    }
    fn fail(&mut self, error: &kpe::reporter::InputError) -> io::Result<()> {
        self.unless_closed(|s| s.fail(error))
    }
}

/// Writes `lines` to standard output, one a line; a closed pipe ends the
/// writing quietly (the exit code stays the caller's).
fn print_lines(lines: &[String]) -> Result<(), ExitCode> {
    let mut out = io::stdout().lock();
    for line in lines {
        match writeln!(out, "{line}") {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
            Err(e) => return Err(fail(&format!("cannot write to standard output: {e}"))),
        }
    }
    Ok(())
}

/// The scenario ids of the suite in `dir` (else the built-in one), each
/// with the file it is in: those `--write-scenarios` refuses. A suite that
/// does not load gives none (the run says why it does not load).
fn suite_ids(dir: Option<&std::path::Path>) -> Vec<(String, String)> {
    let suite = match dir {
        Some(dir) => kpe::scenario::Suite::load(dir),
        None => kpe::scenario::Suite::bundled(),
    };
    let folder = dir.map_or_else(
        || kpe::scenario::Suite::BUNDLED_DIR.to_owned(),
        |d| d.display().to_string(),
    );
    suite
        .map(|suite| {
            suite
                .scenarios()
                .map(|(file, s)| (s.id.clone(), format!("{folder}/{file}")))
                .collect()
        })
        .unwrap_or_default()
}

/// The sinks the output flags ask for, and a run over them; `suite` is
/// the suite directory the run checks (none: the built-in suite).
fn with_sinks<T>(
    args: &OutputArgs,
    suite: Option<&std::path::Path>,
    run: impl FnOnce(&mut dyn Sink) -> T,
) -> T {
    let choice = match args.color {
        Color::Always => anstream::ColorChoice::Always,
        Color::Never => anstream::ColorChoice::Never,
        Color::Auto => anstream::ColorChoice::Auto,
    };
    let detail = if args.quiet {
        Detail::Quiet
    } else if args.verbose {
        Detail::Verbose
    } else {
        Detail::Normal
    };
    let stdout = anstream::AutoStream::new(io::stdout().lock(), choice);
    let mut human = Unpiped::new(HumanSink::with_detail(stdout, detail));
    let mut json = Unpiped::new(JsonSink::new(io::stdout().lock()));
    let mut junit = args.junit.clone().map(JunitSink::new);
    let mut html = args.html.clone().map(HtmlSink::new);
    let mut known = args.write_expect_fail.clone().map(ExpectFailWriter::new);
    let mut badge = args.badge.clone().map(BadgeSink::new);
    let mut scenarios = args
        .write_scenarios
        .clone()
        .map(|path| ScenarioWriter::new(path, suite_ids(suite)));
    let mut sinks: Vec<&mut dyn Sink> = Vec::new();
    match args.format {
        Format::Human => sinks.push(&mut human),
        Format::Json => sinks.push(&mut json),
    }
    if let Some(j) = junit.as_mut() {
        sinks.push(j);
    }
    if let Some(h) = html.as_mut() {
        sinks.push(h);
    }
    if let Some(k) = known.as_mut() {
        sinks.push(k);
    }
    if let Some(b) = badge.as_mut() {
        sinks.push(b);
    }
    // Last: an id it refuses ends the run with exit 2 once the reports
    // are written.
    if let Some(w) = scenarios.as_mut() {
        sinks.push(w);
    }
    run(&mut Tee(sinks))
}

fn main() -> ExitCode {
    // kpe-check run as the guard of one of its engines
    // (src/live/interrupt.rs): become the engine.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args
        .get(1)
        .is_some_and(|a| a == kpe::live::interrupt::GUARD_ARG)
    {
        return fail(&kpe::live::interrupt::run_guard(&args[2..]));
    }
    // kpe-check run as the watch of its engines' process groups: kill
    // them when the checker dies.
    if args
        .get(1)
        .is_some_and(|a| a == kpe::live::interrupt::WATCH_ARG)
    {
        return ExitCode::from(kpe::live::interrupt::run_watch());
    }
    if let Ok(exe) = std::env::current_exe() {
        kpe::live::interrupt::guard_engines_with(exe);
    }
    let cli = Cli::parse();
    // Signals and orphaned engine descendants (src/live/interrupt.rs).
    if let Err(e) = kpe::live::interrupt::install() {
        return fail(&format!("cannot install the signal handlers: {e}"));
    }
    let merging = matches!(cli.command, Some(Command::Merge { .. }));
    let code = run(cli);
    kpe::live::interrupt::release_watch();
    match kpe::live::interrupt::interrupted() {
        Some(signal) => {
            let what = if merging {
                "the merge stopped and wrote no report"
            } else {
                "the report covers what was checked before it"
            };
            let _ = writeln!(io::stderr(), "kpe-check: interrupted by {signal}: {what}");
            ExitCode::from(signal.exit_code())
        }
        None => code,
    }
}

/// Refuses report files that would overwrite an input or each other, or
/// that cannot be written, before the run starts.
/// Checks every file the run will write before it starts. The known
/// failures file may be the `--expect-fail` file the run reads (it is read
/// before the run and replaced after it): only the other inputs are kept
/// from it. `inputs[0]` is the transcript or manifest (or the first shard).
fn check_outputs(inputs: &[&std::path::Path], out: &OutputArgs) -> Result<(), ExitCode> {
    if let Some(badge) = &out.badge
        && badge.extension().is_some_and(|e| e == "svg")
    {
        return Err(fail(&format!(
            "--badge {}: name the JSON file (the SVG goes beside it, as FILE.svg), not the SVG",
            badge.display()
        )));
    }
    let svg = out.badge.as_deref().map(kpe::reporter::BadgeSink::svg_path);
    let mut outputs = Vec::new();
    if let Some(p) = &out.junit {
        outputs.push(("--junit", p.as_path()));
    }
    if let Some(p) = &out.html {
        outputs.push(("--html", p.as_path()));
    }
    if let (Some(json), Some(svg)) = (&out.badge, &svg) {
        outputs.push(("--badge", json.as_path()));
        outputs.push(("--badge", svg.as_path()));
    }
    if let Some(p) = &out.write_scenarios {
        outputs.push(("--write-scenarios", p.as_path()));
        // An existing file must load, so that it is named before the run.
        if p.exists()
            && let Err(e) = kpe::scenario::load_file(p)
        {
            return Err(fail(&format!(
                "--write-scenarios {}: the file does not load as a scenario file, so nothing \
                 could be appended to it:\n{e}",
                p.display()
            )));
        }
    }
    kpe::reporter::check_outputs(inputs, &outputs).map_err(|e| fail(&e.to_string()))?;
    if let Some(p) = &out.write_expect_fail {
        outputs.push(("--write-expect-fail", p.as_path()));
        let reports = &inputs[..1.min(inputs.len())];
        kpe::reporter::check_outputs(reports, &outputs).map_err(|e| fail(&e.to_string()))?;
    }
    Ok(())
}

fn run(cli: Cli) -> ExitCode {
    match &cli.command {
        Some(Command::Merge { reports, out }) => return merge(reports, out),
        Some(Command::Completions { shell }) => return completions(*shell),
        None => {}
    }
    let Some(file) = cli.file.clone() else {
        Cli::command().print_help().ok();
        return ExitCode::from(2);
    };
    let mut inputs = vec![file.as_path()];
    inputs.extend(cli.expect_fail.as_deref());
    if let Err(code) = check_outputs(&inputs, &cli.out) {
        return code;
    }
    let policy = match cli.policy() {
        Ok(policy) => policy,
        Err(e) => return fail(&e.to_string()),
    };
    let stdin_copy = match copy_stdin(&file) {
        Ok(copy) => copy,
        Err(code) => return code,
    };
    let path = stdin_copy
        .as_ref()
        .map_or_else(|| file.clone(), |copy| copy.path().to_owned());
    let kind = match kind_of(&path, stdin_copy.as_ref()) {
        Ok(kind) => kind,
        Err(e) => {
            with_sinks(&cli.out, None, |sink| sink.fail(&e).ok());
            return fail(&e.to_string());
        }
    };
    match kind {
        FileKind::Transcript => check_transcript(&cli, &file, &path, &policy),
        FileKind::EngineManifest => check_manifest(&cli, &file, policy),
    }
}

/// `kpe-check merge REPORT.json...`: the shards' JSON reports combined.
fn merge(reports: &[PathBuf], out: &OutputArgs) -> ExitCode {
    let inputs: Vec<&std::path::Path> = reports.iter().map(PathBuf::as_path).collect();
    if let Err(code) = check_outputs(&inputs, out) {
        return code;
    }
    with_sinks(out, None, |sink| {
        exit(kpe::reporter::merge_files(reports, sink))
    })
}

/// FILE `-`: standard input, copied to a temporary file, since a transcript
/// may need reading more than once (fields in any order, the reading);
/// any other FILE: `None`, read in place.
fn copy_stdin(file: &std::path::Path) -> Result<Option<tempfile::NamedTempFile>, ExitCode> {
    if file.as_os_str() != "-" {
        return Ok(None);
    }
    kpe::transcripts::spool_stdin()
        .map(Some)
        .map_err(|e| fail(&format!("-: cannot read standard input: {e}")))
}

/// The kind of file at `path`, from its `format` field; standard input's
/// copy is read again from its start and named `-`.
fn kind_of(
    path: &std::path::Path,
    stdin_copy: Option<&tempfile::NamedTempFile>,
) -> Result<FileKind, kpe::reporter::InputError> {
    stdin_copy.map_or_else(
        || kpe::transcripts::file_kind(path),
        |copy| match copy.reopen() {
            Ok(f) => {
                kpe::transcripts::file_kind_of_reader("-", f).map_err(|e| match copy.reopen() {
                    Ok(again) => e.name_the_byte(again),
                    Err(_) => e,
                })
            }
            Err(e) => Err(kpe::reporter::InputError {
                file: "-".to_owned(),
                kind: kpe::reporter::InputErrorKind::Read(e),
            }),
        },
    )
}

/// Transcript mode: FILE (read from `path`, standard input's copy for `-`)
/// checked game by game, or its games listed with --list. A live-mode flag
/// is a usage error.
fn check_transcript(
    cli: &Cli,
    file: &std::path::Path,
    path: &std::path::Path,
    policy: &Policy,
) -> ExitCode {
    let flags = cli.live_flags();
    if !flags.is_empty() {
        let verb = if flags.len() == 1 { "applies" } else { "apply" };
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                format!(
                    "{} {verb} to engine manifests only, and {} is a transcript",
                    flags.join(", "),
                    file.display()
                ),
            )
            .exit();
    }
    if cli.list {
        return list_games(path, file, policy);
    }
    with_sinks(&cli.out, None, |sink| {
        let mut policed = PolicySink::new(sink, policy);
        let options = kpe::transcripts::Options::default().named(file.display().to_string());
        let result = kpe::transcripts::check_transcript_file_with(path, &options, &mut policed);
        exit(result.map(|_| policed.summary().clone()))
    })
}

/// Live mode: the engine of manifest FILE driven through the suite, or its
/// units listed with --list.
fn check_manifest(cli: &Cli, file: &std::path::Path, policy: Policy) -> ExitCode {
    let options = match cli.live_options(policy) {
        Ok(options) => options,
        Err(e) => return fail(&e),
    };
    if cli.list {
        return list(file, &options);
    }
    with_sinks(&cli.out, options.suite.as_deref(), |sink| {
        exit(kpe::live::check_manifest_file(file, &options, sink))
    })
}

/// `kpe-check completions SHELL`: the completion script on standard output
/// (a closed pipe is no error, as for a report).
fn completions(shell: clap_complete::Shell) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "kpe-check", &mut script);
    if shell == clap_complete::Shell::Bash {
        script = bash_states_agree(&String::from_utf8_lossy(&script), "kpe-check").into_bytes();
    }
    match io::stdout().write_all(&script) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(&format!("cannot write to standard output: {e}")),
    }
}

/// The bash script of clap_complete with its states spelt one way. For a
/// name with a hyphen it walks the command line to the state
/// `kpe__check__subcmd__merge` but labels that state's arm
/// `kpe__subcmd__check__subcmd__merge`, so no subcommand's options ever
/// complete (`kpe-check merge --<TAB>`; clap issues 6386 and 6421). The
/// arms are relabelled as the walk spells them; a clap_complete that
/// spells them alike leaves nothing to relabel.
fn bash_states_agree(script: &str, name: &str) -> String {
    let walked = name.replace('-', "__");
    let labelled = name.replace('-', "__subcmd__");
    if walked == labelled {
        return script.to_owned();
    }
    script.replace(
        &format!("{labelled}__subcmd__"),
        &format!("{walked}__subcmd__"),
    )
}

/// `--list`: the unit ids, without starting the engine.
fn list(file: &std::path::Path, options: &kpe::live::LiveOptions) -> ExitCode {
    let manifest = match kpe::live::Manifest::load(file) {
        Ok(m) => m,
        Err(e) => return fail(&e.into_input_error().to_string()),
    };
    match kpe::live::list_units(&manifest, file, options) {
        Ok(ids) => {
            if let Err(code) = print_lines(&ids) {
                return code;
            }
            if ids.is_empty() {
                eprintln!("kpe-check: no unit is selected");
                return ExitCode::from(RunVerdict::NothingChecked.exit_code());
            }
            ExitCode::SUCCESS
        }
        Err(kpe::live::LiveError::Suite { dir, errors }) => fail(&format!(
            "{}: the conformance suite does not load:\n{errors}",
            dir.display()
        )),
        Err(kpe::live::LiveError::Output(e)) => fail(&e.to_string()),
    }
}

/// `--list` for a transcript: the ids of the games the run would check,
/// in file order. The games are read (and checked, unseen) to find them.
fn list_games(path: &std::path::Path, file: &std::path::Path, policy: &Policy) -> ExitCode {
    let mut ids = IdSink::default();
    let mut policed = PolicySink::new(&mut ids, policy);
    let options = kpe::transcripts::Options::default().named(file.display().to_string());
    if let Err(e) = kpe::transcripts::check_transcript_file_with(path, &options, &mut policed) {
        return fail(&e.to_string());
    }
    if let Err(code) = print_lines(&ids.0) {
        return code;
    }
    if ids.0.is_empty() {
        eprintln!("kpe-check: no unit is selected");
        return ExitCode::from(RunVerdict::NothingChecked.exit_code());
    }
    ExitCode::SUCCESS
}

/// The ids of the units that reach it (behind a [`PolicySink`], those the
/// selection keeps).
#[derive(Default)]
struct IdSink(Vec<String>);

impl kpe::reporter::Sink for IdSink {
    fn begin(&mut self, _run: &kpe::reporter::Run) -> io::Result<()> {
        Ok(())
    }
    fn unit(&mut self, unit: &kpe::reporter::UnitResult) -> io::Result<()> {
        self.0.push(unit.id.clone());
        Ok(())
    }
    fn finish(&mut self, _summary: &Summary) -> io::Result<()> {
        Ok(())
    }
    fn fail(&mut self, _error: &kpe::reporter::InputError) -> io::Result<()> {
        Ok(())
    }
}

/// The exit code of a run's outcome.
fn exit(result: Result<Summary, CheckError>) -> ExitCode {
    match result {
        Ok(summary) => ExitCode::from(summary.exit_code()),
        Err(CheckError::Interrupted(signal)) => ExitCode::from(signal.exit_code()),
        Err(e) => fail(&e.to_string()),
    }
}

/// Reports an error on standard error: exit code 2.
fn fail(message: &str) -> ExitCode {
    let mut err = anstream::AutoStream::auto(io::stderr().lock());
    let style = anstyle::AnsiColor::Red.on_default().bold();
    let _ = writeln!(err, "{style}error{style:#}: {message}");
    ExitCode::from(RunVerdict::BadInput.exit_code())
}
