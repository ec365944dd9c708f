//! The one report model of a check run, shared by the transcript and live
//! modes: the run and its certificate fields, each unit with its verdict,
//! the divergences, their groups and the summary. The renderers in
//! `render.rs` only read it; `kpe-check merge` reads it back from JSON.

use serde::{Deserialize, Serialize};

use crate::profile::Profile;

use crate::judge::{Divergence, Explanation, Reading, RuleCount, RuleSet, Unexplained};
use crate::transcript::Engine;

/// The `format` of a JSON report.
pub const REPORT_FORMAT: &str = "kpe-check-report";

/// The `version` of the JSON report format described by
/// `spec/report.schema.json`. Version 3 (issue 44) is version 2 with the
/// fields added since: `run.certificate.planned` and `transcript`, a
/// divergence's `perft`, a unit's `retried` and `unexplained`, each
/// optional; their absence means what it meant in version 2.
pub const REPORT_VERSION: u32 = 3;

/// The oldest report version `kpe-check merge` reads: a version-2 report
/// is read by its own meaning (none of version 3's added fields).
pub const OLDEST_REPORT_VERSION: u32 = 2;

/// kpe-check's own version, as the certificate states it.
pub const KPE_CHECK_VERSION: &str = env!("CARGO_PKG_VERSION");

/// What was checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RunKind {
    /// A transcript of games an engine played.
    Transcript,
    /// A live engine driven over the protocol.
    Engine,
}

/// The header of a check run, known before the first unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// The file given on the command line.
    pub source: String,
    /// What the file is.
    pub kind: RunKind,
    /// The engine under test, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<Engine>,
    /// The rules profile the engine claims (the first of [`Run::profiles`]).
    pub profile: Profile,
    /// Every profile checked, in order: one unless the engine plays several.
    pub profiles: Vec<Profile>,
    /// What was checked with what, so that a run can be repeated and
    /// compared.
    pub certificate: Certificate,
}

impl Run {
    /// The header of a run of `kind` over `source`, claiming `profile`, with
    /// the certificate fields every run has.
    #[must_use]
    pub fn new(source: impl Into<String>, kind: RunKind, profile: Profile) -> Run {
        Run {
            source: source.into(),
            kind,
            engine: None,
            profile,
            profiles: vec![profile],
            certificate: Certificate::default(),
        }
    }
}

/// The settings a run was made with: tool, protocol and suite versions,
/// seed and budgets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Certificate {
    /// kpe-check's version ([`KPE_CHECK_VERSION`]).
    pub kpe_check: String,
    /// The protocol version spoken with the engine (live mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<u32>,
    /// The transcript format version read (transcript mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<u32>,
    /// The conformance suite that ran (live mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<SuiteStamp>,
    /// The seed of the random games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// How many random games per profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<u32>,
    /// The longest random game, in plies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_plies: Option<u32>,
    /// The deepest perft depth from the initial position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perft_depth: Option<u32>,
    /// The share of the units this run checked (`--shard K/N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// With `shard`: how many units the whole plan holds before the shares
    /// are dealt, so that `kpe-check merge` finds a unit dropped from the
    /// end of the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned: Option<u64>,
    /// The `--only` patterns, as given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only: Vec<String>,
    /// The `--skip` patterns, as given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skip: Vec<String>,
    /// The `--expect-fail` file, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_fail: Option<String>,
    /// `--max-failures` (1 for `--fail-fast`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_failures: Option<u64>,
}

impl Default for Certificate {
    fn default() -> Certificate {
        Certificate {
            kpe_check: KPE_CHECK_VERSION.to_owned(),
            protocol: None,
            transcript: None,
            suite: None,
            seed: None,
            games: None,
            max_plies: None,
            perft_depth: None,
            shard: None,
            planned: None,
            only: Vec::new(),
            skip: Vec::new(),
            expect_fail: None,
            max_failures: None,
        }
    }
}

/// Which conformance suite ran: its version and a digest of its content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuiteStamp {
    /// The suite's version ([`crate::scenario::SUITE_VERSION`]).
    pub version: u32,
    /// `sha256:` and the hex SHA-256 of the canonical JSON of the scenarios
    /// and perft tables (see [`crate::scenario::Suite::digest`]).
    pub digest: String,
}

/// The most shards of one run (`--shard K/N`, and what `kpe-check merge`
/// accepts).
pub const MAX_SHARDS: u32 = 4096;

