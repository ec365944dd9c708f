//! `kpe-check merge`: the JSON reports of `--shard K/N` runs combined into
//! the report of the whole run: units back in plan order, counts, groups,
//! verdicts and the reading computed again from all shards.
//!
//! Nothing in a shard is trusted: each is read in bounded memory, checked
//! against the report's types (unknown fields, wrong types and trailing
//! bytes refused, at a JSON path and line:column), against itself (its
//! counts are those of its units; a diverging unit carries its divergence;
//! every unit belongs to its share) and against the others (the same run,
//! field by field; every share once; every unit of the plan exactly once).
//! The work is linear in the units, and a signal stops it between files and
//! between units.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use super::input::CheckError;
use super::input::{InputError, InputErrorKind};
use super::render::Sink;
use super::report::{
    Counts, JsonReport, MAX_SHARDS, OLDEST_REPORT_VERSION, ProfileSummary, REPORT_FORMAT,
    REPORT_VERSION, Run, Summary, Verdict,
};
use crate::judge::reading_from;
use crate::judge::{Explanation, Tally};
use crate::profile::Switch;
use crate::scenario::{LimitedRead, line_column, read_limited};

/// Largest report file read, in bytes.
pub const MAX_REPORT: u64 = 1 << 30;

/// The name `kpe-check merge` gives to errors about the set of shards.
const MERGE: &str = "kpe-check merge";

fn bad(file: &str, path: &str, message: String) -> CheckError {
    CheckError::Input(InputError::at(file, path, 0, 0, message))
}

/// A signal stops the merge: nothing is written.
fn heed_signal() -> Result<(), CheckError> {
    match super::stop::interrupted() {
        Some(signal) => Err(CheckError::Interrupted(signal)),
        None => Ok(()),
    }
}

/// Reads the reports at `paths` (`-` for standard input, once) and merges
/// them into `sink`.
///
/// # Errors
///
/// [`CheckError::Input`] when a file cannot be read, is not a kpe-check
/// JSON report, or the reports are not the shards of one run;
/// [`CheckError::Interrupted`] when a signal stopped the merge.
pub fn merge_files(paths: &[PathBuf], sink: &mut dyn Sink) -> Result<Summary, CheckError> {
    if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        return Err(bad(
            "-",
            ".",
            "standard input is named more than once; it can hold one report".to_owned(),
        ));
    }
    let mut reports = Vec::new();
    for path in paths {
        heed_signal()?;
        reports.push(read_report(path)?);
    }
    merge_reports(&reports, sink)
}

/// Reads one shard report: a regular file (or standard input) of at most
/// [`MAX_REPORT`] bytes, UTF-8, one JSON report of this version and
/// nothing after it.
///
/// # Errors
///
/// [`CheckError::Input`] naming the file and where in it.
pub fn read_report(path: &Path) -> Result<(String, JsonReport), CheckError> {
    let file = path.display().to_string();
    let bytes = if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        let mut too_large = false;
        let read = super::stop::read_heeding_signals(std::io::stdin(), |piece| {
            if (bytes.len() + piece.len()) as u64 > MAX_REPORT {
                too_large = true;
                return Err(std::io::Error::other("more than the largest report"));
            }
            bytes.extend_from_slice(piece);
            Ok(())
        });
        if let Some(signal) = super::stop::interrupted() {
            return Err(CheckError::Interrupted(signal));
        }
        if too_large {
            return Err(bad(
                &file,
                ".",
                format!(
                    "standard input holds more than {MAX_REPORT} bytes, the largest report read"
                ),
            ));
        }
        read.map_err(|e| CheckError::Input(InputError::read(&file, e)))?;
        bytes
    } else {
        read_limited(path, MAX_REPORT).map_err(|e| match e {
            LimitedRead::Io(e) => CheckError::Input(InputError::read(&file, e)),
            LimitedRead::NotAFile(kind) => bad(
                &file,
                ".",
                format!("it is {kind}, not a regular file holding a kpe-check JSON report"),
            ),
            LimitedRead::TooLarge(size) => bad(
                &file,
                ".",
                format!(
                    "{size} bytes is more than {MAX_REPORT}, the largest report read; \
                     a shard report is a few bytes per unit"
                ),
            ),
        })?
    };
    let report = parse_report_bytes(&file, &bytes)?;
    Ok((file, report))
}

