//! The JSON Schema check of `tests/common/schema.rs` (the `jsonschema`
//! crate behind a gate of known keywords, issue 47): each keyword the
//! committed schemas use takes one instance and refuses another, naming the
//! instance's JSON path; a schema with a keyword not listed is refused; the
//! integer formats are ranges; and every committed `spec/*.schema.json`
//! takes a real instance of its format and refuses a broken one.

#[path = "common/schema.rs"]
mod schema;

use std::path::Path;

use schema::{Invalid, Schema};
use serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `schema` takes `good` and refuses `bad`, with an error at `path`.
fn takes_and_refuses(schema: Value, good: Value, bad: Value, path: &str) {
    let s = Schema::new(schema.clone()).unwrap_or_else(|e| panic!("{schema}: {e}"));
    assert_eq!(s.errors(&good), vec![], "{schema} refuses {good}");
    let errors = s.errors(&bad);
    assert!(!errors.is_empty(), "{schema} takes {bad}");
    assert!(
        errors.iter().any(|e| e.path == path),
        "{schema} on {bad}: no error at {path}: {errors:?}"
    );
}

#[test]
fn type_takes_its_type_only() {
    for (name, good, bad) in [
        ("null", json!(null), json!(0)),
        ("boolean", json!(true), json!("true")),
        ("object", json!({}), json!([])),
        ("array", json!([]), json!({})),
        ("string", json!(""), json!(null)),
        ("number", json!(1.5), json!("1.5")),
        ("integer", json!(-3), json!(1.5)),
    ] {
        takes_and_refuses(json!({"type": name}), good, bad, "$");
    }
    // 1.0 is an integer in JSON Schema.
    takes_and_refuses(json!({"type": "integer"}), json!(1.0), json!(1.25), "$");
    takes_and_refuses(
        json!({"type": ["string", "null"]}),
        json!(null),
        json!(1),
        "$",
    );
}

#[test]
fn ref_follows_the_definitions() {
    let schema = json!({
        "$defs": {"Pit": {"type": "integer"}, "Row": {"type": "array", "items": {"$ref": "#/$defs/Pit"}}},
        "$ref": "#/$defs/Row"
    });
    takes_and_refuses(schema, json!([1, 2]), json!([1, "2"]), "$[1]");
}

#[test]
fn a_loop_of_references_is_an_error_not_a_hang() {
    let schema = json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"});
    let err = Schema::new(schema).expect_err("a loop of references is refused");
    assert!(err.contains("loop"), "{err}");
}

#[test]
fn properties_required_and_additional_properties() {
    let props = json!({"a": {"type": "integer"}});
    takes_and_refuses(
        json!({"properties": props}),
        json!({"a": 1, "b": "x"}),
        json!({"a": "1"}),
        "$.a",
    );
    takes_and_refuses(
        json!({"required": ["a"]}),
        json!({"a": null}),
        json!({"b": 1}),
        "$",
    );
    takes_and_refuses(
        json!({"properties": props, "additionalProperties": false}),
        json!({"a": 1}),
        json!({"a": 1, "b": 2}),
        "$",
    );
    takes_and_refuses(
        json!({"properties": props, "additionalProperties": {"type": "string"}}),
        json!({"a": 1, "b": "x"}),
        json!({"a": 1, "b": 2}),
        "$.b",
    );
}

#[test]
fn pattern_properties_and_property_names() {
    let schema = json!({
        "patternProperties": {"^[SN][1-4]$": {"type": "integer"}},
        "additionalProperties": false
    });
    takes_and_refuses(schema.clone(), json!({"S1": 3}), json!({"S1": "3"}), "$.S1");
    takes_and_refuses(schema, json!({"N4": 0}), json!({"S5": 0}), "$");
    takes_and_refuses(
        json!({"propertyNames": {"pattern": "^[^=\\u0000]+$"}}),
        json!({"KPE_X": 1}),
        json!({"A=B": 1}),
        "$",
    );
}

#[test]
fn items_and_their_counts() {
    takes_and_refuses(
        json!({"items": {"type": "string"}}),
        json!(["a"]),
        json!(["a", 2]),
        "$[1]",
    );
    takes_and_refuses(json!({"minItems": 1}), json!([0]), json!([]), "$");
    takes_and_refuses(json!({"maxItems": 1}), json!([0]), json!([0, 1]), "$");
    takes_and_refuses(
        json!({"uniqueItems": true}),
        json!([1, 2]),
        json!([1, 1.0]),
        "$",
    );
}

#[test]
fn const_and_enum() {
    takes_and_refuses(
        json!({"const": "kpe-engine"}),
        json!("kpe-engine"),
        json!("kpe-engines"),
        "$",
    );
    takes_and_refuses(json!({"const": 2}), json!(2.0), json!(3), "$");
    takes_and_refuses(
        json!({"enum": ["a", 1, null]}),
        json!(null),
        json!("b"),
        "$",
    );
}

