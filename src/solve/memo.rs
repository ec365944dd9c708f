//! The opening search's memory: the value of every position before the lock
//! it has finished, 4 bytes a position.
//!
//! Hand-written, not a general map, because of the figure a user sees as
//! the peak memory of `kpe solve`: the opening of the default holds
//! 145,335,442 positions, and a class solves its two openings at once.
//! - A `std` `HashMap<u64, i8>` takes 16 bytes a slot (the pair, aligned)
//!   plus a control byte, at most 7/8 full: 19 to 39 bytes a position, 2.8
//!   to 5.6 GB for one opening.
//! - The one-table memo this replaces (8-byte slots, `key << 8 | margin`)
//!   took 2 GiB an opening, and `kpe solve` peaked at 4.86 GiB.
//! - This one (4-byte slots in many small tables, 3/8 to 3/4 full) takes
//!   5.3 to 10.7 bytes a position: about 1.1 GiB an opening. Measured
//!   (2026-12-06, 2 cores, load below 2, every class): the peak of
//!   `kpe solve` fell from 4.86 GiB to 3.02 GiB (-38%), and the two
//!   openings of a skip-origin class from 97 s and 104 s to 73 s and 78 s
//!   (the same files, byte for byte; spec/SOLVE.md, "Measured").
//!
//! A key (`State::key`: stones `<< 36`, the board's rank `<< 8`, the used
//! pits in the low 8 bits) is split in two. Its stones and the rank's high
//! bits (`rank >> 12`) pick a *part*, a small open-addressing table of its
//! own; the rest (the rank's low 12 bits and the used pits, 20 bits) is kept
//! in the slot beside the margin byte. A part grows on its own, so no
//! growth ever holds a second copy of the whole memo, and the parts taken in
//! order, each sorted, are the entries in key order, with no other copy
//! (`Sorted`).

/// The bits of a board's rank kept in a slot; the rest pick the part.
const LOW_BITS: u32 = 12;
/// The most stones on the board, and so the most parts' rows.
const STONES: usize = crate::board::TOTAL_STONES as usize + 1;
/// An empty slot: no slot of a key reaches bit 28.
const EMPTY: u32 = u32::MAX;
/// The fewest slots of a part that holds anything.
const FIRST_SLOTS: usize = 8;

/// One part: its slots (`rest << 8 | margin as u8`) and how many are filled.
#[derive(Default)]
struct Part {
    slots: Box<[u32]>,
    len: u32,
}

impl Part {
    fn home(&self, rest: u32) -> usize {
        // Fibonacci hashing: the top bits of the product. A part has at
        // least 8 slots, so the shift is below 32.
        let bits = self.slots.len().trailing_zeros();
        (rest.wrapping_mul(0x9E37_79B9) >> (32 - bits)) as usize
    }

    fn get(&self, rest: u32) -> Option<i8> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(rest);
        loop {
            let slot = self.slots[i];
            if slot == EMPTY {
                return None;
            }
            if slot >> 8 == rest {
                return Some(slot as u8 as i8);
            }
            i = (i + 1) & mask;
        }
    }

    /// Puts `rest`'s margin in; `false` when it was there already.
    fn insert(&mut self, rest: u32, margin: i8) -> bool {
        if (self.len as usize + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(rest);
        while self.slots[i] != EMPTY {
            if self.slots[i] >> 8 == rest {
                return false;
            }
            i = (i + 1) & mask;
        }
        self.slots[i] = rest << 8 | u32::from(margin as u8);
        self.len += 1;
        true
    }

    fn grow(&mut self) {
        let size = (2 * self.slots.len()).max(FIRST_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; size].into_boxed_slice());
        self.len = 0;
        for slot in old.iter().copied().filter(|&s| s != EMPTY) {
            self.insert(slot >> 8, slot as u8 as i8);
        }
    }
}

/// Where a key goes: its stones, its part in that row and the rest.
fn split(key: u64) -> (usize, usize, u32) {
    let stones = (key >> 36) as usize;
    let rank = (key >> 8) & ((1 << 28) - 1);
    let used = (key & 0xFF) as u32;
    debug_assert!(stones < STONES, "a key holds at most 48 stones");
    (
        stones,
        (rank >> LOW_BITS) as usize,
        ((rank & ((1 << LOW_BITS) - 1)) as u32) << 8 | used,
    )
}

/// Remembered values, by key (`State::key`).
pub(crate) struct Memo {
    /// `rows[stones][rank >> 12]`, grown as keys come.
    rows: Vec<Vec<Part>>,
    len: u64,
}