/// Parses the bytes of a JSON report named `file` (for errors).
///
/// # Errors
///
/// [`CheckError::Input`]: not UTF-8, a byte-order mark, malformed JSON, a
/// field of the wrong type or unknown, trailing bytes, or another format
/// or version; each at its line:column or JSON path.
pub fn parse_report_bytes(file: &str, bytes: &[u8]) -> Result<JsonReport, CheckError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let at = e.valid_up_to();
            let (line, column) = line_column(&bytes[..at]);
            return Err(CheckError::Input(InputError::at(
                file,
                ".",
                line,
                column,
                format!(
                    "byte 0x{:02x} is not UTF-8: a report is UTF-8 JSON",
                    bytes[at]
                ),
            )));
        }
    };
    if text.starts_with('\u{feff}') {
        return Err(CheckError::Input(InputError::at(
            file,
            ".",
            1,
            1,
            "the file starts with a byte-order mark (U+FEFF); a report is JSON without one"
                .to_owned(),
        )));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let report: JsonReport = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        match InputError::from_json(file, e).name_the_byte(text.as_bytes()) {
            // Not the transcript the generic message expects.
            InputError {
                kind: InputErrorKind::Empty,
                ..
            } => CheckError::Input(InputError::at(
                file,
                ".",
                1,
                1,
                "the file holds no JSON; expected a kpe-check JSON report, \
                 one shard's `kpe-check --shard K/N --format json` output"
                    .to_owned(),
            )),
            e => CheckError::Input(e),
        }
    })?;
    if let Err(e) = de.end() {
        return Err(CheckError::Input(InputError::at(
            file,
            ".",
            e.line(),
            e.column(),
            "bytes after the report: a file holds one JSON report".to_owned(),
        )));
    }
    if report.format != REPORT_FORMAT {
        return Err(bad(
            file,
            "format",
            format!(
                "{:?} is not {REPORT_FORMAT:?}: not a kpe-check JSON report",
                report.format
            ),
        ));
    }
    if !(OLDEST_REPORT_VERSION..=REPORT_VERSION).contains(&report.version) {
        return Err(bad(
            file,
            "version",
            format!(
                "report version {} is not read by this kpe-check (it reads {OLDEST_REPORT_VERSION} to {REPORT_VERSION})",
                report.version
            ),
        ));
    }
    Ok(report)
}

/// The first field (by its JSON path) in which two runs differ, with the
/// values, so that a refusal says why two shards are not of one run.
fn first_difference(a: &Run, b: &Run) -> Option<(&'static str, String, String)> {
    fn show<T: serde::Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap_or_default()
    }
    let (x, y) = (&a.certificate, &b.certificate);
    macro_rules! differ {
        ($($name:literal: $a:expr, $b:expr;)*) => {
            $(if $a != $b {
                return Some(($name, show(&$a), show(&$b)));
            })*
        };
    }
    differ! {
        "run.certificate.seed": x.seed, y.seed;
        "run.certificate.kpe_check": x.kpe_check, y.kpe_check;
        "run.certificate.suite": x.suite, y.suite;
        "run.certificate.protocol": x.protocol, y.protocol;
        "run.certificate.transcript": x.transcript, y.transcript;
        "run.certificate.games": x.games, y.games;
        "run.certificate.max_plies": x.max_plies, y.max_plies;
        "run.certificate.perft_depth": x.perft_depth, y.perft_depth;
        "run.certificate.only": x.only, y.only;
        "run.certificate.skip": x.skip, y.skip;
        "run.certificate.expect_fail": x.expect_fail, y.expect_fail;
        "run.certificate.max_failures": x.max_failures, y.max_failures;
        "run.certificate.planned": x.planned, y.planned;
        "run.source": a.source, b.source;
        "run.kind": a.kind, b.kind;
        "run.profile": a.profile, b.profile;
        "run.profiles": a.profiles, b.profiles;
    }
    if let (Some(e), Some(f)) = (&a.engine, &b.engine)
        && e != f
    {
        return Some(("run.engine", show(e), show(f)));
    }
    None
}

