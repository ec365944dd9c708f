//! The report model as outsiders see it (issue 8): four verdicts and their
//! exit codes in every format, the summary first, groups, selection
//! (`--list`, `--only`, `--skip`, `--expect-fail`, `--max-failures`), the
//! JSON report against its committed schema, JUnit in the shape of
//! Jenkins' junit-10.xsd, the protocol schema on every line of the example
//! session, shards merged into the unsharded report, and `--profiles`.
//!
//! Regenerate `spec/report.schema.json` with
//! `UPDATE_SCHEMAS=1 cargo test --test report schema`.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};

#[path = "common/schema.rs"]
mod schema;
use schema::valid_report;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn kpe() -> &'static str {
    env!("CARGO_BIN_EXE_kpe")
}

fn kpe_check() -> Command {
    let mut cmd = Command::cargo_bin("kpe-check").expect("the kpe-check binary is built");
    cmd.current_dir(root());
    for var in [
        "NO_COLOR",
        "CLICOLOR_FORCE",
        "KPE_CHECK_SUITE",
        "KPE_CHECK_SEED",
        "KPE_CHECK_GAMES",
        "KPE_CHECK_PERFT_DEPTH",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// A manifest for `kpe engine` with `args`, written in `dir`.
fn manifest(dir: &Path, name: &str, args: &[&str], extra: Value) -> PathBuf {
    let mut command = vec![kpe().to_owned(), "engine".to_owned()];
    command.extend(args.iter().map(|a| (*a).to_owned()));
    let mut m = json!({
        "format": "kpe-engine", "version": 1, "command": command,
        "timeouts": {"start_ms": 10000, "request_ms": 10000},
        "random": {"games": 20, "max_plies": 120, "seed": 11},
        "perft": {"max_depth": 3, "max_nodes": 1000},
    });
    if let (Some(m), Some(extra)) = (m.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            m.insert(k.clone(), v.clone());
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, m.to_string()).unwrap();
    path
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("kpe-check runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn schema_is_committed_and_current() {
    let path = root().join("spec/report.schema.json");
    let schema = kpe::reporter::report_schema();
    if std::env::var_os("UPDATE_SCHEMAS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &schema).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == schema,
        "spec/report.schema.json is out of date: regenerate with `UPDATE_SCHEMAS=1 cargo test --test report schema` and commit"
    );
}

#[test]
fn a_conforming_engine_gets_a_short_report_with_the_verdict_first() {
    let dir = tempfile::tempdir().unwrap();
    let good = manifest(dir.path(), "good.json", &[], json!({}));
    let (code, out, err) = run(kpe_check().arg(&good).arg("--color=never"));
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() <= 20, "{} lines:\n{out}", lines.len());
    assert!(lines[1].contains("verdict   CONFORMS (exit 0)"), "{out}");
    assert!(
        out.contains("skipped: "),
        "skips are counted with their reasons: {out}"
    );
    assert!(
        !out.contains("✓"),
        "passes are listed only with --verbose: {out}"
    );

    let (code, quiet, _) = run(kpe_check().arg(&good).args(["--color=never", "-q"]));
    assert_eq!(code, 0);
    assert_eq!(quiet.lines().count(), 1, "{quiet}");
    assert!(quiet.contains("CONFORMS (exit 0)"), "{quiet}");

    let (_, verbose, _) = run(kpe_check().arg(&good).args(["--color=never", "--verbose"]));
    assert!(verbose.contains("✓ scenario sow-"), "{verbose}");
    assert!(
        verbose.contains("skipped: pinned to readings other than default"),
        "{verbose}"
    );
}

#[test]
fn a_buggy_engine_gets_its_verdict_on_top_and_its_divergences_grouped() {
    let dir = tempfile::tempdir().unwrap();
    let bad = manifest(
        dir.path(),
        "bad.json",
        &["--fault", "capture-own-row"],
        json!({}),
    );
    let (code, out, err) = run(kpe_check().arg(&bad).arg("--color=never"));
    assert_eq!(code, 1, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() <= 200, "{} lines", lines.len());
    let head = lines[..15].join("\n");
    assert!(head.contains("verdict   DIVERGES (exit 1)"), "{head}");
    assert!(head.contains("broken") && head.contains("CAP-3"), "{head}");
    assert!(head.contains("reading"), "{head}");
    assert!(
        out.contains("groups of failing units") || out.contains("1 group of failing units"),
        "{out}"
    );
    assert!(out.contains("the smallest example:"), "{out}");
    assert!(
        out.contains("  also  "),
        "the other units of a group are listed by id: {out}"
    );

    let (code, json, _) = run(kpe_check().arg(&bad).args(["--format", "json"]));
    assert_eq!(code, 1);
    let report = valid_report(json.as_bytes());
    assert_eq!(report["verdict"], "diverges");
    assert_eq!(report["exit_code"], 1);
    let groups = report["groups"].as_array().unwrap();
    assert!(!groups.is_empty());
    let total: u64 = groups.iter().map(|g| g["count"].as_u64().unwrap()).sum();
    assert_eq!(total, report["summary"]["diverging"].as_u64().unwrap());
    assert!(
        report["units"]
            .as_array()
            .unwrap()
            .iter()
            .all(|u| u["time"].is_number())
    );
}

#[test]
fn an_engine_that_exits_at_once_is_errored_exit_3_with_a_junit_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gone.json");
    std::fs::write(
        &path,
        json!({"format": "kpe-engine", "version": 1, "command": ["sh", "-c", "exit 0"],
               "random": {"games": 3, "seed": 1}, "perft": {"max_depth": 1}})
        .to_string(),
    )
    .unwrap();
    let junit = dir.path().join("report.xml");
    let (code, out, err) = run(kpe_check()
        .arg(&path)
        .arg("--junit")
        .arg(&junit)
        .arg("--color=never"));
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("ERRORED (exit 3)"), "{out}");
    assert!(
        !out.contains("expected by the rules"),
        "an engine error is not a divergence: {out}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<error "), "{xml}");
    assert!(!xml.contains("<failure"), "{xml}");
    check_junit_structure(&xml);

    let (code, json, _) = run(kpe_check().arg(&path).args(["--format", "json"]));
    assert_eq!(code, 3);
    let report = valid_report(json.as_bytes());
    assert_eq!(report["verdict"], "errored");
    assert!(report["summary"]["errored"].as_u64().unwrap() >= 1);
}

