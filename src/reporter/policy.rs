//! What a run selects and expects, shared by both modes: `--only` and
//! `--skip` patterns over unit ids (or rule IDs), `--max-failures`, and the
//! `--expect-fail` file of known divergences.

use std::fmt;
use std::path::Path;

use wildmatch::WildMatch;

use super::input::InputError;
use super::render::Sink;
use super::report::{Certificate, LEFT_OUT, Run, Summary, UnitResult, Verdict};
use crate::judge::{RULE_IDS, RuleSet};
use crate::profile::Profile;

/// A `--only` or `--skip` pattern: a glob over unit ids (`cap-*`,
/// `random/*`), or a rule ID (`CAP-2`: the units that exercise it). In a
/// glob `*` stands for any run of characters, `/` included, and `?` for any
/// one character (spec/REPORT.md).
#[derive(Clone, Debug)]
pub struct Pattern {
    text: String,
    matcher: Option<WildMatch>,
    rule: Option<&'static str>,
}

impl Pattern {
    /// Whether the unit `id`, exercising `rules`, matches.
    #[must_use]
    pub fn matches(&self, id: &str, rules: &[String]) -> bool {
        match (self.rule, &self.matcher) {
            (Some(rule), _) => rules.iter().any(|r| r == rule),
            (None, Some(m)) => m.matches(id),
            (None, None) => false,
        }
    }
}

impl std::str::FromStr for Pattern {
    type Err = String;

    fn from_str(s: &str) -> Result<Pattern, String> {
        if let Some(&(rule, _)) = RULE_IDS.iter().find(|(id, _)| *id == s) {
            return Ok(Pattern {
                text: s.to_owned(),
                matcher: None,
                rule: Some(rule),
            });
        }
        if s.is_empty() {
            return Err("an empty pattern matches no unit".to_owned());
        }
        if looks_like_rule_id(s) {
            let known: Vec<&str> = RULE_IDS.iter().map(|(id, _)| *id).collect();
            return Err(format!(
                "`{s}` is not a rule ID of spec/RULES.md; the rules are {}",
                known.join(", ")
            ));
        }
        if let Some(c) = s.chars().find(|c| "[]{}\\".contains(*c)) {
            return Err(format!(
                "`{s}`: a pattern is a unit id with `*` (any run of characters) and `?` \
                 (any one character); `{c}` has no meaning in it"
            ));
        }
        Ok(Pattern {
            text: s.to_owned(),
            matcher: Some(WildMatch::new(s)),
            rule: None,
        })
    }
}

/// Whether `s` has the shape of a rule ID (`CAP-2`: capitals, a dash,
/// digits); unit ids are lower case, so such a pattern that names no rule
/// is a mistake, not a glob that happens to match nothing.
fn looks_like_rule_id(s: &str) -> bool {
    s.split_once('-').is_some_and(|(word, number)| {
        !word.is_empty()
            && word.bytes().all(|b| b.is_ascii_uppercase())
            && !number.is_empty()
            && number.bytes().all(|b| b.is_ascii_digit())
    })
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The version of the `--expect-fail` file format, named by a comment line
/// `# kpe-expect-fail version 1` (which `--write-expect-fail` writes first).
/// A file without that line is of version 1, the format as it was before
/// the line existed; another version is refused.
pub const EXPECT_FAIL_VERSION: u32 = 1;

/// The words of the comment that names an `--expect-fail` file's version,
/// before the number.
pub const EXPECT_FAIL_VERSION_TAG: &str = "kpe-expect-fail version";

/// The largest `--expect-fail` file read, in bytes.
pub const MAX_EXPECT_FAIL: u64 = 1 << 20;

/// One line of an `--expect-fail` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// The unit id.
    pub id: String,
    /// The rules it is known to break (empty: any).
    pub rules: RuleSet,
    /// The profile it is known to break them under (`None`: any).
    pub profile: Option<Profile>,
    /// Where the line is: `file:line`.
    pub at: String,
}

