//! `kpe-check merge` and the report schema (issue 25): merge reads a shard
//! into the report types spec/report.schema.json is generated from, with
//! unknown fields refused, so it is at least as strict as the schema. This
//! test holds it to that: every field of a real shard is replaced by values
//! of every JSON type (and removed, and joined by an unknown field), and
//! each shard the schema refuses must be refused by merge, naming the file;
//! merge must never panic, and whatever it does merge must be valid against
//! the schema itself.

#[path = "common/schema.rs"]
mod schema;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::process::{Command, Stdio};

use kpe::reporter::{CheckError, JsonSink, merge_reports, parse_report_bytes};
use serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Three shards of a small live run of an engine that skips the origin
/// pit (so the shards hold divergences, groups and explanations; a shard
/// of such a run once probed, and its probe units made merge fail).
fn shards() -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::copy(
        root().join("conformance/sowing.yaml"),
        suite.join("sowing.yaml"),
    )
    .unwrap();
    let manifest = dir.path().join("engine.json");
    // The claim is the all-off profile and the engine skips the origin,
    // whatever the default is.
    let skip = kpe::Profile::with(&[kpe::Switch::SkipOrigin]).to_string();
    let m = json!({
        "format": "kpe-engine", "version": 1,
        "profile": kpe::Profile::ALL_OFF.to_string(),
        "command": [env!("CARGO_BIN_EXE_kpe"), "engine", "--rules", skip],
        "timeouts": {"start_ms": 10000, "request_ms": 10000},
        "random": {"games": 3, "max_plies": 40, "seed": 11},
        "perft": {"max_depth": 1},
    });
    std::fs::write(&manifest, m.to_string()).unwrap();
    (1..=3)
        .map(|k| {
            let out = Command::new(env!("CARGO_BIN_EXE_kpe-check"))
                .arg(&manifest)
                .args(["--format", "json", "--suite", suite.to_str().unwrap()])
                .args(["--shard", &format!("{k}/3")])
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(
                out.status.code() == Some(1),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).unwrap()
        })
        .collect()
}

/// Every place in `value`, as a JSON pointer.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                pointers(
                    v,
                    format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointers(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// The shards with shard 2 edited, merged in-process: `Ok(merged JSON)`,
/// or the error, or `None` on a panic.
fn merge(shards: &[Value], edited: &Value) -> Option<Result<Value, CheckError>> {
    let bytes: Vec<(String, Vec<u8>)> = shards
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let s = if i == 1 { edited } else { s };
            (format!("s-{}.json", i + 1), serde_json::to_vec(s).unwrap())
        })
        .collect();
    catch_unwind(AssertUnwindSafe(|| {
        let mut reports = Vec::new();
        for (file, b) in &bytes {
            reports.push((file.clone(), parse_report_bytes(file, b)?));
        }
        let mut out = Vec::new();
        {
            let mut sink = JsonSink::new(&mut out);
            merge_reports(&reports, &mut sink)?;
        }
        Ok(serde_json::from_slice(&out).unwrap())
    }))
    .ok()
}

#[test]
fn merge_refuses_every_shard_the_report_schema_refuses() {
    let validator = schema::Schema::spec("report.schema.json");
    let shards = shards();
    for s in &shards {
        assert!(validator.is_valid(s), "a shard as written is valid");
    }
    let whole = merge(&shards, &shards[1]).unwrap().unwrap();
    assert!(validator.is_valid(&whole), "the merged report is valid");
    assert_eq!(whole["verdict"], "diverges");
    let reading = whole["summary"]["reading"]["conforms_under"].to_string();
    let skip = kpe::Profile::with(&[kpe::Switch::SkipOrigin]).to_string();
    assert!(reading.contains(&skip), "{reading}");

    // Every field outside the units, and those of the first unit of each
    // kind and verdict (the other units are of the same types).
    let mut kinds = std::collections::BTreeSet::new();
    let mut places = Vec::new();
    for (k, unit) in shards[1]["units"].as_array().unwrap().iter().enumerate() {
        if kinds.insert((unit["kind"].to_string(), unit["verdict"].to_string())) {
            pointers(unit, format!("/units/{k}"), &mut places);
        }
    }
    let mut others = Vec::new();
    pointers(&shards[1], String::new(), &mut others);
    places.extend(others.into_iter().filter(|p| !p.starts_with("/units/")));
    let replacements = [
        Value::Null,
        json!(-1),
        json!(1.5),
        json!(18446744073709551615u64),
        json!(""),
        json!("X-99"),
        json!([1]),
        json!({}),
    ];
    let (mut refused_by_schema, mut merged) = (0, 0);
    let mut wrong = Vec::new();
    let mut check = |edited: Value, what: &str| {
        let valid = validator.is_valid(&edited);
        match merge(&shards, &edited) {
            None => panic!("merge panicked on {what}"),
            Some(Err(e)) => {
                let message = e.to_string();
                assert!(
                    message.contains("s-"),
                    "{what}: the error names no file: {message}"
                );
            }
            Some(Ok(report)) => {
                if !valid {
                    wrong.push(format!(
                        "{what}: the schema refuses the shard, merge took it"
                    ));
                } else if !validator.is_valid(&report) {
                    wrong.push(format!("{what}: merged into an invalid report"));
                }
                merged += 1;
            }
        }
        if !valid {
            refused_by_schema += 1;
        }
    };
    for place in places.iter().filter(|p| !p.is_empty()) {
        for new in &replacements {
            let mut edited = shards[1].clone();
            *edited.pointer_mut(place).unwrap() = new.clone();
            check(edited, &format!("{place} = {new}"));
        }
        let (parent, key) = place.rsplit_once('/').unwrap();
        let mut edited = shards[1].clone();
        if let Some(map) = edited.pointer_mut(parent).and_then(Value::as_object_mut) {
            map.remove(key);
            check(edited, &format!("{place} removed"));
        }
    }
    for place in &places {
        let mut edited = shards[1].clone();
        if let Some(map) = edited.pointer_mut(place).and_then(Value::as_object_mut) {
            map.insert("unknown_field".to_owned(), json!(1));
            check(edited, &format!("{place}/unknown_field added"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The edits reached the schema's constraints and merge's own checks.
    assert!(places.len() > 100, "{} places", places.len());
    assert!(
        refused_by_schema > 1000,
        "{refused_by_schema} refused by the schema"
    );
    assert!(merged > 0, "some edits (of free text) still merge");
}
