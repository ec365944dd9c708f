//! Where check results go: a report for people, JSON, JUnit XML.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use anstyle::{AnsiColor, Style};
use quick_junit::{NonSuccessKind, Report as JunitReport, TestCase, TestCaseStatus, TestSuite};

use super::input::InputError;
use super::report::{Divergence, FieldDiff, Run, RunKind, Summary, UnitResult};
use super::rules::{RULE_IDS, rule_title};

/// Receives a check run's results as they are produced.
pub trait Sink {
    /// The run starts (its header is known).
    ///
    /// # Errors
    ///
    /// When the report cannot be written.
    fn begin(&mut self, run: &Run) -> io::Result<()>;

    /// One unit is done.
    ///
    /// # Errors
    ///
    /// When the report cannot be written.
    fn unit(&mut self, unit: &UnitResult) -> io::Result<()>;

    /// The run is over.
    ///
    /// # Errors
    ///
    /// When the report cannot be written.
    fn finish(&mut self, summary: &Summary) -> io::Result<()>;

    /// The run stopped on bad input (possibly before [`Sink::begin`]).
    ///
    /// # Errors
    ///
    /// When the report cannot be written.
    fn fail(&mut self, error: &InputError) -> io::Result<()>;
}

/// Several sinks at once.
pub struct Tee<'a>(pub Vec<&'a mut dyn Sink>);

impl Sink for Tee<'_> {
    fn begin(&mut self, run: &Run) -> io::Result<()> {
        self.0.iter_mut().try_for_each(|s| s.begin(run))
    }
    fn unit(&mut self, unit: &UnitResult) -> io::Result<()> {
        self.0.iter_mut().try_for_each(|s| s.unit(unit))
    }
    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        self.0.iter_mut().try_for_each(|s| s.finish(summary))
    }
    fn fail(&mut self, error: &InputError) -> io::Result<()> {
        self.0.iter_mut().try_for_each(|s| s.fail(error))
    }
}

// ---------------------------------------------------------------------------
// For people
// ---------------------------------------------------------------------------

const GOOD: Style = AnsiColor::Green.on_default().bold();
const BAD: Style = AnsiColor::Red.on_default().bold();
const EXPECTED: Style = AnsiColor::Green.on_default();
const CLAIMED: Style = AnsiColor::Red.on_default();
const HEAD: Style = Style::new().bold();
const DIM: Style = Style::new().dimmed();

/// The report for people. It writes ANSI colour codes; wrap the writer in
/// an [`anstream::AutoStream`] to drop them when the output is not a
/// terminal or `NO_COLOR` is set.
pub struct HumanSink<W> {
    out: W,
    run: Option<Run>,
    /// Whether the last line written was blank.
    blank: bool,
}

