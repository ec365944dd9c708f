//! Reading one JSON value from its span of the file with serde, with
//! errors relocated to the file's line, column and path.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::de;

use super::scan::Span;
use crate::reporter::{InputError, InputErrorKind, guarded};

// ---------------------------------------------------------------------------
// Reading one value from its span
// ---------------------------------------------------------------------------

/// Spans up to this size are read whole and parsed from memory (faster);
/// longer ones, such as a game of millions of plies, are streamed.
pub(super) const SLICE_MAX: u64 = 1 << 20;

/// A deserialisation that can run on any JSON deserializer.
pub(super) trait SpanSeed {
    type Value;
    fn run<'de, D: de::Deserializer<'de>>(&mut self, d: D) -> Result<Self::Value, D::Error>;
}

/// Plain `Deserialize` as a [`SpanSeed`].
pub(super) struct Typed<T>(std::marker::PhantomData<T>);

impl<T: de::DeserializeOwned> SpanSeed for Typed<T> {
    type Value = T;
    fn run<'de, D: de::Deserializer<'de>>(&mut self, d: D) -> Result<T, D::Error> {
        T::deserialize(d)
    }
}

pub(super) fn typed<T>() -> Typed<T> {
    Typed(std::marker::PhantomData)
}

/// Reads values from their spans in one file.
pub(crate) struct SpanReader {
    file: File,
    buf: Vec<u8>,
    /// The span whose bytes `buf` holds, if any.
    loaded: Option<Span>,
    source: String,
}

impl SpanReader {
    pub(super) fn open(path: &Path, source: &str) -> Result<SpanReader, InputError> {
        Ok(SpanReader {
            file: File::open(path).map_err(|e| InputError::read(source, e))?,
            buf: Vec::new(),
            loaded: None,
            source: source.to_owned(),
        })
    }

    /// Reads `len` bytes from `start` into `out`.
    pub(super) fn read_range(
        &mut self,
        start: u64,
        len: u64,
        out: &mut Vec<u8>,
    ) -> Result<(), InputError> {
        let read = |e| InputError::read(&self.source, e);
        self.loaded = None;
        self.file.seek(SeekFrom::Start(start)).map_err(read)?;
        out.resize(len as usize, 0);
        self.file
            .read_exact(out)
            .map_err(|e| InputError::read(&self.source, e))
    }

    /// Takes `bytes` as the bytes of `span`, already read by the scan, so
    /// that parsing it reads nothing from the file.
    pub(super) fn hold(&mut self, span: &Span, bytes: &[u8]) {
        self.buf.clear();
        self.buf.extend_from_slice(bytes);
        self.loaded = Some(*span);
    }

    /// The bytes of `span`, if it is short enough to be read whole.
    pub(super) fn load(&mut self, span: &Span) -> Result<Option<&[u8]>, InputError> {
        if span.len > SLICE_MAX {
            return Ok(None);
        }
        if self.loaded != Some(*span) {
            self.loaded = None;
            self.file
                .seek(SeekFrom::Start(span.start))
                .map_err(|e| InputError::read(&self.source, e))?;
            self.buf.resize(span.len as usize, 0);
            self.file
                .read_exact(&mut self.buf)
                .map_err(|e| InputError::read(&self.source, e))?;
            self.loaded = Some(*span);
        }
        Ok(Some(&self.buf))
    }

    /// Runs `seed` over the value at `span`; an error names its place in
    /// the file and its JSON path below `prefix` (with `paths`; without,
    /// the path is only `prefix`, which is faster).
    pub(super) fn parse<S: SpanSeed>(
        &mut self,
        span: &Span,
        prefix: &str,
        seed: &mut S,
        paths: bool,
    ) -> Result<S::Value, InputError> {
        let result = if self.load(span)?.is_some() {
            // Valid UTF-8 checked once for the whole span (fast on ASCII)
            // spares serde_json a check per string; a span that is not
            // goes through the byte reader, which says where it breaks.
            match std::str::from_utf8(&self.buf) {
                Ok(text) => run_on(&mut serde_json::Deserializer::from_str(text), seed, paths),
                Err(_) => run_on(
                    &mut serde_json::Deserializer::from_slice(&self.buf),
                    seed,
                    paths,
                ),
            }
        } else {
            self.file
                .seek(SeekFrom::Start(span.start))
                .map_err(|e| InputError::read(&self.source, e))?;
            let reader = guarded((&self.file).take(span.len));
            run_on(
                &mut serde_json::Deserializer::from_reader(reader),
                seed,
                paths,
            )
        };
        result.map_err(|e| relocate(InputError::from_json(&self.source, e), prefix, span))
    }
}

pub(super) fn run_on<'de, R: serde_json::de::Read<'de>, S: SpanSeed>(
    de: &mut serde_json::Deserializer<R>,
    seed: &mut S,
    paths: bool,
) -> Result<S::Value, serde_path_to_error::Error<serde_json::Error>> {
    let bare = |e| serde_path_to_error::Error::new(serde_path_to_error::Track::new().path(), e);
    let value = if paths {
        let mut track = serde_path_to_error::Track::new();
        seed.run(serde_path_to_error::Deserializer::new(&mut *de, &mut track))
            .map_err(|e| serde_path_to_error::Error::new(track.path(), e))?
    } else {
        seed.run(&mut *de).map_err(bare)?
    };
    // Nothing but the value lies in its span.
    de.end().map_err(bare)?;
    Ok(value)
}

/// An error found in a span, placed in the whole file.
pub(super) fn relocate(mut error: InputError, prefix: &str, span: &Span) -> InputError {
    match &mut error.kind {
        InputErrorKind::Json {
            path, line, column, ..
        } => {
            *path = join(prefix, path);
            if *line != 0 {
                (*line, *column) = span.absolute(*line, *column);
            }
        }
        InputErrorKind::TooLong { line, column, .. } => {
            let (l, c) = span.absolute(*line as usize, *column as usize);
            (*line, *column) = (l as u64, c as u64);
        }
        _ => {}
    }
    error
}

pub(super) fn join(prefix: &str, path: &str) -> String {
    match (prefix, path) {
        ("" | ".", p) => p.to_owned(),
        (p, ".") => p.to_owned(),
        (p, rest) if rest.starts_with('[') => format!("{p}{rest}"),
        (p, rest) => format!("{p}.{rest}"),
    }
}