/// One share of a run's units: the `index`-th of `count` (`--shard K/N`,
/// 1-based as written).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Shard {
    /// Which share, from 1 to `count`.
    pub index: u32,
    /// How many shares.
    pub count: u32,
}

impl Shard {
    /// Whether the unit at `position` in the whole plan belongs to this
    /// share: units are dealt round-robin, so every share gets units of
    /// every kind.
    #[must_use]
    pub fn contains(self, position: u64) -> bool {
        position % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `K/N` with 1 <= K <= N.
    fn from_str(s: &str) -> Result<Shard, String> {
        let max = MAX_SHARDS;
        let bad = || format!("`{s}`: expected K/N with 1 <= K <= N <= {max}, e.g. 2/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let number = |t: &str| -> Result<u64, String> {
            let t = t.trim();
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            // Digits only: too many of them is a number past the limit.
            Ok(t.parse().unwrap_or(u64::MAX))
        };
        let (index, count) = (number(k)?, number(n)?);
        if count > u64::from(max) {
            return Err(format!(
                "`{s}`: at most {max} shards (N <= {max}); {count} shards of one run is more than any CI matrix holds"
            ));
        }
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        let (Ok(index), Ok(count)) = (u32::try_from(index), u32::try_from(count)) else {
            return Err(bad());
        };
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The verdict of one unit.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every claim matched the rules.
    Conforms,
    /// Some claim did not: a rules divergence.
    Diverges,
    /// The engine could not be checked on this unit: it did not start,
    /// crashed, hung or broke the protocol.
    Errored,
    /// The unit was not checked: the profile or the protocol cannot check
    /// it, a filter left it out, or the run stopped first. The reason says
    /// which.
    Skipped,
    /// It diverged as the `--expect-fail` file says it would: a known
    /// divergence, which does not fail the run.
    Expected,
    /// The `--expect-fail` file lists it, but it now conforms: the line can
    /// go.
    Fixed,
}

impl Verdict {
    /// Every verdict, in report order.
    pub const ALL: [Verdict; 6] = [
        Verdict::Conforms,
        Verdict::Diverges,
        Verdict::Errored,
        Verdict::Skipped,
        Verdict::Expected,
        Verdict::Fixed,
    ];

    /// The verdict's name, as in the JSON report.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Verdict::Conforms => "conforms",
            Verdict::Diverges => "diverges",
            Verdict::Errored => "errored",
            Verdict::Skipped => "skipped",
            Verdict::Expected => "expected",
            Verdict::Fixed => "fixed",
        }
    }
}

/// The result of one unit: a transcript game, a scenario, a random game, a
/// perft count, a probe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnitResult {
    /// What kind of unit: `game`, `scenario`, `perft`, `random-game`,
    /// `probe`, `engine` (starting or stopping the engine).
    pub kind: String,
    /// Its id, unique within a profile: a game id, a scenario id,
    /// `perft/...`, `random/N`, `probe/N`.
    pub id: String,
    /// The profile it was checked under, when the run checks several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// Its place in the plan of the whole run, before `--shard` dealt it
    /// (live mode): `kpe-check merge` puts shard reports back in this order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// Where it is in the input, e.g. `games[3]` or a scenario file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// How many plies were compared, the diverging one included.
    pub plies: u64,
    /// The unit's verdict.
    pub verdict: Verdict,
    /// Seconds spent on it (wall clock).
    #[serde(default)]
    pub time: f64,
    /// Why it was skipped, or what the `--expect-fail` file said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The first divergence, when it diverges (or diverged as expected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Box<Divergence>>,
    /// What went wrong with the engine, when it errored.
    // Boxed: most units have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Box<EngineError>>,
    /// The engine errors of the earlier runs of this unit (`--retries N`),
    /// oldest first: a unit that then conforms is *flaky*.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retried: Vec<EngineError>,
    /// In a shard's report (live mode, `--shard`): the profiles under which
    /// this unit's answers are left unexplained, with the rules that decide
    /// them, so that `kpe-check merge` names the reading from exactly the
    /// units the whole run keeps. Empty elsewhere.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unexplained: Vec<Unexplained>,
}

impl UnitResult {
    fn new(
        kind: impl Into<String>,
        id: String,
        location: Option<String>,
        plies: u64,
        verdict: Verdict,
    ) -> UnitResult {
        UnitResult {
            kind: kind.into(),
            id,
            profile: None,
            seq: None,
            location,
            plies,
            verdict,
            time: 0.0,
            reason: None,
            divergence: None,
            error: None,
            retried: Vec::new(),
            unexplained: Vec::new(),
        }
    }

