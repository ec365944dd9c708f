//! Replays the fuzz corpus and every input that ever crashed or hung a fuzz
//! target (`fuzz/corpus/TARGET/`, `fuzz/regressions/TARGET/`) through the
//! same entry points as the cargo-fuzz targets (`fuzz/entries.rs`), on
//! stable: none may panic. The fuzzing itself is run by hand on nightly
//! (`cd fuzz && cargo +nightly fuzz run TARGET`, see `fuzz/README.md`).

use std::path::Path;

mod entries {
    #![allow(dead_code)]
    include!("../fuzz/entries.rs");
}

/// A fuzz entry point.
type Entry = fn(&[u8]);

const TARGETS: [(&str, Entry); 7] = [
    ("notation", entries::notation),
    ("manifest", entries::manifest),
    ("reply", entries::reply),
    ("scenario", entries::scenario),
    ("transcript", entries::transcript),
    ("shard", entries::shard),
    ("expect_fail", entries::expect_fail),
];

/// Runs every file under `fuzz/KIND/TARGET/` through its target; returns
/// how many there were.
fn replay(kind: &str, target: &str, entry: Entry) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(kind)
        .join(target);
    let Ok(files) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let mut n = 0;
    for file in files {
        let path = file.unwrap().path();
        if path.is_file() {
            let data = std::fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| entry(&data));
            assert!(outcome.is_ok(), "{} panicked", path.display());
            n += 1;
        }
    }
    n
}

#[test]
fn the_fuzz_corpus_replays_without_a_panic() {
    for (target, entry) in TARGETS {
        let n = replay("corpus", target, entry);
        assert!(n > 0, "fuzz/corpus/{target} is empty");
    }
}

#[test]
fn every_fuzz_finding_replays_without_a_panic() {
    for (target, entry) in TARGETS {
        replay("regressions", target, entry);
    }
}

/// Each fuzz target of `fuzz/Cargo.toml` is replayed here, and each one
/// here is a target there.
#[test]
fn the_replayed_targets_are_the_fuzz_targets() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/Cargo.toml"))
            .unwrap();
    let mut declared: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("name = \""))
        .filter_map(|l| l.strip_suffix('"'))
        .filter(|n| *n != "kpe-fuzz")
        .collect();
    declared.sort_unstable();
    let mut replayed: Vec<&str> = TARGETS.iter().map(|(t, _)| *t).collect();
    replayed.sort_unstable();
    assert_eq!(declared, replayed);
}