#[test]
fn list_only_skip_select_units_without_starting_the_engine() {
    let dir = tempfile::tempdir().unwrap();
    // The command does not exist: --list must not start it.
    let path = dir.path().join("nowhere.json");
    std::fs::write(
        &path,
        json!({"format": "kpe-engine", "version": 1, "command": ["/nonexistent/engine"],
               "random": {"games": 2, "seed": 1}, "perft": {"max_depth": 2}})
        .to_string(),
    )
    .unwrap();
    let (code, out, err) = run(kpe_check().arg(&path).arg("--list"));
    assert_eq!(code, 0, "{err}");
    let ids: Vec<&str> = out.lines().collect();
    assert!(ids.contains(&"sow-first-move-s1"), "{out}");
    assert!(ids.contains(&"perft/initial/2"), "{out}");
    assert!(ids.contains(&"random/1"), "{out}");
    assert!(
        !ids.iter().any(|i| i.starts_with("bad-")),
        "invalid starts are not listed"
    );

    let (_, caps, _) = run(kpe_check().arg(&path).args(["--list", "--only", "cap-*"]));
    assert!(!caps.is_empty());
    assert!(caps.lines().all(|id| id.starts_with("cap-")), "{caps}");
    let (_, rule, _) = run(kpe_check().arg(&path).args(["--list", "--only", "CAP-2"]));
    assert!(rule.lines().count() > 3);
    assert!(!rule.contains("random/"), "{rule}");
    let (_, skipped, _) =
        run(kpe_check()
            .arg(&path)
            .args(["--list", "--only", "cap-*", "--skip", "cap-north-*"]));
    assert!(
        skipped
            .lines()
            .all(|id| id.starts_with("cap-") && !id.starts_with("cap-north-")),
        "{skipped}"
    );
    assert!(skipped.lines().count() < caps.lines().count());
    let (code, none, err) = run(kpe_check()
        .arg(&path)
        .args(["--list", "--only", "no-such-unit"]));
    assert_eq!((code, none.as_str()), (4, ""), "{err}");
}

