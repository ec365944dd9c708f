//! `kpe`: look at Kpé positions, play moves and count move trees with the
//! reference rules.
//!
//! Exit codes: 0 success, 1 a move in `kpe play` was illegal or a file of `kpe adopt` could not be
//! changed (or its lock is held), 2 bad arguments or bad input (a root of `kpe adopt` that is not the
//! project, a malformed file),
//! 3 a solved table is missing, unreadable or refused.

use std::io;
use std::process::ExitCode;

/// `println!` that ends the program quietly when standard output is a closed
/// pipe (`kpe perft 20 | head -3`) instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(io::stdout(), $($arg)*) {
            write_failed(e);
        }
    }};
}

/// What to do when standard output cannot be written: a closed pipe is a
/// reader that has seen enough (exit 0); anything else is an error (exit 2).
fn write_failed(e: io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write to standard output: {e}");
    std::process::exit(2);
}

use clap::{Parser, Subcommand};
use kpe::{Game, Pit, Position, Profile, game_over, legal_moves};

#[path = "common/completed.rs"]
mod completed;

const EXIT_CODES: &str = "\
Exit codes:
  0  success
  1  a move in `kpe play` was illegal (the trace stops there and names the
     ply, the move, the reason code and the rule), or an expectation of
     `kpe suite` is not what the reference rules give (the message names
     the file, the scenario or perft table, the profile and the field)
  2  bad arguments (the message names the argument and, for a position, the
     column), or output that cannot be written
  3  a solved table (kpe solve, kpe value, kpe engine --perfect) is missing,
     cannot be read or written, or is refused (the message names the file
     and the header field or checksum that does not match)";

