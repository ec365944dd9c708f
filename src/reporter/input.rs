//! Reading input files safely: clear errors with file, line, column and
//! JSON path, and a guard against tokens too large to hold in memory.

use std::fmt;
use std::io::{self, Read};

/// The longest string or number accepted in an input file, in bytes. Every
/// real field is far shorter; the limit keeps memory bounded when a file
/// holds a gigantic string or number.
pub const MAX_TOKEN_BYTES: usize = 1 << 20;

/// What a file given to `kpe-check` is, by its top-level `format` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// `"format": "kpe-transcript"`: games an engine played.
    Transcript,
    /// `"format": "kpe-engine"`: how to start an engine and talk to it.
    EngineManifest,
}

impl FileKind {
    /// The accepted `format` values, with what each means.
    pub const ACCEPTED: [(&'static str, &'static str); 2] = [
        ("kpe-transcript", "a transcript of games"),
        ("kpe-engine", "an engine manifest"),
    ];
}

/// Why an input file could not be read.
#[derive(Debug)]
pub struct InputError {
    /// The file as named on the command line.
    pub file: String,
    /// What went wrong.
    pub kind: InputErrorKind,
}

/// The kinds of bad input.
#[derive(Debug)]
#[non_exhaustive]
pub enum InputErrorKind {
    /// The file could not be opened or read.
    Read(io::Error),
    /// The path names a directory.
    Directory,
    /// The file holds no JSON value at all.
    Empty,
    /// The JSON is malformed, or a value has the wrong type, is unknown, is
    /// missing or is out of range.
    Json {
        /// Where in the document, e.g. `games[3].plies[17].after` (`.` for
        /// the top level).
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column, in bytes.
        column: usize,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A conformance suite named to the live mode does not load (the file
    /// is the suite directory; each problem names its own file and line).
    Suite(crate::scenario::ScenarioErrors),
    /// A string or number longer than [`MAX_TOKEN_BYTES`].
    TooLong {
        /// `string` or `number`.
        what: &'static str,
        /// 1-based line where it starts.
        line: u64,
        /// 1-based column where it starts.
        column: u64,
    },
}

impl InputError {
    /// An error at a JSON path, without a line (e.g. found after parsing).
    #[must_use]
    pub fn at(file: &str, path: &str, line: usize, column: usize, message: String) -> InputError {
        InputError {
            file: file.to_owned(),
            kind: InputErrorKind::Json {
                path: path.to_owned(),
                line,
                column,
                message,
            },
        }
    }

    /// A short code for the kind: `read`, `directory`, `empty`, `json`,
    /// `suite`, `too-long`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self.kind {
            InputErrorKind::Read(_) => "read",
            InputErrorKind::Directory => "directory",
            InputErrorKind::Empty => "empty",
            InputErrorKind::Json { .. } => "json",
            InputErrorKind::Suite(_) => "suite",
            InputErrorKind::TooLong { .. } => "too-long",
        }
    }

    /// The conformance suite in `dir` does not load.
    #[must_use]
    pub fn suite(dir: &str, errors: crate::scenario::ScenarioErrors) -> InputError {
        InputError {
            file: dir.to_owned(),
            kind: InputErrorKind::Suite(errors),
        }
    }

    pub(crate) fn read(file: &str, error: io::Error) -> InputError {
        InputError {
            file: file.to_owned(),
            kind: InputErrorKind::Read(error),
        }
    }

    /// An I/O error, or the token guard's refusal carried in one.
    pub(crate) fn from_io(file: &str, io: io::Error) -> InputError {
        if let Some(TooLong { what, line, column }) =
            io.get_ref().and_then(|e| e.downcast_ref::<TooLong>())
        {
            return InputError {
                file: file.to_owned(),
                kind: InputErrorKind::TooLong {
                    what,
                    line: *line,
                    column: *column,
                },
            };
        }
        InputError::read(file, io)
    }

