//! The HTML page of `kpe dispute --html`: its structure, parsed as a
//! browser would, and a real render in headless Chromium (skipped, saying
//! so, when `chromium` is not installed: `apt-get install chromium`).

use std::process::Command as Process;

use assert_cmd::Command;
use scraper::{Html, Selector};

fn kpe() -> Command {
    Command::cargo_bin("kpe").expect("the kpe binary is built")
}

fn sel(css: &str) -> Selector {
    Selector::parse(css).unwrap()
}

/// Writes the page for `switch` with small settings; returns its path
/// (inside `dir`) and the JSON report of the same run.
fn page(dir: &tempfile::TempDir, switch: &str) -> (std::path::PathBuf, serde_json::Value) {
    let path = dir.path().join(format!("{switch}.html"));
    let out = kpe()
        .args(["dispute", switch, "--format", "json", "--games", "8"])
        .args(["--perft-depth", "5", "--max-stones", "12", "--html"])
        .arg(&path)
        .assert()
        .success();
    let json = serde_json::from_slice(&out.get_output().stdout).unwrap();
    (path, json)
}

#[test]
fn the_page_has_a_title_headings_one_svg_per_example_and_nothing_external() {
    let dir = tempfile::tempdir().unwrap();
    for switch in ["skip-origin", "end-on-repetition"] {
        let (path, json) = page(&dir, switch);
        let text = std::fs::read_to_string(&path).unwrap();
        let doc = Html::parse_document(&text);
        let title: String = doc.select(&sel("title")).next().unwrap().text().collect();
        assert_eq!(title, format!("What would “{switch}” change in Kpé?"));
        let h2: Vec<String> = doc.select(&sel("h2")).map(|h| h.text().collect()).collect();
        assert_eq!(h2.len(), 5, "{h2:?}");
        assert!(h2[0].starts_with("The rule"), "{h2:?}");
        assert!(
            h2[2].starts_with("Conformance scenarios that change"),
            "{h2:?}"
        );
        // The spec paragraph of the reading, quoted.
        let quote: String = doc
            .select(&sel("blockquote"))
            .next()
            .unwrap()
            .text()
            .collect();
        let rule = json["readings"][0]["rule"].as_str().unwrap();
        assert!(quote.starts_with(rule), "{quote}");
        // Each example of part 2 is one figure with one svg holding three
        // boards (before, default, alternative) and the differing pits marked.
        let examples: Vec<_> = doc.select(&sel("figure.example")).collect();
        assert_eq!(
            examples.len(),
            json["smallest"]["examples"].as_array().unwrap().len()
        );
        assert!(!examples.is_empty());
        for (k, fig) in examples.iter().enumerate() {
            assert_eq!(fig.select(&sel("svg")).count(), 1);
            assert_eq!(fig.select(&sel("svg > g")).count(), 3);
            let marked = fig.select(&sel("rect.marked")).count();
            let marks = json["smallest"]["examples"][k]["marks"]
                .as_array()
                .unwrap()
                .len();
            assert_eq!(
                marked,
                2 * marks + 1,
                "both answers mark them; the move is marked before"
            );
        }
        // Each changed scenario: a table with its first differing ply marked.
        let changed = json["scenarios"]["differing"].as_array().unwrap().len();
        assert_eq!(doc.select(&sel("div.scenario-block")).count(), changed);
        assert_eq!(
            doc.select(&sel("div.scenario-block tr.marked")).count(),
            changed
        );
        // Nothing to fetch: no scripts, links out, external images or styles.
        assert_eq!(doc.select(&sel("script, link, img, iframe")).count(), 0);
        for attr in ["href", "src"] {
            for e in doc.select(&sel(&format!("[{attr}]"))) {
                let v = e.value().attr(attr).unwrap();
                assert!(v.starts_with('#'), "{attr}={v}");
            }
        }
        assert!(!text.contains("http://") && !text.contains("https://"));
        assert!(!text.contains("url("));
    }
}

#[test]
fn the_page_renders_in_headless_chromium_without_console_errors() {
    if Process::new("chromium").arg("--version").output().is_err() {
        eprintln!("skipped: `chromium` is not installed (apt-get install chromium)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = page(&dir, "skip-origin");
    let shot = dir.path().join("shot.png");
    let out = Process::new("chromium")
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1200,2000",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", path.display()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "chromium failed: {stderr}");
    for needle in ["Uncaught", "CONSOLE", "console(", "Failed to load"] {
        assert!(
            !stderr.contains(needle),
            "chromium reported `{needle}`:\n{stderr}"
        );
    }
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "no screenshot");
    assert!(
        png.len() > 10_000,
        "the screenshot is blank: {} bytes",
        png.len()
    );
}
