//! A validator of the part of JSON Schema (draft 2020-12) that the
//! committed `spec/*.schema.json` use, and the check of kpe-check's JSON
//! reports against `spec/report.schema.json`. Included with
//! `#[path = "common/schema.rs"] mod schema;`.
//!
//! Hand-written rather than the `jsonschema` crate (issue 26): that crate
//! brought 49 packages, and Cargo.lock went from 204 to 155 without it
//! (233 before `scraper` went too). It refuses a schema that uses a keyword it
//! does not know, so a rule can never pass by being ignored, and unlike
//! `jsonschema` (for which `format` is only an annotation in 2020-12) it
//! checks the ranges of the integer formats schemars writes (`uint8`,
//! `uint32`, `int64`...), as the serde types the schemas come from do.

// Each test binary that includes this file uses part of it.
#![allow(dead_code)]

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::{Map, Number, Value};

/// Keywords that only annotate: no instance is refused by them.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// The dialect the schemas are written in; any other is refused.
const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// How many `$ref` may be followed without reaching into the instance:
/// more is a loop of references.
const MAX_REF_CHAIN: usize = 64;

/// A schema checked to use only what this validator knows, with its
/// patterns compiled.
#[derive(Debug)]
pub struct Schema {
    root: Value,
    patterns: HashMap<String, Regex>,
}

/// One place where an instance breaks its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// The instance's JSON path: `$` for the whole value, then
    /// `.field` and `[index]`, as `$.units[0].verdict`.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.path, self.message)
    }
}

/// One step of a JSON path.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn render(path: &[Step]) -> String {
    let mut out = String::from("$");
    for step in path {
        match step {
            Step::Index(i) => out.push_str(&format!("[{i}]")),
            Step::Key(k)
                if !k.is_empty()
                    && !k.starts_with(|c: char| c.is_ascii_digit())
                    && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                out.push('.');
                out.push_str(k);
            }
            Step::Key(k) => out.push_str(&format!("[{}]", Value::from(k.as_str()))),
        }
    }
    out
}

impl Schema {
    /// Checks `root` as a schema.
    ///
    /// # Errors
    ///
    /// A keyword this validator does not know, a value of the wrong shape
    /// for its keyword, another dialect, a `$ref` that is not to
    /// `#/$defs/...` or names nothing, an unknown `format`, or a `pattern`
    /// that does not compile or whose meaning differs between ECMA-262 and
    /// the `regex` crate; the message names the schema's JSON path.
    pub fn new(root: Value) -> Result<Self, String> {
        if let Some(dialect) = root.get("$schema")
            && dialect != DRAFT
        {
            return Err(format!("$schema: {dialect} is not {DRAFT}"));
        }
        let mut patterns = HashMap::new();
        check_schema(&root, &root, &mut vec![], &mut patterns)?;
        Ok(Self { root, patterns })
    }

    /// The committed schema `spec/{file}`.
    ///
    /// # Panics
    ///
    /// When the file cannot be read, is not JSON or is refused by
    /// [`Schema::new`].
    pub fn spec(file: &str) -> Self {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("spec")
            .join(file);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let root = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
        Self::new(root).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Every place where `instance` breaks the schema, in document order;
    /// empty when it follows it.
    pub fn errors(&self, instance: &Value) -> Vec<Invalid> {
        let mut out = Vec::new();
        self.check(&self.root, instance, &mut vec![], 0, &mut out);
        out
    }

    /// Whether `instance` follows the schema.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.errors(instance).is_empty()
    }

