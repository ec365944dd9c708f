//! Where check results go: a report for people, JSON, JUnit XML. Each is a
//! view of the report model (`report.rs`) and only reads it.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use anstyle::{AnsiColor, Style};

use super::input::{InputError, InputErrorKind};
use super::report::{
    Certificate, Collected, Group, GroupRef, Groups, InputErrorReport, JsonReport, ProfileSummary,
    REPORT_FORMAT, REPORT_VERSION, Run, RunKind, RunVerdict, Summary, UnitResult, Verdict,
};
use crate::judge::{Divergence, FieldDiff};
use crate::judge::{RULE_IDS, rule_title};

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

    /// The run stopped on bad input (possibly before [`Sink::begin`], or
    /// after some units were reported).
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
const WARN: Style = AnsiColor::Yellow.on_default().bold();
const EXPECTED: Style = AnsiColor::Green.on_default();
const CLAIMED: Style = AnsiColor::Red.on_default();
const HEAD: Style = Style::new().bold();
const DIM: Style = Style::new().dimmed();

/// How much the report for people shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Detail {
    /// Only the verdict line (`-q`).
    Quiet,
    /// The summary block, then each group of divergences once (default).
    #[default]
    Normal,
    /// Also every unit that passed or was skipped (`--verbose`).
    Verbose,
}

/// The report for people: a summary block read in seconds (verdict,
/// counts, broken rules, reading), then the divergences grouped, each group
/// shown once by its smallest example. It is written when the run ends. It
/// writes ANSI colour codes; wrap the writer in an [`anstream::AutoStream`]
/// to drop them when the output is not a terminal or `NO_COLOR` is set.
pub struct HumanSink<W> {
    out: W,
    detail: Detail,
    run: Option<Run>,
    collected: Collected,
    /// Units that errored, then conformed on a retry, as listed.
    flaky: Vec<String>,
    /// Units listed with `--verbose`: passes and skips, one line each,
    /// kept in a temporary file until the end (in memory if none can be
    /// made), so memory does not grow with the units.
    listed: Option<Spool>,
}

impl<W: Write> HumanSink<W> {
    /// A report written to `out`, at the default detail.
    pub fn new(out: W) -> HumanSink<W> {
        HumanSink::with_detail(out, Detail::Normal)
    }

    /// A report written to `out`, showing `detail`.
    pub fn with_detail(out: W, detail: Detail) -> HumanSink<W> {
        HumanSink {
            out,
            detail,
            run: None,
            collected: Collected::default(),
            flaky: Vec::new(),
            listed: None,
        }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

fn plural(n: u64, word: &str) -> String {
    let words = match word {
        "ply" => "plies",
        "unit" => "units",
        "game" => "games",
        other => return format!("{n} {other}{}", if n == 1 { "" } else { "s" }),
    };
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {words}")
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
    let verb = if unit.verdict == Verdict::Expected {
        "diverges as expected"
    } else {
        "diverges"
    };
    let _ = writeln!(s, "{BAD}✗ {} {verb}{at}{BAD:#}", unit.label());
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
            "\n  {HEAD}reproduce it{HEAD:#}: this scenario, appended as printed to a conformance/*.yaml file (or with --write-scenarios FILE), pins the rules' answer"
        );
        s.push_str(&yaml);
    }
    if let Some(yaml) = d.perft_yaml() {
        let _ = writeln!(
            s,
            "\n  {HEAD}reproduce it{HEAD:#}: this perft table, appended as printed to conformance/perft.yaml, pins the rules' counts"
        );
        s.push_str(&yaml);
    }
    s
}

