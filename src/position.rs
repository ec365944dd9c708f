//! A position, its one-line notation and its diagram.
//!
//! Untrusted data is kept apart from validated state: [`Setup`] is "a not
//! necessarily legal position" as read from outside, and becomes a
//! [`Position`] only through [`Position::from_setup`], which checks it.

use std::fmt;
use std::str::FromStr;

use crate::board::{PITS, Pit, Player, ROW, START_STONES, TOTAL_STONES};

/// A validated Kpé position: the eight pits, the stones each player has
/// captured, whose turn it is, and which of their own pits each player has
/// started a move from (LOCK-1).
///
/// Written in notation (its `Display`; see `spec/NOTATION.md`) as
/// `S1,S2,S3,S4/N1,N2,N3,N4 side capturedS/capturedN usedS/usedN`:
///
/// ```
/// use kpe::Position;
/// let start = Position::initial();
/// assert_eq!(start.to_string(), "6,6,6,6/6,6,6,6 S 0/0 ----/----");
/// assert_eq!("6,6,6,6/6,6,6,6 S 0/0 ----/----".parse::<Position>().unwrap(), start);
/// ```
///
/// In files a position is its notation string, validated when read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) pits: [u8; PITS],
    pub(crate) captured: [u8; 2],
    pub(crate) to_move: Player,
    /// Bit `k` of `used[p]` is set once player `p` has started a move from
    /// their pit `k + 1`.
    pub(crate) used: [u8; 2],
}

crate::as_text::serde_as_text!(Position);

impl Position {
    /// The start of the game (BOARD-3): six stones in every pit, nothing
    /// captured, no pit used, South to move (BOARD-5).
    #[must_use]
    pub const fn initial() -> Position {
        Position {
            pits: [START_STONES; PITS],
            captured: [0; 2],
            to_move: Player::South,
            used: [0; 2],
        }
    }

    /// Checks outside data and turns it into a position.
    ///
    /// # Errors
    ///
    /// Returns a [`PositionError`] naming the first thing that makes `setup`
    /// impossible: a wrong number of pits, a count out of range, a stone total
    /// other than 48, an odd or premature capture count, a never-used pit
    /// holding fewer than 6 stones, or a side to move that contradicts the
    /// used pits.
    pub fn from_setup(setup: &Setup) -> Result<Position, PositionError> {
        if setup.pits.len() != PITS {
            return Err(PositionError::PitCount {
                found: setup.pits.len(),
            });
        }
        let mut pits = [0u8; PITS];
        for (i, &count) in setup.pits.iter().enumerate() {
            let pit = Pit::ALL[i];
            pits[i] = u8::try_from(count)
                .ok()
                .filter(|&c| c <= TOTAL_STONES)
                .ok_or(PositionError::PitOutOfRange { pit, count })?;
        }
        let mut captured = [0u8; 2];
        for player in Player::BOTH {
            let count = setup.captured[player.index()];
            captured[player.index()] = u8::try_from(count)
                .ok()
                .filter(|&c| c <= TOTAL_STONES)
                .ok_or(PositionError::CapturedOutOfRange { player, count })?;
        }
        let board: u32 = pits.iter().map(|&c| u32::from(c)).sum();
        let taken: u32 = captured.iter().map(|&c| u32::from(c)).sum();
        if board + taken != u32::from(TOTAL_STONES) {
            return Err(PositionError::WrongTotal {
                board,
                captured: taken,
            });
        }
        let used = [mask(setup.used[0]), mask(setup.used[1])];
        let position = Position {
            pits,
            captured,
            to_move: setup.to_move,
            used,
        };
        for player in Player::BOTH {
            let c = position.captured(player);
            // CAP-1, CAP-2: every capture takes an even count
            // (`board::CAPTURE_SIZES`), so no game reaches an odd total.
            if crate::board::CAPTURES_ARE_EVEN && !c.is_multiple_of(2) {
                return Err(PositionError::OddCaptured { player, count: c });
            }
            if c > 0 && !position.lock_open(player) {
                return Err(PositionError::CapturedWhileLocked { player, count: c });
            }
            for pit in player.pits() {
                if !position.has_used(pit) && position.stones(pit) < START_STONES {
                    return Err(PositionError::UnusedPitTooLow {
                        pit,
                        count: position.stones(pit),
                    });
                }
            }
        }
        let mover = setup.to_move;
        if position.used[mover.index()] != 0 && position.used[mover.opponent().index()] == 0 {
            return Err(PositionError::SideToMove { to_move: mover });
        }
        let south = Player::South.index();
        let north = Player::North.index();
        if position.used[south] == 0 && (mover == Player::North || position.used[north] != 0) {
            return Err(PositionError::SouthFirst { to_move: mover });
        }
        Ok(position)
    }

