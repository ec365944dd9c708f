//! What kind of file a transcript-mode input is, from its top-level
//! `format` field, and opening it with a guard on token sizes.

use std::fmt;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};

use super::scan::{FILE_START, Scanner};
use crate::reporter::{FileKind, Guarded, InputError, InputErrorKind, guarded};

// ---------------------------------------------------------------------------
// Opening files
// ---------------------------------------------------------------------------

pub(super) fn open(path: &Path, name: &str) -> Result<Guarded<File>, InputError> {
    let name = name.to_owned();
    let meta = std::fs::metadata(path).map_err(|e| InputError::read(&name, e))?;
    if meta.is_dir() {
        return Err(InputError {
            file: name,
            kind: InputErrorKind::Directory,
        });
    }
    if !meta.is_file() {
        // Opening a FIFO blocks until a writer comes, and a device such
        // as /dev/zero never ends: neither is opened.
        let kind = crate::scenario::file_type_name(&meta.file_type());
        return Err(InputError::at(
            &name,
            "",
            0,
            0,
            format!(
                "it is {kind}, not a regular file; to check what a pipe carries, \
                 give `-` and pipe it to standard input"
            ),
        ));
    }
    if meta.len() == 0 {
        return Err(InputError {
            file: name,
            kind: InputErrorKind::Empty,
        });
    }
    let mut file = File::open(path).map_err(|e| InputError::read(&name, e))?;
    let mut start = [0; 3];
    let n = file
        .read(&mut start)
        .map_err(|e| InputError::read(&name, e))?;
    if start[..n] == [0xef, 0xbb, 0xbf] {
        return Err(InputError::at(
            &name,
            "",
            1,
            1,
            "the file starts with a byte-order mark (U+FEFF); JSON input is UTF-8 without one: \
             save it without the mark"
                .to_owned(),
        ));
    }
    file.seek(SeekFrom::Start(0))
        .map_err(|e| InputError::read(&name, e))?;
    Ok(guarded(file))
}

/// Where the value of a top-level `"format": VALUE` is in the file at
/// `path` (line and column, 1-based), looked for in its first MiB: for
/// the error about an unknown format.
fn format_place(path: &Path, value: &str) -> Option<(usize, usize)> {
    let mut head = Vec::new();
    File::open(path)
        .ok()?
        .take(1 << 20)
        .read_to_end(&mut head)
        .ok()?;
    let wanted = serde_json::to_vec(value).ok()?;
    let key = b"\"format\"";
    let mut from = 0;
    while let Some(at) = memchr::memmem::find(&head[from..], key) {
        let mut i = from + at + key.len();
        let skip = |i: &mut usize| {
            while head.get(*i).is_some_and(u8::is_ascii_whitespace) {
                *i += 1;
            }
        };
        skip(&mut i);
        if head.get(i) == Some(&b':') {
            i += 1;
            skip(&mut i);
            if head[i..].starts_with(&wanted) {
                return Some(crate::scenario::line_column(&head[..i]));
            }
        }
        from += at + 1;
    }
    None
}

// ---------------------------------------------------------------------------
// What kind of file: the top-level `format` field
// ---------------------------------------------------------------------------

/// Reads the top-level `format` field of the file at `path` to tell a
/// transcript from an engine manifest. Reads no further than that field.
///
/// # Errors
///
/// A missing, unreadable or empty file, malformed JSON before `format`, no
/// `format` field, or a value other than `kpe-transcript` and
/// `kpe-engine`.
pub fn file_kind(path: &Path) -> Result<FileKind, InputError> {
    let source = path.display().to_string();
    let mut file = open(path, &source)?.into_inner();
    // The fields before `format` skipped by the structural scan, not
    // parsed; anything out of the ordinary is left to the parse below,
    // whose errors say what is wrong and where.
    match scanned_kind(&mut file) {
        Some(Scanned::Format(value)) => kind_named(&source, &value).map_err(|mut e| {
            if let (InputErrorKind::Json { line, column, .. }, Some((l, c))) =
                (&mut e.kind, format_place(path, &value))
            {
                (*line, *column) = (l, c);
            }
            e
        }),
        // Only a transcript has games: its reader checks `format`, later
        // in the file (a header after the games, as with sorted keys, is
        // found with no scan of the games here).
        Some(Scanned::Games) => Ok(FileKind::Transcript),
        None => {
            file.seek(SeekFrom::Start(0))
                .map_err(|e| InputError::read(&source, e))?;
            kind_of(&source, guarded(&mut file)).map_err(|e| match file.seek(SeekFrom::Start(0)) {
                Ok(_) => e.name_the_byte(&mut file),
                Err(_) => e,
            })
        }
    }
}

/// What a scan of the top-level members found first.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Scanned {
    /// The value of `format`.
    Format(String),
    /// A `games` member.
    Games,
}

