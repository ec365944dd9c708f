//! The finished units of a live run, in plan order, kept on disk: the
//! scheduler hands each unit here as soon as every unit before it in the
//! plan is done, and drops it. What stays in memory is what the passes
//! after the run need of all units at once and what does not grow with
//! `--games`: the groups of failing units, the rules exercised, whether
//! each profile diverged, and the first wrong answer of each diverging
//! unit (at most [`crate::reporter::MAX_DIVERGING_GAMES`] random games a
//! profile, and the suite's units), for shrinking. Naming the reading and
//! writing the report read the units back one at a time
//! ([`Finished::each`]).

use std::fs::File;
use std::io::{self, BufRead as _, Seek as _, SeekFrom, Write as _};

use super::shrink::Diverging;
use super::spool::{Spooled, facts_of, lines_of};
use crate::judge::{Answer, Divergence, Question, RuleSet};
use crate::profile::Profile;
use crate::protocol::{Reply, Request};
use crate::reporter::{Groups, UnitResult, Verdict};

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
    pub spooled: Option<Spooled>,
    /// Which profile of the run.
    pub profile_index: usize,
}

impl Done {
    /// A unit done with no answers to keep (skipped, or its engine did not
    /// answer).
    pub fn without_answers(result: UnitResult, profile_index: usize) -> Done {
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

/// One finished unit as the passes after the run read it back.
#[derive(Clone, Debug, PartialEq)]
pub struct Stored {
    /// The result, normalized by the stopping rules.
    pub result: UnitResult,
    /// Whether it has a first wrong answer (a unit that diverged on
    /// something its answers do not show has none).
    pub found: bool,
    /// Its own questions and answers, in the run's fact spool.
    pub spooled: Option<Spooled>,
    /// Questions and answers that could not be spooled.
    pub facts: Vec<(Question, Answer)>,
    /// Which profile of the run.
    pub profile_index: usize,
}

/// A [`Stored`] as one line of the file.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    result: UnitResult,
    /// `result.time`'s bits: a float read back from JSON text may differ
    /// in its last bit.
    time: u64,
    found: bool,
    spooled: Option<Spooled>,
    facts: Vec<(Request, Reply)>,
    profile_index: usize,
}

/// A diverging unit's first wrong answer, kept for shrinking.
pub struct Example {
    /// The profile its result names.
    pub profile: Option<Profile>,
    /// Its id.
    pub id: String,
    /// Which profile of the run.
    pub profile_index: usize,
    /// The first wrong answer.
    pub found: Box<Diverging>,
    /// Its divergence as reported.
    pub divergence: Box<Divergence>,
}

/// Where the finished units are.
enum Store {
    /// A temporary file, one JSON line a unit.
    File(io::BufWriter<File>),
    /// In memory, when no temporary file could be made.
    Memory(Vec<Stored>),
}

/// The finished units of a run, in plan order.
pub struct Finished {
    store: Store,
    /// The first error writing the file (the run goes on; the report
    /// cannot be written).
    error: Option<io::Error>,
    units: u64,
    /// The groups of the failing units.
    pub groups: Groups,
    /// The rules the units' conforming answers exercised.
    pub rules: RuleSet,
    diverged: Vec<bool>,
    /// The first wrong answer of each diverging unit, in plan order.
    pub examples: Vec<Example>,
}

impl Finished {
    /// No unit yet; the file in the temporary folder.
    #[must_use]
    pub fn new() -> Finished {
        let store = match tempfile::tempfile() {
            Ok(file) => Store::File(io::BufWriter::new(file)),
            Err(_) => Store::Memory(Vec::new()),
        };
        Finished {
            store,
            error: None,
            units: 0,
            groups: Groups::default(),
            rules: RuleSet::new(),
            diverged: Vec::new(),
            examples: Vec::new(),
        }
    }

    /// Takes `done`, the next unit in plan order, and drops it.
    pub fn push(&mut self, done: Done) {
        let Done {
            result,
            found,
            rules,
            facts,
            spooled,
            profile_index,
        } = done;
        self.units += 1;
        self.groups.add(&result);
        self.rules.extend(rules);
        if result.verdict == Verdict::Diverges {
            if self.diverged.len() <= profile_index {
                self.diverged.resize(profile_index + 1, false);
            }
            self.diverged[profile_index] = true;
        }
        if let (Verdict::Diverges, Some(found), Some(divergence)) =
            (result.verdict, &found, &result.divergence)
        {
            self.examples.push(Example {
                profile: result.profile,
                id: result.id.clone(),
                profile_index,
                found: found.clone(),
                divergence: divergence.clone(),
            });
        }
        let stored = Stored {
            result,
            found: found.is_some(),
            spooled,
            facts,
            profile_index,
        };
        match &mut self.store {
            Store::Memory(units) => units.push(stored),
            Store::File(w) => {
                if self.error.is_some() {
                    return;
                }
                let line = Line {
                    time: stored.result.time.to_bits(),
                    facts: lines_of(&stored.facts),
                    found: stored.found,
                    spooled: stored.spooled,
                    profile_index,
                    result: stored.result,
                };
                let written = serde_json::to_writer(&mut *w, &line)
                    .map_err(io::Error::from)
                    .and_then(|()| w.write_all(b"\n"));
                if let Err(e) = written {
                    self.error = Some(e);
                }
            }
        }
    }

