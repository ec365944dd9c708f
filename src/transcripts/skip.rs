// Measured (issue 22, 2026-12-04, load 0.3-1.2, `check_speed` on the
// bench file with sorted keys and the header not read from the end of the
// file, fastest of 10 rounds): finding the end of `games` by its brackets
// in pieces takes `--jobs 2` to 40.8 ms against 50.8 ms reading `games`
// value by value (1.25x), and `--jobs 1` to 73.4 ms against 78.9 ms
// (1.07x). A JSON crate skips a value only by parsing it, which is the
// slower way here.

//! Finding where `games` ends on one thread for each job, when some header
//! field follows it (as with sorted keys) that could not be read at the end
//! of the file, so that the header can be read before the games are
//! checked.
//!
//! Without this, `games` is skipped by reading it value by value, or (when
//! that finds something out of the ordinary) by its brackets alone, as
//! [`Scanner::value`](crate::transcripts::scan::Scanner::value) does. Both end at
//! the same bracket unless a `"`, `[` or `{` is part of a number or a
//! literal (`1[`, `t"`): only then does reading value by value see a
//! bracket or a string that the brackets alone do not. So the brackets
//! alone are counted here, in pieces, each on a thread, and any byte that
//! could be such a case (a `"`, `[` or `{` outside a string not after `,`,
//! `:`, `[`, `{` or whitespace; a `:` not after a string or whitespace)
//! gives the search up, leaving `games` to the way without it. In JSON such
//! a byte is never found, so a transcript gives it up only when it is
//! broken there.
//!
//! A piece starts just after the first `":` past its nominal place, where
//! in any transcript a key has just ended: the piece's thread counts from
//! there as outside a string. The calling thread joins the pieces in
//! order and checks that each one does start outside a string (that the
//! piece before it ends outside one), else it gives the search up too.
//! The piece in which the nesting comes back to zero is counted once more,
//! to the closing bracket.
//!
//! A piece is counted 64 bytes at a time, with a bit for each byte of the
//! kinds the count looks at (`wide`'s SIMD vectors); a block with a
//! backslash, and the last bytes, are counted one by one, which is what
//! the blocks are tested against.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

use wide::u8x64;

use super::span::SpanReader;
use crate::transcripts::scan::{Mark, first_special};

/// What counting a piece's brackets found, from its first byte (outside a
/// string) to its last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Count {
    /// The piece ends inside a string.
    in_string: bool,
    /// The nesting at its end, from its start.
    depth: i64,
    /// The lowest nesting just after a closing bracket (`i64::MAX` if
    /// there is none).
    low: i64,
    /// A byte that gives the search up was found.
    odd: bool,
}

/// Counts the brackets of `bytes`, the first outside a string and after
/// `prev`, up to the closing bracket that brings the nesting to `close`
/// (from the start), if one does: what was counted, and where that
/// bracket's next byte is.
///
/// Blocks of 64 bytes with no backslash are counted all at once
/// ([`Counter::block`]), the others and the last bytes one by one
/// ([`Counter::bytes`]), which is what the blocks are tested against.
fn count(bytes: &[u8], prev: u8, close: i64) -> (Count, Option<usize>) {
    let mut counter = Counter::new(prev, close);
    let mut i = 0;
    while let Some(block) = bytes.get(i..i + BLOCK) {
        let block: &[u8; BLOCK] = block.try_into().expect("a block");
        let masks = Masks::of(block);
        let (passed, to) = if !masks.backslash {
            (BLOCK, counter.block(&masks, block[BLOCK - 1]))
        } else {
            // Escapes are passed one by one.
            match counter.bytes(&bytes[i..], BLOCK) {
                Ok(passed) => (passed, None),
                Err(to) => (0, Some(to)),
            }
        };
        if let Some(to) = to {
            return (counter.found, Some(i + to));
        }
        i += passed;
    }
    let tail = &bytes[i.min(bytes.len())..];
    match counter.bytes(tail, tail.len()) {
        Ok(_) => (counter.found, None),
        Err(to) => (counter.found, Some(i + to)),
    }
}

/// [`count`] one byte at a time.
#[cfg(test)]
fn count_bytes(bytes: &[u8], prev: u8, close: i64) -> (Count, Option<usize>) {
    let mut counter = Counter::new(prev, close);
    let to = counter.bytes(bytes, bytes.len()).err();
    (counter.found, to)
}

/// Bytes counted at once by [`Counter::block`].
const BLOCK: usize = 64;

