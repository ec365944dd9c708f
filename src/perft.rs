//! Perft: counting the move sequences of a given length, the usual way to
//! fingerprint a move generator.

use crate::board::Pit;
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::rules::{apply, legal_moves};

/// The number of move sequences of exactly `depth` moves from `position`
/// under `profile`. A finished game has no continuations; under
/// `end-on-repetition` a position that repeats one on the path from
/// `position` is finished.
///
/// ```
/// use kpe::{Position, Profile, perft};
/// assert_eq!(perft(&Position::initial(), 1, Profile::DEFAULT), 4);
/// assert_eq!(perft(&Position::initial(), 2, Profile::DEFAULT), 16);
/// ```
#[must_use]
pub fn perft(position: &Position, depth: u32, profile: Profile) -> u64 {
    let mut path = Path::new(position, depth, profile);
    count(position, depth, profile, &mut path)
}

/// [`perft`] on `jobs` threads, the same number: the tree is cut a few
/// plies down, deep enough for many subtrees per thread, and the threads
/// take the subtrees one at a time until none is left.
///
/// ```
/// use kpe::{Position, Profile, perft, perft_jobs};
/// let p = Position::initial();
/// assert_eq!(perft_jobs(&p, 6, Profile::DEFAULT, 2), perft(&p, 6, Profile::DEFAULT));
/// ```
#[must_use]
pub fn perft_jobs(position: &Position, depth: u32, profile: Profile, jobs: usize) -> u64 {
    if jobs <= 1 || depth < 3 {
        return perft(position, depth, profile);
    }
    let repetition = profile.has(Switch::EndOnRepetition);
    // Each subtree by the path from the root to its top.
    let mut tops: Vec<Vec<Position>> = vec![vec![*position]];
    let mut cut = 0;
    while cut + 1 < depth && tops.len() < jobs * 16 {
        let mut next = Vec::new();
        for path in &tops {
            let node = path[path.len() - 1];
            for pit in legal_moves(&node, profile) {
                let (child, _) = apply(&node, pit, profile);
                // END-3: a repeat above the last ply ends the game, so
                // nothing below it counts (as in `child_count`).
                if repetition && path.contains(&child) {
                    continue;
                }
                let mut longer = path.clone();
                longer.push(child);
                next.push(longer);
            }
        }
        tops = next;
        cut += 1;
    }
    let taken = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                s.spawn(|| {
                    let mut sum = 0;
                    loop {
                        let k = taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(path) = tops.get(k) else { break sum };
                        let top = path[path.len() - 1];
                        let mut below = Path(repetition.then(|| path.clone()));
                        sum += count(&top, depth - cut, profile, &mut below);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a perft thread does not panic"))
            .sum()
    })
}

/// Perft split by first move: each legal move with the count below it.
#[must_use]
pub fn divide(position: &Position, depth: u32, profile: Profile) -> Vec<(Pit, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut path = Path::new(position, depth, profile);
    legal_moves(position, profile)
        .into_iter()
        .map(|pit| {
            let (child, _) = apply(position, pit, profile);
            (pit, child_count(&child, depth - 1, profile, &mut path))
        })
        .collect()
}

/// The positions from the root to the current node, kept only under
/// `end-on-repetition` (allocated once per perft call, not per move).
struct Path(Option<Vec<Position>>);

impl Path {
    fn new(root: &Position, depth: u32, profile: Profile) -> Path {
        Path(profile.has(Switch::EndOnRepetition).then(|| {
            let mut v = Vec::with_capacity(depth as usize + 1);
            v.push(*root);
            v
        }))
    }
}

fn count(position: &Position, depth: u32, profile: Profile, path: &mut Path) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = legal_moves(position, profile);
    if depth == 1 {
        // Bulk count at the last ply.
        return moves.len() as u64;
    }
    moves
        .into_iter()
        .map(|pit| {
            let (child, _) = apply(position, pit, profile);
            child_count(&child, depth - 1, profile, path)
        })
        .sum()
}

fn child_count(child: &Position, depth: u32, profile: Profile, path: &mut Path) -> u64 {
    match &mut path.0 {
        None => count(child, depth, profile, path),
        Some(stack) => {
            if stack.contains(child) {
                // END-3: the game ended by repetition. (Never at depth 0:
                // a child differs from its parent in the side to move, and
                // only divide at depth 1 asks for depth 0.)
                return 0;
            }
            stack.push(*child);
            let n = count(child, depth, profile, path);
            if let Some(stack) = &mut path.0 {
                stack.pop();
            }
            n
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perft_on_several_threads_counts_the_same() {
        // Every profile, from the start and from the chase (which repeats),
        // at depths where the cut is 1, 2 and more plies down.
        for profile in Profile::all() {
            for (position, depth) in [(Position::initial(), 7), (chase(), 10)] {
                for d in 1..=depth {
                    let one = perft(&position, d, profile);
                    for jobs in [2, 3] {
                        assert_eq!(
                            perft_jobs(&position, d, profile, jobs),
                            one,
                            "{profile} {d}"
                        );
                    }
                }
            }
        }
    }

    fn chase() -> Position {
        "1,0,0,0/1,0,0,0 S 22/24 1234/1234".parse().unwrap()
    }

    #[test]
    fn end_3_a_repeating_move_is_counted_but_has_no_continuation() {
        let rep = Profile::with(&[Switch::EndOnRepetition]);
        // The chase repeats its start at ply 8 (S1 N1 S2 N2 .. S4 N4).
        assert_eq!(perft(&chase(), 8, rep), 1);
        assert_eq!(perft(&chase(), 9, rep), 0);
        assert_eq!(perft(&chase(), 9, Profile::ALL_OFF), 1);
        // The eighth move repeats the start: divide still counts it.
        assert_eq!(divide(&chase(), 8, rep), [("S1".parse().unwrap(), 1)]);
        assert_eq!(divide(&chase(), 9, rep), [("S1".parse().unwrap(), 0)]);
        // Seven plies in, with no history, the eighth move is no repeat.
        let mut p = chase();
        for m in ["S1", "N1", "S2", "N2", "S3", "N3", "S4"] {
            p = crate::play(&p, m.parse().unwrap(), rep).unwrap().0;
        }
        let path_start = divide(&p, 1, rep);
        assert_eq!(path_start.len(), 1);
        assert_eq!(path_start[0].1, 1);
        assert!(divide(&p, 0, rep).is_empty());
    }
}
