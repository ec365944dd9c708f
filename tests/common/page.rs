//! Checks of a page's structure, parsed as a browser would: `scraper` over
//! html5ever, the WHATWG tokenizer and tree builder (issue 47: a
//! maintained parser and selector engine as the tests' oracle, in place of
//! one written here).
//!
//! [`parse`] asks html5ever for its exact parse errors, so that a control
//! character or a noncharacter in the page is an error like an end tag
//! that closes nothing or an element left open; [`Html::errors`] holds
//! them, and a page the tests accept has none.

// Each test binary that includes this file uses part of it.
#![allow(dead_code)]

use html5ever::driver::{self, ParseOpts};
use html5ever::tendril::TendrilSink;
use html5ever::tokenizer::TokenizerOpts;
use html5ever::tree_builder::TreeBuilderOpts;
use scraper::HtmlTreeSink;
pub use scraper::{ElementRef, Html, Selector};

/// Parses `text` as a document, with every parse error html5ever can name
/// in [`Html::errors`].
pub fn parse(text: &str) -> Html {
    let opts = ParseOpts {
        tokenizer: TokenizerOpts {
            exact_errors: true,
            ..TokenizerOpts::default()
        },
        tree_builder: TreeBuilderOpts {
            exact_errors: true,
            ..TreeBuilderOpts::default()
        },
    };
    driver::parse_document(HtmlTreeSink::new(Html::new_document()), opts).one(text)
}

/// A selector.
///
/// # Panics
///
/// When `css` is not a selector.
pub fn sel(css: &str) -> Selector {
    Selector::parse(css).unwrap_or_else(|e| panic!("{css:?}: {e}"))
}

/// The text below `e`, in document order.
pub fn text_of(e: ElementRef<'_>) -> String {
    e.text().collect()
}

/// Asserts that the page parses without an error and needs nothing from
/// elsewhere: no scripts, links out, external images, frames or styles;
/// only in-page anchors.
pub fn assert_self_contained(text: &str) {
    let doc = parse(text);
    assert!(doc.errors.is_empty(), "{:?}", doc.errors);
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
