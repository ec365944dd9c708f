//! The engine manifest: how to start an engine, what rules it claims and how
//! hard to test it (specified in `spec/PROTOCOL.md`, JSON Schema in
//! `spec/manifest.schema.json`).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::process::Launch;
use crate::profile::Profile;
use crate::reporter::{InputError, InputErrorKind};
use crate::scenario::{LimitedRead, line_column, read_limited};

/// The manifest version this crate writes and documents. Version 2
/// (issue 44) is version 1 with the field `pipeline` added; a version-1
/// manifest means what it meant (one request at a time).
pub const MANIFEST_VERSION: u32 = 2;

/// The oldest manifest version read. (A version-1 manifest that sets
/// `pipeline`, as the builds before version 2 let it, is read with it.)
pub const OLDEST_MANIFEST_VERSION: u32 = 1;

/// The largest manifest file read, in bytes: a manifest is a few lines.
pub const MAX_MANIFEST: u64 = 1 << 20;

/// The largest `perft.max_nodes` a manifest may give: the reference count
/// of every depth checked is computed by kpe-check itself, and a budget
/// without bound would let it run for hours without a word.
pub const MAX_PERFT_NODES: u64 = 1_000_000_000;

/// The most random games of one profile a run plays (`random.games`,
/// `--games`, `KPE_CHECK_GAMES`): more is refused before anything is
/// planned, since each game is a unit of the plan and of the report.
pub const MAX_GAMES: u32 = 100_000;

/// The deepest `perft.max_depth` a manifest may give (as deep as
/// `kpe engine` counts).
pub const MAX_MANIFEST_PERFT_DEPTH: u32 = super::serve::MAX_PERFT_DEPTH;

/// The most requests a manifest's `pipeline` lets be unanswered at once.
pub const MAX_PIPELINE: u32 = 64;

/// An engine manifest, as written in a `.json` file.
///
/// ```
/// use kpe::live::Manifest;
/// let m: Manifest = serde_json::from_str(
///     r#"{"format": "kpe-engine", "version": 1, "command": ["python3", "engine.py"]}"#,
/// )?;
/// assert_eq!(m.profile.to_string(), "default");
/// assert_eq!(m.timeouts.request_ms, 5000);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "kpe engine manifest, version 1",
    description = "How kpe-check starts an engine that speaks the kpe engine protocol (spec/PROTOCOL.md), the rules it claims, and how much to test it. Relative paths are relative to the manifest's directory."
)]
#[schemars(extend("$id" = "urn:kpe:schema:manifest:2"))]
pub struct Manifest {
    /// Always `kpe-engine`: tells kpe-check this file is an engine manifest.
    pub format: Format,
    /// 2 ([`MANIFEST_VERSION`]); 1, the version before `pipeline`, is
    /// still read.
    #[serde(deserialize_with = "known_version")]
    #[schemars(range(min = 1, max = 2))]
    pub version: u32,
    /// The program and its arguments, e.g. `["python3", "engine.py"]`. A
    /// program given as a relative path with a `/` is taken relative to the
    /// working directory; a bare name is looked up on `PATH`.
    #[serde(deserialize_with = "command_line")]
    #[schemars(length(min = 1), inner(regex(pattern = "^[^\\u0000]*$")))]
    pub command: Vec<String>,
    /// The engine's working directory, relative to the manifest's directory
    /// (default: the manifest's directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Environment variables to set for the engine, on top of kpe-check's
    /// own. A name is not empty and holds no `=`; no name or value holds a
    /// NUL character.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "environment"
    )]
    #[schemars(
        extend("propertyNames" = {"pattern": "^[^=\\u0000]+$"}),
        extend("additionalProperties" = {"type": "string", "pattern": "^[^\\u0000]*$"})
    )]
    pub env: BTreeMap<String, String>,
    /// How long to wait for the engine.
    #[serde(default, deserialize_with = "object")]
    pub timeouts: Timeouts,
    /// The rules profile the engine claims to follow (default: `default`).
    #[serde(default, deserialize_with = "strict_profile")]
    pub profile: Profile,
    /// The profiles to certify in one run, each in turn with its own hello:
    /// a list, or `"all"` for every profile (default: just `profile`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiles: Option<Profiles>,
    /// How many random games to play against it.
    #[serde(default, deserialize_with = "object")]
    pub random: RandomPlan,
    /// How deep to check perft from the initial position.
    #[serde(default, deserialize_with = "object")]
    pub perft: PerftPlan,
    /// How many requests may be unanswered at once in a random game
    /// (default 1: one at a time; at most 64). Above 1, the engine must
    /// read its input as a stream of lines and answer them in order
    /// (spec/PROTOCOL.md, "Pipelining").
    #[serde(
        default = "one_at_a_time",
        skip_serializing_if = "is_one_at_a_time",
        deserialize_with = "pipeline_depth"
    )]
    #[schemars(range(min = 1, max = 64))]
    pub pipeline: u32,
}

