//! Solving one layer: every state with `s` stones on the board, given the
//! values of the layers below.
//!
//! Within a layer no move captures, so play can go round in circles; a move
//! that captures leaves the layer for one whose values are known. The value
//! of a state is the margin its mover can force, with play that never ends
//! scoring 0 from then on (spec/SOLVE.md). For each threshold `t` = s, s-2,
//! .., 0 the solver grows two sets, as retrograde analysis does for a won
//! and a lost game:
//!
//! - `win(t)`: the mover can force, in finitely many moves, a capture or an
//!   end worth at least `t` to them: some move leaves the layer worth `t` or
//!   more, or a quiet move reaches a state of `lose(t)`;
//! - `lose(t)`: the opponent can force one worth at most `-t` to the mover:
//!   every move leaves the layer worth `-t` or less, or reaches `win(t)`.
//!
//! Both only grow as `t` falls, so each state joins each set once, at the
//! highest threshold it reaches, and its quiet predecessors are told then:
//! a state joining `lose(t)` puts each predecessor in `win(t)`; one joining
//! `win(t)` takes one quiet move off each predecessor's count of moves not
//! yet in `win`, and a predecessor left with none, and no move out of the
//! layer worth more than `-t`, joins `lose(t)`. The value is the highest
//! positive `t` with the state in `win(t)`, else minus the highest with it in
//! `lose(t)`, else 0; a 0 is *endless* unless the state is in both `win(0)`
//! and `lose(0)`, that is, unless both players can hold 0 with play that
//! leaves the layer.
//!
//! The round at which a state joins its set (0 for the seeds, one more than
//! the state that put it there) is its *depth*: the plies, with best play,
//! until the layer is left. Moves that keep the value and lower the depth
//! make progress; moves that keep the value alone may go round for ever.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::profile::Profile;

use super::entry;
use super::moves::{Step, predecessors, steps};
use super::rank::{layer_size, next, rank, unrank};

/// States handled together by one task of a scan.
const CHUNK: usize = 1 << 14;
/// Frontier states handled together by one task.
const FRONTIER_CHUNK: usize = 1 << 10;
/// Frontier states whose tells are sorted together: at about four
/// predecessors each, 64 MB of tells at most.
const FRONTIER_BATCH: usize = 1 << 22;
/// Sorted tells applied together by one task.
const TELL_CHUNK: usize = 1 << 14;
/// No move leaves the layer.
const NO_EXIT: i8 = i8::MIN;
/// Not (yet) in the set.
const OUT: u16 = u16::MAX;
/// Rounds are kept in the low 11 bits of a set's mark, the threshold above.
const ROUND_BITS: u32 = 11;
const ROUND_MAX: u32 = (1 << ROUND_BITS) - 1;
/// A frontier entry with this bit joined `lose`, without it `win`.
const LOSE_BIT: u32 = 1 << 31;

/// The solved layer: one value byte and one depth byte for each state, in
/// rank order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Solved {
    /// Value bytes ([`entry`]).
    pub values: Vec<u8>,
    /// Depths: plies until the layer is left with best play, at most
    /// [`entry::DEPTH_MAX`]; [`entry::ENDLESS`] for an endless 0.
    pub depths: Vec<u16>,
    /// What the solve found and how long it took.
    pub stats: LayerStats,
}

/// Figures from solving one layer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayerStats {
    /// Stones on the board.
    pub stones: u8,
    /// States in the layer.
    pub states: u64,
    /// States whose mover wins (positive margin).
    pub won: u64,
    /// States whose mover loses (negative margin).
    pub lost: u64,
    /// States worth 0 that both players can hold with play that ends.
    pub level: u64,
    /// States worth 0 only through play that never leaves the layer.
    pub endless: u64,
    /// The largest depth (rounds of one threshold).
    pub max_depth: u32,
    /// States deeper than a file holds (stored as [`entry::DEPTH_MAX`]).
    pub saturated: u64,
    /// Time to play every move of every state.
    pub forward: Duration,
    /// Time to grow the sets.
    pub backward: Duration,
}

