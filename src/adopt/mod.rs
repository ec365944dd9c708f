//! `kpe adopt`: make the other value of one reading the authority's default
//! (spec/RULES.md, "Readings"; docs/GUIDE.md, "Settling a rule dispute").
//!
//! The default assignment lives in `spec/default.yaml`, which every copy of
//! the rules reads when the crate is built. Adopting a reading flips that
//! reading's line there and rewrites every stored profile string whose
//! meaning would otherwise change: profile strings are written relative to
//! the default (`default`, `skip-origin`, `feeding=by-sowing`), so the perft
//! tables' `rules:` keep counting the same trees under their new names.
//! Scenario pins (`when:`) name values, not "the default", so they hold
//! unchanged. What a program cannot reword, the prose that states the old
//! default, is listed for a person. Adopting the same reading twice gives
//! back every file byte for byte.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::profile::{Profile, Switch, parse_default_file};

mod commit;
mod error;

pub use commit::{JOURNAL_FILE, LOCK_FILE, NEW_SUFFIX, Recovery, STOP_AFTER_VAR, STOPPED_EXIT};
pub use error::{AdoptError, Holder};

/// The files `adopt` reads and writes, relative to the repository root.
pub const DEFAULT_FILE: &str = "spec/default.yaml";
/// The perft tables, whose `rules:` strings are rewritten.
pub const PERFT_FILE: &str = "conformance/perft.yaml";
/// Every file that holds perft tables: the suite's, the test fixtures' and
/// the example in spec/SCENARIOS.md. Each `rules:` profile in them is
/// rewritten; a file that does not exist is passed over.
pub const PERFT_FILES: [&str; 4] = [
    PERFT_FILE,
    "tests/fixtures/scenarios/good/perft.yaml",
    "tests/fixtures/scenarios/badperft/perft.yaml",
    "spec/SCENARIOS.md",
];

/// What one adoption did.
#[derive(Debug)]
pub struct Adoption {
    /// The reading adopted.
    pub switch: Switch,
    /// The default before and after.
    pub before: Profile,
    /// The default after.
    pub after: Profile,
    /// Each file changed, with how many of its lines changed.
    pub changed: Vec<(PathBuf, usize)>,
    /// Prose that states the old default and needs a person: `file:line: text`.
    pub reword: Vec<String>,
}

/// Makes the other value of the reading `word` names (`I3`, `feeding` or
/// `feed-after-capture`) the default in the repository at `root`.
///
/// The files are written as one change under a lock (see [`recover`] and
/// the `commit` module's steps): whatever stops it, the tree is as before,
/// fully adopted, or finished or undone by `kpe adopt --recover`.
///
/// # Errors
/// An unknown reading, a root that is not the project, an unreadable or
/// malformed file, a file that cannot be written, a held lock; nothing is
/// written then. A rename that fails after the change was decided
/// ([`AdoptError::Unfinished`]).
pub fn adopt(root: &Path, word: &str) -> Result<Adoption, AdoptError> {
    let switch = Switch::named(word).ok_or_else(|| AdoptError::UnknownReading(word.to_owned()))?;
    check_root(root)?;
    let lock = commit::Lock::take(root)?;
    let planned = plan(root, switch);
    let (adoption, files) = match planned {
        Ok(planned) => planned,
        Err(e) => {
            lock.release()?;
            return Err(e);
        }
    };
    commit::write_all(lock, root, &files)?;
    Ok(adoption)
}

/// Finishes or undoes what a stopped `kpe adopt` at `root` started, then
/// removes its lock: with the journal (the change was decided) the files
/// still beside their targets are renamed into place; without it the new
/// texts are deleted.
///
/// # Errors
/// A root that is not the project; the lock names a process that is
/// running ([`AdoptError::Locked`]); a journal that is not one; a file that
/// cannot be renamed or removed.
pub fn recover(root: &Path) -> Result<Recovery, AdoptError> {
    check_root(root)?;
    commit::recover(root, &folders())
}

/// The folders, relative to the root, where new texts may be left by a
/// stopped run: the parents of every file `kpe adopt` writes.
fn folders() -> Vec<&'static str> {
    let mut dirs: Vec<&str> = PERFT_FILES
        .iter()
        .chain([&DEFAULT_FILE])
        .map(|f| f.rsplit_once('/').map_or("", |(d, _)| d))
        .chain(SAMPLE_DIRS)
        .collect();
    dirs.sort_unstable();
    dirs.dedup();
    dirs
}