#[test]
fn a_run_that_checks_nothing_is_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let good = manifest(dir.path(), "good.json", &[], json!({}));
    let (code, out, _) =
        run(kpe_check()
            .arg(&good)
            .args(["--only", "no-such-unit", "--color=never"]));
    assert_eq!(code, 4, "{out}");
    assert!(out.contains("NOTHING-CHECKED (exit 4)"), "{out}");
    let transcript = dir.path().join("empty.json");
    std::fs::write(
        &transcript,
        r#"{"format":"kpe-transcript","version":1,"engine":{"name":"e","version":"1"},"games":[]}"#,
    )
    .unwrap();
    let (code, out, _) = run(kpe_check().arg(&transcript).arg("--color=never"));
    assert_eq!(code, 4, "{out}");
    assert!(
        out.contains("nothing was checked: the transcript has no games"),
        "{out}"
    );
    let (code, json, _) = run(kpe_check().arg(&transcript).args(["--format", "json"]));
    assert_eq!(code, 4);
    assert_eq!(valid_report(json.as_bytes())["verdict"], "nothing-checked");
}

#[test]
fn expected_failures_do_not_fail_the_run_and_fixed_ones_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let bad = manifest(
        dir.path(),
        "bad.json",
        &["--fault", "capture-own-row"],
        json!({}),
    );
    let (_, json, _) = run(kpe_check().arg(&bad).args(["--format", "json"]));
    let report = valid_report(json.as_bytes());
    let diverging: Vec<(String, String)> = report["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["verdict"] == "diverges")
        .map(|u| {
            let rules: Vec<&str> = u["divergence"]["rules"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            (u["id"].as_str().unwrap().to_owned(), rules.join(","))
        })
        .collect();
    assert!(!diverging.is_empty());
    let mut file = String::from("# known divergences\n");
    for (id, rules) in &diverging {
        file.push_str(&format!("{id} {rules}\n"));
    }
    file.push_str("sow-first-move-s1 SOW-3   # conforms: reported as fixed\n");
    let expect = dir.path().join("known.txt");
    std::fs::write(&expect, &file).unwrap();
    let (code, out, err) = run(kpe_check()
        .arg(&bad)
        .arg("--expect-fail")
        .arg(&expect)
        .arg("--color=never"));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("diverge as expected"), "{out}");
    assert!(out.contains("fixed"), "{out}");
    assert!(out.contains("sow-first-move-s1"), "{out}");
    let (_, json, _) = run(kpe_check()
        .arg(&bad)
        .arg("--expect-fail")
        .arg(&expect)
        .args(["--format", "json"]));
    let report = valid_report(json.as_bytes());
    assert_eq!(report["summary"]["fixed"], 1);
    assert_eq!(
        report["summary"]["expected"].as_u64().unwrap() as usize,
        diverging.len()
    );

    // A bad line is bad input with its place.
    std::fs::write(&expect, "sow-first-move-s1 NOT-A-RULE\n").unwrap();
    let (code, _, err) = run(kpe_check().arg(&bad).arg("--expect-fail").arg(&expect));
    assert_eq!(code, 2);
    assert!(err.contains("known.txt:1:19"), "{err}");
    assert!(err.contains("NOT-A-RULE"), "{err}");
}

#[test]
fn max_failures_and_fail_fast_stop_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let bad = manifest(
        dir.path(),
        "bad.json",
        &["--fault", "capture-own-row"],
        json!({}),
    );
    for (args, n) in [(vec!["--fail-fast"], 1), (vec!["--max-failures", "2"], 2)] {
        let (code, json, _) = run(kpe_check()
            .arg(&bad)
            .args(&args)
            .args(["--format", "json", "--jobs", "2"]));
        assert_eq!(code, 1);
        let report = valid_report(json.as_bytes());
        assert_eq!(report["summary"]["diverging"], n, "{args:?}");
        let stopped = report["units"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|u| {
                u["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("--max-failures"))
            })
            .count();
        assert!(stopped > 0);
    }
}

