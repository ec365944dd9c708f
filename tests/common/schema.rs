//! The check of instances against the committed `spec/*.schema.json`
//! (JSON Schema draft 2020-12), and of kpe-check's JSON reports against
//! `spec/report.schema.json`. Included with
//! `#[path = "common/schema.rs"] mod schema;`.
//!
//! The validation itself is the `jsonschema` crate's (issue 47: a
//! maintained validator as the oracle, in place of the one written here
//! for issue 26). Around it, two things the crate does not do, so that a
//! rule of the committed schemas can never pass by being ignored:
//!
//! - a schema is first checked to use only the keywords, formats and
//!   references listed here ([`Schema::new`]); the crate, as the standard
//!   says, ignores a keyword it does not know (a misspelt `requried`
//!   would check nothing);
//! - the integer formats schemars writes (`uint8`, `uint32`, `int64`...),
//!   which the standard treats as annotations, are checked as ranges, as
//!   the serde types the schemas come from do: each is given to the crate
//!   as `minimum`, `maximum` and `multipleOf: 1` beside the format.

// Each test binary that includes this file uses part of it.
#![allow(dead_code)]

use std::fmt;
use std::sync::OnceLock;

use jsonschema::paths::LocationSegment;
use serde_json::{Value, json};

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

/// A schema checked to use only what is listed here, compiled by the
/// `jsonschema` crate.
#[derive(Debug)]
pub struct Schema {
    validator: jsonschema::Validator,
}

/// One place where an instance breaks its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// The instance's JSON path: `$` for the whole value, then
    /// `.field` and `[index]`, as `$.units[0].verdict`.
    pub path: String,
    /// What is wrong there (the crate's message).
    pub message: String,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.path, self.message)
    }
}

/// The JSON path `$.a[0]["odd key"]` of an instance location.
fn render(location: &jsonschema::paths::Location) -> String {
    let mut out = String::from("$");
    for segment in location.iter() {
        match segment {
            LocationSegment::Index(i) => out.push_str(&format!("[{i}]")),
            LocationSegment::Property(k)
                if !k.is_empty()
                    && !k.starts_with(|c: char| c.is_ascii_digit())
                    && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                out.push('.');
                out.push_str(&k);
            }
            LocationSegment::Property(k) => out.push_str(&format!("[{}]", Value::from(&*k))),
        }
    }
    out
}

impl Schema {
    /// Checks `root` as a schema and compiles it.
    ///
    /// # Errors
    ///
    /// A keyword not listed here, a value of the wrong shape for its
    /// keyword, another dialect, a `$ref` that is not to `#/$defs/...` or
    /// names nothing, an unknown `format`, a `pattern` whose meaning
    /// differs between ECMA-262 and Rust's regexes, or anything the crate
    /// refuses (a pattern that does not compile, a loop of references);
    /// the message names the schema's JSON pointer.
    pub fn new(root: Value) -> Result<Self, String> {
        if let Some(dialect) = root.get("$schema")
            && dialect != DRAFT
        {
            return Err(format!("$schema: {dialect} is not {DRAFT}"));
        }
        check_schema(&root, &root, &mut vec![])?;
        let mut lowered = root;
        with_integer_ranges(&mut lowered);
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&lowered)
            .map_err(|e| format!("{}: {e}", e.schema_path()))?;
        Ok(Self { validator })
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

    /// Every place where `instance` breaks the schema; empty when it
    /// follows it.
    pub fn errors(&self, instance: &Value) -> Vec<Invalid> {
        self.validator
            .iter_errors(instance)
            .map(|e| Invalid {
                path: render(e.instance_path()),
                message: e.to_string(),
            })
            .collect()
    }

    /// Whether `instance` follows the schema.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }
}

/// The formats schemars writes for Rust's number types, with their ranges
/// (`None` for `double`: any JSON number is one).
fn format_range(format: &str) -> Option<Option<(Value, Value)>> {
    let range = |lo: Value, hi: Value| Some(Some((lo, hi)));
    match format {
        "uint8" => range(json!(0), json!(u8::MAX)),
        "uint16" => range(json!(0), json!(u16::MAX)),
        "uint32" => range(json!(0), json!(u32::MAX)),
        "uint64" | "uint" => range(json!(0), json!(u64::MAX)),
        "int8" => range(json!(i8::MIN), json!(i8::MAX)),
        "int16" => range(json!(i16::MIN), json!(i16::MAX)),
        "int32" => range(json!(i32::MIN), json!(i32::MAX)),
        "int64" | "int" => range(json!(i64::MIN), json!(i64::MAX)),
        // `float` is not used by the schemas.
        "double" => Some(None),
        _ => None,
    }
}

