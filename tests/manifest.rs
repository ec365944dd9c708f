//! Engine manifests read from hostile files (issue 10): every error names
//! the file, line and column (or JSON path) and what was expected, files
//! that are not regular files are refused without blocking, and the reader
//! refuses every manifest the committed schema refuses.

use std::path::Path;

#[path = "common/schema.rs"]
mod schema;

use kpe::live::Manifest;
use schema::Schema;
use serde_json::{Value, json};

fn parse(text: &str) -> Result<Manifest, String> {
    Manifest::parse(text, Path::new("m.json")).map_err(|e| e.to_string())
}

/// The error for `text`, which must start with `m.json:LINE:COLUMN: at FIELD`.
fn error_at(text: &str, line: usize, field: &str) -> String {
    let err = parse(text).expect_err(text);
    let prefix = format!("m.json:{line}:");
    assert!(err.starts_with(&prefix), "{err}");
    assert!(err.contains(&format!(": at {field}: ")), "{err}");
    err
}

/// Regression (issue 10): the semantic errors (`command: []`, zero
/// timeouts, `version: 2`, now `version: 3`) had no line and column.
#[test]
fn semantic_errors_name_the_line_and_column() {
    let err = error_at(
        "{\"format\": \"kpe-engine\",\n \"version\": 3,\n \"command\": [\"e\"]}",
        2,
        "version",
    );
    assert!(
        err.contains("this kpe-check reads versions 1 to 2"),
        "{err}"
    );
    let err = error_at(
        "{\"format\": \"kpe-engine\", \"version\": 1,\n\n \"command\": []}",
        3,
        "command",
    );
    assert!(
        err.contains("expected the program and its arguments"),
        "{err}"
    );
    let err = error_at(
        "{\"format\": \"kpe-engine\", \"version\": 1, \"command\": [\"e\"],\n \"timeouts\": {\"request_ms\": 0}}",
        2,
        "timeouts.request_ms",
    );
    assert!(err.contains("at least 1 ms"), "{err}");
    let err = error_at(
        "{\"format\": \"kpe-engine\", \"version\": 1, \"command\": [\"e\"],\n \"perft\": {\"max_nodes\": 18446744073709551615}}",
        2,
        "perft.max_nodes",
    );
    assert!(err.contains("at most 1000000000"), "{err}");
    let err = error_at(
        "{\"format\": \"kpe-engine\", \"version\": 1, \"command\": [\"e\"],\n \"perft\": {\"max_depth\": 100000}}",
        2,
        "perft.max_depth",
    );
    assert!(err.contains("at most 64"), "{err}");
}

/// Regression (issue 10): the reader took what the schema refuses: a
/// profile `""` or with a space, environment names `A=B` and `""`.
#[test]
fn profiles_and_environment_names_are_read_as_strictly_as_the_schema() {
    for profile in ["", " skip-origin", "skip-origin, strict-lock", "default,"] {
        let text =
            json!({"format": "kpe-engine", "version": 1, "command": ["e"], "profile": profile})
                .to_string();
        let err = parse(&text).expect_err(profile);
        assert!(
            err.contains("at profile: ") && err.contains("without spaces"),
            "{err}"
        );
    }
    let ok = json!({"format": "kpe-engine", "version": 1, "command": ["e"], "profile": "strict-lock,skip-origin"});
    // Read against the default, as every profile in a file is.
    let both = kpe::Profile::DEFAULT
        .set(kpe::Switch::SkipOrigin, true)
        .set(kpe::Switch::StrictLock, true);
    assert_eq!(parse(&ok.to_string()).unwrap().profile, both);
    for name in ["A=B", "", "A\u{0}"] {
        let text =
            json!({"format": "kpe-engine", "version": 1, "command": ["e"], "env": {name: "1"}})
                .to_string();
        let err = parse(&text).expect_err(name);
        assert!(
            err.contains("at env") && err.contains("not an environment variable name"),
            "{err}"
        );
    }
}

/// Regression (issue 10): a manifest that is not UTF-8 got no line and
/// column, and did not name the byte.
#[test]
fn a_manifest_that_is_not_utf8_names_the_byte_and_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.json");
    std::fs::write(
        &path,
        b"{\"format\": \"kpe-engine\",\n  \"version\": 1, \"command\": [\"\xff\"]}",
    )
    .unwrap();
    let err = Manifest::load(&path).unwrap_err().to_string();
    assert!(err.contains("m.json:2:30:"), "{err}");
    assert!(err.contains("byte 0xff is not UTF-8"), "{err}");
}

/// Regression (issue 10, failures 9 and 10 for manifests): a FIFO blocked
/// the reader, a device was read without end. Only regular files are read.
#[test]
#[cfg(unix)]
fn a_manifest_that_is_not_a_regular_file_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let err = Manifest::load(&fifo).unwrap_err().to_string();
        assert!(
            err.contains("a FIFO (named pipe), not a regular file"),
            "{err}"
        );
    } else {
        eprintln!("note: mkfifo is missing; the FIFO case is not checked");
    }
    let zero = dir.path().join("zero.json");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let err = Manifest::load(&zero).unwrap_err().to_string();
    assert!(
        err.contains("a character device, not a regular file"),
        "{err}"
    );
    let err = Manifest::load(dir.path()).unwrap_err().to_string();
    assert!(err.contains("a directory"), "{err}");
}