/// A bracket, a quote or a colon may follow this byte (outside a string)
/// with nothing odd about it.
fn opens_after(b: u8) -> bool {
    matches!(b, b',' | b':' | b'[' | b'{' | b' ' | b'\n' | b'\r' | b'\t')
}

/// A colon may follow this byte.
fn colon_after(b: u8) -> bool {
    matches!(b, b'"' | b' ' | b'\n' | b'\r' | b'\t')
}

/// The bytes of a block that [`count`] looks at, a bit each (the first
/// byte's the lowest), whether inside a string or not.
struct Masks {
    /// There is a backslash in the block (and no other field is set).
    backslash: bool,
    quote: u64,
    open: u64,
    close: u64,
    colon: u64,
    /// The bytes [`opens_after`] says yes to.
    opens_after: u64,
    /// The bytes [`colon_after`] says yes to.
    colon_after: u64,
}

impl Masks {
    fn of(block: &[u8; BLOCK]) -> Masks {
        let v = u8x64::new(*block);
        if v.simd_eq(b'\\').any() {
            return Masks {
                backslash: true,
                quote: 0,
                open: 0,
                close: 0,
                colon: 0,
                opens_after: 0,
                colon_after: 0,
            };
        }
        // `[` and `{` differ only in the bit 0x20, as do `]` and `}`; tab
        // and carriage return in the bit 0x04.
        let folded = v | u8x64::splat(0x20);
        let (quote, open) = (v.simd_eq(b'"'), folded.simd_eq(b'{'));
        let space = v.simd_eq(b' ') | v.simd_eq(b'\n') | (v | u8x64::splat(0x04)).simd_eq(b'\r');
        let colon = v.simd_eq(b':');
        Masks {
            backslash: false,
            quote: quote.to_bitmask(),
            open: open.to_bitmask(),
            close: folded.simd_eq(b'}').to_bitmask(),
            colon: colon.to_bitmask(),
            opens_after: (v.simd_eq(b',') | colon | open | space).to_bitmask(),
            colon_after: (quote | space).to_bitmask(),
        }
    }
}

/// Each bit set from a set bit of `x` to the next, that one left out.
fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

/// The counting so far, of bytes that follow one another.
struct Counter {
    found: Count,
    /// The byte before the next one.
    prev: u8,
    /// The nesting, from the start, at which the count stops.
    close: i64,
}

impl Counter {
    fn new(prev: u8, close: i64) -> Counter {
        Counter {
            found: Count {
                in_string: false,
                depth: 0,
                low: i64::MAX,
                odd: false,
            },
            prev,
            close,
        }
    }

    /// Counts `bytes` one at a time until at least `until` are passed
    /// (more if a string or an escape goes on), or all are: how many were
    /// passed, or `Err` with where the next byte is after the closing
    /// bracket.
    fn bytes(&mut self, bytes: &[u8], until: usize) -> Result<usize, usize> {
        let found = &mut self.found;
        let mut i = 0;
        while i < until.min(bytes.len()) {
            if found.in_string {
                i = first_special::<false>(bytes, i);
                match bytes.get(i) {
                    None => break,
                    // The escaped byte is passed with it.
                    Some(b'\\') => i += 2,
                    Some(_) => {
                        found.in_string = false;
                        self.prev = b'"';
                        i += 1;
                    }
                }
                continue;
            }
            let b = bytes[i];
            i += 1;
            match b {
                b'"' => {
                    found.odd |= !opens_after(self.prev);
                    found.in_string = true;
                }
                b'[' | b'{' => {
                    found.odd |= !opens_after(self.prev);
                    found.depth += 1;
                }
                b']' | b'}' => {
                    found.depth -= 1;
                    found.low = found.low.min(found.depth);
                    if found.depth == self.close {
                        return Err(i);
                    }
                }
                b':' => found.odd |= !colon_after(self.prev),
                _ => {}
            }
            self.prev = b;
        }
        Ok(i.min(bytes.len()))
    }

