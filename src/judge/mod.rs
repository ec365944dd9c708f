//! Judgement: what both modes of `kpe-check` stand on.
//!
//! An engine's claims, from a transcript or from live answers, are judged
//! here against the reference rules: a game is replayed ([`oracle`]), a
//! live answer is compared field by field ([`compare`]), each differing
//! field gets the rules that decide it ([`RuleSet`]), a divergence cites
//! its rule and gets a reproducing scenario ([`Divergence`]), and the
//! reading that explains an engine is named ([`name_reading`]).
//!
//! This layer imports only the rules below it; the report model
//! ([`crate::reporter`]) and both modes ([`crate::transcripts`],
//! [`crate::live`]) import it.

pub(crate) mod answers;
pub mod compare;
pub(crate) mod diagnose;
mod divergence;
mod edges;
mod facts;
pub(crate) mod oracle;
mod perft;
mod reading;
mod rules;

pub use answers::{Answers, diagnose};
pub use compare::{Agreed, Mismatch, agreement, compare, expected};
pub use divergence::{Divergence, FieldDiff, PerftClaim};
pub(crate) use edges::captured_by_open_rows;
pub use edges::{Boundary, Decides, Flip, MAX_SAMPLES, edge_positions};
pub use facts::{Answer, Facts, Question};
pub use perft::{ANY_COUNT, count_rule};
pub use reading::{
    Explanation, Nearest, NextProfile, Reading, Recheck, RuleCount, Tally, Unexplained,
    name_reading, nearest, reading_from, switch_summary, unexplained,
};
pub(crate) use rules::ReportRules;
pub use rules::{RULE_IDS, RuleSet, rule_title};