// ---------------------------------------------------------------------------
// The schema and the reader agree
// ---------------------------------------------------------------------------

fn schema() -> Schema {
    Schema::spec("manifest.schema.json")
}

/// Values to put in place of a field.
fn replacements() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(1),
        json!(2),
        json!(-1),
        json!(1.5),
        json!(64),
        json!(65),
        json!(1_000_000_000_u64),
        json!(1_000_000_001_u64),
        json!(u64::MAX),
        json!(""),
        json!(" "),
        json!("default"),
        json!("kpe-engine"),
        json!("kpe-transcript"),
        json!("skip-origin"),
        json!(" skip-origin"),
        json!("skip-origin,end-on-repetition"),
        json!("x"),
        json!([]),
        json!([""]),
        json!(["e"]),
        json!(["e", ""]),
        json!(["e\u{0}"]),
        json!([1]),
        json!({}),
        json!({"A": "1"}),
        json!({"A=B": "1"}),
        json!({"": "1"}),
        json!({"A": 1}),
        json!({"A": "\u{0}"}),
        json!({"games": 0}),
        json!({"start_ms": 0}),
        json!({"request_ms": 1}),
        json!({"max_depth": 65}),
        json!({"max_nodes": u64::MAX}),
        json!({"unknown": 1}),
    ]
}

/// Every manifest made from a full one by replacing one field (at the top
/// or one level down), removing it, or adding an unknown one.
fn mutations() -> Vec<Value> {
    let base = json!({
        "format": "kpe-engine", "version": 1, "command": ["e", "x"], "cwd": ".",
        "env": {"A": "1"}, "timeouts": {"start_ms": 10, "request_ms": 10},
        "profile": "default", "random": {"games": 1, "max_plies": 10, "seed": 3},
        "perft": {"max_depth": 2, "max_nodes": 100},
    });
    let mut out = vec![base.clone()];
    let keys: Vec<String> = base.as_object().unwrap().keys().cloned().collect();
    for key in &keys {
        let mut removed = base.clone();
        removed.as_object_mut().unwrap().remove(key);
        out.push(removed);
        for value in replacements() {
            let mut changed = base.clone();
            changed[key] = value.clone();
            out.push(changed);
            if let Some(inner) = base[key].as_object() {
                for inner_key in inner.keys() {
                    let mut changed = base.clone();
                    changed[key][inner_key] = value.clone();
                    out.push(changed);
                }
            }
        }
    }
    let mut extra = base;
    extra["engine"] = json!({"name": "e"});
    out.push(extra);
    out
}

#[test]
fn the_reader_refuses_every_manifest_the_schema_refuses() {
    let validator = schema();
    let mut checked = 0;
    let mut refused = 0;
    for manifest in mutations() {
        let text = manifest.to_string();
        let schema_ok = validator.is_valid(&manifest);
        let reader = parse(&text);
        checked += 1;
        if !schema_ok {
            refused += 1;
            assert!(
                reader.is_err(),
                "the schema refuses but the reader takes: {text}"
            );
        } else if let Err(e) = &reader {
            // The one check the schema cannot state: the program (the
            // first word) is not empty.
            assert!(
                manifest["command"][0] == "",
                "the reader refuses what the schema takes: {text}: {e}"
            );
        }
    }
    assert!(checked > 500 && refused > 300, "{checked} {refused}");
}

#[test]
fn the_sample_manifests_are_valid_for_both() {
    let validator = schema();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/engines");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let value: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert!(validator.is_valid(&value), "{}", path.display());
            Manifest::load(&path).unwrap();
            seen += 1;
        }
    }
    assert!(seen >= 3, "{seen}");
}

/// Regression (issue 10): a UTF-8 byte order mark was refused as
/// "expected value".
#[test]
fn a_byte_order_mark_is_named() {
    let err = parse("\u{feff}{\"format\": \"kpe-engine\", \"version\": 1, \"command\": [\"e\"]}")
        .unwrap_err();
    assert!(
        err.starts_with("m.json:1:1: ") && err.contains("byte order mark"),
        "{err}"
    );
}

/// Regression (issue 10): a syntax error where a key is expected said
/// `at ?`.
#[test]
fn a_syntax_error_where_a_key_is_expected_names_the_object() {
    let err = parse(r#"{"format": "kpe-engine", 1}"#).unwrap_err();
    assert!(
        err.starts_with("m.json:1:26: at .: key must be a string"),
        "{err}"
    );
    let err = parse("{\"format\": \"kpe-engine\", \"version\": 1, \"command\": [\"e\"],\n \"timeouts\": {\"start_ms\": 5,}}").unwrap_err();
    assert!(
        err.starts_with("m.json:2:29: at timeouts: trailing comma"),
        "{err}"
    );
    assert!(!err.contains('?'), "{err}");
}