/// Refuses a root that is missing, a file, or not the project.
fn check_root(root: &Path) -> Result<(), AdoptError> {
    let not = |what: String| Err(AdoptError::NotAProject(root.to_owned(), what));
    match fs::metadata(root) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return not("it does not exist".into());
        }
        Err(e) => return Err(AdoptError::Io(root.to_owned(), e)),
        Ok(m) if !m.is_dir() => return not("it is not a directory".into()),
        Ok(_) => {}
    }
    match fs::metadata(root.join(DEFAULT_FILE)) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(_) => not(format!("its {DEFAULT_FILE} is not a regular file")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            not(format!("it has no {DEFAULT_FILE}"))
        }
        Err(e) => Err(AdoptError::Io(root.join(DEFAULT_FILE), e)),
    }
}

/// Reads and rewrites every file in memory: the adoption, and each file to
/// write with its new text.
fn plan(root: &Path, switch: Switch) -> Result<(Adoption, Vec<(PathBuf, String)>), AdoptError> {
    let default_path = root.join(DEFAULT_FILE);
    let default_text = read(&default_path)?;
    if default_text.trim().is_empty() {
        return Err(AdoptError::Malformed(
            default_path,
            "empty: it must give each reading's default value (`origin: sown`, ...)".into(),
        ));
    }
    let before = parse_default_file(&default_text)
        .map_err(|e| AdoptError::Malformed(default_path.clone(), e.to_string()))?;
    let after = before.set(switch, !before.has(switch));
    let new_default = flip_line(&default_text, switch, after).ok_or_else(|| {
        AdoptError::Malformed(
            default_path.clone(),
            format!("no `{}:` line", switch.setting()),
        )
    })?;

    // Perft tables keep counting the same trees under their new names.
    let mut tables = Vec::new();
    for file in PERFT_FILES {
        let path = root.join(file);
        let text = match fs::read_to_string(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && file != PERFT_FILE => continue,
            other => other.map_err(|e| AdoptError::Io(path.clone(), e))?,
        };
        let (new, lines) = rewrite_rules_lines(&text, before, after).map_err(|(line, e)| {
            AdoptError::Malformed(path.clone(), format!("line {line}: {e}"))
        })?;
        if lines > 0 {
            tables.push((path, PathBuf::from(file), new, lines));
        }
    }

    // The sample transcripts and example manifests keep the profile they
    // claim: `"profile": "default"` becomes the old default written
    // against the new one.
    let mut samples = Vec::new();
    for dir in SAMPLE_DIRS {
        for path in json_files(&root.join(dir))? {
            let text = read(&path)?;
            let (new, lines) =
                rewrite_profile_fields(&text, before, after).map_err(|(line, e)| {
                    AdoptError::Malformed(path.clone(), format!("line {line}: {e}"))
                })?;
            if lines > 0 {
                let relative = path.strip_prefix(root).unwrap_or(&path).to_owned();
                samples.push((path, relative, new, lines));
            }
        }
    }

    let reword = prose_to_reword(root, switch)?;
    let mut changed = vec![(PathBuf::from(DEFAULT_FILE), 1)];
    let mut files = vec![(default_path, new_default)];
    for (path, relative, text, lines) in tables.into_iter().chain(samples) {
        files.push((path, text));
        changed.push((relative, lines));
    }
    let adoption = Adoption {
        switch,
        before,
        after,
        changed,
        reword,
    };
    Ok((adoption, files))
}

fn read(path: &Path) -> Result<String, AdoptError> {
    fs::read_to_string(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidData {
            AdoptError::Malformed(path.to_owned(), "not UTF-8 text".into())
        } else {
            AdoptError::Io(path.to_owned(), e)
        }
    })
}

/// The default file with `switch`'s line set to its value in `after`; only
/// the value word changes, so comments and spacing are kept.
fn flip_line(text: &str, switch: Switch, after: Profile) -> Option<String> {
    let mut found = false;
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| {
            let Some(rest) = line
                .strip_prefix(switch.setting())
                .and_then(|r| r.strip_prefix(':'))
            else {
                return line.to_owned();
            };
            let old = switch.values()[usize::from(!after.has(switch))];
            let Some(at) = rest.find(old) else {
                return line.to_owned();
            };
            found = true;
            let new = switch.value_in(after);
            format!(
                "{}:{}{new}{}",
                switch.setting(),
                &rest[..at],
                &rest[at + old.len()..]
            )
        })
        .collect();
    found.then(|| lines.join("\n"))
}

