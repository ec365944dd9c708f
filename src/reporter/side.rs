//! Side files a run can leave for the next one or for a README: the
//! known-failures file (`--write-expect-fail FILE`) and a badge
//! (`--badge FILE`: a shields.io endpoint JSON and an SVG beside it).
//!
//! Both are [`Sink`]s that keep only what they need while the units go by
//! and write their files once, when the run is over, through a temporary
//! file renamed into place, so that a run that dies leaves the old file
//! whole.

use std::io;
use std::path::{Path, PathBuf};

use super::output::write_atomically;
use super::{InputError, Run, Sink, Summary, UnitResult, Verdict};
use crate::profile::Profile;

/// One line of a known-failures file.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Known {
    id: String,
    rules: String,
    profile: Option<Profile>,
}

/// `--write-expect-fail FILE`: every unit that diverged (or diverged as the
/// `--expect-fail` file said) as a line of the format `--expect-fail`
/// reads, `UNIT-ID RULE-ID[,RULE-ID...] [PROFILE]`, in report order.
/// A unit whose id the format cannot hold (white space or `#` in it) is
/// written as a comment saying so, never dropped silently.
pub struct ExpectFailWriter {
    path: PathBuf,
    run: Option<(String, Option<u64>)>,
    several: bool,
    known: Vec<Known>,
    unlisted: Vec<String>,
    not_run: u64,
}

impl ExpectFailWriter {
    /// A writer of the file at `path`, written when the run is over.
    #[must_use]
    pub fn new(path: PathBuf) -> ExpectFailWriter {
        ExpectFailWriter {
            path,
            run: None,
            several: false,
            known: Vec::new(),
            unlisted: Vec::new(),
            not_run: 0,
        }
    }

    /// The file's text.
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = format!(
            "# {} {}\n",
            super::EXPECT_FAIL_VERSION_TAG,
            super::EXPECT_FAIL_VERSION
        );
        out.push_str(
            "# Known divergences, written by kpe-check --write-expect-fail: pass this\n\
             # file to --expect-fail so that they do not fail the run (spec/REPORT.md).\n",
        );
        match &self.run {
            Some((source, Some(seed))) => out.push_str(&format!(
                "# Run: {source}, seed {seed} (pass --seed {seed} so that the random games are the same)\n"
            )),
            Some((source, None)) => out.push_str(&format!("# Run: {source}\n")),
            None => {}
        }
        if self.not_run > 0 {
            out.push_str(&format!(
                "# {} units were not run after a failure (a deeper perft, --max-failures, too\n\
                 # many diverging games): a run with this file may find more; write it again then.\n",
                self.not_run
            ));
        }
        for k in &self.known {
            out.push_str(&k.id);
            out.push(' ');
            out.push_str(&k.rules);
            if let Some(p) = k.profile.filter(|_| self.several) {
                out.push_str(&format!(" {p}"));
            }
            out.push('\n');
        }
        for id in &self.unlisted {
            out.push_str(&format!(
                "# not listed, its id holds white space or `#`: {id:?}\n"
            ));
        }
        out
    }
}

impl Sink for ExpectFailWriter {
    fn begin(&mut self, run: &Run) -> io::Result<()> {
        self.run = Some((run.source.clone(), run.certificate.seed));
        Ok(())
    }

    fn unit(&mut self, unit: &UnitResult) -> io::Result<()> {
        if unit.verdict == Verdict::Skipped
            && unit
                .reason
                .as_deref()
                .is_some_and(|r| r.starts_with("not run:"))
        {
            self.not_run += 1;
        }
        if !matches!(unit.verdict, Verdict::Diverges | Verdict::Expected) {
            return Ok(());
        }
        if unit.id.is_empty() || unit.id.contains(|c: char| c.is_whitespace() || c == '#') {
            self.unlisted.push(unit.id.clone());
            return Ok(());
        }
        let rules = unit
            .divergence
            .as_ref()
            .map(|d| d.rules.iter().collect::<Vec<_>>().join(","))
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "*".to_owned());
        if let (Some(p), Some(first)) = (unit.profile, self.known.first())
            && first.profile != Some(p)
        {
            self.several = true;
        }
        self.known.push(Known {
            id: unit.id.clone(),
            rules,
            profile: unit.profile,
        });
        Ok(())
    }

    fn finish(&mut self, _summary: &Summary) -> io::Result<()> {
        write_atomically(&self.path, self.text().as_bytes())
    }

    fn fail(&mut self, _error: &InputError) -> io::Result<()> {
        // Bad input says nothing of the engine: the old file stays.
        Ok(())
    }
}