    /// A unit that conformed over `plies` plies.
    #[must_use]
    pub fn conforming(
        kind: impl Into<String>,
        id: String,
        location: Option<String>,
        plies: u64,
    ) -> UnitResult {
        UnitResult::new(kind, id, location, plies, Verdict::Conforms)
    }

    /// A unit that diverged.
    #[must_use]
    pub fn diverging(
        kind: impl Into<String>,
        id: String,
        location: Option<String>,
        plies: u64,
        divergence: Divergence,
    ) -> UnitResult {
        let mut unit = UnitResult::new(kind, id, location, plies, Verdict::Diverges);
        unit.divergence = Some(Box::new(divergence));
        unit
    }

    /// A unit the engine could not be checked on.
    #[must_use]
    pub fn errored(
        kind: impl Into<String>,
        id: String,
        location: Option<String>,
        plies: u64,
        error: EngineError,
    ) -> UnitResult {
        let mut unit = UnitResult::new(kind, id, location, plies, Verdict::Errored);
        unit.error = Some(Box::new(error));
        unit
    }

    /// A unit not checked, and why.
    #[must_use]
    pub fn skipped(
        kind: impl Into<String>,
        id: String,
        location: Option<String>,
        reason: impl Into<String>,
    ) -> UnitResult {
        let mut unit = UnitResult::new(kind, id, location, 0, Verdict::Skipped);
        unit.reason = Some(reason.into());
        unit
    }

    /// Whether the unit conformed.
    #[must_use]
    pub fn conforms(&self) -> bool {
        self.verdict == Verdict::Conforms
    }

    /// The unit as people name it: `scenario cap-x (conformance/capture.yaml)`,
    /// with the profile when the run checks several.
    #[must_use]
    pub fn label(&self) -> String {
        let mut s = format!("{} {}", self.kind, self.id);
        if let Some(profile) = self.profile {
            s.push_str(&format!(" [{profile}]"));
        }
        if let Some(loc) = &self.location {
            s.push_str(&format!(" ({loc})"));
        }
        s
    }

    /// The id with the profile, as group listings show it.
    #[must_use]
    pub fn short_label(&self) -> String {
        match self.profile {
            Some(profile) => format!("{} [{profile}]", self.id),
            None => self.id.clone(),
        }
    }

    /// How small its example is, for choosing a group's example: stones on
    /// the board before the divergence, then plies.
    fn size(&self) -> (u32, u64) {
        let stones = self
            .divergence
            .as_ref()
            .and_then(|d| d.before)
            .map_or(u32::MAX, |p| u32::from(p.board_stones()));
        (stones, self.plies)
    }
}

/// Why an engine could not be checked on a unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EngineError {
    /// A stable code: `spawn`, `exit`, `timeout`, `not-json`, `too-long`,
    /// `wrong-reply`, `out-of-turn`, `protocol-version`, ...
    pub code: String,
    /// What happened, for people.
    pub message: String,
    /// The 1-based ply of the unit it happened at, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ply: Option<u64>,
    /// The request it happened on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// The last lines the engine wrote to stderr.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stderr: Vec<String>,
    /// How many bytes it wrote to stderr in all.
    #[serde(default)]
    pub stderr_bytes: u64,
}

/// How many units got each verdict, and the plies compared.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    /// Units in all.
    pub units: u64,
    /// Units that conformed.
    pub conforms: u64,
    /// Units with a rules divergence.
    pub diverges: u64,
    /// Units the engine could not be checked on.
    pub errored: u64,
    /// Units not checked.
    pub skipped: u64,
    /// Known divergences from the `--expect-fail` file.
    pub expected: u64,
    /// Units the `--expect-fail` file lists that now conform.
    pub fixed: u64,
    /// Plies compared, diverging ones included.
    pub plies: u64,
}

impl Counts {
    /// Counts `unit` in.
    pub fn add(&mut self, unit: &UnitResult) {
        self.units += 1;
        self.plies = self.plies.saturating_add(unit.plies);
        *self.slot(unit.verdict) += 1;
    }

    fn slot(&mut self, verdict: Verdict) -> &mut u64 {
        match verdict {
            Verdict::Conforms => &mut self.conforms,
            Verdict::Diverges => &mut self.diverges,
            Verdict::Errored => &mut self.errored,
            Verdict::Skipped => &mut self.skipped,
            Verdict::Expected => &mut self.expected,
            Verdict::Fixed => &mut self.fixed,
        }
    }