/// The reference rules of the mancala game Kpé (spec/RULES.md).
#[derive(Parser)]
#[command(name = "kpe", version, about = "kpe shows Kpé positions, plays moves and counts move trees with the reference rules, exports the conformance suite and speaks the engine protocol.", after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the move sequences of each length 1..=DEPTH.
    Perft {
        /// How many plies deep to count (1 to 64).
        #[arg(value_parser = clap::value_parser!(u32).range(1..=64))]
        depth: u32,
        /// Start position in kpe notation, or `initial`.
        #[arg(long, value_name = "POSITION", default_value = "initial", value_parser = parse_position)]
        from: Position,
        /// Rules profile: `default` or switches joined by commas.
        #[arg(long, value_name = "PROFILE", default_value = "default", value_parser = completed::profile(), hide_possible_values = true,
              help = completed::profile_help())]
        rules: Profile,
        /// Split the count at DEPTH by first move instead.
        #[arg(long)]
        divide: bool,
        /// Threads sharing the count [default: the number of cores].
        #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        jobs: Option<u32>,
    },
    /// Draw a position and say what it means.
    Show {
        /// A position in kpe notation, or `initial`.
        #[arg(value_parser = parse_position)]
        position: Position,
        /// Rules profile.
        #[arg(long, value_name = "PROFILE", default_value = "default", value_parser = completed::profile(), hide_possible_values = true)]
        rules: Profile,
    },
    /// Play moves and trace what each rule did.
    Play {
        /// Moves: pit names (S1..S4, N1..N4), or 1..4 for the mover's own pit.
        #[arg(value_name = "MOVE", required = true)]
        moves: Vec<String>,
        /// Start position in kpe notation, or `initial`.
        #[arg(long, value_name = "POSITION", default_value = "initial", value_parser = parse_position)]
        from: Position,
        /// Rules profile.
        #[arg(long, value_name = "PROFILE", default_value = "default", value_parser = completed::profile(), hide_possible_values = true)]
        rules: Profile,
        /// Print the trace as one JSON object, of `"format": "kpe-play"`
        /// and `"version": 1`.
        #[arg(long)]
        json: bool,
    },
    /// Speak the kpe engine protocol (spec/PROTOCOL.md) on stdin and stdout
    /// with the reference rules: the reference engine for kpe-check.
    Engine {
        /// Play this profile whatever kpe-check asks for in its hello (to
        /// see how kpe-check names the reading of an engine that follows
        /// another one). By default the hello's profile is played.
        #[arg(long, value_name = "PROFILE", value_parser = completed::profile(), hide_possible_values = true)]
        rules: Option<Profile>,
        /// Misbehave on purpose, for testing kpe-check.
        #[arg(long, hide = true, value_parser = |s: &str| s.parse::<kpe::live::Fault>())]
        fault: Option<kpe::live::Fault>,
        /// With --rules: say in the hello that this is the one profile
        /// played (for testing kpe-check's profile matrix).
        #[arg(long, hide = true, requires = "rules")]
        announce: bool,
        /// Answer with a seeded rules bug, for testing kpe-check's diagnosis.
        #[arg(long, hide = true, value_parser = |s: &str| s.parse::<kpe::live::Bug>())]
        bug: Option<kpe::live::Bug>,
        /// Speak only this protocol version, as an engine written to it
        /// would (1 counts perft without the repetition rule). By default
        /// the version kpe-check asks for.
        #[arg(long, value_name = "VERSION",
              value_parser = clap::value_parser!(u32).range(i64::from(kpe::protocol::OLDEST_PROTOCOL)..=i64::from(kpe::protocol::PROTOCOL_VERSION)))]
        protocol: Option<u32>,
        /// With --protocol: answer `error` to a hello that offers another
        /// version or has a field that version's hello did not have, as an
        /// engine that followed protocol 1's text would.
        #[arg(long, requires = "protocol")]
        refuse_newer: bool,
        /// With --protocol 1: count perft under end-on-repetition with the
        /// repetition rule, as protocol 1's text said from 2026-12-01 (it
        /// first said without).
        #[arg(long, requires = "protocol")]
        perft_repetition: bool,
        /// Also answer `best` requests with a move of perfect play from the
        /// table under DIR (built by `kpe solve`; spec/SOLVE.md).
        #[arg(long)]
        perfect: bool,
        /// Where the tables are, for --perfect [default: $KPE_TABLES, else
        /// the user's cache folder: $XDG_CACHE_HOME/kpe or ~/.cache/kpe]
        #[arg(long, value_name = "DIR", default_value_os_t = tables_dir(), hide_default_value = true)]
        dir: std::path::PathBuf,
    },
    /// Solve every position after the opening lock by retrograde analysis:
    /// the margin best play forces, layer by layer up to STONES stones on
    /// the board, written to DIR/<class>/layer-NN.kpet (spec/SOLVE.md). An
    /// interrupted solve resumes after its last finished layer.
    Solve {
        /// Rules profile (any but end-on-repetition; profiles that differ
        /// only in strict-lock share a table).
        #[arg(long, value_name = "PROFILE", default_value = "default",
              value_parser = completed::profile(), hide_possible_values = true)]
        rules: Profile,
        /// Solve the positions with up to this many stones on the board.
        #[arg(long, default_value_t = 48, value_parser = clap::value_parser!(u8).range(0..=48))]
        stones: u8,
        /// Where the table goes [default: $KPE_TABLES, else the user's
        /// cache folder: $XDG_CACHE_HOME/kpe or ~/.cache/kpe]
        #[arg(long, value_name = "DIR", default_value_os_t = tables_dir(), hide_default_value = true)]
        dir: std::path::PathBuf,
        /// Threads [default: the number of cores], at most 256.
        #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(kpe::reporter::MAX_JOBS)))]
        jobs: Option<u32>,
        /// Solve the layers only, not the openings (which need every layer
        /// up to 48 stones).
        #[arg(long)]
        no_opening: bool,
    },
    /// The margin best play forces from a position, its best moves and a
    /// line of best play: from the table when it covers the position, else
    /// by a search down to it (spec/SOLVE.md).
    Value {
        /// A position in kpe notation, or `initial`.
        #[arg(value_parser = parse_position)]
        position: Position,
        /// Rules profile.
        #[arg(long, value_name = "PROFILE", default_value = "default",
              value_parser = completed::profile(), hide_possible_values = true)]
        rules: Profile,
        /// Where the tables are [default: $KPE_TABLES, else the user's
        /// cache folder: $XDG_CACHE_HOME/kpe or ~/.cache/kpe]
        #[arg(long, value_name = "DIR", default_value_os_t = tables_dir(), hide_default_value = true)]
        dir: std::path::PathBuf,
        /// Print the analysis as JSON.
        #[arg(long)]
        json: bool,
        /// Most seconds the search may take for a position the table does
        /// not cover.
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
        /// Deepest search, in plies.
        #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=200))]
        depth: u32,
    },
    /// Make the other value of one reading the default: flips its line in
    /// spec/default.yaml, renames the perft tables' profiles so they keep
    /// their trees, and lists the prose to reword. Run from the repository
    /// root (or give --root); running it twice undoes it. The files change
    /// together or not at all, under the lock .kpe-adopt.lock; after a run
    /// was stopped, --recover finishes or undoes it.
    Adopt {
        /// The reading: its ID, setting or switch name.
        #[arg(help = completed::reading_help(), required_unless_present = "recover", conflicts_with = "recover")]
        reading: Option<String>,
        /// The repository's root directory.
        #[arg(long, default_value = ".")]
        root: std::path::PathBuf,
        /// Finish or undo what a stopped `kpe adopt` started (its journal
        /// says which) and remove its lock.
        #[arg(long)]
        recover: bool,
    },
    /// What turning alternative readings on would change, from the
    /// reference rules with no code change (spec/DISPUTE.md): the
    /// conformance scenarios that answer differently, the smallest positions
    /// where the readings differ (as scenarios), how much it matters in
    /// seeded play, and where perft counts part.
    Dispute {
        /// The disputed readings, joined by commas.
        #[arg(value_name = "SWITCH[,SWITCH...]", value_parser = completed::switches(), hide_possible_values = true,
              help = completed::disputed_help())]
        switches: kpe::dispute::Disputed,
        /// `text` for people, or `json` (spec/dispute.schema.json).
        #[arg(long, value_enum, default_value = "text")]
        format: DisputeFormat,
        /// Also write a self-contained HTML page to FILE.
        #[arg(long, value_name = "FILE")]
        html: Option<std::path::PathBuf>,
        /// Seed of the random games (printed in the report).
        #[arg(long, default_value_t = kpe::dispute::Options::default().seed)]
        seed: u64,
        /// Games per strategy pairing and reading.
        #[arg(long, default_value_t = kpe::dispute::Options::default().games,
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=kpe::dispute::MAX_DISPUTE_GAMES as u64))]
        games: usize,
        /// Stop a game after this many plies, counted unfinished.
        #[arg(long, default_value_t = kpe::dispute::Options::default().max_plies,
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=kpe::dispute::MAX_DISPUTE_PLIES as u64))]
        max_plies: usize,
        /// Try positions with up to this many stones on the board.
        #[arg(long, default_value_t = kpe::dispute::Options::default().max_stones,
              value_parser = clap::value_parser!(u8).range(2..=48))]
        max_stones: u8,
        /// Longest line of moves searched when the reading depends on the
        /// game's history (end-on-repetition).
        #[arg(long, default_value_t = kpe::dispute::Options::default().max_line,
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=16))]
        max_line: usize,
        /// Most stones on the board of the start of such lines.
        #[arg(long, default_value_t = kpe::dispute::Options::default().line_stones,
              value_parser = clap::value_parser!(u8).range(2..=48))]
        line_stones: u8,
        /// How many smallest positions to show.
        #[arg(long, default_value_t = kpe::dispute::Options::default().examples,
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=kpe::dispute::MAX_DISPUTE_EXAMPLES as u64))]
        examples: usize,
        /// Compare perft counts up to this depth.
        #[arg(long, default_value_t = kpe::dispute::Options::default().perft_depth,
              value_parser = clap::value_parser!(u32).range(1..=16))]
        perft_depth: u32,
        /// Solve both readings' tables up to this many stones on the
        /// board for "with best play" (spec/SOLVE.md).
        #[arg(long, default_value_t = kpe::dispute::Options::default().solve_stones,
              value_parser = clap::value_parser!(u8).range(0..=24))]
        solve_stones: u8,
    },
    /// Check the conformance suite and print it: a summary, or with
    /// `--json` every scenario file and the perft tables as one JSON
    /// document (spec/suite.schema.json; see spec/SCENARIOS.md).
    Suite {
        /// Print the whole suite as one JSON document.
        #[arg(long)]
        json: bool,
        /// A suite directory (scenario files `*.yaml` and `perft.yaml`) to
        /// load instead of the suite built into kpe.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
    /// Print a shell completion script for kpe (bash, zsh, fish, elvish,
    /// powershell), rules profiles included: docs/GUIDE.md, "Shell
    /// completions", says where to put it.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

fn parse_position(text: &str) -> Result<Position, String> {
    if text == "initial" {
        return Ok(Position::initial());
    }
    text.parse().map_err(|e: kpe::PositionError| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Perft {
            depth,
            from,
            rules,
            divide,
            jobs,
        } => perft(&from, depth, rules, divide, jobs),
        Command::Show { position, rules } => {
            out!("{}", show(&position, rules).trim_end_matches('\n'));
            ExitCode::SUCCESS
        }
        Command::Play {
            moves,
            from,
            rules,
            json,
        } => play(&moves, from, rules, json),
        Command::Engine {
            rules,
            fault,
            announce,
            bug,
            protocol,
            refuse_newer,
            perft_repetition,
            perfect,
            dir,
        } => engine(
            kpe::live::ServeOptions {
                rules,
                fault,
                announce,
                bug,
                protocol,
                refuse_newer,
                perft_repetition,
            },
            perfect.then_some(dir.as_path()),
        ),
        Command::Solve {
            rules,
            stones,
            dir,
            jobs,
            no_opening,
        } => solve(rules, stones, dir, jobs, !no_opening),
        Command::Value {
            position,
            rules,
            dir,
            json,
            seconds,
            depth,
        } => value(&position, rules, &dir, json, seconds, depth),
        Command::Suite { json, dir } => suite(dir.as_deref(), json),
        Command::Completions { shell } => completions(shell),
        Command::Adopt {
            reading,
            root,
            recover,
        } => match reading {
            Some(reading) if !recover => adopt(&root, &reading),
            _ => adopt_recover(&root),
        },
        Command::Dispute {
            switches,
            format,
            html,
            seed,
            games,
            max_plies,
            max_stones,
            max_line,
            line_stones,
            examples,
            perft_depth,
            solve_stones,
        } => {
            let options = kpe::dispute::Options {
                seed,
                games,
                max_plies,
                max_stones,
                max_line,
                line_stones,
                examples,
                perft_depth,
                solve_stones,
            };
            dispute(switches.0, &options, format, html.as_deref())
        }
    }
}

/// `kpe perft`: the counts to each depth up to `depth`, or split by the
/// first move with `divide`.
fn perft(from: &Position, depth: u32, rules: Profile, divide: bool, jobs: Option<u32>) -> ExitCode {
    let jobs = jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
        |n| n as usize,
    );
    if divide {
        let split = kpe::divide(from, depth, rules);
        for (pit, n) in &split {
            out!("{pit} {n}");
        }
        out!("total {}", split.iter().map(|(_, n)| n).sum::<u64>());
    } else {
        for d in 1..=depth {
            out!("{d} {}", kpe::perft_jobs(from, d, rules, jobs));
        }
    }
    ExitCode::SUCCESS
}

