//! `kpe`: look at Kpé positions, play moves and count move trees with the
//! reference rules.
//!
//! Exit codes: 0 success, 1 a move in `kpe play` was illegal, 2 bad arguments.

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
     ply, the move, the reason code and the rule)
  2  bad arguments (the message names the argument and, for a position, the
     column), or output that cannot be written";

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
        /// Rules profile: `default` or switches joined by commas
        /// (skip-origin, strict-lock, feed-after-capture, end-when-unfeedable,
        /// end-on-repetition).
        #[arg(long, value_name = "PROFILE", default_value = "default", value_parser = completed::profile(), hide_possible_values = true)]
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
        /// Print the trace as JSON.
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
    },
    /// What turning alternative readings on would change, from the
    /// reference rules with no code change (spec/DISPUTE.md): the
    /// conformance scenarios that answer differently, the smallest positions
    /// where the readings differ (as scenarios), how much it matters in
    /// seeded play, and where perft counts part.
    Dispute {
        /// The disputed switches, joined by commas: skip-origin,
        /// strict-lock, feed-after-capture, end-when-unfeedable,
        /// end-on-repetition. They are compared with the default profile.
        #[arg(value_name = "SWITCH[,SWITCH...]", value_parser = completed::switches(), hide_possible_values = true)]
        switches: Profile,
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
        #[arg(long, default_value_t = kpe::dispute::Options::default().games)]
        games: usize,
        /// Stop a game after this many plies, counted unfinished.
        #[arg(long, default_value_t = kpe::dispute::Options::default().max_plies)]
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
        #[arg(long, default_value_t = kpe::dispute::Options::default().examples)]
        examples: usize,
        /// Compare perft counts up to this depth.
        #[arg(long, default_value_t = kpe::dispute::Options::default().perft_depth,
              value_parser = clap::value_parser!(u32).range(1..=16))]
        perft_depth: u32,
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
    /// powershell), rules profiles included: see the README for where to
    /// put it.
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
        } => {
            let jobs = jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
                |n| n as usize,
            );
            if divide {
                let split = kpe::divide(&from, depth, rules);
                for (pit, n) in &split {
                    out!("{pit} {n}");
                }
                out!("total {}", split.iter().map(|(_, n)| n).sum::<u64>());
            } else {
                for d in 1..=depth {
                    out!("{d} {}", kpe::perft_jobs(&from, d, rules, jobs));
                }
            }
            ExitCode::SUCCESS
        }
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
        } => engine(kpe::live::ServeOptions {
            rules,
            fault,
            announce,
            bug,
            protocol,
        }),
        Command::Suite { json, dir } => suite(dir.as_deref(), json),
        Command::Completions { shell } => {
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
            };
            dispute(switches, &options, format, html.as_deref())
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
    let report = match kpe::dispute::dispute(switches, options) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: kpe dispute: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(path) = html
        && let Err(e) = std::fs::write(path, report.to_html())
    {
        eprintln!(
            "error: cannot write the HTML page to {}: {e}",
            path.display()
        );
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

/// `kpe suite`: load and check the suite, then print it.
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

/// `kpe engine`: serve the protocol until `quit` or the end of the input.
fn engine(options: kpe::live::ServeOptions) -> ExitCode {
    match kpe::live::serve(std::io::stdin().lock(), std::io::stdout().lock(), options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: kpe engine: {e}");
            ExitCode::FAILURE
        }
    }
}
