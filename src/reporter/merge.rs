//! `kpe-check merge`: the JSON reports of `--shard K/N` runs combined into
//! the report of the whole run: units back in plan order, counts, groups,
//! verdicts and the reading computed again from all shards.

use std::path::PathBuf;

use super::input::CheckError;
use super::input::InputError;
use super::render::{Sink, parse_json_report};
use super::report::{Counts, JsonReport, ProfileSummary, Summary};
use crate::judge::reading_from;
use crate::judge::{Explanation, RuleCount};

/// Largest report file read, in bytes.
const MAX_REPORT: u64 = 1 << 30;

/// Reads the reports at `paths` and merges them into `sink`.
///
/// # Errors
///
/// [`CheckError::Input`] when a file cannot be read, is not a kpe-check
/// JSON report, or the reports are not the shards of one run.
pub fn merge_files(paths: &[PathBuf], sink: &mut dyn Sink) -> Result<Summary, CheckError> {
    let mut reports = Vec::new();
    for path in paths {
        let file = path.display().to_string();
        let bad = |message: String| CheckError::Input(InputError::at(&file, "", 0, 0, message));
        let meta =
            std::fs::metadata(path).map_err(|e| CheckError::Input(InputError::read(&file, e)))?;
        if !meta.is_file() || meta.len() > MAX_REPORT {
            return Err(bad(format!(
                "expected a regular file of at most {MAX_REPORT} bytes holding a kpe-check JSON report"
            )));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| CheckError::Input(InputError::read(&file, e)))?;
        let report = parse_json_report(&text).map_err(bad)?;
        reports.push((file, report));
    }
    merge_reports(&reports, sink)
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
    let bad =
        |file: &str, message: String| CheckError::Input(InputError::at(file, "", 0, 0, message));
    let Some((first_file, first)) = reports.first() else {
        return Err(bad("kpe-check merge", "no report given".to_owned()));
    };
    let Some(run0) = &first.run else {
        return Err(bad(
            first_file,
            "the report has no run: it stopped on bad input".to_owned(),
        ));
    };
    let count = run0.certificate.shard.map_or(1, |s| s.count);
    let mut seen = vec![false; count as usize];
    for (file, report) in reports {
        let Some(run) = &report.run else {
            return Err(bad(
                file,
                "the report has no run: it stopped on bad input".to_owned(),
            ));
        };
        if report.summary.is_none() {
            return Err(bad(
                file,
                "the report has no summary: the run did not finish".to_owned(),
            ));
        }
        let mut a = run.clone();
        let mut b = run0.clone();
        a.certificate.shard = None;
        b.certificate.shard = None;
        a.engine = None;
        b.engine = None;
        if a != b {
            return Err(bad(
                file,
                format!(
                    "not a shard of the same run as {first_file}: the source, profiles or certificate (seed, suite, settings) differ"
                ),
            ));
        }
        let Some(shard) = run.certificate.shard.filter(|s| s.count == count) else {
            return Err(bad(
                file,
                format!("expected a report of a run with --shard K/{count}"),
            ));
        };
        let slot = &mut seen[shard.index as usize - 1];
        if *slot {
            return Err(bad(file, format!("shard {shard} is given twice")));
        }
        *slot = true;
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        return Err(bad(
            "kpe-check merge",
            format!("shard {}/{count} is missing", missing + 1),
        ));
    }
    let mut run = run0.clone();
    run.certificate.shard = None;
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
    units.sort_by_key(|u| (index_of(u.profile), u.seq.unwrap_or(u64::MAX)));
    // Stopping rules over the whole plan: a shard cannot see the others.
    super::policy::normalize(&mut units, run.certificate.max_failures);
    let several = run.profiles.len() > 1;
    let mut summary = Summary::default();
    let mut rows: Vec<ProfileSummary> = Vec::new();
    for (index, &profile) in run.profiles.iter().enumerate() {
        let mut counts = Counts::default();
        for unit in units.iter().filter(|u| index_of(u.profile) == index) {
            counts.add(unit);
        }
        let mut explanations: Vec<Explanation> = Vec::new();
        for (_, report) in reports {
            let Some(row) = report
                .summary
                .as_ref()
                .and_then(|s| s.profiles.iter().find(|p| p.profile == profile))
            else {
                continue;
            };
            for e in &row.explanations {
                match explanations.iter_mut().find(|m| m.profile == e.profile) {
                    Some(m) => {
                        m.units += e.units;
                        for r in &e.rules {
                            match m.rules.iter_mut().find(|c| c.rule == r.rule) {
                                Some(c) => c.units += r.units,
                                None => m.rules.push(RuleCount {
                                    rule: r.rule.clone(),
                                    units: r.units,
                                }),
                            }
                        }
                    }
                    None => explanations.push(e.clone()),
                }
            }
        }
        for e in &mut explanations {
            e.rules.sort_by_key(|r| {
                crate::judge::RULE_IDS
                    .iter()
                    .position(|(id, _)| *id == r.rule)
            });
        }
        let reading = (counts.diverges > 0 && !explanations.is_empty())
            .then(|| reading_from(profile, &explanations));
        rows.push(ProfileSummary {
            profile,
            counts,
            verdict: counts.verdict(),
            reading,
            explanations: Vec::new(),
        });
    }
    for unit in &units {
        summary.add(unit);
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
    let output = |e| CheckError::Output(e);
    sink.begin(&run).map_err(output)?;
    for unit in &units {
        sink.unit(unit).map_err(output)?;
    }
    sink.finish(&summary).map_err(output)?;
    Ok(summary)
}