#[test]
fn any_of_one_of_and_all_of() {
    let two = json!([{"type": "integer"}, {"minimum": 0}]);
    takes_and_refuses(json!({"anyOf": two}), json!(-1), json!(-1.5), "$");
    // Exactly one: 5 is an integer and not negative, so both choices take it.
    takes_and_refuses(json!({"oneOf": two}), json!(-1), json!(5), "$");
    takes_and_refuses(json!({"oneOf": two}), json!(0.5), json!(-0.5), "$");
    takes_and_refuses(json!({"allOf": two}), json!(5), json!(-1), "$");
}

#[test]
fn minimum_and_maximum_compare_exactly() {
    takes_and_refuses(json!({"minimum": 0}), json!(0), json!(-1), "$");
    takes_and_refuses(json!({"maximum": 12}), json!(12), json!(12.5), "$");
    // Past 2^53, where a double would round both to the same value.
    takes_and_refuses(
        json!({"maximum": 9007199254740992u64}),
        json!(9007199254740992u64),
        json!(9007199254740993u64),
        "$",
    );
}

#[test]
fn pattern_searches_the_string() {
    takes_and_refuses(
        json!({"pattern": "^[A-Z]+-[0-9]+$"}),
        json!("CAP-3"),
        json!("cap-3"),
        "$",
    );
    // Unanchored, as in ECMA-262: a match anywhere counts.
    takes_and_refuses(json!({"pattern": "-"}), json!("a-b"), json!("ab"), "$");
    // Not a string: the pattern does not apply.
    takes_and_refuses(json!({"pattern": "^a$"}), json!(7), json!("b"), "$");
}

#[test]
fn integer_formats_have_their_ranges() {
    for (format, low, high, below, above) in [
        ("uint8", json!(0), json!(255), json!(-1), json!(256)),
        (
            "uint32",
            json!(0),
            json!(4294967295u64),
            json!(-1),
            json!(4294967296u64),
        ),
        (
            "uint64",
            json!(0),
            json!(u64::MAX),
            json!(-1),
            json!(1.9e19),
        ),
        ("uint", json!(0), json!(u64::MAX), json!(-1), json!(1.9e19)),
        ("int8", json!(-128), json!(127), json!(-129), json!(128)),
        (
            "int64",
            json!(i64::MIN),
            json!(i64::MAX),
            json!(-9.3e18),
            json!(u64::MAX),
        ),
    ] {
        let schema = json!({"format": format});
        takes_and_refuses(schema.clone(), low, below, "$");
        takes_and_refuses(schema.clone(), high, above, "$");
        takes_and_refuses(schema, json!("not a number"), json!(0.5), "$");
    }
}

#[test]
#[should_panic(expected = "takes 1.5")]
fn double_takes_every_number() {
    // `double` limits nothing, so the refusal asked for here does not
    // come (and `takes_and_refuses` is seen to fail when it does not).
    takes_and_refuses(json!({"format": "double"}), json!(1), json!(1.5), "$");
}

#[test]
fn annotations_are_taken_and_ignored() {
    takes_and_refuses(
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "urn:x", "title": "t", "description": "d", "default": 3,
            "examples": [1], "$comment": "c", "type": "integer"
        }),
        json!(4),
        json!("4"),
        "$",
    );
}

#[test]
fn a_schema_with_a_keyword_it_does_not_know_is_refused() {
    for (schema, says) in [
        (json!({"minLength": 1}), "/minLength"),
        (json!({"if": {}, "then": {}}), "does not know"),
        (json!({"requried": ["a"]}), "/requried"),
        (json!({"not": {}}), "/not"),
        (json!({"prefixItems": []}), "/prefixItems"),
        (
            json!({"unevaluatedProperties": false}),
            "/unevaluatedProperties",
        ),
        (
            json!({"properties": {"a": {"maxLength": 2}}}),
            "/properties/a/maxLength",
        ),
        (
            json!({"$defs": {"A": {"contains": {}}}}),
            "/$defs/A/contains",
        ),
        (
            json!({"anyOf": [{"dependentRequired": {}}]}),
            "/anyOf/0/dependentRequired",
        ),
        (json!({"format": "email"}), "not a format"),
        (json!({"format": "uint128"}), "not a format"),
        (json!({"$ref": "other.json#/$defs/A"}), "only references"),
        (json!({"$ref": "#/definitions/A"}), "only references"),
        (json!({"$ref": "#/$defs/Missing"}), "names no definition"),
        (
            json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
            "is not",
        ),
        (json!({"items": [{}]}), "another draft"),
        (json!({"pattern": "^\\d+$"}), "ECMA-262"),
        (json!({"pattern": "(unclosed"}), "/pattern"),
        (
            json!({"patternProperties": {"(": {}}}),
            "/patternProperties",
        ),
        (json!({"type": "int"}), "not a type"),
        (json!({"required": "a"}), "/required"),
        (json!({"anyOf": []}), "/anyOf"),
        (json!({"properties": {"a": 3}}), "/properties/a"),
    ] {
        let err = Schema::new(schema.clone()).expect_err(&schema.to_string());
        assert!(err.contains(says), "{schema}: {err}");
    }
}

