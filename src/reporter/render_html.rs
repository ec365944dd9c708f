//! The kpe-check report as one self-contained HTML page (`--html FILE`):
//! the verdict block first, then each group of failing units once by its
//! smallest example drawn as a board, then the skip reasons. Like the other
//! sinks it only reads the report model, and draws with [`crate::html`].

use std::io;
use std::path::PathBuf;

use super::input::InputError;
use super::render::{Sink, counts_text, run_described};
use super::report::{Collected, Group, Run, RunKind, Summary, UnitResult, Verdict};
use crate::board::{Pit, Player};
use crate::html::{self, Board, Markup, Page, Table, Tone, element};
use crate::judge::rule_title;
use crate::judge::{Divergence, FieldDiff};
use crate::position::Position;

/// The report as an HTML page written to a file when the run ends (or
/// stops on bad input). It keeps the groups, the skip reasons and the
/// units the expect-fail file lists that now conform, as the report for
/// people does.
pub struct HtmlSink {
    path: PathBuf,
    run: Option<Run>,
    collected: Collected,
}

impl HtmlSink {
    /// A page to be written to `path`.
    #[must_use]
    pub fn new(path: PathBuf) -> HtmlSink {
        HtmlSink {
            path,
            run: None,
            collected: Collected::default(),
        }
    }

    fn page(&self, summary: Option<&Summary>, error: Option<&InputError>) -> String {
        let run = self.run.as_ref();
        let source = run.map_or("", |r| r.source.as_str());
        let mut page = Page::new(&format!("kpe-check report: {source}"));
        page.intro(&intro(run));
        page.lead(verdict_block(run, summary, error));
        let unit = match run.map(|r| r.kind) {
            Some(RunKind::Engine) => "unit",
            _ => "game",
        };
        let groups = self.collected.groups.sorted();
        let (errors, divergences): (Vec<&Group>, Vec<&Group>) = groups
            .into_iter()
            .partition(|g| g.verdict == Verdict::Errored);
        if !divergences.is_empty() {
            let mut body = html::paragraph(
                "Diverging units that break the same rules in the same fields are one group, shown \
                 once by its smallest example (fewest stones on the board, then fewest plies), with \
                 the ids of the rest.",
            );
            for (k, group) in divergences.iter().enumerate() {
                body.push(group_block(k + 1, group, unit));
            }
            page.section(&groups_title("Divergences", divergences.len()), body);
        }
        if !self.collected.fixed.is_empty() {
            page.section(
                "Fixed",
                html::note(
                    Tone::Good,
                    Markup::text(&format!(
                        "{} listed in the expect-fail file now conform; remove their lines: {}",
                        self.collected.fixed.len(),
                        self.collected.fixed.join(", ")
                    )),
                ),
            );
        }
        if !self.collected.skips.is_empty() {
            let mut t = Table::new(&["units", "why they were skipped"]);
            for (reason, n) in &self.collected.skips {
                t.row([Markup::text(&n.to_string()), Markup::text(reason)]);
            }
            page.section("Skipped", t.finish());
        }
        if !errors.is_empty() {
            let mut body = html::paragraph(
                "Units the engine could not be checked on, grouped by the error's code, each shown \
                 once with the request and the tail of the engine's stderr.",
            );
            for (k, group) in errors.iter().enumerate() {
                body.push(group_block(k + 1, group, unit));
            }
            page.section(&groups_title("Engine errors", errors.len()), body);
        }
        if let Some(summary) = summary {
            let rules = if summary.rules.is_empty() {
                "none".to_owned()
            } else {
                summary.rules.to_string()
            };
            page.section(
                "Rules exercised",
                html::paragraph(&format!(
                    "By conforming plies ({} of {}): {rules}",
                    summary.rules.len(),
                    crate::judge::RULE_IDS.len()
                )),
            );
        }
        page.footer(&format!(
            "Made by kpe-check {} from kpe's reference rules (spec/RULES.md); the report's \
             verdicts and groups are specified in spec/REPORT.md.",
            super::report::KPE_CHECK_VERSION
        ));
        page.finish()
    }

    fn write(&self, summary: Option<&Summary>, error: Option<&InputError>) -> io::Result<()> {
        super::output::write_atomically(&self.path, self.page(summary, error).as_bytes())
    }
}