/// The text of one errored unit, with ANSI styles.
pub(crate) fn error_text(unit: &UnitResult) -> String {
    let mut s = String::new();
    let Some(e) = &unit.error else {
        return s;
    };
    let at = e.ply.map(|p| format!(" at ply {p}")).unwrap_or_default();
    let _ = writeln!(
        s,
        "{WARN}! {} errored{at}: {} ({}){WARN:#}",
        unit.label(),
        e.message,
        e.code
    );
    if let Some(request) = &e.request {
        let _ = writeln!(s, "  {HEAD}request{HEAD:#}  {request}");
    }
    if e.stderr.is_empty() {
        let _ = writeln!(s, "  {HEAD}stderr{HEAD:#}   (empty)");
    } else {
        let _ = writeln!(
            s,
            "  {HEAD}stderr{HEAD:#}   {} bytes in all, last lines:",
            e.stderr_bytes
        );
        for line in &e.stderr {
            let _ = writeln!(s, "    | {line}");
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

fn verdict_word(verdict: RunVerdict) -> String {
    padded_verdict(verdict, 0)
}

/// The verdict in capitals with its exit code, padded to `width` columns
/// (the padding outside the colour codes).
fn padded_verdict(verdict: RunVerdict, width: usize) -> String {
    let style = match verdict {
        RunVerdict::Conforms => GOOD,
        RunVerdict::Diverges | RunVerdict::BadInput => BAD,
        RunVerdict::Errored | RunVerdict::NothingChecked => WARN,
        RunVerdict::Interrupted => BAD,
    };
    let word = verdict.name().to_uppercase();
    let plain = format!("{word} (exit {})", verdict.exit_code());
    let pad = width.saturating_sub(plain.chars().count());
    format!(
        "{style}{word}{style:#} (exit {}){}",
        verdict.exit_code(),
        " ".repeat(pad)
    )
}

/// The counts as one phrase: `133 conform, 33 diverge, 87 skipped`; zero
/// counts other than conforming are left out.
pub(crate) fn counts_text(c: &super::report::Counts) -> String {
    let mut parts = vec![format!("{} conform", c.conforms)];
    for (n, word) in [
        (c.diverges, "diverge"),
        (c.errored, "errored"),
        (c.expected, "diverge as expected"),
        (c.fixed, "fixed"),
        (c.skipped, "skipped"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    parts.join(", ")
}

/// The summary block, with ANSI styles: the verdict first, then what a
/// person needs to act on it.
pub(crate) fn summary_text(run: Option<&Run>, summary: &Summary) -> String {
    let mut s = String::new();
    let kind = run.map_or(RunKind::Transcript, |r| r.kind);
    let unit = match kind {
        RunKind::Transcript => "game",
        RunKind::Engine => "unit",
    };
    let verdict = match &summary.interrupted {
        Some(signal) => format!("{BAD}INTERRUPTED{BAD:#} by {signal}"),
        None => verdict_word(summary.verdict()),
    };
    let _ = writeln!(s, "  {HEAD}verdict{HEAD:#}   {verdict}");
    let counts = summary.counts();
    let _ = writeln!(
        s,
        "  {HEAD}{:<9}{HEAD:#} {} ({} in all; {} compared)",
        format!("{unit}s"),
        counts_text(&counts),
        plural(counts.units, unit),
        plural(counts.plies, "ply"),
    );
    if counts.verdict() == RunVerdict::NothingChecked {
        let _ = writeln!(
            s,
            "  {WARN}nothing was checked{WARN:#}: {}",
            match kind {
                // A note says how many games the filters left out.
                RunKind::Transcript
                    if summary
                        .notes
                        .iter()
                        .any(|n| n.ends_with(super::report::LEFT_OUT)) =>
                {
                    "every game was left out by --only/--skip (see the note)"
                }
                RunKind::Transcript => "the transcript has no games",
                RunKind::Engine => "every unit was skipped or filtered out",
            }
        );
    }
    if !summary.broken.is_empty() {
        let broken: Vec<String> = summary
            .broken
            .iter()
            .map(|c| format!("{} ({})", c.rule, plural(c.units, unit)))
            .collect();
        let _ = writeln!(s, "  {HEAD}broken{HEAD:#}    {}", broken.join(", "));
    }
    if let Some(reading) = &summary.reading {
        let _ = writeln!(
            s,
            "  {HEAD}reading{HEAD:#}   claimed {}, but {}",
            reading.claimed,
            reading.sentence()
        );
    }
    if summary.profiles.len() > 1 {
        profiles_text(&mut s, &summary.profiles);
    }
    if let Some(run) = run {
        certificate_text(&mut s, &run.certificate);
    }
    for note in &summary.notes {
        // A note of several lines keeps them under its first.
        let note = note.replace('\n', "\n            ");
        let _ = writeln!(s, "  {HEAD}note{HEAD:#}      {note}");
    }
    s
}

/// The summary's table of the profiles checked, one row each with its
/// verdict and counts, and the reading that explains it under it.
fn profiles_text(s: &mut String, profiles: &[ProfileSummary]) {
    let _ = writeln!(s, "  {HEAD}profiles{HEAD:#}  {} checked:", profiles.len());
    let width = profiles
        .iter()
        .map(|p| p.profile.to_string().len())
        .max()
        .unwrap_or(7);
    for row in profiles {
        let _ = writeln!(
            s,
            "    {:<width$}  {}  {}",
            row.profile.to_string(),
            padded_verdict(row.verdict, 25),
            counts_text(&row.counts)
        );
        if let Some(reading) = &row.reading {
            let _ = writeln!(s, "    {:<width$}  {DIM}{}{DIM:#}", "", reading.sentence());
        }
    }
}

/// The summary's lines of the certificate a person repeats a run with: the
/// seed and the shard.
fn certificate_text(s: &mut String, c: &Certificate) {
    if let Some(seed) = c.seed {
        let _ = writeln!(
            s,
            "  {HEAD}seed{HEAD:#}      {seed} (repeat the random games with --seed {seed})"
        );
    }
    if let Some(shard) = c.shard {
        let _ = writeln!(
            s,
            "  {HEAD}shard{HEAD:#}     {shard} of the units (combine shard reports with kpe-check merge)"
        );
    }
}

/// The line on the rules the conforming plies exercised.
fn rules_text(summary: &Summary) -> String {
    format!(
        "{HEAD}rules exercised{HEAD:#} by conforming plies ({} of {}): {}\n",
        summary.rules.len(),
        RULE_IDS.len(),
        if summary.rules.is_empty() {
            "none".to_owned()
        } else {
            summary.rules.to_string()
        }
    )
}

fn group_text(number: usize, group: &Group, unit: &str) -> String {
    let mut s = String::new();
    let what = match group.verdict {
        Verdict::Errored => "errored",
        Verdict::Expected => "diverged as expected",
        _ => "diverged",
    };
    let _ = writeln!(
        s,
        "{HEAD}── {number}. {}: {} {what} ──{HEAD:#}",
        group.title(),
        plural(group.count, unit)
    );
    if group.count > 1 {
        let _ = writeln!(s, "the smallest example:");
    }
    match &group.example.divergence {
        Some(d) if group.verdict != Verdict::Errored => {
            s.push_str(&divergence_text(&group.example, d))
        }
        _ => s.push_str(&error_text(&group.example)),
    }
    if group.count > 1 {
        let more = group.count - 1 - group.others.len() as u64;
        let tail = if more > 0 {
            format!(", and {more} more")
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "\n  {HEAD}also{HEAD:#}  {}{tail}",
            group.others.join(", ")
        );
    }
    s
}

impl<W: Write> HumanSink<W> {
    /// The groups of failing units, each shown once by its smallest
    /// example, or a blank line if none failed.
    fn write_groups(&mut self) -> io::Result<()> {
        let groups = self.collected.groups.sorted();
        if !groups.is_empty() {
            let n = groups.len();
            writeln!(
                self.out,
                "\n{} of failing units, each shown once by its smallest example:\n",
                if n == 1 {
                    "1 group".to_owned()
                } else {
                    format!("{n} groups")
                }
            )?;
            let unit = match self.run.as_ref().map(|r| r.kind) {
                Some(RunKind::Engine) => "unit",
                _ => "game",
            };
            for (k, group) in groups.iter().enumerate() {
                writeln!(self.out, "{}", group_text(k + 1, group, unit))?;
            }
        } else {
            writeln!(self.out)?;
        }
        Ok(())
    }

    /// The lists after the groups: expect-fail entries now fixed, units
    /// that conformed only when run again, and the skipped units' reasons
    /// (unless --verbose listed each).
    fn write_lists(&mut self) -> io::Result<()> {
        if !self.collected.fixed.is_empty() {
            writeln!(
                self.out,
                "{GOOD}fixed{GOOD:#}: {} listed in the expect-fail file now conform{}; remove their lines: {}",
                self.collected.fixed.len(),
                if self.collected.fixed.len() == 1 {
                    "s"
                } else {
                    ""
                },
                self.collected.fixed.join(", ")
            )?;
        }
        if !self.flaky.is_empty() {
            writeln!(
                self.out,
                "{WARN}flaky{WARN:#}: {} errored, then conformed when run again (--retries, or a start past its timeout): {}",
                plural(self.flaky.len() as u64, "unit"),
                self.flaky.join("; ")
            )?;
        }
        if !self.collected.skips.is_empty() && self.detail != Detail::Verbose {
            let reasons: Vec<String> = self
                .collected
                .skips
                .iter()
                .map(|(reason, n)| format!("{n} {reason}"))
                .collect();
            writeln!(
                self.out,
                "{HEAD}skipped{HEAD:#}: {} (--verbose lists them)",
                reasons.join("; ")
            )?;
        }
        Ok(())
    }
}

/// What the run checked and the rules it claims, for the report's first
/// line: "a transcript by NAME VERSION, claiming the rules profile P".
fn run_title(run: Option<&Run>) -> String {
    let (what, claims) = run_described(run, |p| format!("{HEAD}{p}{HEAD:#}"));
    format!("{what}, claiming {claims}")
}

/// What a run checked ("a transcript by X 1.0", "the engine X 1.0") and
/// what it claims ("the rules profile P", with P as `profile` writes it),
/// for the report's first line and the HTML page's introduction.
pub(super) fn run_described(
    run: Option<&Run>,
    profile: impl FnOnce(&crate::profile::Profile) -> String,
) -> (String, String) {
    let what = match run.map(|r| (r.kind, &r.engine)) {
        Some((RunKind::Transcript, Some(e))) => {
            format!("a transcript by {} {}", e.name, e.version)
        }
        Some((RunKind::Transcript, None)) | None => "a transcript".to_owned(),
        Some((RunKind::Engine, Some(e))) => format!("the engine {} {}", e.name, e.version),
        Some((RunKind::Engine, None)) => "an engine".to_owned(),
    };
    let claims = match run {
        Some(r) if r.profiles.len() > 1 => format!("{} rules profiles", r.profiles.len()),
        Some(r) => format!("the rules profile {}", profile(&r.profile)),
        None => "no profile".to_owned(),
    };
    (what, claims)
}

impl<W: Write> Sink for HumanSink<W> {
    fn begin(&mut self, run: &Run) -> io::Result<()> {
        self.run = Some(run.clone());
        Ok(())
    }

    fn unit(&mut self, unit: &UnitResult) -> io::Result<()> {
        self.collected.add(unit);
        if unit.verdict == Verdict::Conforms && !unit.retried.is_empty() {
            let first = &unit.retried[0];
            self.flaky.push(format!(
                "{} (errored {}, first: {})",
                unit.label(),
                plural(unit.retried.len() as u64, "time"),
                first.message
            ));
        }
        if self.detail == Detail::Verbose {
            let line = match unit.verdict {
                Verdict::Conforms => format!(
                    "{GOOD}✓{GOOD:#} {} conforms ({})",
                    unit.label(),
                    plural(unit.plies, "ply")
                ),
                Verdict::Skipped => format!(
                    "{DIM}- {} skipped: {}{DIM:#}",
                    unit.label(),
                    unit.reason.as_deref().unwrap_or_default()
                ),
                _ => return Ok(()),
            };
            let listed = self.listed.get_or_insert_with(Spool::new);
            writeln!(listed.writer(), "{line}")?;
        }
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        let run = self.run.as_ref();
        let source = run.map_or("", |r| r.source.as_str());
        if self.detail == Detail::Quiet {
            let verdict = match &summary.interrupted {
                Some(signal) => format!("{BAD}INTERRUPTED{BAD:#} by {signal}"),
                None => verdict_word(summary.verdict()),
            };
            writeln!(
                self.out,
                "kpe-check {source}: {verdict}: {}",
                counts_text(&summary.counts())
            )?;
            return self.out.flush();
        }
        writeln!(
            self.out,
            "{HEAD}kpe-check{HEAD:#} {source}: {}",
            run_title(run)
        )?;
        write!(self.out, "{}", summary_text(run, summary))?;
        self.write_groups()?;
        self.write_lists()?;
        if let Some(listed) = self.listed.as_mut() {
            listed.copy_to(&mut self.out)?;
        }
        write!(self.out, "{}", rules_text(summary))?;
        self.out.flush()
    }

    fn fail(&mut self, error: &InputError) -> io::Result<()> {
        // The error itself goes to standard error; when units were already
        // reported, the verdict says the run ended on bad input.
        if self.run.is_some() && self.detail != Detail::Quiet {
            writeln!(
                self.out,
                "{HEAD}kpe-check{HEAD:#}: {}: the input is bad: {error}",
                verdict_word(RunVerdict::BadInput)
            )?;
        }
        self.out.flush()
    }
}

// ---------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------

/// The JSON report (`--format json`): one object of the shape of
/// [`JsonReport`] (`spec/report.schema.json`), its verdict first:
/// `format`, `version`, `verdict`, `exit_code`, `conforms`, `run` (with
/// the certificate), `summary`, `groups`, then `units`. Units are
/// kept in a temporary file as they come (in memory if none can be made)
/// and copied after the summary, so memory stays bounded; when the input
/// turns out bad half-way the report is still whole, with an `error`
/// member and verdict `bad-input`.
pub struct JsonSink<W> {
    out: W,
    run: Option<Run>,
    units: u64,
    spool: Spool,
    groups: Groups,
}

/// Where the units wait for the summary.
enum Spool {
    File(io::BufWriter<std::fs::File>),
    Memory(Vec<u8>),
}

impl Spool {
    fn new() -> Spool {
        match tempfile::tempfile() {
            Ok(file) => Spool::File(io::BufWriter::new(file)),
            Err(_) => Spool::Memory(Vec::new()),
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Spool::File(w) => w,
            Spool::Memory(v) => v,
        }
    }

    /// Copies what was spooled to `out`, emptying the spool.
    fn copy_to(&mut self, out: &mut dyn Write) -> io::Result<()> {
        match std::mem::replace(self, Spool::Memory(Vec::new())) {
            Spool::File(w) => {
                let mut file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
                io::Seek::rewind(&mut file)?;
                io::copy(&mut file, out)?;
            }
            Spool::Memory(v) => out.write_all(&v)?,
        }
        Ok(())
    }
}

impl<W: Write> JsonSink<W> {
    /// A JSON report written to `out`.
    pub fn new(out: W) -> JsonSink<W> {
        JsonSink {
            out,
            run: None,
            units: 0,
            spool: Spool::new(),
            groups: Groups::default(),
        }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// The report's head: the format and version, then the outcome
    /// (`verdict`, `exit_code`, `conforms`), then the run, so that the
    /// first hundred bytes say how the run ended however large the run's
    /// header (a certificate of many profiles) is.
    fn head(&mut self, verdict: RunVerdict, exit_code: u8, conforms: bool) -> io::Result<()> {
        write!(
            self.out,
            "{{\"format\":{},\"version\":{REPORT_VERSION},\"verdict\":{},\"exit_code\":{},\"conforms\":{conforms},\"run\":{}",
            serde_json::to_string(REPORT_FORMAT)?,
            serde_json::to_string(&verdict)?,
            exit_code,
            serde_json::to_string(&self.run)?
        )
    }

    /// The units, then the end of the report.
    fn tail(&mut self) -> io::Result<()> {
        write!(self.out, ",\"units\":[")?;
        self.spool.copy_to(&mut self.out)?;
        writeln!(self.out, "\n]}}")?;
        self.out.flush()
    }
}

/// Bad input as the JSON report states it.
fn input_error_report(error: &InputError) -> InputErrorReport {
    let mut report = InputErrorReport {
        code: error.code().to_owned(),
        file: error.file.clone(),
        message: error.to_string(),
        path: None,
        line: None,
        column: None,
    };
    match &error.kind {
        InputErrorKind::Json {
            path, line, column, ..
        } => {
            report.path = Some(path.clone());
            report.line = Some(u64::try_from(*line).unwrap_or(u64::MAX));
            report.column = Some(u64::try_from(*column).unwrap_or(u64::MAX));
        }
        InputErrorKind::TooLong { line, column, .. } => {
            report.line = Some(*line);
            report.column = Some(*column);
        }
        _ => {}
    }
    report
}

impl<W: Write> Sink for JsonSink<W> {
    fn begin(&mut self, run: &Run) -> io::Result<()> {
        self.run = Some(run.clone());
        Ok(())
    }

    fn unit(&mut self, unit: &UnitResult) -> io::Result<()> {
        let sep = if self.units == 0 { "" } else { "," };
        self.units += 1;
        self.groups.add(unit);
        write!(
            self.spool.writer(),
            "{sep}\n{}",
            serde_json::to_string(unit)?
        )
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        let groups: Vec<GroupRef> = self
            .groups
            .sorted()
            .into_iter()
            .map(GroupRef::from)
            .collect();
        self.head(summary.verdict(), summary.exit_code(), summary.conforms())?;
        write!(
            self.out,
            ",\"summary\":{},\"groups\":{}",
            serde_json::to_string(summary)?,
            serde_json::to_string(&groups)?,
        )?;
        self.tail()
    }

    fn fail(&mut self, error: &InputError) -> io::Result<()> {
        self.head(
            RunVerdict::BadInput,
            RunVerdict::BadInput.exit_code(),
            false,
        )?;
        write!(
            self.out,
            ",\"error\":{}",
            serde_json::to_string(&input_error_report(error))?
        )?;
        self.tail()
    }
}

/// Reads a JSON report back.
///
/// # Errors
///
/// A message naming the JSON path when `text` is not a report.
pub fn parse_json_report(text: &str) -> Result<JsonReport, String> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let report: JsonReport = serde_path_to_error::deserialize(de).map_err(|e| {
        let inner = e.inner();
        format!(
            "{}:{}: at {}: {inner}",
            inner.line(),
            inner.column(),
            e.path()
        )
    })?;
    if report.format != REPORT_FORMAT
        || !(super::OLDEST_REPORT_VERSION..=REPORT_VERSION).contains(&report.version)
    {
        return Err(format!(
            "not a kpe-check report of version {} to {REPORT_VERSION}: format {:?}, version {}",
            super::OLDEST_REPORT_VERSION,
            report.format,
            report.version
        ));
    }
    Ok(report)
}

// ---------------------------------------------------------------------------
// JUnit XML
// ---------------------------------------------------------------------------

/// The version of the JUnit shape, given as the property `kpe-junit`. A
/// change to test names, classnames, suite grouping or properties bumps it
/// (CHANGELOG.md). Version 1 repeated the properties in every
/// `<testsuite>`; version 2 gives them once.
pub const JUNIT_VERSION: u32 = 2;

/// Text as XML 1.0 allows it: a character the format forbids anywhere
/// (the C0 controls but tab, line feed and carriage return; U+FFFE and
/// U+FFFF) is shown as `\u{...}`, so that an engine name, transcript id,
/// shard field or message holding one still gives a well-formed report.
/// quick-xml escapes the markup characters (`<`, `&`, quotes) itself.
#[must_use]
pub fn xml_safe(text: &str) -> String {
    let allowed = |c: char| {
        matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
            || u32::from(c) >= 0x1_0000
    };
    if text.chars().all(allowed) {
        return text.to_owned();
    }
    text.chars()
        .map(|c| {
            if allowed(c) {
                c.to_string()
            } else {
                format!("\\u{{{:x}}}", u32::from(c))
            }
        })
        .collect()
}

/// Seconds as JUnit writes them: three decimals, never negative (an empty
/// sum of `f64` is `-0.0`, and `-0.000` is not a valid `xs:decimal` time
/// under Jenkins' schema).
fn seconds(time: f64) -> String {
    format!("{:.3}", time.max(0.0) + 0.0)
}

/// A JUnit XML report for CI systems (`--junit FILE`), in the shape of
/// Jenkins' `junit-10.xsd`: one `<testsuite>` per unit kind (and profile),
/// one `<testcase>` per unit with its `time` and a dotted classname such as
/// `kpe.scenario.capture`; `<failure type="RULE-IDS">` for a divergence,
/// `<error>` for an engine that could not be checked, `<skipped>` with the
/// reason; the certificate is given once, as the `<properties>` of the
/// first `<testsuite>` (the schema allows them nowhere else), with the
/// shape's version [`JUNIT_VERSION`] among them. Each unit's `<testcase>`
/// is written as it comes to a temporary file (kept in memory if none can
/// be made), in blocks of its suite, and copied into the report when the
/// run ends, so memory does not grow with the units.
pub struct JunitSink {
    path: PathBuf,
    run: Option<Run>,
    suites: Vec<JunitSuite>,
    /// Where the suites' blocks of cases are.
    spool: Option<std::fs::File>,
    /// The end of the spool.
    spooled: u64,
    error: Option<String>,
}

/// A suite's cases are written to the spool in blocks of about this many
/// bytes.
const JUNIT_BLOCK: usize = 16 * 1024;

struct JunitSuite {
    name: String,
    /// Its cases, and of them those that failed, errored or were skipped.
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    /// The sum of the cases' times, in order.
    time: f64,
    /// Its cases in the spool: where each block is, and how long.
    blocks: Vec<(u64, usize)>,
    /// Its cases not yet in the spool. Each case is its time's bits (8
    /// bytes), its length (8 bytes) and its `<testcase>` element as it is
    /// written in the report.
    pending: Vec<u8>,
}

impl JunitSuite {
    fn new(name: String) -> JunitSuite {
        JunitSuite {
            name,
            tests: 0,
            failures: 0,
            errors: 0,
            skipped: 0,
            time: 0.0,
            blocks: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Calls `f` with each case's time and element, in order.
    fn cases(
        &self,
        spool: Option<&std::fs::File>,
        mut f: impl FnMut(f64, &[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut each = |mut bytes: &[u8]| -> io::Result<()> {
            while !bytes.is_empty() {
                let bad = || io::Error::other("the JUnit spool holds what it did not write");
                let (head, rest) = bytes.split_at_checked(16).ok_or_else(bad)?;
                let mut word = [0; 8];
                word.copy_from_slice(&head[..8]);
                let time = f64::from_bits(u64::from_le_bytes(word));
                word.copy_from_slice(&head[8..]);
                let len = usize::try_from(u64::from_le_bytes(word)).map_err(|_| bad())?;
                let (case, rest) = rest.split_at_checked(len).ok_or_else(bad)?;
                f(time, case)?;
                bytes = rest;
            }
            Ok(())
        };
        for &(offset, len) in &self.blocks {
            let Some(mut file) = spool else {
                return Err(io::Error::other("no JUnit spool"));
            };
            let mut block = vec![0; len];
            io::Seek::seek(&mut file, io::SeekFrom::Start(offset))?;
            io::Read::read_exact(&mut file, &mut block)?;
            each(&block)?;
        }
        each(&self.pending)
    }
}

struct JunitCase {
    name: String,
    classname: String,
    time: f64,
    outcome: Option<(&'static str, String, String, String)>,
    /// The errors of the earlier runs (`--retries`): message and code.
    reruns: Vec<(String, String)>,
}

impl JunitSink {
    /// A report to be written to `path`.
    #[must_use]
    pub fn new(path: PathBuf) -> JunitSink {
        JunitSink {
            path,
            run: None,
            suites: Vec::new(),
            spool: tempfile::tempfile().ok(),
            spooled: 0,
            error: None,
        }
    }

    fn properties(&self) -> Vec<(String, String)> {
        let mut props = Vec::new();
        let Some(run) = &self.run else {
            return props;
        };
        let c = &run.certificate;
        props.push(("source".to_owned(), run.source.clone()));
        if let Some(e) = &run.engine {
            props.push(("engine".to_owned(), format!("{} {}", e.name, e.version)));
        }
        let profiles: Vec<String> = run.profiles.iter().map(ToString::to_string).collect();
        props.push(("profile".to_owned(), run.profile.to_string()));
        props.push(("profiles".to_owned(), profiles.join(" | ")));
        props.push(("kpe-check".to_owned(), c.kpe_check.clone()));
        props.push(("kpe-junit".to_owned(), JUNIT_VERSION.to_string()));
        let optional = [
            ("protocol", c.protocol.map(|v| v.to_string())),
            ("transcript", c.transcript.map(|v| v.to_string())),
            (
                "suite-version",
                c.suite.as_ref().map(|s| s.version.to_string()),
            ),
            ("suite-digest", c.suite.as_ref().map(|s| s.digest.clone())),
            ("seed", c.seed.map(|v| v.to_string())),
            ("games", c.games.map(|v| v.to_string())),
            ("max-plies", c.max_plies.map(|v| v.to_string())),
            ("perft-depth", c.perft_depth.map(|v| v.to_string())),
            ("shard", c.shard.map(|v| v.to_string())),
            ("only", (!c.only.is_empty()).then(|| c.only.join(" "))),
            ("skip", (!c.skip.is_empty()).then(|| c.skip.join(" "))),
            ("expect-fail", c.expect_fail.clone()),
            ("max-failures", c.max_failures.map(|v| v.to_string())),
        ];
        props.extend(
            optional
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v))),
        );
        props.into_iter().map(|(k, v)| (k, xml_safe(&v))).collect()
    }

    fn write(&self, out_text: &str) -> io::Result<()> {
        super::output::write_atomically_with(&self.path, |out| self.write_to(out, out_text))
    }

    /// The start of `<testsuites>`: the run's name, and the counts and time
    /// of all suites (the input error, if any, one more test and error).
    ///
    /// # Errors
    ///
    /// When the spooled cases cannot be read back.
    fn root_start(&self) -> io::Result<quick_xml::events::BytesStart<'static>> {
        use quick_xml::events::BytesStart;
        let spool = self.spool.as_ref();
        let count = |f: &dyn Fn(&JunitSuite) -> usize| -> usize { self.suites.iter().map(f).sum() };
        let tests = count(&|s| s.tests) + usize::from(self.error.is_some());
        let failures = count(&|s| s.failures);
        let errors = count(&|s| s.errors) + usize::from(self.error.is_some());
        // Summed case by case, suite after suite, as the cases are listed.
        let mut total_time = 0.0;
        for suite in &self.suites {
            suite.cases(spool, |time, _| {
                total_time += time;
                Ok(())
            })?;
        }
        let name = self.run.as_ref().map_or_else(
            || "kpe-check".to_owned(),
            |r| xml_safe(&format!("kpe-check {}", r.source)),
        );
        let mut root = BytesStart::new("testsuites");
        root.push_attribute(("name", name.as_str()));
        root.push_attribute(("tests", tests.to_string().as_str()));
        root.push_attribute(("failures", failures.to_string().as_str()));
        root.push_attribute(("errors", errors.to_string().as_str()));
        root.push_attribute(("time", seconds(total_time).as_str()));
        Ok(root)
    }

    fn write_to(&self, out: &mut dyn Write, out_text: &str) -> io::Result<()> {
        use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
        let mut w = quick_xml::Writer::new_with_indent(out, b' ', 2);
        let io = |e: io::Error| e;
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
            .map_err(io)?;
        let spool = self.spool.as_ref();
        w.write_event(Event::Start(self.root_start()?))
            .map_err(io)?;
        let props = self.properties();
        let input = JunitSuite::new("kpe.input".to_owned());
        let mut suites: Vec<&JunitSuite> = self.suites.iter().collect();
        if self.error.is_some() || suites.is_empty() {
            suites.push(&input);
        }
        let last = suites.len() - 1;
        for (k, s) in suites.iter().enumerate() {
            let input_error = if k == last { self.error.as_ref() } else { None };
            w.write_event(Event::Start(suite_start(s, input_error.is_some())))
                .map_err(io)?;
            if k == 0 && !props.is_empty() {
                write_properties(&mut w, &props)?;
            }
            // Each case was written as this writer would write it here.
            s.cases(spool, |_, case| w.get_mut().write_all(case))?;
            if let Some(message) = input_error {
                write_input_error(&mut w, message)?;
            }
            if k == last && !out_text.is_empty() {
                w.write_event(Event::Start(BytesStart::new("system-out")))
                    .map_err(io)?;
                w.write_event(Event::Text(BytesText::new(&xml_safe(out_text))))
                    .map_err(io)?;
                w.write_event(Event::End(BytesEnd::new("system-out")))
                    .map_err(io)?;
            }
            w.write_event(Event::End(BytesEnd::new("testsuite")))
                .map_err(io)?;
        }
        w.write_event(Event::End(BytesEnd::new("testsuites")))
            .map_err(io)?;
        w.into_inner().write_all(b"\n")
    }

    /// Adds `case` to the suite named `name`, its element written as the
    /// report will have it; a suite's full block goes to the spool.
    fn add(&mut self, name: String, case: &JunitCase) -> io::Result<()> {
        use quick_xml::events::{BytesStart, Event};
        // A writer two elements deep, as a case is in the report.
        let mut w = quick_xml::Writer::new_with_indent(Vec::new(), b' ', 2);
        w.write_event(Event::Start(BytesStart::new("testsuites")))?;
        w.write_event(Event::Start(BytesStart::new("testsuite")))?;
        let start = w.get_ref().len();
        write_case(&mut w, case)?;
        let element = &w.get_ref()[start..];
        let k = match self.suites.iter().position(|s| s.name == name) {
            Some(k) => k,
            None => {
                self.suites.push(JunitSuite::new(name));
                self.suites.len() - 1
            }
        };
        let suite = &mut self.suites[k];
        suite.tests += 1;
        match case.outcome.as_ref().map(|o| o.0) {
            Some("failure") => suite.failures += 1,
            Some("error") => suite.errors += 1,
            Some("skipped") => suite.skipped += 1,
            _ => {}
        }
        suite.time += case.time;
        suite.pending.extend(case.time.to_bits().to_le_bytes());
        suite.pending.extend((element.len() as u64).to_le_bytes());
        suite.pending.extend(element);
        if suite.pending.len() >= JUNIT_BLOCK
            && let Some(file) = self.spool.as_mut()
        {
            io::Seek::seek(file, io::SeekFrom::Start(self.spooled))?;
            file.write_all(&suite.pending)?;
            suite.blocks.push((self.spooled, suite.pending.len()));
            self.spooled += suite.pending.len() as u64;
            suite.pending.clear();
        }
        Ok(())
    }
}

/// The start of one `<testsuite>`: its name, counts and time; the input
/// error, if `input_error`, one more test and error.
fn suite_start(s: &JunitSuite, input_error: bool) -> quick_xml::events::BytesStart<'static> {
    let mut suite = quick_xml::events::BytesStart::new("testsuite");
    suite.push_attribute(("name", s.name.as_str()));
    suite.push_attribute((
        "tests",
        (s.tests + usize::from(input_error)).to_string().as_str(),
    ));
    suite.push_attribute(("failures", s.failures.to_string().as_str()));
    suite.push_attribute((
        "errors",
        (s.errors + usize::from(input_error)).to_string().as_str(),
    ));
    suite.push_attribute(("skipped", s.skipped.to_string().as_str()));
    suite.push_attribute(("time", seconds(s.time).as_str()));
    suite
}

/// The JUnit writer.
type Xml<W> = quick_xml::Writer<W>;

/// The `properties` element: the run's settings.
fn write_properties<W: Write>(w: &mut Xml<W>, props: &[(String, String)]) -> io::Result<()> {
    use quick_xml::events::{BytesEnd, BytesStart, Event};
    w.write_event(Event::Start(BytesStart::new("properties")))?;
    for (key, value) in props {
        let mut p = BytesStart::new("property");
        p.push_attribute(("name", key.as_str()));
        p.push_attribute(("value", value.as_str()));
        w.write_event(Event::Empty(p))?;
    }
    w.write_event(Event::End(BytesEnd::new("properties")))
}

/// One `testcase` element: its outcome (with its text) and its earlier
/// runs.
fn write_case<W: Write>(w: &mut Xml<W>, case: &JunitCase) -> io::Result<()> {
    use quick_xml::events::{BytesEnd, BytesStart, BytesText, Event};
    let mut tag = BytesStart::new("testcase");
    tag.push_attribute(("name", case.name.as_str()));
    tag.push_attribute(("classname", case.classname.as_str()));
    tag.push_attribute(("time", seconds(case.time).as_str()));
    if case.outcome.is_none() && case.reruns.is_empty() {
        return w.write_event(Event::Empty(tag));
    }
    w.write_event(Event::Start(tag))?;
    if let Some((element, message, kind, text)) = &case.outcome {
        let mut e = BytesStart::new(*element);
        e.push_attribute(("message", message.as_str()));
        if !kind.is_empty() {
            e.push_attribute(("type", kind.as_str()));
        }
        if text.is_empty() {
            w.write_event(Event::Empty(e))?;
        } else {
            w.write_event(Event::Start(e))?;
            w.write_event(Event::Text(BytesText::new(text)))?;
            w.write_event(Event::End(BytesEnd::new(*element)))?;
        }
    }
    // Surefire's names for the earlier runs of a retried test: flaky when
    // it passed in the end, reruns when it did not.
    let rerun = if case.outcome.is_none() {
        "flakyError"
    } else {
        "rerunError"
    };
    for (message, kind) in &case.reruns {
        let mut e = BytesStart::new(rerun);
        e.push_attribute(("message", message.as_str()));
        e.push_attribute(("type", kind.as_str()));
        w.write_event(Event::Empty(e))?;
    }
    w.write_event(Event::End(BytesEnd::new("testcase")))
}

/// The `testcase` of a run stopped by bad input.
fn write_input_error<W: Write>(w: &mut Xml<W>, message: &str) -> io::Result<()> {
    use quick_xml::events::{BytesEnd, BytesStart, Event};
    let mut tag = BytesStart::new("testcase");
    tag.push_attribute(("name", "input"));
    tag.push_attribute(("classname", "kpe.input"));
    tag.push_attribute(("time", "0.000"));
    w.write_event(Event::Start(tag))?;
    let mut e = BytesStart::new("error");
    e.push_attribute(("message", message));
    e.push_attribute(("type", "bad-input"));
    w.write_event(Event::Empty(e))?;
    w.write_event(Event::End(BytesEnd::new("testcase")))
}

/// The dotted JUnit classname of a unit: `kpe.scenario.capture` (by the
/// scenario file's topic), `kpe.random`, `kpe.perft`, `kpe.game`.
#[must_use]
pub fn junit_classname(unit: &UnitResult) -> String {
    let kind = match unit.kind.as_str() {
        "random-game" => "random",
        other => other,
    };
    let topic = match (kind, &unit.location) {
        ("scenario", Some(loc)) => std::path::Path::new(loc)
            .file_stem()
            .map(|s| s.to_string_lossy().replace('.', "_")),
        _ => None,
    };
    match topic {
        Some(topic) => format!("kpe.{kind}.{topic}"),
        None => format!("kpe.{kind}"),
    }
}

impl Sink for JunitSink {
    fn begin(&mut self, run: &Run) -> io::Result<()> {
        self.run = Some(run.clone());
        Ok(())
    }

    fn unit(&mut self, unit: &UnitResult) -> io::Result<()> {
        let classname = junit_classname(unit);
        let suite_name = match unit.profile {
            Some(profile) => format!("{classname} [{profile}]"),
            None => classname.clone(),
        };
        let strip = |s: String| anstream::adapter::strip_str(&s).to_string();
        let outcome = match unit.verdict {
            Verdict::Conforms | Verdict::Fixed => None,
            Verdict::Skipped => Some((
                "skipped",
                unit.reason.clone().unwrap_or_default(),
                String::new(),
                String::new(),
            )),
            Verdict::Errored => {
                let e = unit.error.as_ref();
                Some((
                    "error",
                    e.map(|e| e.message.clone()).unwrap_or_default(),
                    e.map(|e| e.code.clone()).unwrap_or_default(),
                    strip(error_text(unit)),
                ))
            }
            Verdict::Diverges => unit.divergence.as_ref().map(|d| {
                let fields: Vec<&str> = d.fields.iter().map(|f| f.field.as_str()).collect();
                let at = d.ply.map(|p| format!("ply {p}: ")).unwrap_or_default();
                (
                    "failure",
                    format!("{at}{} differs ({})", fields.join(", "), d.rules),
                    d.rules.to_string(),
                    strip(divergence_text(unit, d)),
                )
            }),
            Verdict::Expected => Some((
                "skipped",
                format!(
                    "diverges as expected: {}",
                    unit.reason.clone().unwrap_or_default()
                ),
                String::new(),
                String::new(),
            )),
        };
        let outcome = outcome.map(|(element, message, kind, text)| {
            (
                element,
                xml_safe(&message),
                xml_safe(&kind),
                xml_safe(&text),
            )
        });
        let suite_name = xml_safe(&suite_name);
        let case = JunitCase {
            name: xml_safe(&unit.short_label()),
            classname: xml_safe(&classname),
            time: unit.time,
            outcome,
            reruns: unit
                .retried
                .iter()
                .map(|e| (xml_safe(&e.message), xml_safe(&e.code)))
                .collect(),
        };
        self.add(suite_name, &case)
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        let text =
            anstream::adapter::strip_str(&summary_text(self.run.as_ref(), summary)).to_string();
        self.write(&text)
    }

    fn fail(&mut self, error: &InputError) -> io::Result<()> {
        self.error = Some(xml_safe(&error.to_string()));
        self.write(&format!("error: {error}\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classnames_are_dotted_and_stable() {
        let mut unit = UnitResult::conforming(
            "scenario",
            "x".into(),
            Some("conformance/capture.yaml".into()),
            1,
        );
        assert_eq!(junit_classname(&unit), "kpe.scenario.capture");
        unit.kind = "random-game".into();
        unit.location = None;
        assert_eq!(junit_classname(&unit), "kpe.random");
        unit.kind = "game".into();
        assert_eq!(junit_classname(&unit), "kpe.game");
    }

    #[test]
    fn junit_cases_wait_on_disk_not_in_memory() {
        // Issue 25: a run of many units holds a block of each suite's
        // cases, not every case; the report lists them all, in order.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("junit.xml");
        let mut sink = JunitSink::new(path.clone());
        let run = Run::new(
            "m.json".to_owned(),
            RunKind::Engine,
            crate::profile::Profile::default(),
        );
        sink.begin(&run).unwrap();
        for k in 0..3000 {
            let mut unit = UnitResult::conforming("random-game", format!("random/{k}"), None, 1);
            unit.time = 0.1;
            sink.unit(&unit).unwrap();
            if k % 1000 == 0 {
                let perft = UnitResult::conforming("perft", format!("perft/{k}"), None, 1);
                sink.unit(&perft).unwrap();
            }
        }
        assert!(
            sink.suites
                .iter()
                .all(|s| s.pending.len() < JUNIT_BLOCK + 1024)
        );
        assert!(
            sink.suites[0].blocks.len() > 2,
            "{:?}",
            sink.suites[0].blocks
        );
        sink.finish(&Summary::default()).unwrap();
        let xml = std::fs::read_to_string(&path).unwrap();
        let names: Vec<&str> = xml
            .split("<testcase name=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        let mut expected: Vec<String> = (0..3000).map(|k| format!("random/{k}")).collect();
        expected.extend(["perft/0", "perft/1000", "perft/2000"].map(String::from));
        assert_eq!(names, expected);
        // The times add up case by case: 3000 tenths of a second.
        let total = (0..3000).fold(0.0, |t, _| t + 0.1);
        assert!(
            xml.contains(&format!("time=\"{}\"", seconds(total))),
            "{total}"
        );
    }

    #[test]
    fn the_json_report_says_its_verdict_in_its_first_hundred_bytes() {
        // Issue 44: with --profiles all the verdict came after the run's
        // header and the summary, at byte 47,390.
        let mut run = Run::new(
            "m.json".to_owned(),
            RunKind::Engine,
            crate::profile::Profile::default(),
        );
        run.profiles = crate::profile::Profile::all().collect();
        let mut summary = Summary::default();
        for p in crate::profile::Profile::all() {
            summary.profiles.push(super::super::ProfileSummary {
                profile: p,
                counts: super::super::Counts::default(),
                verdict: RunVerdict::NothingChecked,
                reading: None,
                explanations: Vec::new(),
            });
        }
        for (finish, verdict) in [
            (
                true,
                "\"verdict\":\"nothing-checked\",\"exit_code\":4,\"conforms\":false,",
            ),
            (
                false,
                "\"verdict\":\"bad-input\",\"exit_code\":2,\"conforms\":false,",
            ),
        ] {
            let mut sink = JsonSink::new(Vec::new());
            sink.begin(&run).unwrap();
            if finish {
                sink.finish(&summary).unwrap();
            } else {
                let error = InputError {
                    file: "m.json".to_owned(),
                    kind: InputErrorKind::Read(io::Error::other("gone")),
                };
                sink.fail(&error).unwrap();
            }
            let text = String::from_utf8(sink.into_inner()).unwrap();
            assert!(text.len() > 1000, "{text}");
            let at = text.find(verdict).unwrap_or_else(|| panic!("{text}"));
            assert!(at < 100, "the verdict is at byte {at}: {text}");
            let report = parse_json_report(&text).unwrap();
            assert_eq!(report.run.unwrap().profiles.len(), 32);
        }
    }
}