/// What the badge says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Badge {
    /// The left half: always `Kpé rules`.
    pub label: String,
    /// The right half: the verdict, and how many units.
    pub message: String,
    /// A shields.io colour name.
    pub color: &'static str,
}

impl Badge {
    /// The badge of a finished run.
    #[must_use]
    pub fn of(summary: &Summary) -> Badge {
        use super::RunVerdict as V;
        let units = |n: u64| if n == 1 { "unit" } else { "units" };
        let checked = summary.units - summary.skipped;
        let (message, color) = match summary.verdict() {
            V::Conforms => (
                format!("conforms ({checked} {})", units(checked)),
                "brightgreen",
            ),
            V::Diverges => (
                format!(
                    "diverges ({} of {checked} {})",
                    summary.diverging,
                    units(checked)
                ),
                "red",
            ),
            V::Errored => (
                format!(
                    "errored ({} of {checked} {})",
                    summary.errored,
                    units(checked)
                ),
                "orange",
            ),
            V::NothingChecked => ("nothing checked".to_owned(), "lightgrey"),
            V::BadInput => ("bad input".to_owned(), "lightgrey"),
            V::Interrupted => ("interrupted".to_owned(), "lightgrey"),
        };
        Badge {
            label: "Kpé rules".to_owned(),
            message,
            color,
        }
    }

    /// The badge of a run that stopped on bad input.
    #[must_use]
    pub fn bad_input() -> Badge {
        Badge {
            label: "Kpé rules".to_owned(),
            message: "bad input".to_owned(),
            color: "lightgrey",
        }
    }

    /// The shields.io endpoint JSON (<https://shields.io/badges/endpoint-badge>).
    #[must_use]
    pub fn endpoint_json(&self) -> String {
        let value = serde_json::json!({
            "schemaVersion": 1,
            "label": self.label,
            "message": self.message,
            "color": self.color,
        });
        format!("{value:#}\n")
    }

    /// A flat SVG badge, drawn here so that no service is needed.
    #[must_use]
    pub fn svg(&self) -> String {
        let hex = match self.color {
            "brightgreen" => "#4c1",
            "red" => "#e05d44",
            "orange" => "#fe7d37",
            _ => "#9f9f9f",
        };
        let left = text_width(&self.label) + 10;
        let right = text_width(&self.message) + 10;
        let width = left + right;
        let label = html_escape::encode_text(&self.label);
        let message = html_escape::encode_text(&self.message);
        let (lx, rx) = (left * 5, left * 10 + right * 5);
        format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" aria-label="{label}: {message}">
<title>{label}: {message}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="{left}" height="20" fill="#555"/><rect x="{left}" width="{right}" height="20" fill="{hex}"/><rect width="{width}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="110">
<text x="{lx}" y="140" transform="scale(.1)" fill="#fff">{label}</text>
<text x="{rx}" y="140" transform="scale(.1)" fill="#fff">{message}</text>
</g>
</svg>
"##
        )
    }
}

/// The width of `text` in Verdana 11px, near enough for a badge: narrow,
/// wide and ordinary characters.
fn text_width(text: &str) -> u32 {
    text.chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | 'I' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' => 4,
            'f' | 't' | 'r' | ' ' | '(' | ')' | '-' => 5,
            'm' | 'w' | 'M' | 'W' => 11,
            c if c.is_ascii_uppercase() || c.is_ascii_digit() => 8,
            _ => 7,
        })
        .sum()
}

/// `--badge FILE`: the shields.io endpoint JSON to `FILE`, and the SVG
/// to `FILE` with the extension `svg`, when the run is over (or stopped
/// on bad input).
pub struct BadgeSink {
    path: PathBuf,
}

impl BadgeSink {
    /// A badge written to `path` (JSON) and `path` with `.svg` (SVG).
    #[must_use]
    pub fn new(path: PathBuf) -> BadgeSink {
        BadgeSink { path }
    }