#[test]
fn the_same_seed_gives_the_same_report_whatever_the_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let bad = manifest(
        dir.path(),
        "bad.json",
        &["--fault", "capture-own-row"],
        json!({}),
    );
    let strip = |mut v: Value| {
        for unit in v["units"].as_array_mut().unwrap() {
            unit["time"] = json!(0);
        }
        v
    };
    let (_, one, _) = run(kpe_check()
        .arg(&bad)
        .args(["--format", "json", "--jobs", "1"]));
    let (_, three, _) = run(kpe_check()
        .arg(&bad)
        .args(["--format", "json", "--jobs", "3"]));
    assert_eq!(
        strip(valid_report(one.as_bytes())),
        strip(valid_report(three.as_bytes()))
    );
}

#[test]
fn four_shards_merged_give_the_unsharded_report() {
    let dir = tempfile::tempdir().unwrap();
    for (name, args) in [
        ("good.json", vec![]),
        ("bad.json", vec!["--fault", "capture-own-row"]),
    ] {
        let m = manifest(dir.path(), name, &args, json!({}));
        let (whole_code, whole, _) = run(kpe_check().arg(&m).args(["--format", "json"]));
        let mut shards = Vec::new();
        for k in 1..=4 {
            let (_, text, err) =
                run(kpe_check()
                    .arg(&m)
                    .args(["--format", "json", "--shard", &format!("{k}/4")]));
            valid_report(text.as_bytes());
            let path = dir.path().join(format!("{name}-shard-{k}.json"));
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}{err}"));
            shards.push(path);
        }
        let (code, merged, err) = run(kpe_check()
            .arg("merge")
            .args(&shards)
            .args(["--format", "json"]));
        assert_eq!(code, whole_code, "{err}");
        let strip = |mut v: Value| {
            for unit in v["units"].as_array_mut().unwrap() {
                unit["time"] = json!(0);
                // Each shard shrinks its own examples.
                if let Some(d) = unit.get_mut("divergence") {
                    d["notes"] = json!(null);
                    d["scenario"] = json!(null);
                }
            }
            v["summary"]["profiles"][0]["explanations"] = json!(null);
            v
        };
        let whole = strip(valid_report(whole.as_bytes()));
        let merged = strip(valid_report(merged.as_bytes()));
        assert_eq!(merged["units"], whole["units"], "{name}");
        assert_eq!(merged["groups"], whole["groups"], "{name}");
        for key in [
            "units",
            "conforming",
            "diverging",
            "errored",
            "skipped",
            "plies",
            "broken",
            "rules",
        ] {
            assert_eq!(
                merged["summary"][key], whole["summary"][key],
                "{name}: {key}"
            );
        }
        assert_eq!(
            merged["summary"]["reading"]["conforms_under"],
            whole["summary"]["reading"]["conforms_under"],
            "{name}"
        );
        assert_eq!(merged["verdict"], whole["verdict"]);
    }
    // Shards of different runs, or a missing shard, are bad input.
    let m = manifest(dir.path(), "good.json", &[], json!({}));
    let (_, one, _) = run(kpe_check()
        .arg(&m)
        .args(["--format", "json", "--shard", "1/2"]));
    let path = dir.path().join("only.json");
    std::fs::write(&path, one).unwrap();
    let (code, _, err) = run(kpe_check().arg("merge").arg(&path));
    assert_eq!(code, 2);
    assert!(err.contains("shard 2/2 is missing"), "{err}");
}

