//! Traceability: every rule ID of `spec/RULES.md` is exercised by some
//! scenario of `conformance/`, every ID a scenario cites exists, and the
//! table `spec/TRACEABILITY.md` (rule ID → scenarios) is current.
//!
//! Regenerate the table with
//! `UPDATE_TRACEABILITY=1 cargo test --test traceability` and commit it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use kpe::Switch;
use kpe::scenario::{Suite, parse_rule_ids};

const TABLE: &str = "spec/TRACEABILITY.md";

fn rules_md() -> Vec<String> {
    let text = std::fs::read_to_string("spec/RULES.md").expect("spec/RULES.md is readable");
    parse_rule_ids(&text)
}

fn suite(dir: &str) -> Suite {
    Suite::load(Path::new(dir)).unwrap_or_else(|e| panic!("the suite in {dir} does not load:\n{e}"))
}

/// Each rule ID with the ids of the scenarios that cite it, in spec order.
fn coverage<'a>(rules: &'a [String], suite: &'a Suite) -> Vec<(&'a str, Vec<&'a str>)> {
    rules
        .iter()
        .map(|rule| {
            let ids = suite
                .scenarios()
                .filter(|(_, s)| s.rules.contains(rule))
                .map(|(_, s)| s.id.as_str())
                .collect();
            (rule.as_str(), ids)
        })
        .collect()
}

/// What is wrong with the tracing: rules with no scenario, and cited IDs
/// that are not rules.
fn problems(rules: &[String], suite: &Suite) -> Vec<String> {
    let mut out = Vec::new();
    for (rule, ids) in coverage(rules, suite) {
        if ids.is_empty() {
            out.push(format!("rule {rule} of spec/RULES.md has no scenario"));
        }
    }
    for (file, scenario) in suite.scenarios() {
        for id in &scenario.rules {
            if !rules.contains(id) {
                out.push(format!(
                    "{file}: scenario `{}` cites `{id}`, which is not a rule ID of spec/RULES.md",
                    scenario.id
                ));
            }
        }
    }
    out
}

/// The readings each scenario is pinned to, counted per side.
fn pinned(suite: &Suite) -> BTreeMap<Switch, [Vec<&str>; 2]> {
    let mut out: BTreeMap<Switch, [Vec<&str>; 2]> = Switch::ALL
        .iter()
        .map(|&s| (s, [Vec::new(), Vec::new()]))
        .collect();
    for (_, scenario) in suite.scenarios() {
        for (switch, &on) in &scenario.when {
            if let Some(sides) = out.get_mut(&switch.0) {
                sides[usize::from(on)].push(&scenario.id);
            }
        }
    }
    out
}

/// The text of spec/TRACEABILITY.md.
fn table(rules: &[String], suite: &Suite) -> String {
    let scenarios = suite.scenarios().count();
    let mut out = String::from(
        "# Traceability: rule IDs and the scenarios that exercise them\n\n\
         Generated from `spec/RULES.md` and `conformance/*.yaml` by\n\
         `tests/traceability.rs`; do not edit by hand. After changing either,\n\
         regenerate it with `UPDATE_TRACEABILITY=1 cargo test --test traceability`\n\
         and commit it (the test fails while it is out of date).\n\n",
    );
    let _ = writeln!(
        out,
        "{} rule IDs, {} scenarios in {} files.\n",
        rules.len(),
        scenarios,
        suite.files.len()
    );
    out += "| rule | scenarios | scenario ids |\n|---|---:|---|\n";
    for (rule, ids) in coverage(rules, suite) {
        let list: Vec<String> = ids.iter().map(|id| format!("`{id}`")).collect();
        let _ = writeln!(out, "| {rule} | {} | {} |", ids.len(), list.join(", "));
    }
    out += "\n## Readings\n\n\
            Scenarios pinned to one side of a reading with `when` (the others hold\n\
            under every reading).\n\n\
            | reading | switch | pinned to the default | pinned to the alternative |\n|---|---|---:|---:|\n";
    for (switch, [off, on]) in pinned(suite) {
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} |",
            switch.reading(),
            switch.name(),
            off.len(),
            on.len()
        );
    }
    out += "\n## Scenarios per file\n\n| file | topic | scenarios |\n|---|---|---:|\n";
    for file in &suite.files {
        let _ = writeln!(
            out,
            "| `conformance/{}` | {} | {} |",
            file.file,
            file.topic,
            file.scenarios.len()
        );
    }
    out
}

