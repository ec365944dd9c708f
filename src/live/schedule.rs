//! The scheduler of a live run: one owner for the order of units, `--jobs`,
//! `--shard` and the stopping rules.
//!
//! The plan lists every unit of every profile in order. `--only`/`--skip`
//! leave units out, `--shard K/N` deals the rest round-robin, and `--jobs N`
//! workers, each with its own engine process, take the next unit in plan
//! order. A stopping rule (`--max-failures`, a chain whose earlier unit
//! failed, too many diverging random games) only looks at units earlier in
//! the plan, and is applied once more in plan order when all is done, so
//! that the report is the same whatever the number of workers.

use std::sync::Mutex;
use std::time::Instant;

use super::engine::{Engine, EngineInfo, Failure};
use super::shrink::Diverging;
use super::units::{Ctx, Unit, result};
use crate::judge::RuleSet;
use crate::judge::{Answer, Question};
use crate::profile::Profile;
use crate::reporter::{Policy, UnitResult, Verdict};

/// Engine processes one worker starts for one profile before it gives up.
pub const MAX_STARTS: u32 = 4;

/// A unit in the plan, with the profile it is checked under.
pub struct Planned {
    /// Which profile of the run (0 for the first).
    pub profile_index: usize,
    /// The profile.
    pub profile: Profile,
    /// Its place in the whole plan, before sharding.
    pub seq: u64,
    /// The unit.
    pub unit: Box<dyn Unit>,
}

/// A unit done: its result, and what the run needs of it afterwards.
pub struct Done {
    /// The result, as reported.
    pub result: UnitResult,
    /// The first wrong answer, for shrinking.
    pub found: Option<Box<Diverging>>,
    /// Rules exercised by the answers that agreed.
    pub rules: RuleSet,
    /// Questions asked, with the engine's answers, kept in memory (those
    /// learnt after the unit ran: shrinking, probes).
    pub facts: Vec<(Question, Answer)>,
    /// The unit's own questions and answers, in the run's spool file.
    pub spooled: Option<super::spool::Spooled>,
    /// Which profile of the run.
    pub profile_index: usize,
}

impl Done {
    /// A unit done with no answers to keep (skipped, or its engine did not
    /// answer).
    fn without_answers(result: UnitResult, profile_index: usize) -> Done {
        Done {
            result,
            found: None,
            rules: RuleSet::new(),
            facts: Vec::new(),
            spooled: None,
            profile_index,
        }
    }
}

/// How the scheduler runs the plan.
pub struct Settings<'a> {
    /// Worker threads, each with its own engine process.
    pub jobs: usize,
    /// Runs of a unit on which the engine errored, after the first.
    pub retries: u32,
    /// Selection and known divergences.
    pub policy: &'a Policy,
    /// A new engine session for a profile.
    pub engine: &'a (dyn Fn(Profile) -> Engine + Sync),
    /// Called once per unit done (for a progress bar).
    pub tick: &'a (dyn Fn() + Sync),
    /// Whether to stop now (a signal arrived).
    pub interrupted: &'a (dyn Fn() -> bool + Sync),
    /// Where each unit's answers are kept until the reading is named.
    pub spool: &'a super::spool::FactSpool,
}

/// Everything the workers did.
pub struct Ran {
    /// One per unit, in plan order, those not reached after an
    /// interruption left out.
    pub done: Vec<Done>,
    /// Engine failures outside any unit (after `quit`), by profile index.
    pub shutdown: Vec<Done>,
    /// Requests sent.
    pub requests: u64,
    /// What the engine said of itself in its first good hello.
    pub info: Option<EngineInfo>,
    /// Where the workers' time went.
    pub time: WorkerTime,
}

/// Where the workers' time went, summed over the workers: the rest of
/// `busy` after `wait` is kpe-check's own (comparing, planning, speaking
/// the protocol; issue 11 asks that it stay under 10% for `kpe engine`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerTime {
    /// From each worker's start to its engine's `quit`.
    pub busy: std::time::Duration,
    /// Waiting for the engines' replies ([`Engine::wait`]).
    pub wait: std::time::Duration,
    /// Requests the workers sent (shrinking, after them, is not counted).
    pub requests: u64,
}

impl WorkerTime {
    /// kpe-check's own share of the workers' time, from 0 to 1.
    #[must_use]
    pub fn own_share(&self) -> f64 {
        if self.busy.is_zero() {
            return 0.0;
        }
        1.0 - self.wait.as_secs_f64() / self.busy.as_secs_f64()
    }
}