    /// How many units got `verdict`.
    #[must_use]
    pub fn of(&self, verdict: Verdict) -> u64 {
        let mut copy = *self;
        *copy.slot(verdict)
    }

    /// The verdict of the whole: the worst unit verdict, and a run that
    /// checked nothing is not a pass.
    #[must_use]
    pub fn verdict(&self) -> RunVerdict {
        if self.diverges > 0 {
            RunVerdict::Diverges
        } else if self.errored > 0 {
            RunVerdict::Errored
        } else if self.conforms + self.expected + self.fixed == 0 {
            RunVerdict::NothingChecked
        } else {
            RunVerdict::Conforms
        }
    }
}

/// The verdict of a run, and its exit code.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum RunVerdict {
    /// Every unit checked conforms (known divergences aside): exit 0.
    Conforms,
    /// At least one rules divergence: exit 1.
    Diverges,
    /// The input or the usage is bad: exit 2.
    BadInput,
    /// No divergence, but the engine errored on some unit: exit 3.
    Errored,
    /// Nothing was checked: no games, or every unit skipped or filtered
    /// out: exit 4.
    NothingChecked,
    /// A signal stopped the run before it was over (`summary.interrupted`
    /// names it): exit 130, 143 or 129 ([`Summary::exit_code`]). What was
    /// checked so far is reported, and the run does not pass.
    Interrupted,
}

impl RunVerdict {
    /// The process exit code of this verdict. For
    /// [`RunVerdict::Interrupted`] it depends on the signal, which only
    /// the summary knows ([`Summary::exit_code`]): this gives SIGINT's,
    /// 130.
    #[must_use]
    pub const fn exit_code(self) -> u8 {
        match self {
            RunVerdict::Conforms => 0,
            RunVerdict::Diverges => 1,
            RunVerdict::BadInput => 2,
            RunVerdict::Errored => 3,
            RunVerdict::NothingChecked => 4,
            RunVerdict::Interrupted => 130,
        }
    }

    /// The verdict's name, as in the JSON report.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            RunVerdict::Conforms => "conforms",
            RunVerdict::Diverges => "diverges",
            RunVerdict::BadInput => "bad-input",
            RunVerdict::Errored => "errored",
            RunVerdict::NothingChecked => "nothing-checked",
            RunVerdict::Interrupted => "interrupted",
        }
    }

    /// The worse of two verdicts, for a run over several profiles.
    #[must_use]
    pub fn worst(self, other: RunVerdict) -> RunVerdict {
        let rank = |v: RunVerdict| match v {
            RunVerdict::Conforms => 0,
            RunVerdict::NothingChecked => 1,
            RunVerdict::Errored => 2,
            RunVerdict::Diverges => 3,
            RunVerdict::BadInput => 4,
            RunVerdict::Interrupted => 5,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}

/// The exit codes of kpe-check, as `--help` and the README list them.
pub const EXIT_CODES: [(u8, &str); 7] = [
    (
        0,
        "conforms: every unit checked conforms (known divergences aside)",
    ),
    (1, "diverges: at least one rules divergence"),
    (
        2,
        "bad input or usage: unreadable or malformed file, bad arguments",
    ),
    (
        3,
        "errored: no divergence, but the engine could not be checked on some unit (did not start, crashed, hung, broke the protocol)",
    ),
    (
        4,
        "nothing checked: no games, or every unit skipped or filtered out",
    ),
    (
        130,
        "interrupted by SIGINT (143 SIGTERM, 129 SIGHUP): the engine is killed and what was checked so far is reported",
    ),
    (
        141,
        "never: a closed output pipe ends the run quietly with exit 2",
    ),
];

/// The totals of one profile of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileSummary {
    /// The profile.
    pub profile: Profile,
    /// Its units by verdict.
    pub counts: Counts,
    /// Its verdict.
    pub verdict: RunVerdict,
    /// The profiles that explain what the engine did when it claimed this
    /// one, when something diverged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<Reading>,
    /// Under each re-checked profile, what it leaves unexplained (live
    /// mode; used by `kpe-check merge`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub explanations: Vec<Explanation>,
}

/// How a note of the summary ends that counts the units `--only` and
/// `--skip` left out (`3 games left out by --only/--skip`): the human
/// report reads it to say why nothing was checked.
pub(crate) const LEFT_OUT: &str = "left out by --only/--skip";

