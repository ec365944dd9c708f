//! The conformance suite: every scenario of `conformance/*.yaml` under every
//! profile it holds for, its size and rule coverage, a snapshot of each
//! scenario's trace, the perft tables at shallow depths, the committed JSON
//! Schemas, and the `kpe suite --json` export. The machinery itself is
//! tested on the fixtures in `tests/fixtures/scenarios/`.
//!
//! Regenerate the committed schemas with
//! `UPDATE_SCHEMAS=1 cargo test --test conformance schemas`; accept new or
//! changed trace snapshots with `cargo insta review` (or
//! `INSTA_UPDATE=always cargo test --test conformance snapshots`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use kpe::scenario::{
    ErrorKind, Failure, PerftFile, Reference, Scenario, ScenarioErrors, Subject, Suite, load_file,
    parse_perft_file, rule_ids, trace,
};
use kpe::{Position, Profile, divide, perft};

/// Scenarios the finished suite must have at least.
const MIN_SCENARIOS: usize = 150;
/// Scenarios each rule ID must appear in at least.
const MIN_PER_RULE: usize = 3;
/// Perft depths checked on every run (at most 4^8 leaves each, fast in a
/// debug build); deeper ones by `perft_tables_hold_at_every_depth`.
const SHALLOW_DEPTH: usize = 8;
/// Deeper depths are checked on every run too while their count stays this
/// small (the endgame tables, where repetition first shows after 8 plies).
const CHEAP_NODES: u64 = 20_000;

fn fixture(dir: &str) -> std::path::PathBuf {
    Path::new("tests/fixtures/scenarios").join(dir)
}

fn load(dir: &Path) -> Suite {
    Suite::load(dir)
        .unwrap_or_else(|e| panic!("the suite in {} does not load:\n{e}", dir.display()))
}

fn suite() -> Suite {
    load(Path::new("conformance"))
}

// ---------------------------------------------------------------------------
// Running scenarios
// ---------------------------------------------------------------------------

/// Runs every scenario under every profile it holds for and returns the
/// failures, grouped: one entry per distinct failure with the profiles it
/// happened under.
fn run_all(suite: &Suite, dir: &str, subject: &mut dyn Subject) -> Vec<(Failure, Vec<Profile>)> {
    let mut failures: Vec<(Failure, Vec<Profile>)> = Vec::new();
    for (file, scenario) in suite.scenarios() {
        let file = format!("{dir}/{file}");
        for profile in scenario.profiles() {
            if let Err(f) = subject.verify(&file, scenario, profile) {
                let same = |g: &Failure| {
                    (&g.scenario, g.ply, &g.check, &g.expected, &g.actual)
                        == (&f.scenario, f.ply, &f.check, &f.expected, &f.actual)
                };
                match failures.iter_mut().find(|(g, _)| same(g)) {
                    Some((_, profiles)) => profiles.push(profile),
                    None => failures.push((*f, vec![profile])),
                }
            }
        }
    }
    failures
}

/// All failures, each with its place, its profiles and a diff of expected
/// against actual.
fn report(failures: &[(Failure, Vec<Profile>)]) -> String {
    let mut out = format!("{} scenario failures:\n", failures.len());
    for (f, profiles) in failures {
        let _ = write!(
            out,
            "\n{}: scenario `{}` (rules {}), ply {}",
            f.file,
            f.scenario,
            f.rules.join(" "),
            f.ply
        );
        if let Some(mv) = f.mv {
            let _ = write!(out, " (move {mv})");
        }
        let names: Vec<String> = profiles.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            out,
            ": {} differs\n  under {} profile(s): {}",
            f.check,
            profiles.len(),
            names.join("; ")
        );
        out += &labelled("expected", &f.expected);
        out += &labelled("actual", &f.actual);
    }
    out
}

/// A labelled block: `  expected:` then the text indented, so a reader
/// never has to guess which side is which (no left/right).
fn labelled(label: &str, text: &str) -> String {
    let mut out = format!("  {label}:\n");
    for line in text.lines() {
        let _ = writeln!(out, "    {line}");
    }
    if text.is_empty() {
        out += "    (nothing)\n";
    }
    out
}

/// The parts of a trace that are compared one by one: the start, each
/// ply, and the outcome.
fn trace_parts(trace: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = trace;
    while let Some(at) = rest[1..]
        .find("\nply ")
        .or_else(|| rest[1..].find("\noutcome: "))
    {
        parts.push(&rest[..=at]);
        rest = &rest[at + 2..];
    }
    parts.push(rest);
    parts
}

/// How a changed trace snapshot differs from the committed one, stopping at
/// the first changed ply: everything after it follows from it.
fn first_change(name: &str, content: &str) -> String {
    let path = format!("tests/snapshots/conformance__{name}.snap");
    let Ok(committed) = std::fs::read_to_string(&path) else {
        return format!("`{name}`: new snapshot (none committed at {path})\n");
    };
    // The committed file is a `---` header, then the snapshot itself.
    let committed = committed.splitn(3, "---\n").nth(2).unwrap_or_default();
    compare_traces(name, committed, content)
}

