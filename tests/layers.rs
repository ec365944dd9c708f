//! The crate's layers, read from its source: which file imports which.
//!
//! `src/` is layered (spec in docs/GUIDE.md, "Layout of the code"): the rules at the
//! bottom; judgement (`src/judge/`) and the solver (`src/solve/`) above
//! them; the report model and its renderers (`src/reporter/`) above
//! judgement; the two modes (`src/transcripts/`, `src/live/`) and the
//! dispute tools on top; the binaries above everything. This test reads every `crate::` and
//! `super::` path in `src/`, resolves it to the file that defines it
//! (through the re-exports of each `mod.rs`), and fails on an import that
//! goes up a layer or across from one mode to the other, and on any circle
//! of files.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A source file by its module path: `judge::reading`, `transcripts`.
type Module = String;

/// Every `.rs` file under `src/` but the binaries, by module path.
fn modules() -> BTreeMap<Module, PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).expect("src is readable") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let mut modules = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(&src).expect("under src");
        let parts: Vec<String> = rel
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
            .collect();
        if parts[0] == "bin" {
            continue;
        }
        let mut path: Vec<&str> = parts.iter().map(String::as_str).collect();
        if path.last() == Some(&"mod") || path == ["lib"] {
            path.pop();
        }
        modules.insert(path.join("::"), file);
    }
    modules
}

/// The layer of a module and whether it may import `other`'s layer.
fn layer(module: &str) -> (u8, &'static str) {
    let top = module.split("::").next().unwrap_or("");
    match top {
        "" => (4, "crate root"),
        "judge" => (1, "judgement"),
        "reporter" => (2, "report model"),
        "transcripts" => (3, "transcript mode"),
        "live" => (3, "live mode"),
        "dispute" => (3, "dispute tools"),
        "adopt" => (3, "adopting a reading"),
        "solve" => (1, "solver"),
        _ => (0, "rules"),
    }
}

/// The names each `mod.rs` (or `lib.rs`) re-exports, and from which child.
fn reexports(modules: &BTreeMap<Module, PathBuf>) -> BTreeMap<(Module, String), Module> {
    let mut out = BTreeMap::new();
    for (module, file) in modules {
        let text = fs::read_to_string(file).expect("readable");
        let flat: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .flat_map(|l| [l, " "])
            .collect();
        for stmt in flat.split(';') {
            let stmt = stmt.trim();
            let Some(rest) = stmt
                .strip_prefix("pub use ")
                .or_else(|| stmt.strip_prefix("pub(crate) use "))
            else {
                continue;
            };
            let (path, names) = match rest.find("::{") {
                Some(i) => (&rest[..i], rest[i + 3..].trim_end_matches('}').to_owned()),
                None => match rest.rfind("::") {
                    Some(i) => (&rest[..i], rest[i + 2..].to_owned()),
                    None => continue,
                },
            };
            let Some(target) = resolve(module, path, modules, &BTreeMap::new(), false) else {
                continue;
            };
            for name in names.split(',') {
                let name = name.trim();
                let name = name.split(" as ").last().unwrap_or(name).trim();
                if !name.is_empty() {
                    out.insert((module.clone(), name.to_owned()), target.clone());
                }
            }
        }
    }
    out
}

