//! Issue 25: JUnit XML and HTML reports stay well-formed whatever the
//! names, ids and messages hold. Every character XML 1.0 or HTML forbids
//! (the C0 and C1 controls, DEL, U+FFFE, U+FFFF, noncharacters) and the
//! replacement of invalid UTF-8 are fed through each text field of a run:
//! the source, engine name and version, shard, unit ids, locations,
//! reasons, error codes, messages, requests and stderr.

#[path = "common/page.rs"]
mod page;

use kpe::reporter::{
    EngineError, HtmlSink, JunitSink, Run, RunKind, Shard, Sink, Summary, UnitResult,
};

/// Every character a report must not carry as is, and markup characters.
fn hostile() -> String {
    let mut s: String = (0u32..0x20)
        .chain(0x7f..0xa0)
        .chain([0xfdd0, 0xfffe, 0xffff, 0x1fffe])
        .filter_map(char::from_u32)
        .collect();
    s.push_str(&String::from_utf8_lossy(b"<&\"'>\xff\xc3("));
    s.push_str("]]>-->");
    s
}

fn units(h: &str) -> Vec<UnitResult> {
    let mut conforming =
        UnitResult::conforming("game", format!("g{h}"), Some(format!("games[{h}]")), 3);
    conforming.time = 0.5;
    let skipped = UnitResult::skipped(
        "scenario",
        format!("s{h}"),
        Some(format!("x{h}.yaml")),
        format!("why{h}"),
    );
    let errored = UnitResult::errored(
        "random-game",
        format!("random/{h}"),
        None,
        2,
        EngineError {
            code: format!("code{h}"),
            message: format!("message{h}"),
            ply: Some(1),
            request: Some(format!("request{h}")),
            stderr: vec![format!("stderr{h}")],
            stderr_bytes: 9,
        },
    );
    vec![conforming, skipped, errored]
}

fn run_with(h: &str) -> Run {
    let mut run = Run::new(
        format!("src{h}.json"),
        RunKind::Transcript,
        kpe::Profile::default(),
    );
    run.engine = Some(kpe::transcript::Engine {
        name: format!("name{h}"),
        version: format!("v{h}"),
    });
    run.certificate.shard = Some(Shard { index: 1, count: 2 });
    run.certificate.only = vec![format!("only{h}")];
    run.certificate.expect_fail = Some(format!("expect{h}"));
    run
}

fn feed(sink: &mut dyn Sink, h: &str) {
    let run = run_with(h);
    sink.begin(&run).unwrap();
    let mut summary = Summary::default();
    for unit in units(h) {
        summary.add(&unit);
        sink.unit(&unit).unwrap();
    }
    summary.notes.push(format!("note{h}"));
    sink.finish(&summary).unwrap();
}

#[test]
fn junit_is_well_formed_whatever_the_fields_hold() {
    let dir = tempfile::tempdir().unwrap();
    let h = hostile();
    // Each character on its own too, so none hides behind another.
    for text in std::iter::once(h.clone()).chain(h.chars().map(String::from)) {
        let path = dir.path().join("r.xml");
        let mut sink = JunitSink::new(path.clone());
        feed(&mut sink, &text);
        let xml = std::fs::read_to_string(&path).unwrap();
        let doc = roxmltree::Document::parse(&xml)
            .unwrap_or_else(|e| panic!("{text:?}: not well-formed: {e}\n{xml}"));
        let cases = doc
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .count();
        assert_eq!(cases, 3, "{text:?}");
        let engine = doc
            .descendants()
            .find(|n| n.attribute("name") == Some("engine"))
            .and_then(|n| n.attribute("value"))
            .unwrap();
        assert!(engine.starts_with("name"), "{engine:?}");
    }
    // A control character is shown, not dropped: `\u{1}`.
    let path = dir.path().join("one.xml");
    let mut sink = JunitSink::new(path.clone());
    feed(&mut sink, "\u{1}");
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("name\\u{1}")
    );
}

#[test]
fn html_is_clean_whatever_the_fields_hold() {
    let dir = tempfile::tempdir().unwrap();
    let h = hostile();
    let path = dir.path().join("r.html");
    let mut sink = HtmlSink::new(path.clone());
    feed(&mut sink, &h);
    let page = std::fs::read_to_string(&path).unwrap();
    for c in page.chars() {
        let n = u32::from(c);
        assert!(
            (!c.is_control() || matches!(c, '\t' | '\n' | '\r' | '\u{c}'))
                && !(0xfdd0..=0xfdef).contains(&n)
                && n & 0xfffe != 0xfffe,
            "the page holds U+{n:04X}"
        );
    }
    assert!(!page.contains("<&"), "markup not escaped");
    assert!(
        page.contains("name\\u{0}\\u{1}"),
        "a control character is shown"
    );
    let parsed = page::parse(&page);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    // The markup characters and the replaced invalid UTF-8 come back as
    // text, in the engine's name, and make no element.
    let body: String = parsed
        .select(&page::sel("body"))
        .next()
        .expect("a body")
        .text()
        .collect();
    assert!(body.contains("<&\"'>\u{fffd}\u{fffd}(]]>-->"), "{body}");
    assert_eq!(parsed.select(&page::sel("script, iframe")).count(), 0);
}