fn groups_title(what: &str, n: usize) -> String {
    if n == 1 {
        format!("{what} (1 group)")
    } else {
        format!("{what} ({n} groups)")
    }
}

fn intro(run: Option<&Run>) -> String {
    let (what, claims) = run_described(run, ToString::to_string);
    format!(
        "kpe-check compared {what}, claiming {claims}, with kpe's reference rules of Kpé. \
         Expected values are the rules' answers; claimed values are the engine's."
    )
}

/// The verdict block: verdict and exit code, counts per verdict, broken
/// rules, the reading, the profile matrix, the certificate.
fn verdict_block(
    run: Option<&Run>,
    summary: Option<&Summary>,
    error: Option<&InputError>,
) -> Markup {
    let mut t = Markup::new();
    let tone = verdict_row(&mut t, summary, error);
    if let Some(summary) = summary {
        summary_rows(&mut t, summary);
    }
    if let Some(run) = run {
        row(&mut t, "certificate", certificate(run));
    }
    html::note(tone, element("dl", Some("verdict-block"), t))
}

/// One row of the verdict block: `key` in bold, then `value`.
fn row(t: &mut Markup, key: &str, value: Markup) {
    t.push(element(
        "dt",
        None,
        element("strong", None, Markup::text(key)),
    ));
    t.push(element("dd", None, value));
}

/// The verdict block's first rows: the verdict and its exit code (and the
/// error, for bad input), if there is one; and the block's tone.
fn verdict_row(t: &mut Markup, summary: Option<&Summary>, error: Option<&InputError>) -> Tone {
    if let Some(error) = error {
        row(
            t,
            "verdict",
            element(
                "strong",
                Some("verdict"),
                Markup::text("BAD-INPUT (exit 2)"),
            ),
        );
        row(t, "error", Markup::text(&error.to_string()));
        Tone::Bad
    } else if let Some(summary) = summary {
        let verdict = summary.verdict();
        let word = match &summary.interrupted {
            Some(signal) => format!("INTERRUPTED by {signal}"),
            None => format!(
                "{} (exit {})",
                verdict.name().to_uppercase(),
                verdict.exit_code()
            ),
        };
        row(
            t,
            "verdict",
            element("strong", Some("verdict"), Markup::text(&word)),
        );
        if summary.interrupted.is_none() && verdict == super::report::RunVerdict::Conforms {
            Tone::Good
        } else {
            Tone::Bad
        }
    } else {
        Tone::Info
    }
}

/// The verdict block's rows from the summary: counts, broken rules, the
/// reading, the profile matrix, the notes.
fn summary_rows(t: &mut Markup, summary: &Summary) {
    row(t, "counts", counts_cell(summary));
    if !summary.broken.is_empty() {
        let items = summary.broken.iter().map(|c| {
            let mut m = Markup::code(&c.rule);
            m.push(Markup::text(&format!(
                " {} — {} unit{}",
                rule_title(&c.rule).unwrap_or_default(),
                c.units,
                if c.units == 1 { "" } else { "s" }
            )));
            m
        });
        row(t, "broken", html::list(items));
    }
    if let Some(reading) = &summary.reading {
        row(
            t,
            "reading",
            Markup::text(&format!(
                "claimed {}, but {}",
                reading.claimed,
                reading.sentence()
            )),
        );
    }
    if summary.profiles.len() > 1 {
        row(t, "profiles", profile_matrix(summary));
    }
    for note in &summary.notes {
        // A note of several lines keeps its lines.
        let mut m = Markup::new();
        for (k, line) in note.lines().enumerate() {
            if k > 0 {
                m.push(html::line_break());
            }
            m.push(Markup::text(line.trim_start()));
        }
        row(t, "note", m);
    }
}

/// The counts of the verdict block: in words, then as a table.
fn counts_cell(summary: &Summary) -> Markup {
    let counts = summary.counts();
    let mut c = Table::new(&[
        "units", "conforms", "diverges", "errored", "skipped", "expected", "fixed", "plies",
    ]);
    let mut cells = vec![Markup::text(&counts.units.to_string())];
    cells.extend(Verdict::ALL.map(|v| Markup::text(&counts.of(v).to_string())));
    cells.push(Markup::text(&counts.plies.to_string()));
    c.row(cells);
    let mut cell = Markup::text(&counts_text(&counts));
    cell.push(c.finish());
    cell
}