fn one_at_a_time() -> u32 {
    1
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_one_at_a_time(pipeline: &u32) -> bool {
    *pipeline == 1
}

/// Several profiles to check: a list, or all of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Profiles {
    /// `"all"`: every profile.
    All(AllProfiles),
    /// These profiles, in this order.
    List(Vec<Profile>),
}

/// The word `all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum AllProfiles {
    /// Every profile.
    #[serde(rename = "all")]
    All,
}

impl Profiles {
    /// The profiles, in order, without repeats.
    #[must_use]
    pub fn list(&self) -> Vec<Profile> {
        let mut out: Vec<Profile> = Vec::new();
        let all: Vec<Profile> = match self {
            Profiles::All(_) => Profile::all().collect(),
            Profiles::List(list) => list.clone(),
        };
        for p in all {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }
}

impl std::str::FromStr for Profiles {
    type Err = String;

    /// `all`, or profiles separated by `;` or `|` (a profile itself is
    /// switch names joined by commas).
    fn from_str(s: &str) -> Result<Profiles, String> {
        if s.trim() == "all" {
            return Ok(Profiles::All(AllProfiles::All));
        }
        let list = s
            .split(['|', ';'])
            .map(|p| {
                p.trim()
                    .parse::<Profile>()
                    .map_err(|e| format!("`{p}`: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if list.is_empty() {
            return Err("no profile given".to_owned());
        }
        Ok(Profiles::List(list))
    }
}

/// The manifest's format name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Format {
    /// An engine manifest.
    #[serde(rename = "kpe-engine")]
    KpeEngine,
}

/// Timeouts, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Timeouts {
    /// From starting the engine to its answer to `hello` (default 10000).
    #[serde(deserialize_with = "milliseconds")]
    #[schemars(range(min = 1))]
    pub start_ms: u64,
    /// For the answer to each later request, and for writing each request
    /// (default 5000).
    #[serde(deserialize_with = "milliseconds")]
    #[schemars(range(min = 1))]
    pub request_ms: u64,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            start_ms: 10_000,
            request_ms: 5_000,
        }
    }
}

impl Timeouts {
    /// The start timeout as a duration.
    #[must_use]
    pub fn start(&self) -> Duration {
        Duration::from_millis(self.start_ms)
    }

    /// The request timeout as a duration.
    #[must_use]
    pub fn request(&self) -> Duration {
        Duration::from_millis(self.request_ms)
    }
}

/// How much random play to check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RandomPlan {
    /// How many games (default 100; 0 for none; at most 100000, the
    /// limit `MAX_GAMES`).
    #[schemars(range(max = 100_000_u32))]
    #[serde(deserialize_with = "games_count")]
    pub games: u32,
    /// Plies after which a game is cut off (default 200): without the
    /// repetition rule a game may never end.
    #[schemars(range(max = 4_294_967_295_u32))]
    pub max_plies: u32,
    /// The seed of the move choices; absent means a new seed each run. The
    /// seed used is printed, so that any run can be repeated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Positions the games start from, in turn (default: the initial
    /// position), e.g. positions after both players are unlocked, for an
    /// engine without the opening lock.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub starts: Vec<crate::position::Position>,
}

