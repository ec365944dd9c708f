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
    copy_of(&["spec", "conformance"])
}

/// A copy of these folders of the repository in a temporary directory.
fn copy_of(dirs: &[&str]) -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    for dir in dirs {
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
        AdoptError::NotAProject(..)
    ));
}

/// The folders `kpe adopt` writes in: the spec, the suite and the samples.
const WRITTEN: [&str; 3] = ["spec", "conformance", "examples"];

fn kpe(root: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_kpe"))
        .arg("adopt")
        .args(args)
        .arg("--root")
        .arg(root)
        .env_remove(kpe::adopt::STOP_AFTER_VAR)
        .output()
        .unwrap()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Issue 46: `kpe adopt` wrote its files one after another in place, and
/// a kill left a tree half adopted (or `spec/default.yaml` truncated).
/// Stopped after each of its steps in turn (the test hook stands for a
/// kill there), the tree is as before or fully adopted once
/// `kpe adopt --recover` has run; meanwhile another `kpe adopt` is refused,
/// naming the lock and the way out.
#[test]
fn a_run_stopped_after_any_step_is_finished_or_undone_by_recover() {
    let tmp = copy_of(&WRITTEN);
    let root = tmp.path();
    let old = files(root);
    let done = kpe(root, &["I3"]);
    assert!(done.status.success(), "{}", stderr(&done));
    let new = files(root);
    let written = new.keys().filter(|p| new[*p] != old[*p]).count();
    assert!(written >= 3, "{written}");
    assert!(kpe(root, &["I3"]).status.success());
    assert!(files(root) == old);
    let (mut finished, mut undone) = (0, 0);
    let mut k = 1;
    loop {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kpe"))
            .args(["adopt", "I3", "--root"])
            .arg(root)
            .env(kpe::adopt::STOP_AFTER_VAR, k.to_string())
            .output()
            .unwrap();
        if out.status.success() {
            break;
        }
        assert_eq!(
            out.status.code(),
            Some(kpe::adopt::STOPPED_EXIT),
            "step {k}: {}",
            stderr(&out)
        );
        let lock = root.join(kpe::adopt::LOCK_FILE);
        assert!(lock.exists(), "step {k}: no lock left");
        let second = kpe(root, &["I3"]);
        assert_eq!(second.status.code(), Some(1), "step {k}");
        let message = stderr(&second);
        assert!(
            message.contains(".kpe-adopt.lock exists")
                && message.contains("is not running")
                && message.contains("kpe adopt --recover --root"),
            "step {k}: {message}"
        );
        let recovered = kpe(root, &["--recover"]);
        assert!(
            recovered.status.success(),
            "step {k}: {}",
            stderr(&recovered)
        );
        let said = String::from_utf8_lossy(&recovered.stdout).into_owned();
        let now = files(root);
        if now == new {
            finished += 1;
            assert!(!said.contains("Undid"), "step {k}: {said}");
            assert!(kpe(root, &["I3"]).status.success());
        } else {
            assert!(
                now == old,
                "step {k}: neither the old tree nor the new: {said}"
            );
            undone += 1;
            assert!(!said.contains("Finished"), "step {k}: {said}");
        }
        assert!(files(root) == old, "step {k}");
        k += 1;
        assert!(k < 200, "the run never finishes");
    }
    // The steps: the lock, each new text, the journal, each rename, the
    // journal's removal.
    assert_eq!(k, 2 * written + 4, "steps");
    assert_eq!(undone, written + 1);
    assert_eq!(finished, written + 2);
    assert!(files(root) == new);
}

/// Issue 46: a file that could not be written left 10 of 12 changed. Here
/// the new text of one sample cannot be written beside it (a directory is
/// in its place, which stops root too): nothing changes, no lock is left,
/// and the error names the file.
#[test]
fn a_file_that_cannot_be_written_changes_nothing() {
    let tmp = copy_of(&WRITTEN);
    let root = tmp.path();
    let blocker = root.join("examples/transcripts/.wrong-sweep.json.kpe-adopt-new");
    fs::create_dir(&blocker).unwrap();
    fs::write(blocker.join("keep"), "x").unwrap();
    let old = files(root);
    let out = kpe(root, &["I3"]);
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.contains(".wrong-sweep.json.kpe-adopt-new") && message.contains("directory"),
        "{message}"
    );
    assert!(files(root) == old, "the tree changed");
    assert!(!root.join(kpe::adopt::LOCK_FILE).exists());

    // A target that is a symbolic link is not replaced by a file.
    fs::remove_dir_all(&blocker).unwrap();
    let scenarios = root.join("spec/SCENARIOS.md");
    fs::rename(&scenarios, root.join("spec/real.md")).unwrap();
    std::os::unix::fs::symlink("real.md", &scenarios).unwrap();
    let old = files(root);
    let out = kpe(root, &["I3"]);
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.contains("SCENARIOS.md: cannot be written: it is a symbolic link"),
        "{message}"
    );
    assert!(files(root) == old, "the tree changed");
}