    /// Where the SVG goes.
    #[must_use]
    pub fn svg_path(path: &Path) -> PathBuf {
        path.with_extension("svg")
    }

    fn write(&self, badge: &Badge) -> io::Result<()> {
        write_atomically(&self.path, badge.endpoint_json().as_bytes())?;
        write_atomically(&Self::svg_path(&self.path), badge.svg().as_bytes())
    }
}

impl Sink for BadgeSink {
    fn begin(&mut self, _run: &Run) -> io::Result<()> {
        Ok(())
    }

    fn unit(&mut self, _unit: &UnitResult) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        self.write(&Badge::of(summary))
    }

    fn fail(&mut self, _error: &InputError) -> io::Result<()> {
        self.write(&Badge::bad_input())
    }
}

/// `--write-scenarios FILE`: the run's reproductions (the scenario of each
/// group's example, as the reports print them) appended to the scenario
/// file `FILE`, which is made, with a header, when absent. Written when the
/// run is over, through a temporary file renamed into place; nothing is
/// written when an id is already taken (in the suite the run was given,
/// or in `FILE`) or when the appended text would not extend `FILE`'s
/// `scenarios:` list. Perft reproductions (which go to `perft.yaml`) are
/// not written.
pub struct ScenarioWriter {
    path: PathBuf,
    taken: Vec<(String, String)>,
    groups: super::Groups,
}

/// The start of a scenario file `--write-scenarios` makes.
pub const SCENARIO_FILE_HEADER: &str = "\
# Reproductions written by kpe-check --write-scenarios: each scenario pins
# the rules' answer where an engine diverged (spec/SCENARIOS.md).
version: 1
topic: reproductions
scenarios:
";

impl ScenarioWriter {
    /// A writer of the file at `path`, refusing the scenario ids of
    /// `taken` (each with where it is, for the message).
    #[must_use]
    pub fn new(path: PathBuf, taken: Vec<(String, String)>) -> ScenarioWriter {
        ScenarioWriter {
            path,
            taken,
            groups: super::Groups::default(),
        }
    }

    /// The reproductions of the units seen so far, in report order.
    #[must_use]
    pub fn scenarios(&self) -> Vec<&crate::scenario::Scenario> {
        self.groups
            .sorted()
            .into_iter()
            .filter(|g| g.verdict != Verdict::Errored)
            .filter_map(|g| g.example.divergence.as_ref()?.scenario.as_ref())
            .collect()
    }

    /// The file's new text: its old text (or the header) and the
    /// reproductions.
    ///
    /// # Errors
    ///
    /// `FILE` cannot be read or does not load, an id is taken, or the
    /// result would not load with the new scenarios in it: the message
    /// says which and where.
    pub fn text(&self) -> Result<Option<String>, String> {
        let new = self.scenarios();
        if new.is_empty() {
            return Ok(None);
        }
        let name = self.path.display().to_string();
        let old = match std::fs::read_to_string(&self.path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(format!("{name}: cannot read it: {e}")),
        };
        let old_ids: Vec<String> = match &old {
            Some(text) => crate::scenario::parse_file(&name, text)
                .map_err(|e| format!("{name} does not load as a scenario file:\n{e}"))?
                .scenarios
                .into_iter()
                .map(|s| s.id)
                .collect(),
            None => Vec::new(),
        };
        for s in &new {
            if let Some((_, place)) = self.taken.iter().find(|(id, _)| *id == s.id) {
                return Err(format!(
                    "{name}: scenario id `{}` is already in {place}; nothing was written",
                    s.id
                ));
            }
            if old_ids.contains(&s.id) {
                return Err(format!(
                    "{name}: scenario id `{}` is already in this file; nothing was written",
                    s.id
                ));
            }
        }
        let mut text = old.unwrap_or_else(|| SCENARIO_FILE_HEADER.to_owned());
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&crate::scenario::scenario_entries(&new));
        let extended = crate::scenario::parse_file(&name, &text)
            .map(|f| f.scenarios.len() == old_ids.len() + new.len())
            .unwrap_or(false);
        if !extended {
            return Err(format!(
                "{name}: the reproductions appended would not extend its `scenarios:` list \
                 (it must be the last thing in the file); nothing was written"
            ));
        }
        Ok(Some(text))
    }
}

