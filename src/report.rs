//! What a move did: the report [`crate::play`] returns beside the new position.

use std::fmt;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::board::{Pit, Player, TOTAL_STONES};

/// One pit emptied by a capture (CAP-1, CAP-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Capture {
    /// The opponent's pit that was emptied.
    pub pit: Pit,
    /// How many stones it held: 2 or 4.
    pub stones: u8,
}

/// How the feeding rule bore on a move (FEED-1 to FEED-3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Feeding {
    /// The opponent's row was empty and some move fed it, so only feeding
    /// moves were legal (FEED-1).
    Forced,
    /// The opponent's row was empty and no move could feed it, so every
    /// non-empty pit was legal (FEED-3, default reading of I4).
    Lapsed,
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum EndReason {
    /// The player to move has no stones in their row (END-1).
    NoStones,
    /// The opponent's row is empty and no move can feed it, under
    /// `end-when-unfeedable` (FEED-3, alternative reading of I4).
    Unfeedable,
    /// A position recurred, under `end-on-repetition` (END-3, alternative
    /// reading of I5).
    Repetition,
}

impl EndReason {
    /// The rule ID that ends the game for this reason.
    #[must_use]
    pub const fn rule(self) -> &'static str {
        match self {
            EndReason::NoStones => "END-1",
            EndReason::Unfeedable => "FEED-3",
            EndReason::Repetition => "END-3",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndReason::NoStones => "the player to move has no stones",
            EndReason::Unfeedable => "the opponent's row is empty and no move can feed it",
            EndReason::Repetition => "a position recurred",
        })
    }
}

/// The end of a game: why, and the totals after the sweep (END-2, RES-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct End {
    /// Why the game ended.
    pub reason: EndReason,
    /// Final totals, South then North: captured plus swept stones.
    pub totals: [u8; 2],
}

impl End {
    /// The winner, or `None` for a draw (RES-2, RES-3).
    #[must_use]
    pub fn winner(&self) -> Option<Player> {
        let [s, n] = self.totals;
        match s.cmp(&n) {
            std::cmp::Ordering::Greater => Some(Player::South),
            std::cmp::Ordering::Less => Some(Player::North),
            std::cmp::Ordering::Equal => None,
        }
    }
}

impl fmt::Display for End {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [s, n] = self.totals;
        match self.winner() {
            Some(p) => write!(
                f,
                "{p} wins {s}-{n} ({}, {})",
                self.reason,
                self.reason.rule()
            ),
            None => write!(f, "draw {s}-{n} ({}, {})", self.reason, self.reason.rule()),
        }
    }
}

/// Everything one move did, in the order the rules did it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// The player who moved.
    pub mover: Player,
    /// The pit the move started from.
    #[serde(rename = "move")]
    pub pit: Pit,
    /// Stones taken up (SOW-2).
    pub stones: u8,
    /// Each pit that received a stone, in sowing order (SOW-3, SOW-4).
    #[schemars(with = "Vec<Pit>")]
    pub sown: ArrayVec<Pit, { TOTAL_STONES as usize }>,
    /// Where the last stone landed: the move's single lap ends there (SOW-5).
    pub landing: Pit,
    /// Whether this move completed the mover's four used pits (LOCK-1, LOCK-3).
    pub lock_opened: bool,
    /// Whether the move would have captured (its last stone made 2 or 4 in
    /// an opponent's pit) but the mover's captures were locked (LOCK-1, LOCK-3).
    pub capture_locked: bool,
    /// Pits captured, landing pit first, then backward along the chain
    /// (CAP-1, CAP-2, CAP-3).
    #[schemars(with = "Vec<Capture>")]
    pub captures: ArrayVec<Capture, 4>,
    /// How the feeding rule bore on the move, if the opponent's row was empty.
    pub feeding: Option<Feeding>,
    /// Set when the game is over after this move (END-1 to END-3).
    pub end: Option<End>,
}

impl Report {
    /// Stones captured by this move.
    #[must_use]
    pub fn captured(&self) -> u8 {
        self.captures.iter().map(|c| c.stones).sum()
    }