fn mark(threshold: i8, round: u32) -> u16 {
    // Thresholds are even, 0..=48, so their half fits in 5 bits.
    ((threshold as u16 / 2) << ROUND_BITS) | round.min(ROUND_MAX) as u16
}

fn threshold_of(mark: u16) -> i8 {
    ((mark >> ROUND_BITS) * 2) as i8
}

fn round_of(mark: u16) -> u32 {
    u32::from(mark) & ROUND_MAX
}

/// One state's working word: its best move out of the layer, its quiet
/// moves not yet in `win`, and its marks in `win` and `lose`, kept together
/// so that telling a predecessor touches one cache line.
#[derive(Clone, Copy)]
struct Word(u64);

impl Word {
    const REMAINING: u32 = 8;
    const WIN: u32 = 16;
    const LOSE: u32 = 32;

    fn new(best: i8, quiet: u8) -> Word {
        Word(
            u64::from(best as u8)
                | u64::from(quiet) << Self::REMAINING
                | u64::from(OUT) << Self::WIN
                | u64::from(OUT) << Self::LOSE,
        )
    }

    fn best(self) -> i8 {
        self.0 as u8 as i8
    }

    fn remaining(self) -> u8 {
        (self.0 >> Self::REMAINING) as u8
    }

    fn win(self) -> u16 {
        (self.0 >> Self::WIN) as u16
    }

    fn lose(self) -> u16 {
        (self.0 >> Self::LOSE) as u16
    }

    fn with_win(self, mark: u16) -> Word {
        Word(self.0 & !(0xffff << Self::WIN) | u64::from(mark) << Self::WIN)
    }

    fn with_lose(self, mark: u16) -> Word {
        Word(self.0 & !(0xffff << Self::LOSE) | u64::from(mark) << Self::LOSE)
    }

    /// Whether no move out of the layer is worth more than `-t`.
    fn exits_at_most(self, t: i8) -> bool {
        self.best() == NO_EXIT || self.best() <= -t
    }
}

/// Sets a mark with `set` if `get` says the state has none yet; whether
/// this call set it.
fn join(word: &AtomicU64, get: fn(Word) -> u16, set: impl Fn(Word) -> Option<Word>) -> bool {
    let mut current = Word(word.load(Relaxed));
    loop {
        if get(current) != OUT {
            return false;
        }
        let Some(next) = set(current) else {
            return false;
        };
        match word.compare_exchange_weak(current.0, next.0, Relaxed, Relaxed) {
            Ok(_) => return true,
            Err(seen) => current = Word(seen),
        }
    }
}

/// Solves the layer of `stones` stones under `profile`; `below[k]` holds
/// the value bytes of the layer of `k` stones for every `k` a capture can
/// reach (`stones - 16` to `stones - 2`). `progress` is told how many
/// states each step has dealt with.
///
/// # Panics
///
/// If a layer a capture reaches is missing from `below` (a bug of the
/// caller).
pub(crate) fn solve(
    stones: u8,
    profile: Profile,
    below: &[Option<Vec<u8>>],
    progress: &(dyn Fn(u64) + Sync),
) -> Solved {
    let n = usize::try_from(layer_size(stones)).expect("a layer fits in memory");
    let started = Instant::now();
    let words = moves_out(stones, n, profile, below, progress);
    let forward = started.elapsed();
    let started = Instant::now();
    // Each state's best move out, apart from the words, so that finding a
    // threshold's seeds reads a byte a state, not a word.
    let best: Vec<i8> = words
        .par_iter()
        .map(|w| Word(w.load(Relaxed)).best())
        .collect();
    let mut max_round = 0u32;
    for t in (0..=stones as i8).rev().step_by(2) {
        let mut frontier = seeds(&words, &best, t, t == stones as i8);
        let mut round = 0;
        while !frontier.is_empty() {
            round += 1;
            progress(frontier.len() as u64);
            frontier = expand(&frontier, stones, profile, &words, mark(t, round), t);
        }
        max_round = max_round.max(round.saturating_sub(1));
    }
    let backward = started.elapsed();
    let (values, depths) = entries(words);
    let mut stats = LayerStats {
        stones,
        states: n as u64,
        max_depth: max_round,
        forward,
        backward,
        ..LayerStats::default()
    };
    count(&mut stats, &values, &depths);
    Solved {
        values,
        depths,
        stats,
    }
}