/// The value of the top-level `format` field, or a `games` member before
/// it, found by scanning the members before them; `None` where the JSON
/// is not of the plain kind this expects (an object, a string `format` of
/// at most 4 KiB) or a read fails.
pub(super) fn scanned_kind(file: impl Read) -> Option<Scanned> {
    let mut scan = Scanner::new(file, FILE_START);
    if scan.skip_ws().ok()? != Some(b'{') {
        return None;
    }
    scan.bump();
    loop {
        if scan.skip_ws().ok()? != Some(b'"') {
            return None;
        }
        let raw = scan.string(64).ok()?;
        let key: String = serde_json::from_slice(&raw).ok()?;
        if scan.skip_ws().ok()? != Some(b':') {
            return None;
        }
        scan.bump();
        scan.skip_ws().ok()?;
        if key == "games" {
            return Some(Scanned::Games);
        }
        if key == "format" {
            let mut value = Vec::new();
            let (_, kept) = scan.value_into(&mut value, 4096).ok()?;
            return kept.then(|| serde_json::from_slice(&value).ok().map(Scanned::Format))?;
        }
        scan.value().ok()?;
        if scan.skip_ws().ok()? != Some(b',') {
            return None;
        }
        scan.bump();
    }
}

/// [`file_kind`] for data already at hand; `source` names it in errors.
///
/// # Errors
///
/// As [`file_kind`].
pub fn file_kind_of_reader(source: &str, reader: impl Read) -> Result<FileKind, InputError> {
    kind_of(source, guarded(reader))
}

pub(super) fn kind_of<R: Read>(source: &str, reader: Guarded<R>) -> Result<FileKind, InputError> {
    let mut found = None;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let result = tracked(&mut de, FormatSniffer { found: &mut found });
    let value = match (found, result) {
        (Some(value), _) => value,
        (None, Err(e)) => return Err(InputError::from_json(source, e)),
        (None, Ok(())) => unreachable!("the sniffer fails unless it finds `format`"),
    };
    kind_named(source, &value)
}

/// The kind of file a `format` value names.
pub(super) fn kind_named(source: &str, value: &str) -> Result<FileKind, InputError> {
    match value {
        "kpe-transcript" => Ok(FileKind::Transcript),
        "kpe-engine" => Ok(FileKind::EngineManifest),
        other => Err(InputError::at(
            source,
            "format",
            0,
            0,
            format!(
                "unknown format `{}`: expected {}",
                other.escape_debug(),
                accepted_formats()
            ),
        )),
    }
}

pub(super) fn accepted_formats() -> String {
    FileKind::ACCEPTED
        .iter()
        .map(|(v, what)| format!("\"{v}\" ({what})"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// Stops (with a placeholder error) as soon as `format` is read.
pub(super) struct FormatSniffer<'a> {
    found: &'a mut Option<String>,
}

impl<'de> DeserializeSeed<'de> for FormatSniffer<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FormatSniffer<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a JSON object with a \"format\" field: {}",
            accepted_formats()
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "format" => {
                    *self.found = Some(map.next_value::<String>()?);
                    return Err(de::Error::custom("found the format"));
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Err(de::Error::custom(format!(
            "missing field `format`: expected {}",
            accepted_formats()
        )))
    }
}

/// Runs `seed` over `de`, noting the JSON path of any error.
pub(super) fn tracked<'de, D, S>(
    de: D,
    seed: S,
) -> Result<S::Value, serde_path_to_error::Error<D::Error>>
where
    D: de::Deserializer<'de>,
    S: DeserializeSeed<'de>,
{
    let mut track = serde_path_to_error::Track::new();
    seed.deserialize(serde_path_to_error::Deserializer::new(de, &mut track))
        .map_err(|e| serde_path_to_error::Error::new(track.path(), e))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn scanned(text: &str) -> Option<Scanned> {
        let mut file = tempfile::tempfile().expect("a temporary file");
        file.write_all(text.as_bytes()).expect("written");
        file.seek(SeekFrom::Start(0)).expect("rewound");
        scanned_kind(file)
    }

    #[test]
    fn the_format_is_found_by_a_scan_or_left_to_the_parse() {
        let games = r#"[{"id": "a", "plies": [{"move": "S1", "after": "x\"]}"}]}]"#;
        // Only a transcript has games: its reader checks the format.
        let text =
            format!(r#"{{"engine": {{"n": "e"}}, "games": {games}, "format": "kpe-engine"}}"#);
        assert_eq!(scanned(&text), Some(Scanned::Games));
        for (text, found) in [
            (
                format!(r#"{{"engine": {{"n": "e"}}, "a": {games}, "format": "kpe-transcript"}}"#),
                Some("kpe-transcript"),
            ),
            (
                r#" { "form\u0061t" : "kpe-engine" } "#.to_owned(),
                Some("kpe-engine"),
            ),
            (
                r#"{"a": [1, {"b": "}"}], "format": "x\u0041"}"#.to_owned(),
                Some("xA"),
            ),
            // Left to the parse, which says what is wrong and where.
            (r#"{"format": 3}"#.to_owned(), None),
            (r#"[{"format": "kpe-engine"}]"#.to_owned(), None),
            (r#"{"a": 1 "format": "kpe-engine"}"#.to_owned(), None),
            (r#"{"a": 1}"#.to_owned(), None),
            (format!(r#"{{"format": "{}"}}"#, "k".repeat(5000)), None),
            (String::new(), None),
        ] {
            assert_eq!(
                scanned(&text),
                found.map(|f| Scanned::Format(f.to_owned())),
                "{text}"
            );
            // What the scan finds, the parse finds too.
            if let Some(found) = found {
                assert_eq!(
                    format!("{:?}", kind_named("t", found)),
                    format!("{:?}", kind_of("t", guarded(text.as_bytes()))),
                    "{text}"
                );
            }
        }
    }
}
