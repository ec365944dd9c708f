//! A protocol session with an engine: the handshake, typed requests and
//! replies, the checks that every reply is well-formed and in turn, and the
//! log of everything the engine claimed.

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

use super::manifest::Timeouts;
use super::process::{EngineProcess, Launch, ProcessError};
use crate::board::Pit;
use crate::judge::{Answer, Facts, Question, agreement};
use crate::position::Position;
use crate::profile::Profile;
use crate::protocol::{OLDEST_PROTOCOL, Offer, PROTOCOL_VERSION, Reply, Request};

mod ahead;

/// Characters of an offending line quoted in a report.
const QUOTE: usize = 200;

/// How long kpe-check waits for a line after a reply that repeats the
/// engine's previous line and is not the current request's answer: a copy
/// is followed by the answer to the request already sent; a wrong answer
/// that happens to repeat the previous one is followed by nothing
/// (spec/PROTOCOL.md, "A doubled answer").
pub const DOUBLED_WAIT: Duration = Duration::from_millis(250);

/// Who the engine said it is in its hello.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EngineInfo {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Whether it answers perft requests.
    pub perft: bool,
    /// The profiles the hello says the engine plays, if it said.
    pub profiles: Option<Vec<Profile>>,
    /// The protocol version it speaks, by whose meaning it is checked.
    pub protocol: u32,
    /// The hello it answered (spec/PROTOCOL.md, "Versions").
    pub took: Offer,
    /// The hellos it refused before, each with how (`the hello offering
    /// versions 1, 2: the engine answered with an error: ... (engine-error)`),
    /// in the order sent; each refusal cost a fresh start.
    pub refused: Vec<String>,
}

/// Whether a failure to answer a hello is a refusal of that hello, which
/// an older one may get past: an `error` reply, an exit or crash, a line
/// that is not a hello, a closed input. Not a timeout (a slow or hung
/// engine), nor a start that failed, nor a hello naming a version.
fn refuses(failure: &Failure) -> bool {
    matches!(
        &*failure.kind,
        FailureKind::EngineError { .. }
            | FailureKind::Garbage { .. }
            | FailureKind::WrongReply { .. }
            | FailureKind::Process(ProcessError::Exited { .. } | ProcessError::InputClosed)
    )
}

/// The engine misbehaved: it did not give a well-formed answer in turn.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Failure {
    /// What went wrong.
    #[serde(serialize_with = "serialize_display")]
    pub kind: Box<FailureKind>,
    /// Short code of the kind: `timeout`, `crash`, `garbage`, ...
    pub code: &'static str,
    /// The request line being answered, if any.
    pub request: Option<String>,
    /// The last lines the engine wrote to stderr.
    pub stderr_tail: String,
    /// How many bytes it wrote to stderr in all.
    pub stderr_bytes: u64,
}

fn serialize_display<S: serde::Serializer>(
    value: &FailureKind,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// The ways an engine can fail the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureKind {
    /// The process itself: could not start, timed out, exited, crashed,
    /// printed a gigantic or non-UTF-8 line, flooded stderr.
    Process(ProcessError),
    /// No answer in time to a request written ahead of its turn, behind
    /// other unanswered ones (spec/PROTOCOL.md, "Pipelining"): what an
    /// engine that takes a block of input for one request does.
    AheadTimeout(ProcessError),
    /// A line that is not a valid protocol reply.
    Garbage {
        /// The line (cut to 200 characters).
        line: String,
        /// Why it is not a reply.
        error: String,
    },
    /// A line printed when nothing was asked (or a second line for one
    /// request).
    OutOfTurn {
        /// The line (cut to 200 characters).
        line: String,
    },
    /// A valid reply of the wrong type for the request.
    WrongReply {
        /// The reply types that would have fitted.
        expected: String,
        /// The type received.
        found: &'static str,
    },
    /// The hello named another protocol version.
    ProtocolVersion {
        /// The version the engine gave.
        found: u32,
    },
    /// The engine answered `error`.
    EngineError {
        /// Its message.
        message: String,
    },
    /// A perft request to an engine whose hello said it has no perft.
    NoPerft,
}

