// Measured (issue 22, `benches/json-crates/`): with the quick reader it
// makes kpe-check's whole check 1.6-1.7x faster than the fastest crate
// (serde_json, sonic-rs, simd-json) reading the transcript into its types
// alone, and 4.1-5.2x faster than a crate's read plus the rules; reading
// the games one by one with serde_json (split with `memchr`, or by its
// `StreamDeserializer`) gives no more than 1.3x of that back.

//! Finding where each game of a transcript starts and ends, without parsing
//! it: a structural scan (strings, escapes, brackets) of the top-level
//! object and of the `games` array, much cheaper than the JSON parse each
//! game then gets on its own. The spans let games be parsed in any order of
//! their fields (a span can be read twice) and by several threads at once.
//!
//! The scanner checks the JSON between the values it skips (keys, colons,
//! commas, the brackets of the top-level object and of `games`); each value
//! is checked by the JSON parser when it is read from its span, so the
//! errors are serde_json's, at the right line and column.

use std::io::{self, Read};

/// Where a JSON value lies in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    /// Byte offset of its first byte.
    pub(crate) start: u64,
    /// Its length in bytes.
    pub(crate) len: u64,
    /// 1-based line of its first byte.
    pub(crate) line: u64,
    /// 1-based column (in bytes) of its first byte.
    pub(crate) column: u64,
}

impl Span {
    /// A line and column found by a parser that started at this span's
    /// first byte, made absolute.
    pub(crate) fn absolute(&self, line: usize, column: usize) -> (usize, usize) {
        let (line, column) = (line as u64, column as u64);
        if line <= 1 {
            (
                self.line as usize,
                (self.column + column).saturating_sub(1) as usize,
            )
        } else {
            ((self.line + line - 1) as usize, column as usize)
        }
    }
}

/// A place in the file: offset, line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mark {
    pub(crate) offset: u64,
    pub(crate) line: u64,
    pub(crate) column: u64,
}

/// Why the scan stopped.
#[derive(Debug)]
pub(crate) enum ScanError {
    /// Reading failed (or the token guard refused a token).
    Io(io::Error),
    /// The JSON between values is malformed.
    Syntax {
        /// Where.
        at: Mark,
        /// What was expected, in serde_json's words.
        message: String,
    },
}

impl From<io::Error> for ScanError {
    fn from(e: io::Error) -> ScanError {
        ScanError::Io(e)
    }
}

/// A value's bytes being kept as it is scanned.
struct Recording {
    out: Vec<u8>,
    /// How many more bytes it may take.
    room: usize,
    /// It had more: the bytes are dropped (the value is read again from
    /// the file).
    over: bool,
}

/// A buffered byte reader that knows its offset, line and column.
pub(crate) struct Scanner<R> {
    inner: R,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    at: Mark,
    /// Where the bytes consumed go while a value is recorded
    /// ([`Self::value_into`]).
    record: Option<Recording>,
    /// A read returned nothing: the input is over.
    eof: bool,
}

const BUF: usize = 64 * 1024;

impl<R: Read> Scanner<R> {
    /// A scanner over `inner`, whose first byte is at `at`.
    pub(crate) fn new(inner: R, at: Mark) -> Scanner<R> {
        Scanner {
            inner,
            buf: vec![0; BUF].into_boxed_slice(),
            pos: 0,
            len: 0,
            at,
            record: None,
            eof: false,
        }
    }

    /// Hands the next `n` buffered bytes to the recording, if one is on.
    fn keep(&mut self, n: usize) {
        if let Some(r) = &mut self.record
            && !r.over
        {
            if r.room >= n {
                r.out.extend_from_slice(&self.buf[self.pos..self.pos + n]);
                r.room -= n;
            } else {
                r.over = true;
            }
        }
    }

    /// [`Self::value`], appending the value's bytes to `out` if there are
    /// at most `limit` of them. Returns the span and whether `out` got
    /// them (else `out` is as it was).
    pub(crate) fn value_into(
        &mut self,
        out: &mut Vec<u8>,
        limit: usize,
    ) -> Result<(Span, bool), ScanError> {
        let mark = out.len();
        self.record = Some(Recording {
            out: std::mem::take(out),
            room: limit,
            over: false,
        });
        let span = self.value();
        let r = self.record.take().expect("the recording just made");
        *out = r.out;
        if r.over || span.is_err() {
            out.truncate(mark);
        }
        Ok((span?, !r.over))
    }

    /// Where the next byte is.
    pub(crate) fn mark(&self) -> Mark {
        self.at
    }

    /// A syntax error at the next byte.
    pub(crate) fn error(&self, message: impl Into<String>) -> ScanError {
        ScanError::Syntax {
            at: self.at,
            message: message.into(),
        }
    }