    /// The plain data of this position, for editing or serialising.
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        let used = |p: Player| {
            let mut u = [false; ROW];
            for (k, slot) in u.iter_mut().enumerate() {
                *slot = self.used[p.index()] & (1 << k) != 0;
            }
            u
        };
        Setup {
            pits: self.pits.iter().map(|&c| u32::from(c)).collect(),
            captured: [self.captured[0].into(), self.captured[1].into()],
            to_move: self.to_move,
            used: [used(Player::South), used(Player::North)],
        }
    }

    /// Stones in `pit`.
    #[must_use]
    pub const fn stones(&self, pit: Pit) -> u8 {
        self.pits[pit.index()]
    }

    /// All eight pit counts in board order `S1..S4, N1..N4`.
    #[must_use]
    pub const fn pits(&self) -> [u8; PITS] {
        self.pits
    }

    /// Stones `player` has captured so far (not counting the end sweep).
    #[must_use]
    pub const fn captured(&self, player: Player) -> u8 {
        self.captured[player.index()]
    }

    /// The player to move.
    #[must_use]
    pub const fn to_move(&self) -> Player {
        self.to_move
    }

    /// Whether the owner of `pit` has ever started a move from it (LOCK-2).
    #[must_use]
    pub const fn has_used(&self, pit: Pit) -> bool {
        self.used[pit.owner().index()] & (1 << (pit.number() - 1)) != 0
    }

    /// Whether `player` has started a move from each of their four pits, so
    /// that their captures are unlocked (LOCK-1).
    #[must_use]
    pub const fn lock_open(&self, player: Player) -> bool {
        self.used[player.index()] == 0b1111
    }

    /// Stones lying in `player`'s row.
    #[must_use]
    pub fn row_stones(&self, player: Player) -> u8 {
        player.pits().iter().map(|&p| self.stones(p)).sum()
    }

    /// Stones on the board (both rows).
    #[must_use]
    pub fn board_stones(&self) -> u8 {
        self.pits.iter().sum()
    }

    /// The board diagram for people: North's row on top, read from South's
    /// side, with arrows showing the counter-clockwise sowing (SOW-3).
    ///
    /// ```
    /// let d = kpe::Position::initial().diagram();
    /// assert!(d.contains("North"));
    /// ```
    #[must_use]
    pub fn diagram(&self) -> String {
        let n = |k: u8| self.pits[ROW + usize::from(k) - 1];
        let s = |k: u8| self.pits[usize::from(k) - 1];
        let used = |p: Player| used_marks(self.used[p.index()]).iter().collect::<String>();
        let marker = |p: Player| {
            if self.to_move == p {
                "  <- to move"
            } else {
                ""
            }
        };
        format!(
            "          N4    N3    N2    N1\n\
             North  [{:>2}] < [{:>2}] < [{:>2}] < [{:>2}]   captured {:>2}  used {}{}\n\
             \x20        v                       ^\n\
             South  [{:>2}] > [{:>2}] > [{:>2}] > [{:>2}]   captured {:>2}  used {}{}\n\
             \x20         S1    S2    S3    S4\n",
            n(4),
            n(3),
            n(2),
            n(1),
            self.captured[1],
            used(Player::North),
            marker(Player::North),
            s(1),
            s(2),
            s(3),
            s(4),
            self.captured[0],
            used(Player::South),
            marker(Player::South),
        )
    }

    pub(crate) fn mark_used(&mut self, pit: Pit) {
        self.used[pit.owner().index()] |= 1 << (pit.number() - 1);
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::initial()
    }
}