/// The file that a path used in `module` names, if it is a file of the crate.
fn resolve(
    module: &str,
    path: &str,
    modules: &BTreeMap<Module, PathBuf>,
    reexports: &BTreeMap<(Module, String), Module>,
    inline: bool,
) -> Option<Module> {
    let mut segments: Vec<&str> = path.split("::").map(str::trim).collect();
    let mut base: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    match segments.first() {
        Some(&"crate") => {
            base.clear();
            segments.remove(0);
        }
        Some(&"super") => {
            // Inside an inline module, `super` is the file itself.
            let mut first = true;
            while segments.first() == Some(&"super") {
                segments.remove(0);
                if !(first && inline) {
                    base.pop();
                }
                first = false;
            }
        }
        Some(&"self") => {
            segments.remove(0);
        }
        // A path relative to the module: one of its own child modules.
        Some(first) => {
            let child = if module.is_empty() {
                (*first).to_owned()
            } else {
                format!("{module}::{first}")
            };
            if !modules.contains_key(&child) {
                return None;
            }
        }
        None => return None,
    }
    // The longest prefix that is a file, then one re-exported name.
    let mut current = base.join("::");
    let mut rest = segments.into_iter().filter(|s| !s.is_empty() && *s != "*");
    loop {
        let Some(next) = rest.next() else {
            return Some(current);
        };
        let child = if current.is_empty() {
            next.to_owned()
        } else {
            format!("{current}::{next}")
        };
        if modules.contains_key(&child) {
            current = child;
            continue;
        }
        return Some(
            reexports
                .get(&(current.clone(), next.to_owned()))
                .cloned()
                .unwrap_or(current),
        );
    }
}

/// A path named in a file, and where.
struct Named {
    path: String,
    /// In the file's inline test module.
    in_tests: bool,
    /// In an inline module, where `super` is the file itself.
    inline: bool,
    /// In a `pub use` (a re-export).
    reexport: bool,
}

/// Every path a file names: `crate::a::b`, `super::c::{d, e}` expanded,
/// and `child::x` for each child module the file declares, each with
/// whether it is in the file's inline test module and whether it is a
/// re-export (`pub use`).
fn paths_in(text: &str) -> Vec<Named> {
    let mut out = Vec::new();
    // Inside an inline module (rustfmt closes it with `}` at column 0):
    // whether it is the test module, and that `super` is the file itself.
    let mut in_tests = false;
    let mut inline = false;
    let children: Vec<String> = text
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = l
                .strip_prefix("pub(crate) ")
                .or(l.strip_prefix("pub "))
                .unwrap_or(l);
            let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(format!("{name}::"))
        })
        .collect();
    let starts: Vec<&str> = ["crate::", "super::"]
        .into_iter()
        .chain(children.iter().map(String::as_str))
        .collect();
    // A `use` over several lines is read as one.
    let mut lines: Vec<String> = Vec::new();
    let mut open_use = false;
    for line in text.lines() {
        if open_use {
            let last = lines.last_mut().expect("a use begun");
            last.push(' ');
            last.push_str(line.trim());
        } else {
            lines.push(line.to_owned());
        }
        let trimmed = line.trim_start();
        let starts_use = ["use ", "pub use ", "pub(crate) use "]
            .iter()
            .any(|u| trimmed.starts_with(u));
        open_use = (open_use || starts_use) && !line.trim_end().ends_with(';');
    }
    for line in &lines {
        let line = line.as_str();
        let trimmed = line.trim_start();
        if line == "}" {
            (in_tests, inline) = (false, false);
            continue;
        }
        let declared = trimmed
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub ");
        if declared.starts_with("mod ") && declared.ends_with('{') {
            inline = true;
            in_tests = declared.starts_with("mod tests");
            continue;
        }
        if trimmed.starts_with("//")
            || trimmed.starts_with("pub mod ")
            || trimmed.starts_with("mod ")
        {
            continue;
        }
        let reexport = trimmed.starts_with("pub use ") || trimmed.starts_with("pub(crate) use ");
        for &start in &starts {
            let mut from = 0;
            while let Some(i) = line[from..].find(start) {
                let at = from + i;
                // `pub(in crate::x)` is a visibility, not an import.
                let preceded = line[..at].ends_with("(in ")
                    || line[..at]
                        .chars()
                        .last()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
                let end = line[at..]
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .map_or(line.len(), |e| at + e);
                if !preceded {
                    let path = line[at..end].trim_end_matches(':');
                    if line[end..].starts_with('{') {
                        let close = line[end..].find('}').map_or(line.len(), |c| end + c);
                        for name in line[end + 1..close].split(',') {
                            let name = name.trim().split(" as ").next().unwrap_or("").trim();
                            let path = match name {
                                "" => continue,
                                "self" => path.to_owned(),
                                name => format!("{path}::{name}"),
                            };
                            out.push(Named {
                                path,
                                in_tests,
                                inline,
                                reexport,
                            });
                        }
                    } else {
                        out.push(Named {
                            path: path.to_owned(),
                            in_tests,
                            inline,
                            reexport,
                        });
                    }
                }
                from = end.max(at + start.len());
            }
        }
    }
    out
}