/// The profile matrix of a run of several profiles: each one's verdict,
/// counts and reading.
fn profile_matrix(summary: &Summary) -> Markup {
    let mut m = Table::new(&["profile", "verdict", "units", "reading"]);
    for p in &summary.profiles {
        m.row([
            Markup::code(&p.profile.to_string()),
            Markup::text(&format!(
                "{} (exit {})",
                p.verdict.name(),
                p.verdict.exit_code()
            )),
            Markup::text(&counts_text(&p.counts)),
            Markup::text(
                &p.reading
                    .as_ref()
                    .map(crate::judge::Reading::sentence)
                    .unwrap_or_default(),
            ),
        ]);
    }
    m.finish()
}

fn certificate(run: &Run) -> Markup {
    let c = &run.certificate;
    let mut items = vec![format!("kpe-check {}", c.kpe_check)];
    if let Some(e) = &run.engine {
        items.push(format!("engine {} {}", e.name, e.version));
    }
    let profiles: Vec<String> = run.profiles.iter().map(ToString::to_string).collect();
    items.push(format!("profiles {}", profiles.join(" | ")));
    if let Some(seed) = c.seed {
        items.push(format!(
            "seed {seed} (repeat the random games with --seed {seed})"
        ));
    }
    let optional = [
        ("protocol", c.protocol.map(|v| v.to_string())),
        ("transcript format", c.transcript.map(|v| v.to_string())),
        (
            "suite",
            c.suite
                .as_ref()
                .map(|s| format!("version {}, {}", s.version, s.digest)),
        ),
        ("games", c.games.map(|v| v.to_string())),
        ("max plies", c.max_plies.map(|v| v.to_string())),
        ("perft depth", c.perft_depth.map(|v| v.to_string())),
        ("shard", c.shard.map(|v| v.to_string())),
        ("expect-fail", c.expect_fail.clone()),
        ("max failures", c.max_failures.map(|v| v.to_string())),
    ];
    items.extend(
        optional
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| format!("{k} {v}"))),
    );
    if !c.only.is_empty() {
        items.push(format!("only {}", c.only.join(" ")));
    }
    if !c.skip.is_empty() {
        items.push(format!("skip {}", c.skip.join(" ")));
    }
    Markup::text(&items.join("; "))
}

fn group_block(number: usize, group: &Group, unit: &str) -> Markup {
    let what = match group.verdict {
        Verdict::Errored => "errored",
        Verdict::Expected => "diverged as expected",
        _ => "diverged",
    };
    let mut out = element(
        "h3",
        None,
        Markup::text(&format!(
            "{number}. {}: {} {unit}{} {what}",
            group.title(),
            group.count,
            if group.count == 1 { "" } else { "s" }
        )),
    );
    let example = &group.example;
    let lead = if group.count > 1 {
        format!("The smallest example: {}", example.label())
    } else {
        example.label()
    };
    out.push(html::paragraph(&lead));
    match &example.divergence {
        Some(d) if group.verdict != Verdict::Errored => out.push(divergence_block(d)),
        _ => out.push(error_block(example)),
    }
    if group.count > 1 {
        let more = group.count - 1 - group.others.len() as u64;
        let tail = if more > 0 {
            format!(", and {more} more")
        } else {
            String::new()
        };
        out.push(html::paragraph(&format!(
            "Also: {}{tail}",
            group.others.join(", ")
        )));
    }
    element("div", Some("group"), out)
}

/// The pits whose stone counts differ between two positions.
fn differing_pits(a: &Position, b: &Position) -> Vec<Pit> {
    Player::BOTH
        .iter()
        .flat_map(|p| p.pits())
        .filter(|&pit| a.stones(pit) != b.stones(pit))
        .collect()
}

