//! A perfect ranking of the boards with `s` stones in 8 pits.
//!
//! A board is a way of putting `s` identical stones into 8 pits in order.
//! Write it as `s` stars with 7 bars among them (stars and bars): the bars
//! stand at the places `p_i = b_0 + .. + b_i + i` for `i` in 0..7, seven
//! distinct places among `0..s + 7`. The rank of the board is the colex rank
//! of that set, `C(p_0, 1) + C(p_1, 2) + .. + C(p_6, 7)` (the combinatorial
//! number system), a bijection onto `0..C(s + 7, 7)`. Boards come in rank
//! order from [`next`]: the first holds every stone in the last pit, the
//! last every stone in the first.

use crate::board::{PITS, TOTAL_STONES};

/// The most places a bar can stand at: 48 stones and 7 bars.
const PLACES: usize = TOTAL_STONES as usize + PITS;

/// `BINOMIAL[n][k]` is `C(n, k)` for the `n` and `k` a ranking needs.
static BINOMIAL: [[u64; PITS]; PLACES] = binomials();

const fn binomials() -> [[u64; PITS]; PLACES] {
    let mut table = [[0u64; PITS]; PLACES];
    let mut n = 0;
    while n < PLACES {
        table[n][0] = 1;
        let mut k = 1;
        while k < PITS {
            if n > 0 {
                table[n][k] = table[n - 1][k - 1] + table[n - 1][k];
            }
            k += 1;
        }
        n += 1;
    }
    table
}

/// The number of boards with `stones` stones in 8 pits: `C(stones + 7, 7)`.
///
/// ```
/// use kpe::solve::layer_size;
/// assert_eq!(layer_size(0), 1);
/// assert_eq!(layer_size(48), 202_927_725);
/// ```
#[must_use]
pub fn layer_size(stones: u8) -> u64 {
    BINOMIAL[usize::from(stones) + PITS - 1][PITS - 1]
}

/// The rank of `board` among the boards with as many stones.
#[must_use]
pub fn rank(board: &[u8; PITS]) -> u64 {
    let mut sum = 0usize;
    let mut rank = 0u64;
    for (i, &stones) in board[..PITS - 1].iter().enumerate() {
        sum += usize::from(stones);
        rank += BINOMIAL[sum + i][i + 1];
    }
    rank
}

/// The board of rank `rank` among those with `stones` stones, or `None`
/// when `rank` is not below [`layer_size`].
#[must_use]
pub fn unrank(stones: u8, mut rank: u64) -> Option<[u8; PITS]> {
    if stones > TOTAL_STONES || rank >= layer_size(stones) {
        return None;
    }
    let mut places = [0usize; PITS - 1];
    // The highest bar first: the largest place whose binomial still fits.
    let mut above = usize::from(stones) + PITS - 1;
    for i in (0..PITS - 1).rev() {
        let mut place = above - 1;
        while BINOMIAL[place][i + 1] > rank {
            place -= 1;
        }
        rank -= BINOMIAL[place][i + 1];
        places[i] = place;
        above = place;
    }
    let mut board = [0u8; PITS];
    let mut before = 0usize;
    for (i, &place) in places.iter().enumerate() {
        // Places and stones are below 56, so these fit in a byte.
        board[i] = (place - before) as u8;
        before = place + 1;
    }
    board[PITS - 1] = (usize::from(stones) + PITS - 1 - before) as u8;
    Some(board)
}

/// Steps `board` to the board of the next rank; `false` (and `board`
/// unchanged) when it is the last one.
pub fn next(board: &mut [u8; PITS]) -> bool {
    let Some(k) = (1..PITS).find(|&k| board[k] > 0) else {
        return false;
    };
    let before: u8 = board[..k].iter().sum();
    board[..k].fill(0);
    board[k - 1] = before + 1;
    board[k] -= 1;
    true
}

/// The board seen from the other side: the pits of one row swapped with
/// those of the other, each keeping its number. The rules treat both
/// players alike, so a position with North to move is the position of this
/// board with South to move.
#[must_use]
pub fn turn(board: &[u8; PITS]) -> [u8; PITS] {
    std::array::from_fn(|i| board[(i + PITS / 2) % PITS])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_walks_every_board_in_rank_order_and_unrank_inverts_rank() {
        for stones in [0u8, 1, 2, 5, 10] {
            let mut board = unrank(stones, 0).unwrap();
            assert_eq!(board[PITS - 1], stones);
            let mut count = 0u64;
            loop {
                assert_eq!(
                    board.iter().map(|&b| u32::from(b)).sum::<u32>(),
                    u32::from(stones)
                );
                assert_eq!(rank(&board), count, "{board:?}");
                assert_eq!(unrank(stones, count), Some(board));
                count += 1;
                if !next(&mut board) {
                    break;
                }
            }
            assert_eq!(count, layer_size(stones), "{stones} stones");
            assert_eq!(board[0], stones);
            assert_eq!(unrank(stones, count), None);
        }
    }

    #[test]
    fn the_largest_layers_rank_their_extreme_boards() {
        let size = layer_size(48);
        assert_eq!(size, 202_927_725);
        let last = unrank(48, size - 1).unwrap();
        assert_eq!(last, [48, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(rank(&last), size - 1);
        let middle = [6, 6, 6, 6, 6, 6, 6, 6];
        assert_eq!(unrank(48, rank(&middle)), Some(middle));
        assert_eq!(unrank(49, 0), None);
        // Every layer with an even number of stones: 764,395,515 boards.
        let total: u64 = (0..=48).step_by(2).map(layer_size).sum();
        assert_eq!(total, 764_395_515);
    }

    #[test]
    fn turning_twice_gives_the_board_back() {
        let board = [1, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(turn(&board), [5, 6, 7, 8, 1, 2, 3, 4]);
        assert_eq!(turn(&turn(&board)), board);
    }
}
