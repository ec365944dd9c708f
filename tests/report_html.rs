//! The HTML page of `kpe-check --html FILE` (issue 12): the verdict block
//! first, each group once by its smallest example drawn as a board with the
//! differing pits marked, the skip reasons, the engine errors with their
//! stderr tail; checked against the JSON report of the same run, parsed as
//! a browser would, and rendered in headless Chromium (skipped, saying so,
//! when `chromium` is not installed: `apt-get install chromium`).
//!
//! `UPDATE_SCREENSHOTS=1 cargo test --test report_html chromium` also
//! writes the live buggy engine's page to `spec/img/kpe-check-report.png`
//! (then `pngquant --force --ext .png --quality 70-95` it to keep it small).

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use common::chromium;
use common::page::{ElementRef, Html, assert_self_contained, parse, sel, text_of};
use kpe::Position;
use serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A manifest for `command`, with small random games (as `tests/report.rs`).
fn manifest(dir: &Path, name: &str, command: &[&str]) -> PathBuf {
    let m = json!({
        "format": "kpe-engine", "version": 1, "command": command,
        "timeouts": {"start_ms": 10000, "request_ms": 10000},
        "random": {"games": 20, "max_plies": 120, "seed": 11},
        "perft": {"max_depth": 3, "max_nodes": 1000},
    });
    let path = dir.join(name);
    std::fs::write(&path, m.to_string()).unwrap();
    path
}

fn buggy_engine(dir: &Path) -> PathBuf {
    let kpe = env!("CARGO_BIN_EXE_kpe");
    manifest(
        dir,
        "buggy.json",
        &[kpe, "engine", "--fault", "capture-own-row"],
    )
}