    fn check(
        &self,
        schema: &Value,
        v: &Value,
        path: &mut Vec<Step>,
        refs: usize,
        out: &mut Vec<Invalid>,
    ) {
        let s = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return fail(out, path, "nothing is allowed here".to_owned()),
            Value::Object(s) => s,
            _ => unreachable!("checked by Schema::new"),
        };
        if let Some(Value::String(r)) = s.get("$ref") {
            if refs >= MAX_REF_CHAIN {
                fail(out, path, format!("$ref {r}: a loop of references"));
            } else {
                let target = self.root.pointer(&r[1..]).expect("checked by Schema::new");
                self.check(target, v, path, refs + 1, out);
            }
        }
        if let Some(t) = s.get("type") {
            let names: Vec<&str> = match t {
                Value::String(n) => vec![n],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => unreachable!("checked by Schema::new"),
            };
            if !names.iter().any(|n| has_type(v, n)) {
                fail(
                    out,
                    path,
                    format!("{} is not of type {}", brief(v), names.join(" or ")),
                );
            }
        }
        if let Some(c) = s.get("const")
            && !json_eq(c, v)
        {
            fail(out, path, format!("{} is not {c}", brief(v)));
        }
        if let Some(Value::Array(options)) = s.get("enum")
            && !options.iter().any(|o| json_eq(o, v))
        {
            fail(
                out,
                path,
                format!(
                    "{} is not one of {}",
                    brief(v),
                    Value::from(options.clone())
                ),
            );
        }
        if let Value::Number(n) = v {
            if let Some(Value::Number(min)) = s.get("minimum")
                && cmp_num(n, min) == Ordering::Less
            {
                fail(out, path, format!("{n} is less than the minimum {min}"));
            }
            if let Some(Value::Number(max)) = s.get("maximum")
                && cmp_num(n, max) == Ordering::Greater
            {
                fail(out, path, format!("{n} is more than the maximum {max}"));
            }
            if let Some(Value::String(f)) = s.get("format")
                && !in_format(n, f)
            {
                fail(out, path, format!("{n} is not of format {f}"));
            }
        }
        if let (Value::String(text), Some(Value::String(p))) = (v, s.get("pattern"))
            && !self.patterns[p].is_match(text)
        {
            fail(
                out,
                path,
                format!("{} does not match the pattern {p}", brief(v)),
            );
        }
        if let Value::Array(items) = v {
            if let Some(min) = s.get("minItems").and_then(Value::as_u64)
                && (items.len() as u64) < min
            {
                fail(
                    out,
                    path,
                    format!("{} items, fewer than minItems {min}", items.len()),
                );
            }
            if let Some(max) = s.get("maxItems").and_then(Value::as_u64)
                && (items.len() as u64) > max
            {
                fail(
                    out,
                    path,
                    format!("{} items, more than maxItems {max}", items.len()),
                );
            }
            if s.get("uniqueItems") == Some(&Value::Bool(true)) {
                for (j, b) in items.iter().enumerate() {
                    if let Some(i) = items[..j].iter().position(|a| json_eq(a, b)) {
                        fail(
                            out,
                            path,
                            format!("items {i} and {j} are equal, but uniqueItems"),
                        );
                    }
                }
            }
            if let Some(item) = s.get("items") {
                for (i, x) in items.iter().enumerate() {
                    path.push(Step::Index(i));
                    self.check(item, x, path, 0, out);
                    path.pop();
                }
            }
        }
        if let Value::Object(map) = v {
            self.check_object(s, map, path, out);
        }
        if let Some(Value::Array(all)) = s.get("allOf") {
            for sub in all {
                self.check(sub, v, path, refs + 1, out);
            }
        }
        for (keyword, exactly_one) in [("anyOf", false), ("oneOf", true)] {
            let Some(Value::Array(options)) = s.get(keyword) else {
                continue;
            };
            let results: Vec<Vec<Invalid>> = options
                .iter()
                .map(|sub| {
                    let mut errors = Vec::new();
                    self.check(sub, v, path, refs + 1, &mut errors);
                    errors
                })
                .collect();
            let passing: Vec<usize> = (0..options.len())
                .filter(|&k| results[k].is_empty())
                .collect();
            if passing.is_empty() {
                let why: Vec<String> = results
                    .iter()
                    .enumerate()
                    .map(|(k, e)| format!("[{k}] {}", e[0]))
                    .collect();
                out.push(Invalid {
                    path: render(path),
                    message: format!(
                        "matches none of the {} choices of {keyword}: {}",
                        options.len(),
                        why.join("; ")
                    ),
                });
            } else if exactly_one && passing.len() > 1 {
                out.push(Invalid {
                    path: render(path),
                    message: format!("matches choices {passing:?} of oneOf, not exactly one"),
                });
            }
        }
    }

    fn check_object(
        &self,
        s: &Map<String, Value>,
        map: &Map<String, Value>,
        path: &mut Vec<Step>,
        out: &mut Vec<Invalid>,
    ) {
        if let Some(Value::Array(required)) = s.get("required") {
            for key in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(key) {
                    out.push(Invalid {
                        path: render(path),
                        message: format!("the required property {key:?} is missing"),
                    });
                }
            }
        }
        let properties = s.get("properties").and_then(Value::as_object);
        let patterns = s.get("patternProperties").and_then(Value::as_object);
        for (key, x) in map {
            if let Some(names) = s.get("propertyNames") {
                let mut errors = Vec::new();
                self.check(names, &Value::from(key.as_str()), path, 0, &mut errors);
                for e in errors {
                    out.push(Invalid {
                        path: e.path,
                        message: format!("property name {key:?}: {}", e.message),
                    });
                }
            }
            path.push(Step::Key(key.clone()));
            let mut known = false;
            if let Some(sub) = properties.and_then(|p| p.get(key)) {
                known = true;
                self.check(sub, x, path, 0, out);
            }
            for (pattern, sub) in patterns.into_iter().flatten() {
                if self.patterns[pattern].is_match(key) {
                    known = true;
                    self.check(sub, x, path, 0, out);
                }
            }
            if !known && let Some(extra) = s.get("additionalProperties") {
                if extra == &Value::Bool(false) {
                    path.pop();
                    out.push(Invalid {
                        path: render(path),
                        message: format!("the property {key:?} is not allowed"),
                    });
                    continue;
                }
                self.check(extra, x, path, 0, out);
            }
            path.pop();
        }
    }
}