/// Rewrites each indented `rules: PROFILE` line of a perft file so that it
/// names the same profile against the new default; a comment after the
/// profile is kept, and a scenario's rule list (`rules: [SOW-4]`) is not a
/// profile. Returns the text and the number of lines changed, or the
/// 1-based line of a profile that cannot be read.
pub fn rewrite_rules_lines(
    text: &str,
    before: Profile,
    after: Profile,
) -> Result<(String, usize), (usize, String)> {
    rewrite_profiles(text, before, after, |line| {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let written = trimmed.strip_prefix("rules: ").filter(|_| indent > 0)?;
        if written.starts_with('[') {
            return None;
        }
        let start = line.len() - written.len();
        let end = written.find(char::is_whitespace).unwrap_or(written.len());
        Some(start..start + end)
    })
}

/// Rewrites the profile that `find` locates in each line of `text` (its
/// byte range) so that it names the same profile against `after` as it did
/// against `before`; other lines are kept. Returns the text and the number
/// of lines changed, or the 1-based line of a profile that cannot be read.
fn rewrite_profiles(
    text: &str,
    before: Profile,
    after: Profile,
    find: impl Fn(&str) -> Option<std::ops::Range<usize>>,
) -> Result<(String, usize), (usize, String)> {
    let mut changed = 0;
    let mut out = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let Some(at) = find(line) else {
            out.push(line.to_owned());
            continue;
        };
        let written = &line[at.clone()];
        let profile = Profile::read_against(written, before).map_err(|e| (i + 1, e.to_string()))?;
        let new = profile.written_against(after);
        if new != written {
            changed += 1;
        }
        out.push(format!("{}{new}{}", &line[..at.start], &line[at.end..]));
    }
    Ok((out.join("\n"), changed))
}

/// The folders whose JSON files (sample transcripts, example engine
/// manifests) claim a profile that `kpe adopt` keeps.
const SAMPLE_DIRS: [&str; 2] = ["examples/transcripts", "examples/engines"];

