//! The page parser and selectors of `tests/common/page.rs` (issue 26:
//! written on html5gum's tokens in place of `scraper`): the tree a browser
//! builds for the markup the kpe pages use, the parse errors, and the
//! selectors the HTML tests use.

#[path = "common/page.rs"]
mod page;

use page::{Page, Selector, sel};

fn texts(doc: &Page, css: &str) -> Vec<String> {
    doc.select(&sel(css)).map(|e| e.text().collect()).collect()
}

#[test]
fn text_and_attributes_come_back_decoded() {
    let doc = Page::parse(
        "<!DOCTYPE html><html><head><title>a &lt;b&gt; &amp; &quot;c&quot;</title></head>\
         <body><p class=\"x  intro\" data-k='&#65;&#x42;'>one &eacute; <b>two</b></p></body></html>",
    );
    assert_eq!(doc.errors, Vec::<String>::new());
    assert_eq!(texts(&doc, "title"), ["a <b> & \"c\""]);
    assert_eq!(texts(&doc, "p.intro"), ["one é two"]);
    let p = doc.select(&sel("p")).next().unwrap();
    assert_eq!(p.attr("data-k"), Some("AB"));
    assert_eq!(p.attr("missing"), None);
    assert_eq!(p.name(), "p");
}

#[test]
fn title_style_and_script_hold_text_not_markup() {
    let doc = Page::parse(
        "<html><head><title><b>not bold</b></title><style>p > b { }</style></head>\
         <body><script>if (a < b) { document.write('<p>') }</script></body></html>",
    );
    assert_eq!(doc.errors, Vec::<String>::new());
    assert_eq!(doc.select(&sel("b, p")).count(), 0);
    assert_eq!(texts(&doc, "title"), ["<b>not bold</b>"]);
    assert_eq!(texts(&doc, "style"), ["p > b { }"]);
}

#[test]
fn void_elements_and_svg_self_closing_tags_have_no_content() {
    let doc = Page::parse(
        "<body><p>a<br>b<img src=\"#x\"></p><svg><g><rect class=\"marked\"/><rect/></g>\
         <g><rect><title>S1: 4</title></rect></g></svg></body>",
    );
    assert_eq!(doc.errors, Vec::<String>::new());
    assert_eq!(texts(&doc, "p"), ["ab"]);
    assert_eq!(doc.select(&sel("svg > g")).count(), 2);
    assert_eq!(doc.select(&sel("g > rect")).count(), 3);
    assert_eq!(doc.select(&sel("rect rect, rect g")).count(), 0);
    // An svg title is an element like another, not the page's title text.
    assert_eq!(texts(&doc, "rect > title"), ["S1: 4"]);
}

#[test]
fn pre_drops_its_first_newline_and_a_table_row_gets_its_tbody() {
    let doc = Page::parse("<body><pre>\nline\n</pre><table><tr><td>1</td></tr></table></body>");
    assert_eq!(doc.errors, Vec::<String>::new());
    assert_eq!(texts(&doc, "pre"), ["line\n"]);
    assert_eq!(texts(&doc, "table > tbody > tr > td"), ["1"]);
}

#[test]
fn markup_a_browser_would_have_to_guess_at_is_an_error() {
    for (html, says) in [
        ("<div><p>a</div>", "</div> closes the unclosed <p>"),
        ("<div>a</span></div>", "</span> closes nothing"),
        ("<section><div>a</div>", "<section> is still open"),
        ("<div/>", "trailing-solidus"),
        ("<p a=1 a=2>", "duplicate-attribute"),
        ("<p>\u{1}</p>", "control-character-in-input-stream"),
        ("<p>\u{fdd0}</p>", "noncharacter-in-input-stream"),
        ("<p>&nosuch;</p>", "unknown-named-character-reference"),
        ("<p>a</p", "eof-in-tag"),
    ] {
        let doc = Page::parse(html);
        assert!(
            doc.errors.iter().any(|e| e.contains(says)),
            "{html}: {:?}",
            doc.errors
        );
    }
}

#[test]
fn selectors_match_by_tag_class_id_attribute_and_combinator() {
    let doc = Page::parse(
        "<body><header><div class=\"note good\" id=\"v\"><table><tbody><tr><td>1</td></tr></tbody>\
         </table></div></header><section><div class=\"group\"><a href=\"#g\">g</a></div>\
         <div class=\"note\">n</div></section></body>",
    );
    assert_eq!(doc.errors, Vec::<String>::new());
    assert_eq!(texts(&doc, "header div.note"), ["1"]);
    assert_eq!(texts(&doc, "div.note.good"), ["1"]);
    assert_eq!(texts(&doc, "#v td"), ["1"]);
    assert_eq!(texts(&doc, "div.note"), ["1", "n"]);
    assert_eq!(texts(&doc, "section div.group, header td"), ["1", "g"]);
    assert_eq!(texts(&doc, "[href]"), ["g"]);
    assert_eq!(texts(&doc, "section > a"), Vec::<String>::new());
    assert_eq!(texts(&doc, "section a"), ["g"]);
    assert_eq!(texts(&doc, "div.bad"), Vec::<String>::new());
    // An element's select sees its descendants only, matched in the page.
    let section = doc.select(&sel("section")).next().unwrap();
    assert_eq!(section.select(&sel("div")).count(), 2);
    assert_eq!(section.select(&sel("body div.note")).count(), 1);
    assert_eq!(section.select(&sel("section")).count(), 0);
}

#[test]
fn selectors_outside_the_subset_are_refused() {
    for css in [
        "",
        "a,",
        "div:first-child",
        "a[href=\"#x\"]",
        "a + b",
        "a ~ b",
        "*",
        "> a",
        "a >> b",
        "div::before",
    ] {
        assert!(Selector::parse(css).is_err(), "{css:?} was taken");
    }
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
    let doc = Page::parse(&text);
    let viewport = doc
        .select(&sel("meta[name]"))
        .find(|m| m.attr("name") == Some("viewport"));
    assert_eq!(
        viewport.and_then(|m| m.attr("content")),
        Some("width=device-width, initial-scale=1")
    );
    let style: String = texts(&doc, "style").concat();
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