    /// Whether the sowing came back around past its origin pit (SOW-4).
    #[must_use]
    pub fn wrapped(&self) -> bool {
        self.stones as usize >= crate::board::PITS
    }

    /// Whether the capture chain ran to the opponent's first pit, where
    /// CAP-3 stops it (the pit before is the mover's own).
    #[must_use]
    pub fn chain_reached_row_end(&self) -> bool {
        self.captures
            .last()
            .is_some_and(|c| c.pit.prev().owner() == self.mover)
    }

    /// The rule IDs that decided this move, in the order they applied.
    #[must_use]
    pub fn rules(&self) -> Vec<&'static str> {
        let mut ids = vec!["MOVE-1", "MOVE-2"];
        if self.feeding.is_some() {
            ids.extend(["FEED-1", "FEED-2"]);
        }
        if self.feeding == Some(Feeding::Lapsed) {
            ids.push("FEED-3");
        }
        ids.extend(["SOW-2", "SOW-3"]);
        if self.wrapped() {
            ids.push("SOW-4");
        }
        ids.extend(["SOW-5", "LOCK-2"]);
        if self.lock_opened {
            ids.push("LOCK-3");
        }
        if self.capture_locked {
            ids.push("LOCK-1");
        }
        if !self.captures.is_empty() {
            ids.push("CAP-1");
            if self.captures.len() > 1 {
                ids.push("CAP-2");
            }
            if self.chain_reached_row_end() {
                ids.push("CAP-3");
            }
            ids.push("CAP-4");
        }
        ids.push("SOW-1");
        if let Some(end) = self.end {
            ids.push(end.reason.rule());
            ids.extend(["END-2", "RES-1"]);
            ids.push(if end.winner().is_some() {
                "RES-2"
            } else {
                "RES-3"
            });
        }
        ids
    }
}

/// Something notable a move did, as scenarios and transcripts name it.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Event {
    /// The move used the mover's last unused pit (LOCK-2, LOCK-3).
    LockOpened,
    /// The move would have captured but the mover was locked (LOCK-1).
    CaptureLocked,
    /// Feeding was required and this move feeds (FEED-1, FEED-2).
    FeedingForced,
    /// The opponent's row was empty and no move could feed it (FEED-3).
    FeedingLapsed,
    /// The move captured (CAP-1).
    Capture,
    /// The game is over after the move (END-1, END-3, FEED-3).
    GameOver,
}

impl Report {
    /// The notable things this move did, in a fixed order.
    #[must_use]
    pub fn events(&self) -> Vec<Event> {
        let mut events = Vec::new();
        if self.feeding == Some(Feeding::Forced) {
            events.push(Event::FeedingForced);
        }
        if self.feeding == Some(Feeding::Lapsed) {
            events.push(Event::FeedingLapsed);
        }
        if self.lock_opened {
            events.push(Event::LockOpened);
        }
        if self.capture_locked {
            events.push(Event::CaptureLocked);
        }
        if !self.captures.is_empty() {
            events.push(Event::Capture);
        }
        if self.end.is_some() {
            events.push(Event::GameOver);
        }
        events
    }
}

impl fmt::Display for Report {
    /// One line: `South S3: sows 7 (S4 N1 ..), lands N3; captures N3:2 N2:4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} plays {}: sows {}", self.mover, self.pit, self.stones)?;
        let sown: Vec<String> = self.sown.iter().map(ToString::to_string).collect();
        write!(f, " into {}, last in {}", sown.join(" "), self.landing)?;
        match self.feeding {
            Some(Feeding::Forced) => f.write_str("; feeding was required")?,
            Some(Feeding::Lapsed) => f.write_str("; no move could feed, so feeding lapsed")?,
            None => {}
        }
        if self.lock_opened {
            write!(f, "; {}'s captures unlock", self.mover)?;
        }
        if self.capture_locked {
            f.write_str("; would capture but captures are locked (LOCK-1)")?;
        }
        if !self.captures.is_empty() {
            f.write_str("; captures")?;
            for c in &self.captures {
                write!(f, " {}:{}", c.pit, c.stones)?;
            }
        }
        if let Some(end) = self.end {
            write!(f, "; game over: {end}")?;
        }
        Ok(())
    }
}