/// The `.json` files directly in `dir`, in name order; none when `dir` does
/// not exist.
fn json_files(dir: &Path) -> Result<Vec<PathBuf>, AdoptError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(AdoptError::Io(dir.to_owned(), e)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| AdoptError::Io(dir.to_owned(), e))?.path();
        if path.extension().is_some_and(|x| x == "json") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Rewrites each `"profile": "PROFILE"` line of a JSON file (the field as
/// kpe's files write it, one to a line) so that it names the same profile
/// against the new default. Returns the text and the number of lines
/// changed, or the 1-based line of a profile that cannot be read.
pub fn rewrite_profile_fields(
    text: &str,
    before: Profile,
    after: Profile,
) -> Result<(String, usize), (usize, String)> {
    const KEY: &str = "\"profile\": \"";
    rewrite_profiles(text, before, after, |line| {
        let trimmed = line.trim_start();
        let (written, _) = trimmed.strip_prefix(KEY)?.split_once('"')?;
        let start = line.len() - trimmed.len() + KEY.len();
        (!written.contains('\\')).then(|| start..start + written.len())
    })
}

/// Lines of prose that state which value of `switch` is the default: the
/// rule paragraph and the table row of spec/RULES.md, and scenario
/// descriptions that say "default" beside the reading.
fn prose_to_reword(root: &Path, switch: Switch) -> Result<Vec<String>, AdoptError> {
    let mut out = Vec::new();
    let tag = format!("*Reading {}.*", switch.reading());
    let row = format!("| {} |", switch.reading());
    let rules = read(&root.join("spec/RULES.md"))?;
    let mut in_paragraph = false;
    for (i, line) in rules.lines().enumerate() {
        if line.contains(&tag) {
            in_paragraph = true;
        } else if line.starts_with("- **") || line.trim().is_empty() {
            in_paragraph = false;
        }
        if in_paragraph || line.starts_with(&row) {
            out.push(format!("spec/RULES.md:{}: {}", i + 1, line.trim()));
        }
    }
    let dir = root.join("conformance");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .map_err(|e| AdoptError::Io(dir.clone(), e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    for file in files {
        let text = read(&file)?;
        let name = format!(
            "conformance/{}",
            file.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default()
        );
        for (i, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            if lower.contains("default")
                && (line.contains(switch.name()) || line.contains(switch.reading()))
                && !line.trim_start().starts_with("rules:")
            {
                out.push(format!("{name}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    Ok(out)
}

impl Adoption {
    /// The report `kpe adopt` prints: what changed, then what a person must
    /// still reword, then the next steps.
    #[must_use]
    pub fn to_text(&self) -> String {
        use fmt::Write as _;
        let s = self.switch;
        let mut out = format!(
            "Adopted {} `{}={}` (was `{}={}`): the default is now `{}`.\n\nChanged:\n",
            s.reading(),
            s.setting(),
            s.value_in(self.after),
            s.setting(),
            s.value_in(self.before),
            describe(self.after)
        );
        for (path, lines) in &self.changed {
            let _ = writeln!(
                out,
                "  {} ({lines} line{})",
                path.display(),
                if *lines == 1 { "" } else { "s" }
            );
        }
        out.push_str(
            "Unchanged by design: scenario pins (`when:`) name values, not the default, so every \
             expectation still holds; the tests run each scenario under the profiles it holds for.\n",
        );
        let _ = writeln!(
            out,
            "\nProse to reword by hand ({} lines):",
            self.reword.len()
        );
        for line in &self.reword {
            let _ = writeln!(out, "  {line}");
        }
        out.push_str(
            "\nNext: rebuild and review (`cargo test`; `INSTA_UPDATE=always cargo test` and \
             `git diff tests/snapshots` for any trace that changed), reword the prose above, \
             and add a CHANGELOG.md entry. `kpe adopt` of the same reading again undoes this.\n",
        );
        out
    }
}

/// Every setting's value in `profile`: `origin=sown, lock=after-sowing, ...`.
#[must_use]
pub fn describe(profile: Profile) -> String {
    Switch::ALL.map(|s| s.assignment(profile)).join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_lines_keep_their_profile_and_come_back_byte_for_byte() {
        let text = "tables:\n  - id: a\n    rules: default   # a comment\n  - id: b\n    rules: skip-origin,strict-lock\n  - id: s\n    rules: [SOW-4]\n";
        let before = Profile::ALL_OFF;
        let after = before.set(Switch::SkipOrigin, true);
        let (new, n) = rewrite_rules_lines(text, before, after).unwrap();
        assert_eq!(n, 2);
        assert!(new.contains("rules: origin=sown   # a comment\n"), "{new}");
        assert!(new.contains("rules: [SOW-4]\n"), "{new}");
        assert!(new.contains("rules: strict-lock\n"), "{new}");
        assert_eq!(rewrite_rules_lines(&new, after, before).unwrap().0, text);
        let bad = rewrite_rules_lines("x:\n    rules: bogus\n", before, after).unwrap_err();
        assert_eq!(bad.0, 2);
    }

    #[test]
    fn profile_fields_keep_their_profile_and_come_back_byte_for_byte() {
        let before = Profile::ALL_OFF;
        let after = before.set(Switch::EndOnRepetition, true);
        let text = "{\n  \"format\": \"kpe-transcript\",\n  \"profile\": \"default\",\n  \"games\": []\n}\n";
        let (adopted, n) = rewrite_profile_fields(text, before, after).unwrap();
        assert_eq!(n, 1);
        let line = adopted.lines().nth(2).unwrap();
        let written = line
            .trim()
            .trim_start_matches("\"profile\": \"")
            .trim_end_matches("\",");
        assert_eq!(
            Profile::read_against(written, after).unwrap(),
            before,
            "{adopted}"
        );
        let (back, m) = rewrite_profile_fields(&adopted, after, before).unwrap();
        assert_eq!((back.as_str(), m), (text, 1));
        let bad = "  \"profile\": \"no-such-switch\",\n";
        assert_eq!(rewrite_profile_fields(bad, before, after).unwrap_err().0, 1);
    }

    #[test]
    fn flipping_a_line_changes_only_its_value() {
        let text = crate::profile::DEFAULT_FILE;
        for s in Switch::ALL {
            let after = Profile::DEFAULT.set(s, !Profile::DEFAULT.has(s));
            let new = flip_line(text, s, after).unwrap();
            assert_eq!(parse_default_file(&new), Ok(after));
            assert_eq!(flip_line(&new, s, Profile::DEFAULT).unwrap(), text);
        }
    }
}
