//! Checks of a page's structure, parsed as a browser would.

use scraper::{Html, Selector};

/// A CSS selector.
pub fn sel(css: &str) -> Selector {
    Selector::parse(css).unwrap()
}

/// Asserts that the page needs nothing from elsewhere: no scripts, links
/// out, external images, frames or styles; only in-page anchors.
pub fn assert_self_contained(text: &str) {
    let doc = Html::parse_document(text);
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