#[test]
fn every_profile_in_one_run_gives_a_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let all = manifest(
        dir.path(),
        "all.json",
        &[],
        json!({"profiles": "all", "random": {"games": 2, "seed": 3}, "perft": {"max_depth": 2}}),
    );
    let (code, json, err) = run(kpe_check().arg(&all).args([
        "--format", "json", "--only", "cap-*", "--only", "random/*", "--only", "perft/*",
    ]));
    assert_eq!(code, 0, "{err}");
    let report = valid_report(json.as_bytes());
    let rows = report["summary"]["profiles"].as_array().unwrap();
    assert_eq!(rows.len(), kpe::Profile::COUNT);
    assert!(rows.iter().all(|r| r["verdict"] == "conforms"), "{rows:?}");
    let (code, human, _) = run(kpe_check().arg(&all).args([
        "--color=never",
        "--only",
        "cap-south-*",
        "--only",
        "random/0",
    ]));
    assert_eq!(code, 0);
    assert!(
        human.contains(&format!("profiles  {} checked:", kpe::Profile::COUNT)),
        "{human}"
    );
    // One profile pinned by the engine: the others are not in its hello,
    // so a requested profile checked nothing and the run cannot conform
    // (exit 4, nothing checked), though nothing diverged.
    // The other I1 reading than the default's, whichever that is.
    let other = kpe::Profile::DEFAULT
        .flipped(kpe::Switch::SkipOrigin)
        .to_string();
    let pinned = manifest(
        dir.path(),
        "pinned.json",
        &["--rules", &other, "--announce"],
        json!({"random": {"games": 1, "seed": 3}}),
    );
    let (code, json, err) = run(kpe_check().arg(&pinned).args([
        "--format",
        "json",
        "--profiles",
        &format!("default|{other}"),
        "--only",
        "random/*",
    ]));
    assert_eq!(code, 4, "{err}");
    let report = valid_report(json.as_bytes());
    assert_eq!(report["verdict"], "nothing-checked");
    let rows = report["summary"]["profiles"].as_array().unwrap();
    assert_eq!(rows[0]["counts"]["skipped"], 1, "{rows:?}");
    assert_eq!(rows[1]["counts"]["conforms"], 1, "{rows:?}");
}

/// Every rule of Jenkins' junit-10.xsd that the report can break.
fn check_junit_structure(xml: &str) {
    let doc = roxmltree::Document::parse(xml).expect("JUnit XML parses");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    for attr in root.attributes() {
        assert!(
            ["name", "time", "tests", "failures", "disabled", "errors"].contains(&attr.name()),
            "<testsuites {}> is not in junit-10.xsd",
            attr.name()
        );
    }
    for suite in root.children().filter(|n| n.is_element()) {
        assert_eq!(suite.tag_name().name(), "testsuite");
        for required in ["name", "tests"] {
            assert!(
                suite.attribute(required).is_some(),
                "testsuite needs {required}"
            );
        }
        for attr in suite.attributes() {
            assert!(
                [
                    "name",
                    "tests",
                    "failures",
                    "errors",
                    "time",
                    "disabled",
                    "skipped",
                    "timestamp",
                    "hostname",
                    "id",
                    "package",
                    "file",
                    "log",
                    "url",
                    "version"
                ]
                .contains(&attr.name()),
                "<testsuite {}> is not in junit-10.xsd",
                attr.name()
            );
        }
        assert_nonnegative_time(suite);
        let order: Vec<&str> = suite
            .children()
            .filter(|n| n.is_element())
            .map(|n| n.tag_name().name())
            .collect();
        let rank = |name: &str| match name {
            "properties" => 0,
            "testcase" => 1,
            "system-out" => 2,
            "system-err" => 3,
            other => panic!("<{other}> is not allowed in a testsuite"),
        };
        assert!(
            order.windows(2).all(|w| rank(w[0]) <= rank(w[1])),
            "{order:?}"
        );
        for case in suite.children().filter(|n| n.has_tag_name("testcase")) {
            assert!(case.attribute("name").is_some());
            let classname = case.attribute("classname").unwrap();
            assert!(classname.starts_with("kpe."), "{classname}");
            assert_nonnegative_time(case);
            let kinds: Vec<&str> = case
                .children()
                .filter(|n| n.is_element())
                .map(|n| n.tag_name().name())
                .collect();
            assert!(kinds.len() <= 1, "{kinds:?}");
            for kind in kinds {
                assert!(
                    ["skipped", "error", "failure", "system-out", "system-err"].contains(&kind),
                    "{kind}"
                );
            }
        }
        for p in suite.descendants().filter(|n| n.has_tag_name("property")) {
            assert!(p.attribute("name").is_some() && p.attribute("value").is_some());
        }
    }
    assert_nonnegative_time(root);
    // The certificate once, in the first suite, with the shape's version.
    let with_properties: Vec<usize> = root
        .children()
        .filter(|n| n.is_element())
        .enumerate()
        .filter(|(_, s)| s.children().any(|n| n.has_tag_name("properties")))
        .map(|(i, _)| i)
        .collect();
    assert!(with_properties.len() <= 1, "{with_properties:?}");
    if let Some(&first) = with_properties.first() {
        assert_eq!(first, 0, "properties belong to the first testsuite");
        let version = root
            .descendants()
            .find(|n| n.attribute("name") == Some("kpe-junit"))
            .and_then(|n| n.attribute("value"));
        assert_eq!(
            version,
            Some(kpe::reporter::JUNIT_VERSION.to_string().as_str())
        );
    }
}