/// Which units a run checks and which divergences it already knows.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// `--only`: a unit must match one of them (when any are given).
    pub only: Vec<Pattern>,
    /// `--skip`: a unit matching one of them is left out.
    pub skip: Vec<Pattern>,
    /// `--max-failures N` (`--fail-fast` is 1): units after the N-th
    /// failing one are not run.
    pub max_failures: Option<u64>,
    /// `--expect-fail FILE`: known divergences.
    pub expected: Vec<Expectation>,
    /// The `--expect-fail` file's name, as given, for the certificate.
    pub expected_file: Option<String>,
}

/// The reason given to units not run after `--max-failures`.
#[must_use]
pub fn stopped_reason(n: u64) -> String {
    format!(
        "not run: the run stopped after {n} failing unit{} (--max-failures {n})",
        if n == 1 { "" } else { "s" }
    )
}

impl Policy {
    /// Puts the selection into `certificate`, as both modes report it:
    /// `--only`, `--skip`, `--expect-fail` and `--max-failures`.
    pub fn stamp(&self, certificate: &mut Certificate) {
        certificate.only = self.only.iter().map(ToString::to_string).collect();
        certificate.skip = self.skip.iter().map(ToString::to_string).collect();
        certificate.expect_fail.clone_from(&self.expected_file);
        certificate.max_failures = self.max_failures;
    }

    /// Whether the unit `id`, exercising `rules`, is selected by `--only`
    /// and `--skip`.
    #[must_use]
    pub fn selects(&self, id: &str, rules: &[String]) -> bool {
        (self.only.is_empty() || self.only.iter().any(|p| p.matches(id, rules)))
            && !self.skip.iter().any(|p| p.matches(id, rules))
    }

