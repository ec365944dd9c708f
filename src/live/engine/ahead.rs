//! Pipelining (spec/PROTOCOL.md, "Pipelining"): the requests of a random
//! game written before their questions are asked, their answers taken in
//! order, and those no unit asked read and dropped.

use super::{Engine, Failure, FailureKind};
use super::{push_request, request_line};
use crate::judge::Question;
use crate::live::process::ProcessError;
use crate::protocol::{Reply, Request};

impl Engine {
    /// The exchange of `question` (whose request is `request`) with a
    /// pipeline: its answer is the next line when it was sent ahead;
    /// otherwise the answers to requests sent ahead are dropped, and it is
    /// sent together with the questions expected after it, up to the
    /// pipeline's depth, in one write.
    pub(super) fn exchange_ahead(
        &mut self,
        question: &Question,
        request: &Request,
    ) -> Result<(Reply, bool), Failure> {
        let timeout = self.timeouts.request();
        if self.process.is_some() && self.ahead.sent.front() == Some(question) {
            self.ahead.sent.pop_front();
            let asked = std::time::Instant::now();
            if self.ahead.sent.len() < self.ahead.depth / 2 {
                self.send_more(question, timeout);
            }
            let process = self.process.as_mut().expect("checked above");
            let received = process.recv(timeout);
            self.wait += asked.elapsed();
            let text = received.map_err(|e| {
                // An engine that closed its input never read the requests
                // ahead: `input-closed`, as with a pipeline of 1, not a
                // timeout blamed on the pipeline.
                let kind = match self.closed_input(e) {
                    e @ ProcessError::Timeout { .. } => FailureKind::AheadTimeout(e),
                    e => FailureKind::Process(e),
                };
                self.fail(kind, Some(request))
            })?;
            return self.judge_line(request, text);
        }
        self.settle();
        self.start()?;
        if self.ahead.expected.front() == Some(question) {
            self.ahead.expected.pop_front();
        } else {
            self.ahead.expected.clear();
        }
        let mut lines = std::mem::take(&mut self.line);
        request_line(request, &mut lines);
        self.requests += 1;
        self.queue(question, &mut lines);
        let result = self.exchange_line(request, &lines, timeout);
        self.line = lines;
        result
    }

    /// Moves expected questions to those sent ahead, while the pipeline
    /// has room beside `asked` (the question being answered), appending
    /// their requests to `lines`, each after a newline.
    fn queue(&mut self, asked: &Question, lines: &mut String) {
        while self.ahead.sent.len() + 1 < self.ahead.depth {
            let Some(next) = self.ahead.expected.pop_front() else {
                break;
            };
            // Asked before in this unit (its answer is kept), or already
            // on its way: sent once.
            if self.facts.get(&next).is_some() || next == *asked || self.ahead.sent.contains(&next)
            {
                continue;
            }
            if !lines.is_empty() {
                lines.push('\n');
            }
            push_request(&next.request(), lines);
            self.ahead.sent.push_back(next);
            self.requests += 1;
        }
    }

    /// Tops up the pipeline while an answer is awaited: the engine gets
    /// the next requests before it runs out. A write that fails is left
    /// to the reads to find (the engine ended, or stopped reading): the
    /// questions it carried go unanswered, and fail when asked.
    fn send_more(&mut self, asked: &Question, timeout: std::time::Duration) {
        let mut lines = std::mem::take(&mut self.line);
        lines.clear();
        self.queue(asked, &mut lines);
        if !lines.is_empty()
            && let Some(process) = self.process.as_mut()
            && process.send_more(&lines, timeout).is_ok()
        {
            // As when a pipeline starts (`exchange_line`).
            self.calls += 1;
            std::thread::yield_now();
        }
        self.line = lines;
    }

    /// Reads and drops the answers to the requests sent ahead that were
    /// not asked (a unit ended before it asked them), each within the
    /// request timeout; the last is the engine's previous line. Whether
    /// they all came: if one did not, the process is ended, and its next
    /// start is not counted, since no unit asked what it failed on.
    pub(super) fn drain(&mut self) -> bool {
        let count = self.ahead.sent.len();
        self.ahead.sent.clear();
        let Some(process) = self.process.as_mut() else {
            return false;
        };
        let asked = std::time::Instant::now();
        let mut came = true;
        for _ in 0..count {
            match process.recv(self.timeouts.request()) {
                Ok(line) => self.last_line = Some(line),
                Err(_) => {
                    came = false;
                    break;
                }
            }
        }
        self.wait += asked.elapsed();
        if !came {
            self.end_process();
            self.quiet_restart = true;
        }
        came
    }

    /// [`Engine::drain`], when requests sent ahead are unanswered.
    pub(super) fn settle(&mut self) {
        if !self.ahead.sent.is_empty() {
            self.drain();
        }
    }
}