impl Default for RandomPlan {
    fn default() -> RandomPlan {
        RandomPlan {
            games: 100,
            max_plies: 200,
            seed: None,
            starts: Vec::new(),
        }
    }
}

/// How much perft to check from the initial position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PerftPlan {
    /// The deepest depth checked (default 6; 0 for none; at most 64).
    #[serde(deserialize_with = "perft_depth")]
    #[schemars(range(max = 64))]
    pub max_depth: u32,
    /// Depths whose count exceeds this many nodes are skipped (default
    /// 100000, at most 1000000000).
    #[serde(deserialize_with = "perft_nodes")]
    #[schemars(range(max = 1_000_000_000))]
    pub max_nodes: u64,
}

impl Default for PerftPlan {
    fn default() -> PerftPlan {
        PerftPlan {
            max_depth: 6,
            max_nodes: 100_000,
        }
    }
}

/// A JSON path without the `?` segments serde_path_to_error gives where
/// the parser had not yet read a key (a syntax error where a key is
/// expected): `timeouts.?` is `timeouts`, `?` the top level, `.`.
fn known_path(path: &str) -> String {
    let known: Vec<&str> = path.split('.').filter(|s| *s != "?").collect();
    if known.is_empty() {
        ".".to_owned()
    } else {
        known.join(".")
    }
}

/// Reads `T` from a JSON object only: serde's derived structs also take an
/// array of their fields in order, which the schema refuses.
fn object<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    struct Object<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Object<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
        }
    }
    d.deserialize_map(Object(std::marker::PhantomData))
}

fn known_version<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let version = u32::deserialize(d)?;
    if !(OLDEST_MANIFEST_VERSION..=MANIFEST_VERSION).contains(&version) {
        return Err(serde::de::Error::custom(format!(
            "unknown manifest version {version}: this kpe-check reads versions {OLDEST_MANIFEST_VERSION} to {MANIFEST_VERSION}"
        )));
    }
    Ok(version)
}

fn command_line<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let command = Vec::<String>::deserialize(d)?;
    if command.first().is_none_or(String::is_empty) {
        return Err(serde::de::Error::custom(
            "expected the program and its arguments, e.g. [\"python3\", \"engine.py\"]",
        ));
    }
    if let Some(i) = command.iter().position(|word| word.contains('\0')) {
        return Err(serde::de::Error::custom(format!(
            "word {i} of the command holds a NUL character, which no program can receive"
        )));
    }
    Ok(command)
}

fn environment<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, String>, D::Error> {
    let env = BTreeMap::<String, String>::deserialize(d)?;
    for (name, value) in &env {
        if name.is_empty() || name.contains('=') || name.contains('\0') {
            return Err(serde::de::Error::custom(format!(
                "`{}` is not an environment variable name: expected a non-empty name without `=` or NUL",
                name.escape_debug()
            )));
        }
        if value.contains('\0') {
            return Err(serde::de::Error::custom(format!(
                "the value of `{name}` holds a NUL character, which no environment can hold"
            )));
        }
    }
    Ok(env)
}

/// A profile exactly as the schema has it: `default`, or switch names and
/// `setting=value` pairs joined by commas without spaces (the lenient reading of
/// [`Profile::from_str`](std::str::FromStr) also takes `""` and spaces).
fn strict_profile<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Profile, D::Error> {
    let text = String::deserialize(d)?;
    if text == "default" {
        return Ok(Profile::DEFAULT);
    }
    let names = crate::Switch::ALL.map(crate::Switch::name).join(", ");
    text.split(',').try_fold(Profile::DEFAULT, |profile, word| {
        if word.contains('=') {
            // The named form `setting=value` (spec/RULES.md, "Readings").
            return Profile::read_against(word, profile).map_err(serde::de::Error::custom);
        }
        let switch = crate::Switch::ALL
            .into_iter()
            .find(|s| s.name() == word)
            .ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "unknown rules switch `{}`: expected `default` or switch names joined by commas without spaces ({names})",
                    word.escape_debug()
                ))
            })?;
        Ok(profile.set(switch, true))
    })
}