fn fail(out: &mut Vec<Invalid>, path: &[Step], message: String) {
    out.push(Invalid {
        path: render(path),
        message,
    });
}

/// A short rendering of a value for messages.
fn brief(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 60 {
        return text;
    }
    let head: String = text.chars().take(57).collect();
    format!("{head}...")
}

fn has_type(v: &Value, name: &str) -> bool {
    match name {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.as_number().is_some_and(is_integer),
        _ => false,
    }
}

/// A number with no fraction: `1.0` is an integer in JSON Schema.
fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// The number as an exact integer, when it is one that fits.
fn as_i128(n: &Number) -> Option<i128> {
    if let Some(i) = n.as_i64() {
        return Some(i.into());
    }
    if let Some(u) = n.as_u64() {
        return Some(u.into());
    }
    let f = n.as_f64()?;
    // Exact below 2^63 in magnitude; larger floats are compared as floats.
    (f.fract() == 0.0 && f.abs() < 9.2e18).then_some(f as i128)
}

fn cmp_num(a: &Number, b: &Number) -> Ordering {
    match (as_i128(a), as_i128(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => {
            let (x, y) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
    }
}

/// The formats schemars writes for Rust's number types, with their ranges.
fn format_range(format: &str) -> Option<Option<(i128, i128)>> {
    let range = |lo: i128, hi: i128| Some(Some((lo, hi)));
    match format {
        "uint8" => range(0, u8::MAX.into()),
        "uint16" => range(0, u16::MAX.into()),
        "uint32" => range(0, u32::MAX.into()),
        "uint64" | "uint" => range(0, u64::MAX.into()),
        "int8" => range(i8::MIN.into(), i8::MAX.into()),
        "int16" => range(i16::MIN.into(), i16::MAX.into()),
        "int32" => range(i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => range(i64::MIN.into(), i64::MAX.into()),
        // Any JSON number is a double; `float` is not used by the schemas.
        "double" => Some(None),
        _ => None,
    }
}

fn in_format(n: &Number, format: &str) -> bool {
    match format_range(format).expect("checked by Schema::new") {
        None => true,
        Some((lo, hi)) => as_i128(n).is_some_and(|i| lo <= i && i <= hi),
    }
}

/// Equality as JSON Schema has it: numbers by value (`1` is `1.0`).
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || (cmp_num(x, y) == Ordering::Equal && x.as_f64() == y.as_f64())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, a)| y.get(k).is_some_and(|b| json_eq(a, b)))
        }
        _ => a == b,
    }
}