    /// Reads the `--expect-fail` file at `path`: one known divergence a
    /// line, `UNIT-ID RULE-ID[,RULE-ID...] [PROFILE]`; `#` starts a
    /// comment; `*` for the rules means any.
    ///
    /// # Errors
    ///
    /// A bad-input error naming the file, line and column.
    pub fn load_expected(&mut self, path: &Path) -> Result<(), InputError> {
        let file = path.display().to_string();
        let bad = |message: String| InputError::at(&file, "", 0, 0, message);
        let bytes = crate::scenario::read_limited(path, MAX_EXPECT_FAIL).map_err(|e| match e {
            crate::scenario::LimitedRead::Io(e) => InputError::read(&file, e),
            crate::scenario::LimitedRead::NotAFile(kind) => bad(format!(
                "it is {kind}, not a regular file; --expect-fail reads a text file of known divergences"
            )),
            crate::scenario::LimitedRead::TooLarge(size) => bad(format!(
                "{size} bytes is more than {MAX_EXPECT_FAIL}, the largest --expect-fail file read"
            )),
        })?;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let (line, column) = crate::scenario::line_column(&e.as_bytes()[..at]);
                return Err(InputError::at(
                    &file,
                    "",
                    line,
                    column,
                    format!(
                        "byte 0x{:02x} is not UTF-8: an --expect-fail file is UTF-8 text",
                        e.as_bytes()[at]
                    ),
                ));
            }
        };
        self.parse_expected(&file, &text)
    }

    /// Reads the lines of an `--expect-fail` file named `file` (for
    /// errors) from `text`, as [`Policy::load_expected`] does.
    ///
    /// # Errors
    ///
    /// A byte-order mark, or a line that is not `UNIT-ID
    /// RULE-ID[,RULE-ID...] [PROFILE]`, at its line and column.
    pub fn parse_expected(&mut self, file: &str, text: &str) -> Result<(), InputError> {
        if text.starts_with('\u{feff}') {
            return Err(InputError::at(
                file,
                "",
                1,
                1,
                "the file starts with a byte-order mark (U+FEFF); save it as UTF-8 without one"
                    .to_owned(),
            ));
        }
        for (k, raw) in text.lines().enumerate() {
            // A NUL or another control character would not show in the
            // messages that quote the line: refused, named, where it is.
            if let Some((column, c)) = raw
                .char_indices()
                .find(|&(_, c)| c.is_control() && c != '\t')
            {
                return Err(InputError::at(
                    file,
                    "",
                    k + 1,
                    column + 1,
                    format!(
                        "the control character {} (U+{:04X}){}: a line holds a unit ID, rule IDs and a profile, as text",
                        c.escape_default(),
                        u32::from(c),
                        if c == '\0' { ", a NUL byte" } else { "" }
                    ),
                ));
            }
            if let Some(version) = raw
                .trim_start()
                .strip_prefix('#')
                .and_then(|c| c.trim_start().strip_prefix(EXPECT_FAIL_VERSION_TAG))
            {
                let version = version.trim();
                if version != EXPECT_FAIL_VERSION.to_string() {
                    let column = raw.find(version).map_or(1, |c| c + 1);
                    return Err(InputError::at(
                        file,
                        "",
                        k + 1,
                        column,
                        format!(
                            "unknown --expect-fail file version `{version}`: this kpe-check reads version {EXPECT_FAIL_VERSION} (or a file that names none)"
                        ),
                    ));
                }
                continue;
            }
            let line = raw.split('#').next().unwrap_or("").trim_end();
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.is_empty() {
                continue;
            }
            let at = |word: usize, message: String| {
                let column = raw.find(words[word]).map_or(1, |c| c + 1);
                InputError::at(file, "", k + 1, column, message)
            };
            if words.len() < 2 || words.len() > 3 {
                return Err(at(
                    0,
                    "expected `UNIT-ID RULE-ID[,RULE-ID...] [PROFILE]`".to_owned(),
                ));
            }
            let mut rules = RuleSet::new();
            if words[1] != "*" {
                for rule in words[1].split(',') {
                    match RULE_IDS.iter().find(|(id, _)| *id == rule) {
                        Some((id, _)) => rules.insert(id),
                        None => {
                            return Err(at(
                                1,
                                format!(
                                    "`{}` is not a rule ID of spec/RULES.md (or `*` for any)",
                                    rule.escape_debug()
                                ),
                            ));
                        }
                    }
                }
            }
            let profile = match words.get(2) {
                None => None,
                Some(p) => Some(p.parse::<Profile>().map_err(|e| at(2, e.to_string()))?),
            };
            self.expected.push(Expectation {
                id: words[0].to_owned(),
                rules,
                profile,
                at: format!("{file}:{}", k + 1),
            });
        }
        Ok(())
    }

    /// Applies the `--expect-fail` file to `unit`: a listed divergence that
    /// breaks the listed rules is *expected*; a listed unit that conforms is
    /// *fixed*; one that breaks other rules stays a divergence, with a note.
    pub fn classify(&self, unit: &mut UnitResult) {
        let Some(e) = self.expected.iter().find(|e| {
            e.id == unit.id
                && e.profile
                    .is_none_or(|p| unit.profile.is_none_or(|u| u == p))
        }) else {
            return;
        };
        match unit.verdict {
            Verdict::Conforms => {
                unit.verdict = Verdict::Fixed;
                unit.reason = Some(format!("listed in {} but conforms now", e.at));
            }
            Verdict::Diverges => {
                let Some(d) = unit.divergence.as_mut() else {
                    return;
                };
                if e.rules.iter().all(|r| d.rules.contains(r)) {
                    unit.verdict = Verdict::Expected;
                    let rules = if e.rules.is_empty() {
                        "any rule".to_owned()
                    } else {
                        e.rules.to_string()
                    };
                    unit.reason = Some(format!("known divergence ({rules}), listed in {}", e.at));
                } else {
                    d.notes.push(format!(
                        "{} expects a divergence in {}, but this one breaks {}",
                        e.at, e.rules, d.rules
                    ));
                }
            }
            _ => {}
        }
    }

    /// Whether a unit is to be run after `failures` failing units.
    #[must_use]
    pub fn stopped(&self, failures: u64) -> bool {
        self.max_failures.is_some_and(|n| failures >= n)
    }
}

/// The reason of an errored unit whose engine did not start (its hello
/// failed): the profile's later units are not run.
pub const DID_NOT_START: &str = "the engine did not start";

/// Random games of one profile that may diverge before the rest are not
/// run.
pub const MAX_DIVERGING_GAMES: usize = 10;

/// The chain a unit belongs to: the perft counts of one tree
/// (`perft/initial/3` is in `perft/initial`), whose deeper counts fail for
/// the same reason as a shallower one.
#[must_use]
pub fn chain_of<'a>(kind: &str, id: &'a str) -> Option<&'a str> {
    if kind != "perft" {
        return None;
    }
    id.rsplit_once('/').map(|(chain, _)| chain)
}