impl<W: Write> HumanSink<W> {
    /// A report written to `out`.
    pub fn new(out: W) -> HumanSink<W> {
        HumanSink {
            out,
            run: None,
            blank: false,
        }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

fn unit_name(unit: &UnitResult) -> String {
    match &unit.location {
        Some(loc) => format!("{} {} ({loc})", unit.kind, unit.id),
        None => format!("{} {}", unit.kind, unit.id),
    }
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The text of one diverging unit, with ANSI styles.
pub(crate) fn divergence_text(unit: &UnitResult, d: &Divergence) -> String {
    let mut s = String::new();
    let at = match (d.ply, d.before, d.mv) {
        (Some(ply), Some(before), Some(mv)) => {
            format!(" at ply {ply}: {} plays {mv}", before.to_move())
        }
        (Some(ply), _, _) => format!(" at ply {ply}"),
        _ => String::new(),
    };
    let _ = writeln!(s, "{BAD}✗ {} diverges{at}{BAD:#}", unit_name(unit));
    if let Some(before) = d.before {
        let _ = writeln!(s, "\n  {HEAD}position before{HEAD:#}  {before}\n");
        for line in before.diagram().lines() {
            let _ = writeln!(s, "    {line}");
        }
    }
    if let Some(mv) = d.mv {
        let _ = writeln!(s, "\n  {HEAD}move{HEAD:#}  {mv}");
    }
    let _ = writeln!(
        s,
        "\n  {HEAD}differences{HEAD:#} (expected by the rules, claimed by the engine)"
    );
    for field in &d.fields {
        field_text(&mut s, field, 4);
    }
    let _ = writeln!(s, "\n  {HEAD}rules{HEAD:#}");
    for id in d.rules.iter() {
        let _ = writeln!(
            s,
            "    {id:<7} {DIM}{}{DIM:#}",
            rule_title(id).unwrap_or_default()
        );
    }
    for note in &d.notes {
        let _ = writeln!(s, "  {HEAD}note{HEAD:#}  {note}");
    }
    if let Some(yaml) = d.scenario_yaml() {
        let _ = writeln!(
            s,
            "\n  {HEAD}reproduce it{HEAD:#}: this scenario, pasted under `scenarios:` in a conformance/*.yaml file, pins the rules' answer"
        );
        for line in yaml.lines() {
            let _ = writeln!(s, "    {line}");
        }
    }
    s
}

fn field_text(s: &mut String, field: &FieldDiff, indent: usize) {
    let pad = " ".repeat(indent);
    let rules = if field.rules.is_empty() {
        String::new()
    } else {
        format!("   [{}]", field.rules)
    };
    let _ = writeln!(s, "{pad}{HEAD}{}{HEAD:#}{rules}", field.field);
    let _ = writeln!(
        s,
        "{pad}  expected  {EXPECTED}{}{EXPECTED:#}",
        field.expected
    );
    let _ = writeln!(s, "{pad}  claimed   {CLAIMED}{}{CLAIMED:#}", field.claimed);
    for detail in &field.details {
        field_text(s, detail, indent + 2);
    }
}

/// The summary lines, with ANSI styles.
pub(crate) fn summary_text(summary: &Summary, kind: RunKind) -> String {
    let unit = match kind {
        RunKind::Transcript => "game",
        RunKind::Engine => "unit",
    };
    let mut s = String::new();
    let verdict = if summary.conforms() {
        format!("{GOOD}conforms{GOOD:#}")
    } else {
        format!("{BAD}diverges{BAD:#}")
    };
    let _ = writeln!(
        s,
        "{HEAD}summary{HEAD:#}: {verdict}: {} checked, {} conform, {} diverge; {} checked",
        plural(summary.units, unit),
        summary.conforming,
        summary.diverging(),
        plural(summary.plies, "ply").replace("plys", "plies"),
    );
    let _ = writeln!(
        s,
        "{HEAD}rules exercised{HEAD:#} by conforming plies ({} of {}): {}",
        summary.rules.len(),
        RULE_IDS.len(),
        if summary.rules.is_empty() {
            "none".to_owned()
        } else {
            summary.rules.to_string()
        }
    );
    if let Some(reading) = &summary.reading {
        let _ = writeln!(
            s,
            "{HEAD}reading{HEAD:#}: claimed {}, but {reading}",
            reading.claimed
        );
        if reading.conforms_under.len() > reading.closest().len()
            && reading.free_switches().is_none()
        {
            let all: Vec<String> = reading
                .conforms_under
                .iter()
                .map(ToString::to_string)
                .collect();
            let _ = writeln!(s, "  every profile that explains it: {}", all.join(" | "));
        }
    }
    s
}

impl<W: Write> Sink for HumanSink<W> {
    fn begin(&mut self, run: &Run) -> io::Result<()> {
        let what = match (&run.kind, &run.engine) {
            (RunKind::Transcript, Some(e)) => format!("a transcript by {} {}", e.name, e.version),
            (RunKind::Transcript, None) => "a transcript".to_owned(),
            (RunKind::Engine, Some(e)) => format!("the engine {} {}", e.name, e.version),
            (RunKind::Engine, None) => "an engine".to_owned(),
        };
        writeln!(
            self.out,
            "{HEAD}kpe-check{HEAD:#} {}: {what}, claiming the rules profile {HEAD}{}{HEAD:#}\n",
            run.source, run.profile
        )?;
        self.run = Some(run.clone());
        self.blank = true;
        Ok(())
    }

    fn unit(&mut self, unit: &UnitResult) -> io::Result<()> {
        match &unit.divergence {
            None => {
                self.blank = false;
                writeln!(
                    self.out,
                    "{GOOD}✓{GOOD:#} {} conforms ({})",
                    unit_name(unit),
                    plural(unit.plies, "ply").replace("plys", "plies")
                )
            }
            Some(d) => {
                let gap = if self.blank { "" } else { "\n" };
                self.blank = true;
                writeln!(self.out, "{gap}{}", divergence_text(unit, d))
            }
        }
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        let kind = self.run.as_ref().map_or(RunKind::Transcript, |r| r.kind);
        let gap = if self.blank { "" } else { "\n" };
        write!(self.out, "{gap}{}", summary_text(summary, kind))?;
        self.out.flush()
    }

    fn fail(&mut self, _: &InputError) -> io::Result<()> {
        // The error itself goes to standard error.
        self.out.flush()
    }
}

// ---------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------

/// The JSON report (`--format json`): one object, written as results come,
/// so that it is complete and valid even when the input turns out bad
/// half-way (it then ends with an `error` member).
///
/// `{"format": "kpe-check-report", "version": 1, "run": {...}, "units": [...],
/// "summary": {...}, "conforms": true}`
pub struct JsonSink<W> {
    out: W,
    begun: bool,
    units: u64,
}

impl<W: Write> JsonSink<W> {
    /// A JSON report written to `out`.
    pub fn new(out: W) -> JsonSink<W> {
        JsonSink {
            out,
            begun: false,
            units: 0,
        }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }

    fn open(&mut self, run: Option<&Run>) -> io::Result<()> {
        write!(
            self.out,
            "{{\"format\":\"kpe-check-report\",\"version\":1,\"run\":{},\"units\":[",
            serde_json::to_string(&run)?
        )?;
        self.begun = true;
        Ok(())
    }
}

impl<W: Write> Sink for JsonSink<W> {
    fn begin(&mut self, run: &Run) -> io::Result<()> {
        self.open(Some(run))
    }

    fn unit(&mut self, unit: &UnitResult) -> io::Result<()> {
        let sep = if self.units == 0 { "" } else { "," };
        self.units += 1;
        write!(self.out, "{sep}\n{}", serde_json::to_string(unit)?)
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        if !self.begun {
            self.open(None)?;
        }
        let reading = summary.reading.as_ref().map(|r| {
            serde_json::json!({
                "claimed": r.claimed,
                "explained": r.explained(),
                "closest": r.closest(),
                "conforms_under": r.conforms_under,
                "rechecked": r.rechecked,
                "kept_as_claimed": r.kept_as_claimed.iter().map(|s| s.name()).collect::<Vec<_>>(),
                "text": r.to_string(),
            })
        });
        let summary_json = serde_json::json!({
            "units": summary.units,
            "conforming": summary.conforming,
            "diverging": summary.diverging(),
            "plies": summary.plies,
            "rules_exercised": summary.rules,
            "reading": reading,
        });
        writeln!(
            self.out,
            "\n],\"summary\":{summary_json},\"conforms\":{}}}",
            summary.conforms()
        )?;
        self.out.flush()
    }

    fn fail(&mut self, error: &InputError) -> io::Result<()> {
        if !self.begun {
            self.open(None)?;
        }
        let mut e = serde_json::json!({"code": error.code(), "file": error.file, "message": error.to_string()});
        match &error.kind {
            super::input::InputErrorKind::Json {
                path, line, column, ..
            } => {
                e["path"] = path.as_str().into();
                e["line"] = (*line).into();
                e["column"] = (*column).into();
            }
            super::input::InputErrorKind::TooLong { line, column, .. } => {
                e["line"] = (*line).into();
                e["column"] = (*column).into();
            }
            _ => {}
        }
        writeln!(self.out, "\n],\"error\":{e}}}")?;
        self.out.flush()
    }
}

// ---------------------------------------------------------------------------
// JUnit XML
// ---------------------------------------------------------------------------

/// A JUnit XML report for CI systems (`--junit FILE`): one test case per
/// unit, written to the file when the run ends. It keeps one small record
/// per unit until then.
pub struct JunitSink {
    path: PathBuf,
    suite: TestSuite,
    source: String,
    engine: String,
}

impl JunitSink {
    /// A report to be written to `path`.
    #[must_use]
    pub fn new(path: PathBuf) -> JunitSink {
        JunitSink {
            path,
            suite: TestSuite::new("kpe-check"),
            source: String::new(),
            engine: "engine".to_owned(),
        }
    }

    fn write(&mut self, out_text: String) -> io::Result<()> {
        let mut suite = std::mem::replace(&mut self.suite, TestSuite::new("kpe-check"));
        suite.set_system_out(out_text);
        let mut report = JunitReport::new(format!("kpe-check {}", self.source));
        report.add_test_suite(suite);
        let xml = report.to_string().map_err(io::Error::other)?;
        std::fs::write(&self.path, xml)
    }
}

impl Sink for JunitSink {
    fn begin(&mut self, run: &Run) -> io::Result<()> {
        self.source = run.source.clone();
        if let Some(e) = &run.engine {
            self.engine = format!("{} {}", e.name, e.version);
        }
        self.suite = TestSuite::new(format!("kpe-check {} ({})", run.source, run.profile));
        self.suite
            .add_property(("profile", run.profile.to_string().as_str()));
        Ok(())
    }

    fn unit(&mut self, unit: &UnitResult) -> io::Result<()> {
        let name = unit_name(unit);
        let status = match &unit.divergence {
            None => TestCaseStatus::success(),
            Some(d) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                let fields: Vec<&str> = d.fields.iter().map(|f| f.field.as_str()).collect();
                let at = d.ply.map(|p| format!("ply {p}: ")).unwrap_or_default();
                status.set_message(format!("{at}{} differs ({})", fields.join(", "), d.rules));
                status.set_type(d.rules.to_string());
                status.set_description(
                    anstream::adapter::strip_str(&divergence_text(unit, d)).to_string(),
                );
                status
            }
        };
        let mut case = TestCase::new(name, status);
        case.set_classname(self.engine.clone());
        self.suite.add_test_case(case);
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        let text =
            anstream::adapter::strip_str(&summary_text(summary, RunKind::Transcript)).to_string();
        self.write(text)
    }

    fn fail(&mut self, error: &InputError) -> io::Result<()> {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_message(error.to_string());
        status.set_type(format!("bad input ({})", error.code()));
        self.suite.add_test_case(TestCase::new("input", status));
        self.write(format!("error: {error}\n"))
    }
}