/// Totals over a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    /// Units checked (games in a transcript).
    pub units: u64,
    /// Units that conformed.
    pub conforming: u64,
    /// Units with a rules divergence.
    pub diverging: u64,
    /// Units the engine could not be checked on.
    #[serde(default)]
    pub errored: u64,
    /// Units not checked.
    #[serde(default)]
    pub skipped: u64,
    /// Known divergences (`--expect-fail`).
    #[serde(default)]
    pub expected: u64,
    /// Listed as known divergences, but conforming now.
    #[serde(default)]
    pub fixed: u64,
    /// Plies compared, diverging ones included.
    pub plies: u64,
    /// Rule IDs exercised by the plies that conformed (the union of
    /// [`crate::Report::rules`]).
    pub rules: RuleSet,
    /// Each rule that diverging units break, with how many units break it,
    /// in spec order.
    #[serde(default)]
    pub broken: Vec<RuleCount>,
    /// The profiles that explain everything, when something diverged under
    /// the claimed profile (of a one-profile run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<Reading>,
    /// One row per profile checked: the profile × verdict matrix.
    #[serde(default)]
    pub profiles: Vec<ProfileSummary>,
    /// Things people should know about the run: units the run stopped
    /// before, budgets that cut perft short.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Set when a signal stopped the run: its name (`SIGINT`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
}

impl Summary {
    /// The counts by verdict.
    #[must_use]
    pub fn counts(&self) -> Counts {
        Counts {
            units: self.units,
            conforms: self.conforming,
            diverges: self.diverging,
            errored: self.errored,
            skipped: self.skipped,
            expected: self.expected,
            fixed: self.fixed,
            plies: self.plies,
        }
    }

    /// The run's verdict: [`RunVerdict::Interrupted`] when a signal
    /// stopped it, else the worst over its units (and, over several
    /// profiles, over its profiles).
    #[must_use]
    pub fn verdict(&self) -> RunVerdict {
        if self.interrupted.is_some() {
            return RunVerdict::Interrupted;
        }
        // A requested profile that checked nothing (the engine's hello
        // does not list it) keeps the run from conforming: it was asked to
        // be certified and was not.
        self.profiles
            .iter()
            .map(|p| p.verdict)
            .fold(self.counts().verdict(), RunVerdict::worst)
    }

    /// The exit code kpe-check ends with: the signal's (130, 143, 129)
    /// when one stopped the run, else the verdict's.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match &self.interrupted {
            Some(name) => super::stop::Signal::from_name(name).map_or(
                RunVerdict::Interrupted.exit_code(),
                super::stop::Signal::exit_code,
            ),
            None => self.verdict().exit_code(),
        }
    }

    /// Whether the run passes: every unit checked conforms (known
    /// divergences aside), something was checked, and no signal stopped
    /// it.
    #[must_use]
    pub fn conforms(&self) -> bool {
        self.verdict() == RunVerdict::Conforms
    }

    /// Units that diverged.
    #[must_use]
    pub fn diverging(&self) -> u64 {
        self.diverging
    }

    /// Counts `unit` and its plies in, and the rules it breaks.
    pub fn add(&mut self, unit: &UnitResult) {
        let mut counts = self.counts();
        counts.add(unit);
        self.units = counts.units;
        self.conforming = counts.conforms;
        self.diverging = counts.diverges;
        self.errored = counts.errored;
        self.skipped = counts.skipped;
        self.expected = counts.expected;
        self.fixed = counts.fixed;
        self.plies = counts.plies;
        if unit.verdict == Verdict::Diverges
            && let Some(d) = &unit.divergence
        {
            for rule in d.rules.iter() {
                match self.broken.iter_mut().find(|c| c.rule == rule) {
                    Some(count) => count.units += 1,
                    None => self.broken.push(RuleCount {
                        rule: rule.to_owned(),
                        units: 1,
                    }),
                }
            }
            let order = |r: &RuleCount| {
                crate::judge::RULE_IDS
                    .iter()
                    .position(|(id, _)| *id == r.rule)
            };
            self.broken.sort_by_key(order);
        }
    }

    /// Notes `note` once.
    pub fn note(&mut self, note: impl Into<String>) {
        let note = note.into();
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }
}

/// Units listed by id in a group at most; the rest are counted.
pub const GROUP_IDS: usize = 12;

/// Divergences (or engine errors) of the same kind: the same rules broken
/// in the same fields, or the same error code. Shown once in full, by its
/// smallest example, with the count and the ids of the rest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// `diverges`, `errored` or `expected`.
    pub verdict: Verdict,
    /// The rules broken (empty for errors).
    pub rules: RuleSet,
    /// The fields that differ, or the error code.
    pub fields: Vec<String>,
    /// How many units.
    pub count: u64,
    /// The smallest example: fewest stones on the board, then fewest plies.
    pub example: UnitResult,
    /// The other units' ids, the first [`GROUP_IDS`] of them.
    pub others: Vec<String>,
}