/// Why a unit (`kind`, `id`, checked under `profile`) is not to be run,
/// given the units before it in the plan: `--max-failures`, a failed
/// shallower count of its chain, or [`MAX_DIVERGING_GAMES`] diverged random
/// games. The scheduler asks it before running a unit and once more in
/// plan order at the end, and `kpe-check merge` asks it over the shards'
/// units, so that the report does not depend on `--jobs` or `--shard`.
#[must_use]
pub fn stop_reason<'a>(
    earlier: impl Iterator<Item = &'a UnitResult> + Clone,
    kind: &str,
    id: &str,
    profile: Option<Profile>,
    max_failures: Option<u64>,
) -> Option<String> {
    let failures = earlier.clone().filter(|u| is_failure(u)).count() as u64;
    if let Some(n) = max_failures
        && failures >= n
    {
        return Some(stopped_reason(n));
    }
    let mine = earlier.filter(|u| u.profile == profile);
    if mine
        .clone()
        .any(|u| u.verdict == Verdict::Errored && u.reason.as_deref() == Some(DID_NOT_START))
    {
        return Some(format!(
            "not run: {DID_NOT_START} (see the errored unit before)"
        ));
    }
    if let Some(chain) = chain_of(kind, id)
        && mine
            .clone()
            .any(|u| chain_of(&u.kind, &u.id) == Some(chain) && is_failure(u))
    {
        return Some(
            "not run: a shallower count of the same tree failed, and deeper ones fail for the same reason"
                .to_owned(),
        );
    }
    if kind == "random-game" {
        let diverged = mine
            .filter(|u| {
                u.kind == "random-game"
                    && matches!(u.verdict, Verdict::Diverges | Verdict::Expected)
            })
            .count();
        if diverged >= MAX_DIVERGING_GAMES {
            return Some(format!(
                "not run: {MAX_DIVERGING_GAMES} random games had already diverged"
            ));
        }
    }
    None
}

/// Applies [`stop_reason`] to `units`, in order: a unit that ran but that
/// the rules say should not have is reported as not run. Linear in the
/// units: what the rules ask of the earlier units is kept as it goes
/// ([`StopState`]), not counted again for each unit.
pub fn normalize(units: &mut [UnitResult], max_failures: Option<u64>) {
    let mut state = StopState::default();
    for unit in units.iter_mut() {
        state.normalize(unit, max_failures);
    }
}

/// What [`stop_reason`] asks of the units before one, kept up to date unit
/// by unit: the failures, and per profile whether the engine did not
/// start, the perft chains that failed and the random games that diverged.
#[derive(Clone, Default)]
pub struct StopState {
    failures: u64,
    profiles: Vec<(Option<Profile>, ProfileStop)>,
}

#[derive(Clone, Default)]
struct ProfileStop {
    did_not_start: bool,
    failed_chains: std::collections::HashSet<String>,
    diverged_random: usize,
}

impl StopState {
    fn of(&self, profile: Option<Profile>) -> Option<&ProfileStop> {
        self.profiles
            .iter()
            .find(|(p, _)| *p == profile)
            .map(|(_, s)| s)
    }