/// Merges shard reports (each with its file name, for errors) into `sink`.
///
/// # Errors
///
/// As [`merge_files`].
pub fn merge_reports(
    reports: &[(String, JsonReport)],
    sink: &mut dyn Sink,
) -> Result<Summary, CheckError> {
    let (first_file, run0, count) = first_run(reports)?;
    check_shards(reports, first_file, run0, count)?;
    let mut run = run0.clone();
    run.certificate.shard = None;
    run.certificate.planned = None;
    run.engine = reports
        .iter()
        .find_map(|(_, r)| r.run.as_ref()?.engine.clone());
    let index_of = |p: Option<crate::profile::Profile>| {
        p.and_then(|p| run.profiles.iter().position(|q| *q == p))
            .unwrap_or(0)
    };
    let mut units: Vec<_> = reports
        .iter()
        .flat_map(|(_, r)| r.units.iter().cloned())
        .collect();
    units.sort_by_key(|u| (u.seq.unwrap_or(u64::MAX), index_of(u.profile)));
    check_plan(reports, &units, count)?;
    heed_signal()?;
    // Stopping rules over the whole plan: a shard cannot see the others.
    super::policy::normalize(&mut units, run.certificate.max_failures);
    heed_signal()?;
    let summary = merged_summary(reports, &run, &units);
    // What each unit left unexplained was for naming the reading: the
    // merged report is the unsharded one, whose units do not carry it.
    for unit in &mut units {
        unit.unexplained.clear();
    }
    let output = |e| CheckError::Output(e);
    sink.begin(&run).map_err(output)?;
    // Past here the report is written whole: a signal no longer stops it
    // (writing is linear and short), so no half report is left.
    for unit in &units {
        sink.unit(unit).map_err(output)?;
    }
    sink.finish(&summary).map_err(output)?;
    Ok(summary)
}

/// The first report's file, its run and the number of shards it says the
/// run has.
fn first_run(reports: &[(String, JsonReport)]) -> Result<(&str, &Run, u32), CheckError> {
    let Some((first_file, first)) = reports.first() else {
        return Err(bad(MERGE, ".", "no report given".to_owned()));
    };
    let Some(run0) = &first.run else {
        return Err(bad(
            first_file,
            "run",
            "the report has no run: it stopped on bad input".to_owned(),
        ));
    };
    let count = run0.certificate.shard.map_or(1, |s| s.count);
    if count == 0 || count > MAX_SHARDS {
        return Err(bad(
            first_file,
            "run.certificate.shard.count",
            format!("{count} shards: expected 1 to {MAX_SHARDS}"),
        ));
    }
    Ok((first_file, run0, count))
}

/// Every report is a whole shard of the run of the first (`run0`, of
/// `count` shards), each shard is given once, and none is missing.
fn check_shards(
    reports: &[(String, JsonReport)],
    first_file: &str,
    run0: &Run,
    count: u32,
) -> Result<(), CheckError> {
    let mut given = BTreeSet::new();
    for (file, report) in reports {
        heed_signal()?;
        let Some(run) = &report.run else {
            return Err(bad(
                file,
                "run",
                "the report has no run: it stopped on bad input".to_owned(),
            ));
        };
        let Some(summary) = &report.summary else {
            return Err(bad(
                file,
                "summary",
                "the report has no summary: the run did not finish".to_owned(),
            ));
        };
        if let Some((field, theirs, ours)) = first_difference(run, run0) {
            return Err(bad(
                file,
                field,
                format!(
                    "not a shard of the same run as {first_file}: {field} is {theirs} here \
                     and {ours} there; merge the shards of one run (same seed, engine, suite \
                     and kpe-check version)"
                ),
            ));
        }
        let shard = shard_of(file, first_file, run, count)?;
        if !given.insert(shard.index) {
            return Err(bad(
                file,
                "run.certificate.shard",
                format!("shard {shard} is given twice"),
            ));
        }
        check_shard(file, report, run, summary, shard)?;
    }
    // At most as many steps as reports: the first share not given.
    if let Some(missing) = (1..=count).find(|k| !given.contains(k)) {
        return Err(bad(
            MERGE,
            ".",
            format!("shard {missing}/{count} is missing"),
        ));
    }
    Ok(())
}