fn milliseconds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let ms = u64::deserialize(d)?;
    if ms == 0 {
        return Err(serde::de::Error::custom("a timeout must be at least 1 ms"));
    }
    Ok(ms)
}

fn pipeline_depth<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let depth = u32::deserialize(d)?;
    if !(1..=MAX_PIPELINE).contains(&depth) {
        return Err(serde::de::Error::custom(format!(
            "pipeline {depth} is out of range: 1 (one request at a time) to {MAX_PIPELINE}"
        )));
    }
    Ok(depth)
}

fn perft_depth<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let depth = u32::deserialize(d)?;
    if depth > MAX_MANIFEST_PERFT_DEPTH {
        return Err(serde::de::Error::custom(format!(
            "perft depth {depth} is deeper than kpe-check counts: at most {MAX_MANIFEST_PERFT_DEPTH}"
        )));
    }
    Ok(depth)
}

fn games_count<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let games = u32::deserialize(d)?;
    if games > MAX_GAMES {
        return Err(serde::de::Error::custom(format!(
            "{games} random games is more than one run plays: at most {MAX_GAMES}"
        )));
    }
    Ok(games)
}

fn perft_nodes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let nodes = u64::deserialize(d)?;
    if nodes > MAX_PERFT_NODES {
        return Err(serde::de::Error::custom(format!(
            "a perft budget of {nodes} nodes is more than kpe-check counts: at most {MAX_PERFT_NODES}"
        )));
    }
    Ok(nodes)
}

/// Why a manifest could not be used.
#[derive(Debug)]
#[non_exhaustive]
pub enum ManifestError {
    /// The file could not be read.
    Read {
        /// The manifest path.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// The file is larger than a manifest can be.
    TooLarge {
        /// The manifest path.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
    },
    /// The JSON is malformed or does not match the manifest format.
    Json {
        /// The manifest path.
        path: PathBuf,
        /// Where in the document, e.g. `timeouts.request_ms` (`.` for the
        /// top level).
        field: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The content is well-formed but unusable.
    Invalid {
        /// The manifest path.
        path: PathBuf,
        /// The offending field, as a JSON path (`command`).
        field: &'static str,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Read { path, error } => {
                write!(f, "{}: cannot read the manifest: {error}", path.display())
            }
            ManifestError::TooLarge { path, size } => write!(
                f,
                "{}: {size} bytes is too large for an engine manifest (at most {MAX_MANIFEST})",
                path.display()
            ),
            ManifestError::Json {
                path,
                field,
                line,
                column,
                message,
            } => write!(
                f,
                "{}:{line}:{column}: at {field}: {message}",
                path.display()
            ),
            ManifestError::Invalid {
                path,
                field,
                message,
            } => write!(f, "{}: at {field}: {message}", path.display()),
        }
    }
}

impl std::error::Error for ManifestError {}

impl ManifestError {
    /// The same error as kpe-check's input error, for its reports.
    #[must_use]
    pub fn into_input_error(self) -> InputError {
        match self {
            ManifestError::Read { path, error } => InputError {
                file: path.display().to_string(),
                kind: InputErrorKind::Read(error),
            },
            ManifestError::TooLarge { ref path, .. } => {
                let file = path.display().to_string();
                let message = self.to_string();
                let message = message.split(": ").skip(1).collect::<Vec<_>>().join(": ");
                InputError::at(&file, ".", 0, 0, message)
            }
            ManifestError::Json {
                path,
                field,
                line,
                column,
                message,
            } => InputError::at(&path.display().to_string(), &field, line, column, message),
            ManifestError::Invalid {
                path,
                field,
                message,
            } => InputError::at(&path.display().to_string(), field, 0, 0, message),
        }
    }
}