/// The first changed part of `content` against `committed`, with both
/// sides labelled.
fn compare_traces<'a>(name: &str, committed: &'a str, content: &'a str) -> String {
    // The scenario's header (pins, profiles, description) is compared on
    // its own: a changed pin is not a changed game.
    let split = |t: &'a str| -> (&'a str, &'a str) {
        t.find("start: ").map_or(("", t), |at| t.split_at(at))
    };
    let ((old_head, committed), (new_head, content)) = (split(committed), split(content));
    let head = if old_head == new_head {
        String::new()
    } else {
        format!("`{name}`: its header (pins, profiles, description) changed\n")
    };
    let (old, new) = (
        trace_parts(committed.trim_end()),
        trace_parts(content.trim_end()),
    );
    let k = old
        .iter()
        .zip(&new)
        .position(|(a, b)| a.trim_end() != b.trim_end())
        .unwrap_or(old.len().min(new.len()));
    let at = |parts: &[&str]| {
        parts
            .get(k)
            .map_or("(the trace ends before this)", |p| p.trim_end())
            .to_owned()
    };
    let place = match new.get(k).or(old.get(k)) {
        Some(p) if p.starts_with("ply ") => p.split(':').next().unwrap_or("ply").to_owned(),
        Some(p) if p.starts_with("outcome") => "the outcome".to_owned(),
        _ => "the start".to_owned(),
    };
    let later = old.len().max(new.len()).saturating_sub(k + 1);
    if old == new {
        return head;
    }
    format!(
        "{head}`{name}`: first changed at {place} (the {later} parts after it are not compared)\n{}{}",
        labelled("expected (committed snapshot)", &at(&old)),
        labelled("actual", &at(&new))
    )
}

#[test]
fn every_scenario_holds_under_every_profile_it_holds_for() {
    let suite = suite();
    let failures = run_all(&suite, "conformance", &mut Reference::new());
    assert!(failures.is_empty(), "{}", report(&failures));
}