/// Checks one (sub)schema at `at` (a JSON pointer into the schema) and
/// everything below it; compiles its patterns.
fn check_schema(
    root: &Value,
    schema: &Value,
    at: &mut Vec<String>,
    patterns: &mut HashMap<String, Regex>,
) -> Result<(), String> {
    let here = |at: &[String], keyword: &str| {
        format!("/{}", [at, &[keyword.to_owned()]].concat().join("/"))
    };
    let s = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(s) => s,
        _ => {
            return Err(format!(
                "/{}: a schema is an object or a boolean",
                at.join("/")
            ));
        }
    };
    for (keyword, v) in s {
        let wrong = |what: &str| Err(format!("{}: {what}", here(at, keyword)));
        match keyword.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "type" => {
                let names: Vec<&Value> = match v {
                    Value::Array(a) if !a.is_empty() => a.iter().collect(),
                    Value::Array(_) => return wrong("an empty list of types"),
                    one => vec![one],
                };
                for n in names {
                    let known = [
                        "null", "boolean", "object", "array", "string", "number", "integer",
                    ];
                    if !n.as_str().is_some_and(|n| known.contains(&n)) {
                        return wrong(&format!("{n} is not a type"));
                    }
                }
            }
            "$ref" => {
                let Some(r) = v.as_str() else {
                    return wrong("not a string");
                };
                let Some(name) = r.strip_prefix("#/$defs/") else {
                    return wrong(&format!("{r}: only references to #/$defs/... are known"));
                };
                if name.contains('/') || root.pointer(&r[1..]).is_none() {
                    return wrong(&format!("{r} names no definition"));
                }
            }
            "$defs" | "properties" | "patternProperties" => {
                let Some(map) = v.as_object() else {
                    return wrong("not an object");
                };
                for (name, x) in map {
                    if keyword == "patternProperties" {
                        compile(name, patterns)
                            .map_err(|e| format!("{}: {e}", here(at, keyword)))?;
                    }
                    descend(root, x, at, &[keyword, name], patterns)?;
                }
            }
            "additionalProperties" | "propertyNames" | "items" => {
                if v.is_array() {
                    return wrong("a list here is another draft's tuple form");
                }
                descend(root, v, at, &[keyword], patterns)?;
            }
            "anyOf" | "oneOf" | "allOf" => {
                let Some(list) = v.as_array().filter(|l| !l.is_empty()) else {
                    return wrong("not a non-empty list");
                };
                for (k, x) in list.iter().enumerate() {
                    descend(root, x, at, &[keyword, &k.to_string()], patterns)?;
                }
            }
            "required" => {
                if !v.as_array().is_some_and(|l| l.iter().all(Value::is_string)) {
                    return wrong("not a list of names");
                }
            }
            "enum" => {
                if !v.is_array() {
                    return wrong("not a list");
                }
            }
            "const" => {}
            "minItems" | "maxItems" => {
                if v.as_u64().is_none() {
                    return wrong("not a count");
                }
            }
            "uniqueItems" => {
                if !v.is_boolean() {
                    return wrong("not a boolean");
                }
            }
            "minimum" | "maximum" => {
                if !v.is_number() {
                    return wrong("not a number");
                }
            }
            "pattern" => {
                let Some(p) = v.as_str() else {
                    return wrong("not a string");
                };
                compile(p, patterns).map_err(|e| format!("{}: {e}", here(at, keyword)))?;
            }
            "format" => {
                if v.as_str().is_none_or(|f| format_range(f).is_none()) {
                    return wrong(&format!("{v} is not a format this validator knows"));
                }
            }
            _ => return wrong("a keyword this validator does not know"),
        }
    }
    Ok(())
}

/// [`check_schema`] on the subschema `v` at `at` and then `steps`.
fn descend(
    root: &Value,
    v: &Value,
    at: &mut Vec<String>,
    steps: &[&str],
    patterns: &mut HashMap<String, Regex>,
) -> Result<(), String> {
    let n = at.len();
    at.extend(steps.iter().map(|s| (*s).to_owned()));
    let result = check_schema(root, v, at, patterns);
    at.truncate(n);
    result
}

/// Compiles an ECMA-262 pattern with the `regex` crate, refusing the
/// escapes whose meaning differs (`\d`, `\w`, `\b` are ASCII in ECMA-262,
/// Unicode in `regex`).
fn compile(pattern: &str, patterns: &mut HashMap<String, Regex>) -> Result<(), String> {
    let mut escaped = false;
    for c in pattern.chars() {
        if escaped && matches!(c, 'd' | 'D' | 'w' | 'W' | 'b' | 'B') {
            return Err(format!("{pattern}: \\{c} means another thing in ECMA-262"));
        }
        escaped = !escaped && c == '\\';
    }
    let re = Regex::new(pattern).map_err(|e| format!("{pattern}: {e}"))?;
    patterns.insert(pattern.to_owned(), re);
    Ok(())
}

/// `spec/report.schema.json`, checked once.
fn report_schema() -> &'static Schema {
    static S: OnceLock<Schema> = OnceLock::new();
    S.get_or_init(|| Schema::spec("report.schema.json"))
}

/// `stdout` parsed as a JSON report, which must follow the committed
/// schema.
///
/// # Panics
///
/// When it is not JSON or breaks the schema, naming each place.
pub fn valid_report(stdout: &[u8]) -> Value {
    let report: Value = serde_json::from_slice(stdout)
        .unwrap_or_else(|e| panic!("not JSON: {e}\n{}", String::from_utf8_lossy(stdout)));
    let errors: Vec<String> = report_schema()
        .errors(&report)
        .iter()
        .map(Invalid::to_string)
        .collect();
    assert!(
        errors.is_empty(),
        "the report breaks spec/report.schema.json:\n{}",
        errors.join("\n")
    );
    report
}