impl Manifest {
    /// Reads and checks a manifest file.
    ///
    /// # Errors
    ///
    /// [`ManifestError`] naming the file, and the line and column or field
    /// at fault.
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let read = |error| ManifestError::Read {
            path: path.to_owned(),
            error,
        };
        let bytes = read_limited(path, MAX_MANIFEST).map_err(|e| match e {
            LimitedRead::Io(error) => read(error),
            LimitedRead::NotAFile(kind) => read(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("it is {kind}, not a regular file"),
            )),
            LimitedRead::TooLarge(size) => ManifestError::TooLarge {
                path: path.to_owned(),
                size,
            },
        })?;
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let (line, column) = line_column(&e.as_bytes()[..at]);
                return Err(ManifestError::Json {
                    path: path.to_owned(),
                    field: ".".to_owned(),
                    line,
                    column,
                    message: format!(
                        "byte 0x{:02x} is not UTF-8: a manifest is UTF-8 text",
                        e.as_bytes()[at]
                    ),
                });
            }
        };
        let manifest = Manifest::parse(&text, path)?;
        // A working directory that is not there is the manifest's fault
        // (bad input, exit 2), found before any engine is started.
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let cwd = manifest.launch(base).cwd;
        if !cwd.is_dir() {
            return Err(ManifestError::Invalid {
                path: path.to_owned(),
                field: "cwd",
                message: format!(
                    "could not start the engine: its working directory `{}` does not exist or is not a directory",
                    cwd.display()
                ),
            });
        }
        Ok(manifest)
    }

    /// Reads and checks manifest text; `path` is only used in messages.
    ///
    /// # Errors
    ///
    /// [`ManifestError::Json`] or [`ManifestError::Invalid`].
    pub fn parse(text: &str, path: &Path) -> Result<Manifest, ManifestError> {
        let json_error = |field: String, e: serde_json::Error| {
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or_default();
            // The byte the parser stopped at, named (a NUL, a comment, a
            // trailing comma...), as in transcripts.
            let named = InputError::at("", ".", e.line(), e.column(), message.to_owned())
                .name_the_byte(text.as_bytes());
            let message = match named.kind {
                InputErrorKind::Json { message, .. } => message,
                _ => message.to_owned(),
            };
            ManifestError::Json {
                path: path.to_owned(),
                field,
                line: e.line(),
                column: e.column(),
                message,
            }
        };
        if text.starts_with('\u{feff}') {
            return Err(ManifestError::Json {
                path: path.to_owned(),
                field: ".".to_owned(),
                line: 1,
                column: 1,
                message: "the file starts with a UTF-8 byte order mark, which JSON does not allow: save it without one".to_owned(),
            });
        }
        let mut de = serde_json::Deserializer::from_str(text);
        let mut track = serde_path_to_error::Track::new();
        let manifest: Manifest =
            object(serde_path_to_error::Deserializer::new(&mut de, &mut track))
                .map_err(|e| json_error(known_path(&track.path().to_string()), e))?;
        de.end().map_err(|e| json_error(".".to_owned(), e))?;
        // The checks of each field (version 1, a program, timeouts of 1 ms
        // or more, ...) are made as it is read, so that their errors
        // carry its line and column.
        Ok(manifest)
    }

    /// How to start the engine, with paths resolved against `base`, the
    /// manifest's directory.
    #[must_use]
    pub fn launch(&self, base: &Path) -> Launch {
        let cwd = match &self.cwd {
            Some(dir) => base.join(dir),
            None => base.to_owned(),
        };
        // An absolute directory: the program's path below is resolved
        // against it, and the child starts there.
        let cwd = std::path::absolute(&cwd).unwrap_or(cwd);
        let program = PathBuf::from(&self.command[0]);
        // A relative path with a separator is resolved here, against the
        // engine's working directory: left to the operating system, it is
        // resolved against one directory or the other depending on the
        // platform.
        let program = if program.is_relative() && program.components().count() > 1 {
            cwd.join(program)
        } else {
            program
        };
        Launch {
            program,
            args: self.command[1..].to_vec(),
            cwd,
            env: self.env.clone(),
        }
    }
}