/// Gives each (sub)schema with an integer `format` its range as
/// assertions, in an `allOf` so that a `minimum` of its own still holds.
/// Only numbers are concerned: these keywords take any other type.
fn with_integer_ranges(schema: &mut Value) {
    let Value::Object(s) = schema else { return };
    for (keyword, v) in s.iter_mut() {
        match keyword.as_str() {
            "$defs" | "properties" | "patternProperties" => {
                for x in v.as_object_mut().into_iter().flat_map(|m| m.values_mut()) {
                    with_integer_ranges(x);
                }
            }
            "additionalProperties" | "propertyNames" | "items" => with_integer_ranges(v),
            "anyOf" | "oneOf" | "allOf" => {
                for x in v.as_array_mut().into_iter().flatten() {
                    with_integer_ranges(x);
                }
            }
            _ => {}
        }
    }
    let range = s
        .get("format")
        .and_then(Value::as_str)
        .and_then(format_range)
        .flatten();
    if let Some((lo, hi)) = range {
        let assertion = json!({"minimum": lo, "maximum": hi, "multipleOf": 1});
        match s.get_mut("allOf").and_then(Value::as_array_mut) {
            Some(all) => all.push(assertion),
            None => {
                s.insert("allOf".to_owned(), json!([assertion]));
            }
        }
    }
}

/// Checks one (sub)schema at `at` (a JSON pointer into the schema) and
/// everything below it.
fn check_schema(root: &Value, schema: &Value, at: &mut Vec<String>) -> Result<(), String> {
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
                // The crate takes a loop of bare references as allowing
                // anything; here it is a mistake in the schema.
                let mut seen = vec![r];
                let mut next = root.pointer(&r[1..]).and_then(bare_ref);
                while let Some(t) = next {
                    if seen.contains(&t) {
                        return wrong(&format!(
                            "{r}: a loop of references ({})",
                            seen.join(" -> ")
                        ));
                    }
                    seen.push(t);
                    next = root.pointer(t.get(1..).unwrap_or("")).and_then(bare_ref);
                }
            }
            "$defs" | "properties" | "patternProperties" => {
                let Some(map) = v.as_object() else {
                    return wrong("not an object");
                };
                for (name, x) in map {
                    if keyword == "patternProperties" {
                        ecma_safe(name).map_err(|e| format!("{}: {e}", here(at, keyword)))?;
                    }
                    descend(root, x, at, &[keyword, name])?;
                }
            }
            "additionalProperties" | "propertyNames" | "items" => {
                if v.is_array() {
                    return wrong("a list here is another draft's tuple form");
                }
                descend(root, v, at, &[keyword])?;
            }
            "anyOf" | "oneOf" | "allOf" => {
                let Some(list) = v.as_array().filter(|l| !l.is_empty()) else {
                    return wrong("not a non-empty list");
                };
                for (k, x) in list.iter().enumerate() {
                    descend(root, x, at, &[keyword, &k.to_string()])?;
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
                ecma_safe(p).map_err(|e| format!("{}: {e}", here(at, keyword)))?;
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

/// The target of a schema that is a `$ref` and nothing else (annotations
/// aside).
fn bare_ref(schema: &Value) -> Option<&str> {
    let s = schema.as_object()?;
    let r = s.get("$ref")?.as_str()?;
    s.keys()
        .all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str()))
        .then_some(r)
}

/// [`check_schema`] on the subschema `v` at `at` and then `steps`.
fn descend(root: &Value, v: &Value, at: &mut Vec<String>, steps: &[&str]) -> Result<(), String> {
    let n = at.len();
    at.extend(steps.iter().map(|s| (*s).to_owned()));
    let result = check_schema(root, v, at);
    at.truncate(n);
    result
}

/// Refuses the escapes whose meaning differs between ECMA-262, which the
/// schemas' patterns are written in, and Rust's regexes (`\d`, `\w`, `\b`
/// are ASCII in one, Unicode in the other): a pattern means one thing to
/// every validator. Whether it compiles is the crate's to say.
fn ecma_safe(pattern: &str) -> Result<(), String> {
    let mut escaped = false;
    for c in pattern.chars() {
        if escaped && matches!(c, 'd' | 'D' | 'w' | 'W' | 'b' | 'B') {
            return Err(format!("{pattern}: \\{c} means another thing in ECMA-262"));
        }
        escaped = !escaped && c == '\\';
    }
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
