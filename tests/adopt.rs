//! `kpe adopt` on a temporary copy of the repository's data (spec/ and
//! conformance/, the only places it reads or writes): for every reading it
//! flips exactly that reading in spec/default.yaml, keeps every perft
//! table's profile the same under its new name (the suite's and the
//! example in spec/SCENARIOS.md), lists the RULES.md prose to
//! reword, touches no other file, and adopting again restores every file
//! byte for byte. That the whole test suite then passes with the new default
//! compiled in is what `.ci/adopt-all` checks (it rebuilds, so it is not run
//! here).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use kpe::Profile;
use kpe::Switch;
use kpe::adopt::{AdoptError, adopt};
use kpe::parse_default_file;

/// Every file under `dir`, relative to it, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = fs::read(&path).unwrap();
                out.insert(path.strip_prefix(dir).unwrap().to_owned(), bytes);
            }
        }
    }
    out
}

/// A copy of the repository's spec/ and conformance/ in a temporary directory.
fn copy() -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    for dir in ["spec", "conformance"] {
        for (path, bytes) in files(&root.join(dir)) {
            let to = tmp.path().join(dir).join(path);
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::write(to, bytes).unwrap();
        }
    }
    tmp
}

fn rules_lines(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            l.trim_start()
                .strip_prefix("rules: ")
                .map(|r| (i, r.to_owned()))
        })
        .collect()
}

#[test]
fn adopting_each_reading_flips_it_keeps_the_perft_trees_and_twice_restores_every_byte() {
    let tmp = copy();
    let original = files(tmp.path());
    let perft = String::from_utf8(original[Path::new("conformance/perft.yaml")].clone()).unwrap();
    for switch in Switch::ALL {
        let adoption = adopt(tmp.path(), switch.reading()).unwrap();
        assert_eq!(adoption.switch, switch);
        assert_eq!(adoption.before, Profile::DEFAULT);
        let written = fs::read_to_string(tmp.path().join("spec/default.yaml")).unwrap();
        let after = parse_default_file(&written).unwrap();
        assert_eq!(
            after,
            Profile::DEFAULT.set(switch, !Profile::DEFAULT.has(switch))
        );
        assert_eq!(adoption.after, after);
        // Each table names the same profile as before, against the new default.
        let new_perft = fs::read_to_string(tmp.path().join("conformance/perft.yaml")).unwrap();
        let (old_rules, new_rules) = (rules_lines(&perft), rules_lines(&new_perft));
        assert_eq!(old_rules.len(), new_rules.len());
        assert!(!old_rules.is_empty());
        for ((i, old), (j, new)) in old_rules.iter().zip(&new_rules) {
            assert_eq!(i, j);
            assert_eq!(
                Profile::read_against(old, adoption.before).unwrap(),
                Profile::read_against(new, after).unwrap(),
                "line {}: `{old}` became `{new}`",
                i + 1
            );
        }
        // Only the default and the perft tables changed: the suite's and
        // the example table in spec/SCENARIOS.md, whose `rules: default`
        // names the old default under its new name.
        let now = files(tmp.path());
        let changed: Vec<&PathBuf> = now.keys().filter(|p| now[*p] != original[*p]).collect();
        assert_eq!(
            changed,
            [
                Path::new("conformance/perft.yaml"),
                Path::new("spec/SCENARIOS.md"),
                Path::new("spec/default.yaml")
            ]
        );
        // The reading's RULES.md paragraph is listed for rewording.
        let tag = format!("*Reading {}.*", switch.reading());
        assert!(
            adoption
                .reword
                .iter()
                .any(|l| l.starts_with("spec/RULES.md:") && l.contains(&tag)),
            "{:?}",
            adoption.reword
        );
        assert!(adoption.to_text().contains(&format!(
            "{}={}",
            switch.setting(),
            switch.value_in(after)
        )));
        // Adopting the same reading again (by setting name) gives every byte back.
        let back = adopt(tmp.path(), switch.setting()).unwrap();
        assert_eq!(back.after, Profile::DEFAULT);
        assert!(files(tmp.path()) == original, "{switch}: not restored");
    }
}

#[test]
fn an_unknown_reading_or_a_malformed_default_file_writes_nothing() {
    let tmp = copy();
    let original = files(tmp.path());
    // The ID after the last reading's names no reading.
    let next = format!("I{}", kpe::Switch::ALL.len() + 1);
    let err = adopt(tmp.path(), &next).unwrap_err();
    assert!(matches!(err, AdoptError::UnknownReading(_)), "{err}");
    assert!(err.to_string().contains(&format!("`{next}`")), "{err}");
    let path = tmp.path().join("spec/default.yaml");
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, text.replace("feeding:", "feedin:")).unwrap();
    let err = adopt(tmp.path(), "I1").unwrap_err();
    assert!(err.to_string().contains("default.yaml: line"), "{err}");
    fs::write(&path, text).unwrap();
    assert!(files(tmp.path()) == original);
    let missing = tempfile::tempdir().unwrap();
    assert!(matches!(
        adopt(missing.path(), "I1").unwrap_err(),
        AdoptError::Io(..)
    ));
}