/// Why a unit is not to be run, looking only at results earlier in the
/// plan: the same question is asked again, in plan order, at the end.
/// The finished results at the start of the plan are kept counted in
/// `state.prefix` ([`crate::reporter::StopState`]), so that each unit costs
/// only the finished results after the first gap, not all before it.
fn stop_reason(plan: &[Planned], state: &mut State, i: usize, policy: &Policy) -> Option<String> {
    while state.prefix_len < i {
        let Some(d) = &state.results[state.prefix_len] else {
            break;
        };
        state.prefix.record(&d.result);
        state.prefix_len += 1;
    }
    let me = &plan[i];
    let ask = |stop: &crate::reporter::StopState| {
        stop.reason(
            me.unit.kind(),
            &me.unit.id(),
            Some(me.profile),
            policy.max_failures,
        )
    };
    if state.prefix_len == i {
        return ask(&state.prefix);
    }
    let mut stop = state.prefix.clone();
    for d in state.results[state.prefix_len..i].iter().flatten() {
        stop.record(&d.result);
    }
    ask(&stop)
}

fn skipped(planned: &Planned, reason: String) -> Done {
    let unit = &*planned.unit;
    let mut result = UnitResult::skipped(unit.kind(), unit.id(), unit.location(), reason);
    result.profile = Some(planned.profile);
    result.seq = Some(planned.seq);
    Done::without_answers(result, planned.profile_index)
}

struct State {
    next: usize,
    results: Vec<Option<Done>>,
    /// The stopping rules' count of `results[..prefix_len]`, all finished.
    prefix: crate::reporter::StopState,
    prefix_len: usize,
    shutdown: Vec<Done>,
    requests: u64,
    info: Option<EngineInfo>,
    time: WorkerTime,
}

/// One worker's engine, for the profile it is working on.
struct Worker<'a> {
    settings: &'a Settings<'a>,
    engine: Option<(usize, Engine)>,
}

impl Worker<'_> {
    /// The engine for `planned`'s profile, quitting the one of another
    /// profile first.
    fn engine_for(&mut self, planned: &Planned, state: &Mutex<State>) -> &mut Engine {
        if self
            .engine
            .as_ref()
            .is_some_and(|(i, _)| *i != planned.profile_index)
        {
            self.quit(state);
        }
        let make = self.settings.engine;
        &mut self
            .engine
            .get_or_insert_with(|| (planned.profile_index, make(planned.profile)))
            .1
    }

    fn quit(&mut self, state: &Mutex<State>) {
        let Some((index, mut engine)) = self.engine.take() else {
            return;
        };
        let failure = engine.quit().err();
        let mut state = state.lock().expect("no worker panics");
        state.requests += engine.requests();
        state.time.wait += engine.wait();
        state.time.requests += engine.requests();
        if state.info.is_none() {
            state.info = engine.info().cloned();
        }
        if let Some(failure) = failure {
            let profile = engine.profile();
            if !state.shutdown.iter().any(|d| d.profile_index == index) {
                let error = super::units::engine_error(&failure, 0);
                let mut result =
                    UnitResult::errored("engine", "engine/quit".to_owned(), None, 0, error);
                result.profile = Some(profile);
                state.shutdown.push(Done::without_answers(result, index));
            }
        }
    }

    fn work(&mut self, plan: &[Planned], state: &Mutex<State>) {
        let started = Instant::now();
        loop {
            if (self.settings.interrupted)() {
                break;
            }
            let (i, stop) = {
                let mut s = state.lock().expect("no worker panics");
                if s.next >= plan.len() {
                    break;
                }
                let i = s.next;
                s.next += 1;
                (i, stop_reason(plan, &mut s, i, self.settings.policy))
            };
            let planned = &plan[i];
            let done = match planned.unit.skip_reason().or(stop) {
                Some(reason) => skipped(planned, reason),
                None => self.run_retrying(planned, state),
            };
            (self.settings.tick)();
            state.lock().expect("no worker panics").results[i] = Some(done);
        }
        self.quit(state);
        state.lock().expect("no worker panics").time.busy += started.elapsed();
    }

    /// Runs `planned`, and again while the engine errors on it, up to
    /// [`Settings::retries`] more times (never after a divergence, which
    /// is the engine's answer, not a flake). The errors of the runs before
    /// the one reported go in its `retried`.
    fn run_retrying(&mut self, planned: &Planned, state: &Mutex<State>) -> Done {
        let mut done = self.run(planned, state);
        // A run's own slow start comes first (`run`), then its error.
        let mut retried = std::mem::take(&mut done.result.retried);
        let mut runs = 0;
        while done.result.verdict == Verdict::Errored
            && runs < self.settings.retries
            && !(self.settings.interrupted)()
        {
            let mut again = self.run(planned, state);
            if again.result.verdict == Verdict::Skipped {
                // The worker gave up starting the engine: the error stands.
                break;
            }
            runs += 1;
            retried.extend(done.result.error.take().map(|e| *e));
            retried.append(&mut again.result.retried);
            done = again;
        }
        done.result.retried = retried;
        done
    }

    fn run(&mut self, planned: &Planned, state: &Mutex<State>) -> Done {
        let policy = self.settings.policy;
        let spool = self.settings.spool;
        let engine = self.engine_for(planned, state);
        if engine.starts() >= MAX_STARTS {
            return skipped(
                planned,
                format!("not run: gave up after starting the engine {MAX_STARTS} times"),
            );
        }
        let started = Instant::now();
        // A hello later than the start timeout gets one more start (a cold
        // first start: a JIT, a class loader, a disk cache); the unit keeps
        // the first start's error in `retried` (spec/PROTOCOL.md, "What
        // kpe-check runs").
        let mut slow_start = None;
        if let Err(failure) = engine.start().map(|_| ()) {
            if is_slow_hello(&failure) && engine.starts() < MAX_STARTS {
                slow_start = Some(super::units::engine_error(&failure, 0));
            } else {
                return did_not_start(planned, failure, started);
            }
        }
        match engine.start() {
            Ok(info) => {
                if let Some(list) = &info.profiles
                    && !list.contains(&planned.profile)
                {
                    return skipped(
                        planned,
                        "profiles the engine's hello does not list".to_owned(),
                    );
                }
            }
            Err(failure) => {
                let mut done = did_not_start(planned, failure, started);
                done.result.retried.extend(slow_start);
                return done;
            }
        }
        let engine = &mut *engine;
        let mut ctx = Ctx::new(engine, planned.profile);
        let outcome = planned.unit.run(&mut ctx);
        let rules = ctx.rules;
        let (facts, spooled) = match spool.store(ctx.engine.take_journal()) {
            Ok(at) => (Vec::new(), Some(at)),
            Err(facts) => (facts, None),
        };
        let (mut result, found) = result(&*planned.unit, outcome);
        result.time = started.elapsed().as_secs_f64();
        result.profile = Some(planned.profile);
        result.seq = Some(planned.seq);
        result.retried.extend(slow_start);
        policy.classify(&mut result);
        Done {
            result,
            found: found.map(Box::new),
            rules,
            facts,
            spooled,
            profile_index: planned.profile_index,
        }
    }
}

