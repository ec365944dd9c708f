//! Helpers for the crate's own tests.

/// One of `choices`, picked by a xorshift step of `seed`: random games
/// that a test replays the same way every run.
pub(crate) fn pick<T: Copy>(seed: &mut u64, choices: &[T]) -> T {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    choices[(*seed % choices.len() as u64) as usize]
}