    /// Counts a block with no backslash in it, whose masks are `masks` and
    /// last byte `last`, as [`Counter::bytes`] would: where the next byte
    /// is after the closing bracket, if it is in the block.
    fn block(&mut self, masks: &Masks, last: u8) -> Option<usize> {
        let found = &mut self.found;
        // Inside a string, its opening quote counted in and its closing one
        // out.
        let inside = prefix_xor(masks.quote) ^ if found.in_string { !0 } else { 0 };
        let outside = !inside;
        let (opens, closes) = (masks.open & outside, masks.close & outside);
        // A byte before the block is the one counted last.
        let after = |set: u64, prev: bool| (set << 1) | u64::from(prev);
        let openings = (masks.quote & inside) | opens;
        let odd = (openings & !after(masks.opens_after, opens_after(self.prev)))
            | (masks.colon & outside & !after(masks.colon_after, colon_after(self.prev)));
        let (opened, closed) = (
            i64::from(opens.count_ones()),
            i64::from(closes.count_ones()),
        );
        // No closing bracket can bring the nesting lower than this: if that
        // is neither a new low nor `close`, there is no need to look at
        // them one by one.
        let lowest = found.depth - closed;
        let mut left = if lowest >= found.low && lowest > self.close {
            0
        } else {
            closes
        };
        while left != 0 {
            let at = left.trailing_zeros();
            let before = (1u64 << at) - 1;
            let depth = found.depth + i64::from((opens & before).count_ones())
                - i64::from((closes & before).count_ones())
                - 1;
            found.low = found.low.min(depth);
            if depth == self.close {
                found.depth = depth;
                found.odd |= odd & (before | (1 << at)) != 0;
                found.in_string = false;
                return Some(at as usize + 1);
            }
            left &= left - 1;
        }
        found.depth += opened - closed;
        found.odd |= odd != 0;
        found.in_string = inside >> 63 == 1;
        self.prev = last;
        None
    }
}

/// A piece as its thread found it: where it starts and ends (at the first
/// byte of the next), what its count found, its line breaks and where the
/// last is.
struct Piece {
    start: u64,
    end: u64,
    count: Count,
    lines: u64,
    last_break: Option<u64>,
}

/// A piece's start is looked for this many bytes at a time: a transcript
/// has a `":` every few bytes.
const SEEK: u64 = 4096;

/// Where the piece whose nominal place is `at` starts: just after the
/// first `":` whose colon is at `at` or later, before `before`; if there
/// is none, the end of the file when `before` is (the last piece is then
/// empty). `None` if there is none before another piece's place, or on a
/// read error.
fn piece_start(
    reader: &mut SpanReader,
    at: u64,
    before: u64,
    file_len: u64,
    bytes: &mut Vec<u8>,
) -> Option<u64> {
    let before = before.min(file_len);
    let mut from = at;
    while from < before {
        let len = SEEK.min(before - from);
        // One byte before, for a quote just before `from`.
        reader.read_upto(from - 1, (len + 1) as usize, bytes).ok()?;
        if let Some(k) = memchr::memmem::find(bytes, b"\":") {
            return Some(from - 1 + k as u64 + 2);
        }
        from += len;
    }
    (before == file_len).then_some(file_len)
}

/// Counts piece `k` of the pieces of `len` bytes from `at` to `file_len`.
fn piece(
    reader: &mut SpanReader,
    at: u64,
    len: u64,
    file_len: u64,
    k: u64,
    bytes: &mut Vec<u8>,
) -> Option<Piece> {
    let nominal = |k: u64| at + k * len;
    let start = if k == 0 {
        at
    } else {
        piece_start(reader, nominal(k), nominal(k + 1), file_len, bytes)?
    };
    let end = piece_start(reader, nominal(k + 1), nominal(k + 2), file_len, bytes)?;
    reader
        .read_upto(start, (end - start) as usize, bytes)
        .ok()?;
    if bytes.len() as u64 != end - start || (k == 0 && bytes.first() != Some(&b'[')) {
        return None;
    }
    let (count, _) = count(bytes, b':', i64::MIN);
    Some(Piece {
        start,
        end,
        count,
        lines: memchr::memchr_iter(b'\n', bytes).count() as u64,
        last_break: memchr::memrchr(b'\n', bytes).map(|k| start + k as u64),
    })
}