    /// One step of [`normalize`]: `unit`, the next in plan order, reported
    /// as not run when the rules say it should not have run after the units
    /// counted so far, then counted in. A run normalizes its units one at a
    /// time, as they finish, without holding them all.
    pub fn normalize(&mut self, unit: &mut UnitResult, max_failures: Option<u64>) {
        let static_skip = unit.verdict == Verdict::Skipped
            && !unit
                .reason
                .as_deref()
                .is_some_and(|r| r.starts_with("not run:"));
        let gave_up = unit
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("gave up"));
        if !static_skip
            && !gave_up
            && let Some(reason) = self.reason(&unit.kind, &unit.id, unit.profile, max_failures)
        {
            let mut skipped = UnitResult::skipped(
                unit.kind.clone(),
                unit.id.clone(),
                unit.location.clone(),
                reason,
            );
            skipped.profile = unit.profile;
            skipped.seq = unit.seq;
            *unit = skipped;
        }
        self.record(unit);
    }

    /// Counts `unit` in, as one of the earlier units of those after it.
    pub fn record(&mut self, unit: &UnitResult) {
        let failure = is_failure(unit);
        self.failures += u64::from(failure);
        let at = match self.profiles.iter().position(|(p, _)| *p == unit.profile) {
            Some(at) => at,
            None => {
                self.profiles.push((unit.profile, ProfileStop::default()));
                self.profiles.len() - 1
            }
        };
        let mine = &mut self.profiles[at].1;
        if unit.verdict == Verdict::Errored && unit.reason.as_deref() == Some(DID_NOT_START) {
            mine.did_not_start = true;
        }
        if failure && let Some(chain) = chain_of(&unit.kind, &unit.id) {
            mine.failed_chains.insert(chain.to_owned());
        }
        if unit.kind == "random-game"
            && matches!(unit.verdict, Verdict::Diverges | Verdict::Expected)
        {
            mine.diverged_random += 1;
        }
    }

    /// [`stop_reason`] for a unit after those recorded.
    #[must_use]
    pub fn reason(
        &self,
        kind: &str,
        id: &str,
        profile: Option<Profile>,
        max_failures: Option<u64>,
    ) -> Option<String> {
        if let Some(n) = max_failures
            && self.failures >= n
        {
            return Some(stopped_reason(n));
        }
        let mine = self.of(profile)?;
        if mine.did_not_start {
            return Some(format!(
                "not run: {DID_NOT_START} (see the errored unit before)"
            ));
        }
        if let Some(chain) = chain_of(kind, id)
            && mine.failed_chains.contains(chain)
        {
            return Some(
                "not run: a shallower count of the same tree failed, and deeper ones fail for the same reason"
                    .to_owned(),
            );
        }
        if kind == "random-game" && mine.diverged_random >= MAX_DIVERGING_GAMES {
            return Some(format!(
                "not run: {MAX_DIVERGING_GAMES} random games had already diverged"
            ));
        }
        None
    }
}

/// Whether a unit counts against `--max-failures`.
#[must_use]
pub fn is_failure(unit: &UnitResult) -> bool {
    matches!(unit.verdict, Verdict::Diverges | Verdict::Errored)
}

/// A sink that applies a [`Policy`] to a stream of units (the transcript
/// mode's games): units left out by `--only`/`--skip` are dropped, known
/// divergences classified, and units after `--max-failures` failing ones
/// reported as skipped; the summary is counted again to match.
pub struct PolicySink<'a> {
    inner: &'a mut dyn Sink,
    policy: &'a Policy,
    summary: Summary,
    failures: u64,
    left_out: u64,
    unmatched: Unmatched<'a>,
}

/// The `--expect-fail` lines that match no unit of a run: each is a note
/// of the report (a typo in an id, or a unit the suite no longer has),
/// not an error, since a list kept for several runs may name units that
/// one run leaves out. Memory is bounded by the file, not by the units.
pub struct Unmatched<'a> {
    policy: &'a Policy,
    by_id: std::collections::HashMap<&'a str, Vec<usize>>,
    seen: Vec<bool>,
}

impl<'a> Unmatched<'a> {
    /// Nothing seen yet.
    #[must_use]
    pub fn new(policy: &'a Policy) -> Unmatched<'a> {
        let mut by_id: std::collections::HashMap<&str, Vec<usize>> =
            std::collections::HashMap::new();
        for (k, e) in policy.expected.iter().enumerate() {
            by_id.entry(e.id.as_str()).or_default().push(k);
        }
        Unmatched {
            policy,
            by_id,
            seen: vec![false; policy.expected.len()],
        }
    }

    /// Marks the lines that `unit` matches.
    pub fn see(&mut self, unit: &UnitResult) {
        for &k in self.by_id.get(unit.id.as_str()).into_iter().flatten() {
            let e = &self.policy.expected[k];
            if e.profile
                .is_none_or(|p| unit.profile.is_none_or(|u| u == p))
            {
                self.seen[k] = true;
            }
        }
    }

    /// A note for each line that matched no unit.
    #[must_use]
    pub fn notes(&self) -> Vec<String> {
        self.policy
            .expected
            .iter()
            .zip(&self.seen)
            .filter(|(_, seen)| !**seen)
            .map(|(e, _)| {
                format!(
                    "{}: `{}` is listed as a known divergence but matches no unit of this run",
                    e.at, e.id
                )
            })
            .collect()
    }
}

impl<'a> PolicySink<'a> {
    /// `policy` applied before `inner`.
    pub fn new(inner: &'a mut dyn Sink, policy: &'a Policy) -> PolicySink<'a> {
        PolicySink {
            inner,
            policy,
            summary: Summary::default(),
            failures: 0,
            left_out: 0,
            unmatched: Unmatched::new(policy),
        }
    }

