//! Every committed JSON Schema names itself: an `$id` that says which
//! format and which version it describes, unique among them (issue 26:
//! tools that cache or bundle schemas key them by `$id`).

use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn every_schema_has_a_unique_versioned_id() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec");
    let mut ids = BTreeSet::new();
    let mut files = 0;
    for entry in std::fs::read_dir(&spec).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".schema.json") {
            continue;
        }
        files += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        // One `$id`, at the top: a nested one would move the base URI of
        // the references inside it.
        assert_eq!(text.matches("\"$id\"").count(), 1, "{name}");
        let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
        let id = schema["$id"]
            .as_str()
            .unwrap_or_else(|| panic!("{name} has no $id"));
        let rest = id
            .strip_prefix("urn:kpe:schema:")
            .unwrap_or_else(|| panic!("{name}: {id} is not urn:kpe:schema:NAME:VERSION"));
        let (format, version) = rest
            .rsplit_once(':')
            .unwrap_or_else(|| panic!("{name}: {id} has no version"));
        assert!(version.parse::<u32>().is_ok(), "{name}: {id}");
        assert!(
            name.starts_with(format.trim_end_matches("-file")),
            "{name}: {id} names another format"
        );
        assert!(ids.insert(id.to_owned()), "{id} is used twice");
    }
    assert!(files >= 8, "only {files} schemas found");
}

#[test]
fn the_ids_follow_the_format_versions() {
    let id = |text: String| -> String {
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["$id"].as_str().unwrap().to_owned()
    };
    assert_eq!(
        id(kpe::reporter::report_schema()),
        format!("urn:kpe:schema:report:{}", kpe::reporter::REPORT_VERSION)
    );
    assert_eq!(
        id(kpe::transcript::transcript_schema()),
        format!("urn:kpe:schema:transcript:{}", kpe::transcript::VERSION)
    );
    assert_eq!(
        id(serde_json::to_string(&kpe::live::manifest_schema()).unwrap()),
        format!("urn:kpe:schema:manifest:{}", kpe::live::MANIFEST_VERSION)
    );
    assert_eq!(
        id(serde_json::to_string(&kpe::protocol::schema()).unwrap()),
        format!(
            "urn:kpe:schema:protocol:{}",
            kpe::protocol::PROTOCOL_VERSION
        )
    );
    assert_eq!(
        id(serde_json::to_string(&kpe::dispute::schema()).unwrap()),
        format!("urn:kpe:schema:dispute:{}", kpe::dispute::VERSION)
    );
}
