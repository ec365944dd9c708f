//! Players and pits: the fixed geometry of the board (rules BOARD-1 to BOARD-4).

use std::fmt;
use std::str::FromStr;

/// Number of pits on the board (BOARD-1: two rows of four).
pub const PITS: usize = 8;
/// Pits in one player's row (BOARD-1).
pub const ROW: usize = 4;
/// Stones in each pit at the start (BOARD-3).
pub const START_STONES: u8 = 6;
/// Stones in the game: board plus captured, always (BOARD-3).
pub const TOTAL_STONES: u8 = 48;

/// CAP-1, CAP-2: the counts a capture takes: an opponent's pit brought to
/// (or, along the chain, holding) exactly one of these is captured. Stated
/// here, below both the rules (src/rules.rs, `capture`) and the positions,
/// because position validity derives from it.
///
/// Every size is even, so every captured total is even ([`CAPTURES_ARE_EVEN`]).
/// Three places rely on that, and say so: position validity refuses an odd
/// captured count (`odd-captured`, src/position.rs); the solver builds only
/// the layers with an even number of stones on the board, whose margins are
/// even (src/solve/build.rs, src/solve/entry.rs); and its un-move
/// (src/solve/moves.rs) takes these sizes as the captures a quiet move
/// cannot have ended on.
pub const CAPTURE_SIZES: [u8; 2] = [2, 4];

/// Whether every capture size is even, so that every captured total is
/// (CAP-1, CAP-2): the premise of the `odd-captured` check of a position.
pub const CAPTURES_ARE_EVEN: bool = {
    let mut k = 0;
    while k < CAPTURE_SIZES.len() && CAPTURE_SIZES[k].is_multiple_of(2) {
        k += 1;
    }
    k == CAPTURE_SIZES.len()
};

/// Whether a pit holding `stones` is taken by a capture (CAP-1, CAP-2).
#[must_use]
pub const fn is_capture_size(stones: u8) -> bool {
    let mut k = 0;
    while k < CAPTURE_SIZES.len() {
        if CAPTURE_SIZES[k] == stones {
            return true;
        }
        k += 1;
    }
    false
}

/// One of the two players.
///
/// South is the player who moves first from the initial position (BOARD-5);
/// a position always says whose turn it is.
///
/// In files a player is written `S` or `N`.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
pub enum Player {
    /// Owns pits `S1`..`S4` (board indices 0..3).
    #[serde(rename = "S")]
    South,
    /// Owns pits `N1`..`N4` (board indices 4..7).
    #[serde(rename = "N")]
    North,
}

impl Player {
    /// Both players, South first.
    pub const BOTH: [Player; 2] = [Player::South, Player::North];

    /// The other player.
    #[must_use]
    pub const fn opponent(self) -> Player {
        match self {
            Player::South => Player::North,
            Player::North => Player::South,
        }
    }

    /// 0 for South, 1 for North: the index used for per-player arrays.
    #[must_use]
    pub const fn index(self) -> usize {
        match self {
            Player::South => 0,
            Player::North => 1,
        }
    }

    /// The letter used in notation: `S` or `N`.
    #[must_use]
    pub const fn letter(self) -> char {
        match self {
            Player::South => 'S',
            Player::North => 'N',
        }
    }

    /// The player's four pits, numbered 1 to 4 from their own left (BOARD-4),
    /// which is also the order in which their sowing runs along the row.
    #[must_use]
    pub const fn pits(self) -> [Pit; 4] {
        let base = (self.index() * ROW) as u8;
        [Pit(base), Pit(base + 1), Pit(base + 2), Pit(base + 3)]
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::South => "South",
            Player::North => "North",
        })
    }
}

/// One of the eight pits, named `S1`..`S4` and `N1`..`N4` (BOARD-4).
///
/// Internally a board index 0..8 in sowing order: South's pits 1-4 are 0-3,
/// North's pits 1-4 are 4-7, and sowing always goes from index `i` to
/// `(i + 1) % 8` (SOW-3).
///
/// In files a pit is its name, read and written through `FromStr` and
/// `Display`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pit(u8);

crate::as_text::serde_as_text!(Pit);

impl Pit {
    /// Every pit in board order: `S1`..`S4`, then `N1`..`N4`.
    pub const ALL: [Pit; PITS] = [
        Pit(0),
        Pit(1),
        Pit(2),
        Pit(3),
        Pit(4),
        Pit(5),
        Pit(6),
        Pit(7),
    ];

    /// The pit at board index `index` (0..8), or `None` when out of range.
    #[must_use]
    pub const fn from_index(index: usize) -> Option<Pit> {
        if index < PITS {
            Some(Pit(index as u8))
        } else {
            None
        }
    }

