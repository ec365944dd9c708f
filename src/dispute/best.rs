//! Part 5: with best play. Both readings' tables are solved in memory up to
//! [`Options::solve_stones`] stones (spec/SOLVE.md), and compared state by
//! state: the fewest stones at which perfect play is worth something else,
//! how many states differ at each stone count, and examples with the best
//! moves under each reading, where best play departs.

use serde::Serialize;

use super::Options;
use crate::board::{PITS, Pit, Player, TOTAL_STONES};
use crate::position::{Position, Setup};
use crate::profile::Profile;
use crate::solve::{Budget, Class, Table, analyse, layer_size, next, unrank, value_of_the_game};

/// What best play changes.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BestPart {
    /// Why the readings were not compared with best play, if they were
    /// not (a reading no table covers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_compared: Option<String>,
    /// Whether both readings play alike after the lock, so share one table
    /// (the difference, if any, lies in the opening).
    pub same_table: bool,
    /// The most stones on the board compared.
    pub max_stones: u8,
    /// For each stone count compared: the states and how many of them have
    /// another value under the alternative.
    pub layers: Vec<LayerDiff>,
    /// The fewest stones at which some state's value differs.
    pub stones: Option<u8>,
    /// A few such states, the first in rank order.
    pub examples: Vec<BestExample>,
    /// The value of the game under each reading, in words: from
    /// `spec/solved.yaml`, where the full solve's results are kept.
    pub initial: String,
    /// The value of the game under each reading (spec/SOLVE.md, "The value
    /// of Kpé").
    pub game: GameValues,
}

/// The value of Kpé under both readings.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GameValues {
    /// Under the default reading.
    pub default: ValueOfTheGame,
    /// Under the alternative.
    pub alternative: ValueOfTheGame,
}

/// The value of the initial position under one profile, as the full solve
/// found it.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ValueOfTheGame {
    /// The profile, every setting named.
    pub profile: String,
    /// The margin South, the first player, forces with best play (South's
    /// final total minus North's); absent when it is not known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<i8>,
    /// Every first move that attains it.
    pub best: Vec<Pit>,
    /// Why there is no value, when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not: Option<String>,
}

impl ValueOfTheGame {
    fn of(profile: Profile) -> ValueOfTheGame {
        let mut out = ValueOfTheGame {
            profile: profile.explicit(),
            value: None,
            best: Vec::new(),
            why_not: None,
        };
        if let Err(e) = Class::of(profile) {
            out.why_not = Some(e.to_string());
        } else if let Some(row) = value_of_the_game(profile) {
            out.value = Some(row.value);
            out.best = row.best;
        } else {
            out.why_not = Some(format!(
                "not yet computed: `{}` computes it (spec/SOLVE.md, \"The value of Kpé\")",
                solve_command(profile)
            ));
        }
        out
    }
}

/// The command that solves the class of `profile` and both its openings.
fn solve_command(profile: Profile) -> String {
    let shared = Class::of(profile).map_or(profile, Class::profile);
    format!("kpe solve --rules {}", shared.explicit())
}

/// A margin as the reports write it: `+2`, `-2`, and `0` (no sign).
pub(super) fn margin_text(margin: i8) -> String {
    if margin == 0 {
        "0".to_owned()
    } else {
        format!("{margin:+}")
    }
}

/// The value of the game under both readings, in words.
fn initial_sentence(game: &GameValues) -> String {
    let one = |v: &ValueOfTheGame| match (v.value, &v.why_not) {
        (Some(value), _) => {
            let best: Vec<String> = v.best.iter().map(ToString::to_string).collect();
            format!(
                "{} for South (best first moves {})",
                margin_text(value),
                best.join(" ")
            )
        }
        (None, Some(why)) => format!("unknown ({why})"),
        (None, None) => "unknown".to_owned(),
    };
    format!(
        "the value of Kpé (South's margin with best play from the initial position, spec/solved.yaml): under the default {}; under the alternative {}",
        one(&game.default),
        one(&game.alternative)
    )
}