impl Group {
    /// The group's key as one line: `CAP-3 in captures, after`.
    #[must_use]
    pub fn title(&self) -> String {
        if self.verdict == Verdict::Errored {
            return format!("engine error {}", self.fields.join(", "));
        }
        let rules = if self.rules.is_empty() {
            "no rule".to_owned()
        } else {
            self.rules.to_string()
        };
        format!("{rules} in {}", self.fields.join(", "))
    }
}

/// The groups of a run, built as units come: a unit that diverges, errors
/// or diverges as expected joins the group of its kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Groups {
    groups: Vec<Group>,
}

impl Groups {
    /// Adds `unit` to its group, if it has one.
    pub fn add(&mut self, unit: &UnitResult) {
        let (rules, fields) = match (unit.verdict, &unit.divergence, &unit.error) {
            (Verdict::Diverges | Verdict::Expected, Some(d), _) => (d.rules, d.field_names()),
            (Verdict::Errored, _, Some(e)) => (RuleSet::new(), vec![e.code.clone()]),
            _ => return,
        };
        let found = self
            .groups
            .iter()
            .position(|g| g.verdict == unit.verdict && g.rules == rules && g.fields == fields);
        let Some(k) = found else {
            let mut example = unit.clone();
            self.unique_scenario_id(&mut example, None);
            self.groups.push(Group {
                verdict: unit.verdict,
                rules,
                fields,
                count: 1,
                example,
                others: Vec::new(),
            });
            return;
        };
        let mut other = unit.short_label();
        if unit.size() < self.groups[k].example.size() {
            other = self.groups[k].example.short_label();
            let mut example = unit.clone();
            self.unique_scenario_id(&mut example, Some(k));
            self.groups[k].example = example;
        }
        let group = &mut self.groups[k];
        group.count += 1;
        if group.others.len() < GROUP_IDS {
            group.others.push(other);
        }
    }

    /// Gives the reproduction scenario of `example` an id no other group's
    /// example has (`ID-2`, `ID-3`, ...), so that the scenarios a report
    /// prints can be pasted into one suite file. `own` is the group whose
    /// example it replaces.
    fn unique_scenario_id(&self, example: &mut UnitResult, own: Option<usize>) {
        let Some(scenario) = example
            .divergence
            .as_mut()
            .and_then(|d| d.scenario.as_mut())
        else {
            return;
        };
        let taken = |id: &str| {
            self.groups.iter().enumerate().any(|(i, g)| {
                Some(i) != own
                    && g.example
                        .divergence
                        .as_ref()
                        .and_then(|d| d.scenario.as_ref())
                        .is_some_and(|s| s.id == id)
            })
        };
        if !taken(&scenario.id) {
            return;
        }
        let base = scenario.id.clone();
        let mut n = 2;
        while taken(&format!("{base}-{n}")) {
            n += 1;
        }
        scenario.id = format!("{base}-{n}");
    }

    /// The groups: divergences first, then errors, then known divergences;
    /// the largest first within each.
    #[must_use]
    pub fn sorted(&self) -> Vec<&Group> {
        let mut groups: Vec<&Group> = self.groups.iter().collect();
        groups.sort_by_key(|g| (g.verdict, std::cmp::Reverse(g.count)));
        groups
    }

    /// Whether there is no group.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }
}

/// What the views written at the end of a run (the human report, the HTML
/// page) keep of its units: the groups, each skip reason with its count,
/// and the units the expect-fail file lists that conform now.
#[derive(Clone, Debug, Default)]
pub struct Collected {
    /// The groups of failing units.
    pub groups: Groups,
    /// Skip reasons with their counts, in order of first appearance.
    pub skips: Vec<(String, u64)>,
    /// The ids of the fixed units.
    pub fixed: Vec<String>,
}

impl Collected {
    /// Takes `unit` in.
    pub fn add(&mut self, unit: &UnitResult) {
        self.groups.add(unit);
        match unit.verdict {
            Verdict::Skipped => {
                let reason = unit.reason.clone().unwrap_or_default();
                match self.skips.iter_mut().find(|(r, _)| *r == reason) {
                    Some((_, n)) => *n += 1,
                    None => self.skips.push((reason, 1)),
                }
            }
            Verdict::Fixed => self.fixed.push(unit.short_label()),
            _ => {}
        }
    }
}