    /// The summary as the policy counted it.
    #[must_use]
    pub fn summary(&self) -> &Summary {
        &self.summary
    }
}

impl Sink for PolicySink<'_> {
    fn begin(&mut self, run: &Run) -> std::io::Result<()> {
        let mut run = run.clone();
        self.policy.stamp(&mut run.certificate);
        self.inner.begin(&run)
    }

    fn unit(&mut self, unit: &UnitResult) -> std::io::Result<()> {
        if !self.policy.selects(&unit.id, &[]) {
            self.left_out += 1;
            return Ok(());
        }
        let mut unit = unit.clone();
        if self.policy.stopped(self.failures) {
            unit = UnitResult::skipped(
                unit.kind.clone(),
                unit.id.clone(),
                unit.location.clone(),
                stopped_reason(self.policy.max_failures.unwrap_or(0)),
            );
        } else {
            self.policy.classify(&mut unit);
            if is_failure(&unit) {
                self.failures += 1;
            }
        }
        self.unmatched.see(&unit);
        self.summary.add(&unit);
        self.inner.unit(&unit)
    }

    fn finish(&mut self, summary: &Summary) -> std::io::Result<()> {
        let mut ours = self.summary.clone();
        ours.rules = summary.rules;
        ours.reading = summary.reading.clone();
        ours.notes = summary.notes.clone();
        ours.interrupted = summary.interrupted.clone();
        if self.left_out > 0 {
            ours.note(format!(
                "{} game{} {LEFT_OUT}",
                self.left_out,
                if self.left_out == 1 { "" } else { "s" }
            ));
        }
        if ours.interrupted.is_none() {
            for note in self.unmatched.notes() {
                ours.note(note);
            }
        }
        self.summary = ours.clone();
        self.inner.finish(&ours)
    }

    fn fail(&mut self, error: &InputError) -> std::io::Result<()> {
        self.inner.fail(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_globs_or_rule_ids() {
        let glob: Pattern = "cap-*".parse().unwrap();
        assert!(glob.matches("cap-south-makes-two", &[]));
        assert!(!glob.matches("sow-one", &[]));
        let rule: Pattern = "CAP-2".parse().unwrap();
        assert!(rule.matches("anything", &["CAP-2".to_owned()]));
        assert!(!rule.matches("cap-2", &["CAP-1".to_owned()]));
        assert!("".parse::<Pattern>().is_err());
        assert!("a[".parse::<Pattern>().is_err());
    }

    #[test]
    fn a_star_crosses_slashes_and_a_question_mark_is_one_character() {
        let perft: Pattern = "perft/*".parse().unwrap();
        assert!(perft.matches("perft/initial/3", &[]));
        assert!(!perft.matches("random/3", &[]));
        let one: Pattern = "random/?".parse().unwrap();
        assert!(one.matches("random/7", &[]));
        assert!(!one.matches("random/17", &[]));
        let exact: Pattern = "sow-one".parse().unwrap();
        assert!(exact.matches("sow-one", &[]));
        assert!(!exact.matches("sow-one-more", &[]));
        for bad in ["cap-[ab]", "{cap,sow}-*", "cap\\-*"] {
            let err = bad.parse::<Pattern>().unwrap_err();
            assert!(err.contains("has no meaning"), "{bad}: {err}");
        }
    }

    #[test]
    fn only_and_skip_combine() {
        let policy = Policy {
            only: vec!["cap-*".parse().unwrap()],
            skip: vec!["cap-north-*".parse().unwrap()],
            ..Policy::default()
        };
        assert!(policy.selects("cap-south-x", &[]));
        assert!(!policy.selects("cap-north-x", &[]));
        assert!(!policy.selects("sow-x", &[]));
    }
}
