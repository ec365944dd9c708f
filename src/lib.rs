//! # kpe: the rules authority for the mancala game Kpé
//!
//! The rules code here is the reference implementation of `spec/RULES.md`:
//! each step is a small function tagged with the rule IDs it decides.
//!
//! ```
//! use kpe::{Game, Pit, Position, Profile, legal_moves, play};
//!
//! // The initial position: six stones in each of the eight pits, South to move.
//! let start = Position::initial();
//! assert_eq!(start.to_string(), "6,6,6,6/6,6,6,6 S 0/0 ----/----");
//!
//! // Every pit is a legal first move.
//! assert_eq!(legal_moves(&start, Profile::DEFAULT).len(), 4);
//!
//! // Play S4: six stones go into N1..N4, S1 and S2.
//! let s4: Pit = "S4".parse()?;
//! let (next, report) = play(&start, s4, Profile::DEFAULT)?;
//! assert_eq!(next.to_string(), "7,7,6,0/7,7,7,7 N 0/0 ---4/----");
//! assert!(report.captures.is_empty()); // captures are still locked (LOCK-1)
//!
//! // A move that is not legal comes back as an error with a reason code.
//! let err = play(&next, s4, Profile::DEFAULT).unwrap_err();
//! assert_eq!(err.reason.code(), "not-own-pit");
//!
//! // Readings the sources leave open are switches of the rules profile.
//! let profile: Profile = "skip-origin,end-on-repetition".parse()?;
//! let game = Game::replay(start, profile, &[s4])?;
//! assert_eq!(game.current(), &next);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod adopt;
mod as_text;
mod board;
pub mod dispute;
mod game;
pub mod html;
pub mod judge;
pub mod live;
mod perft;
mod position;
mod profile;
pub mod protocol;
mod report;
pub mod reporter;
mod rules;
pub mod scenario;
pub mod solve;
#[cfg(test)]
mod testing;
pub mod transcript;
pub mod transcripts;

pub use board::{
    CAPTURE_SIZES, CAPTURES_ARE_EVEN, PITS, ParsePitError, Pit, Player, ROW, START_STONES,
    TOTAL_STONES, is_capture_size,
};
pub use game::{Game, Outcome, ReplayError};
pub use perft::{divide, perft, perft_jobs};
pub use position::{Position, PositionError, Setup};
pub use profile::{
    DEFAULT_FILE_VERSION, DefaultFileError, EdgeRole, Matters, ParseProfileError, Profile,
    READINGS, Reading, SolverRole, Switch, parse_default_file,
};
pub use report::{Capture, End, EndReason, Event, Feeding, Report};
pub use rules::{IllegalMove, Moves, Reason, feeds, game_over, legal_moves, play, sweep};
