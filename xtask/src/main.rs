//! `cargo xtask regen`: regenerate every generated file of the repository
//! in one command, then print what changed (`git status --short`).
//!
//! Each generated file is written by the test that checks it, when an
//! update variable is set; without it (and under `CI=true`, as `.ci/run`
//! runs `cargo test`) that test fails on a stale file. This command runs
//! those tests with the variables set, in an order where no generator
//! reads a file a later one writes:
//!
//! 1. the perft tables (`conformance/perft.yaml`, the fixtures' copy and
//!    the example of `spec/SCENARIOS.md`), recounted by the reference rules
//!    at full depth in a release build (`UPDATE_PERFT`);
//! 2. the JSON Schemas of `spec/`, `spec/TRACEABILITY.md` and the table
//!    of the value of Kpé in `spec/SOLVE.md` (`UPDATE_SCHEMAS`,
//!    `UPDATE_TRACEABILITY`, `UPDATE_SOLVED`), one test at a time so that
//!    no test reads a schema while another writes it;
//! 3. the whole `cargo test` with insta's `INSTA_UPDATE=always`, which
//!    rewrites every snapshot whose output changed and checks everything
//!    else against the files just written.
//!
//! `--screenshots` also writes `spec/img/kpe-check-report.png`
//! (`UPDATE_SCREENSHOTS`; needs `chromium`, and a picture differs from one
//! machine to the next, so it is never part of the default run).
//!
//! Exit status: 0 when every step passed, 1 when a step failed (its
//! output says which test), 2 on a bad command line.

use std::process::{Command, ExitCode};

/// Every update variable a test under `tests/` reads, with what it writes.
/// `tests/regen.rs` fails when a test reads an `UPDATE_*` variable missing
/// here, so a new generator cannot be forgotten by this command.
const UPDATE_VARIABLES: &[(&str, &str)] = &[
    ("UPDATE_PERFT", "the perft tables' node counts"),
    ("UPDATE_SCHEMAS", "the JSON Schemas spec/*.schema.json"),
    ("UPDATE_TRACEABILITY", "spec/TRACEABILITY.md"),
    (
        "UPDATE_SOLVED",
        "spec/SOLVE.md's table of the value of Kpé, from spec/solved.yaml",
    ),
    (
        "UPDATE_SCREENSHOTS",
        "spec/img/kpe-check-report.png (--screenshots only)",
    ),
];

/// One `cargo` run of a regeneration.
struct Step {
    /// What the step regenerates, printed before it runs.
    what: &'static str,
    /// The arguments after `cargo`.
    args: &'static [&'static str],
    /// The variables set to `1` (or insta's `always`) for it.
    env: &'static [(&'static str, &'static str)],
}

const STEPS: &[Step] = &[
    Step {
        what: "perft tables (release build, full depth)",
        args: &[
            "test",
            "--release",
            "--test",
            "conformance",
            "--",
            "--ignored",
            "--exact",
            "perft_tables_hold_at_every_depth",
        ],
        env: &[("UPDATE_PERFT", "1")],
    },
    Step {
        what: "JSON Schemas and the traceability table",
        args: &[
            "test",
            "--test",
            "report",
            "--test",
            "live",
            "--test",
            "dispute",
            "--test",
            "conformance",
            "--test",
            "check_cli",
            "--test",
            "traceability",
            "--test",
            "solved",
            "--",
            "--test-threads=1",
            "schema",
            "the_committed_table_is_current",
            "the_value_table_of_solve_md_is_current",
        ],
        env: &[
            ("UPDATE_SCHEMAS", "1"),
            ("UPDATE_TRACEABILITY", "1"),
            ("UPDATE_SOLVED", "1"),
        ],
    },
    Step {
        what: "insta snapshots (the whole test suite)",
        args: &["test", "--no-fail-fast"],
        env: &[("INSTA_UPDATE", "always")],
    },
];

const SCREENSHOTS: Step = Step {
    what: "the report screenshot (needs chromium)",
    args: &[
        "test",
        "--test",
        "report_html",
        "--",
        "the_page_renders_in_headless_chromium",
    ],
    env: &[("UPDATE_SCREENSHOTS", "1")],
};

const USAGE: &str = "usage: cargo xtask regen [--screenshots]

  regen          regenerate every generated file (perft tables, JSON Schemas,
                 spec/TRACEABILITY.md, insta snapshots), then print
                 `git status --short`; review the diff before committing
  --screenshots  also rewrite spec/img/kpe-check-report.png (needs chromium)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut screenshots = false;
    match args.first().map(String::as_str) {
        Some("regen") => {}
        Some("-h" | "--help") => {
            println!("{USAGE}\n\nupdate variables the tests read:");
            for (name, writes) in UPDATE_VARIABLES {
                println!("  {name:<20} {writes}");
            }
            return ExitCode::SUCCESS;
        }
        other => {
            eprintln!(
                "xtask: {}\n{USAGE}",
                match other {
                    Some(command) => format!("unknown command `{command}`"),
                    None => "no command given".to_owned(),
                }
            );
            return ExitCode::from(2);
        }
    }
    for arg in &args[1..] {
        match arg.as_str() {
            "--screenshots" => screenshots = true,
            other => {
                eprintln!("xtask regen: unknown option `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    // The repository root: this package's parent directory.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ lies in the repository");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut failed = Vec::new();
    let steps = STEPS.iter().chain(screenshots.then_some(&SCREENSHOTS));
    for step in steps {
        eprintln!("xtask regen: {}: cargo {}", step.what, step.args.join(" "));
        let mut command = Command::new(&cargo);
        command.current_dir(root).args(step.args);
        // Under CI=true insta never writes a snapshot: a regeneration is
        // never a CI run.
        command.env_remove("CI");
        for (name, value) in step.env {
            command.env(name, value);
        }
        match command.status() {
            Ok(status) if status.success() => {}
            Ok(status) => failed.push(format!("{} ({status})", step.what)),
            Err(e) => failed.push(format!("{} (cargo did not start: {e})", step.what)),
        }
    }
    eprintln!("xtask regen: changed files (git status --short):");
    let status = Command::new("git")
        .current_dir(root)
        .args(["status", "--short"])
        .status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("xtask regen: `git status` failed");
    }
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        for step in &failed {
            eprintln!("xtask regen: FAILED: {step}");
        }
        ExitCode::FAILURE
    }
}