/// The shard `run` (of `file`) says it is, one of `count` like the first
/// report's.
fn shard_of(
    file: &str,
    first_file: &str,
    run: &Run,
    count: u32,
) -> Result<super::report::Shard, CheckError> {
    let shard = run
        .certificate
        .shard
        .unwrap_or(super::report::Shard { index: 1, count: 1 });
    if shard.count != count {
        return Err(bad(
            file,
            "run.certificate.shard.count",
            format!(
                "a report of a run with --shard K/{}, where {first_file} is of K/{count}",
                shard.count
            ),
        ));
    }
    if shard.index == 0 || shard.index > count {
        return Err(bad(
            file,
            "run.certificate.shard.index",
            format!("shard {}: expected an index from 1 to {count}", shard.index),
        ));
    }
    Ok(shard)
}

/// The summary of the merged `units` of `run`: counts in all and per
/// profile, each profile's reading from the shards' explanations, and the
/// shards' rules and notes.
fn merged_summary(
    reports: &[(String, JsonReport)],
    run: &Run,
    units: &[super::report::UnitResult],
) -> Summary {
    let index_of = |p: Option<crate::profile::Profile>| {
        p.and_then(|p| run.profiles.iter().position(|q| *q == p))
            .unwrap_or(0)
    };
    let several = run.profiles.len() > 1;
    let mut summary = Summary::default();
    let mut per_profile = vec![Counts::default(); run.profiles.len()];
    for unit in units {
        if let Some(counts) = per_profile.get_mut(index_of(unit.profile)) {
            counts.add(unit);
        }
        summary.add(unit);
    }
    let mut rows: Vec<ProfileSummary> = Vec::new();
    for (&profile, counts) in run.profiles.iter().zip(per_profile) {
        let explanations = merged_explanations(reports, units, profile, several);
        let reading = (counts.diverges > 0 && !explanations.is_empty())
            .then(|| reading_from(profile, &explanations, &[Switch::EndOnRepetition]));
        rows.push(ProfileSummary {
            profile,
            counts,
            verdict: counts.verdict(),
            reading,
            explanations: Vec::new(),
        });
    }
    for (_, report) in reports {
        let Some(s) = &report.summary else { continue };
        summary.rules.extend(s.rules);
        for note in &s.notes {
            summary.note(note.clone());
        }
    }
    summary.profiles = rows;
    if !several {
        summary.reading = summary.profiles.first().and_then(|p| p.reading.clone());
    }
    summary
}

/// One shard against itself: a shard of an interrupted run is refused; its
/// summary counts are those of its units; every unit is of a profile of
/// the run, has its place in the plan (`seq`) in this share, and a
/// diverging unit says how it diverges.
fn check_shard(
    file: &str,
    report: &JsonReport,
    run: &Run,
    summary: &Summary,
    shard: super::report::Shard,
) -> Result<(), CheckError> {
    if let Some(signal) = &summary.interrupted {
        return Err(bad(
            file,
            "summary.interrupted",
            format!("the run of this shard was interrupted by {signal}: run the shard again"),
        ));
    }
    let mut counts = Counts::default();
    for (k, unit) in report.units.iter().enumerate() {
        check_unit(file, k, unit, run, shard)?;
        counts.add(unit);
    }
    check_explanations(file, report, summary)?;
    check_counts(file, &counts, summary)
}