/// The JSON report (`--format json`), as `spec/report.schema.json`
/// describes it, in the order [`super::JsonSink`] writes it: the verdict
/// first, the summary before the units; `kpe-check merge` reads it back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("$id" = "urn:kpe:schema:report:3"))]
pub struct JsonReport {
    /// Always [`REPORT_FORMAT`].
    pub format: String,
    /// [`REPORT_VERSION`] when written; [`OLDEST_REPORT_VERSION`] and up
    /// are read.
    pub version: u32,
    /// The run's verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<RunVerdict>,
    /// The exit code kpe-check ends with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<u8>,
    /// Whether the run passes (exit code 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conforms: Option<bool>,
    /// The run's header; absent when the input was bad before it was known.
    #[serde(default)]
    pub run: Option<Run>,
    /// The totals; absent when the run stopped on bad input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    /// The bad input that stopped the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<InputErrorReport>,
    /// The groups of diverging and errored units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<GroupRef>>,
    /// Every unit, in plan order.
    pub units: Vec<UnitResult>,
}

/// A group in the JSON report: its key, count and the ids of its units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GroupRef {
    /// `diverges`, `errored` or `expected`.
    pub verdict: Verdict,
    /// The rules broken.
    pub rules: RuleSet,
    /// The fields that differ, or the error code.
    pub fields: Vec<String>,
    /// How many units.
    pub count: u64,
    /// The smallest example's id (with its profile in brackets when the run
    /// checks several).
    pub example: String,
    /// The first [`GROUP_IDS`] other units' ids.
    pub others: Vec<String>,
}

impl From<&Group> for GroupRef {
    fn from(g: &Group) -> GroupRef {
        GroupRef {
            verdict: g.verdict,
            rules: g.rules,
            fields: g.fields.clone(),
            count: g.count,
            example: g.example.short_label(),
            others: g.others.clone(),
        }
    }
}

/// Bad input in the JSON report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InputErrorReport {
    /// A stable code: `io`, `json`, `too-long`, `format`, `version`, ...
    pub code: String,
    /// The file.
    pub file: String,
    /// The whole message.
    pub message: String,
    /// The JSON path, for malformed JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The 1-based line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The 1-based column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
}