fn mask(used: [bool; ROW]) -> u8 {
    used.iter()
        .enumerate()
        .fold(0, |m, (k, &u)| if u { m | 1 << k } else { m })
}

/// The used-pits field of one side in the notation: `12-4` means pits 1,
/// 2 and 4 used.
fn used_marks(mask: u8) -> [char; ROW] {
    std::array::from_fn(|k| {
        if mask & (1 << k) != 0 {
            char::from(b'1' + k as u8)
        } else {
            '-'
        }
    })
}

/// The notation being written: bytes, and how many so far.
struct Notation {
    bytes: [u8; NOTATION_MAX],
    len: usize,
}

impl Notation {
    fn push(&mut self, byte: u8) {
        self.bytes[self.len] = byte;
        self.len += 1;
    }

    /// Appends `n` in decimal.
    fn number(&mut self, n: u8) {
        if n >= 100 {
            self.push(b'0' + n / 100);
        }
        if n >= 10 {
            self.push(b'0' + n / 10 % 10);
        }
        self.push(b'0' + n % 10);
    }
}

/// The longest notation [`Position`]'s `Display` can write: 8 pit counts
/// and 2 captured counts of up to 3 digits, 13 separators, the side and 8
/// used marks.
const NOTATION_MAX: usize = 10 * 3 + 13 + 1 + 8;

impl fmt::Display for Position {
    /// The one-line notation, e.g. `6,6,6,6/6,6,6,6 S 0/0 ----/----`:
    /// made in a buffer of bytes and written at once (a request holds one,
    /// and each part written on its own, or each character pushed as a
    /// `char`, costs more than the rest of it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const AFTER_PIT: [u8; PITS] = *b",,,/,,, ";
        let mut out = Notation {
            bytes: [0; NOTATION_MAX],
            len: 0,
        };
        for (&count, sep) in self.pits.iter().zip(AFTER_PIT) {
            out.number(count);
            out.push(sep);
        }
        // Letters, digits and marks: ASCII throughout.
        out.push(self.to_move.letter() as u8);
        out.push(b' ');
        out.number(self.captured[0]);
        out.push(b'/');
        out.number(self.captured[1]);
        out.push(b' ');
        for (side, &mask) in self.used.iter().enumerate() {
            if side == 1 {
                out.push(b'/');
            }
            for mark in used_marks(mask) {
                out.push(mark as u8);
            }
        }
        f.write_str(std::str::from_utf8(&out.bytes[..out.len]).map_err(|_| fmt::Error)?)
    }
}

/// A position as read from outside, not yet checked: plain data with any
/// number of pits and any counts. [`Position::from_setup`] validates it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Pit counts in board order `S1..S4, N1..N4` (must be exactly 8).
    pub pits: Vec<u32>,
    /// Stones captured by South and by North.
    pub captured: [u32; 2],
    /// The player to move.
    pub to_move: Player,
    /// For South then North: whether each of their pits 1..4 has been used.
    pub used: [[bool; ROW]; 2],
}