    /// The pit whose name (`S1`..`S4`, `N1`..`N4`) is the bytes `side`
    /// then `digit`; `None` for any other bytes.
    ///
    /// ```
    /// use kpe::Pit;
    /// assert_eq!(Pit::from_name_bytes(b'N', b'3'), "N3".parse().ok());
    /// assert_eq!(Pit::from_name_bytes(b'S', b'5'), None);
    /// ```
    #[must_use]
    pub const fn from_name_bytes(side: u8, digit: u8) -> Option<Pit> {
        let player = match side {
            b'S' => Player::South,
            b'N' => Player::North,
            _ => return None,
        };
        match digit {
            b'1'..=b'4' => Pit::of(player, digit - b'0'),
            _ => None,
        }
    }

    /// A player's pit by its number 1..=4 (BOARD-4), or `None` when out of range.
    #[must_use]
    pub const fn of(player: Player, number: u8) -> Option<Pit> {
        if number >= 1 && number <= 4 {
            Some(Pit((player.index() * ROW) as u8 + number - 1))
        } else {
            None
        }
    }

    /// The board index, 0..8.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The player whose row this pit is in (BOARD-2).
    #[must_use]
    pub const fn owner(self) -> Player {
        if self.0 < ROW as u8 {
            Player::South
        } else {
            Player::North
        }
    }

    /// The pit's number 1..=4 in its owner's row, counted from the owner's left.
    #[must_use]
    pub const fn number(self) -> u8 {
        self.0 % ROW as u8 + 1
    }

    /// The next pit in sowing order (SOW-3): counter-clockwise seen from above.
    #[must_use]
    pub const fn next(self) -> Pit {
        Pit((self.0 + 1) % PITS as u8)
    }

    /// The pit before this one in sowing order (used to walk a capture chain
    /// backward, CAP-2).
    #[must_use]
    pub const fn prev(self) -> Pit {
        Pit((self.0 + PITS as u8 - 1) % PITS as u8)
    }
}

impl fmt::Display for Pit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.owner().letter(), self.number())
    }
}

/// Why a pit name could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsePitError {
    input: String,
}

impl fmt::Display for ParsePitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a pit: expected S1..S4 or N1..N4 (BOARD-4)",
            self.input.escape_debug()
        )
    }
}

impl std::error::Error for ParsePitError {}

impl FromStr for Pit {
    type Err = ParsePitError;

    /// Reads `S1`..`S4` or `N1`..`N4` (upper case only, as everywhere in
    /// kpe's formats).
    fn from_str(s: &str) -> Result<Pit, ParsePitError> {
        let err = || ParsePitError {
            input: s.to_owned(),
        };
        match *s.as_bytes() {
            [side, digit] => Pit::from_name_bytes(side, digit).ok_or_else(err),
            _ => Err(err()),
        }
    }
}

impl schemars::JsonSchema for Pit {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Pit".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[SN][1-4]$",
            "description": "A pit: S1..S4 (South's row) or N1..N4 (North's row), numbered from the owner's left."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CAP-1, CAP-2: a capture takes exactly the pits of 2 or 4, both
    /// even, so captured totals are even (position validity relies on it).
    #[test]
    fn capture_sizes_are_two_and_four_and_even() {
        let taken: Vec<u8> = (0..=48).filter(|&n| is_capture_size(n)).collect();
        assert_eq!(taken, CAPTURE_SIZES);
        assert_eq!(CAPTURE_SIZES, [2, 4]);
        const { assert!(CAPTURES_ARE_EVEN) };
    }

    #[test]
    fn sowing_order_crosses_between_rows() {
        // SOW-3: South's pit 4 feeds North's pit 1, North's pit 4 feeds South's pit 1.
        assert_eq!(Pit::of(Player::South, 4).unwrap().next().to_string(), "N1");
        assert_eq!(Pit::of(Player::North, 4).unwrap().next().to_string(), "S1");
        assert_eq!("S1".parse::<Pit>().unwrap().prev().to_string(), "N4");
    }

    #[test]
    fn pit_names_round_trip() {
        for pit in Pit::ALL {
            assert_eq!(pit.to_string().parse::<Pit>().unwrap(), pit);
        }
        for bad in ["", "S", "S0", "S5", "X1", "S12", "1S", "Sé", "s1", "n4"] {
            assert!(bad.parse::<Pit>().is_err(), "{bad}");
        }
    }

    #[test]
    fn from_index_accepts_exactly_the_eight_board_indices() {
        for (i, pit) in Pit::ALL.into_iter().enumerate() {
            assert_eq!(Pit::from_index(i), Some(pit));
            assert_eq!(pit.index(), i);
        }
        assert_eq!(Pit::from_index(PITS), None);
        assert_eq!(Pit::from_index(usize::MAX), None);
    }
}
