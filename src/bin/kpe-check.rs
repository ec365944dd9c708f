//! `kpe-check`: check another Kpé engine against the reference rules.
//!
//! Thin: parse arguments, pick the mode from the file's `format` field, call
//! the library, map the outcome to an exit code.

use std::io::{self, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory as _, Parser, ValueEnum};
use kpe::check::{CheckError, FileKind, HumanSink, JsonSink, JunitSink, Sink, Summary, Tee};

const EXIT_CODES: &str = "\
Exit codes:
  0  every game conforms to the rules (under the claimed profile)
  1  divergences found: the report shows each one, the rule it breaks and a
     scenario that reproduces it
  2  bad input or usage: unreadable file, malformed JSON, unknown field or
     format version, impossible start position, bad arguments; or the report
     could not be written (a closed pipe ends the run quietly)
  129, 130, 143  interrupted by SIGHUP, SIGINT or SIGTERM: every engine
     process is killed and reaped, and the report covers what was checked
     before the signal

FILE is a transcript (\"format\": \"kpe-transcript\", spec/TRANSCRIPT.md) or an
engine manifest (\"format\": \"kpe-engine\", spec/PROTOCOL.md).

Live mode settings are taken, first found first: from the flags --seed,
--games, --perft-depth and --suite; from the environment variables
KPE_CHECK_SEED, KPE_CHECK_GAMES, KPE_CHECK_PERFT_DEPTH and KPE_CHECK_SUITE;
from the manifest; else the defaults. With a transcript the flags are a usage
error (exit 2) and the variables are ignored.";

const LIVE: &str = "Live mode (engine manifests only)";

/// Check a Kpé engine against the reference rules (spec/RULES.md).
///
/// Given a transcript of games an engine played, kpe-check replays every
/// game with the reference rules and reports, for each game that departs
/// from them, the position, the move, the fields that differ, the rule IDs
/// that decide them and a conformance scenario that reproduces it. When
/// something diverges it also names the rules profile (readings I1-I5)
/// under which the engine would conform, if any.
#[derive(Parser)]
#[command(name = "kpe-check", version, about, long_about, after_help = EXIT_CODES)]
struct Cli {
    /// A transcript or an engine manifest (JSON).
    file: PathBuf,
    /// Report format on standard output.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Also write a JUnit XML report to this file, for CI systems.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Colour in the human report: auto (on a terminal, unless NO_COLOR is
    /// set), always or never.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// The seed of the random games; every run prints the seed it used
    /// [default: the manifest's random.seed, else a fresh one] [env:
    /// KPE_CHECK_SEED]
    #[arg(long, value_name = "N", help_heading = LIVE)]
    seed: Option<u64>,
    /// How many random games to play [default: the manifest's random.games,
    /// else 100] [env: KPE_CHECK_GAMES]
    #[arg(long, value_name = "N", help_heading = LIVE)]
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
}

impl Cli {
    /// The live mode settings given on the command line, by flag name.
    fn live_flags(&self) -> Vec<&'static str> {
        [
            ("--seed", self.seed.is_some()),
            ("--games", self.games.is_some()),
            ("--perft-depth", self.perft_depth.is_some()),
            ("--suite", self.suite.is_some()),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect()
    }

    /// The live mode settings: the flags, then the environment.
    fn live_options(&self) -> Result<kpe::live::LiveOptions, String> {
        kpe::live::LiveOptions {
            seed: self.seed,
            games: self.games,
            perft_depth: self.perft_depth,
            suite: self.suite.clone(),
            progress: true,
        }
        .or_env()
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// A report for people.
    Human,
    /// One JSON object.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Signals and orphaned engine descendants (src/live/interrupt.rs).
    if let Err(e) = kpe::live::interrupt::install() {
        return fail(&format!("cannot install the signal handlers: {e}"));
    }
    let code = run(&cli);
    match kpe::live::interrupt::interrupted() {
        Some(signal) => {
            let _ = writeln!(
                io::stderr(),
                "kpe-check: interrupted by {signal}: the report covers what was checked before it"
            );
            ExitCode::from(signal.exit_code())
        }
        None => code,
    }
}

fn run(cli: &Cli) -> ExitCode {
    let choice = match cli.color {
        Color::Always => anstream::ColorChoice::Always,
        Color::Never => anstream::ColorChoice::Never,
        Color::Auto => anstream::ColorChoice::Auto,
    };
    let stdout = anstream::AutoStream::new(io::stdout().lock(), choice);
    let mut human = HumanSink::new(stdout);
    let mut json = JsonSink::new(io::stdout().lock());
    let mut junit = cli.junit.clone().map(JunitSink::new);
    let mut sinks: Vec<&mut dyn Sink> = Vec::new();
    match cli.format {
        Format::Human => sinks.push(&mut human),
        Format::Json => sinks.push(&mut json),
    }
    if let Some(j) = junit.as_mut() {
        sinks.push(j);
    }
    let mut out = Tee(sinks);

    let kind = match kpe::check::file_kind(&cli.file) {
        Ok(kind) => kind,
        Err(e) => {
            let _ = out.fail(&e);
            return fail(&e.to_string());
        }
    };
    let result: Result<Summary, CheckError> = match kind {
        FileKind::Transcript => {
            let flags = cli.live_flags();
            if !flags.is_empty() {
                let verb = if flags.len() == 1 { "applies" } else { "apply" };
                Cli::command()
                    .error(
                        clap::error::ErrorKind::ArgumentConflict,
                        format!(
                            "{} {verb} to engine manifests only, and {} is a transcript",
                            flags.join(", "),
                            cli.file.display()
                        ),
                    )
                    .exit();
            }
            kpe::check::check_transcript_file(&cli.file, &mut out)
        }
        // ------------------------------------------------------------------
        // Engine manifests (issue 5, the live mode): the one dispatch point.
        // Hand the manifest to `kpe::live` here, with the same `out` sinks,
        // and let it return a `Result<Summary, CheckError>` like the
        // transcript mode, so exit codes and reports stay the same.
        // ------------------------------------------------------------------
        FileKind::EngineManifest => match cli.live_options() {
            Ok(options) => {
                kpe::live::check_manifest_file(&cli.file, &options, &mut out, &mut io::stderr())
            }
            Err(e) => return fail(&e),
        },
    };
    match result {
        Ok(summary) if summary.conforms() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(CheckError::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(2),
        Err(e) => fail(&e.to_string()),
    }
}

/// Reports an error on standard error: exit code 2.
fn fail(message: &str) -> ExitCode {
    let mut err = anstream::AutoStream::auto(io::stderr().lock());
    let style = anstyle::AnsiColor::Red.on_default().bold();
    let _ = writeln!(err, "{style}error{style:#}: {message}");
    ExitCode::from(2)
}