/// Why a position was rejected: unreadable notation, or data that no game
/// could reach.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PositionError {
    /// The notation text does not have the expected shape at `column`
    /// (1-based, in characters).
    Syntax {
        /// 1-based character column where reading failed.
        column: usize,
        /// What the notation needs at that point.
        expected: &'static str,
        /// What was found there (possibly empty at end of input).
        found: String,
    },
    /// Not exactly eight pits (BOARD-1).
    PitCount {
        /// Number of pits given.
        found: usize,
    },
    /// A pit count above 48 (BOARD-3).
    PitOutOfRange {
        /// The pit.
        pit: Pit,
        /// Its count as given.
        count: u32,
    },
    /// A captured count above 48 (BOARD-3).
    CapturedOutOfRange {
        /// Whose count.
        player: Player,
        /// The count as given.
        count: u32,
    },
    /// Board plus captured stones is not 48 (BOARD-3).
    WrongTotal {
        /// Stones on the board.
        board: u32,
        /// Stones captured by both players.
        captured: u32,
    },
    /// Every capture takes 2 or 4 stones (CAP-1, CAP-2:
    /// `board::CAPTURE_SIZES`), so a captured total is even.
    OddCaptured {
        /// Whose count.
        player: Player,
        /// The odd count.
        count: u8,
    },
    /// A player with stones captured has not used all four pits (LOCK-1).
    CapturedWhileLocked {
        /// The player.
        player: Player,
        /// Their captured count.
        count: u8,
    },
    /// A pit its owner never started a move from only ever gains stones, so it
    /// holds at least 6 (BOARD-3, LOCK-2).
    UnusedPitTooLow {
        /// The pit.
        pit: Pit,
        /// Its count.
        count: u8,
    },
    /// The player to move has used pits while the opponent has used none, so
    /// the opponent missed a turn (SOW-1).
    SideToMove {
        /// The side to move as given.
        to_move: Player,
    },
    /// South has used no pit, yet North is to move or has used pits: South
    /// is the player who moves first (BOARD-5), so South must have moved.
    SouthFirst {
        /// The side to move as given.
        to_move: Player,
    },
}

impl PositionError {
    /// The error code used in scenario files and reports: `syntax`,
    /// `pit-count`, `pit-out-of-range`, `captured-out-of-range`,
    /// `wrong-total`, `odd-captured`, `captured-while-locked`,
    /// `unused-pit-too-low`, `side-to-move` or `south-first`.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            PositionError::Syntax { .. } => "syntax",
            PositionError::PitCount { .. } => "pit-count",
            PositionError::PitOutOfRange { .. } => "pit-out-of-range",
            PositionError::CapturedOutOfRange { .. } => "captured-out-of-range",
            PositionError::WrongTotal { .. } => "wrong-total",
            PositionError::OddCaptured { .. } => "odd-captured",
            PositionError::CapturedWhileLocked { .. } => "captured-while-locked",
            PositionError::UnusedPitTooLow { .. } => "unused-pit-too-low",
            PositionError::SideToMove { .. } => "side-to-move",
            PositionError::SouthFirst { .. } => "south-first",
        }
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Syntax {
                column,
                expected,
                found,
            } => {
                if found.is_empty() {
                    write!(f, "column {column}: expected {expected}, found end of text")
                } else {
                    write!(
                        f,
                        "column {column}: expected {expected}, found `{}`",
                        found.escape_debug()
                    )
                }
            }
            PositionError::PitCount { found } => {
                write!(f, "expected 8 pits (BOARD-1), found {found}")
            }
            PositionError::PitOutOfRange { pit, count } => {
                write!(
                    f,
                    "pit {pit} holds {count} stones: at most 48 exist (BOARD-3)"
                )
            }
            PositionError::CapturedOutOfRange { player, count } => write!(
                f,
                "{player} has captured {count} stones: at most 48 exist (BOARD-3)"
            ),
            PositionError::WrongTotal { board, captured } => write!(
                f,
                "stones on the board ({board}) plus captured ({captured}) make {}, expected 48 (BOARD-3)",
                board + captured
            ),
            PositionError::OddCaptured { player, count } => write!(
                f,
                "{player} has captured {count} stones: captures take 2 or 4 at a time, so the count must be even (CAP-1)"
            ),
            PositionError::CapturedWhileLocked { player, count } => write!(
                f,
                "{player} has captured {count} stones but has not started a move from all four pits, so could not have captured (LOCK-1)"
            ),
            PositionError::UnusedPitTooLow { pit, count } => write!(
                f,
                "pit {pit} was never used by its owner yet holds {count} stones: an unused pit only gains stones, so it holds at least 6 (LOCK-2)"
            ),
            PositionError::SideToMove { to_move } => write!(
                f,
                "{to_move} is to move and has used pits, but {} has used none: turns alternate, so {} must have moved (SOW-1)",
                to_move.opponent(),
                to_move.opponent()
            ),
            PositionError::SouthFirst {
                to_move: Player::North,
            } => f.write_str(
                "North is to move but South has used no pit: South is the player who moves first (BOARD-5), so South must have moved",
            ),
            PositionError::SouthFirst { .. } => f.write_str(
                "North has used pits but South has used none: South is the player who moves first (BOARD-5), so South must have moved before North",
            ),
        }
    }
}