fn divergence_block(d: &Divergence) -> Markup {
    let mut out = Markup::new();
    let at = match (d.ply, d.before, d.mv) {
        (Some(ply), Some(before), Some(mv)) => {
            format!("At ply {ply}, {} plays {mv}.", before.to_move())
        }
        (Some(ply), _, _) => format!("At ply {ply}."),
        _ => String::new(),
    };
    if !at.is_empty() {
        out.push(html::paragraph(&at));
    }
    if let Some(before) = &d.before {
        out.push(example_figure(d, before));
    }
    let mut t = Table::new(&[
        "field",
        "expected (the rules)",
        "claimed (the engine)",
        "rules",
    ]);
    for field in &d.fields {
        field_rows(&mut t, field, 0);
    }
    out.push(t.finish());
    let rules = d.rules.iter().map(|id| {
        let mut m = Markup::code(id);
        m.push(Markup::text(&format!(
            " {}",
            rule_title(id).unwrap_or_default()
        )));
        m
    });
    out.push(element(
        "p",
        None,
        element("strong", None, Markup::text("Rules")),
    ));
    out.push(html::list(rules));
    for note in &d.notes {
        out.push(html::note(Tone::Info, Markup::text(note)));
    }
    if let Some(yaml) = d.scenario_yaml() {
        out.push(element(
            "p",
            None,
            Markup::markdown(
                "Reproduce it: this scenario, appended as shown to a `conformance/*.yaml` \
                 file (or written there by `--write-scenarios FILE`), pins the rules' answer.",
            ),
        ));
        out.push(html::pre(&yaml));
    }
    out
}

/// The divergence's example as boards: the position `before` the move,
/// and, when the `after` field differs, the rules' and the engine's
/// positions after it with the differing pits marked.
fn example_figure(d: &Divergence, before: &Position) -> Markup {
    let moved: Vec<Pit> = d.mv.into_iter().collect();
    let after = d.fields.iter().find(|f| f.field == "after").and_then(|f| {
        let expected: Position = f.expected.parse().ok()?;
        let claimed: Position = f.claimed.parse().ok()?;
        Some((expected, claimed))
    });
    let caption_before = match d.mv {
        Some(mv) => format!("before {mv}"),
        None => "before".to_owned(),
    };
    let figure = match &after {
        Some((expected, claimed)) => {
            let marks = differing_pits(expected, claimed);
            let boards = [
                Board::new(before, &moved, &caption_before),
                Board::new(expected, &marks, "expected after"),
                Board::new(claimed, &marks, "claimed after"),
            ];
            html::boards_svg(&boards)
        }
        None => html::boards_svg(&[Board::new(before, &moved, &caption_before)]),
    };
    let mut fig = figure;
    fig.push(element(
        "figcaption",
        None,
        Markup::text(
            "The move's pit is outlined in orange before it; after it, the pits whose counts \
             differ between the rules' answer and the engine's.",
        ),
    ));
    element("figure", Some("example"), fig)
}

fn field_rows(t: &mut Table, field: &FieldDiff, depth: usize) {
    let name = format!("{}{}", "  ".repeat(depth), field.field);
    let row = [
        Markup::code(&name),
        Markup::code(&field.expected),
        Markup::code(&field.claimed),
        Markup::text(&field.rules.to_string()),
    ];
    if depth == 0 {
        t.marked_row(row);
    } else {
        t.row(row);
    }
    for detail in &field.details {
        field_rows(t, detail, depth + 1);
    }
}

fn error_block(unit: &UnitResult) -> Markup {
    let mut out = Markup::new();
    let Some(e) = &unit.error else {
        return out;
    };
    let at = e.ply.map(|p| format!(" at ply {p}")).unwrap_or_default();
    out.push(html::note(
        Tone::Bad,
        Markup::text(&format!("Errored{at}: {} ({})", e.message, e.code)),
    ));
    if let Some(request) = &e.request {
        let mut p = Markup::text("Request: ");
        p.push(Markup::code(request));
        out.push(element("p", None, p));
    }
    if e.stderr.is_empty() {
        out.push(html::paragraph("The engine wrote nothing to stderr."));
    } else {
        out.push(html::paragraph(&format!(
            "stderr: {} bytes in all, the last lines:",
            e.stderr_bytes
        )));
        out.push(html::pre(&e.stderr.join("\n")));
    }
    out
}

impl Sink for HtmlSink {
    fn begin(&mut self, run: &Run) -> io::Result<()> {
        self.run = Some(run.clone());
        Ok(())
    }

    fn unit(&mut self, unit: &UnitResult) -> io::Result<()> {
        self.collected.add(unit);
        Ok(())
    }

    fn finish(&mut self, summary: &Summary) -> io::Result<()> {
        self.write(Some(summary), None)
    }

    fn fail(&mut self, error: &InputError) -> io::Result<()> {
        self.write(None, Some(error))
    }
}