impl FailureKind {
    /// A short stable code for the kind of failure.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            FailureKind::Process(e) | FailureKind::AheadTimeout(e) => match e {
                ProcessError::Spawn { .. } => "spawn",
                ProcessError::Timeout { .. } => "timeout",
                ProcessError::WriteTimeout { .. } => "write-timeout",
                ProcessError::InputClosed => "input-closed",
                ProcessError::NoExit { .. } => "no-exit",
                ProcessError::Exited { clean: true, .. } => "early-exit",
                ProcessError::Exited { .. } => "crash",
                ProcessError::LineTooLong { .. } => "line-too-long",
                ProcessError::NotUtf8 => "not-utf8",
                ProcessError::StderrFlood { .. } => "stderr-flood",
                _ => "io",
            },
            FailureKind::Garbage { .. } => "garbage",
            FailureKind::OutOfTurn { .. } => "out-of-turn",
            FailureKind::WrongReply { .. } => "wrong-reply",
            FailureKind::ProtocolVersion { .. } => "protocol-version",
            FailureKind::EngineError { .. } => "engine-error",
            FailureKind::NoPerft => "no-perft",
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureKind::Process(e) => e.fmt(f),
            FailureKind::AheadTimeout(e) => write!(
                f,
                "{e}, to a request written before the ones ahead of it were answered: an engine \
                 that takes a block of its input for one request cannot be given a `pipeline` \
                 above 1 (spec/PROTOCOL.md, \"Pipelining\")"
            ),
            FailureKind::Garbage { line, error } => {
                write!(
                    f,
                    "the engine printed `{line}`, which is not a protocol reply: {error}"
                )
            }
            FailureKind::OutOfTurn { line } => write!(
                f,
                "the engine printed `{line}` out of turn: exactly one line answers each request"
            ),
            FailureKind::WrongReply { expected, found } => {
                write!(
                    f,
                    "expected a `{expected}` reply, the engine sent `{found}`"
                )
            }
            FailureKind::ProtocolVersion { found } => write!(
                f,
                "the engine speaks protocol version {found}; this kpe-check speaks versions {OLDEST_PROTOCOL} to {PROTOCOL_VERSION}"
            ),
            FailureKind::EngineError { message } => {
                write!(f, "the engine answered with an error: {message}")
            }
            FailureKind::NoPerft => f.write_str("the engine does not answer perft requests"),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.kind, self.code)?;
        if let Some(request) = &self.request {
            write!(f, "\n  request: {request}")?;
        }
        if self.stderr_tail.is_empty() {
            f.write_str("\n  stderr: (empty)")?;
        } else {
            write!(
                f,
                "\n  stderr ({} bytes in all), last lines:",
                self.stderr_bytes
            )?;
            for line in self.stderr_tail.lines() {
                write!(f, "\n  | {line}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}

/// A session with one engine. A failure kills the process; the next request
/// starts a fresh one (and counts a restart).
pub struct Engine {
    launch: Launch,
    timeouts: Timeouts,
    profile: Profile,
    process: Option<EngineProcess>,
    info: Option<EngineInfo>,
    facts: Facts,
    /// The questions asked since [`Engine::take_journal`] last emptied it.
    journal: Vec<Question>,
    requests: u64,
    /// The last line the engine answered with, in this process.
    last_line: Option<String>,
    starts: u32,
    /// Time spent from writing each request to receiving its reply.
    wait: Duration,
    /// The last request line, its buffer kept for the next one.
    line: String,
    /// The last answer not kept in [`Engine::facts`] (past its bound on
    /// memory), lent by [`Engine::ask`].
    unkept: Option<Answer>,
    /// Requests sent ahead of their questions.
    ahead: Ahead,
    /// The process was ended after requests sent ahead that no unit
    /// needed went unanswered: its next start is not counted.
    quiet_restart: bool,
    /// The hello of [`Offer::ladder`] each start begins with: the one the
    /// engine last took.
    offer: usize,
    /// System calls made talking to processes already ended, and this
    /// session's own yields (counted on Unix
    /// only: [`EngineProcess::calls`]).
    calls: u64,
}

/// Requests sent before the questions they ask are asked, so that several
/// are unanswered at once (spec/PROTOCOL.md, "Pipelining"; the methods
/// that send and read them are in `engine/ahead.rs`).
#[derive(Default)]
struct Ahead {
    /// The most requests unanswered at once (1 or less: none sent ahead).
    depth: usize,
    /// The questions the unit says it asks next, in order, not sent yet.
    expected: VecDeque<Question>,
    /// The questions sent after the one being answered, oldest first.
    sent: VecDeque<Question>,
}

impl Engine {
    /// A session not yet started: the first request starts the engine.
    #[must_use]
    pub fn new(launch: Launch, timeouts: Timeouts, profile: Profile) -> Engine {
        Engine {
            launch,
            timeouts,
            profile,
            process: None,
            info: None,
            facts: Facts::default(),
            journal: Vec::new(),
            requests: 0,
            last_line: None,
            starts: 0,
            wait: Duration::ZERO,
            line: String::new(),
            unkept: None,
            ahead: Ahead::default(),
            quiet_restart: false,
            offer: 0,
            calls: 0,
        }
    }

    /// The session with up to `depth` requests unanswered at once when a
    /// unit says which questions it asks next ([`Engine::expect`]); 1 (or
    /// 0) sends each request once the last is answered.
    #[must_use]
    pub fn with_pipeline(mut self, depth: u32) -> Engine {
        self.ahead.depth = usize::try_from(depth).unwrap_or(usize::MAX);
        self
    }

    /// Says which questions the unit asks next, in order, as the rules
    /// play its game: with a pipeline, they are sent in groups before
    /// they are asked. A question asked out of this order ends the
    /// expectation; the answers to requests sent ahead and not asked are
    /// read and dropped before the next request.
    pub fn expect(&mut self, questions: impl IntoIterator<Item = Question>) {
        self.ahead.expected.clear();
        if self.ahead.depth > 1 {
            self.ahead.expected.extend(questions);
        }
    }

    /// Starts the engine if it is not running, and says hello.
    ///
    /// # Errors
    ///
    /// A [`Failure`] when it cannot start or its hello is wrong.
    pub fn start(&mut self) -> Result<&EngineInfo, Failure> {
        if self.process.is_none() {
            if !std::mem::take(&mut self.quiet_restart) {
                self.starts += 1;
            }
            self.last_line = None;
            self.ahead.sent.clear();
            let process = EngineProcess::spawn(&self.launch).map_err(|e| Failure {
                code: FailureKind::Process(e.clone()).code(),
                kind: Box::new(FailureKind::Process(e)),
                request: None,
                stderr_tail: String::new(),
                stderr_bytes: 0,
            })?;
            self.process = Some(process);
            let info = self.hello()?;
            self.info = Some(info);
        }
        Ok(self.info.as_ref().expect("set by a successful hello"))
    }

    /// Says hello to the process just started: first with the hello the
    /// engine last took (at first [`Offer::Every`]); if the engine refuses
    /// it ([`refuses`]), it is started again and sent the next hello of
    /// [`Offer::ladder`], until one is taken or none is left
    /// (spec/PROTOCOL.md, "Versions"). The hellos refused are named in
    /// [`EngineInfo::refused`]; these starts are not counted in
    /// [`Engine::starts`].
    fn hello(&mut self) -> Result<EngineInfo, Failure> {
        let ladder = Offer::ladder();
        let mut at = self.offer;
        let mut refused: Vec<(Offer, Failure)> = Vec::new();
        loop {
            let offer = ladder[at];
            if !refused.is_empty() {
                self.last_line = None;
                self.ahead.sent.clear();
                let process = EngineProcess::spawn(&self.launch).map_err(|e| Failure {
                    code: FailureKind::Process(e.clone()).code(),
                    kind: Box::new(FailureKind::Process(e)),
                    request: None,
                    stderr_tail: String::new(),
                    stderr_bytes: 0,
                })?;
                self.process = Some(process);
            }
            match self.greet(offer) {
                Ok(mut info) => {
                    self.offer = at;
                    info.refused = refused
                        .iter()
                        .map(|(offer, failure)| {
                            format!("{offer}: {} ({})", failure.kind, failure.code)
                        })
                        .collect();
                    return Ok(info);
                }
                Err(failure) if refuses(&failure) && at + 1 < ladder.len() => {
                    refused.push((offer, failure));
                    at += 1;
                }
                Err(failure) => {
                    // The same refusal to every hello is the engine's answer
                    // to the first: a profile it cannot play, a crash at
                    // start. Otherwise the last hello, the oldest, says why.
                    let same = |(_, f): &(Offer, Failure)| {
                        f.code == failure.code && f.kind == failure.kind
                    };
                    return Err(match refused.first() {
                        Some(first) if refused.iter().all(same) => first.1.clone(),
                        _ => failure,
                    });
                }
            }
        }
    }

    /// Sends the hello of `offer` and reads the engine's.
    fn greet(&mut self, offer: Offer) -> Result<EngineInfo, Failure> {
        let hello = offer.hello(self.profile);
        // A fresh process has no previous line: never a repeat.
        let (reply, _) = self.exchange(&hello, self.timeouts.start())?;
        let Reply::Hello {
            protocol,
            name,
            version,
            perft,
            profiles,
        } = reply
        else {
            return Err(self.wrong_reply(&hello, &reply));
        };
        if !(OLDEST_PROTOCOL..=PROTOCOL_VERSION).contains(&protocol) {
            return Err(self.fail(
                FailureKind::ProtocolVersion { found: protocol },
                Some(&hello),
            ));
        }
        Ok(EngineInfo {
            name,
            version,
            perft,
            profiles,
            protocol,
            took: offer,
            refused: Vec::new(),
        })
    }

    /// What the engine said about itself, once started.
    #[must_use]
    pub fn info(&self) -> Option<&EngineInfo> {
        self.info.as_ref()
    }

    /// The profile the session claims in its hello.
    #[must_use]
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// How many times the engine process was started (a start after
    /// requests sent ahead that no unit needed went unanswered is not
    /// counted: see [`Engine::expect`]).
    #[must_use]
    pub fn starts(&self) -> u32 {
        self.starts
    }

    /// How many requests were written or attempted, those sent ahead of
    /// their questions included ([`Engine::with_pipeline`]).
    #[must_use]
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// The system calls made to talk to the engine in all, on Unix: each
    /// read, write, poll and yield of the requests and replies (not those
    /// that start and end processes); `None` elsewhere.
    #[must_use]
    pub fn calls(&self) -> Option<u64> {
        let running = self.process.as_ref().and_then(EngineProcess::calls);
        cfg!(unix).then(|| self.calls + running.unwrap_or(0))
    }

    /// Ends the session's process, if any, keeping the count of its
    /// system calls.
    fn end_process(&mut self) -> Option<EngineProcess> {
        let process = self.process.take()?;
        self.calls += process.calls().unwrap_or(0);
        Some(process)
    }

    /// The time spent waiting for the engine in all: from writing each
    /// request (hellos included) to receiving its reply, or to the failure
    /// that ended the wait. The rest of a worker's time is kpe-check's own.
    #[must_use]
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// Everything the engine claimed so far.
    #[must_use]
    pub fn facts(&self) -> &Facts {
        &self.facts
    }

    /// The questions answered since the last call, each with the engine's
    /// answer, in the order asked (a question asked twice comes once): what
    /// one unit learnt about the engine.
    ///
    /// The answers are kept only until then: each unit is judged by the
    /// answers given to it (a question asked again in another unit is asked
    /// again), so that memory does not grow with the units a session runs
    /// and a verdict does not depend on which session ran which unit first.
    pub fn take_journal(&mut self) -> Vec<(Question, Answer)> {
        self.ahead.expected.clear();
        let journal = std::mem::take(&mut self.journal);
        std::mem::take(&mut self.facts).into_answers(journal)
    }

    /// Asks the engine a question and logs its answer; the answer is lent,
    /// not copied (it stays in the log).
    ///
    /// A reply that repeats the engine's previous line byte for byte, does
    /// not agree with the rules (under the session's profile) and is
    /// followed by another line ([`DOUBLED_WAIT`]) is the previous answer
    /// again, not this one's: a line out of turn, never a divergence
    /// (spec/PROTOCOL.md, "A doubled answer").
    ///
    /// # Errors
    ///
    /// A [`Failure`] when it does not answer well and in time.
    pub fn ask(&mut self, question: &Question) -> Result<&Answer, Failure> {
        if self.facts.get(question).is_none() {
            let request = question.request();
            let (reply, repeated) = if self.ahead.depth > 1 {
                self.exchange_ahead(question, &request)?
            } else {
                self.start()?;
                self.exchange(&request, self.timeouts.request())?
            };
            let answer = match Answer::from_reply(reply) {
                Ok(answer) => answer,
                Err(other) => return Err(self.wrong_reply(&request, &other)),
            };
            if repeated && agreement(question, &answer, self.profile).is_err() && self.followed() {
                return Err(self.repeated(&request));
            }
            return match self.facts.keep(*question, answer) {
                Ok(kept) => {
                    self.journal.push(*question);
                    Ok(kept)
                }
                // Past the bound on the log: lent from here, and not
                // journalled (a journal entry is a fact kept).
                Err(answer) => Ok(self.unkept.insert(answer)),
            };
        }
        self.journal.push(*question);
        Ok(self.facts.get(question).expect("kept above or before"))
    }

    /// The legal moves the engine gives for `position`.
    ///
    /// # Errors
    ///
    /// A [`Failure`] when it does not answer well and in time.
    pub fn legal(&mut self, position: &Position) -> Result<Vec<Pit>, Failure> {
        match self.ask(&Question::Legal(*position))? {
            Answer::Legal(moves) => Ok(moves.clone()),
            // `ask` only gives a legal answer to a legal question.
            _ => Ok(Vec::new()),
        }
    }

    /// The engine's perft count; `want` is the count the rules give, by
    /// which a reply that repeats the engine's previous line byte for byte
    /// is judged as [`Engine::ask`] judges one (a different count followed
    /// by another line is the previous answer again, out of turn).
    ///
    /// # Errors
    ///
    /// A [`Failure`], including [`FailureKind::NoPerft`] when its hello
    /// said it has none.
    pub fn perft(&mut self, position: &Position, depth: u32, want: u64) -> Result<u64, Failure> {
        let request = Request::Perft {
            position: *position,
            depth,
        };
        self.settle();
        if !self.start()?.perft {
            return Err(self.fail(FailureKind::NoPerft, Some(&request)));
        }
        match self.exchange(&request, self.timeouts.request())? {
            (Reply::Perft { nodes }, true) if nodes != want && self.followed() => {
                Err(self.repeated(&request))
            }
            (Reply::Perft { nodes }, _) => Ok(nodes),
            (other, _) => Err(self.wrong_reply(&request, &other)),
        }
    }

    /// Ends the session: sends `quit` and checks the engine exits cleanly
    /// and silently.
    ///
    /// # Errors
    ///
    /// A [`Failure`] when it prints after `quit`, does not exit in time, or
    /// exits with a failure status.
    pub fn quit(&mut self) -> Result<(), Failure> {
        self.settle();
        let Some(mut process) = self.end_process() else {
            return Ok(());
        };
        let request = Request::Quit {};
        let line = serde_json::to_string(&request).expect("requests serialise");
        let result = process.quit(&line, self.timeouts.request());
        let (stderr_tail, stderr_bytes) = process.stderr_tail();
        let kind = match result {
            Ok(None) => return Ok(()),
            Ok(Some(extra)) => FailureKind::OutOfTurn {
                line: quote(&extra),
            },
            Err(e) => FailureKind::Process(e),
        };
        Err(Failure {
            code: kind.code(),
            kind: Box::new(kind),
            request: Some(line),
            stderr_tail,
            stderr_bytes,
        })
    }

    /// One request and its reply, with every check of the protocol, and
    /// whether the reply's line repeats the previous one byte for byte
    /// (then the caller judges it: [`Engine::ask`], [`Engine::perft`]).
    fn exchange(&mut self, request: &Request, timeout: Duration) -> Result<(Reply, bool), Failure> {
        self.requests += 1;
        let mut line = std::mem::take(&mut self.line);
        request_line(request, &mut line);
        let result = self.exchange_line(request, &line, timeout);
        self.line = line;
        result
    }

    /// [`Engine::exchange`] of `request`, written as `line`.
    ///
    /// The engine's lines are taken in the order written, one a request,
    /// so that a verdict does not depend on when a line arrived: a line
    /// that repeats the previous one is the candidate answer to this
    /// request whether it was read before this request was sent or after
    /// (the engine wrote one answer twice: in one write, in two, or after
    /// reading this request). Any other line read before the request was
    /// sent is out of turn.
    fn exchange_line(
        &mut self,
        request: &Request,
        line: &str,
        timeout: Duration,
    ) -> Result<(Reply, bool), Failure> {
        let process = self.process.as_mut().expect("started before any exchange");
        let held = match process.unsolicited() {
            Ok(Some(extra)) if self.last_line.as_deref() == Some(extra.as_str()) => Some(extra),
            Ok(Some(extra)) => {
                return Err(self.fail(
                    FailureKind::OutOfTurn {
                        line: quote(&extra),
                    },
                    Some(request),
                ));
            }
            Ok(None) => None,
            Err(e) => return Err(self.fail(FailureKind::Process(e), Some(request))),
        };
        let asked = std::time::Instant::now();
        // The request is sent even when a repeat is held: the engine then
        // answers it, as it would had the repeat come a moment later.
        let received = match held {
            Some(text) => process.send(line, timeout).map(|()| text),
            None => process.send(line, timeout).and_then(|()| {
                if !self.ahead.sent.is_empty() {
                    // Several requests sent: an engine on this core
                    // (src/live/pin.rs) runs through them before their
                    // answers are read, rather than being woken for each.
                    self.calls += 1;
                    std::thread::yield_now();
                }
                process.recv(timeout)
            }),
        };
        self.wait += asked.elapsed();
        let text = received.map_err(|e| {
            let e = self.closed_input(e);
            self.fail(FailureKind::Process(e), Some(request))
        })?;
        self.judge_line(request, text)
    }

    /// A read that timed out, from an engine that has closed its stdin,
    /// is [`ProcessError::InputClosed`] (or how the engine ended): the
    /// request went unread, whether the engine closed its input before the
    /// request was written or just after. Other errors are kept.
    fn closed_input(&mut self, e: ProcessError) -> ProcessError {
        match e {
            ProcessError::Timeout { .. } => self
                .process
                .as_mut()
                .and_then(EngineProcess::input_gone)
                .unwrap_or(e),
            e => e,
        }
    }

    /// Judges `text`, the line taken as the answer to `request`: in turn,
    /// well-formed, of a kind the request can have; and whether it repeats
    /// the engine's previous line byte for byte.
    fn judge_line(&mut self, request: &Request, text: String) -> Result<(Reply, bool), Failure> {
        let repeated = self.last_line.as_deref() == Some(text.as_str());
        if !repeated
            && self
                .process
                .as_ref()
                .is_some_and(EngineProcess::last_was_early)
        {
            // Read before this request was sent: a line out of turn, not
            // its answer.
            return Err(self.fail(FailureKind::OutOfTurn { line: quote(&text) }, Some(request)));
        }
        let reply: Reply = match serde_json::from_str(&text) {
            Ok(reply) => reply,
            Err(e) => {
                let kind = FailureKind::Garbage {
                    line: quote(&text),
                    error: e.to_string(),
                };
                return Err(self.fail(kind, Some(request)));
            }
        };
        if let Reply::Error { message } = reply {
            return Err(self.fail(
                FailureKind::EngineError {
                    message: quote(&message),
                },
                Some(request),
            ));
        }
        let expected = request.expected_replies().contains(&reply.kind());
        if repeated && !expected {
            // The previous answer again, where it cannot be this one's.
            return Err(self.fail(FailureKind::OutOfTurn { line: quote(&text) }, Some(request)));
        }
        // Kept (not copied) to compare with the next answer.
        self.last_line = Some(text);
        if !expected {
            return Err(self.wrong_reply(request, &reply));
        }
        Ok((reply, repeated))
    }

    /// Whether another line follows, with no new request, within
    /// [`DOUBLED_WAIT`] (or the request timeout, if shorter): asked of a
    /// reply that repeats the previous line and is not this request's
    /// answer. A copy is followed by the engine's answer to the request
    /// already sent; an engine that answered once, wrongly, writes nothing
    /// more, and its line is its answer.
    ///
    /// With requests sent ahead, their answers come first, and then that
    /// line: a copy is one line more than the requests sent.
    fn followed(&mut self) -> bool {
        let copy = self.last_line.clone();
        let answered = self.drain();
        let wait = DOUBLED_WAIT.min(self.timeouts.request());
        let asked = std::time::Instant::now();
        let followed = answered && self.process.as_mut().is_some_and(|p| p.recv(wait).is_ok());
        if followed {
            // The copy is what the failure quotes.
            self.last_line = copy;
        }
        self.wait += asked.elapsed();
        followed
    }

    /// The failure of a reply that repeats the previous line and is not
    /// this request's answer: the previous answer again, out of turn.
    fn repeated(&mut self, request: &Request) -> Failure {
        let line = quote(self.last_line.as_deref().unwrap_or_default());
        self.fail(FailureKind::OutOfTurn { line }, Some(request))
    }

    fn wrong_reply(&mut self, request: &Request, reply: &Reply) -> Failure {
        let kind = FailureKind::WrongReply {
            expected: request.expected_replies().join("` or `"),
            found: reply.kind(),
        };
        self.fail(kind, Some(request))
    }

    /// Records a failure: takes the stderr tail, then kills the process.
    fn fail(&mut self, kind: FailureKind, request: Option<&Request>) -> Failure {
        self.ahead.sent.clear();
        let (stderr_tail, stderr_bytes) = self
            .end_process()
            .map(|p| p.stderr_tail())
            .unwrap_or_default();
        Failure {
            code: kind.code(),
            kind: Box::new(kind),
            request: request.map(|r| serde_json::to_string(r).expect("requests serialise")),
            stderr_tail,
            stderr_bytes,
        }
    }
}

/// Writes `request` into `out` (emptied first), as its line.
fn request_line(request: &Request, out: &mut String) {
    out.clear();
    push_request(request, out);
}

/// Appends `request` to `out`.
fn push_request(request: &Request, out: &mut String) {
    out.push_str(&serde_json::to_string(request).expect("requests serialise"));
}

/// A line cut to [`QUOTE`] characters for a report.
fn quote(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(QUOTE).collect();
    if chars.next().is_some() {
        format!("{head}… ({} bytes)", text.len())
    } else {
        head
    }
}