impl std::error::Error for PositionError {}

/// A small cursor over the notation text that reports 1-based columns.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Reader<'a> {
    fn column(&self) -> usize {
        self.text[..self.pos].chars().count() + 1
    }

    fn error(&self, expected: &'static str) -> PositionError {
        let rest = &self.text[self.pos..];
        let found: String = rest
            .chars()
            .take_while(|c| !c.is_whitespace() && !",/".contains(*c))
            .take(12)
            .collect();
        let found = if found.is_empty() {
            rest.chars().take(1).collect()
        } else {
            found
        };
        PositionError::Syntax {
            column: self.column(),
            expected,
            found,
        }
    }

    fn number(&mut self, expected: &'static str) -> Result<u32, PositionError> {
        let rest = &self.text[self.pos..];
        let len = rest.bytes().take_while(u8::is_ascii_digit).count();
        // Canonical form: at most 3 digits and no leading zeros, so that
        // reading and printing give the same text back.
        if len == 0 || len > 3 || (len > 1 && rest.starts_with('0')) {
            return Err(self.error(expected));
        }
        let n = rest[..len].parse().map_err(|_| self.error(expected))?;
        self.pos += len;
        Ok(n)
    }

    fn literal(&mut self, c: char, expected: &'static str) -> Result<(), PositionError> {
        if self.text[self.pos..].starts_with(c) {
            self.pos += c.len_utf8();
            Ok(())
        } else {
            Err(self.error(expected))
        }
    }

    fn side(&mut self) -> Result<Player, PositionError> {
        let player = self.text[self.pos..]
            .chars()
            .next()
            .and_then(|c| match c {
                'S' => Some(Player::South),
                'N' => Some(Player::North),
                _ => None,
            })
            .ok_or_else(|| self.error("the side to move, `S` or `N`"))?;
        self.pos += 1;
        Ok(player)
    }

    fn used(&mut self) -> Result<[bool; ROW], PositionError> {
        let mut used = [false; ROW];
        for (k, slot) in used.iter_mut().enumerate() {
            let digit = char::from(b'1' + k as u8);
            let expected = match k {
                0 => "`1` or `-` (pit 1 used or not)",
                1 => "`2` or `-` (pit 2 used or not)",
                2 => "`3` or `-` (pit 3 used or not)",
                _ => "`4` or `-` (pit 4 used or not)",
            };
            match self.text[self.pos..].chars().next() {
                Some(c) if c == digit => *slot = true,
                Some('-') => {}
                _ => return Err(self.error(expected)),
            }
            self.pos += 1;
        }
        Ok(used)
    }

    fn end(&self) -> Result<(), PositionError> {
        if self.pos == self.text.len() {
            Ok(())
        } else {
            Err(self.error("end of the position"))
        }
    }
}

impl FromStr for Setup {
    type Err = PositionError;