    /// Whether a unit of profile `index` diverged.
    #[must_use]
    pub fn diverged(&self, index: usize) -> bool {
        self.diverged.get(index).copied().unwrap_or(false)
    }

    /// Calls `f` with each unit, in plan order.
    ///
    /// # Errors
    ///
    /// The file could not be written or read back, or `f`'s error.
    pub fn each(&mut self, mut f: impl FnMut(Stored) -> io::Result<()>) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            let again = io::Error::new(e.kind(), e.to_string());
            self.error = Some(e);
            return Err(named(again));
        }
        let w = match &mut self.store {
            Store::Memory(units) => return units.iter().cloned().try_for_each(f),
            Store::File(w) => w,
        };
        w.flush().map_err(named)?;
        let file = w.get_ref().try_clone().map_err(named)?;
        let read = Finished::read(file, self.units, &mut f);
        // The next writes go at the end, where they belong.
        w.get_mut().seek(SeekFrom::End(0)).map_err(named)?;
        read
    }

    /// Reads `units` units from the start of `file`, calling `f` with each.
    fn read(
        mut file: File,
        units: u64,
        f: &mut impl FnMut(Stored) -> io::Result<()>,
    ) -> io::Result<()> {
        file.seek(SeekFrom::Start(0)).map_err(named)?;
        let mut reader = io::BufReader::new(file);
        let mut text = String::new();
        let mut read = 0;
        while read < units {
            text.clear();
            if reader.read_line(&mut text).map_err(named)? == 0 {
                return Err(named(io::Error::other("the file ends early")));
            }
            let line: Line = serde_json::from_str(&text).map_err(|e| named(e.into()))?;
            let mut result = line.result;
            result.time = f64::from_bits(line.time);
            f(Stored {
                result,
                found: line.found,
                spooled: line.spooled,
                facts: facts_of(line.facts).map_err(named)?,
                profile_index: line.profile_index,
            })?;
            read += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
impl Finished {
    /// No unit yet, kept in memory (as when no temporary file can be made).
    fn in_memory() -> Finished {
        Finished {
            store: Store::Memory(Vec::new()),
            ..Finished::new()
        }
    }
}

/// An error of the finished units' file, so named.
fn named(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("the finished units: {e}"))
}

impl Default for Finished {
    fn default() -> Finished {
        Finished::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    fn done(id: &str, verdict_time: f64, facts: Vec<(Question, Answer)>) -> Done {
        let mut result = UnitResult::conforming("random-game", id.to_owned(), None, 3);
        result.time = verdict_time;
        result.seq = Some(7);
        Done {
            result,
            found: None,
            rules: RuleSet::new(),
            facts,
            spooled: None,
            profile_index: 1,
        }
    }

    #[test]
    fn units_come_back_in_order_as_they_were_taken() {
        let p = Position::initial();
        let pit = "S1".parse().unwrap();
        let facts = vec![(Question::Play(p, pit), Answer::Illegal("no".to_owned()))];
        for mut finished in [Finished::new(), Finished::in_memory()] {
            // A time whose shortest decimal text might not read back
            // exactly.
            finished.push(done("random/0", 0.1 + 0.2, facts.clone()));
            finished.push(done("random/1", 1e-7, Vec::new()));
            units_come_back(&mut finished, &facts);
        }
    }

    fn units_come_back(finished: &mut Finished, facts: &[(Question, Answer)]) {
        for _ in 0..2 {
            let mut back = Vec::new();
            finished
                .each(|s| {
                    back.push(s);
                    Ok(())
                })
                .unwrap();
            assert_eq!(back.len(), 2);
            assert_eq!(back[0].result.id, "random/0");
            assert_eq!(back[0].result.time.to_bits(), (0.1f64 + 0.2).to_bits());
            assert_eq!(back[0].facts, facts);
            assert_eq!(back[0].profile_index, 1);
            assert_eq!(back[1].result, done("random/1", 1e-7, Vec::new()).result);
        }
        assert!(!finished.diverged(1));
    }
}
