//! The scheduler of a live run: one owner for the order of units, `--jobs`,
//! `--shard` and the stopping rules.
//!
//! The plan lists every unit of every profile in order. `--only`/`--skip`
//! leave units out, `--shard K/N` deals the rest round-robin, and `--jobs N`
//! workers, each with its own engine process, take the next unit in plan
//! order. A stopping rule (`--max-failures`, a chain whose earlier unit
//! failed, too many diverging random games) only looks at units earlier in
//! the plan, and is applied once more in plan order as the units are
//! finished, so that the report is the same whatever the number of workers.
//!
//! A unit done waits in a window until every unit before it in the plan is
//! done; then it goes, normalized, to [`Finished`] (on disk) and is
//! dropped. No worker takes a unit more than [`WINDOW`] places after the
//! first unfinished one, so at most that many results are held at once,
//! whatever `--games` is.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use super::engine::{Engine, EngineInfo, Failure};
use super::finished::{Done, Finished};
use super::plan::{Plan, Planned, Units};
use super::units::{Ctx, result};
use crate::judge::RuleSet;
use crate::profile::Profile;
use crate::reporter::{Policy, UnitResult, Verdict};

/// Engine processes one worker starts for one profile before it gives up:
/// the units it has left are then errored, never skipped
/// (spec/PROTOCOL.md, "What kpe-check runs").
pub const MAX_STARTS: u32 = 4;

/// The code of the error of a unit not run because its worker gave up
/// starting the engine ([`MAX_STARTS`]).
pub const GAVE_UP: &str = "gave-up";

/// Units done held at once, waiting for an earlier unit of the plan: a
/// worker waits rather than take a unit further on than this. Large
/// enough that a unit as long as a thousand others (a deep perft count)
/// holds no worker up; a thousand results are well under 1 MB.
pub const WINDOW: usize = 1024;

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
    /// The core each worker, and the engine it starts, keeps to.
    pub cores: &'a super::pin::Cores,
}