    /// Turns a JSON error into an input error.
    pub(crate) fn from_json(
        file: &str,
        error: serde_path_to_error::Error<serde_json::Error>,
    ) -> InputError {
        let path = error.path().to_string();
        let inner = error.into_inner();
        let (line, column) = (inner.line(), inner.column());
        if inner.is_io() {
            return InputError::from_io(file, inner.into());
        }
        let text = inner.to_string();
        let suffix = format!(" at line {line} column {column}");
        let message = text.strip_suffix(&suffix).unwrap_or(&text).to_owned();
        if inner.is_eof() && path == "." && message.starts_with("EOF while parsing a value") {
            return InputError {
                file: file.to_owned(),
                kind: InputErrorKind::Empty,
            };
        }
        InputError::at(file, &path, line, column, message)
    }
}

/// The starts of the parser's messages that say what was expected but not
/// what was found; [`InputError::name_the_byte`] adds it.
const FOUND_UNSAID: [&str; 6] = [
    "key must be a string",
    "expected value",
    "expected `:`",
    "expected `,` or `}`",
    "expected `,` or `]`",
    "trailing characters",
];

impl InputError {
    /// A JSON error whose message does not say what it found (`key must
    /// be a string`, `expected value`, ...), with the bytes at its line and
    /// column named: a NUL, a form feed, a comment, a trailing comma, a
    /// byte that is not UTF-8, a UTF-16 byte-order mark. `source` reads
    /// the same bytes from their start; other errors are kept as they are.
    #[must_use]
    pub fn name_the_byte(mut self, source: impl io::Read) -> InputError {
        if let InputErrorKind::Json {
            line,
            column,
            message,
            ..
        } = &mut self.kind
            && *line > 0
            && FOUND_UNSAID.iter().any(|m| message.starts_with(m))
            && let Some(found) = bytes_at(source, *line, *column)
        {
            let key = message.starts_with("key must be a string");
            if let Some(what) = found_words(&found, *line == 1 && *column == 1, key) {
                message.push_str(", found ");
                message.push_str(&what);
            }
        }
        self
    }
}

/// Up to four bytes (one character) from 1-based `line` and byte `column` of `source`.
fn bytes_at(source: impl io::Read, line: usize, column: usize) -> Option<Vec<u8>> {
    use io::BufRead as _;
    let mut reader = io::BufReader::new(source.take(1 << 30));
    let mut text = Vec::new();
    for _ in 1..line {
        text.clear();
        if reader.read_until(b'\n', &mut text).ok()? == 0 {
            return None;
        }
    }
    text.clear();
    reader.read_until(b'\n', &mut text).ok()?;
    let at = column.checked_sub(1)?;
    let found = text.get(at..)?;
    (!found.is_empty()).then(|| found[..found.len().min(4)].to_vec())
}

