//! What an engine claimed: each stateless question asked and its answer.
//!
//! Requests are stateless, so every answer is a fact about the engine's rules
//! that holds on its own. Facts can be checked against the reference under
//! any profile, which is how the reading an engine follows is named.

use std::fmt;

use rustc_hash::FxHashMap;

use crate::board::Pit;
use crate::position::Position;
use crate::protocol::{EndClaim, Reply, Request};
use crate::report::Capture;

/// At most this many facts are kept for diagnosis; later ones are still
/// checked as they come, just not remembered.
const MAX_FACTS: usize = 250_000;

/// A stateless question put to an engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Question {
    /// Its legal moves in a position.
    Legal(Position),
    /// The result of playing a pit in a position.
    Play(Position, Pit),
}

impl Question {
    /// The position asked about.
    #[must_use]
    pub fn position(&self) -> &Position {
        match self {
            Question::Legal(p) | Question::Play(p, _) => p,
        }
    }

    /// The move asked about, if any.
    #[must_use]
    pub fn pit(&self) -> Option<Pit> {
        match self {
            Question::Legal(_) => None,
            Question::Play(_, pit) => Some(*pit),
        }
    }

    /// The same question about another position.
    #[must_use]
    pub fn at(&self, position: Position) -> Question {
        match self {
            Question::Legal(_) => Question::Legal(position),
            Question::Play(_, pit) => Question::Play(position, *pit),
        }
    }

    /// The protocol request that asks it.
    #[must_use]
    pub fn request(&self) -> Request {
        match *self {
            Question::Legal(position) => Request::Legal { position },
            Question::Play(position, pit) => Request::Play { position, pit },
        }
    }
}

impl fmt::Display for Question {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Question::Legal(p) => write!(f, "legal moves in `{p}`"),
            Question::Play(p, pit) => write!(f, "{pit} in `{p}`"),
        }
    }
}

/// An answer, the engine's or the reference's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Legal moves, in the order given.
    Legal(Vec<Pit>),
    /// The move was played.
    Played {
        /// The position after it, as text (an engine's may be unreadable).
        position: String,
        /// The captures, landing pit first.
        captures: Vec<Capture>,
        /// The end of the game, if it is over.
        end: Option<EndClaim>,
    },
    /// The move was refused, with this reason code.
    Illegal(String),
}

impl Answer {
    /// The answer a `legal`, `played` or `illegal` reply gives; any other
    /// reply comes back as the error.
    ///
    /// # Errors
    ///
    /// The reply, when it answers no question.
    pub fn from_reply(reply: Reply) -> Result<Answer, Reply> {
        match reply {
            Reply::Legal { moves } => Ok(Answer::Legal(moves)),
            Reply::Played {
                position,
                captures,
                end,
            } => Ok(Answer::Played {
                position,
                captures,
                end,
            }),
            Reply::Illegal { reason } => Ok(Answer::Illegal(reason)),
            other => Err(other),
        }
    }
}

/// The facts gathered from one engine, in the order they were learned.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    order: Vec<Question>,
    answers: FxHashMap<Question, Answer>,
}

impl Facts {
    /// The answer already given to `question`, if any.
    #[must_use]
    pub fn get(&self, question: &Question) -> Option<&Answer> {
        self.answers.get(question)
    }

    /// Remembers an answer (up to a bound on memory).
    pub fn insert(&mut self, question: Question, answer: Answer) {
        if self.order.len() < MAX_FACTS && self.answers.insert(question, answer).is_none() {
            self.order.push(question);
        }
    }

    /// Remembers an answer not known yet, and lends it; past the bound on
    /// memory (or when the question has an answer already) gives it back.
    ///
    /// # Errors
    ///
    /// The answer, when it is not kept.
    pub fn keep(&mut self, question: Question, answer: Answer) -> Result<&Answer, Answer> {
        if self.order.len() >= MAX_FACTS {
            return Err(answer);
        }
        match self.answers.entry(question) {
            std::collections::hash_map::Entry::Occupied(_) => Err(answer),
            std::collections::hash_map::Entry::Vacant(slot) => {
                self.order.push(question);
                Ok(slot.insert(answer))
            }
        }
    }

    /// The answers to `questions`, in their order, moved out of the facts:
    /// a question not known, or named again, gives nothing.
    #[must_use]
    pub fn into_answers(mut self, questions: Vec<Question>) -> Vec<(Question, Answer)> {
        questions
            .into_iter()
            .filter_map(|q| self.answers.remove(&q).map(|a| (q, a)))
            .collect()
    }

    /// Every fact, in the order learned.
    pub fn iter(&self) -> impl Iterator<Item = (&Question, &Answer)> {
        self.order.iter().map(|q| (q, &self.answers[q]))
    }

    /// How many facts are known.
    #[must_use]
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether no fact is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}