/// Where `games` ends, found with `jobs` threads in pieces of about `len`
/// bytes: the place just after its closing bracket, `at` being its opening
/// one. `None` when the search gives up (see the module's comment), when
/// the file holds fewer than four pieces, when `games` is not an array, on
/// a read error, and when the brackets never close: `games` is then read
/// value by value.
pub(super) fn games_end(
    path: &Path,
    source: &str,
    at: Mark,
    jobs: usize,
    len: usize,
) -> Option<Mark> {
    let file_len = std::fs::metadata(path).ok()?.len();
    let len = len.max(1) as u64;
    let pieces = (file_len.saturating_sub(at.offset)).div_ceil(len);
    if jobs == 0 || pieces < 4 {
        return None;
    }
    let readers = (0..jobs)
        .map(|_| SpanReader::open(path, source).ok())
        .collect::<Option<Vec<_>>>()?;
    let mut own = SpanReader::open(path, source).ok()?;
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<(u64, Option<Piece>)>();
        for mut reader in readers {
            let (tx, next, stop) = (tx.clone(), &next, &stop);
            s.spawn(move || {
                let mut bytes = Vec::new();
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= pieces || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let found = piece(&mut reader, at.offset, len, file_len, k, &mut bytes);
                    if tx.send((k, found)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let end = join(&rx, &mut own, at, pieces);
        stop.store(true, Ordering::Relaxed);
        end
    })
}

/// Joins the pieces, received in any order, in their order: the place just
/// after the closing bracket of `games` (opened at `at`), if the search
/// does not give up.
fn join(
    rx: &mpsc::Receiver<(u64, Option<Piece>)>,
    reader: &mut SpanReader,
    at: Mark,
    pieces: u64,
) -> Option<Mark> {
    let mut waiting = BTreeMap::new();
    let (mut depth, mut lines, mut last_break) = (0i64, 0u64, None);
    let mut start = at.offset;
    for k in 0..pieces {
        let piece = loop {
            if let Some(piece) = waiting.remove(&k) {
                break piece;
            }
            let (seq, piece) = rx.recv().ok()?;
            waiting.insert(seq, piece);
        }?;
        if piece.start != start {
            return None;
        }
        if piece.count.low.saturating_add(depth) <= 0 {
            // The closing bracket is in this piece: counted again, to it.
            let mut bytes = Vec::new();
            reader
                .read_upto(piece.start, (piece.end - piece.start) as usize, &mut bytes)
                .ok()?;
            let (count, Some(to)) = count(&bytes, b':', -depth) else {
                return None;
            };
            if count.odd {
                return None;
            }
            let passed = &bytes[..to];
            lines += memchr::memchr_iter(b'\n', passed).count() as u64;
            let last_break = memchr::memrchr(b'\n', passed)
                .map(|k| piece.start + k as u64)
                .or(last_break);
            let offset = piece.start + to as u64;
            return Some(Mark {
                offset,
                line: at.line + lines,
                column: last_break.map_or(at.column + (offset - at.offset), |b| offset - b),
            });
        }
        if piece.count.odd || piece.count.in_string {
            return None;
        }
        depth += piece.count.depth;
        lines += piece.lines;
        last_break = piece.last_break.or(last_break);
        start = piece.end;
    }
    None
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::transcripts::scan::Scanner;

    const START: Mark = Mark {
        offset: 0,
        line: 1,
        column: 1,
    };

    /// The scan of `text` at byte `at`.
    fn scan_at(text: &[u8], at: usize) -> Scanner<&[u8]> {
        let mut s = Scanner::new(text, START);
        for _ in 0..at {
            s.peek().expect("read");
            s.bump();
        }
        s
    }

    /// `games_end` on `text`, `games` opening at byte `at`, with pieces of
    /// `len` bytes.
    fn found(text: &[u8], at: usize, len: usize) -> Option<Mark> {
        let mut file = tempfile::NamedTempFile::new().expect("a temporary file");
        file.write_all(text).expect("written");
        games_end(file.path(), "t.json", scan_at(text, at).mark(), 2, len)
    }

    /// Where the one job's skip by brackets ends, from byte `at`.
    fn one_job(text: &[u8], at: usize) -> Mark {
        let mut s = scan_at(text, at);
        s.value().expect("a value");
        s.mark()
    }

    #[test]
    fn the_end_is_where_the_brackets_close() {
        let games: Vec<String> = (0..400)
            .map(|g| {
                format!(
                    r#"{{"id": "g{g}", "plies": [{{"move": "S{}", "after": "a]\"}}\\{{", "legal": ["S1"]}}]}}"#,
                    g % 9 + 1
                )
            })
            .collect();
        for sep in [",", ",\n", " ,\r\n  "] {
            let text = format!(
                "{{\"games\": [{}],\n \"format\": \"kpe-transcript\"}}",
                games.join(sep)
            );
            let at = text.find('[').expect("games");
            let end = one_job(text.as_bytes(), at);
            for len in [100, 1000, 5000] {
                assert_eq!(
                    found(text.as_bytes(), at, len),
                    Some(end),
                    "{len} bytes, {sep:?}"
                );
            }
            // A piece with no `":` in it: the search gives up.
            assert_eq!(found(text.as_bytes(), at, 7), None, "{sep:?}");
        }
    }

    #[test]
    fn a_piece_that_starts_inside_a_string_gives_the_search_up() {
        // Every string ends with a space, and one a game holds `":`
        // (escaped): a piece may start inside it and count on as if
        // outside, with no odd byte to show it, to the next piece, which
        // starts after a key. The piece before it ends inside the string.
        let game = r#"{"a ": "x\": 1 ", "b ": ["c ", "d "], "e ": {"f ": "g "}}"#;
        let text = format!(
            "{{\"games\": [{}], \"format \": 1}}",
            vec![game; 200].join(", ")
        );
        let at = text.find('[').expect("games");
        let end = one_job(text.as_bytes(), at);
        let mut shared = 0;
        for len in 20..400 {
            match found(text.as_bytes(), at, len) {
                None => {}
                Some(found) => {
                    assert_eq!(found, end, "{len} bytes");
                    shared += 1;
                }
            }
        }
        // Some pieces start outside strings all along.
        assert!(shared > 0);
    }

    /// Where reading `games` value by value (as one job does when a header
    /// field follows it) ends, from byte `at`, if it does.
    fn value_by_value(text: &[u8], at: usize) -> Option<Mark> {
        let mut file = tempfile::NamedTempFile::new().expect("a temporary file");
        file.write_all(text).expect("written");
        let mut top = super::super::reader::Top::open(file.path(), "t.json").expect("opened");
        for _ in 0..at {
            top.scan.peek().expect("read");
            top.scan.bump();
        }
        top.note_games().expect("read")?;
        Some(top.scan.mark())
    }

    /// Bits of a `games` array, well-formed or not.
    const BITS: &[&str] = &[
        r#"{"id": "g", "plies": [{"move": "S1", "after": "a]}"}]}"#,
        r#"{"id": "x\": [{", "plies": []}"#,
        r#"{"a ": "x\": 1 ", "b ": ["c ", "d "]}"#,
        "1[2]",
        "t{",
        "n\"]\"",
        "f:[0]",
        "\"s\\\\\"",
        "[]",
        "{}",
        ",",
        ", ",
        ",\n",
        "]",
        "}",
        "\"",
        ":",
    ];

    /// The bytes the count looks at (some twice, to be drawn more often),
    /// some others, and bytes one bit away from a bracket (`;` `=`, and two
    /// with the high bit) or from whitespace (form feed, vertical tab).
    const ALPHABET: &[u8] = b"\"\\[]{}:, \n\r\ta1;{}[]\"\"::,,  \x1b\x7f\x3b\x3d\xfb\xdb\x0c\x0b";

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        #[test]
        fn blocks_count_as_bytes_one_by_one_do(
            picks in proptest::collection::vec(0..ALPHABET.len(), 0..700),
            prev in 0..ALPHABET.len(),
            close in proptest::prop_oneof![-6i64..3, proptest::strategy::Just(i64::MIN)],
            plain in 0usize..3,
        ) {
            // Some texts with no backslash, so that every block is counted
            // at once.
            let bytes: Vec<u8> = picks
                .iter()
                .map(|&k| ALPHABET[k])
                .map(|b| if plain == 0 && b == b'\\' { b'a' } else { b })
                .collect();
            proptest::prop_assert_eq!(
                count(&bytes, ALPHABET[prev], close),
                count_bytes(&bytes, ALPHABET[prev], close)
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        #[test]
        fn the_end_found_is_where_one_job_ends_both_ways(
            bits in proptest::collection::vec(0..BITS.len(), 0..300),
            len in 8usize..600,
        ) {
            // Mostly games, each followed by a comma.
            let games: String = bits
                .iter()
                .map(|&b| if b < 3 { format!("{}, ", BITS[b]) } else { BITS[b].to_owned() })
                .collect();
            let text = format!("{{\"games\": [{games}{}], \"format\": \"f\"}}", BITS[0]);
            let at = text.find('[').expect("games");
            if let Some(end) = found(text.as_bytes(), at, len) {
                proptest::prop_assert_eq!(end, one_job(text.as_bytes(), at));
                if let Some(other) = value_by_value(text.as_bytes(), at) {
                    proptest::prop_assert_eq!(end, other);
                }
            }
        }
    }
}