/// A `time` that parses as a decimal and is not negative, not even `-0`.
fn assert_nonnegative_time(node: roxmltree::Node<'_, '_>) {
    let time = node.attribute("time").expect("a time");
    assert!(
        !time.starts_with('-') && time.parse::<f64>().is_ok(),
        "<{} time=\"{time}\">",
        node.tag_name().name()
    );
}

#[test]
fn junit_of_bad_input_and_of_an_empty_run_is_valid_with_no_negative_time() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"format\": \"kpe-transcript\", \"version\": 1,").unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(
        &empty,
        r#"{"format": "kpe-transcript", "version": 1, "engine": {"name": "e", "version": "1"}, "games": []}"#,
    )
    .unwrap();
    // Bad input exits 2; a run that checked nothing exits 4.
    for (input, expected) in [(&bad, 2), (&empty, 4)] {
        let junit = dir.path().join("report.xml");
        let (code, _, err) = run(kpe_check().arg(input).arg("--junit").arg(&junit));
        assert_eq!(code, expected, "{}: {err}", input.display());
        let xml = std::fs::read_to_string(&junit).unwrap();
        assert!(!xml.contains("\"-0"), "{xml}");
        check_junit_structure(&xml);
    }
}

#[test]
fn junit_has_times_properties_classnames_skips_and_failures_by_rule() {
    let dir = tempfile::tempdir().unwrap();
    let bad = manifest(
        dir.path(),
        "bad.json",
        &["--fault", "capture-own-row"],
        json!({}),
    );
    let junit = dir.path().join("report.xml");
    let (code, _, _) = run(kpe_check().arg(&bad).arg("--junit").arg(&junit));
    assert_eq!(code, 1);
    let xml = std::fs::read_to_string(&junit).unwrap();
    check_junit_structure(&xml);
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let props: Vec<(&str, &str)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("property"))
        .map(|n| (n.attribute("name").unwrap(), n.attribute("value").unwrap()))
        .collect();
    for key in [
        "kpe-check",
        "protocol",
        "suite-version",
        "suite-digest",
        "seed",
        "games",
        "max-plies",
        "perft-depth",
        "profile",
    ] {
        assert!(
            props.iter().any(|(k, _)| *k == key),
            "no property {key}: {props:?}"
        );
    }
    assert!(
        doc.descendants()
            .any(|n| n.attribute("classname") == Some("kpe.scenario.capture"))
    );
    assert!(
        doc.descendants()
            .any(|n| n.attribute("classname") == Some("kpe.random"))
    );
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .expect("a failure");
    assert!(failure.attribute("type").unwrap().contains("CAP-3"));
    let skipped = doc
        .descendants()
        .find(|n| n.has_tag_name("skipped"))
        .expect("skips are listed");
    assert!(!skipped.attribute("message").unwrap().is_empty());
}