/// What the bytes at an error are, in words: `None` for an ordinary
/// character the message needs no help with. `start` when they begin the
/// file (a byte-order mark), `key` where a key was expected.
fn found_words(found: &[u8], start: bool, key: bool) -> Option<String> {
    if start && (found.starts_with(&[0xff, 0xfe]) || found.starts_with(&[0xfe, 0xff])) {
        return Some(format!(
            "a UTF-16 byte-order mark (0x{:02x} 0x{:02x}): the file is UTF-16 text, and JSON here is UTF-8; save it as UTF-8",
            found[0], found[1]
        ));
    }
    if start && found.starts_with(&[0xef, 0xbb, 0xbf]) {
        return Some(
            "a UTF-8 byte-order mark (0xef 0xbb 0xbf), which JSON does not allow: save the file without one"
                .to_owned(),
        );
    }
    let byte = found[0];
    Some(match byte {
        0 => "a NUL byte (0x00)".to_owned(),
        0x0c => "a form feed (0x0c), which JSON does not take as white space".to_owned(),
        0x0b => "a vertical tab (0x0b), which JSON does not take as white space".to_owned(),
        0x01..=0x1f | 0x7f => format!("the control byte 0x{byte:02x}"),
        b'/' => "`/`: JSON has no comments".to_owned(),
        b'}' | b']' if key => format!(
            "`{}` after a comma: JSON allows no trailing comma",
            byte as char
        ),
        0x80.. => match found.utf8_chunks().next()?.valid().chars().next() {
            Some(c) => format!("`{}` (U+{:04X})", c.escape_debug(), u32::from(c)),
            None => format!("the byte 0x{byte:02x}, which is not UTF-8"),
        },
        b'\'' => "`'`: JSON strings take double quotes".to_owned(),
        _ if key => format!("`{}`: a key is a string in double quotes", byte as char),
        _ => format!("`{}`", byte as char),
    })
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = &self.file;
        match &self.kind {
            InputErrorKind::Read(e) => write!(f, "{file}: cannot read the file: {e}"),
            InputErrorKind::Directory => {
                write!(f, "{file}: is a directory; expected a JSON file")
            }
            InputErrorKind::Empty => write!(
                f,
                "{file}: the file holds no JSON; expected an object such as \
                 {{\"format\": \"kpe-transcript\", \"version\": 1, ...}}"
            ),
            InputErrorKind::Json {
                path,
                line,
                column,
                message,
            } => {
                // A line-oriented file (no JSON path) names no place.
                let place = match path.as_str() {
                    "" => String::new(),
                    "." => "top level: ".to_owned(),
                    path => format!("at {path}: "),
                };
                if *line == 0 {
                    write!(f, "{file}: {place}{message}")
                } else {
                    write!(f, "{file}:{line}:{column}: {place}{message}")
                }
            }
            InputErrorKind::Suite(errors) => {
                write!(f, "{file}: the conformance suite does not load:")?;
                for error in &errors.0 {
                    write!(f, "\n  {error}")?;
                }
                Ok(())
            }
            InputErrorKind::TooLong { what, line, column } => write!(
                f,
                "{file}:{line}:{column}: a {what} longer than {MAX_TOKEN_BYTES} bytes starts here; \
                 no field of the format is anywhere near that long"
            ),
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            InputErrorKind::Read(e) => Some(e),
            _ => None,
        }
    }
}

/// The guard's error, carried through the JSON parser inside an
/// [`io::Error`].
#[derive(Debug)]
struct TooLong {
    what: &'static str,
    line: u64,
    column: u64,
}

impl fmt::Display for TooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {} longer than {MAX_TOKEN_BYTES} bytes", self.what)
    }
}

impl std::error::Error for TooLong {}

/// A buffered reader that refuses any JSON string or number longer than
/// [`MAX_TOKEN_BYTES`], noting where it starts. The JSON parser reads one
/// byte at a time, so this is also its buffer, with a fast path for that.
pub(crate) struct Guarded<R> {
    inner: R,
    buf: Box<[u8]>,
    pos: usize,
    len: usize,
    line: u64,
    column: u64,
    in_string: bool,
    escaped: bool,
    run: usize,
    run_start: (u64, u64),
}

/// A guarded reader, ready for the JSON parser.
pub(crate) fn guarded<R: Read>(inner: R) -> Guarded<R> {
    Guarded::new(inner)
}

impl<R: Read> Guarded<R> {
    pub(crate) fn new(inner: R) -> Guarded<R> {
        Guarded::at(inner, 1, 1)
    }

    /// A guarded reader whose first byte is at `line` and `column`.
    pub(crate) fn at(inner: R, line: u64, column: u64) -> Guarded<R> {
        Guarded {
            inner,
            buf: vec![0; 64 * 1024].into_boxed_slice(),
            pos: 0,
            len: 0,
            line,
            column,
            in_string: false,
            escaped: false,
            run: 0,
            run_start: (line, column),
        }
    }

    /// The reader guarded.
    pub(crate) fn into_inner(self) -> R {
        self.inner
    }

