//! What is done with a game's plies as they are read: the interface
//! between the readers of a game (serde's, and the quick reader) and the
//! checker.

use crate::position::Position;

use crate::transcript::Ply;

// ---------------------------------------------------------------------------
// One game, its fields in any order
// ---------------------------------------------------------------------------

/// What is done with a game's plies as they are read.
pub(crate) trait GameHandler {
    /// A game begins (again, if its fields come in an order that needs a
    /// second reading): forget any earlier start.
    fn begin(&mut self, id: &str, start: Position);
    /// Returns whether the game still wants plies.
    fn ply(&mut self, ply: &Ply) -> bool;
}

/// A handler that only reads.
pub(crate) struct NoGame;

impl GameHandler for NoGame {
    fn begin(&mut self, _: &str, _: Position) {}
    fn ply(&mut self, _: &Ply) -> bool {
        false
    }
}

/// Which reading of a game's span.
pub(crate) enum Pass {
    /// The first: plies are checked at once if `id` came before them
    /// (and `start` too, or never).
    First,
    /// Again, `id` and `start` known: check the plies.
    Second { id: String, start: Position },
}

/// What the first reading found.
#[derive(Debug)]
pub(crate) struct GameRead {
    pub(crate) id: String,
    pub(crate) start: Position,
    /// The plies still need checking (they came before `id`, or before
    /// `start`, and were skipped or checked from the wrong start).
    pub(crate) again: bool,
}