#[test]
fn every_line_of_the_protocol_example_session_validates_against_the_schema() {
    let validator = schema::Schema::spec("protocol.schema.json");
    let spec = std::fs::read_to_string(root().join("spec/PROTOCOL.md")).unwrap();
    let lines: Vec<&str> = spec
        .lines()
        .filter_map(|l| l.strip_prefix("> ").or_else(|| l.strip_prefix("< ")))
        .collect();
    assert!(lines.len() > 10);
    for line in lines {
        let value: Value = serde_json::from_str(line).unwrap();
        assert!(validator.is_valid(&value), "{line}");
    }
    for bad in [
        r#"{"type":"legal"}"#,
        r#"{"type":"nope"}"#,
        r#"{"request":{"type":"quit"}}"#,
    ] {
        assert!(
            !validator.is_valid(&serde_json::from_str(bad).unwrap()),
            "{bad}"
        );
    }
}

#[test]
fn stdin_transcripts_are_checked() {
    let text = std::fs::read(root().join("examples/transcripts/skip-origin.json")).unwrap();
    let (code, json, err) = {
        let out = kpe_check()
            .args(["-", "--format", "json"])
            .write_stdin(text)
            .output()
            .unwrap();
        (
            out.status.code(),
            out.stdout,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(code, Some(1), "{err}");
    let report = valid_report(&json);
    assert_eq!(report["run"]["source"], "-");
}

#[test]
fn help_opens_with_what_kpe_check_does_and_lists_exit_codes() {
    let (code, out, _) = run(kpe_check().arg("--help"));
    assert_eq!(code, 0);
    assert!(out.starts_with("kpe-check checks a Kpé engine"), "{out}");
    for code in [
        "0  conforms",
        "1  diverges",
        "2  bad input",
        "3  errored",
        "4  nothing checked",
    ] {
        assert!(out.contains(code), "{code}: {out}");
    }
    let out = Command::new(kpe()).arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Exit codes"), "{text}");
}

#[test]
fn kpe_completions_are_generated() {
    for shell in ["bash", "zsh", "fish"] {
        let out = Command::new(kpe())
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("kpe"), "{shell}");
        assert!(text.contains("perft"), "{shell}: subcommands are completed");
    }
    let out = Command::new(kpe())
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_engine_following_two_readings_at_once_is_named_with_exactly_those_two() {
    let dir = tempfile::tempdir().unwrap();
    // The other readings of I1 and I3 than the default's, whichever it is.
    let flip = |p: kpe::Profile, s: kpe::Switch| p.set(s, !p.has(s));
    let two = flip(
        flip(kpe::Profile::DEFAULT, kpe::Switch::SkipOrigin),
        kpe::Switch::FeedAfterCapture,
    )
    .to_string();
    let two_json = manifest(
        dir.path(),
        "two.json",
        &["--rules", &two],
        json!({"random": {"games": 20, "seed": 4}}),
    );
    let two_path = two_json;
    // Random games alone rarely tell I3 apart: the probes do.
    let (code, json, err) = run(kpe_check()
        .arg(&two_path)
        .args(["--format", "json", "--only", "random/*"]));
    assert_eq!(code, 1, "{err}");
    let report = valid_report(json.as_bytes());
    let reading = &report["summary"]["reading"];
    assert_eq!(reading["closest"], json!([two]), "{reading}");
    assert_eq!(reading["conforms_under"], json!([two]), "{reading}");
    let probes = report["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["kind"] == "probe")
        .count();
    assert!(probes > 0, "the readings were told apart by probes");
}

#[test]
fn random_games_start_from_the_given_positions() {
    let dir = tempfile::tempdir().unwrap();
    let good = manifest(dir.path(), "good.json", &[], json!({}));
    // Both players unlocked: an engine without the opening lock gets past it.
    let start = "4,5,6,7/5,6,7,8 S 0/0 1234/1234";
    let (code, json, err) = run(kpe_check()
        .arg(&good)
        .args(["--format", "json", "--only", "random/*", "--start", start]));
    assert_eq!(code, 0, "{err}");
    let report = valid_report(json.as_bytes());
    assert!(report["summary"]["plies"].as_u64().unwrap() > 0);
    // A bad position is a usage error naming it.
    let (code, _, err) = run(kpe_check()
        .arg(&good)
        .args(["--start", "4,5,6,7/5,6,7 S 0/0 1234/1234"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--start"), "{err}");
    // From the manifest too, and a bug only unlocked positions show is
    // found from there at once.
    let from_manifest = manifest(
        dir.path(),
        "starts.json",
        &["--fault", "capture-own-row"],
        json!({"random": {"games": 3, "seed": 2, "starts": [start]}}),
    );
    let (code, json, _) = run(kpe_check()
        .arg(&from_manifest)
        .args(["--format", "json", "--only", "random/*"]));
    assert_eq!(code, 1);
    let report = valid_report(json.as_bytes());
    let first = report["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["verdict"] == "diverges")
        .unwrap();
    assert!(
        first["divergence"]["rules"]
            .as_array()
            .unwrap()
            .contains(&json!("CAP-3")),
        "{first}"
    );
}

#[test]
fn transcript_reports_carry_the_certificate_fields_that_apply_to_them() {
    let dir = tempfile::tempdir().unwrap();
    let expect = dir.path().join("known.txt");
    std::fs::write(&expect, "# none known\n").unwrap();
    let (code, json, err) = run(kpe_check()
        .arg(root().join("examples/transcripts/conforming.json"))
        .args(["--format", "json", "--only", "*", "--skip", "nothing-*"])
        .args(["--max-failures", "5", "--expect-fail"])
        .arg(&expect));
    assert_eq!(code, 0, "{err}");
    let report = valid_report(json.as_bytes());
    let certificate = &report["run"]["certificate"];
    assert_eq!(
        certificate["transcript"],
        kpe::transcript::VERSION,
        "{certificate}"
    );
    assert_eq!(certificate["only"], json!(["*"]), "{certificate}");
    assert_eq!(certificate["skip"], json!(["nothing-*"]), "{certificate}");
    assert_eq!(certificate["max_failures"], 5, "{certificate}");
    assert_eq!(
        certificate["expect_fail"],
        expect.display().to_string(),
        "{certificate}"
    );
    assert_eq!(certificate["kpe_check"], env!("CARGO_PKG_VERSION"));
}

/// The top-level keys of a JSON object, in the order they are written.
fn top_level_keys(text: &str) -> Vec<String> {
    struct Keys;
    impl<'de> serde::de::Visitor<'de> for Keys {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Vec<String>, A::Error> {
            let mut keys = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<serde::de::IgnoredAny>()?;
                keys.push(key);
            }
            Ok(keys)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    serde::Deserializer::deserialize_map(&mut de, Keys).expect("a JSON object")
}

#[test]
fn the_json_report_gives_the_verdict_first_and_the_summary_before_the_units() {
    // A diverging transcript, a live run and bad input.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\"format\": \"kpe-transcript\", \"version\": 1, \"games\": [1]}",
    )
    .unwrap();
    let engine = manifest(dir.path(), "e.json", &[], json!({"random": {"games": 2}}));
    for (input, expected) in [
        (root().join("examples/transcripts/skip-origin.json"), 1),
        (engine, 0),
        (bad, 2),
    ] {
        let (code, text, err) = run(kpe_check().arg(&input).args(["--format", "json"]));
        assert_eq!(code, expected, "{}: {err}", input.display());
        valid_report(text.as_bytes());
        let keys = top_level_keys(&text);
        let first = if expected == 2 {
            [
                "format",
                "version",
                "verdict",
                "exit_code",
                "conforms",
                "run",
                "error",
                "units",
            ]
            .as_slice()
        } else {
            [
                "format",
                "version",
                "verdict",
                "exit_code",
                "conforms",
                "run",
                "summary",
                "groups",
                "units",
            ]
            .as_slice()
        };
        assert_eq!(keys, first, "{}", input.display());
    }
}
