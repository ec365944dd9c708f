//! The report of `kpe dispute`: one value that the text and the page
//! render and `--format json` prints.

use serde::Serialize;

use super::spec::Reading;
use super::{best, perft, play, scenarios, search};
use crate::profile::Profile;

/// What turning the disputed switches on changes: the whole report of
/// `kpe dispute`, as `--format json` prints it (spec/dispute.schema.json).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[schemars(
    title = "kpe dispute report, version 1",
    description = "What turning alternative readings on changes, as `kpe dispute --format json` prints it. See spec/DISPUTE.md."
)]
#[schemars(extend("$id" = "urn:kpe:schema:dispute:3"))]
pub struct Dispute {
    /// Always `kpe-dispute`.
    pub format: String,
    /// The format version: 1.
    pub version: u32,
    /// The profile compared with the default: the default plus the
    /// disputed switches.
    pub alternative: Profile,
    /// Each disputed reading: its rule, spec paragraph and the two readings.
    pub readings: Vec<Reading>,
    /// Part 1: the conformance scenarios whose answers differ.
    pub scenarios: scenarios::ScenarioPart,
    /// Part 2: the smallest positions where the readings differ.
    pub smallest: search::SearchPart,
    /// Part 3: how much the reading matters in play.
    pub play: play::PlayPart,
    /// Part 4: perft from the initial position under both readings.
    pub perft: perft::PerftPart,
    /// Part 5: with best play.
    pub best_play: best::BestPart,
}