/// The forward pass over the `n` states of the layer: for each, the best
/// move out of the layer (a capture, valued from `below`, or the end) and
/// the count of quiet moves.
fn moves_out(
    stones: u8,
    n: usize,
    profile: Profile,
    below: &[Option<Vec<u8>>],
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<AtomicU64> {
    // Made in place, chunk by chunk, with no second copy of the words.
    let words: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
    words.par_chunks(CHUNK).enumerate().for_each(|(c, chunk)| {
        let mut board = unrank(stones, (c * CHUNK) as u64).expect("in the layer");
        for (k, word) in chunk.iter().enumerate() {
            if k > 0 {
                next(&mut board);
            }
            let (mut best, mut quiet) = (NO_EXIT, 0u8);
            steps(&board, profile, |step| match step {
                Step::End(margin) => best = margin,
                Step::Quiet { .. } => quiet += 1,
                Step::Capture {
                    stones: taken,
                    child,
                    ..
                } => {
                    let layer = below[usize::from(stones - taken)]
                        .as_ref()
                        .expect("the layers below are solved first");
                    let child_value = entry::margin(layer[rank(&child) as usize]);
                    best = best.max(taken as i8 - child_value);
                }
            });
            word.store(Word::new(best, quiet).0, Relaxed);
        }
        progress(chunk.len() as u64);
    });
    words
}

/// The seeds of threshold `t`, marked in `words`: states with a move out
/// worth `t` (won), and states with no quiet move left and nothing better
/// than `-t` out (lost, flagged with [`LOSE_BIT`]). `top` says `t` is the
/// first threshold.
///
/// Only the states whose best move out (`best`) first reaches `t`, or
/// first falls to `-t`, at this threshold are looked at. A state whose
/// best move out reached it at a higher threshold was marked won then, or
/// lost then if it had no quiet move left; if its last quiet move was told
/// later, [`tell_one`] marked it lost at once, as it checks the same bound.
fn seeds(words: &[AtomicU64], best: &[i8], t: i8, top: bool) -> Vec<u32> {
    best.par_chunks(CHUNK)
        .enumerate()
        .flat_map_iter(|(c, chunk)| {
            let mut seeds = Vec::new();
            for (k, &b) in chunk.iter().enumerate() {
                let first = if top {
                    b >= t || b <= -t
                } else {
                    // Thresholds fall by 2.
                    b == t || b == t + 1 || b == -t || b == -t - 1
                };
                if !first {
                    continue;
                }
                let i = c * CHUNK + k;
                let mut w = Word(words[i].load(Relaxed));
                let won = w.win() == OUT && w.best() != NO_EXIT && w.best() >= t;
                if won {
                    w = w.with_win(mark(t, 0));
                }
                let lost = w.lose() == OUT && w.remaining() == 0 && w.exits_at_most(t);
                if lost {
                    w = w.with_lose(mark(t, 0));
                }
                if won || lost {
                    words[i].store(w.0, Relaxed);
                }
                // Both only at t = 0, for an end or a move out worth 0.
                let i = i as u32;
                if won {
                    seeds.push(i);
                }
                if lost {
                    seeds.push(i | LOSE_BIT);
                }
            }
            seeds
        })
        .collect()
}

/// One round of the backward pass at threshold `t`: the predecessors of
/// `frontier` that it decides, marked `joined_mark`, as the next frontier.
///
/// The work is done in two passes over each batch of the frontier, which
/// give the same marks as telling each predecessor as it is found (no tell
/// of a round depends on another's order: a round sets marks of one value
/// and counts down) but go through `words` in order. First the
/// predecessors are found, apart from `words`: each is one *tell*, its rank
/// with [`LOSE_BIT`] when the frontier state that tells it is lost. Then the
/// tells are sorted and applied. Told one at a time as they are found, the
/// words are reached at random, and on the largest layers (1.6 GB of words
/// at 48 stones) that cache miss was most of the solve.
fn expand(
    frontier: &[u32],
    stones: u8,
    profile: Profile,
    words: &[AtomicU64],
    joined_mark: u16,
    t: i8,
) -> Vec<u32> {
    let mut joined = Vec::new();
    for batch in frontier.chunks(FRONTIER_BATCH) {
        let mut tells: Vec<u32> = batch
            .par_chunks(FRONTIER_CHUNK)
            .flat_map_iter(|chunk| {
                let mut tells = Vec::with_capacity(chunk.len() * 4);
                for &entry in chunk {
                    let lost = entry & LOSE_BIT;
                    let board = unrank(stones, u64::from(entry & !LOSE_BIT))
                        .expect("frontier states are in the layer");
                    // A layer has fewer than 2^31 states (at most C(55, 7)).
                    predecessors(&board, profile, |before| {
                        tells.push(rank(&before) as u32 | lost);
                    });
                }
                tells
            })
            .collect();
        rdst::RadixSort::radix_sort_unstable(&mut tells);
        joined.par_extend(tells.par_chunks(TELL_CHUNK).flat_map_iter(|chunk| {
            let mut joined = Vec::new();
            for &tell in chunk {
                let j = (tell & !LOSE_BIT) as usize;
                if let Some(entry) = tell_one(&words[j], tell & LOSE_BIT != 0, joined_mark, t) {
                    joined.push(j as u32 | entry);
                }
            }
            joined
        }));
    }
    joined
}

/// Tells a predecessor `word` that one of its quiet moves reaches a state
/// that has just joined `lose(t)` (`lost`) or `win(t)`; the frontier flag
/// (0 or [`LOSE_BIT`]) when this decides it.
fn tell_one(word: &AtomicU64, lost: bool, joined_mark: u16, t: i8) -> Option<u32> {
    if lost {
        // A move to a lost state wins.
        return join(word, Word::win, |w| Some(w.with_win(joined_mark))).then_some(0);
    }
    let old = Word(word.fetch_sub(1 << Word::REMAINING, Relaxed));
    // Every quiet move now reaches `win(t)`: lost unless a move out is
    // worth more than `-t`.
    (old.remaining() == 1
        && join(word, Word::lose, |w| {
            w.exits_at_most(t).then(|| w.with_lose(joined_mark))
        }))
    .then_some(LOSE_BIT)
}

/// The value byte and depth of each state, from its marks.
fn entries(words: Vec<AtomicU64>) -> (Vec<u8>, Vec<u16>) {
    let n = words.len();
    let mut values = vec![0u8; n];
    let mut depths = vec![0u16; n];
    values
        .par_iter_mut()
        .zip(depths.par_iter_mut())
        .zip(words.into_par_iter())
        .for_each(|((value, depth), word)| {
            let word = Word(word.into_inner());
            let (w, l) = (word.win(), word.lose());
            let (margin, endless, round) = if w != OUT && threshold_of(w) > 0 {
                (threshold_of(w), false, round_of(w))
            } else if l != OUT && threshold_of(l) > 0 {
                (-threshold_of(l), false, round_of(l))
            } else if w != OUT && l != OUT {
                (0, false, round_of(w))
            } else {
                (0, true, u32::from(entry::ENDLESS))
            };
            *value = entry::encode(margin, endless);
            *depth = round.min(u32::from(entry::ENDLESS)) as u16;
        });
    (values, depths)
}

/// Counts the layer's won, lost, level, endless and depth-saturated states.
fn count(stats: &mut LayerStats, values: &[u8], depths: &[u16]) {
    let [won, lost, level, endless, saturated] = values
        .par_iter()
        .zip(depths)
        .fold(
            || [0u64; 5],
            |mut counts, (&v, &d)| {
                let kind = match (entry::margin(v).signum(), entry::endless(v)) {
                    (1, _) => 0,
                    (-1, _) => 1,
                    (_, true) => 3,
                    _ => 2,
                };
                counts[kind] += 1;
                if d >= entry::DEPTH_MAX && !entry::endless(v) {
                    counts[4] += 1;
                }
                counts
            },
        )
        .reduce(|| [0u64; 5], |a, b| std::array::from_fn(|i| a[i] + b[i]));
    stats.won += won;
    stats.lost += lost;
    stats.level += level;
    stats.endless += endless;
    stats.saturated += saturated;
}
