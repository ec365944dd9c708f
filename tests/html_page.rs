//! The parsing the HTML tests rely on (`tests/common/page.rs`, scraper over
//! html5ever): markup a browser would have to guess at is a parse error,
//! so a page the tests accept is the tree it wrote; and the style rules of
//! the report page, read from its `<style>`.

#[path = "common/page.rs"]
mod page;

use page::{parse, sel, text_of};

/// What the HTML tests' `errors.is_empty()` refuses: html5ever's exact
/// errors, control characters and noncharacters included (they are
/// reported only when asked for).
#[test]
fn markup_a_browser_would_have_to_guess_at_is_an_error() {
    for (html, says) in [
        ("<!DOCTYPE html><div>a</span></div>", "while closing"),
        (
            "<!DOCTYPE html><section><div>a</div>",
            "section at end of body",
        ),
        ("<!DOCTYPE html><div/>", "Unacknowledged self-closing tag"),
        ("<!DOCTYPE html><p a=1 a=2>", "Duplicate attribute"),
        ("<!DOCTYPE html><p>\u{1}</p>", "Bad character"),
        ("<!DOCTYPE html><p>\u{fdd0}</p>", "Bad character"),
        ("<!DOCTYPE html><p>&nosuch;</p>", "character reference"),
        ("<!DOCTYPE html><p>a</p", "EOF"),
        ("<p>a</p>", "in insertion mode Initial"),
    ] {
        let doc = parse(html);
        assert!(
            doc.errors.iter().any(|e| e.contains(says)),
            "{html}: {:?}",
            doc.errors
        );
    }
    let doc = parse(
        "<!DOCTYPE html><html><head><title>t</title></head><body><pre>\nx</pre>\
         <svg><rect/></svg><table><tr><td>1</td></tr></table></body></html>",
    );
    assert_eq!(doc.errors, Vec::<std::borrow::Cow<'_, str>>::new());
    assert_eq!(
        doc.select(&sel("table > tbody > tr > td"))
            .map(text_of)
            .collect::<Vec<_>>(),
        ["1"]
    );
}

/// The style rules that keep the pages readable on a 400-pixel screen
/// (issue 44), checked without a browser on a real report page:
/// `tests/report_html.rs` and `tests/html.rs` lay the pages out in
/// Chromium when it is installed. Long words wrap, pictures shrink, and
/// below 40rem the page's margins narrow and the contents take one column.
#[test]
fn the_pages_style_has_its_narrow_screen_rules() {
    let dir = std::env::temp_dir().join(format!("kpe-style-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("report.html");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["examples/transcripts/skip-origin.json", "-q", "--html"])
        .arg(&html)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = std::fs::read_to_string(&html).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let doc = parse(&text);
    let viewport = doc
        .select(&sel("meta[name]"))
        .find(|m| m.value().attr("name") == Some("viewport"));
    assert_eq!(
        viewport.and_then(|m| m.value().attr("content")),
        Some("width=device-width, initial-scale=1")
    );
    let style: String = doc.select(&sel("style")).map(text_of).collect();
    let compact: String = style.split_whitespace().collect::<Vec<_>>().join(" ");
    for rule in [
        "overflow-wrap: break-word;",
        "h1 { overflow-wrap: anywhere; }",
        "svg, img { max-width: 100%; height: auto; }",
        "@media (max-width: 40rem) {",
        "body { padding: .5rem .75rem 3rem; }",
        "nav ol { columns: 1;",
        ".scroll { overflow-x: auto; }",
    ] {
        assert!(compact.contains(rule), "{rule}: {compact}");
    }
    // Every table scrolls inside its own box rather than widening the page.
    let tables = doc.select(&sel("table")).count();
    assert!(tables > 0);
    assert_eq!(doc.select(&sel("div.scroll > table")).count(), tables);
}
