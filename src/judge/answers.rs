//! Naming the reading an engine follows: every answer it gave, checked
//! again under other rules profiles through the checker's
//! [`super::name_reading`].

use std::convert::Infallible;

use super::compare::compare;
use super::facts::Facts;
use super::reading::{Reading, Recheck, name_reading};
use crate::profile::{Profile, Switch};

/// An engine's recorded answers, re-checkable under any profile.
///
/// The answers are stateless facts, so re-checking needs no engine. The
/// repetition reading (I5) is kept as claimed: no question carries a game's
/// history, so kpe-check judges repetition itself and the answers cannot
/// tell the two readings apart.
pub struct Answers<'a> {
    facts: &'a Facts,
    claimed: Profile,
}

impl<'a> Answers<'a> {
    /// The answers in `facts`, given by an engine claiming `claimed`.
    #[must_use]
    pub fn new(facts: &'a Facts, claimed: Profile) -> Answers<'a> {
        Answers { facts, claimed }
    }
}

impl Recheck for Answers<'_> {
    type Error = Infallible;

    /// The repetition reading (I5): no question carries a game's history.
    fn kept_as_claimed(&self) -> &[Switch] {
        &[Switch::EndOnRepetition]
    }

    fn conforms_under(&mut self, profile: Profile) -> Result<bool, Infallible> {
        if profile.has(Switch::EndOnRepetition) != self.claimed.has(Switch::EndOnRepetition) {
            return Ok(false);
        }
        Ok(self
            .facts
            .iter()
            .all(|(question, answer)| compare(question, answer, profile).is_none()))
    }
}

/// The profiles under which every answer in `facts` agrees with the rules.
#[must_use]
pub fn diagnose(facts: &Facts, claimed: Profile) -> Reading {
    match name_reading(claimed, &mut Answers::new(facts, claimed)) {
        Ok(reading) => reading,
        Err(never) => match never {},
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::compare::expected;
    use crate::judge::facts::Question;
    use crate::position::Position;

    #[test]
    fn answers_given_under_skip_origin_name_skip_origin() {
        // The default with the other reading of I1, whichever the default is.
        let skip = Profile::DEFAULT.set(
            Switch::SkipOrigin,
            !Profile::DEFAULT.has(Switch::SkipOrigin),
        );
        let mut facts = Facts::default();
        let wrap: Position = "8,6,6,6/6,6,6,4 S 0/0 1---/1234".parse().unwrap();
        for question in [
            Question::Play(wrap, "S1".parse().unwrap()),
            Question::Legal(Position::initial()),
        ] {
            facts.insert(question, expected(&question, skip));
        }
        let reading = diagnose(&facts, Profile::DEFAULT);
        assert_eq!(reading.closest(), [skip]);
        assert!(
            reading
                .conforms_under
                .iter()
                .all(
                    |p| p.has(Switch::SkipOrigin) == skip.has(Switch::SkipOrigin)
                        && p.has(Switch::EndOnRepetition) == skip.has(Switch::EndOnRepetition)
                ),
            "{reading:?}"
        );
    }
}
