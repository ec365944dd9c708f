//! Part 4: perft under both readings, from the initial position and from
//! each start position of the suite's perft tables (conformance/perft.yaml),
//! up to the first depth where the counts part.

use serde::Serialize;

use crate::position::Position;
use crate::profile::Profile;
use crate::scenario::Suite;

/// The perft comparison.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PerftPart {
    /// The deepest depth compared (the bound: counts grow about fourfold
    /// per ply).
    pub max_depth: u32,
    /// The counts at each depth from 1, up to the first that differs or
    /// `max_depth`.
    pub depths: Vec<PerftRow>,
    /// The first depth whose counts differ; none up to `max_depth`.
    pub first_difference: Option<u32>,
    /// The same comparison from each other start position of the suite's
    /// perft tables, to the depth the suite records for it (at most
    /// `max_depth`).
    pub from_suite: Vec<PerftFrom>,
}

/// Perft under both readings from one start position of the suite.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PerftFrom {
    /// The id of the first suite table with this start.
    pub table: String,
    /// The start position, in kpe notation.
    #[schemars(with = "String")]
    pub start: Position,
    /// The counts at each depth from 1, up to the first that differs or the
    /// deepest compared.
    pub depths: Vec<PerftRow>,
    /// The first depth whose counts differ, if any.
    pub first_difference: Option<u32>,
}

/// The counts at one depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PerftRow {
    /// Plies from the initial position.
    pub depth: u32,
    /// Move sequences of that length under the default reading.
    pub default: u64,
    /// Under the alternative.
    pub alternative: u64,
    /// `alternative - default`.
    pub difference: i64,
}

/// Counts depth by depth until the readings part or `max_depth`, from the
/// initial position and from the start of each perft table of `suite`.
#[must_use]
pub fn compare(alternative: Profile, max_depth: u32, suite: &Suite) -> PerftPart {
    let (depths, first_difference) = rows(&Position::initial(), alternative, max_depth);
    let mut from_suite: Vec<PerftFrom> = Vec::new();
    let tables = suite.perft.as_ref().map_or(&[][..], |f| &f.tables[..]);
    for table in tables {
        let Some(start) = table
            .start
            .as_ref()
            .and_then(|s| s.parse::<Position>().ok())
        else {
            continue;
        };
        if from_suite.iter().any(|f| f.start == start) {
            continue;
        }
        let deepest = tables
            .iter()
            .filter(|t| t.start == table.start)
            .map(|t| u32::try_from(t.nodes.len()).unwrap_or(u32::MAX))
            .max()
            .unwrap_or(0)
            .min(max_depth);
        let (depths, first_difference) = rows(&start, alternative, deepest);
        from_suite.push(PerftFrom {
            table: table.id.clone(),
            start,
            depths,
            first_difference,
        });
    }
    PerftPart {
        max_depth,
        depths,
        first_difference,
        from_suite,
    }
}

/// The rows from `start` up to the first differing depth or `max_depth`.
fn rows(start: &Position, alternative: Profile, max_depth: u32) -> (Vec<PerftRow>, Option<u32>) {
    let start = *start;
    let mut depths = Vec::new();
    let mut first_difference = None;
    for depth in 1..=max_depth {
        let default = crate::perft(&start, depth, Profile::DEFAULT);
        let alt = crate::perft(&start, depth, alternative);
        depths.push(PerftRow {
            depth,
            default,
            alternative: alt,
            difference: i64::try_from(alt).unwrap_or(i64::MAX)
                - i64::try_from(default).unwrap_or(i64::MAX),
        });
        if default != alt {
            first_difference = Some(depth);
            break;
        }
    }
    (depths, first_difference)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_origin_parts_at_depth_five_and_stops_there() {
        let suite = Suite::bundled().unwrap();
        let part = compare(super::super::alternative("I1").unwrap(), 7, &suite);
        assert_eq!(part.first_difference, Some(5));
        assert_eq!(part.depths.len(), 5);
        let last = part.depths[4];
        assert_ne!(last.default, last.alternative);
        assert_eq!(
            last.difference,
            last.alternative as i64 - last.default as i64
        );
        // From the suite's other start positions too, each once.
        assert!(part.from_suite.len() >= 5, "{:?}", part.from_suite);
        assert!(part.from_suite.iter().any(|f| f.first_difference.is_some()));
        for f in &part.from_suite {
            assert_eq!(
                part.from_suite
                    .iter()
                    .filter(|g| g.start == f.start)
                    .count(),
                1
            );
            assert!(f.depths.len() <= 7);
            let last = f.depths.last().unwrap();
            assert_eq!(last.depth as usize, f.depths.len());
            assert_eq!(
                crate::perft(&f.start, last.depth, Profile::DEFAULT),
                last.default
            );
        }
        let none = compare(super::super::alternative("I5").unwrap(), 3, &suite);
        assert_eq!(none.first_difference, None);
        assert_eq!(none.depths.len(), 3);
    }
}