impl Memo {
    pub(crate) fn new() -> Memo {
        Memo {
            rows: (0..STONES).map(|_| Vec::new()).collect(),
            len: 0,
        }
    }

    pub(crate) fn get(&self, key: u64) -> Option<i8> {
        let (stones, part, rest) = split(key);
        self.rows.get(stones)?.get(part)?.get(rest)
    }

    pub(crate) fn insert(&mut self, key: u64, margin: i8) {
        let (stones, part, rest) = split(key);
        let row = &mut self.rows[stones];
        if row.len() <= part {
            row.resize_with(part + 1, Part::default);
        }
        if row[part].insert(rest, margin) {
            self.len += 1;
        }
    }

    /// The remembered positions.
    #[cfg(test)]
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The entries in key order, in the memo's own memory: each part's
    /// filled slots, sorted.
    pub(crate) fn into_sorted(self) -> Sorted {
        let mut rows = self.rows;
        for part in rows.iter_mut().flatten() {
            let mut slots = std::mem::take(&mut part.slots).into_vec();
            slots.retain(|&s| s != EMPTY);
            slots.sort_unstable();
            part.slots = slots.into_boxed_slice();
        }
        Sorted {
            rows,
            len: self.len,
        }
    }
}

/// A memo's entries in key order.
pub(crate) struct Sorted {
    rows: Vec<Vec<Part>>,
    len: u64,
}

impl Sorted {
    /// How many entries.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Every entry (`key << 8 | margin as u8`), in key order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.rows.iter().enumerate().flat_map(|(stones, row)| {
            row.iter().enumerate().flat_map(move |(high, part)| {
                part.slots.iter().map(move |&slot| {
                    let rest = u64::from(slot >> 8);
                    let rank = (high as u64) << LOW_BITS | rest >> 8;
                    let key = (stones as u64) << 36 | rank << 8 | (rest & 0xFF);
                    key << 8 | u64::from(slot & 0xFF)
                })
            })
        })
    }

    /// The margin of `key`, by binary search in its part.
    pub(crate) fn get(&self, key: u64) -> Option<i8> {
        let (stones, part, rest) = split(key);
        let slots = &self.rows.get(stones)?.get(part)?.slots;
        let i = slots.binary_search_by_key(&rest, |s| s >> 8).ok()?;
        Some(slots[i] as u8 as i8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::rank::layer_size;

    /// Keys spread over every stone count, ranks up to the largest layer's
    /// and every used-pits byte, with margins of both signs.
    fn keys() -> Vec<(u64, i8)> {
        let mut out = Vec::new();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for n in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let stones = (n % 49) as u8;
            let rank = x % layer_size(stones);
            let used = (x >> 40) & 0xFF;
            let key = u64::from(stones) << 36 | rank << 8 | used;
            out.push((key, ((x >> 50) % 97) as i8 - 48));
        }
        out.push((48 << 36 | (layer_size(48) - 1) << 8 | 0xFE, -48));
        out.push((0, 48));
        out
    }

    #[test]
    fn the_memo_keeps_every_value_through_growth_and_sorts_them_as_keys() {
        let keys = keys();
        let mut memo = Memo::new();
        let mut model = std::collections::BTreeMap::new();
        for &(key, margin) in &keys {
            memo.insert(key, margin);
            // The first value of a key stays, as in the memo.
            model.entry(key).or_insert(margin);
        }
        assert_eq!(memo.len(), model.len() as u64);
        // A key no insert gave, in a part that holds others.
        // (another used-pits byte beside a key given: its part and rank).
        let absent = model
            .keys()
            .map(|k| k ^ 1)
            .find(|k| !model.contains_key(k))
            .unwrap();
        for (&key, &margin) in &model {
            assert_eq!(memo.get(key), Some(margin), "key {key:#x}");
        }
        assert_eq!(memo.get(absent), None);
        let sorted = memo.into_sorted();
        assert_eq!(sorted.len(), model.len() as u64);
        let expected: Vec<u64> = model
            .iter()
            .map(|(&k, &m)| k << 8 | u64::from(m as u8))
            .collect();
        assert_eq!(sorted.iter().collect::<Vec<_>>(), expected);
        for (&key, &margin) in &model {
            assert_eq!(sorted.get(key), Some(margin), "key {key:#x}");
        }
        assert_eq!(sorted.get(absent), None);
    }
}
