//! Loading a suite and checking its files: malformed YAML and unknown
//! fields with file, line and column; scenario checks with the scenario id.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use super::{Expect, PERFT_FILE, PerftFile, Scenario, ScenarioFile, Suite, SuiteFile};
use crate::position::Position;
use crate::profile::Switch;
use crate::rules::Reason;

/// The largest suite file read, in bytes (the largest built-in file is
/// under 40 KB). A larger one is refused before it is parsed.
pub const MAX_SUITE_FILE: u64 = 8 << 20;

/// The deepest flow nesting (`{`, `[`) a suite file may have; a deeper one
/// is refused before it reaches the YAML parser, whose time grows with the
/// square of the depth.
pub const MAX_YAML_DEPTH: usize = 64;

/// The deepest block nesting, as a column: indentation, counting each
/// compact `- ` or `? ` marker as its two columns. Deeper lines are refused
/// before parsing, like [`MAX_YAML_DEPTH`].
pub const MAX_YAML_INDENT: usize = 256;

impl Suite {
    /// The conformance suite built into the library: every file of the
    /// `conformance/` directory it was built from, `(file name, text)`, in
    /// file-name order. [`Suite::bundled`] loads it.
    pub const BUNDLED: &'static [(&'static str, &'static str)] = &[
        (
            "capture.yaml",
            include_str!("../../conformance/capture.yaml"),
        ),
        ("end.yaml", include_str!("../../conformance/end.yaml")),
        (
            "feeding.yaml",
            include_str!("../../conformance/feeding.yaml"),
        ),
        ("games.yaml", include_str!("../../conformance/games.yaml")),
        (
            "illegal.yaml",
            include_str!("../../conformance/illegal.yaml"),
        ),
        ("lock.yaml", include_str!("../../conformance/lock.yaml")),
        ("perft.yaml", include_str!("../../conformance/perft.yaml")),
        (
            "repetition.yaml",
            include_str!("../../conformance/repetition.yaml"),
        ),
        ("sowing.yaml", include_str!("../../conformance/sowing.yaml")),
    ];

    /// The directory the files of [`Suite::BUNDLED`] are named under in
    /// messages: where they are in the kpe source tree.
    pub const BUNDLED_DIR: &'static str = "conformance";

    /// Loads and checks the suite built into the library
    /// ([`Suite::BUNDLED`]), as [`Suite::load`] does a directory; problems
    /// name the files as `conformance/NAME.yaml`.
    ///
    /// # Errors
    ///
    /// As [`Suite::load`]; a test of this crate keeps the built-in suite
    /// free of them.
    pub fn bundled() -> Result<Suite, ScenarioErrors> {
        Suite::from_texts(Suite::BUNDLED)
    }

    /// Loads files given as `(file name, text)`, named in messages as if in
    /// [`Suite::BUNDLED_DIR`].
    fn from_texts(files: &[(&str, &str)]) -> Result<Suite, ScenarioErrors> {
        let files = files.iter().map(|&(name, text)| SourceFile {
            shown: format!("{}/{name}", Suite::BUNDLED_DIR),
            name: name.to_owned(),
            text: Ok(text.into()),
        });
        Suite::parse(Suite::BUNDLED_DIR, files, false)
    }

    /// Loads and checks every `*.yaml` file of `dir`: `perft.yaml` as the
    /// perft tables, the others as scenario files. Scenario ids must be
    /// unique across all files.
    ///
    /// # Errors
    ///
    /// Returns every problem found, in every file (unreadable or malformed
    /// files with line and column, and scenarios that fail the checks of
    /// [`parse_file`]), not only the first.
    pub fn load(dir: &Path) -> Result<Suite, ScenarioErrors> {
        let entries = std::fs::read_dir(dir).map_err(|e| {
            ScenarioErrors(vec![ScenarioError::new(
                dir.display().to_string(),
                ErrorKind::Read {
                    message: e.to_string(),
                },
            )])
        })?;
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml"))
            .collect();
        names.sort();
        let files = names.into_iter().map(|name| {
            let path = dir.join(&name);
            let shown = path.display().to_string();
            SourceFile {
                text: read_suite_file(&path).map(Cow::Owned),
                shown,
                name,
            }
        });
        Suite::parse(&dir.display().to_string(), files, true)
    }

    /// Checks the files of a suite shown as `dir`, in the order given.
    /// A suite from a directory (`recount`) has its perft tables recounted
    /// with [`recount_perft`] up to [`PERFT_RECOUNT_BUDGET`]; the built-in
    /// one is recounted by the tests.
    fn parse<'a>(
        dir: &str,
        files: impl Iterator<Item = SourceFile<'a>>,
        recount: bool,
    ) -> Result<Suite, ScenarioErrors> {
        let mut errors = Vec::new();
        let mut suite = Suite {
            version: None,
            digest: None,
            files: Vec::new(),
            perft: None,
        };
        let mut seen: HashMap<String, String> = HashMap::new();
        for SourceFile { shown, name, text } in files {
            let text = match text {
                Ok(text) => text,
                Err(failure) => {
                    errors.push(failure.into_error(shown));
                    continue;
                }
            };
            if name == PERFT_FILE {
                match parse_perft_file(&shown, &text) {
                    Ok(perft) => {
                        if recount {
                            errors.extend(
                                recount_perft(&shown, &text, &perft, PERFT_RECOUNT_BUDGET).0,
                            );
                        }
                        suite.perft = Some(perft);
                    }
                    Err(e) => errors.extend(e.0),
                }
                continue;
            }
            match parse_file(&shown, &text) {
                Ok(file) => {
                    let ids = IdLines::new(&text);
                    let mut occurrence: HashMap<&str, usize> = HashMap::new();
                    for scenario in &file.scenarios {
                        let n = occurrence.entry(&scenario.id).or_default();
                        let line = ids.get(&scenario.id, *n);
                        *n += 1;
                        let here = match line {
                            Some((l, _)) => format!("{shown}:{l}"),
                            None => shown.clone(),
                        };
                        if let Some(first) = seen.get(&scenario.id) {
                            errors.push(
                                ScenarioError::new(
                                    shown.clone(),
                                    ErrorKind::DuplicateId {
                                        first: first.clone(),
                                    },
                                )
                                .at(line)
                                .scenario(&scenario.id),
                            );
                        } else {
                            seen.insert(scenario.id.clone(), here);
                        }
                    }
                    suite.files.push(SuiteFile {
                        file: name,
                        topic: file.topic,
                        scenarios: file.scenarios,
                    });
                }
                Err(e) => errors.extend(e.0),
            }
        }
        if suite.files.is_empty() && errors.is_empty() {
            errors.push(ScenarioError::new(dir.to_owned(), ErrorKind::NoFiles));
        }
        if errors.is_empty() {
            Ok(suite)
        } else {
            Err(ScenarioErrors(errors))
        }
    }
}

