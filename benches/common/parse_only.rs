//! The floor of transcript checking: the file read by serde_json into
//! `IgnoredAny`, as the check bench's `parse-only` pass does; shared with
//! `examples/parse_only.rs`, which times it by hand.

use std::io;
use std::path::Path;

use serde::de::IgnoredAny;

/// Reads the JSON file at `path` through, keeping nothing.
pub fn parse_only(path: &Path) -> io::Result<()> {
    let file = std::fs::File::open(path)?;
    let IgnoredAny = serde_json::from_reader(io::BufReader::new(file))?;
    Ok(())
}
