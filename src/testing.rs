//! Helpers for the crate's own tests.

use proptest::prelude::*;

/// One of `choices`, picked by a xorshift step of `seed`: random games
/// that a test replays the same way every run.
pub(crate) fn pick<T: Copy>(seed: &mut u64, choices: &[T]) -> T {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    choices[(*seed % choices.len() as u64) as usize]
}

/// Bytes that make JSON interesting when put anywhere.
pub(crate) const SPICE: &[&str] = &[
    "\"",
    "\\",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    " ",
    "\n",
    "0",
    "1",
    "255",
    "256",
    "-1",
    "1e1",
    "true",
    "false",
    "null",
    "S1",
    "N4",
    "\"id\"",
    "\"move\"",
    "\"legal\"",
    "\"captures\"",
    "\"totals\"",
    "\"game_over\"",
    "\"after\"",
    "\"start\"",
    "\"plies\"",
    "\"pit\"",
    "\"stones\"",
    "\u{e9}",
    "\u{1}",
    "\\u0041",
    "\\\"",
];

/// An edit: where, how (put in, take out a byte, put over) and which
/// of [`SPICE`].
pub(crate) type Edit = (prop::sample::Index, u8, usize);

/// Edits for a property test.
pub(crate) fn edits() -> impl Strategy<Value = Vec<Edit>> {
    proptest::collection::vec((any::<prop::sample::Index>(), 0..3u8, 0..SPICE.len()), 0..4)
}

/// `text` with `edits` made.
pub(crate) fn edited(mut text: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for (at, how, spice) in edits {
        let at = at.index(text.len() + 1);
        let spice = SPICE[*spice].as_bytes();
        match how {
            0 => {
                text.splice(at..at, spice.iter().copied());
            }
            1 if at < text.len() => {
                text.remove(at);
            }
            _ => {
                let end = (at + spice.len()).min(text.len());
                text.splice(at..end, spice.iter().copied());
            }
        }
    }
    text
}