/// One file of a suite, read or not: how messages name it, its file name,
/// and its text or why it could not be read.
struct SourceFile<'a> {
    shown: String,
    name: String,
    text: Result<Cow<'a, str>, ReadFailure>,
}

/// Why a suite file gave no text.
enum ReadFailure {
    /// It could not be read, is not a regular file, or is too large.
    Read(String),
    /// A byte that is not UTF-8, at this line and column.
    NotUtf8 {
        line: usize,
        column: usize,
        byte: u8,
    },
}

impl ReadFailure {
    fn into_error(self, shown: String) -> ScenarioError {
        match self {
            ReadFailure::Read(message) => ScenarioError::new(shown, ErrorKind::Read { message }),
            ReadFailure::NotUtf8 { line, column, byte } => ScenarioError::new(
                shown,
                ErrorKind::Yaml {
                    message: format!(
                        "byte 0x{byte:02x} is not UTF-8: a scenario file is UTF-8 text"
                    ),
                },
            )
            .at(Some((line, column))),
        }
    }
}

/// Reads a suite file: a regular file of at most [`MAX_SUITE_FILE`] bytes,
/// in UTF-8.
fn read_suite_file(path: &Path) -> Result<String, ReadFailure> {
    let bytes = read_limited(path, MAX_SUITE_FILE).map_err(|e| {
        ReadFailure::Read(match e {
            LimitedRead::Io(e) => e.to_string(),
            LimitedRead::NotAFile(kind) => {
                format!("it is {kind}, not a regular file: scenario files are regular files")
            }
            LimitedRead::TooLarge(size) => {
                format!("{size} bytes is too large for a scenario file (at most {MAX_SUITE_FILE})")
            }
        })
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let (line, column) = line_column(&e.as_bytes()[..at]);
        ReadFailure::NotUtf8 {
            line,
            column,
            byte: e.as_bytes()[at],
        }
    })
}