#[test]
fn the_suite_is_big_enough_and_cites_every_rule_three_times() {
    let suite = suite();
    let count = suite.scenarios().count();
    let mut per_rule: BTreeMap<String, usize> = rule_ids().into_iter().map(|id| (id, 0)).collect();
    for (_, scenario) in suite.scenarios() {
        for id in &scenario.rules {
            *per_rule.entry(id.clone()).or_default() += 1;
        }
    }
    let thin: Vec<String> = per_rule
        .iter()
        .filter(|&(_, &n)| n < MIN_PER_RULE)
        .map(|(id, n)| format!("{id} ({n})"))
        .collect();
    let mut problems = Vec::new();
    if count < MIN_SCENARIOS {
        problems.push(format!(
            "the suite has {count} scenarios; it needs at least {MIN_SCENARIOS}"
        ));
    }
    if !thin.is_empty() {
        problems.push(format!(
            "rule IDs in fewer than {MIN_PER_RULE} scenarios: {}",
            thin.join(", ")
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn fixtures_hold_under_the_reference() {
    let suite = load(&fixture("good"));
    assert_eq!(suite.scenarios().count(), 8);
    let failures = run_all(&suite, "good", &mut Reference::new());
    assert!(failures.is_empty(), "{}", report(&failures));
}

#[test]
fn a_wrong_expectation_fails_naming_file_scenario_rules_profile_and_ply() {
    let suite = load(&fixture("wrong"));
    let failures = run_all(
        &suite,
        "tests/fixtures/scenarios/wrong",
        &mut Reference::new(),
    );
    assert_eq!(failures.len(), 1, "{}", report(&failures));
    let (failure, profiles) = &failures[0];
    assert_eq!(profiles.len(), Profile::COUNT);
    // The first profile tried fails: the all-off one, however the default
    // spells it.
    assert_eq!(
        failure.to_string(),
        format!(
            "tests/fixtures/scenarios/wrong/wrong.yaml: scenario `wrong-landing` (rules SOW-5 SOW-3), \
             profile `{}`, ply 1 (move S4): landing pit differs\n  expected: S1\n  actual:   S2",
            Profile::ALL_OFF
        )
    );
    let text = report(&failures);
    assert!(
        text.contains(&format!(
            "under {} profile(s): {}; {};",
            Profile::COUNT,
            Profile::ALL_OFF,
            Profile::ALL_OFF.set(kpe::Switch::SkipOrigin, true)
        )),
        "{text}"
    );
}

/// A subject that gets one thing wrong, to show each check can fail.
struct Broken {
    inner: Reference,
    flaw: Flaw,
}

#[derive(Clone, Copy, Debug)]
enum Flaw {
    RefusesEveryStart,
    AcceptsEveryStart,
    RefusesEveryMove,
    AcceptsEveryMove,
    WrongPosition,
    ExtraLegalMove,
    NoSown,
    WrongCaptures,
    WrongEvents,
    WrongOutcome,
    NoOutcome,
    Crashes,
}

impl Subject for Broken {
    fn check_position(
        &mut self,
        position: &str,
    ) -> Result<kpe::scenario::Verdict, kpe::scenario::SubjectError> {
        use kpe::scenario::Verdict;
        match self.flaw {
            Flaw::RefusesEveryStart => Ok(Verdict::Invalid {
                code: "syntax".into(),
            }),
            Flaw::AcceptsEveryStart => Ok(Verdict::Valid {
                position: position.into(),
            }),
            _ => self.inner.check_position(position),
        }
    }

    fn standing(
        &mut self,
        line: &kpe::scenario::Line<'_>,
    ) -> Result<kpe::scenario::Standing, kpe::scenario::SubjectError> {
        let mut standing = self.inner.standing(line)?;
        match self.flaw {
            Flaw::ExtraLegalMove => standing.legal.push("N4".parse().unwrap()),
            Flaw::WrongOutcome => {
                standing.outcome = Some(kpe::Outcome::Finished {
                    reason: kpe::EndReason::NoStones,
                    totals: [24, 24],
                    winner: None,
                });
            }
            Flaw::NoOutcome => standing.outcome = None,
            _ => {}
        }
        Ok(standing)
    }

    fn play(
        &mut self,
        line: &kpe::scenario::Line<'_>,
        pit: kpe::Pit,
    ) -> Result<kpe::scenario::Played, kpe::scenario::SubjectError> {
        use kpe::scenario::Played;
        if let Flaw::Crashes = self.flaw {
            return Err(kpe::scenario::SubjectError {
                message: "engine exited".into(),
            });
        }
        let mut played = self.inner.play(line, pit)?;
        match (&mut played, self.flaw) {
            (Played::Accepted { .. }, Flaw::RefusesEveryMove) => {
                played = Played::Refused {
                    reason: "empty-pit".into(),
                };
            }
            (Played::Refused { .. }, Flaw::AcceptsEveryMove) => {
                let mut r = self.inner.play(
                    &kpe::scenario::Line {
                        moves: &[],
                        ..*line
                    },
                    "S4".parse().unwrap(),
                )?;
                if let Played::Accepted { result } = &mut r {
                    result.position = "made up".into();
                }
                played = r;
            }
            (Played::Accepted { result }, Flaw::WrongPosition) => result.position.push('!'),
            (Played::Accepted { result }, Flaw::NoSown) => result.sown = None,
            (Played::Accepted { result }, Flaw::WrongCaptures) => result.captures.clear(),
            (Played::Accepted { result }, Flaw::WrongEvents) => {
                result.events = Some(vec![kpe::Event::LockOpened]);
            }
            _ => {}
        }
        Ok(played)
    }
}

#[test]
fn each_kind_of_divergence_is_caught_and_named() {
    use kpe::scenario::parse_file;
    let file = parse_file(
        "probe.yaml",
        r#"
topic: probes
scenarios:
  - id: refused-start
    rules: [BOARD-3]
    start: 6,6,6,6/6,6,6,5 S 0/0 ----/----
    invalid_start: wrong-total
  - id: capture
    rules: [CAP-1, CAP-2]
    start: 9,10,8,3/1,3,1,9 S 0/4 1234/1234
    moves: [S4]
    expect:
      - ply: 0
        position: 9,10,8,3/1,3,1,9 S 0/4 1234/1234
        legal: [S1, S2, S3, S4]
      - ply: 1
        position: 9,10,8,0/0,0,0,9 N 8/4 1234/1234
        sown: [N1, N2, N3]
        captures: [{pit: N3, stones: 2}, {pit: N2, stones: 4}, {pit: N1, stones: 2}]
        events: [capture]
    result: {state: unfinished}
  - id: refusal
    rules: [MOVE-1]
    moves: [N1]
    reject: {ply: 1, reason: not-own-pit}
"#,
    )
    .unwrap();
    let expect = |flaw: Flaw, id: &str, needle: &str| {
        let scenario = file.scenarios.iter().find(|s| s.id == id).unwrap();
        let mut subject = Broken {
            inner: Reference::new(),
            flaw,
        };
        let err = subject
            .verify("probe.yaml", scenario, Profile::DEFAULT)
            .expect_err(&format!("{flaw:?} must fail {id}"));
        let text = err.to_string();
        assert!(text.contains(needle), "{flaw:?}: {text}");
    };
    expect(
        Flaw::RefusesEveryStart,
        "capture",
        "ply 0: start position verdict differs\n  expected: valid\n  actual:   invalid: syntax",
    );
    expect(
        Flaw::AcceptsEveryStart,
        "refused-start",
        "expected: invalid: wrong-total\n  actual:   valid: 6,6,6,6/6,6,6,5",
    );
    expect(
        Flaw::RefusesEveryMove,
        "capture",
        "ply 1 (move S4): move verdict differs\n  expected: accepted\n  actual:   refused: empty-pit",
    );
    expect(
        Flaw::AcceptsEveryMove,
        "refusal",
        "ply 1 (move N1): move verdict differs\n  expected: refused: not-own-pit\n  actual:   accepted: made up",
    );
    expect(
        Flaw::WrongPosition,
        "capture",
        "position differs\n  expected: 9,10,8,0/0,0,0,9 N 8/4 1234/1234\n  actual:   9,10,8,0/0,0,0,9 N 8/4 1234/1234!",
    );
    expect(
        Flaw::ExtraLegalMove,
        "capture",
        "ply 0: legal moves differs\n  expected: S1 S2 S3 S4\n  actual:   S1 S2 S3 S4 N4",
    );
    expect(
        Flaw::WrongCaptures,
        "capture",
        "captures differs\n  expected: N3:2 N2:4 N1:2\n  actual:   (none)",
    );
    expect(
        Flaw::WrongEvents,
        "capture",
        "events differs\n  expected: capture\n  actual:   lock-opened",
    );
    expect(
        Flaw::WrongOutcome,
        "capture",
        "ply 1 (move S4): result differs\n  expected: {\"state\":\"unfinished\"}\n  actual:   {\"state\":\"finished\",\"reason\":\"no-stones\",\"totals\":[24,24],\"winner\":null}",
    );
    expect(
        Flaw::Crashes,
        "capture",
        "ply 1 (move S4): subject answer differs\n  expected: an answer\n  actual:   error: engine exited",
    );
    // A subject that does not report a detail skips that check, and says so.
    let capture = file.scenarios.iter().find(|s| s.id == "capture").unwrap();
    for flaw in [Flaw::NoSown, Flaw::NoOutcome] {
        let mut subject = Broken {
            inner: Reference::new(),
            flaw,
        };
        let verified = subject
            .verify("probe.yaml", capture, Profile::DEFAULT)
            .unwrap();
        assert_eq!(verified.skipped, 1, "{flaw:?}");
    }
    let verified = Reference::new()
        .verify("probe.yaml", capture, Profile::DEFAULT)
        .unwrap();
    assert_eq!((verified.checked, verified.skipped), (7, 0));
}

// ---------------------------------------------------------------------------
// Malformed files
// ---------------------------------------------------------------------------

fn errors_of(path: &Path) -> Vec<String> {
    match load_file(path) {
        Ok(_) => panic!("{} must be refused", path.display()),
        Err(ScenarioErrors(errors)) => errors.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn malformed_files_are_refused_with_file_line_and_column() {
    let bad = fixture("bad");
    let one = |name: &str| {
        let errors = errors_of(&bad.join(name));
        assert_eq!(errors.len(), 1, "{errors:#?}");
        errors.into_iter().next().unwrap()
    };
    let dir = "tests/fixtures/scenarios/bad";
    assert_eq!(
        one("unknown-field.yaml"),
        format!(
            "{dir}/unknown-field.yaml:6:5: scenarios[0]: unknown field `expcet`, expected one of `id`, `rules`, `description`, `when`, `start`, `invalid_start`, `moves`, `expect`, `reject`, `result`"
        )
    );
    let syntax = one("syntax.yaml");
    assert!(
        syntax.starts_with(&format!(
            "{dir}/syntax.yaml:5:19: did not find expected ',' or ']'"
        )),
        "{syntax}"
    );
    assert_eq!(
        one("bad-switch.yaml"),
        format!(
            "{dir}/bad-switch.yaml:6:7: scenarios[0].when: unknown rules switch `skip-orign`: expected `default` or a comma-separated list of {}",
            kpe::Switch::ALL.map(kpe::Switch::name).join(", ")
        )
    );
    assert_eq!(
        one("bad-pit.yaml"),
        format!(
            "{dir}/bad-pit.yaml:5:13: scenarios[0].moves[0]: `S5` is not a pit: expected S1..S4 or N1..N4 (BOARD-4)"
        )
    );
    assert_eq!(
        one("unknown-rule.yaml"),
        format!(
            "{dir}/unknown-rule.yaml:7:5: scenario `cites-sow-9`: `SOW-9` is not a rule ID of spec/RULES.md"
        )
    );
    assert_eq!(
        one("reading.yaml"),
        format!(
            "{dir}/reading.yaml:3:5: scenario `cites-i1`: `I1` is a reading, not a rule ID: cite SOW-4, and pin the reading with `when: {{skip-origin: false}}` (default) or `when: {{skip-origin: true}}` (alternative)"
        )
    );
}

#[test]
fn every_check_after_parsing_names_the_scenario_and_its_line() {
    let path = fixture("bad").join("checks.yaml");
    let errors = errors_of(&path);
    let file = "tests/fixtures/scenarios/bad/checks.yaml";
    let expected = [
        (4, "Bad_Id", "the id must be a lowercase slug"),
        (8, "no-rules", "`rules` is empty"),
        (12, "rule-twice", "`SOW-2` is cited twice"),
        (
            16,
            "bad-start",
            "`start` is not a valid position (wrong-total: stones on the board (47) plus captured (0) make 47, expected 48 (BOARD-3)); if the scenario is about the refusal, set `invalid_start: wrong-total`",
        ),
        (
            20,
            "unknown-position-code",
            "`invalid_start: too-few-stones` is not a position error code: expected one of syntax, pit-count,",
        ),
        (
            24,
            "invalid-start-alone",
            "`invalid_start` needs a `start` position to refuse",
        ),
        (
            27,
            "invalid-start-with-moves",
            "`invalid_start` scenarios only check the refusal, so `moves` must not be given",
        ),
        (
            32,
            "reject-not-last",
            "`reject.ply` is 1 but there are 2 moves: the refused move must be the last",
        ),
        (
            36,
            "reject-without-moves",
            "`reject` is set but there are no moves to refuse",
        ),
        (
            39,
            "unknown-reason",
            "`wrong-side` is not a reason code: expected one of not-own-pit, empty-pit, feeding-required, game-over",
        ),
        (
            43,
            "ply-beyond-the-moves",
            "an expectation names ply 3, but the last position the moves reach is ply 2",
        ),
        (
            47,
            "ply-of-the-refused-move",
            "an expectation names ply 2, but the last position the moves reach is ply 1",
        ),
        (
            52,
            "move-field-at-start",
            "`landing` describes a move, so it needs a ply of 1 or more",
        ),
        (
            56,
            "empty-expect",
            "the expectation at ply 1 checks nothing",
        ),
        (
            60,
            "legal-out-of-order",
            "`legal` at ply 0 must list pits in pit order",
        ),
        (63, "event-twice", "`events` at ply 1 lists an event twice"),
        (67, "checks-nothing", "the scenario checks nothing"),
        (
            70,
            "no-rules",
            "id already used at tests/fixtures/scenarios/bad/checks.yaml:8",
        ),
    ];
    assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    for (error, (line, id, message)) in errors.iter().zip(expected) {
        let head = format!("{file}:{line}:5: scenario `{id}`: {message}");
        assert!(
            error.starts_with(&head),
            "expected\n  {head}\nfound\n  {error}"
        );
    }
}

#[test]
fn duplicate_ids_across_files_are_refused() {
    let err = Suite::load(&fixture("dup")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tests/fixtures/scenarios/dup/b.yaml:8:5: scenario `shared-id`: id already used at \
         tests/fixtures/scenarios/dup/a.yaml:3: ids are unique across the suite"
    );
}

#[test]
fn a_suite_with_every_kind_of_bad_file_reports_them_all() {
    let err = Suite::load(&fixture("bad")).unwrap_err();
    let files: std::collections::BTreeSet<&str> = err.0.iter().map(|e| e.file.as_str()).collect();
    assert_eq!(files.len(), 7, "{err}");
    let err = Suite::load(&fixture("nonexistent")).unwrap_err();
    assert!(matches!(err.0[0].kind, ErrorKind::Read { .. }), "{err}");
    let empty = std::env::temp_dir().join(format!("kpe-empty-suite-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let err = Suite::load(&empty).unwrap_err();
    std::fs::remove_dir(&empty).unwrap();
    assert_eq!(err.0[0].kind, ErrorKind::NoFiles);
}

#[test]
fn bad_perft_tables_are_refused() {
    let path = fixture("badperft").join("perft.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let errors: Vec<String> = parse_perft_file("perft.yaml", &text)
        .unwrap_err()
        .0
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errors,
        [
            "perft.yaml:2:5: scenario `sum-is-wrong`: the divide counts add up to 17, but `nodes` at depth 2 is 16",
            "perft.yaml:6:5: scenario `depth-out-of-range`: `divide.depth` is 2, but `nodes` goes from depth 1 to 1",
            "perft.yaml:10:5: scenario `bad-start`: `start` is not a valid position (syntax: column 17: expected the side to move, `S` or `N`, found `X`); if the scenario is about the refusal, set `invalid_start: syntax`",
            "perft.yaml:10:5: scenario `bad-start`: `nodes` is empty",
            "perft.yaml:14:5: scenario `sum-is-wrong`: id already used at perft.yaml:2: ids are unique across the suite",
        ]
    );
    let err = parse_perft_file("p.yaml", "tables: []\n").unwrap_err();
    assert_eq!(err.to_string(), "p.yaml: `tables` is empty");
    let err = parse_perft_file(
        "p.yaml",
        "tables:\n  - id: x\n    rules: sideways\n    nodes: [4]\n",
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("p.yaml:3:12: tables[0].rules: unknown rules switch `sideways`"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------
// Traces and snapshots
// ---------------------------------------------------------------------------

/// Each distinct trace of a scenario with the profiles that give it, in the
/// order of [`Profile::all`].
fn distinct_traces(scenario: &Scenario) -> Vec<(String, Vec<Profile>)> {
    let mut groups: Vec<(String, Vec<Profile>)> = Vec::new();
    for profile in scenario.profiles() {
        let text = trace(scenario, profile);
        match groups.iter_mut().find(|(t, _)| *t == text) {
            Some((_, profiles)) => profiles.push(profile),
            None => groups.push((text, vec![profile])),
        }
    }
    groups
}

/// The snapshot name of each trace of a scenario: its id, or when the
/// trace differs between profiles, `id@first-profile` for each distinct
/// trace (with `+` for `,`).
fn snapshots_of(file: &str, scenario: &Scenario) -> Vec<(String, String)> {
    let groups = distinct_traces(scenario);
    let several = groups.len() > 1;
    groups
        .into_iter()
        .map(|(text, profiles)| {
            let name = if several {
                format!(
                    "{}@{}",
                    scenario.id,
                    profiles[0].to_string().replace(',', "+")
                )
            } else {
                scenario.id.clone()
            };
            // Said without counting the profiles, so that a new reading
            // changes no trace whose play it does not change.
            let mut head = format!(
                "scenario: {} ({file})\nrules: {}\n",
                scenario.id,
                scenario.rules.join(" ")
            );
            if !scenario.when.is_empty() {
                let when: Vec<String> = scenario
                    .when
                    .iter()
                    .map(|(s, on)| format!("{}: {on}", s.0.name()))
                    .collect();
                let _ = writeln!(head, "when: {}", when.join(", "));
            }
            if several {
                let names: Vec<String> = profiles.iter().map(ToString::to_string).collect();
                let _ = writeln!(head, "profiles: this trace under {}", names.join("; "));
            } else {
                let _ = writeln!(head, "profiles: the same under every profile it holds for");
            }
            if !scenario.description.is_empty() {
                let _ = writeln!(head, "description: {}", scenario.description.trim());
            }
            (name, format!("{head}\n{text}"))
        })
        .collect()
}

#[test]
fn snapshots_of_every_scenario_trace() {
    let suite = suite();
    let mut made = std::collections::BTreeSet::new();
    let mut failed = Vec::new();
    let mut changes = Vec::new();
    for (file, scenario) in suite.scenarios() {
        for (name, content) in snapshots_of(file, scenario) {
            let outcome = std::panic::catch_unwind(|| {
                insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => true }, {
                    insta::assert_snapshot!(name.as_str(), content);
                });
            });
            if outcome.is_err() {
                changes.push(first_change(&name, &content));
                failed.push(name.clone());
            }
            made.insert(format!("conformance__{name}.snap"));
        }
    }
    let stale: Vec<String> = std::fs::read_dir("tests/snapshots")
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("conformance__") && n.ends_with(".snap"))
                .filter(|n| !made.contains(n))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        failed.is_empty() && stale.is_empty(),
        "{}\n{} trace snapshots are missing or changed: {}\n\
         review them with `cargo insta review` (or accept all with INSTA_UPDATE=always)\n\
         {} snapshots belong to no scenario; delete them with:\n  {}",
        changes.join("\n"),
        failed.len(),
        failed.join(", "),
        stale.len(),
        if stale.is_empty() {
            "(none)".to_owned()
        } else {
            format!(
                "rm {}",
                stale
                    .iter()
                    .map(|n| format!("tests/snapshots/{n}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        }
    );
}

#[test]
fn a_changed_trace_is_reported_from_its_first_changed_ply_with_labels() {
    let committed = "start: x\n\nply 1: South plays S1\n  after: a\n\nply 2: North plays N1\n  after: b\n\nply 3: South plays S2\n\noutcome: unfinished\n";
    let changed = committed
        .replace("after: b", "after: B")
        .replace("ply 3: South plays S2", "ply 3: South plays S3");
    let text = compare_traces("t", committed, &changed);
    assert_eq!(
        text,
        "`t`: first changed at ply 2 (the 2 parts after it are not compared)\n\
         \x20 expected (committed snapshot):\n    ply 2: North plays N1\n      after: b\n\
         \x20 actual:\n    ply 2: North plays N1\n      after: B\n"
    );
    assert!(!text.contains("left") && !text.contains("right"));
    let shorter = compare_traces("t", committed, "start: x\n\noutcome: unfinished\n");
    assert!(
        shorter.starts_with("`t`: first changed at the outcome"),
        "{shorter}"
    );
    let pinned = format!("when: a\n\n{committed}");
    let repinned = format!("when: b\n\n{changed}");
    let text = compare_traces("t", &pinned, &repinned);
    assert!(
        text.starts_with(
            "`t`: its header (pins, profiles, description) changed\n`t`: first changed at ply 2"
        ),
        "{text}"
    );
    assert_eq!(
        compare_traces("t", &pinned, &format!("when: b\n\n{committed}")),
        "`t`: its header (pins, profiles, description) changed\n"
    );
    let new = first_change("no-such-snapshot", "x");
    assert!(new.contains("new snapshot"), "{new}");
}

#[test]
fn a_failing_scenario_is_reported_as_expected_and_actual_blocks() {
    let suite = load(&fixture("wrong"));
    let failures = run_all(&suite, "wrong", &mut Reference::new());
    let text = report(&failures);
    assert!(
        text.contains("  expected:\n    S1\n  actual:\n    S2\n"),
        "{text}"
    );
    assert!(!text.contains("left") && !text.contains("right"), "{text}");
}

#[test]
fn a_trace_shows_each_move_with_its_rules_and_diagram() {
    let suite = load(&fixture("good"));
    let (file, scenario) = suite
        .scenarios()
        .find(|(_, s)| s.id == "eight-stones-skip-the-origin")
        .unwrap();
    let snapshots = snapshots_of(file, scenario);
    assert_eq!(snapshots.len(), 1);
    insta::assert_snapshot!(snapshots[0].1, @r"
    scenario: eight-stones-skip-the-origin (readings.yaml)
    rules: SOW-4
    when: skip-origin: true
    profiles: the same under every profile it holds for

    start: 8,6,6,6/6,6,6,4 S 0/0 1---/1234

              N4    N3    N2    N1
    North  [ 4] < [ 6] < [ 6] < [ 6]   captured  0  used 1234
             v                       ^
    South  [ 8] > [ 6] > [ 6] > [ 6]   captured  0  used 1---  <- to move
              S1    S2    S3    S4
    legal moves: S1 S2 S3 S4

    ply 1: South plays S1: sows 8 into S2 S3 S4 N1 N2 N3 N4 S2, last in S2
      rules: MOVE-1 MOVE-2 SOW-2 SOW-3 SOW-4 SOW-5 LOCK-2 SOW-1
      after: 0,8,7,7/7,7,7,5 N 0/0 1---/1234

              N4    N3    N2    N1
    North  [ 5] < [ 7] < [ 7] < [ 7]   captured  0  used 1234  <- to move
             v                       ^
    South  [ 0] > [ 8] > [ 7] > [ 7]   captured  0  used 1---
              S1    S2    S3    S4
    legal moves: N1 N2 N3 N4

    outcome: unfinished
    ");
    // A scenario that is not pinned and plays out differently under some
    // readings gets one snapshot per distinct trace.
    let mut chase = suite
        .scenarios()
        .find(|(_, s)| s.id == "chase-goes-on")
        .unwrap()
        .1
        .clone();
    chase.when.clear();
    let names: Vec<String> = snapshots_of("x.yaml", &chase)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    // Each trace is named by the first profile (in `Profile::all` order)
    // that gives it: the all-off one, and it with end-on-repetition.
    let named = |p: Profile| format!("chase-goes-on@{}", p.to_string().replace(',', "+"));
    assert_eq!(
        names,
        [
            named(Profile::ALL_OFF),
            named(Profile::ALL_OFF.set(kpe::Switch::EndOnRepetition, true))
        ]
    );
    // Refused starts and refused moves show the refusal.
    let refused = suite
        .scenarios()
        .find(|(_, s)| s.id == "short-start-refused")
        .unwrap()
        .1;
    assert_eq!(
        trace(refused, Profile::DEFAULT),
        "start: 6,6,6,6/6,6,6,5 S 0/0 ----/----\nrefused: wrong-total (stones on the board (47) plus captured (0) make 47, expected 48 (BOARD-3))\n"
    );
    let refused = suite
        .scenarios()
        .find(|(_, s)| s.id == "opponent-pit-refused")
        .unwrap()
        .1;
    assert!(
        trace(refused, Profile::DEFAULT).ends_with(
            "ply 1: refused: illegal move N1 for South in `6,6,6,6/6,6,6,6 S 0/0 ----/----`: N1 is North's pit (not-own-pit, MOVE-1)\n\noutcome: unfinished\n"
        ),
        "{}",
        trace(refused, Profile::DEFAULT)
    );
}

// ---------------------------------------------------------------------------
// Perft tables
// ---------------------------------------------------------------------------

/// Checks every table's counts up to `max_depth` against the reference
/// perft and returns the mismatches.
fn check_perft(perft_file: &PerftFile, max_depth: usize) -> Vec<String> {
    let mut wrong = Vec::new();
    for table in &perft_file.tables {
        let start: Position = table.start_text().parse().expect("checked when loaded");
        let cheap = |&(i, &n): &(usize, &u64)| i < max_depth || n <= CHEAP_NODES;
        for (i, &expected) in table.nodes.iter().enumerate().take_while(cheap) {
            let depth = i as u32 + 1;
            let actual = perft(&start, depth, table.rules);
            if actual != expected {
                wrong.push(format!(
                    "table `{}` ({}, rules {}): depth {depth}: expected {expected}, perft gives {actual}",
                    table.id, start, table.rules
                ));
            }
        }
        if let Some(d) = &table.divide
            && d.depth as usize <= max_depth
        {
            let actual: BTreeMap<kpe::Pit, u64> =
                divide(&start, d.depth, table.rules).into_iter().collect();
            if actual != d.moves {
                wrong.push(format!(
                    "table `{}` ({}, rules {}): divide at depth {}: expected {:?}, divide gives {:?}",
                    table.id, start, table.rules, d.depth, d.moves, actual
                ));
            }
        }
    }
    wrong
}

#[test]
fn perft_tables_hold_at_shallow_depths() {
    let suite = suite();
    let tables = suite.perft.as_ref().expect("conformance/perft.yaml exists");
    let wrong = check_perft(tables, SHALLOW_DEPTH);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every depth of every table: a minute or so in a release build.
/// `cargo test --release --test conformance -- --ignored perft`
#[test]
#[ignore = "deep perft: run with --release -- --ignored"]
fn perft_tables_hold_at_every_depth() {
    let suite = suite();
    let tables = suite.perft.as_ref().expect("conformance/perft.yaml exists");
    if std::env::var_os("UPDATE_PERFT").is_some_and(|v| v == "1") {
        let fixtures = load(&fixture("good"))
            .perft
            .expect("the fixtures have perft tables");
        let spec = spec_perft_example();
        for (path, tables) in [
            ("conformance/perft.yaml", tables),
            ("tests/fixtures/scenarios/good/perft.yaml", &fixtures),
            // The example in the spec: only its table's counts change.
            ("spec/SCENARIOS.md", &spec),
        ] {
            let text = std::fs::read_to_string(path).unwrap();
            std::fs::write(path, recount(&text, tables)).unwrap();
        }
        return;
    }
    let wrong = check_perft(tables, usize::MAX);
    assert!(
        wrong.is_empty(),
        "{}\nafter a change of reading, recount every table with \
         `UPDATE_PERFT=1 cargo test --release --test conformance -- --ignored perft_tables`",
        wrong.join("\n")
    );
}

/// `perft.yaml`'s text (or a text holding its tables, such as
/// spec/SCENARIOS.md) with every table's `nodes` and `divide` counts
/// recomputed by the reference rules (same depths, same layout and
/// comments); what `UPDATE_PERFT=1` writes after a change of reading.
fn recount(text: &str, tables: &PerftFile) -> String {
    let mut out = String::new();
    let mut rest = text;
    for table in &tables.tables {
        let start: Position = table.start_text().parse().expect("checked when loaded");
        let at = rest
            .find(&format!("- id: {}\n", table.id))
            .expect("every table is in the file");
        let mut replace = |key: &str, value: String| {
            let from = at + rest[at..].find(key).expect("the table has the key") + key.len();
            // The flow list, up to its `]`: a comment after it stays.
            let to = from + rest[from..].find(']').expect("a flow list") + 1;
            out.push_str(&rest[..from]);
            out.push_str(&value);
            rest = &rest[to..];
        };
        let nodes: Vec<String> = (1..=table.nodes.len() as u32)
            .map(|d| perft(&start, d, table.rules).to_string())
            .collect();
        replace("nodes: ", format!("[{}]", nodes.join(", ")));
        if let Some(d) = &table.divide {
            let moves: Vec<String> = divide(&start, d.depth, table.rules)
                .into_iter()
                .map(|(pit, n)| format!("{pit}: {n}"))
                .collect();
            let from = rest.find("moves: ").expect("a divide has moves") + "moves: ".len();
            let to = from + rest[from..].find('}').expect("a flow map") + 1;
            out.push_str(&rest[..from]);
            out.push_str(&format!("{{{}}}", moves.join(", ")));
            rest = &rest[to..];
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn recounting_the_perft_tables_rewrites_only_their_counts() {
    let text = std::fs::read_to_string("tests/fixtures/scenarios/good/perft.yaml").unwrap();
    let tables = load(&fixture("good")).perft.unwrap();
    // The committed counts are right, so a recount changes nothing...
    assert_eq!(recount(&text, &tables), text);
    // ...and a wrong count is put right.
    let first = tables.tables[0].nodes[0].to_string();
    let broken = text.replacen(&format!("nodes: [{first}"), "nodes: [999", 1);
    assert_ne!(broken, text);
    assert_eq!(recount(&broken, &tables), text);
}

#[test]
fn perft_checks_catch_a_wrong_count() {
    let suite = load(&fixture("good"));
    let mut tables = suite.perft.clone().unwrap();
    assert!(check_perft(&tables, SHALLOW_DEPTH).is_empty());
    let right = tables.tables[0].nodes[4];
    tables.tables[0].nodes[4] += 1;
    *tables.tables[0]
        .divide
        .as_mut()
        .unwrap()
        .moves
        .values_mut()
        .next()
        .unwrap() += 1;
    let wrong = check_perft(&tables, SHALLOW_DEPTH);
    assert_eq!(wrong.len(), 2, "{wrong:#?}");
    assert!(
        wrong[0].contains(&format!(
            "depth 5: expected {}, perft gives {right}",
            right + 1
        )),
        "{}",
        wrong[0]
    );
}

// ---------------------------------------------------------------------------
// Schemas and export
// ---------------------------------------------------------------------------

#[test]
fn committed_schemas_are_current() {
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (name, schema) in kpe::scenario::schemas() {
        let path = format!("spec/{name}.schema.json");
        let path = path.as_str();
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        if committed != text {
            if update {
                std::fs::write(path, &text).unwrap();
            } else {
                stale.push(format!(
                    "{path} is out of date with src/scenario.rs:\n{}",
                    pretty_assertions::StrComparison::new(&committed, &text)
                ));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "{}\nregenerate with `UPDATE_SCHEMAS=1 cargo test --test conformance schemas` and commit",
        stale.join("\n")
    );
}

#[test]
fn the_committed_scenario_schema_accepts_the_fixtures_shape() {
    // The schema says which fields exist; spot-check it against the types.
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("spec/scenario.schema.json").unwrap())
            .unwrap();
    let scenario = &schema["$defs"]["Scenario"];
    assert_eq!(scenario["additionalProperties"], false);
    let when = &scenario["properties"]["when"];
    assert_eq!(when["additionalProperties"], false);
    assert_eq!(
        when["properties"].as_object().unwrap().len(),
        kpe::Switch::ALL.len()
    );
}

fn kpe() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("kpe").expect("the kpe binary is built")
}

#[test]
fn kpe_suite_json_exports_the_whole_suite() {
    let output = kpe().args(["suite", "--json"]).output().unwrap();
    assert!(
        output.status.success(),
        "kpe suite --json failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let exported: Suite =
        serde_json::from_slice(&output.stdout).expect("the export parses as a Suite");
    let suite = suite();
    assert_eq!(exported.scenarios().count(), suite.scenarios().count());
    // The export carries the suite's version and content digest, as
    // kpe-check's reports do.
    assert_eq!(exported.version, Some(kpe::scenario::SUITE_VERSION));
    assert_eq!(exported.digest.as_deref(), Some(suite.digest().as_str()));
    assert!(suite.digest().starts_with("sha256:") && suite.digest().len() == 7 + 64);
    assert_eq!(exported, suite.stamped());
}

#[test]
fn kpe_suite_reads_any_directory_and_reports_bad_files() {
    let output = kpe()
        .args(["suite", "--json", "--dir", "tests/fixtures/scenarios/good"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let exported: Suite = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(exported, load(&fixture("good")).stamped());
    assert_ne!(
        exported.digest,
        suite().stamped().digest,
        "another suite, another digest"
    );
    assert_eq!(exported.perft.map(|p| p.tables.len()), Some(2));
    kpe()
        .args(["suite", "--dir", "tests/fixtures/scenarios/good"])
        .assert()
        .success()
        .stdout(predicates::str::contains("8 scenarios in 2 files"));
    kpe()
        .args(["suite", "--json", "--dir", "tests/fixtures/scenarios/dup"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains(
            "tests/fixtures/scenarios/dup/b.yaml:8:5: scenario `shared-id`: id already used",
        ));
}

/// The YAML blocks of spec/SCENARIOS.md, in order.
fn spec_examples() -> Vec<String> {
    let text = std::fs::read_to_string("spec/SCENARIOS.md").unwrap();
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line) {
            (None, "```yaml") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn the_examples_in_the_spec_are_valid_and_hold() {
    let examples = spec_examples();
    let file = kpe::scenario::parse_file("spec/SCENARIOS.md", &examples[0])
        .unwrap_or_else(|e| panic!("the scenario example does not load:\n{e}"));
    assert_eq!(file.scenarios.len(), 4);
    for scenario in &file.scenarios {
        for profile in scenario.profiles() {
            if let Err(f) = Reference::new().verify("spec/SCENARIOS.md", scenario, profile) {
                panic!("{f}");
            }
        }
    }
    let tables = spec_perft_example();
    let wrong = check_perft(&tables, SHALLOW_DEPTH);
    assert!(
        wrong.is_empty(),
        "{}\nafter a change of reading, recount it with the perft tables (UPDATE_PERFT=1)",
        wrong.join("\n")
    );
}

/// The perft example of spec/SCENARIOS.md.
fn spec_perft_example() -> PerftFile {
    let examples = spec_examples();
    let perft_example = examples
        .iter()
        .find(|b| b.contains("tables:"))
        .expect("a perft example");
    parse_perft_file("spec/SCENARIOS.md", perft_example)
        .unwrap_or_else(|e| panic!("the perft example does not load:\n{e}"))
}