/// `kpe completions SHELL`: the completion script on standard output.
fn completions(shell: clap_complete::Shell) -> ExitCode {
    use clap::CommandFactory as _;
    use std::io::Write as _;
    // Written in one piece, so that a closed pipe is an error to
    // handle rather than a panic inside clap_complete.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "kpe", &mut script);
    if let Err(e) = io::stdout().write_all(&script) {
        write_failed(e);
    }
    ExitCode::SUCCESS
}

/// `kpe adopt READING`: makes the other value of a reading the default.
fn adopt(root: &std::path::Path, reading: &str) -> ExitCode {
    match kpe::adopt::adopt(root, reading) {
        Ok(adoption) => {
            out!("{}", adoption.to_text().trim_end());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: kpe adopt: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// `kpe adopt --recover`: finishes or undoes a stopped `kpe adopt`.
fn adopt_recover(root: &std::path::Path) -> ExitCode {
    match kpe::adopt::recover(root) {
        Ok(recovery) => {
            out!("{}", recovery.to_text());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: kpe adopt --recover: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// The output formats of `kpe dispute`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum DisputeFormat {
    /// A report for people.
    Text,
    /// One JSON object (spec/dispute.schema.json).
    Json,
}

/// `kpe dispute`: compare the default with the default plus `switches`.
fn dispute(
    switches: Profile,
    options: &kpe::dispute::Options,
    format: DisputeFormat,
    html: Option<&std::path::Path>,
) -> ExitCode {
    // Checked before the work, as kpe-check checks its report files: a
    // FIFO, a device or a folder that cannot be written is refused now,
    // not waited on after the games are played.
    if let Some(path) = html
        && let Err(e) = kpe::reporter::check_outputs(&[], &[("--html", path)])
    {
        eprintln!("error: kpe dispute: {e}");
        return ExitCode::from(2);
    }
    let report = match kpe::dispute::dispute(switches, options) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: kpe dispute: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(path) = html
        && let Err(e) = kpe::reporter::write_atomically(path, report.to_html().as_bytes())
    {
        eprintln!("error: cannot write the HTML page: {e}");
        return ExitCode::from(2);
    }
    match format {
        DisputeFormat::Text => out!("{}", report.to_text().trim_end()),
        DisputeFormat::Json => match serde_json::to_string_pretty(&report) {
            Ok(text) => out!("{text}"),
            Err(e) => {
                eprintln!("error: cannot write the report as JSON: {e}");
                return ExitCode::FAILURE;
            }
        },
    }
    if let Some(path) = html {
        eprintln!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}

fn show(position: &Position, rules: Profile) -> String {
    let mut out = format!("{position}\n\n{}\n", position.diagram());
    let mover = position.to_move();
    out += &format!("{mover} to move (rules: {rules})\n");
    match game_over(position, rules) {
        Some(reason) => {
            let totals = kpe::sweep(position);
            out += &format!(
                "game over: {reason} ({}); after the sweep South {} - North {}\n",
                reason.rule(),
                totals[0],
                totals[1]
            );
        }
        None => {
            let moves: Vec<String> = legal_moves(position, rules)
                .iter()
                .map(ToString::to_string)
                .collect();
            out += &format!("legal moves: {}\n", moves.join(" "));
        }
    }
    for player in kpe::Player::BOTH {
        let state = if position.lock_open(player) {
            "unlocked: may capture (LOCK-1)".to_owned()
        } else {
            let unused: Vec<String> = player
                .pits()
                .iter()
                .filter(|p| !position.has_used(**p))
                .map(ToString::to_string)
                .collect();
            format!("locked until {} used (LOCK-1)", unused.join(", "))
        };
        out += &format!("{player}: {state}\n");
    }
    out
}

/// A move argument: a pit name, or 1..4 for the mover's own pit number.
fn parse_move(text: &str, position: &Position) -> Result<Pit, String> {
    if let Ok(n) = text.parse::<u8>() {
        return Pit::of(position.to_move(), n)
            .ok_or_else(|| format!("`{text}` is not a pit number: expected 1..4 or a pit name"));
    }
    text.parse::<Pit>().map_err(|e| e.to_string())
}

/// The `format` of `kpe play --json`'s object.
const PLAY_FORMAT: &str = "kpe-play";

/// The `version` of `kpe play --json`'s object (issue 44: before it, the
/// object had neither field; its meaning was this version's). Raised when
/// a field is added, removed or changes meaning.
const PLAY_VERSION: u32 = 1;

fn play(moves: &[String], from: Position, rules: Profile, json: bool) -> ExitCode {
    let mut game = Game::new(from, rules);
    let mut plies = Vec::new();
    let mut failure = None;
    if !json {
        out!("start {from} (rules: {rules})\n\n{}", from.diagram());
    }
    for (i, text) in moves.iter().enumerate() {
        let ply = i + 1;
        let before = *game.current();
        let pit = match parse_move(text, &before) {
            Ok(pit) => pit,
            Err(e) => {
                eprintln!("error: move {ply} (`{text}`): {e}");
                return ExitCode::from(2);
            }
        };
        match game.play(pit) {
            Ok(report) => {
                let report = report.clone();
                let after = *game.current();
                if json {
                    plies.push(serde_json::json!({
                        "ply": ply,
                        "before": before,
                        "report": report,
                        "rules": report.rules(),
                        "after": after,
                    }));
                } else {
                    out!("ply {ply}: {report}");
                    out!("  rules: {}", report.rules().join(" "));
                    out!("  {after}\n\n{}", after.diagram());
                }
            }
            Err(e) => {
                failure = Some(serde_json::json!({
                    "ply": ply,
                    "move": pit,
                    "position": e.position,
                    "reason": e.reason,
                    "rule": e.reason.rule(),
                    "message": e.to_string(),
                }));
                if !json {
                    eprintln!("error: ply {ply}: {e}");
                }
                break;
            }
        }
    }
    if json {
        let out = serde_json::json!({
            "format": PLAY_FORMAT,
            "version": PLAY_VERSION,
            "rules": rules,
            "start": from,
            "plies": plies,
            "outcome": game.outcome(),
            "error": failure,
        });
        out!("{out:#}");
    } else {
        out!("result: {}", game.outcome());
    }
    if failure.is_some() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `kpe suite`: load the suite, check every expectation against the
/// reference rules, then print it.
fn suite(dir: Option<&std::path::Path>, json: bool) -> ExitCode {
    let loaded = match dir {
        Some(dir) => kpe::scenario::Suite::load(dir),
        None => kpe::scenario::Suite::bundled(),
    };
    let suite = match loaded {
        Ok(suite) => suite,
        Err(errors) => {
            let place = dir.map_or_else(
                || "built into kpe".to_owned(),
                |d| format!("in {}", d.display()),
            );
            eprintln!("error: the suite {place} is not valid:\n{errors}");
            return ExitCode::from(2);
        }
    };
    let falsified = falsified(&suite, dir.is_none());
    if falsified > 0 {
        eprintln!(
            "error: {falsified} expectation(s) of the suite are not what the reference rules give"
        );
        return ExitCode::from(1);
    }
    if json {
        match serde_json::to_string_pretty(&suite.stamped()) {
            Ok(text) => out!("{text}"),
            Err(e) => {
                eprintln!("error: cannot write the suite as JSON: {e}");
                return ExitCode::FAILURE;
            }
        }
        return ExitCode::SUCCESS;
    }
    for file in &suite.files {
        out!(
            "{:<24} {:>4} scenarios  {}",
            file.file,
            file.scenarios.len(),
            file.topic
        );
    }
    if let Some(perft) = &suite.perft {
        out!(
            "{:<24} {:>4} tables",
            kpe::scenario::PERFT_FILE,
            perft.tables.len()
        );
    }
    out!(
        "{} scenarios in {} files",
        suite.scenarios().count(),
        suite.files.len()
    );
    ExitCode::SUCCESS
}

/// Checks every expectation of `suite` against the reference, each scenario
/// under each profile it admits and each perft count within a small budget,
/// printing those the reference falsifies; their number.
fn falsified(suite: &kpe::scenario::Suite, bundled: bool) -> usize {
    let mut falsified = 0;
    for file in &suite.files {
        for scenario in &file.scenarios {
            for profile in scenario.profiles() {
                use kpe::scenario::Subject as _;
                if let Err(failure) =
                    kpe::scenario::Reference::new().verify(&file.file, scenario, profile)
                {
                    eprintln!("error: {failure}");
                    falsified += 1;
                }
            }
        }
    }
    // A suite from a directory had its perft tables recounted as it was
    // loaded (a wrong count refuses it); the built-in one is recounted here.
    if bundled
        && let Some(perft) = &suite.perft
        && let Some((name, text)) = kpe::scenario::Suite::BUNDLED
            .iter()
            .find(|(name, _)| *name == kpe::scenario::PERFT_FILE)
    {
        let shown = format!("{}/{name}", kpe::scenario::Suite::BUNDLED_DIR);
        let errors =
            kpe::scenario::recount_perft(&shown, text, perft, kpe::scenario::PERFT_RECOUNT_BUDGET);
        for e in &errors.0 {
            eprintln!("error: {e}");
        }
        falsified += errors.0.len();
    }
    falsified
}

/// `kpe engine`: serve the protocol until `quit` or the end of the input;
/// with `perfect`, `best` requests are answered from the tables there.
fn engine(options: kpe::live::ServeOptions, perfect: Option<&std::path::Path>) -> ExitCode {
    let served = match perfect {
        Some(dir) => kpe::live::serve_perfect(
            std::io::stdin().lock(),
            std::io::stdout().lock(),
            options,
            dir,
        ),
        None => kpe::live::serve(std::io::stdin().lock(), std::io::stdout().lock(), options),
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: kpe engine: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `kpe solve`: build a table, one layer file at a time, with progress.
fn solve(
    rules: Profile,
    stones: u8,
    dir: std::path::PathBuf,
    jobs: Option<u32>,
    opening: bool,
) -> ExitCode {
    let class = match kpe::solve::Class::of(rules) {
        Ok(class) => class,
        Err(e) => {
            eprintln!("error: kpe solve: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(n) = jobs
        && let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n as usize)
            .build_global()
    {
        eprintln!("error: kpe solve: cannot start {n} threads: {e}");
        // Threads that did start may never be joined: leave at once.
        std::process::exit(2);
    }
    let options = kpe::solve::SolveOptions {
        class,
        max_stones: stones,
        dir,
    };
    let total: u64 = (0..=stones).step_by(2).map(kpe::solve::layer_size).sum();
    let bar = indicatif::ProgressBar::new(2 * total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {percent}% layer {msg}, eta {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    out!(
        "kpe solve: class {class} (covers {}), layers 0 to {} stones, in {}",
        class.covers().map(|p| p.to_string()).join(" and "),
        stones & !1,
        kpe::solve::file::class_dir(&options.dir, class).display()
    );
    let mut done_states = 0u64;
    let progress = |n: u64| bar.inc(n);
    let result = kpe::solve::solve(&options, &progress, &mut |layer| {
        done_states += layer.states;
        bar.set_position(2 * done_states);
        bar.set_message(format!("{}", layer.stones + 2));
        let line = layer_line(layer);
        bar.suspend(|| out!("{line}"));
    });
    bar.finish_and_clear();
    match result {
        Ok(layers) => {
            let solved = layers.iter().filter(|l| l.solved.is_some()).count();
            let elapsed = layers.last().map_or(0.0, |l| l.elapsed.as_secs_f64());
            out!(
                "done: {} layers ({solved} solved now, {} checked), {total} states, {elapsed:.1} s",
                layers.len(),
                layers.len() - solved
            );
        }
        Err(e) => {
            eprintln!("error: kpe solve: {e}");
            return ExitCode::from(3);
        }
    }
    if !opening {
        return ExitCode::SUCCESS;
    }
    if stones < 48 {
        out!(
            "openings: not solved: they stand on every layer up to 48 stones (this table stops at {})",
            stones & !1
        );
        return ExitCode::SUCCESS;
    }
    solve_openings(&options.dir, class)
}

/// About how many positions an opening holds (the default's, counted from
/// outside): the guide of the opening's estimated time left.
const EXPECTED_OPENING: u64 = 145_000_000;

/// The openings of `kpe solve`, with a line of progress every few seconds.
fn solve_openings(dir: &std::path::Path, class: kpe::solve::Class) -> ExitCode {
    let started = std::time::Instant::now();
    // The openings may be solved at once, one a thread: one line every ten
    // seconds between them.
    let last = std::sync::Mutex::new(started);
    let tick = |profile: Profile, n: u64| {
        let now = std::time::Instant::now();
        let mut last = last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if now.duration_since(*last).as_secs() >= 10 {
            *last = now;
            let secs = now.duration_since(started).as_secs_f64();
            let rate = n as f64 / secs.max(1e-9);
            // The default's opening, counted from outside, holds about
            // 145 M positions (spec/SOLVE.md): a guide, not a promise.
            let eta = (EXPECTED_OPENING.saturating_sub(n)) as f64 / rate.max(1.0);
            eprintln!(
                "opening {}: {n} positions valued, {rate:.0} per second, {secs:.0} s; eta about {eta:.0} s if it holds {EXPECTED_OPENING} as the default's does",
                kpe::Switch::StrictLock.assignment(profile),
            );
        }
    };
    let result = kpe::solve::solve_openings(dir, class, &tick, &|r| {
        let best: Vec<String> = r.summary.best.iter().map(ToString::to_string).collect();
        let how = r.solved.map_or_else(
            || "finished before (header and checksum checked)".to_owned(),
            |t| format!("solved in {:.1} s", t.as_secs_f64()),
        );
        out!(
            "opening {}: initial position worth {:+} for South, best {}; {} positions before the lock; {how}; {}",
            r.profile,
            r.summary.value,
            best.join(" "),
            r.summary.states,
            r.path.display()
        );
    });
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: kpe solve: {e}");
            ExitCode::from(3)
        }
    }
}

/// One line of `kpe solve` per layer.
fn layer_line(layer: &kpe::solve::LayerReport) -> String {
    let head = format!("layer {:>2}: {:>11} states", layer.stones, layer.states);
    let Some(s) = &layer.solved else {
        return format!("{head}, finished before (header and checksum checked)");
    };
    let pct = |n: u64| 100.0 * n as f64 / s.states.max(1) as f64;
    let eta = layer.eta().map_or_else(String::new, |eta| {
        format!(", eta {:.0} s", eta.as_secs_f64())
    });
    format!(
        "{head} in {:.2} s (forward {:.2} s, backward {:.2} s); won {:.1}% lost {:.1}% level {:.1}% endless {:.1}%; max depth {}{}; elapsed {:.1} s{eta}",
        (s.forward + s.backward).as_secs_f64(),
        s.forward.as_secs_f64(),
        s.backward.as_secs_f64(),
        pct(s.won),
        pct(s.lost),
        pct(s.level),
        pct(s.endless),
        s.max_depth,
        if s.saturated > 0 {
            format!(" ({} states past 254)", s.saturated)
        } else {
            String::new()
        },
        layer.elapsed.as_secs_f64()
    )
}

/// `kpe value`: the forced margin, best moves and a best line.
fn value(
    position: &Position,
    rules: Profile,
    dir: &std::path::Path,
    json: bool,
    seconds: f64,
    depth: u32,
) -> ExitCode {
    let class = match kpe::solve::Class::of(rules) {
        Ok(class) => class,
        Err(e) => {
            eprintln!("error: kpe value: {e}");
            return ExitCode::from(2);
        }
    };
    let Ok(time) = std::time::Duration::try_from_secs_f64(seconds) else {
        eprintln!(
            "error: kpe value: --seconds {seconds} is not a duration: expected seconds, 0 or more"
        );
        return ExitCode::from(2);
    };
    let table = match kpe::solve::Table::open(dir, class) {
        Ok(table) => table,
        Err(e) => {
            eprintln!("error: kpe value: {e}");
            return ExitCode::from(3);
        }
    };
    if table.max_stones().is_none() {
        eprintln!(
            "error: kpe value: no table of {class} in {}: expected {} (build it with `kpe solve --rules {rules}`)",
            dir.display(),
            kpe::solve::file::layer_path(dir, class, 0).display()
        );
        return ExitCode::from(3);
    }
    let budget = kpe::solve::Budget {
        max_depth: depth,
        time,
    };
    match kpe::solve::analyse(&table, position, rules, budget) {
        Ok(analysis) if json => match serde_json::to_string_pretty(&analysis) {
            Ok(text) => {
                out!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: cannot write the analysis as JSON: {e}");
                ExitCode::FAILURE
            }
        },
        Ok(analysis) => {
            out!("{}", analysis.to_text().trim_end());
            ExitCode::SUCCESS
        }
        Err(kpe::solve::ValueError::Table(e)) => {
            eprintln!("error: kpe value: {e}");
            ExitCode::from(3)
        }
        Err(e) => {
            eprintln!("error: kpe value: {e}");
            ExitCode::from(2)
        }
    }
}

/// The tables' folder when `--dir` is not given: `KPE_TABLES`, else the
/// user's cache folder ([`kpe::solve::tables_dir`]).
fn tables_dir() -> std::path::PathBuf {
    kpe::solve::tables_dir(|name| std::env::var_os(name))
}
