//! Part 4: perft from the initial position under both readings, up to the
//! first depth where the counts part.

use serde::Serialize;

use crate::position::Position;
use crate::profile::Profile;

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

/// Counts depth by depth until the readings part or `max_depth`.
#[must_use]
pub fn compare(alternative: Profile, max_depth: u32) -> PerftPart {
    let start = Position::initial();
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
    PerftPart {
        max_depth,
        depths,
        first_difference,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_origin_parts_at_depth_five_and_stops_there() {
        let part = compare("skip-origin".parse().unwrap(), 7);
        assert_eq!(part.first_difference, Some(5));
        assert_eq!(part.depths.len(), 5);
        let last = part.depths[4];
        assert_ne!(last.default, last.alternative);
        assert_eq!(
            last.difference,
            last.alternative as i64 - last.default as i64
        );
        let none = compare("end-on-repetition".parse().unwrap(), 3);
        assert_eq!(none.first_difference, None);
        assert_eq!(none.depths.len(), 3);
    }
}