/// Issue 46: two runs at once left a mixed tree. The second run finds the
/// lock (held here by this test's own, running process) and is refused
/// without reading or writing anything; `--recover` is refused too while
/// the holder runs.
#[test]
fn a_second_run_is_refused_while_the_lock_is_held() {
    let tmp = copy_of(&WRITTEN);
    let root = tmp.path();
    let lock = root.join(kpe::adopt::LOCK_FILE);
    fs::write(&lock, format!("{}\n", std::process::id())).unwrap();
    let old = files(root);
    for args in [&["I3"][..], &["--recover"]] {
        let out = kpe(root, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let message = stderr(&out);
        assert!(
            message.contains(".kpe-adopt.lock exists")
                && message.contains(&format!("(process {}) is running", std::process::id()))
                && message.contains("if it is not a `kpe adopt`, delete the lock first"),
            "{message}"
        );
        assert!(files(root) == old, "{args:?}: the tree changed");
    }
    fs::remove_file(&lock).unwrap();
    assert!(kpe(root, &["I3"]).status.success());
    let out = kpe(root, &["--recover"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("Nothing to recover"));
}

/// Issue 46: a root that is missing, a file or not the project, and a
/// missing, empty or garbled spec/default.yaml, exited 1; they are bad
/// input (exit 2), and the message says what is wrong.
#[test]
fn a_bad_root_or_default_file_exits_2() {
    let tmp = copy();
    let root = tmp.path();
    let file = root.join("spec/RULES.md");
    let empty = tempfile::tempdir().unwrap();
    for (dir, words) in [
        (
            root.join("nowhere"),
            "nowhere: not a kpe repository: it does not exist",
        ),
        (file.clone(), "not a kpe repository: it is not a directory"),
        (empty.path().to_owned(), "it has no spec/default.yaml"),
    ] {
        let out = kpe(&dir, &["I3"]);
        assert_eq!(out.status.code(), Some(2), "{}", dir.display());
        assert!(stderr(&out).contains(words), "{}", stderr(&out));
    }
    let default = root.join("spec/default.yaml");
    let text = fs::read(&default).unwrap();
    for (bytes, words) in [
        (b"".to_vec(), "default.yaml: empty"),
        (
            b"origin: sown\n".to_vec(),
            "default.yaml: a setting left out",
        ),
        ([&text[..], b"\xff\n"].concat(), "default.yaml: not UTF-8"),
    ] {
        fs::write(&default, &bytes).unwrap();
        let out = kpe(root, &["I3"]);
        assert_eq!(out.status.code(), Some(2), "{words}");
        assert!(stderr(&out).contains(words), "{}", stderr(&out));
        assert!(!root.join(kpe::adopt::LOCK_FILE).exists());
    }
}