#[test]
fn errors_name_the_json_path_of_the_instance() {
    let schema = Schema::new(json!({
        "properties": {"games": {"items": {"properties": {
            "after": {"type": "string"}, "odd key": {"type": "string"}}}}}
    }))
    .unwrap();
    let errors = schema.errors(&json!({"games": [{}, {"after": 1, "odd key": 2}]}));
    let shown: Vec<String> = errors.iter().map(Invalid::to_string).collect();
    assert_eq!(
        shown,
        [
            "at $.games[1].after: 1 is not of type \"string\"",
            "at $.games[1][\"odd key\"]: 2 is not of type \"string\"",
        ]
    );
}

/// The JSON of `kpe ARGS`, which must succeed.
fn kpe_json(args: &[&str]) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kpe"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kpe {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn json_file(path: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join(path)).unwrap()).unwrap()
}

fn yaml_file(path: &str) -> Value {
    serde_yaml::from_str(&std::fs::read_to_string(root().join(path)).unwrap()).unwrap()
}

/// A copy of `v` with `new` at the JSON pointer `at` (a new field when
/// `at` names none of its object).
fn with(v: &Value, at: &str, new: Value) -> Value {
    let mut v = v.clone();
    let (parent, key) = at.rsplit_once('/').unwrap();
    match v.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            map.insert(key.to_owned(), new);
        }
        Some(Value::Array(list)) => list[key.parse::<usize>().unwrap()] = new,
        _ => panic!("no {parent}"),
    }
    v
}

/// A copy of `v` without the field at the JSON pointer `at`.
fn without(v: &Value, at: &str) -> Value {
    let mut v = v.clone();
    let (parent, key) = at.rsplit_once('/').unwrap();
    v.pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .unwrap()
        .remove(key)
        .unwrap_or_else(|| panic!("no {at}"));
    v
}

#[test]
fn every_committed_schema_takes_its_format_and_refuses_a_broken_instance() {
    let report = json_file("tests/golden/report-v2/shard-1.json");
    let transcript = json_file("examples/transcripts/conforming.json");
    let manifest = json_file("examples/engines/correct.json");
    let scenarios = yaml_file("conformance/capture.yaml");
    let perft = yaml_file("conformance/perft.yaml");
    let suite = kpe_json(&["suite", "--json"]);
    let dispute = kpe_json(&[
        "dispute",
        "skip-origin",
        "--format",
        "json",
        "--games",
        "4",
        "--perft-depth",
        "3",
        "--max-stones",
        "8",
    ]);
    let request = json!({"type": "quit"});
    // (schema, valid instance, broken instance, where the error is)
    let cases = [
        (
            "report",
            report.clone(),
            with(&report, "/exit_code", json!(-1)),
            "$.exit_code",
        ),
        ("report", report.clone(), without(&report, "/units"), "$"),
        (
            "transcript",
            transcript.clone(),
            with(&transcript, "/games/0/plies", json!("none")),
            "$.games[0].plies",
        ),
        (
            "manifest",
            manifest.clone(),
            without(&manifest, "/command"),
            "$",
        ),
        (
            "manifest",
            manifest.clone(),
            with(&manifest, "/format", json!("kpe-engines")),
            "$.format",
        ),
        (
            "scenario",
            scenarios.clone(),
            with(&scenarios, "/scenarios/0/unknown_field", json!(1)),
            "$.scenarios[0]",
        ),
        (
            "perft",
            perft.clone(),
            with(&perft, "/tables", json!({})),
            "$.tables",
        ),
        (
            "suite",
            suite.clone(),
            with(&suite, "/version", json!("two")),
            "$.version",
        ),
        (
            "dispute",
            dispute.clone(),
            without(&dispute, "/format"),
            "$",
        ),
        ("protocol", request.clone(), json!({"type": "nope"}), "$"),
    ];
    let mut covered = std::collections::BTreeSet::new();
    for (name, good, bad, path) in cases {
        let file = format!("{name}.schema.json");
        let schema = Schema::spec(&file);
        let errors: Vec<String> = schema
            .errors(&good)
            .iter()
            .map(Invalid::to_string)
            .collect();
        assert!(
            errors.is_empty(),
            "{file} refuses a real instance:\n{}",
            errors.join("\n")
        );
        let errors = schema.errors(&bad);
        assert!(
            errors.iter().any(|e| e.path == path),
            "{file}: no error at {path}: {errors:?}"
        );
        covered.insert(file);
    }
    let committed: std::collections::BTreeSet<String> = std::fs::read_dir(root().join("spec"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".schema.json"))
        .collect();
    assert_eq!(covered, committed, "every committed schema has a case");
}
