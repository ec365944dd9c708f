//! The answers each unit got, kept on disk rather than in memory: a live
//! run of many random games would otherwise hold every question and answer
//! of every game until the end, where naming the reading re-checks them
//! under other profiles. Each unit's answers are written as one JSON line
//! (protocol requests and replies) to an unnamed temporary file as the
//! unit finishes, and read back, one unit at a time, when they are needed.
//! Memory then holds none of them: where each unit's answers are is kept
//! with its result, on disk too (`finished.rs`).

use std::fs::File;
use std::io::{self, Read as _, Seek as _, SeekFrom, Write as _};
use std::sync::Mutex;

use crate::judge::{Answer, Question};
use crate::protocol::{Reply, Request};

/// Where one unit's answers are in the spool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Spooled {
    offset: u64,
    len: u64,
}

/// The spool file of a run (`None`: it could not be made, and the answers
/// stay in memory as before).
pub struct FactSpool {
    file: Mutex<Option<(File, u64)>>,
}

impl FactSpool {
    /// A new spool in the temporary folder.
    #[must_use]
    pub fn new() -> FactSpool {
        FactSpool {
            file: Mutex::new(tempfile::tempfile().ok().map(|f| (f, 0))),
        }
    }

    /// Writes `facts` to the spool; where they are, or the facts back
    /// when they could not be written.
    pub fn store(
        &self,
        facts: Vec<(Question, Answer)>,
    ) -> Result<Spooled, Vec<(Question, Answer)>> {
        if facts.is_empty() {
            return Err(facts);
        }
        // The pairs of requests and replies, on one line.
        let pairs: Vec<(Request, Reply)> = facts
            .iter()
            .map(|(question, answer)| (question.request(), reply_of(answer)))
            .collect();
        let mut bytes = serde_json::to_vec(&pairs).expect("requests and replies serialise");
        bytes.push(b'\n');
        let mut guard = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some((file, end)) = guard.as_mut() else {
            return Err(facts);
        };
        let offset = *end;
        let written = file
            .seek(SeekFrom::Start(offset))
            .and_then(|_| file.write_all(&bytes));
        if written.is_err() {
            return Err(facts);
        }
        *end += bytes.len() as u64;
        Ok(Spooled {
            offset,
            len: bytes.len() as u64,
        })
    }

    /// Reads back the answers stored at `at`.
    ///
    /// # Errors
    ///
    /// The spool file could not be read, or holds what it did not write.
    pub fn load(&self, at: Spooled) -> io::Result<Vec<(Question, Answer)>> {
        let mut guard = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some((file, _)) = guard.as_mut() else {
            return Err(io::Error::other("no spool file"));
        };
        file.seek(SeekFrom::Start(at.offset))?;
        let mut bytes = vec![0; usize::try_from(at.len).map_err(io::Error::other)?];
        file.read_exact(&mut bytes)?;
        drop(guard);
        facts_of(serde_json::from_slice(&bytes)?)
    }
}

/// Questions and answers as the protocol lines that carry them.
pub fn lines_of(facts: &[(Question, Answer)]) -> Vec<(Request, Reply)> {
    facts
        .iter()
        .map(|(q, a)| (q.request(), reply_of(a)))
        .collect()
}

/// The questions and answers that protocol `lines` carry.
///
/// # Errors
///
/// A line that is not a question and its answer (the spool holds what it
/// did not write).
pub fn facts_of(lines: Vec<(Request, Reply)>) -> io::Result<Vec<(Question, Answer)>> {
    lines
        .into_iter()
        .map(|(request, reply)| {
            let question = match request {
                Request::Legal { position, .. } => Question::Legal(position),
                Request::Play { position, pit, .. } => Question::Play(position, pit),
                _ => return Err(io::Error::other("not a question")),
            };
            let answer =
                Answer::from_reply(reply).map_err(|_| io::Error::other("not an answer"))?;
            Ok((question, answer))
        })
        .collect()
}

impl Default for FactSpool {
    fn default() -> FactSpool {
        FactSpool::new()
    }
}

/// The reply that gives `answer`.
pub(crate) fn reply_of(answer: &Answer) -> Reply {
    match answer {
        Answer::Legal(moves) => Reply::Legal {
            moves: moves.clone(),
        },
        Answer::Played {
            position,
            captures,
            end,
        } => Reply::Played {
            position: position.clone(),
            captures: captures.clone(),
            end: *end,
        },
        Answer::Illegal(reason) => Reply::Illegal {
            reason: reason.clone(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    #[test]
    fn answers_come_back_as_they_were_stored() {
        let spool = FactSpool::new();
        let p = Position::initial();
        let pit = "S1".parse().unwrap();
        let one = vec![
            (Question::Legal(p), Answer::Legal(vec![pit])),
            (Question::Play(p, pit), Answer::Illegal("locked".to_owned())),
        ];
        let two = vec![(
            Question::Play(p, pit),
            Answer::Played {
                position: "garbage the engine wrote".to_owned(),
                captures: Vec::new(),
                end: None,
            },
        )];
        let a = spool.store(one.clone()).unwrap();
        let b = spool.store(two.clone()).unwrap();
        assert_eq!(spool.load(b).unwrap(), two);
        assert_eq!(spool.load(a).unwrap(), one);
        // Nothing to store is kept nowhere.
        assert!(spool.store(Vec::new()).is_err());
    }
}