/// Everything the workers did.
pub struct Ran {
    /// One per unit, in plan order, those not reached after an
    /// interruption left out.
    pub finished: Finished,
    /// The most results held at once, waiting for an earlier unit (never
    /// more than [`WINDOW`]).
    pub held: usize,
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
    /// System calls the workers made to talk to their engines
    /// ([`Engine::calls`]): on Unix, each read, write, poll and yield of
    /// the requests and replies and each move between cores; `None`
    /// elsewhere.
    pub calls: Option<u64>,
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
/// The finished results at the start of the plan are counted in
/// `state.prefix` ([`crate::reporter::StopState`]) as they leave the
/// window, so that each unit costs only the results in the window before
/// it.
fn stop_reason(me: &Planned, state: &State<'_>, i: usize, policy: &Policy) -> Option<String> {
    let ask = |stop: &crate::reporter::StopState| {
        stop.reason(
            me.unit.kind(),
            &me.unit.id(),
            Some(me.profile),
            policy.max_failures,
        )
    };
    let mut waiting = state.window.iter().take(i - state.base).flatten();
    let Some(first) = waiting.next() else {
        return ask(&state.prefix);
    };
    let mut stop = state.prefix.clone();
    stop.record(&first.result);
    for d in waiting {
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

struct State<'p> {
    /// The plan's units not yet taken.
    units: Units<'p>,
    next: usize,
    /// The units from `base` to `next`, in plan order: `None` while one
    /// runs.
    window: VecDeque<Option<Done>>,
    base: usize,
    /// The stopping rules' count of the results before `base`, as run.
    prefix: crate::reporter::StopState,
    /// The same, of the results as reported ([`crate::reporter::StopState::normalize`]).
    reported: crate::reporter::StopState,
    finished: Finished,
    held: usize,
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
    fn engine_for(&mut self, planned: &Planned, state: &Mutex<State<'_>>) -> &mut Engine {
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

    fn quit(&mut self, state: &Mutex<State<'_>>) {
        let Some((index, mut engine)) = self.engine.take() else {
            return;
        };
        let failure = engine.quit().err();
        let mut state = state.lock().expect("no worker panics");
        state.requests += engine.requests();
        state.time.wait += engine.wait();
        state.time.requests += engine.requests();
        if let Some(calls) = engine.calls() {
            state.time.calls = Some(state.time.calls.unwrap_or(0) + calls);
        }
        if state.info.is_none() {
            state.info = engine.info().cloned();
        }
        // An engine killed by a signal to kpe-check did not fail to quit.
        if let Some(failure) = failure.filter(|_| super::interrupt::interrupted().is_none()) {
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

    fn work(&mut self, state: &Mutex<State<'_>>, moved: &Condvar) {
        let started = Instant::now();
        loop {
            let next = {
                let mut s = state.lock().expect("no worker panics");
                loop {
                    if (self.settings.interrupted)() {
                        break None;
                    }
                    match s.take(self.settings.policy) {
                        Take::Unit(i, planned, stop) => break Some((i, planned, stop)),
                        Take::None => break None,
                        // The window is full: its first unit, which
                        // another worker runs, moves it on when done.
                        Take::Full => s = moved.wait(s).expect("no worker panics"),
                    }
                }
            };
            let Some((i, planned, stop)) = next else {
                break;
            };
            let planned = &planned;
            let mut done = match planned.unit.skip_reason().or(stop) {
                Some(reason) => skipped(planned, reason),
                None => self.run_retrying(planned, state),
            };
            if let Some(signal) = super::interrupt::interrupted() {
                cut_off(&mut done.result, signal);
            }
            (self.settings.tick)();
            state
                .lock()
                .expect("no worker panics")
                .put(i, done, self.settings.policy.max_failures);
            moved.notify_all();
        }
        self.quit(state);
        state.lock().expect("no worker panics").time.busy += started.elapsed();
    }

    /// Runs `planned`, and again while the engine errors on it, up to
    /// [`Settings::retries`] more times (never after a divergence, which
    /// is the engine's answer, not a flake). The errors of the runs before
    /// the one reported go in its `retried`.
    fn run_retrying(&mut self, planned: &Planned, state: &Mutex<State<'_>>) -> Done {
        let mut done = self.run(planned, state);
        // A run's own slow start comes first (`run`), then its error.
        let mut retried = std::mem::take(&mut done.result.retried);
        let mut runs = 0;
        while done.result.verdict == Verdict::Errored
            && runs < self.settings.retries
            && !(self.settings.interrupted)()
        {
            let mut again = self.run(planned, state);
            if gave_up(&again.result) {
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

    fn run(&mut self, planned: &Planned, state: &Mutex<State<'_>>) -> Done {
        let policy = self.settings.policy;
        let spool = self.settings.spool;
        let engine = self.engine_for(planned, state);
        if engine.starts() >= MAX_STARTS {
            return not_started_again(planned);
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

/// A unit not run because its worker gave up starting the engine: errored,
/// since a unit never run is never a pass (issue 42).
fn not_started_again(planned: &Planned) -> Done {
    let unit = &*planned.unit;
    let mut result = UnitResult::skipped(
        unit.kind(),
        unit.id(),
        unit.location(),
        format!("not run: gave up after starting the engine {MAX_STARTS} times"),
    );
    result.verdict = Verdict::Errored;
    result.error = Some(Box::new(crate::reporter::EngineError {
        code: GAVE_UP.to_owned(),
        message: format!(
            "not run: the engine errored after each of the {MAX_STARTS} starts kpe-check makes \
             for a worker and a profile, and was not started again"
        ),
        ply: None,
        request: None,
        stderr: Vec::new(),
        stderr_bytes: 0,
    }));
    result.profile = Some(planned.profile);
    result.seq = Some(planned.seq);
    Done::without_answers(result, planned.profile_index)
}

/// A unit that errored once a signal had stopped the run (its engine was
/// killed, or could not be started again) was cut off, not failed by the
/// engine: it is reported as skipped, interrupted (issue 42).
fn cut_off(result: &mut UnitResult, signal: crate::reporter::Signal) {
    if result.verdict != Verdict::Errored {
        return;
    }
    let mut interrupted = UnitResult::skipped(
        result.kind.clone(),
        result.id.clone(),
        result.location.clone(),
        format!("interrupted: cut off by {signal} before it finished"),
    );
    interrupted.profile = result.profile;
    interrupted.seq = result.seq;
    interrupted.time = result.time;
    *result = interrupted;
}

/// Whether `result` is that of a unit not run because its worker gave up
/// starting the engine.
fn gave_up(result: &UnitResult) -> bool {
    result.error.as_ref().is_some_and(|e| e.code == GAVE_UP)
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

impl<'p> State<'p> {
    fn new(plan: &'p Plan<'p>) -> State<'p> {
        State {
            units: plan.iter(),
            next: 0,
            window: VecDeque::new(),
            base: 0,
            prefix: crate::reporter::StopState::default(),
            reported: crate::reporter::StopState::default(),
            finished: Finished::new(),
            held: 0,
            shutdown: Vec::new(),
            requests: 0,
            info: None,
            time: WorkerTime::default(),
        }
    }
}

/// What a worker gets when it asks for a unit.
enum Take {
    /// The `i`th unit of the plan, and why it is not to be run, if so.
    Unit(usize, Planned, Option<String>),
    /// None now: the window is full.
    Full,
    /// None: the plan is done.
    None,
}

impl State<'_> {
    /// The next unit of the plan, if the window has room for it.
    fn take(&mut self, policy: &Policy) -> Take {
        if self.next - self.base >= WINDOW {
            return Take::Full;
        }
        let Some(planned) = self.units.next() else {
            return Take::None;
        };
        let i = self.next;
        self.next += 1;
        self.window.push_back(None);
        let stop = stop_reason(&planned, self, i, policy);
        Take::Unit(i, planned, stop)
    }

    /// Unit `i` is done: it waits in the window until the units before it
    /// are, then goes on with them ([`State::finish_prefix`]).
    fn put(&mut self, i: usize, done: Done, max_failures: Option<u64>) {
        let k = i - self.base;
        self.window[k] = Some(done);
        let held = self.window.iter().flatten().count();
        self.held = self.held.max(held);
        self.finish_prefix(max_failures);
    }

    /// Moves the done units at the start of the window, in plan order, to
    /// `finished`: counted by the stopping rules as run, then normalized
    /// (a unit that ran but that the rules say should not have is reported
    /// as not run, and keeps nothing for later), then dropped.
    fn finish_prefix(&mut self, max_failures: Option<u64>) {
        while let Some(Some(_)) = self.window.front() {
            let Some(Some(mut d)) = self.window.pop_front() else {
                break;
            };
            self.base += 1;
            self.prefix.record(&d.result);
            let ran = d.result.verdict != Verdict::Skipped;
            self.reported.normalize(&mut d.result, max_failures);
            if ran && d.result.verdict == Verdict::Skipped {
                d.facts = Vec::new();
                d.spooled = None;
                d.found = None;
                d.rules = RuleSet::new();
            }
            self.finished.push(d);
        }
    }
}

/// Runs `plan` with `settings.jobs` workers.
#[must_use]
pub fn run(plan: &Plan<'_>, settings: &Settings<'_>) -> Ran {
    let state = Mutex::new(State::new(plan));
    let moved = Condvar::new();
    let jobs = settings.jobs.clamp(1, plan.len().max(1));
    std::thread::scope(|scope| {
        for k in 0..jobs {
            let (state, moved) = (&state, &moved);
            scope.spawn(move || {
                // Before its first engine starts, which inherits the core.
                settings.cores.pin_worker(k);
                Worker {
                    settings,
                    engine: None,
                }
                .work(state, moved);
            });
        }
    });
    // Every unit taken is done and finished: those not reached after an
    // interruption were never taken.
    let state = state.into_inner().expect("no worker panics");
    debug_assert!(state.window.is_empty());
    Ran {
        finished: state.finished,
        held: state.held,
        shutdown: state.shutdown,
        requests: state.requests,
        info: state.info,
        time: state.time,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::live::plan::{ProfileUnits, RandomGames};

    fn conforming(planned: &Planned) -> Done {
        let mut result = UnitResult::conforming("random-game", planned.unit.id(), None, 1);
        result.seq = Some(planned.seq);
        Done::without_answers(result, planned.profile_index)
    }

    #[test]
    fn no_more_than_the_window_of_results_is_held_whatever_the_games() {
        // Issue 25: a unit that takes long holds back the report of those
        // after it, but no worker runs ahead of it by more than the window,
        // so the results held do not grow with the games.
        let policy = Policy::default();
        let units = ProfileUnits {
            profile: Profile::default(),
            before: Vec::new(),
            games: RandomGames {
                seed: 1,
                games: 3 * WINDOW as u32,
                max_plies: 1,
                starts: Arc::from(Vec::new()),
            },
            after: Vec::new(),
        };
        let plan = Plan::new(vec![units], &policy, None);
        let mut state = State::new(&plan);
        let mut taken = Vec::new();
        // The first unit runs long; the others finish as soon as taken.
        let Take::Unit(0, slow, None) = state.take(&policy) else {
            panic!("the first unit");
        };
        loop {
            match state.take(&policy) {
                Take::Unit(i, planned, _) => {
                    state.put(i, conforming(&planned), None);
                    taken.push(i);
                }
                Take::Full => break,
                Take::None => panic!("the window never filled"),
            }
        }
        assert_eq!(taken.len(), WINDOW - 1);
        assert_eq!(state.held, WINDOW - 1);
        // The slow unit done, the window empties into the finished units,
        // in plan order, and the workers go on.
        state.put(0, conforming(&slow), None);
        assert!(state.window.is_empty());
        assert_eq!(state.held, WINDOW);
        while let Take::Unit(i, planned, _) = state.take(&policy) {
            state.put(i, conforming(&planned), None);
        }
        assert_eq!(state.held, WINDOW);
        let mut seqs = Vec::new();
        state
            .finished
            .each(|s| {
                seqs.push(s.result.seq.unwrap_or(u64::MAX));
                Ok(())
            })
            .unwrap();
        assert_eq!(seqs, (0..3 * WINDOW as u64).collect::<Vec<_>>());
    }
}
