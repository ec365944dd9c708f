//! `cargo xtask regen` (xtask/src/main.rs) regenerates every generated
//! file: this test reads every `UPDATE_*` variable the sources read and
//! fails when the xtask does not set it, or does not run the test file
//! that reads it, so the list of generators cannot drift from the tests.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `UPDATE_*` variables `text` reads through `std::env`.
fn update_variables(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for call in ["var_os(\"", "var(\""] {
        for (at, _) in text.match_indices(call) {
            let name: String = text[at + call.len()..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if name.starts_with("UPDATE_") {
                found.insert(name);
            }
        }
    }
    found
}

/// The string literals of `text`, in order (no escapes in the xtask's).
fn literals(text: &str) -> Vec<&str> {
    text.split('"').skip(1).step_by(2).collect()
}

/// One `Step { .. }` of the xtask, as the variables it sets and the test
/// files (`--test NAME`) it runs; `None` for the files when it runs them all.
struct Step {
    env: BTreeSet<String>,
    tests: Option<BTreeSet<String>>,
}

fn xtask_steps(source: &str) -> Vec<Step> {
    source
        .split("Step {")
        .skip(1)
        .filter(|block| block.contains("what: \""))
        .map(|block| {
            let block = &block[..block.find("\n    }").unwrap_or(block.len())];
            let lits = literals(block);
            let env = lits
                .iter()
                .filter(|l| l.starts_with("UPDATE_") || **l == "INSTA_UPDATE")
                .map(|l| l.to_string())
                .collect();
            let tests: BTreeSet<String> = lits
                .windows(2)
                .filter(|w| w[0] == "--test")
                .map(|w| w[1].to_owned())
                .collect();
            Step {
                env,
                tests: (!tests.is_empty()).then_some(tests),
            }
        })
        .collect()
}

#[test]
fn every_update_variable_a_test_reads_is_set_by_cargo_xtask_regen() {
    let xtask = fs::read_to_string(root().join("xtask/src/main.rs")).expect("xtask/src/main.rs");
    let steps = xtask_steps(&xtask);
    assert!(
        steps.len() >= 3,
        "the xtask's steps were not found: the parsing here is stale"
    );
    let mut files = Vec::new();
    for dir in ["tests", "src", "benches", "examples"] {
        rust_files(&root().join(dir), &mut files);
    }
    let mut seen = BTreeSet::new();
    let mut missing = Vec::new();
    for file in &files {
        if file.ends_with("tests/regen.rs") {
            continue;
        }
        let text = fs::read_to_string(file).unwrap();
        let rel = file.strip_prefix(root()).unwrap();
        for var in update_variables(&text) {
            seen.insert(var.clone());
            let runs_this_file = |step: &Step| match &step.tests {
                None => true,
                Some(tests) => {
                    rel.parent() == Some(Path::new("tests"))
                        && tests.contains(rel.file_stem().unwrap().to_str().unwrap())
                }
            };
            if !steps
                .iter()
                .any(|s| s.env.contains(&var) && runs_this_file(s))
            {
                missing.push(format!(
                    "{} reads {var}, but no step of `cargo xtask regen` sets it and runs that file",
                    rel.display()
                ));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "{}\nadd it to xtask/src/main.rs",
        missing.join("\n")
    );
    // The finder itself: the generators known when this test was written.
    for known in ["UPDATE_SCHEMAS", "UPDATE_TRACEABILITY", "UPDATE_PERFT"] {
        assert!(
            seen.contains(known),
            "{known} was not found in any test: is the scan broken?"
        );
    }
    // insta writes snapshots only when told: some step runs every test so.
    assert!(
        steps
            .iter()
            .any(|s| s.tests.is_none() && s.env.contains("INSTA_UPDATE")),
        "no step of `cargo xtask regen` runs the whole suite with INSTA_UPDATE"
    );
    // And the list the xtask documents (`cargo xtask --help`) names them all.
    let listed: BTreeSet<&str> = xtask
        .split("UPDATE_VARIABLES: &[(&str, &str)] = &[")
        .nth(1)
        .and_then(|rest| rest.split("];").next())
        .map(|list| {
            literals(list)
                .into_iter()
                .filter(|l| l.starts_with("UPDATE_"))
                .collect()
        })
        .expect("UPDATE_VARIABLES in xtask/src/main.rs");
    let unlisted: Vec<&String> = seen
        .iter()
        .filter(|v| !listed.contains(v.as_str()))
        .collect();
    assert!(
        unlisted.is_empty(),
        "UPDATE_VARIABLES does not list {unlisted:?}"
    );
}

#[test]
fn the_finder_reads_both_spellings_and_nothing_else() {
    let text = r#"std::env::var_os("UPDATE_A").is_some(); env::var("UPDATE_B_2"); var_os("CI"); "UPDATE_C""#;
    let found: Vec<String> = update_variables(text).into_iter().collect();
    assert_eq!(found, ["UPDATE_A", "UPDATE_B_2"]);
}

#[test]
fn a_step_without_test_files_runs_them_all() {
    let source = r#"
    Step {
        what: "x",
        args: &["test", "--test", "a", "--test", "b"],
        env: &[("UPDATE_X", "1")],
    },
    Step {
        what: "y",
        args: &["test"],
        env: &[("INSTA_UPDATE", "always")],
    },
"#;
    let steps = xtask_steps(source);
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0].tests.as_ref().unwrap().len(), 2);
    assert!(steps[0].env.contains("UPDATE_X"));
    assert!(steps[1].tests.is_none() && steps[1].env.contains("INSTA_UPDATE"));
}