    /// Reads the next chunk and scans it.
    #[cold]
    fn fill(&mut self) -> io::Result<()> {
        self.len = loop {
            match self.inner.read(&mut self.buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        self.pos = 0;
        let mut buf = std::mem::take(&mut self.buf);
        let scanned = self.scan(&buf[..self.len]);
        std::mem::swap(&mut self.buf, &mut buf);
        scanned
    }

    /// Follows strings and numbers through the new bytes.
    fn scan(&mut self, bytes: &[u8]) -> io::Result<()> {
        let mut i = 0;
        while i < bytes.len() {
            if self.in_string && !self.escaped {
                // Jump to the next quote or backslash: the bulk of a file.
                let rest = &bytes[i..];
                let skip = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
                self.advance(&rest[..skip]);
                self.run += skip;
                i += skip;
                if self.run > MAX_TOKEN_BYTES {
                    return Err(self.too_long("string"));
                }
                if i == bytes.len() {
                    break;
                }
            }
            let b = bytes[i];
            if self.in_string {
                self.run += 1;
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else {
                    // The closing quote.
                    self.in_string = false;
                    self.run = 0;
                }
                if self.run > MAX_TOKEN_BYTES {
                    return Err(self.too_long("string"));
                }
            } else if b == b'"' {
                self.in_string = true;
                self.run = 0;
                self.run_start = (self.line, self.column);
            } else if matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                if self.run == 0 {
                    self.run_start = (self.line, self.column);
                }
                self.run += 1;
                if self.run > MAX_TOKEN_BYTES {
                    return Err(self.too_long("number"));
                }
            } else {
                self.run = 0;
            }
            if b == b'\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
            i += 1;
        }
        Ok(())
    }

    /// Moves the line and column past `bytes`.
    fn advance(&mut self, bytes: &[u8]) {
        match memchr::memrchr(b'\n', bytes) {
            None => self.column += bytes.len() as u64,
            Some(last) => {
                self.line += memchr::memchr_iter(b'\n', bytes).count() as u64;
                self.column = (bytes.len() - last) as u64;
            }
        }
    }

    fn too_long(&self, what: &'static str) -> io::Error {
        let (line, column) = self.run_start;
        io::Error::new(io::ErrorKind::InvalidData, TooLong { what, line, column })
    }
}

impl<R: Read> Read for Guarded<R> {
    #[inline]
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.len {
            self.fill()?;
        }
        if let ([slot], Some(&byte)) = (&mut *out, self.buf[..self.len].get(self.pos)) {
            // One byte at a time, as the JSON parser asks.
            *slot = byte;
            self.pos += 1;
            return Ok(1);
        }
        let n = out.len().min(self.len - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(text: &[u8]) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        guarded(text).read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn passes_ordinary_json_through() {
        let text = br#"{"a": "x\"y", "n": -1.5e3}"#;
        assert_eq!(read_all(text).unwrap(), text);
    }

    #[test]
    fn refuses_a_gigantic_string_or_number_saying_where_it_starts() {
        let mut text = b"{\n  \"a\": \"".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_TOKEN_BYTES + 1));
        let err = read_all(&text).unwrap_err();
        let too_long = err.get_ref().unwrap().downcast_ref::<TooLong>().unwrap();
        assert_eq!(
            (too_long.what, too_long.line, too_long.column),
            ("string", 2, 8)
        );
        let mut text = b"[1, ".to_vec();
        text.extend(std::iter::repeat_n(b'9', MAX_TOKEN_BYTES + 1));
        let err = read_all(&text).unwrap_err();
        let too_long = err.get_ref().unwrap().downcast_ref::<TooLong>().unwrap();
        assert_eq!(
            (too_long.what, too_long.line, too_long.column),
            ("number", 1, 5)
        );
    }
}

/// Why a check run stopped early.
#[derive(Debug)]
pub enum CheckError {
    /// The input is bad: exit 2.
    Input(InputError),
    /// A report could not be written.
    Output(io::Error),
    /// A signal stopped the work before anything was written (`kpe-check
    /// merge`): exit 128 + its number.
    Interrupted(super::stop::Signal),
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Input(e) => e.fmt(f),
            CheckError::Output(e) => write!(f, "cannot write the report: {e}"),
            CheckError::Interrupted(signal) => {
                write!(
                    f,
                    "interrupted by {signal}: stopped before writing anything"
                )
            }
        }
    }
}

impl std::error::Error for CheckError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CheckError::Input(e) => Some(e),
            CheckError::Output(e) => Some(e),
            CheckError::Interrupted(_) => None,
        }
    }
}

impl From<InputError> for CheckError {
    fn from(e: InputError) -> CheckError {
        CheckError::Input(e)
    }
}