impl Sink for ScenarioWriter {
    fn begin(&mut self, _run: &Run) -> io::Result<()> {
        Ok(())
    }

    fn unit(&mut self, unit: &UnitResult) -> io::Result<()> {
        self.groups.add(unit);
        Ok(())
    }

    fn finish(&mut self, _summary: &Summary) -> io::Result<()> {
        match self.text() {
            Ok(Some(text)) => write_atomically(&self.path, text.as_bytes()),
            Ok(None) => Ok(()),
            Err(message) => Err(io::Error::new(io::ErrorKind::InvalidInput, message)),
        }
    }

    fn fail(&mut self, _error: &InputError) -> io::Result<()> {
        // Bad input says nothing of the engine: the file stays as it was.
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_svg_escapes_what_it_shows_and_widens_with_the_message() {
        let mut badge = Badge::bad_input();
        badge.message = "<&>".to_owned();
        let svg = badge.svg();
        assert!(svg.contains("&lt;&amp;&gt;"), "{svg}");
        assert!(!svg.contains("<&>"));
        let short = Badge::bad_input().svg();
        let mut long = Badge::bad_input();
        long.message = "a much longer message than that".to_owned();
        let width = |s: &str| {
            let at = s.find("width=\"").unwrap() + 7;
            s[at..].split('"').next().unwrap().parse::<u32>().unwrap()
        };
        assert!(width(&long.svg()) > width(&short));
    }

    /// A unit diverging with a reproduction of id `id`.
    fn diverging(id: &str) -> UnitResult {
        let scenario = crate::scenario::parse_file(
            "x.yaml",
            &format!("topic: t\nscenarios:\n  - id: {id}\n    rules: [SOW-2]\n    moves: [S4]\n    expect:\n      - ply: 1\n        landing: S2\n"),
        )
        .unwrap()
        .scenarios
        .remove(0);
        UnitResult::diverging(
            "scenario",
            "u".to_owned(),
            None,
            1,
            crate::judge::Divergence {
                ply: Some(1),
                before: None,
                mv: None,
                fields: vec![crate::judge::FieldDiff::new("after", "a", "b")],
                rules: ["SOW-2"].into_iter().collect(),
                notes: vec![],
                scenario: Some(scenario),
                perft: None,
                counts: vec![],
            },
        )
    }

    #[test]
    fn scenarios_are_appended_only_where_they_extend_the_list() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("found.yaml");
        let mut writer = ScenarioWriter::new(path.clone(), vec![]);
        writer.unit(&diverging("new-one")).unwrap();
        // A file whose `scenarios:` list is not last: refused, untouched.
        let not_last = "scenarios:\n  - id: old\n    rules: [SOW-2]\n    moves: [S4]\n    expect:\n      - ply: 1\n        landing: S2\ntopic: t\n";
        std::fs::write(&path, not_last).unwrap();
        let err = writer.finish(&Summary::default()).unwrap_err();
        assert!(
            err.to_string()
                .contains("would not extend its `scenarios:` list"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), not_last);
        // Without a final newline: one is added, and the list grows.
        let last = "topic: t\nscenarios:\n  - id: old\n    rules: [SOW-2]\n    moves: [S4]\n    expect:\n      - ply: 1\n        landing: S2";
        std::fs::write(&path, last).unwrap();
        writer.finish(&Summary::default()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let ids: Vec<String> = crate::scenario::parse_file("f", &text)
            .unwrap()
            .scenarios
            .into_iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(ids, ["old", "new-one"]);
        // An id the suite holds: refused, with where it is.
        let mut taken = ScenarioWriter::new(
            path.clone(),
            vec![("new-one".to_owned(), "suite/a.yaml".to_owned())],
        );
        taken.unit(&diverging("new-one")).unwrap();
        std::fs::remove_file(&path).unwrap();
        let err = taken.finish(&Summary::default()).unwrap_err();
        assert!(
            err.to_string()
                .contains("`new-one` is already in suite/a.yaml"),
            "{err}"
        );
        assert!(!path.exists());
        // No reproduction: no file.
        ScenarioWriter::new(path.clone(), vec![])
            .finish(&Summary::default())
            .unwrap();
        assert!(!path.exists());
    }
}