    /// Reads the notation's shape without checking that the position is
    /// reachable; see [`Position::from_str`] for the checked version.
    fn from_str(text: &str) -> Result<Setup, PositionError> {
        let mut r = Reader { text, pos: 0 };
        let mut pits = Vec::with_capacity(PITS);
        for i in 0..PITS {
            let expected = if i < ROW {
                "a stone count for South's pit (digits)"
            } else {
                "a stone count for North's pit (digits)"
            };
            pits.push(r.number(expected)?);
            match i {
                3 => r.literal('/', "`/` between South's 4 pits and North's 4 pits")?,
                7 => r.literal(' ', "a space after the 8 pits")?,
                _ => r.literal(',', "`,` between pit counts (4 pits per row)")?,
            }
        }
        let to_move = r.side()?;
        r.literal(' ', "a space after the side to move")?;
        let south = r.number("South's captured count (digits)")?;
        r.literal('/', "`/` between South's and North's captured counts")?;
        let north = r.number("North's captured count (digits)")?;
        r.literal(' ', "a space after the captured counts")?;
        let used_s = r.used()?;
        r.literal('/', "`/` between South's and North's used pits")?;
        let used_n = r.used()?;
        r.end()?;
        Ok(Setup {
            pits,
            captured: [south, north],
            to_move,
            used: [used_s, used_n],
        })
    }
}

impl FromStr for Position {
    type Err = PositionError;

    /// Reads the notation and validates the position.
    fn from_str(text: &str) -> Result<Position, PositionError> {
        Position::from_setup(&text.parse()?)
    }
}