/// Which files each file imports (itself and the crate root left out),
/// with or without the imports of inline test modules.
fn graph_of(with_tests: bool) -> BTreeMap<Module, BTreeSet<Module>> {
    let modules = modules();
    let reexports = reexports(&modules);
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let text = fs::read_to_string(file).expect("readable");
        let mut edges = BTreeSet::new();
        for named in paths_in(&text) {
            if named.in_tests && !with_tests {
                continue;
            }
            let reexport = named.reexport;
            if let Some(target) = resolve(module, &named.path, &modules, &reexports, named.inline) {
                // A module's re-exports of its own children are not imports.
                let own_child = reexport && target.starts_with(&format!("{module}::"));
                if &target != module && !target.is_empty() && !own_child {
                    edges.insert(target);
                }
            }
        }
        graph.insert(module.clone(), edges);
    }
    graph
}

/// Every import, tests' included.
fn graph() -> BTreeMap<Module, BTreeSet<Module>> {
    graph_of(true)
}

#[test]
fn no_file_imports_a_higher_layer_or_the_other_mode() {
    let mut wrong = Vec::new();
    for (from, targets) in graph() {
        let (from_layer, from_name) = layer(&from);
        for to in targets {
            let (to_layer, to_name) = layer(&to);
            let across = from_layer == to_layer && from_name != to_name && from_layer > 0;
            if to_layer > from_layer || across {
                wrong.push(format!("{from} ({from_name}) imports {to} ({to_name})"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_circle_of_files() {
    // A file's own tests may use what is built on it (the rules' tests
    // count perft); circles are of the code itself.
    let graph = graph_of(false);
    // Depth-first search; a back edge closes a circle.
    fn visit(
        node: &str,
        graph: &BTreeMap<Module, BTreeSet<Module>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
        circles: &mut Vec<String>,
    ) {
        state.insert(node.to_owned(), 1);
        stack.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()) {
                Some(1) => {
                    let from = stack.iter().position(|m| m == next).unwrap_or(0);
                    let mut circle = stack[from..].to_vec();
                    circle.push(next.clone());
                    circles.push(circle.join(" -> "));
                }
                Some(_) => {}
                None => visit(next, graph, state, stack, circles),
            }
        }
        stack.pop();
        state.insert(node.to_owned(), 2);
    }
    let mut state = BTreeMap::new();
    let mut circles = Vec::new();
    for node in graph.keys() {
        if !state.contains_key(node.as_str()) {
            visit(node, &graph, &mut state, &mut Vec::new(), &mut circles);
        }
    }
    assert!(
        circles.is_empty(),
        "circles of files:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_reader_of_imports_sees_what_it_must() {
    // The test above would pass on a graph it failed to read: check that
    // known imports are found, through re-exports and `super`.
    let graph = graph();
    let has = |from: &str, to: &str| graph.get(from).is_some_and(|t| t.contains(to));
    assert!(
        has("live::run", "reporter::report"),
        "{:?}",
        graph.get("live::run")
    );
    assert!(has("live::run", "judge::reading"));
    assert!(has("reporter::report", "judge::divergence"));
    assert!(has("transcripts::check", "judge::oracle"));
    assert!(has("transcripts::reader", "transcripts::span"));
    assert!(has("judge::diagnose", "rules"));
    // And that a planted upward import would be caught.
    let (low, _) = layer("judge::reading");
    let (high, _) = layer("reporter::render");
    assert!(high > low);
    assert_ne!(layer("transcripts::reader").1, layer("live::run").1);
}