/// Unit `k` of a shard: a diverging unit says how it diverges (with a
/// scenario that is one, if any), its profile is one of the run's, and its
/// place in the plan (`seq`) is in this share.
fn check_unit(
    file: &str,
    k: usize,
    unit: &super::report::UnitResult,
    run: &Run,
    shard: super::report::Shard,
) -> Result<(), CheckError> {
    let at = |field: &str| format!("units[{k}]{field}");
    if unit.verdict == Verdict::Diverges && unit.divergence.is_none() {
        return Err(bad(
            file,
            &at(".divergence"),
            format!(
                "unit {:?} diverges but says nothing of how: a diverging unit has a divergence",
                unit.id
            ),
        ));
    }
    if let Some(scenario) = unit.divergence.as_ref().and_then(|d| d.scenario.as_ref())
        && let Some(problem) = crate::scenario::scenario_problems(scenario).first()
    {
        return Err(bad(
            file,
            &at(".divergence.scenario"),
            format!(
                "the reproduction scenario {:?} is not one: {problem}",
                scenario.id
            ),
        ));
    }
    if let Some(p) = unit.profile
        && !run.profiles.contains(&p)
    {
        return Err(bad(
            file,
            &at(".profile"),
            format!("profile {p} is not one of the run's profiles"),
        ));
    }
    match unit.seq {
        Some(seq) if shard.count > 1 && !shard.contains(seq) => {
            return Err(bad(
                file,
                &at(".seq"),
                format!(
                    "unit {:?} at place {seq} of the plan is not in shard {shard}: \
                     a foreign unit",
                    unit.id
                ),
            ));
        }
        None if shard.count > 1 && !is_after_the_plan(&unit.kind) => {
            return Err(bad(
                file,
                &at(".seq"),
                format!(
                    "unit {:?} has no place in the plan (seq): not a unit of a --shard run",
                    unit.id
                ),
            ));
        }
        _ => {}
    }
    Ok(())
}

/// A shard's summary counts against `counts`, those of the units it lists.
fn check_counts(file: &str, counts: &Counts, summary: &Summary) -> Result<(), CheckError> {
    let stated = summary.counts();
    for (field, units, said) in [
        ("units", counts.units, stated.units),
        ("conforming", counts.conforms, stated.conforms),
        ("diverging", counts.diverges, stated.diverges),
        ("errored", counts.errored, stated.errored),
        ("skipped", counts.skipped, stated.skipped),
        ("expected", counts.expected, stated.expected),
        ("fixed", counts.fixed, stated.fixed),
        ("plies", counts.plies, stated.plies),
    ] {
        if units != said {
            return Err(bad(
                file,
                &format!("summary.{field}"),
                format!("the summary says {said}, but the units listed add up to {units}"),
            ));
        }
    }
    Ok(())
}