/// Runs kpe-check on `input` with `--html` (and `--format json`, so the
/// page can be compared with the JSON report of the same run), from the
/// input's folder so that the page names it by its file name; returns the
/// page's path and text, and the JSON report.
fn page(dir: &Path, input: &Path, args: &[&str], exit: i32) -> (PathBuf, String, Value) {
    let path = dir.join(format!(
        "{}.html",
        input.file_stem().unwrap().to_string_lossy()
    ));
    let out = Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .current_dir(input.parent().unwrap())
        .env_remove("KPE_CHECK_SEED")
        .env_remove("KPE_CHECK_GAMES")
        .env_remove("KPE_CHECK_SUITE")
        .env_remove("KPE_CHECK_PERFT_DEPTH")
        .arg(input.file_name().unwrap())
        .args(args)
        .args(["--format", "json", "--html"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(exit),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (path, text, json)
}

/// The verdict block's text: the first note, in the header.
fn verdict_block(doc: &Html) -> String {
    let block = doc
        .select(&sel("header div.note"))
        .next()
        .expect("a verdict block");
    text_of(block)
}

fn h2s(doc: &Html) -> Vec<String> {
    doc.select(&sel("h2")).map(text_of).collect()
}

/// The pits whose stone counts differ between two positions in notation.
fn differing(expected: &str, claimed: &str) -> usize {
    let a: Position = expected.parse().unwrap();
    let b: Position = claimed.parse().unwrap();
    a.pits()
        .iter()
        .zip(b.pits())
        .filter(|(x, y)| **x != *y)
        .count()
}

/// Checks every divergence group of the JSON report against the page: one
/// group block each, in order, with one svg drawing its example (three
/// boards when `after` differs, with the move's pit marked before and the
/// differing pits marked in both answers), the field diffs, the rules with
/// their titles, the reproduction YAML and the other units' ids.
fn check_groups(doc: &Html, json: &Value) {
    let groups: Vec<&Value> = json["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["verdict"] != "errored")
        .collect();
    let blocks: Vec<ElementRef<'_>> = doc.select(&sel("section div.group")).collect();
    assert_eq!(blocks.len(), groups.len());
    assert!(!groups.is_empty());
    for (group, block) in groups.iter().zip(&blocks) {
        let example_id = group["example"].as_str().unwrap();
        let unit = json["units"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["id"] == example_id)
            .unwrap();
        let d = &unit["divergence"];
        let text = text_of(*block);
        assert!(text.contains(example_id), "{text}");
        assert_eq!(block.select(&sel("svg")).count(), 1, "{text}");
        let after = d["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["field"] == "after");
        let boards = block.select(&sel("svg > g")).count();
        let marked = block.select(&sel("svg rect.marked")).count();
        match after {
            Some(f) => {
                assert_eq!(boards, 3);
                let pits = differing(
                    f["expected"].as_str().unwrap(),
                    f["claimed"].as_str().unwrap(),
                );
                assert!(pits > 0);
                assert_eq!(
                    marked,
                    1 + 2 * pits,
                    "the move, and the pits in both answers"
                );
            }
            None => {
                assert_eq!(boards, 1);
                assert_eq!(marked, 1, "the move's pit");
            }
        }
        let mv = d["move"].as_str().unwrap();
        let first_board = block.select(&sel("svg > g")).next().unwrap();
        let marked_pit: String = first_board
            .select(&sel("rect.marked > title"))
            .map(text_of)
            .collect();
        assert!(marked_pit.starts_with(&format!("{mv}: ")), "{marked_pit}");
        // The field diffs, expected against claimed.
        for f in d["fields"].as_array().unwrap() {
            let row = block
                .select(&sel("tr.marked"))
                .map(text_of)
                .find(|r| r.starts_with(f["field"].as_str().unwrap()))
                .unwrap_or_else(|| panic!("no row for {}", f["field"]));
            assert!(row.contains(f["expected"].as_str().unwrap()), "{row}");
            assert!(row.contains(f["claimed"].as_str().unwrap()), "{row}");
        }
        for rule in group["rules"].as_array().unwrap() {
            let rule = rule.as_str().unwrap();
            let title = kpe::judge::rule_title(rule).unwrap();
            assert!(text.contains(&format!("{rule} {title}")), "{text}");
        }
        let pre: String = block.select(&sel("pre")).map(text_of).collect();
        assert!(
            pre.contains(&format!("id: {}", d["scenario"]["id"].as_str().unwrap())),
            "{pre}"
        );
        for other in group["others"].as_array().unwrap() {
            assert!(text.contains(other.as_str().unwrap()), "{text}");
        }
    }
}

#[test]
fn a_conforming_transcript_gets_a_green_verdict_and_no_groups() {
    let dir = tempfile::tempdir().unwrap();
    let input = root().join("examples/transcripts/conforming.json");
    let (_, text, json) = page(dir.path(), &input, &[], 0);
    let doc = parse(&text);
    let title = text_of(doc.select(&sel("title")).next().unwrap());
    assert_eq!(title, "kpe-check report: conforming.json");
    assert_eq!(doc.select(&sel("header div.note.good")).count(), 1);
    let block = verdict_block(&doc);
    assert!(block.contains("CONFORMS (exit 0)"), "{block}");
    let units = json["summary"]["units"].as_u64().unwrap();
    assert!(block.contains(&format!("{units} conform")), "{block}");
    assert!(!block.contains("broken"), "{block}");
    assert_eq!(doc.select(&sel("svg")).count(), 0);
    assert!(!h2s(&doc).iter().any(|h| h.starts_with("Divergences")));
    assert_self_contained(&text);
}

#[test]
fn a_diverging_transcript_shows_its_group_by_a_board_with_the_differing_pits() {
    let dir = tempfile::tempdir().unwrap();
    let input = root().join("examples/transcripts/skip-origin.json");
    let (_, text, json) = page(dir.path(), &input, &[], 1);
    let doc = parse(&text);
    assert_eq!(doc.select(&sel("header div.note.bad")).count(), 1);
    let block = verdict_block(&doc);
    assert!(block.contains("DIVERGES (exit 1)"), "{block}");
    // Every broken rule with its title and unit count, and the reading.
    for broken in json["summary"]["broken"].as_array().unwrap() {
        let rule = broken["rule"].as_str().unwrap();
        let n = broken["units"].as_u64().unwrap();
        let title = kpe::judge::rule_title(rule).unwrap();
        let unit = if n == 1 { "unit" } else { "units" };
        assert!(
            block.contains(&format!("{rule} {title} — {n} {unit}")),
            "{block}"
        );
    }
    let reading = json["summary"]["reading"]["text"].as_str().unwrap();
    // The sample's games skip the origin.
    let skip = kpe::Profile::with(&[kpe::Switch::SkipOrigin]).to_string();
    assert!(reading.contains(&skip), "{reading}");
    assert!(
        block.contains(&format!(
            "claimed {}, but {reading}",
            kpe::Profile::ALL_OFF.written_against(kpe::Profile::DEFAULT)
        )),
        "{block}"
    );
    check_groups(&doc, &json);
    assert_eq!(h2s(&doc)[0], "Divergences (1 group)");
    assert_self_contained(&text);
}

#[test]
fn a_live_buggy_engine_page_has_groups_skips_certificate_and_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let input = buggy_engine(dir.path());
    let (_, text, json) = page(dir.path(), &input, &[], 1);
    let doc = parse(&text);
    let block = verdict_block(&doc);
    assert!(block.contains("DIVERGES (exit 1)"), "{block}");
    let counts = &json["summary"];
    for (key, col) in [
        ("units", 0),
        ("conforming", 1),
        ("diverging", 2),
        ("skipped", 4),
    ] {
        let cell = doc
            .select(&sel("header div.note td"))
            .nth(col)
            .map(text_of)
            .unwrap();
        assert_eq!(cell, counts[key].to_string(), "{key}");
    }
    assert!(block.contains("seed 11"), "{block}");
    let digest = json["run"]["certificate"]["suite"]["digest"]
        .as_str()
        .unwrap();
    assert!(block.contains(digest), "{block}");
    let matrix = |doc: &Html| {
        doc.select(&sel("header div.note table"))
            .find(|t| text_of(*t).starts_with("profileverdict"))
            .map(|t| t.select(&sel("tbody tr")).map(text_of).collect::<Vec<_>>())
    };
    assert_eq!(matrix(&doc), None, "one profile: no matrix");
    check_groups(&doc, &json);
    // The skip reasons with their counts, as the units say.
    let skips: Vec<(u64, String)> = doc
        .select(&sel("section tbody tr"))
        .filter_map(|tr| {
            let cells: Vec<String> = tr.select(&sel("td")).map(text_of).collect();
            let n = cells.first()?.parse().ok()?;
            Some((n, cells.get(1)?.clone()))
        })
        .collect();
    assert!(!skips.is_empty());
    for (n, reason) in &skips {
        let count = json["units"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|u| u["verdict"] == "skipped" && u["reason"] == reason.as_str())
            .count() as u64;
        assert_eq!(count, *n, "{reason}");
    }
    let total: u64 = skips.iter().map(|(n, _)| n).sum();
    assert_eq!(total, counts["skipped"].as_u64().unwrap());
    assert_self_contained(&text);

    // Several profiles: the profile × verdict matrix, one row each.
    let (_, text, json) = page(
        dir.path(),
        &input,
        &[
            "--profiles",
            &format!(
                "default|{}",
                kpe::Profile::DEFAULT.flipped(kpe::Switch::SkipOrigin)
            ),
        ],
        1,
    );
    let doc = parse(&text);
    let rows = matrix(&doc).expect("a profile matrix");
    let profiles = json["summary"]["profiles"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for (row, p) in rows.iter().zip(profiles) {
        assert!(row.starts_with(p["profile"].as_str().unwrap()), "{row}");
        assert!(row.contains(p["verdict"].as_str().unwrap()), "{row}");
    }
}

#[test]
fn kpe_check_merge_writes_the_page_of_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = buggy_engine(dir.path());
    let (_, whole, _) = page(dir.path(), &input, &[], 1);
    let mut shards = Vec::new();
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let (_, _, json) = page(dir.path(), &input, &["--shard", &shard], 1);
        let path = dir.path().join(format!("shard-{k}.json"));
        std::fs::write(&path, json.to_string()).unwrap();
        shards.push(path);
    }
    let merged = dir.path().join("merged.html");
    let out = Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .arg("merge")
        .args(&shards)
        .args(["--format", "json", "--html"])
        .arg(&merged)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = std::fs::read_to_string(&merged).unwrap();
    let doc = parse(&text);
    check_groups(&doc, &json);
    // The same verdict, counts and broken rules as the unsharded run.
    let head = |text: &str| {
        let doc = parse(text);
        let block = verdict_block(&doc);
        block[..block.find("reading").unwrap()].to_owned()
    };
    assert_eq!(head(&text), head(&whole));
    assert_self_contained(&text);
}

#[cfg(unix)]
#[test]
fn an_engine_that_does_not_start_shows_its_error_with_the_stderr_tail() {
    let dir = tempfile::tempdir().unwrap();
    let script = "echo 'engine: out of stones at line 7' >&2; exit 3";
    let input = manifest(dir.path(), "broken.json", &["sh", "-c", script]);
    let (_, text, _) = page(dir.path(), &input, &[], 3);
    let doc = parse(&text);
    assert!(verdict_block(&doc).contains("ERRORED (exit 3)"));
    let h2 = h2s(&doc);
    let errors = h2.iter().position(|h| h.starts_with("Engine errors"));
    let skipped = h2.iter().position(|h| h == "Skipped");
    assert!(errors.is_some() && skipped < errors, "{h2:?}");
    let section = doc
        .select(&sel("section"))
        .find(|s| text_of(*s).trim_start().starts_with("Engine errors"))
        .unwrap();
    let pre: String = section.select(&sel("pre")).map(text_of).collect();
    assert_eq!(pre, "engine: out of stones at line 7");
    assert!(text_of(section).contains("(crash)"));
    assert_eq!(doc.select(&sel("svg")).count(), 0);
}

#[test]
fn bad_input_still_writes_a_page_that_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.json");
    std::fs::write(
        &input,
        "{\"format\": \"kpe-transcript\", \"version\": 1,\n  \"games\": [}",
    )
    .unwrap();
    let (_, text, _) = page(dir.path(), &input, &[], 2);
    let doc = parse(&text);
    let block = verdict_block(&doc);
    assert!(block.contains("BAD-INPUT (exit 2)"), "{block}");
    assert!(block.contains("bad.json:2:"), "{block}");
}

#[test]
fn the_page_renders_in_headless_chromium_without_console_errors() {
    if !chromium::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = buggy_engine(dir.path());
    let (path, _, _) = page(dir.path(), &input, &[], 1);
    let png = chromium::render(&path, dir.path(), 1000, 1400);
    if std::env::var_os("UPDATE_SCREENSHOTS").is_some_and(|v| v == "1") {
        std::fs::write(root().join("spec/img/kpe-check-report.png"), png).unwrap();
    }
}

/// Issue 44: at 400 pixels wide the page overflowed (a long title, the
/// certificate's digest). Laid out in headless Chromium in a frame 400
/// pixels wide, nothing reaches past the screen but inside the boxes that
/// scroll (tables, `pre`); skipped, saying so, without `chromium`.
#[test]
fn the_page_fits_a_400_pixel_screen() {
    if !chromium::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let kpe = env!("CARGO_BIN_EXE_kpe");
    let input = manifest(
        dir.path(),
        "an-engine-manifest-with-a-long-name-that-has-no-spaces.json",
        &[kpe, "engine", "--fault", "capture-own-row"],
    );
    let (live, _, _) = page(
        dir.path(),
        &input,
        &["--profiles", "default|skip-origin"],
        1,
    );
    let transcript = root().join("examples/transcripts/skip-origin.json");
    let (path, _, _) = page(dir.path(), &transcript, &[], 1);
    for page in [live, path] {
        let (scroll, client, offenders) = chromium::layout_width(&page, dir.path(), 400);
        assert!(client <= 400, "{client}");
        assert!(
            scroll <= client && offenders.is_empty(),
            "{}: {scroll} px wide in {client}: {offenders:?}",
            page.display()
        );
    }
}