#[test]
fn every_rule_has_a_scenario_and_every_cited_id_is_a_rule() {
    let rules = rules_md();
    assert!(rules.len() >= 20, "spec/RULES.md lists only {rules:?}");
    let problems = problems(&rules, &suite("conformance"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_committed_table_is_current() {
    let text = table(&rules_md(), &suite("conformance"));
    let committed = std::fs::read_to_string(TABLE).unwrap_or_default();
    if committed == text {
        return;
    }
    if std::env::var_os("UPDATE_TRACEABILITY").is_some_and(|v| v == "1") {
        std::fs::write(TABLE, &text).expect("spec/TRACEABILITY.md is writable");
        return;
    }
    panic!(
        "{TABLE} is out of date:\n{}\nregenerate it with `UPDATE_TRACEABILITY=1 cargo test --test traceability` and commit it",
        pretty_assertions::StrComparison::new(&committed, &text)
    );
}

#[test]
fn missing_and_unknown_rules_are_reported() {
    // The fixture suite against a rule list with one rule it never cites
    // and without one it does.
    let suite = suite("tests/fixtures/scenarios/good");
    let mut rules: Vec<String> = suite
        .scenarios()
        .flat_map(|(_, s)| s.rules.iter().cloned())
        .collect();
    rules.sort();
    rules.dedup();
    assert!(problems(&rules, &suite).is_empty());
    rules.retain(|r| r != "MOVE-1");
    rules.push("CAP-9".to_owned());
    assert_eq!(
        problems(&rules, &suite),
        [
            "rule CAP-9 of spec/RULES.md has no scenario",
            "basics.yaml: scenario `opponent-pit-refused` cites `MOVE-1`, which is not a rule ID of spec/RULES.md",
        ]
    );
    let text = table(&rules, &suite);
    assert!(text.contains("| CAP-9 | 0 |  |\n"), "{text}");
    assert!(
        text.contains(
            "| SOW-4 | 2 | `eight-stones-sow-the-origin`, `eight-stones-skip-the-origin` |\n"
        ),
        "{text}"
    );
    assert!(text.contains("| I1 | `skip-origin` | 1 | 1 |\n"), "{text}");
    assert!(
        text.contains("| I5 | `end-on-repetition` | 1 | 1 |\n"),
        "{text}"
    );
}

/// spec/RULES.md, "Deliberate copies of the rules": every copy it lists is a
/// file of the repository, and the test it names exists in the repository,
/// so the list cannot name a copy or a test that has gone.
#[test]
fn the_listed_copies_of_the_rules_and_their_tests_exist() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = std::fs::read_to_string(root.join("spec/RULES.md")).unwrap();
    let section = rules
        .split("## Deliberate copies of the rules")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the section");
    let rows: Vec<&str> = section.lines().filter(|l| l.starts_with("| `")).collect();
    assert!(rows.len() >= 4, "{section}");
    let sources: String = ["src", "tests", "examples"]
        .iter()
        .flat_map(|d| walk(&root.join(d)))
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    for row in rows {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
        let file = cells[0].split('`').nth(1).unwrap();
        assert!(root.join(file).is_file(), "{file} is listed but absent");
        let test = cells[2].split('`').nth(1).unwrap();
        assert!(
            sources.contains(&format!("fn {test}(")),
            "{file}: no test `{test}`"
        );
    }
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