/// Whether `failure` is a hello that came later than the start timeout
/// (or never): the one start failure tried once more.
fn is_slow_hello(failure: &Failure) -> bool {
    failure.code == "timeout" && failure.request.as_deref().is_some_and(is_hello)
}

/// Whether `request` (a request line, as kpe-check writes it) is a hello.
fn is_hello(request: &str) -> bool {
    request.starts_with(r#"{"type":"hello""#)
}

/// Whether `error`, of an earlier run of a unit, is a start whose hello
/// came later than the start timeout, after which the engine was started
/// once more.
#[must_use]
pub fn is_slow_start(error: &crate::reporter::EngineError) -> bool {
    error.code == "timeout" && error.request.as_deref().is_some_and(is_hello)
}

/// The errored unit of an engine that did not start.
fn did_not_start(planned: &Planned, failure: Failure, started: Instant) -> Done {
    let (mut result, _) = result(
        &*planned.unit,
        super::units::Outcome::Errored { plies: 0, failure },
    );
    result.time = started.elapsed().as_secs_f64();
    result.profile = Some(planned.profile);
    result.seq = Some(planned.seq);
    result.reason = Some(crate::reporter::DID_NOT_START.to_owned());
    Done::without_answers(result, planned.profile_index)
}

/// Runs `plan` with `settings.jobs` workers.
#[must_use]
pub fn run(plan: &[Planned], settings: &Settings<'_>) -> Ran {
    let state = Mutex::new(State {
        next: 0,
        results: (0..plan.len()).map(|_| None).collect(),
        prefix: crate::reporter::StopState::default(),
        prefix_len: 0,
        shutdown: Vec::new(),
        requests: 0,
        info: None,
        time: WorkerTime::default(),
    });
    let jobs = settings.jobs.clamp(1, plan.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                Worker {
                    settings,
                    engine: None,
                }
                .work(plan, &state);
            });
        }
    });
    let state = state.into_inner().expect("no worker panics");
    // Those not reached after an interruption are left out.
    let mut done: Vec<Done> = state.results.into_iter().map_while(|slot| slot).collect();
    // The stopping rules once more, in plan order, so that what a worker
    // ran early because it did not know yet is reported as not run: each
    // result in place, with no copy of them all.
    let mut stop = crate::reporter::StopState::default();
    for d in &mut done {
        let ran = d.result.verdict != Verdict::Skipped;
        stop.normalize(&mut d.result, settings.policy.max_failures);
        if ran && d.result.verdict == Verdict::Skipped {
            d.facts = Vec::new();
            d.spooled = None;
            d.found = None;
            d.rules = RuleSet::new();
        }
    }
    Ran {
        done,
        shutdown: state.shutdown,
        requests: state.requests,
        info: state.info,
        time: state.time,
    }
}