/// The JSON Schema of the manifest, as committed in
/// `spec/manifest.schema.json`.
#[must_use]
pub fn schema() -> schemars::Schema {
    schemars::schema_for!(Manifest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Manifest, String> {
        Manifest::parse(text, Path::new("m.json")).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_fill_what_is_absent() {
        let m =
            parse(r#"{"format":"kpe-engine","version":1,"command":["e"],"random":{"games":3}}"#)
                .unwrap();
        assert_eq!(m.random.games, 3);
        assert_eq!(m.random.max_plies, 200);
        assert_eq!(m.perft, PerftPlan::default());
    }

    #[test]
    fn errors_name_the_place() {
        let err = parse("{\"format\":\"kpe-engine\",\n \"version\":1, \"comand\":[]}").unwrap_err();
        assert!(err.starts_with("m.json:2:"), "{err}");
        assert!(err.contains("unknown field `comand`"), "{err}");
        let err = parse(r#"{"format":"kpe-transcript","version":1,"command":["e"]}"#).unwrap_err();
        assert!(err.contains("kpe-engine"), "{err}");
        let err = parse(r#"{"format":"kpe-engine","version":3,"command":["e"]}"#).unwrap_err();
        assert!(
            err.contains("unknown manifest version 3") && err.contains("versions 1 to 2"),
            "{err}"
        );
        for version in [1, 2] {
            let text = format!(
                r#"{{"format":"kpe-engine","version":{version},"command":["e"],"pipeline":4}}"#
            );
            assert_eq!(parse(&text).unwrap().pipeline, 4, "version {version}");
        }
        let err = parse(r#"{"format":"kpe-engine","version":1,"command":[]}"#).unwrap_err();
        assert!(err.contains("command"), "{err}");
        let err = parse(r#"{"format":"kpe-engine","version":1,"command":["e"],"profile":"x"}"#)
            .unwrap_err();
        assert!(
            err.contains("at profile: unknown rules switch `x`"),
            "{err}"
        );
        let err = parse(
            r#"{"format":"kpe-engine","version":1,"command":["e"],"timeouts":{"start_ms":"5"}}"#,
        )
        .unwrap_err();
        assert!(
            err.starts_with("m.json:1:") && err.contains("at timeouts.start_ms"),
            "{err}"
        );
        let err = parse(r#"{"format":"kpe-engine","version":1,"command":["e"]} []"#).unwrap_err();
        assert!(err.contains("trailing characters"), "{err}");
        let err = parse(
            r#"{"format":"kpe-engine","version":1,"command":["e"],"timeouts":{"request_ms":0}}"#,
        )
        .unwrap_err();
        assert!(err.contains("timeouts"), "{err}");
    }

    #[test]
    fn relative_programs_resolve_against_the_working_directory() {
        let m =
            parse(r#"{"format":"kpe-engine","version":1,"command":["./bin/e","x"],"cwd":"sub"}"#)
                .unwrap();
        let launch = m.launch(Path::new("/base"));
        assert_eq!(launch.cwd, Path::new("/base/sub"));
        let relative = m.launch(Path::new("examples"));
        assert!(
            relative.cwd.is_absolute() && relative.program.is_absolute(),
            "{relative}"
        );
        assert_eq!(launch.program, Path::new("/base/sub/./bin/e"));
        let m = parse(r#"{"format":"kpe-engine","version":1,"command":["python3"]}"#).unwrap();
        assert_eq!(m.launch(Path::new("/base")).program, Path::new("python3"));
    }
}