/// The JSON Schema of [`JsonReport`], as committed in
/// `spec/report.schema.json`.
#[must_use]
pub fn report_schema() -> String {
    let schema = schemars::schema_for!(JsonReport);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema serialises");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::FieldDiff;
    use crate::position::Position;

    fn diverging(id: &str, rules: &[&str], field: &str, stones: &str) -> UnitResult {
        let before: Position = stones.parse().unwrap();
        UnitResult::diverging(
            "scenario",
            id.to_owned(),
            None,
            1,
            Divergence {
                ply: Some(1),
                before: Some(before),
                mv: None,
                fields: vec![FieldDiff::new(field, "a", "b")],
                rules: rules.iter().copied().collect(),
                notes: vec![],
                scenario: None,
                perft: None,
                counts: Vec::new(),
            },
        )
    }

    fn with_scenario(mut unit: UnitResult, id: &str) -> UnitResult {
        let scenario = crate::scenario::Scenario {
            id: id.to_owned(),
            rules: vec!["CAP-3".to_owned()],
            description: String::new(),
            when: std::collections::BTreeMap::new(),
            start: None,
            invalid_start: None,
            moves: Vec::new(),
            expect: Vec::new(),
            reject: None,
            result: None,
        };
        unit.divergence.as_mut().unwrap().scenario = Some(scenario);
        unit
    }

    fn scenario_ids(groups: &Groups) -> Vec<String> {
        groups
            .groups
            .iter()
            .map(|g| {
                let d = g.example.divergence.as_ref().unwrap();
                d.scenario.as_ref().unwrap().id.clone()
            })
            .collect()
    }

    #[test]
    fn the_scenarios_of_a_reports_groups_have_unique_ids() {
        let small = "1,0,0,0/1,0,0,0 S 22/24 1234/1234";
        let big = "6,6,6,6/6,6,6,6 S 0/0 ----/----";
        let mut groups = Groups::default();
        groups.add(&with_scenario(
            diverging("a", &["CAP-3"], "captures", big),
            "x",
        ));
        groups.add(&with_scenario(
            diverging("b", &["SOW-4"], "after", big),
            "x",
        ));
        groups.add(&with_scenario(
            diverging("c", &["FEED-1"], "legal", big),
            "x",
        ));
        assert_eq!(scenario_ids(&groups), ["x", "x-2", "x-3"]);
        // A smaller example replacing one keeps its group's id free of the
        // others', and may take back its own.
        groups.add(&with_scenario(
            diverging("d", &["SOW-4"], "after", small),
            "x",
        ));
        assert_eq!(scenario_ids(&groups), ["x", "x-2", "x-3"]);
        groups.add(&with_scenario(
            diverging("e", &["CAP-3"], "captures", small),
            "x-3",
        ));
        assert_eq!(scenario_ids(&groups), ["x-3-2", "x-2", "x-3"]);
    }

    #[test]
    fn a_group_keeps_its_smallest_example_and_lists_the_rest() {
        let mut groups = Groups::default();
        groups.add(&diverging(
            "big",
            &["CAP-3"],
            "captures",
            "6,6,6,6/6,6,6,6 S 0/0 ----/----",
        ));
        groups.add(&diverging(
            "small",
            &["CAP-3"],
            "captures",
            "1,0,0,0/1,0,0,0 S 22/24 1234/1234",
        ));
        groups.add(&diverging(
            "other",
            &["SOW-4"],
            "after",
            "6,6,6,6/6,6,6,6 S 0/0 ----/----",
        ));
        let sorted = groups.sorted();
        assert_eq!(sorted.len(), 2);
        assert_eq!(sorted[0].count, 2);
        assert_eq!(sorted[0].example.id, "small");
        assert_eq!(sorted[0].others, ["big"]);
        assert_eq!(sorted[0].title(), "CAP-3 in captures");
        assert_eq!(sorted[1].example.id, "other");
    }

    #[test]
    fn verdicts_rank_and_map_to_exit_codes() {
        let mut counts = Counts::default();
        assert_eq!(counts.verdict(), RunVerdict::NothingChecked);
        counts.add(&UnitResult::skipped("scenario", "s".into(), None, "pinned"));
        assert_eq!(counts.verdict(), RunVerdict::NothingChecked);
        counts.add(&UnitResult::conforming("scenario", "c".into(), None, 1));
        assert_eq!(counts.verdict(), RunVerdict::Conforms);
        let error = EngineError {
            code: "exit".into(),
            message: "gone".into(),
            ply: None,
            request: None,
            stderr: vec![],
            stderr_bytes: 0,
        };
        counts.add(&UnitResult::errored("engine", "e".into(), None, 0, error));
        assert_eq!(counts.verdict(), RunVerdict::Errored);
        counts.add(&diverging(
            "d",
            &["CAP-3"],
            "captures",
            "6,6,6,6/6,6,6,6 S 0/0 ----/----",
        ));
        assert_eq!(counts.verdict(), RunVerdict::Diverges);
        let codes: Vec<u8> = [
            RunVerdict::Conforms,
            RunVerdict::Diverges,
            RunVerdict::BadInput,
            RunVerdict::Errored,
            RunVerdict::NothingChecked,
        ]
        .map(RunVerdict::exit_code)
        .to_vec();
        assert_eq!(codes, [0, 1, 2, 3, 4]);
        assert_eq!(
            RunVerdict::Errored.worst(RunVerdict::Diverges),
            RunVerdict::Diverges
        );
        assert_eq!(
            RunVerdict::Conforms.worst(RunVerdict::NothingChecked),
            RunVerdict::NothingChecked
        );
    }

    #[test]
    fn shards_deal_every_unit_to_exactly_one_share() {
        let shards: Vec<Shard> = (1..=4).map(|k| format!("{k}/4").parse().unwrap()).collect();
        for position in 0..40 {
            assert_eq!(shards.iter().filter(|s| s.contains(position)).count(), 1);
        }
        for bad in ["0/4", "5/4", "1/0", "x", "1/"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn summaries_count_broken_rules_in_spec_order() {
        let mut summary = Summary::default();
        summary.add(&diverging(
            "a",
            &["SOW-4", "CAP-3"],
            "after",
            "6,6,6,6/6,6,6,6 S 0/0 ----/----",
        ));
        summary.add(&diverging(
            "b",
            &["SOW-4"],
            "after",
            "6,6,6,6/6,6,6,6 S 0/0 ----/----",
        ));
        let broken: Vec<(&str, u64)> = summary
            .broken
            .iter()
            .map(|c| (c.rule.as_str(), c.units))
            .collect();
        assert_eq!(broken, [("SOW-4", 2), ("CAP-3", 1)]);
        assert_eq!(summary.diverging(), 2);
        assert!(!summary.conforms());
    }
}
