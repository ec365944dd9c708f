//! A real render of a page in headless Chromium, skipped (saying so on
//! stderr) when `chromium` is not installed: `apt-get install chromium`.

use std::path::Path;
use std::process::Command;

/// Whether `chromium` can be run; prints the skip note when it cannot.
pub fn available() -> bool {
    if Command::new("chromium").arg("--version").output().is_err() {
        eprintln!("skipped: `chromium` is not installed (apt-get install chromium)");
        return false;
    }
    true
}

/// Renders `page` in headless Chromium at `width`×`height` and returns the
/// screenshot's PNG bytes, after checking that Chromium succeeded, logged
/// no console error and produced a screenshot that is not blank. `dir`
/// holds Chromium's profile and the screenshot.
pub fn render(page: &Path, dir: &Path, width: u32, height: u32) -> Vec<u8> {
    let shot = dir.join("shot.png");
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
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
    png
}
