//! The committed JSON Schema of kpe-check's reports, for the tests that
//! read `--format json` output: every report they see must follow it.
//! Included with `#[path = "common/schema.rs"] mod schema;`.

use std::sync::OnceLock;

use serde_json::Value;

/// The schema of `spec/report.schema.json`, compiled once.
fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/report.schema.json");
        let text = std::fs::read_to_string(path).expect("the report schema is committed");
        let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
        jsonschema::validator_for(&schema).expect("the report schema compiles")
    })
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
    let errors: Vec<String> = validator()
        .iter_errors(&report)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the report breaks spec/report.schema.json:\n{}",
        errors.join("\n")
    );
    report
}