/// A shard's explanations (added up by merge to name the reading) against
/// its units: a profile explains no more units badly than the shard holds
/// of the profile checked, and each rule's count is within its total, so
/// that no sum of shards can overflow or name a reading its units do not
/// show.
fn check_explanations(
    file: &str,
    report: &JsonReport,
    summary: &Summary,
) -> Result<(), CheckError> {
    let single = summary.profiles.len() == 1;
    for (k, row) in summary.profiles.iter().enumerate() {
        let held = report
            .units
            .iter()
            .filter(|u| u.profile == Some(row.profile) || (single && u.profile.is_none()))
            .count() as u64;
        for (j, e) in row.explanations.iter().enumerate() {
            let at = format!("summary.profiles[{k}].explanations[{j}]");
            if e.units > held {
                return Err(bad(
                    file,
                    &format!("{at}.units"),
                    format!(
                        "{} units unexplained by {}, but the shard holds {held} units of {}",
                        e.units, e.profile, row.profile
                    ),
                ));
            }
            for (i, r) in e.rules.iter().enumerate() {
                if r.units > e.units {
                    return Err(bad(
                        file,
                        &format!("{at}.rules[{i}].units"),
                        format!(
                            "{} units under {}, more than the {} unexplained in all",
                            r.units, r.rule, e.units
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The units of all shards against the plan: each place (`seq`) once, none
/// missing between the first and the last, and each share holding as many
/// units as round-robin dealing gives it.
fn check_plan(
    reports: &[(String, JsonReport)],
    units: &[super::report::UnitResult],
    count: u32,
) -> Result<(), CheckError> {
    if count == 1 {
        let mut seen = HashSet::new();
        for u in units {
            if !seen.insert((u.seq, u.profile, u.id.as_str())) {
                return Err(bad(MERGE, ".", format!("unit {:?} is given twice", u.id)));
            }
        }
        return Ok(());
    }
    // Probes and the engine's shutdown come after the plan, in no place
    // of it.
    let units: Vec<&super::report::UnitResult> = units.iter().filter(|u| u.seq.is_some()).collect();
    check_places(reports, &units)?;
    let given = units.len() as u64;
    let planned = reports
        .first()
        .and_then(|(_, r)| r.run.as_ref()?.certificate.planned);
    if let Some(planned) = planned
        && given < planned
    {
        return Err(bad(
            MERGE,
            ".",
            format!(
                "the plan holds {planned} units and the shards give {given}: the last {} \
                 are in no shard (dropped)",
                planned - given
            ),
        ));
    }
    check_shares(reports, planned.unwrap_or(given))
}

/// The units of the plan, sorted by place (`seq`): each place once, none
/// skipped.
fn check_places(
    reports: &[(String, JsonReport)],
    units: &[&super::report::UnitResult],
) -> Result<(), CheckError> {
    for (k, &unit) in units.iter().enumerate() {
        let seq = unit.seq.unwrap_or(u64::MAX);
        if seq < k as u64 {
            let file = owner(reports, unit);
            return Err(bad(
                file,
                "units",
                format!(
                    "unit {:?} at place {seq} of the plan is given twice",
                    unit.id
                ),
            ));
        }
        if seq > k as u64 {
            return Err(bad(
                MERGE,
                ".",
                format!(
                    "the unit at place {k} of the plan is in no shard (dropped); \
                     the next given is {:?} at {seq}",
                    unit.id
                ),
            ));
        }
    }
    Ok(())
}

/// Each shard's share of a plan of `total` units: as many units as
/// round-robin dealing gives it.
fn check_shares(reports: &[(String, JsonReport)], total: u64) -> Result<(), CheckError> {
    for (file, report) in reports {
        let Some(shard) = report.run.as_ref().and_then(|r| r.certificate.shard) else {
            continue;
        };
        let index = u64::from(shard.index - 1);
        let n = u64::from(shard.count);
        let expected = if total > index {
            (total - index).div_ceil(n)
        } else {
            0
        };
        let listed = report.units.iter().filter(|u| u.seq.is_some()).count() as u64;
        if listed != expected {
            return Err(bad(
                file,
                "units",
                format!(
                    "shard {shard} lists {listed} units of the plan, but a plan of {total} units deals it {expected}: \
                     a unit was dropped"
                ),
            ));
        }
    }
    Ok(())
}

/// Whether units of `kind` are run after the plan, in no place of it: the
/// probes a shard asks to tell readings apart, and the engine's shutdown.
fn is_after_the_plan(kind: &str) -> bool {
    kind == "probe" || kind == "engine"
}

/// The file that holds `unit` (for errors).
fn owner<'a>(reports: &'a [(String, JsonReport)], unit: &super::report::UnitResult) -> &'a str {
    reports
        .iter()
        .find(|(_, r)| r.units.iter().any(|u| u.seq == unit.seq && u.id == unit.id))
        .map_or(MERGE, |(f, _)| f.as_str())
}

/// The explanations of `profile`'s divergences over all shards: each
/// re-checked profile (as the shards list them) with the units of the
/// merged run it leaves unexplained, counted from the units' own records
/// after the stopping rules of the whole plan ([`super::policy::normalize`]),
/// so that a unit a shard ran but the whole run would not have is not
/// counted. Shards of an older kpe-check, whose units carry no records,
/// are added up as they are.
fn merged_explanations(
    reports: &[(String, JsonReport)],
    units: &[super::report::UnitResult],
    profile: crate::profile::Profile,
    several: bool,
) -> Vec<Explanation> {
    let rows: Vec<&super::report::ProfileSummary> = reports
        .iter()
        .filter_map(|(_, r)| {
            r.summary
                .as_ref()?
                .profiles
                .iter()
                .find(|p| p.profile == profile)
        })
        .collect();
    let mut tally = Tally::new(std::iter::empty());
    for row in &rows {
        for e in &row.explanations {
            tally.candidate(e.profile);
        }
    }
    let mine = |u: &&super::report::UnitResult| !several || u.profile == Some(profile);
    let recorded = units.iter().filter(mine).any(|u| !u.unexplained.is_empty());
    let counted = rows
        .iter()
        .any(|r| r.explanations.iter().any(|e| e.units > 0));
    if recorded || !counted {
        for unit in units.iter().filter(mine) {
            tally.unit(&unit.unexplained);
        }
    } else {
        for row in &rows {
            for e in &row.explanations {
                tally.add(e);
            }
        }
    }
    tally.explanations()
}