    fn fill(&mut self) -> io::Result<bool> {
        if self.pos < self.len {
            return Ok(true);
        }
        self.pos = 0;
        self.len = 0;
        self.read_more()?;
        Ok(self.len > 0)
    }

    /// Reads into the free end of the buffer; false at the end of the
    /// input.
    fn read_more(&mut self) -> io::Result<bool> {
        loop {
            match self.inner.read(&mut self.buf[self.len..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.len += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The bytes from the next one on, at least `want` of them unless the
    /// input ends first: a value can be read in place, where it lies in
    /// the buffer (which grows to hold them), then passed with
    /// [`Self::advance`].
    pub(crate) fn window(&mut self, want: usize) -> io::Result<&[u8]> {
        if self.len - self.pos < want && !self.eof {
            if self.buf.len() - self.pos < want {
                // No room after the place: the bytes kept move to the
                // front, of a larger buffer if need be (four times `want`,
                // so that they move at most once for every three times
                // `want` passed).
                let kept = self.len - self.pos;
                if self.buf.len() < 2 * want {
                    let mut buf = vec![0; 4 * want].into_boxed_slice();
                    buf[..kept].copy_from_slice(&self.buf[self.pos..self.len]);
                    self.buf = buf;
                } else {
                    self.buf.copy_within(self.pos..self.len, 0);
                }
                (self.pos, self.len) = (0, kept);
            }
            while self.len - self.pos < want && self.read_more()? {}
        }
        Ok(&self.buf[self.pos..self.len])
    }

    /// Consumes the first `n` bytes of the last [`Self::window`].
    pub(crate) fn advance(&mut self, n: usize) {
        self.consume(n);
    }

    /// The next byte, not consumed; `None` at the end.
    pub(crate) fn peek(&mut self) -> io::Result<Option<u8>> {
        Ok(if self.fill()? {
            Some(self.buf[self.pos])
        } else {
            None
        })
    }

    /// Consumes the byte [`Self::peek`] returned.
    pub(crate) fn bump(&mut self) {
        self.keep(1);
        let b = self.buf[self.pos];
        self.pos += 1;
        self.at.offset += 1;
        if b == b'\n' {
            self.at.line += 1;
            self.at.column = 1;
        } else {
            self.at.column += 1;
        }
    }

    /// Skips whitespace; returns the next byte, not consumed.
    pub(crate) fn skip_ws(&mut self) -> io::Result<Option<u8>> {
        while let Some(b) = self.peek()? {
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.bump();
            } else {
                return Ok(Some(b));
            }
        }
        Ok(None)
    }

    /// Consumes bytes `buf[pos..pos + n]`, counting their lines.
    fn consume(&mut self, n: usize) {
        self.keep(n);
        let bytes = &self.buf[self.pos..self.pos + n];
        match memchr::memrchr(b'\n', bytes) {
            None => self.at.column += n as u64,
            Some(last) => {
                self.at.line += memchr::memchr_iter(b'\n', bytes).count() as u64;
                self.at.column = (n - last) as u64;
            }
        }
        self.pos += n;
        self.at.offset += n as u64;
    }

    /// Reads a string token (at its opening quote) and returns its raw
    /// bytes, quotes included, keeping at most `keep` of them (the rest is
    /// skipped).
    pub(crate) fn string(&mut self, keep: usize) -> io::Result<Vec<u8>> {
        let mut raw = Vec::new();
        self.string_into(&mut raw, keep)?;
        Ok(raw)
    }

    fn string_into(&mut self, raw: &mut Vec<u8>, keep: usize) -> io::Result<()> {
        // The opening quote.
        if self.peek()?.is_none() {
            return Ok(());
        }
        raw.push(b'"');
        self.bump();
        let mut escaped = false;
        while self.fill()? {
            let rest = &self.buf[self.pos..self.len];
            if escaped {
                escaped = false;
                if raw.len() < keep {
                    raw.push(rest[0]);
                }
                self.consume(1);
                continue;
            }
            let Some(k) = memchr::memchr2(b'"', b'\\', rest) else {
                let n = rest.len();
                let room = keep.saturating_sub(raw.len()).min(n);
                raw.extend_from_slice(&rest[..room]);
                self.consume(n);
                continue;
            };
            let room = keep.saturating_sub(raw.len()).min(k + 1);
            raw.extend_from_slice(&rest[..room]);
            let quote = rest[k] == b'"';
            self.consume(k + 1);
            if quote {
                return Ok(());
            }
            escaped = true;
        }
        // Unterminated: the parser of the value says so, where.
        Ok(())
    }

    /// Skips one JSON value, checking only its structure (the brackets
    /// balance, strings end), and returns where it lies. Its contents are
    /// for the JSON parser to check.
    ///
    /// # Errors
    ///
    /// A syntax error when no value starts here.
    pub(crate) fn value(&mut self) -> Result<Span, ScanError> {
        let start = self.at;
        let Some(first) = self.peek()? else {
            return Err(self.error("EOF while parsing a value"));
        };
        match first {
            b'"' => {
                let mut sink = Vec::new();
                self.string_into(&mut sink, 0)?;
            }
            b'{' | b'[' => self.compound()?,
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                // A scalar: up to the next delimiter.
                while let Some(b) = self.peek()? {
                    if matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                        break;
                    }
                    self.bump();
                }
            }
            _ => return Err(self.error("expected value")),
        }
        Ok(Span {
            start: start.offset,
            len: self.at.offset - start.offset,
            line: start.line,
            column: start.column,
        })
    }

    /// Skips an object or array, at its opening bracket, to the bracket
    /// that brings the nesting back to zero. Which bracket closes which is
    /// left to the parser of the span: in well-formed JSON the span is
    /// exactly the value, and in any other the parser, reading from the
    /// span's start, meets the first fault before the span ends.
    fn compound(&mut self) -> io::Result<()> {
        let mut depth: u64 = 0;
        // Within a string, and just after a backslash in it.
        let (mut in_string, mut escaped) = (false, false);
        while self.fill()? {
            let rest = &self.buf[self.pos..self.len];
            let mut i = 0;
            let mut end = false;
            while i < rest.len() {
                if in_string {
                    if escaped {
                        escaped = false;
                        i += 1;
                        continue;
                    }
                    i = quote_or_backslash(rest, i);
                    if i < rest.len() {
                        in_string = rest[i] != b'"';
                        escaped = in_string;
                        i += 1;
                    }
                    continue;
                }
                let b = rest[i];
                i += 1;
                match b {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            end = true;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            self.consume(i);
            if end {
                return Ok(());
            }
        }
        // Unterminated: the parser of the value says so, where.
        Ok(())
    }
}

/// The index of the first quote or backslash in `bytes` from `i` on, or
/// the length of `bytes`. Eight bytes at a time: strings in a transcript
/// are a few bytes to a few dozen, too short for memchr to pay.
fn quote_or_backslash(bytes: &[u8], i: usize) -> usize {
    first_special::<false>(bytes, i)
}

/// The index of the first quote, backslash or (if `CONTROL`) control
/// character in `bytes` from `i` on, or the length of `bytes`.
#[inline]
pub(crate) fn first_special<const CONTROL: bool>(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `word` equal to `b` (or below 0x20),
    // and maybe of bytes above such a byte: the lowest bit set is exact.
    let equal = |word: u64, b: u8| {
        let x = word ^ (ONES * u64::from(b));
        x.wrapping_sub(ONES) & !x & HIGH
    };
    let below_space = |word: u64| word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    let special = |b: u8| b == b'"' || b == b'\\' || (CONTROL && b < 0x20);
    while let Some(word) = bytes.get(i..i + 8) {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let mut found = equal(word, b'"') | equal(word, b'\\');
        if CONTROL {
            found |= below_space(word);
        }
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < bytes.len() && !special(bytes[i]) {
        i += 1;
    }
    i
}

/// The mark of a file's first byte.
pub(crate) const FILE_START: Mark = Mark {
    offset: 0,
    line: 1,
    column: 1,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> Mark {
        Mark {
            offset: 0,
            line: 1,
            column: 1,
        }
    }

    #[test]
    fn spans_cover_exactly_one_value_with_its_line_and_column() {
        let text = b"[{\"a\": \"x]\\\"}\",\n \"b\": [1, {}]}, 17 ,\n  \"s\\\\\"]";
        let mut s = Scanner::new(&text[..], start());
        assert_eq!(s.peek().unwrap(), Some(b'['));
        s.bump();
        let first = s.value().unwrap();
        assert_eq!(
            &text[first.start as usize..(first.start + first.len) as usize],
            b"{\"a\": \"x]\\\"}\",\n \"b\": [1, {}]}"
        );
        assert_eq!((first.line, first.column), (1, 2));
        assert_eq!(s.mark().line, 2);
        assert_eq!(s.peek().unwrap(), Some(b','));
        s.bump();
        assert_eq!(s.skip_ws().unwrap(), Some(b'1'));
        let number = s.value().unwrap();
        assert_eq!((number.len, number.line, number.column), (2, 2, 17));
        s.skip_ws().unwrap();
        s.bump(); // ,
        s.skip_ws().unwrap();
        let string = s.value().unwrap();
        assert_eq!((string.len, string.line, string.column), (5, 3, 3));
        assert_eq!(s.peek().unwrap(), Some(b']'));
        assert_eq!(string.absolute(1, 4), (3, 6));
        assert_eq!(string.absolute(2, 4), (4, 4));
    }

    #[test]
    fn brackets_count_as_nesting_whatever_their_kind() {
        // Which bracket closes which is for the parser of the span: it
        // meets `}` where `]` should be before the span ends.
        let text = b"[{\"a\": [1}, 2]] , 3";
        let mut s = Scanner::new(&text[..], start());
        let span = s.value().unwrap();
        assert_eq!((span.start, span.len), (0, 15));
        let unterminated = b"{\"a\": [1, \"]\"";
        let mut s = Scanner::new(&unterminated[..], start());
        let span = s.value().unwrap();
        assert_eq!(span.len, unterminated.len() as u64);
    }

    proptest::proptest! {
        #[test]
        fn quote_or_backslash_finds_the_first(
            bytes in proptest::collection::vec(
                proptest::sample::select(vec![b'"', b'\\', b'a', 0, 0x1f, 0x20, 0x7f, 0xff, 0xa0, 0x22 ^ 0x80, 0x5c + 1, 0x21]),
                0..40,
            ),
            from in 0usize..40,
        ) {
            let from = from.min(bytes.len());
            let first = |control: bool| bytes[from..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || (control && b < 0x20))
                .map_or(bytes.len(), |k| from + k);
            proptest::prop_assert_eq!(quote_or_backslash(&bytes, from), first(false));
            proptest::prop_assert_eq!(first_special::<true>(&bytes, from), first(true));
        }
    }

    #[test]
    fn a_recorded_value_keeps_its_bytes_unless_too_long() {
        let text = b"{\"k\": [1, 2]}, [3]";
        let mut s = Scanner::new(&text[..], start());
        let mut out = b"before".to_vec();
        let (span, kept) = s.value_into(&mut out, 64).unwrap();
        assert!(kept);
        assert_eq!(&out[6..], &text[..span.len as usize]);
        s.bump();
        s.skip_ws().unwrap();
        let (_, kept) = s.value_into(&mut out, 2).unwrap();
        assert!(!kept);
        assert_eq!(&out[6..], b"{\"k\": [1, 2]}");
    }

    /// Gives at most seven bytes a read, as a pipe may.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(7).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_window_holds_what_was_asked_and_passing_it_keeps_the_place() {
        let text: Vec<u8> = (0..BUF * 3)
            .map(|k| if k % 10 == 9 { b'\n' } else { b'x' })
            .collect();
        let mut s = Scanner::new(Trickle(&text), start());
        assert_eq!(s.peek().unwrap(), Some(b'x'));
        s.bump();
        // More than the buffer: it grows, keeping the byte not yet passed.
        let window = s.window(BUF + 100).unwrap();
        assert!(window.len() >= BUF + 100);
        assert_eq!(window, &text[1..1 + window.len()]);
        s.advance(BUF);
        let at = s.mark();
        assert_eq!(at.offset, BUF as u64 + 1);
        let newlines = text[..=BUF].iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(
            (at.line, at.column),
            (newlines + 1, (BUF as u64 + 1) % 10 + 1)
        );
        // Fewer bytes than asked for only where the input ends.
        let window = s.window(10 * BUF).unwrap();
        assert_eq!(window, &text[BUF + 1..]);
        let n = window.len();
        s.advance(n - 1);
        assert_eq!(s.peek().unwrap(), Some(b'x'));
        s.bump();
        assert_eq!(s.peek().unwrap(), None);
        assert!(s.window(1).unwrap().is_empty());
    }

    #[test]
    fn a_value_cannot_start_with_a_delimiter() {
        let mut s = Scanner::new(&b",1"[..], start());
        let Err(ScanError::Syntax { at, message }) = s.value() else {
            panic!("a comma is not a value")
        };
        assert_eq!(
            (at.line, at.column, message.as_str()),
            (1, 1, "expected value")
        );
    }

    #[test]
    fn a_long_string_keeps_only_its_start() {
        let mut text = b"\"".to_vec();
        text.extend(std::iter::repeat_n(b'k', 200_000));
        text.extend(b"\" :");
        let mut s = Scanner::new(&text[..], start());
        let raw = s.string(10).unwrap();
        assert_eq!(s.mark().offset, 200_002);
        assert_eq!(raw, b"\"kkkkkkkkk");
        assert_eq!(s.skip_ws().unwrap(), Some(b':'));
    }
}