/// Why [`read_limited`] read nothing.
#[derive(Debug)]
pub(crate) enum LimitedRead {
    /// Opening or reading failed.
    Io(std::io::Error),
    /// Not a regular file: a directory, a FIFO, a device... (what it is).
    NotAFile(&'static str),
    /// Larger than the limit (its size, or the limit + 1 when it grew).
    TooLarge(u64),
}

/// Reads a regular file of at most `limit` bytes. Anything else (a FIFO,
/// which would block, a device such as `/dev/zero`, which never ends) is
/// refused before a byte is read, and a file that grows while it is read is
/// cut at `limit + 1` bytes and refused.
pub(crate) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, LimitedRead> {
    use std::io::Read as _;
    // The type is checked before opening: opening a FIFO for reading
    // blocks until a writer comes.
    let meta = std::fs::metadata(path).map_err(LimitedRead::Io)?;
    if !meta.is_file() {
        return Err(LimitedRead::NotAFile(file_type_name(&meta.file_type())));
    }
    let file = std::fs::File::open(path).map_err(LimitedRead::Io)?;
    let meta = file.metadata().map_err(LimitedRead::Io)?;
    if !meta.is_file() {
        // Replaced between the two looks.
        return Err(LimitedRead::NotAFile(file_type_name(&meta.file_type())));
    }
    if meta.len() > limit {
        return Err(LimitedRead::TooLarge(meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(LimitedRead::Io)?;
    if bytes.len() as u64 > limit {
        return Err(LimitedRead::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// What a file that is not a regular file is, in words.
pub(crate) fn file_type_name(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// The 1-based line and column just after `before` (columns count
/// characters, as serde_json's do).
pub(crate) fn line_column(before: &[u8]) -> (usize, usize) {
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, column)
}

// ---------------------------------------------------------------------------
// Rule IDs
// ---------------------------------------------------------------------------

/// `spec/RULES.md`, built into the library so that it checks scenarios
/// against the rule IDs of the spec it was built with.
const RULES_MD: &str = include_str!("../../spec/RULES.md");

/// The rule IDs of `spec/RULES.md` (as built into the library), in the
/// order the spec lists them.
#[must_use]
pub fn rule_ids() -> Vec<String> {
    parse_rule_ids(RULES_MD)
}

/// The rule IDs a rules text defines: every bullet that starts
/// `- **ID**`, where ID is upper-case letters, `-`, digits (`SOW-4`).
#[must_use]
pub fn parse_rule_ids(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("- **")?;
            let (id, _) = rest.split_once("**")?;
            let (group, number) = id.split_once('-')?;
            let valid = !group.is_empty()
                && group.bytes().all(|b| b.is_ascii_uppercase())
                && !number.is_empty()
                && number.bytes().all(|b| b.is_ascii_digit());
            valid.then(|| id.to_owned())
        })
        .collect()
}

/// The reason codes a rejection may name.
#[must_use]
pub fn reason_codes() -> Vec<&'static str> {
    Reason::ALL.iter().map(|r| r.code()).collect()
}

/// The position error codes an `invalid_start` may name (see
/// [`crate::PositionError::code`]).
pub const POSITION_CODES: [&str; 10] = [
    "syntax",
    "pit-count",
    "pit-out-of-range",
    "captured-out-of-range",
    "wrong-total",
    "odd-captured",
    "captured-while-locked",
    "unused-pit-too-low",
    "side-to-move",
    "south-first",
];

// ---------------------------------------------------------------------------
// Errors in scenario files
// ---------------------------------------------------------------------------

/// A problem with a scenario file: where it is and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file, as it was named to the loader.
    pub file: String,
    /// 1-based line and column, when known: exact for malformed YAML, the
    /// line of the scenario's `id` for a scenario that fails a check.
    pub location: Option<(usize, usize)>,
    /// The scenario (or perft table) the problem is in, if it is in one.
    pub scenario: Option<String>,
    /// What is wrong.
    pub kind: ErrorKind,
}

/// What is wrong with a scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file or directory could not be read.
    Read {
        /// The system's message.
        message: String,
    },
    /// The suite directory holds no scenario files.
    NoFiles,
    /// The YAML is malformed or does not fit the format: a syntax error,
    /// an unknown field, a missing field, a value of the wrong type, a bad
    /// pit name or switch name.
    Yaml {
        /// The parser's message, with the path of the field when known.
        message: String,
    },
    /// The file has an empty topic or no scenarios (or tables).
    Empty {
        /// What is empty.
        what: &'static str,
    },
    /// The id is not a lowercase slug.
    BadId,
    /// The id is already used by another scenario.
    DuplicateId {
        /// Where the first scenario with this id is (`file:line`).
        first: String,
    },
    /// The scenario cites no rule IDs.
    NoRules,
    /// A cited ID is not a rule ID of spec/RULES.md.
    UnknownRule {
        /// The ID as cited.
        id: String,
    },
    /// A reading's ID (`I1`, ...) is cited as a rule.
    ReadingCited {
        /// The reading as cited.
        id: String,
        /// The rule the reading belongs to.
        rule: &'static str,
        /// The switch that selects its alternative.
        switch: &'static str,
    },
    /// The same rule ID is cited twice.
    DuplicateRule {
        /// The ID.
        id: String,
    },
    /// `start` is not a valid position, and `invalid_start` is not set.
    BadStart {
        /// The position error code.
        code: &'static str,
        /// The position error, with the column for a syntax error.
        message: String,
    },
    /// `invalid_start` names a code that is not a position error code.
    UnknownPositionCode {
        /// The code as given.
        code: String,
    },
    /// `invalid_start` is set without a `start` to refuse.
    InvalidStartWithoutStart,
    /// `invalid_start` is set together with something that needs a valid
    /// start.
    InvalidStartWith {
        /// The field that must not be there.
        field: &'static str,
    },
    /// `reject` is set but there are no moves.
    RejectWithoutMoves,
    /// `reject.ply` is not the last move.
    RejectNotLast {
        /// The ply given.
        ply: usize,
        /// The number of moves.
        moves: usize,
    },
    /// `reject.reason` is not a reason code.
    UnknownReason {
        /// The code as given.
        code: String,
    },
    /// An expectation names a ply after the last position the moves reach.
    PlyOutOfRange {
        /// The ply given.
        ply: usize,
        /// The last ply with a position.
        last: usize,
    },
    /// A field that describes a move is expected at ply 0.
    MoveFieldAtStart {
        /// The field.
        field: &'static str,
    },
    /// An expectation has nothing but its ply.
    EmptyExpect {
        /// Its ply.
        ply: usize,
    },
    /// `legal` is not in pit order or repeats a pit.
    LegalOrder {
        /// The ply of the expectation.
        ply: usize,
    },
    /// `events` repeats an event.
    DuplicateEvent {
        /// The ply of the expectation.
        ply: usize,
    },
    /// The scenario checks nothing: no `expect`, `reject`, `result` or
    /// `invalid_start`.
    NothingChecked,
    /// A perft table's `nodes` is empty.
    NoNodes,
    /// A perft table's `divide.depth` is outside `1..=nodes.len()`.
    DivideDepth {
        /// The depth given.
        depth: u32,
        /// The depth of `nodes`.
        max: usize,
    },
    /// A perft table goes deeper than [`MAX_PERFT_TABLE_DEPTH`].
    PerftTooDeep {
        /// The depth of `nodes`.
        depth: usize,
    },
    /// A perft table's count is larger than [`MAX_PERFT_TABLE_NODES`].
    PerftTooLarge {
        /// The depth of the count.
        depth: usize,
        /// The count.
        nodes: u64,
    },
    /// A perft table's count is not what the reference rules count.
    PerftCount {
        /// The depth of the count.
        depth: usize,
        /// The count the table gives.
        nodes: u64,
        /// The reference count.
        counted: u64,
        /// The table's profile, as the reference writes it.
        rules: String,
    },
    /// A perft table's divide counts do not add up to its node count.
    DivideSum {
        /// The depth of the divide.
        depth: u32,
        /// The sum of the divide counts.
        sum: u64,
        /// `nodes` at that depth.
        nodes: u64,
    },
}

impl ScenarioError {
    fn new(file: String, kind: ErrorKind) -> ScenarioError {
        ScenarioError {
            file,
            location: None,
            scenario: None,
            kind,
        }
    }

    fn at(mut self, location: Option<(usize, usize)>) -> ScenarioError {
        self.location = location;
        self
    }

    fn scenario(mut self, id: &str) -> ScenarioError {
        self.scenario = Some(id.to_owned());
        self
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some((line, column)) = self.location {
            write!(f, ":{line}:{column}")?;
        }
        f.write_str(": ")?;
        if let Some(id) = &self.scenario {
            write!(f, "scenario `{id}`: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Read { message } => write!(f, "cannot read: {message}"),
            ErrorKind::NoFiles => f.write_str("no scenario files (*.yaml) here"),
            ErrorKind::Yaml { message } => f.write_str(message),
            ErrorKind::Empty { what } => write!(f, "{what} is empty"),
            ErrorKind::BadId => f.write_str(
                "the id must be a lowercase slug: letters a-z and digits in words joined by single `-`",
            ),
            ErrorKind::DuplicateId { first } => {
                write!(f, "id already used at {first}: ids are unique across the suite")
            }
            ErrorKind::NoRules => f.write_str(
                "`rules` is empty: cite the rule IDs of spec/RULES.md the scenario exercises",
            ),
            ErrorKind::UnknownRule { id } => write!(
                f,
                "`{}` is not a rule ID of spec/RULES.md",
                id.escape_debug()
            ),
            ErrorKind::ReadingCited { id, rule, switch } => write!(
                f,
                "`{id}` is a reading, not a rule ID: cite {rule}, and pin the reading with `when: {{{switch}: false}}` (default) or `when: {{{switch}: true}}` (alternative)"
            ),
            ErrorKind::DuplicateRule { id } => write!(f, "`{id}` is cited twice"),
            ErrorKind::BadStart { code, message } => write!(
                f,
                "`start` is not a valid position ({code}: {message}); if the scenario is about the refusal, set `invalid_start: {code}`"
            ),
            ErrorKind::UnknownPositionCode { code } => write!(
                f,
                "`invalid_start: {}` is not a position error code: expected one of {}",
                code.escape_debug(),
                POSITION_CODES.join(", ")
            ),
            ErrorKind::InvalidStartWithoutStart => {
                f.write_str("`invalid_start` needs a `start` position to refuse")
            }
            ErrorKind::InvalidStartWith { field } => write!(
                f,
                "`invalid_start` scenarios only check the refusal, so `{field}` must not be given"
            ),
            ErrorKind::RejectWithoutMoves => {
                f.write_str("`reject` is set but there are no moves to refuse")
            }
            ErrorKind::RejectNotLast { ply, moves } => write!(
                f,
                "`reject.ply` is {ply} but there are {moves} moves: the refused move must be the last"
            ),
            ErrorKind::UnknownReason { code } => write!(
                f,
                "`{}` is not a reason code: expected one of {}",
                code.escape_debug(),
                reason_codes().join(", ")
            ),
            ErrorKind::PlyOutOfRange { ply, last } => write!(
                f,
                "an expectation names ply {ply}, but the last position the moves reach is ply {last}"
            ),
            ErrorKind::MoveFieldAtStart { field } => write!(
                f,
                "`{field}` describes a move, so it needs a ply of 1 or more (ply 0 is the start position)"
            ),
            ErrorKind::EmptyExpect { ply } => {
                write!(f, "the expectation at ply {ply} checks nothing")
            }
            ErrorKind::LegalOrder { ply } => write!(
                f,
                "`legal` at ply {ply} must list pits in pit order (S1..S4, N1..N4) without repeats"
            ),
            ErrorKind::DuplicateEvent { ply } => {
                write!(f, "`events` at ply {ply} lists an event twice")
            }
            ErrorKind::NothingChecked => f.write_str(
                "the scenario checks nothing: give `expect`, `reject`, `result` or `invalid_start`",
            ),
            ErrorKind::NoNodes => f.write_str("`nodes` is empty"),
            ErrorKind::DivideDepth { depth, max } => write!(
                f,
                "`divide.depth` is {depth}, but `nodes` goes from depth 1 to {max}"
            ),
            ErrorKind::PerftTooDeep { depth } => write!(
                f,
                "`nodes` goes {depth} plies deep; a perft table goes at most {MAX_PERFT_TABLE_DEPTH} plies deep, as a manifest's `perft.max_depth`"
            ),
            ErrorKind::PerftTooLarge { depth, nodes } => write!(
                f,
                "`nodes` at depth {depth} is {nodes}; a perft table counts at most {MAX_PERFT_TABLE_NODES} nodes at a depth, as a manifest's `perft.max_nodes`"
            ),
            ErrorKind::PerftCount {
                depth,
                nodes,
                counted,
                rules,
            } => write!(
                f,
                "profile `{rules}`: `nodes` at depth {depth} is {nodes}, the reference rules count {counted}"
            ),
            ErrorKind::DivideSum { depth, sum, nodes } => write!(
                f,
                "the divide counts add up to {sum}, but `nodes` at depth {depth} is {nodes}"
            ),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Every problem found in a suite or a file, one per line when displayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioErrors(pub Vec<ScenarioError>);

impl fmt::Display for ScenarioErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioErrors {}

// ---------------------------------------------------------------------------
// Parsing and checking files
// ---------------------------------------------------------------------------

/// Reads a scenario file and checks each scenario. `name` is used in
/// messages.
///
/// Checks: unknown fields and malformed YAML (with line and column); ids are
/// lowercase slugs, unique in the file; every cited rule ID is one of
/// spec/RULES.md; `start` is a valid position unless `invalid_start` names
/// the expected refusal; `reject` is on the last move; expectations name
/// plies the moves reach; and the scenario checks something. Uniqueness of
/// ids across files is checked by [`Suite::load`].
///
/// # Errors
///
/// Returns every problem found in the file.
pub fn parse_file(name: &str, text: &str) -> Result<ScenarioFile, ScenarioErrors> {
    let file: ScenarioFile = from_yaml(name, text)?;
    let known = rule_ids();
    let mut errors = Vec::new();
    if file.topic.trim().is_empty() {
        errors.push(ScenarioError::new(
            name.to_owned(),
            ErrorKind::Empty { what: "`topic`" },
        ));
    }
    if file.scenarios.is_empty() {
        errors.push(ScenarioError::new(
            name.to_owned(),
            ErrorKind::Empty {
                what: "`scenarios`",
            },
        ));
    }
    let ids = IdLines::new(text);
    let mut first: HashMap<&str, Option<(usize, usize)>> = HashMap::new();
    let mut occurrence: HashMap<&str, usize> = HashMap::new();
    for scenario in &file.scenarios {
        let n = occurrence.entry(&scenario.id).or_default();
        let location = ids.get(&scenario.id, *n);
        *n += 1;
        for kind in check_scenario(scenario, &known) {
            errors.push(
                ScenarioError::new(name.to_owned(), kind)
                    .at(location)
                    .scenario(&scenario.id),
            );
        }
        if let Some(earlier) = first.get(scenario.id.as_str()) {
            let first = match earlier {
                Some((line, _)) => format!("{name}:{line}"),
                None => name.to_owned(),
            };
            errors.push(
                ScenarioError::new(name.to_owned(), ErrorKind::DuplicateId { first })
                    .at(location)
                    .scenario(&scenario.id),
            );
        } else {
            first.insert(&scenario.id, location);
        }
    }
    if errors.is_empty() {
        Ok(file)
    } else {
        Err(ScenarioErrors(errors))
    }
}

/// Reads and checks a scenario file from disk.
///
/// # Errors
///
/// Returns a read error, or every problem [`parse_file`] finds.
pub fn load_file(path: &Path) -> Result<ScenarioFile, ScenarioErrors> {
    let name = path.display().to_string();
    let text =
        read_suite_file(path).map_err(|e| ScenarioErrors(vec![e.into_error(name.clone())]))?;
    parse_file(&name, &text)
}

/// The deepest perft table a suite may hold: a manifest's cap on
/// `perft.max_depth` (spec/LIMITS.md).
pub const MAX_PERFT_TABLE_DEPTH: usize = 64;
/// The largest count a suite's perft table may give: a manifest's cap on
/// `perft.max_nodes` (spec/LIMITS.md).
pub const MAX_PERFT_TABLE_NODES: u64 = 1_000_000_000;
/// The largest count of a suite directory's perft tables that is recounted
/// when the suite is loaded (`kpe suite --dir`, `kpe-check --suite`);
/// deeper counts are checked by
/// `cargo test --release --test conformance -- --ignored perft`.
pub const PERFT_RECOUNT_BUDGET: u64 = 200_000;

/// Reads `perft.yaml` and checks each table: ids are unique slugs, `start`
/// is a valid position, `nodes` is not empty and within
/// [`MAX_PERFT_TABLE_DEPTH`] and [`MAX_PERFT_TABLE_NODES`], and a divide is
/// at a depth of the table and adds up to its count.
///
/// # Errors
///
/// Returns every problem found in the file.
pub fn parse_perft_file(name: &str, text: &str) -> Result<PerftFile, ScenarioErrors> {
    let file: PerftFile = from_yaml(name, text)?;
    let mut errors = Vec::new();
    if file.tables.is_empty() {
        errors.push(ScenarioError::new(
            name.to_owned(),
            ErrorKind::Empty { what: "`tables`" },
        ));
    }
    let ids = IdLines::new(text);
    let mut first: HashMap<&str, String> = HashMap::new();
    let mut occurrence: HashMap<&str, usize> = HashMap::new();
    for table in &file.tables {
        let n = occurrence.entry(&table.id).or_default();
        let location = ids.get(&table.id, *n);
        *n += 1;
        let mut kinds = Vec::new();
        if !is_slug(&table.id) {
            kinds.push(ErrorKind::BadId);
        }
        if let Some(first) = first.get(table.id.as_str()) {
            kinds.push(ErrorKind::DuplicateId {
                first: first.clone(),
            });
        } else {
            let here = match location {
                Some((line, _)) => format!("{name}:{line}"),
                None => name.to_owned(),
            };
            first.insert(&table.id, here);
        }
        if let Some(start) = &table.start
            && let Err(e) = start.parse::<Position>()
        {
            kinds.push(ErrorKind::BadStart {
                code: e.code(),
                message: e.to_string(),
            });
        }
        if table.nodes.is_empty() {
            kinds.push(ErrorKind::NoNodes);
        }
        if table.nodes.len() > MAX_PERFT_TABLE_DEPTH {
            kinds.push(ErrorKind::PerftTooDeep {
                depth: table.nodes.len(),
            });
        }
        if let Some((k, &nodes)) = table
            .nodes
            .iter()
            .enumerate()
            .find(|&(_, &n)| n > MAX_PERFT_TABLE_NODES)
        {
            kinds.push(ErrorKind::PerftTooLarge {
                depth: k + 1,
                nodes,
            });
        }
        if let Some(divide) = &table.divide {
            let depth = divide.depth as usize;
            if depth == 0 || depth > table.nodes.len() {
                kinds.push(ErrorKind::DivideDepth {
                    depth: divide.depth,
                    max: table.nodes.len(),
                });
            } else {
                let sum = divide.moves.values().sum();
                let nodes = table.nodes[depth - 1];
                if sum != nodes {
                    kinds.push(ErrorKind::DivideSum {
                        depth: divide.depth,
                        sum,
                        nodes,
                    });
                }
            }
        }
        for kind in kinds {
            errors.push(
                ScenarioError::new(name.to_owned(), kind)
                    .at(location)
                    .scenario(&table.id),
            );
        }
    }
    if errors.is_empty() {
        Ok(file)
    } else {
        Err(ScenarioErrors(errors))
    }
}

/// Recounts each table of a perft file read from `text` (named `name`)
/// with the reference rules, depth by depth while the table's count is at
/// most `budget`, and stops a table at its first wrong count (deeper ones
/// would cost more than its counts say). Each wrong count is an error at
/// the table's `id` line.
#[must_use]
pub fn recount_perft(name: &str, text: &str, file: &PerftFile, budget: u64) -> ScenarioErrors {
    let ids = IdLines::new(text);
    let mut occurrence: HashMap<&str, usize> = HashMap::new();
    let mut errors = Vec::new();
    for table in &file.tables {
        let n = occurrence.entry(&table.id).or_default();
        let location = ids.get(&table.id, *n);
        *n += 1;
        let Ok(start) = table.start_text().parse::<Position>() else {
            continue;
        };
        for (k, &nodes) in table.nodes.iter().enumerate().take(MAX_PERFT_TABLE_DEPTH) {
            if nodes > budget {
                break;
            }
            let counted = crate::perft::perft(&start, k as u32 + 1, table.rules);
            if counted != nodes {
                let kind = ErrorKind::PerftCount {
                    depth: k + 1,
                    nodes,
                    counted,
                    rules: table.rules.to_string(),
                };
                errors.push(
                    ScenarioError::new(name.to_owned(), kind)
                        .at(location)
                        .scenario(&table.id),
                );
                break;
            }
        }
    }
    ScenarioErrors(errors)
}

/// Deserialises YAML, turning a parse error into a located [`ScenarioError`].
fn from_yaml<T: serde::de::DeserializeOwned>(name: &str, text: &str) -> Result<T, ScenarioErrors> {
    if text.starts_with('\u{feff}') {
        return Err(ScenarioErrors(vec![
            ScenarioError::new(
                name.to_owned(),
                ErrorKind::Yaml {
                    message: "the file starts with a UTF-8 byte-order mark (0xef 0xbb 0xbf), \
                              which a scenario file does not take: save it without one"
                        .to_owned(),
                },
            )
            .at(Some((1, 1))),
        ]));
    }
    if let Err((line, column, message)) = prescan(text) {
        return Err(ScenarioErrors(vec![
            ScenarioError::new(name.to_owned(), ErrorKind::Yaml { message })
                .at(Some((line, column))),
        ]));
    }
    serde_yaml::from_str(text).map_err(|e| {
        let location = e.location().map(|l| (l.line(), l.column()));
        let mut message = e.to_string();
        // The location goes in front, as `file:line:column`; drop the copy
        // the parser appends.
        if let Some((line, column)) = location
            && let Some(stripped) =
                message.strip_suffix(&format!(" at line {line} column {column}"))
        {
            message = stripped.to_owned();
        }
        ScenarioErrors(vec![
            ScenarioError::new(name.to_owned(), ErrorKind::Yaml { message }).at(location),
        ])
    })
}

/// Whether `id` is a lowercase slug: `[a-z0-9]+(-[a-z0-9]+)*`.
#[must_use]
pub fn is_slug(id: &str) -> bool {
    !id.is_empty()
        && id.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Where each `id: <id>` entry of a text is, found in one pass (looking
/// each id up in the whole text made loading quadratic in its size).
struct IdLines<'a>(HashMap<&'a str, Vec<(usize, usize)>>);

impl<'a> IdLines<'a> {
    fn new(text: &'a str) -> IdLines<'a> {
        let mut map: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            let key = trimmed.trim_start_matches('-').trim_start();
            let Some(value) = key.strip_prefix("id:") else {
                continue;
            };
            let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
            map.entry(value)
                .or_default()
                .push((i + 1, line.len() - key.len() + 1));
        }
        IdLines(map)
    }

    /// The line and column of the `n`-th (0-based) entry for `id`.
    fn get(&self, id: &str, n: usize) -> Option<(usize, usize)> {
        self.0.get(id)?.get(n).copied()
    }
}

/// The line and column of the `n`-th (0-based) `id: <id>` entry in `text`.
#[cfg(test)]
fn id_line(text: &str, id: &str, n: usize) -> Option<(usize, usize)> {
    IdLines::new(text).get(id, n)
}

/// A cheap linear scan run before the YAML parser: refuses flow nesting
/// deeper than [`MAX_YAML_DEPTH`], block nesting past column
/// [`MAX_YAML_INDENT`], and tags (`!tag`, `%TAG`), which scenario files do
/// not use and the parser would ignore. It follows quoted scalars and skips
/// comments and block scalars (`|`, `>`), so their text is not taken for
/// structure. Returns the line, column and message of the first problem.
fn prescan(text: &str) -> Result<(), (usize, usize, String)> {
    let mut scan = Prescan::default();
    for (i, line) in text.lines().enumerate() {
        scan.line(i + 1, line)?;
    }
    Ok(())
}

/// A problem [`prescan`] found: line, column and message.
type Problem = (usize, usize, String);

/// What [`prescan`] carries from one line to the next.
#[derive(Default)]
struct Prescan {
    /// The depth of flow nesting (`[` and `{`).
    depth: usize,
    /// Inside a quoted scalar: its quote character.
    quote: Option<char>,
    /// Inside a block scalar: the indentation of the line that opened it.
    block: Option<usize>,
}

impl Prescan {
    fn line(&mut self, number: usize, line: &str) -> Result<(), Problem> {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(parent) = self.block {
            if line.trim().is_empty() || indent > parent {
                return Ok(());
            }
            self.block = None;
        }
        if self.quote.is_none() && self.depth == 0 {
            block_line(number, line, indent)?;
        }
        self.characters(number, line, indent)
    }

    /// Follows quotes, brackets, tags and block-scalar headers along one
    /// line.
    fn characters(&mut self, number: usize, line: &str, indent: usize) -> Result<(), Problem> {
        // Whether the next character starts a scalar: only there do a
        // quote, a bracket, `!`, `|` or `>` mean structure.
        let mut at_start = true;
        // The previous character, outside quotes.
        let mut previous = ' ';
        let mut column = 0;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            column += 1;
            if let Some(q) = self.quote {
                if q == '"' && c == '\\' {
                    chars.next();
                    column += 1;
                } else if c == q {
                    if q == '\'' && chars.peek() == Some(&'\'') {
                        chars.next();
                        column += 1;
                    } else {
                        self.quote = None;
                        at_start = false;
                    }
                }
                previous = c;
                continue;
            }
            match c {
                ' ' | '\t' => {
                    // After an indicator (`- `, `? `, `key: `) a scalar starts.
                    if matches!(previous, ':' | '-' | '?' | ',') {
                        at_start = true;
                    }
                }
                '#' if matches!(previous, ' ' | '\t') => break,
                '"' | '\'' if at_start => self.quote = Some(c),
                '[' | '{' if at_start || self.depth > 0 => {
                    self.depth += 1;
                    if self.depth > MAX_YAML_DEPTH {
                        return Err((
                            number,
                            column,
                            format!(
                                "nested deeper than {MAX_YAML_DEPTH} levels of `{{` and `[`: scenario files are shallow"
                            ),
                        ));
                    }
                    at_start = true;
                }
                ']' | '}' if self.depth > 0 => {
                    self.depth -= 1;
                    at_start = false;
                }
                ',' if self.depth > 0 => at_start = true,
                '!' if at_start => {
                    return Err((
                        number,
                        column,
                        "YAML tags (`!name`) are not used in scenario files".to_owned(),
                    ));
                }
                '|' | '>' if at_start && self.depth == 0 => {
                    // A block scalar header: its text is the more indented
                    // lines that follow.
                    self.block = Some(indent);
                    break;
                }
                ':' if self.depth > 0 => at_start = true,
                _ => at_start = false,
            }
            previous = c;
        }
        Ok(())
    }
}

/// The checks of a line that starts outside quotes and brackets: no tag
/// directive, and content no deeper than [`MAX_YAML_INDENT`].
fn block_line(number: usize, line: &str, indent: usize) -> Result<(), Problem> {
    if line.starts_with("%TAG") {
        return Err((
            number,
            1,
            "YAML tag directives are not used in scenario files".to_owned(),
        ));
    }
    // The column where the content starts, after the indentation and any
    // compact `- ` / `? ` markers.
    let mut rest = &line[indent..];
    while let Some(after) = rest.strip_prefix("- ").or_else(|| rest.strip_prefix("? ")) {
        rest = after.trim_start_matches(' ');
    }
    let column = line.len() - rest.len();
    if column > MAX_YAML_INDENT {
        return Err((
            number,
            column + 1,
            format!("nested deeper than column {MAX_YAML_INDENT}: scenario files are shallow"),
        ));
    }
    Ok(())
}

/// What is wrong with one scenario read from elsewhere than a suite file
/// (a shard report's reproduction): the checks a scenario file's
/// scenarios get, each said as in `kpe suite`.
#[must_use]
pub fn scenario_problems(s: &Scenario) -> Vec<String> {
    let mut problems: Vec<String> = check_scenario(s, &rule_ids())
        .iter()
        .map(ToString::to_string)
        .collect();
    for expect in &s.expect {
        if let Some(Err(e)) = expect.position.as_deref().map(str::parse::<Position>) {
            problems.push(format!("the position expected at ply {}: {e}", expect.ply));
        }
    }
    problems
}

/// The checks of one scenario on its own (not its id's uniqueness).
fn check_scenario(s: &Scenario, known: &[String]) -> Vec<ErrorKind> {
    let mut errors = Vec::new();
    if !is_slug(&s.id) {
        errors.push(ErrorKind::BadId);
    }
    if s.rules.is_empty() {
        errors.push(ErrorKind::NoRules);
    }
    check_rules(&s.rules, known, &mut errors);
    if let Some(code) = &s.invalid_start {
        if !POSITION_CODES.contains(&code.as_str()) {
            errors.push(ErrorKind::UnknownPositionCode { code: code.clone() });
        }
        if s.start.is_none() {
            errors.push(ErrorKind::InvalidStartWithoutStart);
        }
        for (field, present) in [
            ("moves", !s.moves.is_empty()),
            ("expect", !s.expect.is_empty()),
            ("reject", s.reject.is_some()),
            ("result", s.result.is_some()),
        ] {
            if present {
                errors.push(ErrorKind::InvalidStartWith { field });
            }
        }
        return errors;
    }
    if let Some(start) = &s.start
        && let Err(e) = start.parse::<Position>()
    {
        errors.push(ErrorKind::BadStart {
            code: e.code(),
            message: e.to_string(),
        });
    }
    if let Some(reject) = &s.reject {
        if s.moves.is_empty() {
            errors.push(ErrorKind::RejectWithoutMoves);
        } else if reject.ply != s.moves.len() {
            errors.push(ErrorKind::RejectNotLast {
                ply: reject.ply,
                moves: s.moves.len(),
            });
        }
        if !reason_codes().contains(&reject.reason.as_str()) {
            errors.push(ErrorKind::UnknownReason {
                code: reject.reason.clone(),
            });
        }
    }
    let last = s.last_ply();
    for e in &s.expect {
        check_expect(e, last, &mut errors);
    }
    if s.expect.is_empty() && s.reject.is_none() && s.result.is_none() {
        errors.push(ErrorKind::NothingChecked);
    }
    errors
}

/// The checks of a scenario's `rules:` list: each ID once, a rule of the
/// spec, and never a reading's ID (a reading is pinned with `when:`).
fn check_rules(rules: &[String], known: &[String], errors: &mut Vec<ErrorKind>) {
    for (i, id) in rules.iter().enumerate() {
        if rules[..i].contains(id) {
            errors.push(ErrorKind::DuplicateRule { id: id.clone() });
        } else if let Some(switch) = Switch::ALL.into_iter().find(|s| s.reading() == id) {
            errors.push(ErrorKind::ReadingCited {
                id: id.clone(),
                rule: switch.rule(),
                switch: switch.name(),
            });
        } else if !known.contains(id) {
            errors.push(ErrorKind::UnknownRule { id: id.clone() });
        }
    }
}

/// The checks of one `expect` entry of a scenario whose last ply is `last`.
fn check_expect(e: &Expect, last: usize, errors: &mut Vec<ErrorKind>) {
    if e.ply > last {
        errors.push(ErrorKind::PlyOutOfRange { ply: e.ply, last });
    }
    if e.ply == 0 {
        for (field, present) in [
            ("sown", e.sown.is_some()),
            ("landing", e.landing.is_some()),
            ("captures", e.captures.is_some()),
            ("events", e.events.is_some()),
        ] {
            if present {
                errors.push(ErrorKind::MoveFieldAtStart { field });
            }
        }
    }
    if *e
        == (Expect {
            ply: e.ply,
            ..Expect::default()
        })
    {
        errors.push(ErrorKind::EmptyExpect { ply: e.ply });
    }
    if let Some(legal) = &e.legal
        && !legal.windows(2).all(|w| w[0] < w[1])
    {
        errors.push(ErrorKind::LegalOrder { ply: e.ply });
    }
    if let Some(events) = &e.events {
        let mut sorted = events.clone();
        sorted.sort();
        sorted.dedup();
        if sorted.len() != events.len() {
            errors.push(ErrorKind::DuplicateEvent { ply: e.ply });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Pit, Player};
    use crate::position::PositionError;

    #[test]
    fn rule_ids_are_the_bold_bullets_of_the_spec() {
        let text = "intro **NOT-1** in prose\n- **SOW-1** A rule.\n  - **CAP-12** nested\n- **Rule IDs are permanent.**\n- **lower-1** no\n- **X-** no\n";
        assert_eq!(parse_rule_ids(text), ["SOW-1", "CAP-12"]);
        let ids = rule_ids();
        assert_eq!(ids.first().map(String::as_str), Some("BOARD-1"));
        assert!(ids.iter().any(|id| id == "END-3"), "{ids:?}");
    }

    #[test]
    fn slugs_are_lowercase_words_joined_by_single_dashes() {
        for good in ["a", "sow-8-wraps", "x1-2y"] {
            assert!(is_slug(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a b", "é"] {
            assert!(!is_slug(bad), "{bad}");
        }
    }

    #[test]
    fn position_codes_match_the_position_errors() {
        let errors = [
            PositionError::Syntax {
                column: 1,
                expected: "x",
                found: String::new(),
            },
            PositionError::PitCount { found: 7 },
            PositionError::PitOutOfRange {
                pit: Pit::ALL[0],
                count: 49,
            },
            PositionError::CapturedOutOfRange {
                player: Player::South,
                count: 49,
            },
            PositionError::WrongTotal {
                board: 1,
                captured: 0,
            },
            PositionError::OddCaptured {
                player: Player::South,
                count: 1,
            },
            PositionError::CapturedWhileLocked {
                player: Player::South,
                count: 2,
            },
            PositionError::UnusedPitTooLow {
                pit: Pit::ALL[0],
                count: 1,
            },
            PositionError::SideToMove {
                to_move: Player::South,
            },
            PositionError::SouthFirst {
                to_move: Player::North,
            },
        ];
        let codes: Vec<&str> = errors.iter().map(PositionError::code).collect();
        assert_eq!(codes, POSITION_CODES);
    }

    #[test]
    fn id_line_finds_the_nth_id_entry() {
        let text = "scenarios:\n  - id: a\n    rules: []\n  - id: \"b\"\n  -   id: a\n";
        assert_eq!(id_line(text, "a", 0), Some((2, 5)));
        assert_eq!(id_line(text, "b", 0), Some((4, 5)));
        assert_eq!(id_line(text, "a", 1), Some((5, 7)));
        assert_eq!(id_line(text, "a", 2), None);
    }

    /// The `*.yaml` files of the suite directory in the source tree.
    fn suite_on_disk() -> (std::path::PathBuf, Vec<String>) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(Suite::BUNDLED_DIR);
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml"))
            .collect();
        names.sort();
        (dir, names)
    }

    #[test]
    fn every_conformance_file_is_built_in() {
        let (dir, on_disk) = suite_on_disk();
        let built_in: Vec<&str> = Suite::BUNDLED.iter().map(|&(name, _)| name).collect();
        for name in &on_disk {
            assert!(
                built_in.contains(&name.as_str()),
                "{}/{name} is not built into the library: add it to Suite::BUNDLED in src/scenario/load.rs",
                dir.display()
            );
        }
        assert_eq!(
            built_in, on_disk,
            "Suite::BUNDLED: one entry per file, in file-name order"
        );
        for &(name, text) in Suite::BUNDLED {
            assert_eq!(
                text,
                std::fs::read_to_string(dir.join(name)).unwrap(),
                "{name}"
            );
        }
    }

    #[test]
    fn the_built_in_suite_loads_and_is_the_one_on_disk() {
        let bundled = Suite::bundled().unwrap_or_else(|e| panic!("{e}"));
        let (dir, _) = suite_on_disk();
        assert_eq!(bundled, Suite::load(&dir).unwrap());
        assert!(bundled.perft.is_some());
        assert!(bundled.scenarios().count() > 100);
    }

    #[test]
    fn built_in_files_are_named_by_their_place_in_the_source_tree() {
        let errors = Suite::from_texts(&[
            ("good.yaml", Suite::BUNDLED[0].1),
            ("bad.yaml", "topic: t\nscenarios: [}\n"),
        ])
        .unwrap_err();
        assert_eq!(errors.0.len(), 1, "{errors}");
        assert_eq!(errors.0[0].file, "conformance/bad.yaml");
        assert_eq!(errors.0[0].location.map(|(l, _)| l), Some(2), "{errors}");
        assert!(
            errors.to_string().starts_with("conformance/bad.yaml:2:"),
            "{errors}"
        );
    }

    #[test]
    fn suite_errors_name_the_file_line_and_scenario() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        let one = "topic: t\nscenarios:\n  - id: same\n    rules: [SOW-1]\n    moves: [S1]\n    expect:\n      - ply: 1\n        landing: S4\n";
        std::fs::write(dir.join("a.yaml"), one).unwrap();
        std::fs::write(dir.join("b.yaml"), one).unwrap();
        std::fs::write(dir.join("c.yaml"), "topic: t\nscenarios: [}\n").unwrap();
        let errors = Suite::load(dir).unwrap_err();
        let text = errors.to_string();
        let b = dir.join("b.yaml").display().to_string();
        let c = dir.join("c.yaml").display().to_string();
        assert_eq!(errors.0.len(), 2, "{text}");
        assert_eq!(errors.0[0].file, b, "{text}");
        assert_eq!(errors.0[0].location.map(|(l, _)| l), Some(3), "{text}");
        assert_eq!(errors.0[0].scenario.as_deref(), Some("same"), "{text}");
        assert_eq!(errors.0[1].file, c, "{text}");
        assert_eq!(errors.0[1].location.map(|(l, _)| l), Some(2), "{text}");
    }
}
