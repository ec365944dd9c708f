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

/// How wide `page` lays out in a frame `width` pixels wide, in headless
/// Chromium: the page's scroll width, its viewport width, and the elements
/// that reach past the viewport outside any scrolling box (tag, class,
/// right edge, text), which is what overflows, and the elements set in
/// columns narrower than 200 pixels (whose lines run into each other). The page is copied into
/// `dir` with a script that measures it and writes the figures into the
/// frame's parent, whose DOM Chromium dumps.
pub fn layout_width(page: &Path, dir: &Path, width: u32) -> (u32, u32, Vec<String>) {
    const PROBE: &str = r#"<script>
var w = document.documentElement.clientWidth, out = [];
document.querySelectorAll('body *').forEach(function (e) {
  var r = e.getBoundingClientRect(), own = getComputedStyle(e).overflowX;
  var columns = parseInt(getComputedStyle(e).columnCount, 10);
  if (columns > 1 && r.width / columns < 200) { out.push(e.tagName + ' in ' + columns + ' columns of ' + Math.round(r.width / columns) + ' px'); return; }
  var spills = r.right > w + 0.5 || (own === 'visible' && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1);
  if (!spills) return;
  for (var p = e.parentElement; p && p !== document.body; p = p.parentElement) {
    var o = getComputedStyle(p).overflowX;
    if (o === 'auto' || o === 'scroll' || o === 'hidden') return;
  }
  out.push(e.tagName + '.' + (typeof e.className === 'string' ? e.className : '') + '@' + Math.round(r.right) + ' ' + (e.textContent || '').replace(/\s+/g, ' ').slice(0, 40));
});
parent.document.title = 'W=' + document.documentElement.scrollWidth + ' ' + w + ' ' + out.join(' | ').replace(/</g, ' ');
</script>"#;
    let text = std::fs::read_to_string(page).unwrap();
    let probed = dir.join("probed.html");
    std::fs::write(&probed, text.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let frame = dir.join("frame.html");
    std::fs::write(
        &frame,
        format!(
            "<!DOCTYPE html><html><head><title>none</title></head><body style=\"margin:0\"><iframe src=\"probed.html\" width=\"{width}\" height=\"800\" style=\"border:0\"></iframe></body></html>"
        ),
    )
    .unwrap();
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--allow-file-access-from-files",
            "--window-size=900,900",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("file://{}", frame.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = String::from_utf8_lossy(&out.stdout);
    let title = dom
        .split("<title>")
        .nth(1)
        .and_then(|t| t.split("</title>").next())
        .unwrap_or_default();
    let rest = title
        .strip_prefix("W=")
        .unwrap_or_else(|| panic!("the probe did not run: {title:?}"));
    let mut parts = rest.splitn(3, ' ');
    let scroll: u32 = parts.next().unwrap().parse().unwrap();
    let client: u32 = parts.next().unwrap().parse().unwrap();
    let offenders = parts
        .next()
        .unwrap_or_default()
        .split(" | ")
        .filter(|s| !s.trim().is_empty())
        .map(str::to_owned)
        .collect();
    (scroll, client, offenders)
}