/// One stone count compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LayerDiff {
    /// Stones on the board.
    pub stones: u8,
    /// States (boards with South to move, both locks open).
    pub states: u64,
    /// States whose value differs.
    pub differing: u64,
}

/// A position whose value with best play differs.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BestExample {
    /// The position (South to move, both locks open).
    pub position: Position,
    /// Under the default reading.
    pub default: BestValue,
    /// Under the alternative.
    pub alternative: BestValue,
}

/// The value of a position under one reading.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BestValue {
    /// The margin South, to move, can force from here on.
    pub margin: i8,
    /// Whether it is an endless 0.
    pub endless: bool,
    /// Every move that attains it.
    pub best: Vec<Pit>,
}

/// Compares both readings with best play.
pub(super) fn compare(alternative: Profile, options: &Options) -> BestPart {
    let max_stones = options.solve_stones.min(TOTAL_STONES);
    let game = GameValues {
        default: ValueOfTheGame::of(Profile::DEFAULT),
        alternative: ValueOfTheGame::of(alternative),
    };
    let mut part = BestPart {
        not_compared: None,
        same_table: false,
        max_stones,
        layers: Vec::new(),
        stones: None,
        examples: Vec::new(),
        initial: initial_sentence(&game),
        game,
    };
    // A default that ends games on repetition has no table either, and
    // `Class::DEFAULT` is then another reading's (spec/SOLVE.md).
    let class = match Class::of(Profile::DEFAULT).and_then(|_| Class::of(alternative)) {
        Ok(class) => class,
        Err(e) => {
            part.not_compared = Some(e.to_string());
            return part;
        }
    };
    if class == Class::DEFAULT {
        part.same_table = true;
        return part;
    }
    let tables = [
        Table::in_memory(Class::DEFAULT, max_stones),
        Table::in_memory(class, max_stones),
    ];
    for stones in (0..=max_stones).step_by(2) {
        let mut layer = LayerDiff {
            stones,
            states: layer_size(stones),
            differing: 0,
        };
        let Some(mut board) = unrank(stones, 0) else {
            continue;
        };
        loop {
            let position = position_of(&board);
            let [a, b] = [&tables[0], &tables[1]].map(|t| t.entry(&position).ok());
            if a.map(|e| (e.margin, e.endless)) != b.map(|e| (e.margin, e.endless)) {
                layer.differing += 1;
                if part.examples.len() < options.examples && part.stones.is_none_or(|s| s == stones)
                {
                    let value = |table: &Table, profile: Profile| {
                        let analysis =
                            analyse(table, &position, profile, Budget::default()).ok()?;
                        Some(BestValue {
                            margin: analysis.margin?,
                            endless: analysis.endless,
                            best: analysis.best,
                        })
                    };
                    if let (Some(default), Some(alt)) = (
                        value(&tables[0], Profile::DEFAULT),
                        value(&tables[1], class.profile()),
                    ) {
                        part.examples.push(BestExample {
                            position,
                            default,
                            alternative: alt,
                        });
                    }
                }
            }
            if !next(&mut board) {
                break;
            }
        }
        if layer.differing > 0 && part.stones.is_none() {
            part.stones = Some(stones);
        }
        part.layers.push(layer);
    }
    part
}

/// The position of a board with South to move, both locks open, the
/// captured stones split as evenly as evenness allows.
fn position_of(board: &[u8; PITS]) -> Position {
    let off = u32::from(TOTAL_STONES) - board.iter().map(|&b| u32::from(b)).sum::<u32>();
    let south = off / 4 * 2;
    let setup = Setup {
        pits: board.iter().map(|&b| u32::from(b)).collect(),
        captured: [south, off - south],
        to_move: Player::South,
        used: [[true; 4]; 2],
    };
    Position::from_setup(&setup).expect("a board after the lock is a valid position")
}
