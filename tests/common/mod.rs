//! Helpers shared by the tests of the HTML pages (`tests/html.rs`,
//! `tests/report_html.rs`).

pub mod chromium;
pub mod page;
