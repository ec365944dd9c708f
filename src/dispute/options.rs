//! How much work each part of a dispute does.

/// The most games per strategy pairing and reading `kpe dispute --games`
/// plays: more is refused before anything is allocated.
pub const MAX_DISPUTE_GAMES: usize = 100_000;

/// The longest game `kpe dispute --max-plies` plays before it stops it.
pub const MAX_DISPUTE_PLIES: usize = 100_000;

/// The most examples `kpe dispute --examples` shows.
pub const MAX_DISPUTE_EXAMPLES: usize = 1_000;

/// How much work each part does. The defaults run in a few seconds in a
/// `--release` build; tests pass smaller numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Seed of the random games (part 3).
    pub seed: u64,
    /// Games per strategy pairing and reading (part 3).
    pub games: usize,
    /// Plies after which a game is stopped as unfinished (part 3).
    pub max_plies: usize,
    /// The most stones on the board the position search tries (part 2).
    pub max_stones: u8,
    /// The longest line the search plays from a small position when the
    /// difference lies in the game's history (`end-on-repetition`, part 2).
    pub max_line: usize,
    /// The most stones on the board of a start position for those lines.
    pub line_stones: u8,
    /// How many examples the search shows (part 2).
    pub examples: usize,
    /// The deepest perft depth compared (part 4).
    pub perft_depth: u32,
    /// The most stones on the board of the tables solved for part 5.
    pub solve_stones: u8,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            seed: 1,
            games: 2000,
            max_plies: 500,
            max_stones: 16,
            max_line: 8,
            line_stones: 4,
            examples: 3,
            perft_depth: 10,
            solve_stones: 12,
        }
    }
}