impl schemars::JsonSchema for Position {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Position".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[0-9]{1,3}(,[0-9]{1,3}){3}/[0-9]{1,3}(,[0-9]{1,3}){3} [SN] [0-9]{1,3}/[0-9]{1,3} [1-][2-][3-][4-]/[1-][2-][3-][4-]$",
            "description": "A position in kpe notation (spec/NOTATION.md): `S1,S2,S3,S4/N1,N2,N3,N4 side capturedS/capturedN usedS/usedN`, e.g. `6,6,6,6/6,6,6,6 S 0/0 ----/----`."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        text.parse::<Position>().unwrap_err().to_string()
    }

    #[test]
    fn notation_round_trips() {
        for text in [
            "6,6,6,6/6,6,6,6 S 0/0 ----/----",
            "0,7,7,7/7,7,7,6 N 0/0 1---/----",
            "2,0,9,1/1,3,0,8 S 6/18 1234/1234",
            "0,0,0,0/0,0,0,0 N 24/24 1234/1234",
        ] {
            let p: Position = text.parse().unwrap();
            assert_eq!(p.to_string(), text);
            let setup: Setup = text.parse().unwrap();
            assert_eq!(p.pits().map(u32::from).to_vec(), setup.pits);
            assert_eq!(Position::from_setup(&p.to_setup()).unwrap(), p);
        }
    }

    #[test]
    fn syntax_errors_give_the_column_and_what_was_expected() {
        assert_eq!(
            err("6,6,6/6,6,6,6 S 0/0 ----/----"),
            "column 6: expected `,` between pit counts (4 pits per row), found `/`"
        );
        assert_eq!(
            err("6,6,6,6/6,6,6,6 X 0/0 ----/----"),
            "column 17: expected the side to move, `S` or `N`, found `X`"
        );
        assert_eq!(
            err("6,6,6,6/6,6,6,6 S 0/0 ----/---"),
            "column 31: expected `4` or `-` (pit 4 used or not), found end of text"
        );
        assert_eq!(
            err("6,6,6,6/6,6,6,6 S 0/0 ----/---- "),
            "column 32: expected end of the position, found ` `"
        );
        assert_eq!(
            err("6,6,6,6/x,6,6,6 S 0/0 ----/----"),
            "column 9: expected a stone count for North's pit (digits), found `x`"
        );
        assert_eq!(
            err("6,6,6,6/6,6,6,6 S 0/0 x---/----"),
            "column 23: expected `1` or `-` (pit 1 used or not), found `x---`"
        );
        assert_eq!(
            err("6,6,6,6/6,6,6,6 S 0/0 1x--/----"),
            "column 24: expected `2` or `-` (pit 2 used or not), found `x--`"
        );
        assert_eq!(
            err("6,6,6,6/6,6,6,6 S 0/0 ----/--4-"),
            "column 30: expected `3` or `-` (pit 3 used or not), found `4-`"
        );
        assert!(err("").contains("column 1"));
        assert!(err("é").contains("column 1"));
        assert!(err("9999,6,6,6/6,6,6,6 S 0/0 ----/----").contains("column 1"));
        assert!(err("06,6,6,6/6,6,6,6 S 0/0 ----/----").contains("column 1"));
        assert!(err("6,6,6,6/6,6,6,6 S 00/0 ----/----").contains("column 19"));
    }

    #[test]
    fn impossible_positions_are_rejected_with_their_reason() {
        assert!(err("6,6,6,6/6,6,6,5 S 0/0 ----/----").contains("make 47, expected 48"));
        assert!(err("49,0,0,0/0,0,0,0 S 0/0 1234/1234").contains("at most 48"));
        assert!(err("6,6,6,6/6,6,6,5 S 1/0 ----/----").contains("even"));
        assert!(err("6,6,6,6/6,6,6,4 S 2/0 ----/----").contains("LOCK-1"));
        assert!(err("5,7,6,6/6,6,6,6 S 0/0 ----/----").contains("pit S1"));
        assert!(err("0,7,7,7/7,7,7,6 S 0/0 1---/----").contains("SOW-1"));
        let e = Position::from_setup(&Setup {
            pits: vec![6; 7],
            captured: [0, 0],
            to_move: Player::South,
            used: [[false; 4]; 2],
        })
        .unwrap_err();
        assert_eq!(e, PositionError::PitCount { found: 7 });
        let e = Position::from_setup(&Setup {
            pits: vec![6; 8],
            captured: [u32::MAX, 0],
            to_move: Player::South,
            used: [[false; 4]; 2],
        })
        .unwrap_err();
        assert!(matches!(e, PositionError::CapturedOutOfRange { .. }), "{e}");
    }

    #[test]
    fn diagram_puts_north_on_top_with_the_sowing_arrows() {
        let p: Position = "0,7,7,7/7,7,7,6 N 0/0 1---/----".parse().unwrap();
        insta::assert_snapshot!(p.diagram(), @r"
                  N4    N3    N2    N1
        North  [ 6] < [ 7] < [ 7] < [ 7]   captured  0  used ----  <- to move
                 v                       ^
        South  [ 0] > [ 7] > [ 7] > [ 7]   captured  0  used 1---
                  S1    S2    S3    S4
        ");
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_read_or_refused_without_panicking(text in "\\PC{0,60}") {
            let _ = text.parse::<Position>();
        }

        #[test]
        fn near_notation_text_is_read_or_refused_with_a_column(
            text in "(0|[1-9][0-9]?)(,(0|[0-9]{1,2})){3}/[0-9]{1,2}(,[0-9]{1,2}){3} [SNX] [0-9]{1,2}/[0-9]{1,2} [1-][2-][3-][4-]/[1-][2-][3-][4-]",
        ) {
            match text.parse::<Position>() {
                Ok(p) => proptest::prop_assert_eq!(p.to_string(), text),
                Err(PositionError::Syntax { column, .. }) => {
                    proptest::prop_assert!(column >= 1 && column <= text.chars().count() + 1)
                }
                Err(_) => {}
            }
        }

        #[test]
        fn any_setup_is_validated_without_panicking(
            pits in proptest::collection::vec(0u32..60, 0..10),
            captured in proptest::array::uniform2(proptest::prelude::any::<u32>()),
            north in proptest::prelude::any::<bool>(),
            used in proptest::array::uniform2(proptest::array::uniform4(proptest::prelude::any::<bool>())),
        ) {
            let to_move = if north { Player::North } else { Player::South };
            let setup = Setup { pits, captured, to_move, used };
            if let Ok(p) = Position::from_setup(&setup) {
                proptest::prop_assert_eq!(p.to_string().parse::<Position>(), Ok(p));
            }
        }
    }
}
