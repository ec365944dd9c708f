//! The engine manifest: how to start an engine, what rules it claims and how
//! hard to test it (specified in `spec/PROTOCOL.md`, JSON Schema in
//! `spec/manifest.schema.json`).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::process::Launch;
use crate::check::{InputError, InputErrorKind};
use crate::profile::Profile;

/// The only manifest version this crate reads.
pub const MANIFEST_VERSION: u32 = 1;

/// The largest manifest file read, in bytes: a manifest is a few lines.
const MAX_MANIFEST: u64 = 1 << 20;

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
pub struct Manifest {
    /// Always `kpe-engine`: tells kpe-check this file is an engine manifest.
    pub format: Format,
    /// Always 1.
    pub version: u32,
    /// The program and its arguments, e.g. `["python3", "engine.py"]`. A
    /// program given as a relative path with a `/` is taken relative to the
    /// working directory; a bare name is looked up on `PATH`.
    pub command: Vec<String>,
    /// The engine's working directory, relative to the manifest's directory
    /// (default: the manifest's directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Environment variables to set for the engine, on top of kpe-check's own.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// How long to wait for the engine.
    #[serde(default)]
    pub timeouts: Timeouts,
    /// The rules profile the engine claims to follow (default: `default`).
    #[serde(default)]
    pub profile: Profile,
    /// The profiles to certify in one run, each in turn with its own hello:
    /// a list, or `"all"` for all 32 (default: just `profile`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiles: Option<Profiles>,
    /// How many random games to play against it.
    #[serde(default)]
    pub random: RandomPlan,
    /// How deep to check perft from the initial position.
    #[serde(default)]
    pub perft: PerftPlan,
}

/// Several profiles to check: a list, or all 32.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Profiles {
    /// `"all"`: every one of the 32 profiles.
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
    pub start_ms: u64,
    /// For the answer to each later request (default 5000).
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
    /// How many games (default 100; 0 for none).
    pub games: u32,
    /// Plies after which a game is cut off (default 200): without the
    /// repetition rule a game may never end.
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
    /// The deepest depth checked (default 6; 0 for none).
    pub max_depth: u32,
    /// Depths whose count exceeds this many nodes are skipped (default
    /// 100000).
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
        let size = std::fs::metadata(path).map_err(read)?.len();
        if size > MAX_MANIFEST {
            return Err(ManifestError::TooLarge {
                path: path.to_owned(),
                size,
            });
        }
        let text = std::fs::read_to_string(path).map_err(read)?;
        Manifest::parse(&text, path)
    }

    /// Reads and checks manifest text; `path` is only used in messages.
    ///
    /// # Errors
    ///
    /// [`ManifestError::Json`] or [`ManifestError::Invalid`].
    pub fn parse(text: &str, path: &Path) -> Result<Manifest, ManifestError> {
        let json_error = |field: String, e: serde_json::Error| {
            let message = e.to_string();
            ManifestError::Json {
                path: path.to_owned(),
                field,
                line: e.line(),
                column: e.column(),
                message: message
                    .split(" at line ")
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            }
        };
        let mut de = serde_json::Deserializer::from_str(text);
        let manifest: Manifest = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let field = e.path().to_string();
            json_error(field, e.into_inner())
        })?;
        de.end().map_err(|e| json_error(".".to_owned(), e))?;
        let invalid = |field, message: String| ManifestError::Invalid {
            path: path.to_owned(),
            field,
            message,
        };
        if manifest.version != MANIFEST_VERSION {
            return Err(invalid(
                "version",
                format!(
                    "unknown manifest version {}: this kpe-check reads version {MANIFEST_VERSION}",
                    manifest.version
                ),
            ));
        }
        if manifest.command.first().is_none_or(String::is_empty) {
            return Err(invalid(
                "command",
                "expected the program and its arguments, e.g. [\"python3\", \"engine.py\"]"
                    .to_owned(),
            ));
        }
        if manifest.timeouts.start_ms == 0 || manifest.timeouts.request_ms == 0 {
            return Err(invalid(
                "timeouts",
                "timeouts must be at least 1 ms".to_owned(),
            ));
        }
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
        let err = parse(r#"{"format":"kpe-engine","version":2,"command":["e"]}"#).unwrap_err();
        assert!(
            err.contains("version") && err.contains("version 2"),
            "{err}"
        );
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
