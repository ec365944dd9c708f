//! Issue 44: an engine author's first steps, in a folder of their own.
//!
//! The README shows a whole manifest (`examples/engines/engine.json`) and
//! the commands that copy it with the sample engine into `~/my-engine` and
//! certify it there. The sample engine read `../../spec/default.yaml`
//! relative to itself, so a copy anywhere else crashed at start (ERRORED,
//! exit 3). These tests copy the files into temporary folders outside the
//! repository and certify them; the ones that run the Python sample need
//! `python3` and say so when they skip, and the reference engine covers
//! the same ground without it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn python3() -> bool {
    let found = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: python3 is not on PATH, and the sample engine is Python");
    }
    found
}

/// The folder of the binaries this test was built with, then PATH.
fn path_with_binaries() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_kpe")).parent().unwrap();
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn show(out: &Output) -> String {
    format!(
        "exit {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// kpe-check in `dir`, with fewer random games and a shallower perft than
/// the manifest's defaults so that the run takes seconds; the verdict is
/// the same kind of certificate.
fn kpe_check(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .current_dir(dir)
        .env("PATH", path_with_binaries())
        .env("KPE_CHECK_GAMES", "10")
        .env("KPE_CHECK_PERFT_DEPTH", "4")
        .env_remove("KPE_CHECK_SUITE")
        .args(args)
        .output()
        .unwrap()
}

/// A folder two levels down in a temporary directory, so that the sample's
/// `../../spec/default.yaml` points at nothing.
fn engine_folder(tmp: &tempfile::TempDir) -> PathBuf {
    let dir = tmp.path().join("home/my-engine");
    std::fs::create_dir_all(&dir).unwrap();
    assert!(!dir.join("../../spec/default.yaml").exists());
    dir
}

#[test]
fn the_sample_engine_and_its_manifest_certify_from_a_folder_of_their_own() {
    if !python3() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = engine_folder(&tmp);
    for file in ["kpe_engine.py", "engine.json"] {
        std::fs::copy(root().join("examples/engines").join(file), dir.join(file)).unwrap();
    }
    let out = kpe_check(&dir, &["engine.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("CONFORMS"), "{text}");
    assert!(text.contains("kpe-sample-py (correct)"), "{text}");
    // The copy's variants still plant their bug: it is the rules being
    // checked, not the start failing.
    let manifest = r#"{"format": "kpe-engine", "version": 1,
        "command": ["python3", "kpe_engine.py", "--variant", "own-row"]}"#;
    std::fs::write(dir.join("own-row.json"), manifest).unwrap();
    let out = kpe_check(&dir, &["-q", "own-row.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
}

/// The README's lines, run as written: a fresh home, kpe-check on PATH
/// (as `cargo install` puts it), from the repository's root.
#[test]
fn the_readme_copy_commands_certify_in_a_fresh_home() {
    if !python3() {
        return;
    }
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("```sh\nmkdir ~/my-engine\n")
        .expect("the README's lines that copy the sample engine");
    let block = &readme[start + "```sh\n".len()..];
    let block = &block[..block.find("```").unwrap()];
    assert!(block.contains("kpe-check engine.json"), "{block}");
    let home = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-e", "-c", block])
        .current_dir(root())
        .env("HOME", home.path())
        .env("PATH", path_with_binaries())
        .env("KPE_CHECK_GAMES", "10")
        .env("KPE_CHECK_PERFT_DEPTH", "4")
        .env_remove("KPE_CHECK_SUITE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{block}\n{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("CONFORMS"));
    assert!(home.path().join("my-engine/kpe_engine.py").is_file());
}

/// Without python3: a copied manifest of the reference engine, `kpe
/// engine` found on PATH, certifies from a folder outside the repository.
#[test]
fn a_copied_manifest_of_the_reference_engine_certifies_outside_the_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = engine_folder(&tmp);
    std::fs::copy(
        root().join("examples/engines/kpe-release.json"),
        dir.join("engine.json"),
    )
    .unwrap();
    let out = kpe_check(&dir, &["engine.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("CONFORMS"));
    // And with no `kpe` on PATH the run says why it could not start.
    let out = Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .current_dir(&dir)
        .env("PATH", tmp.path())
        .args(["-q", "--games", "1", "engine.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", show(&out));
}

/// The README shows the sample manifest whole: its JSON block is
/// `examples/engines/engine.json`. (`kpe adopt` may rewrite the file's
/// profile to name the same rules against a new default; the README claims
/// `default`.)
#[test]
fn the_readme_shows_the_sample_manifest_whole() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("```json\n{\n  \"format\": \"kpe-engine\"")
        .expect("a whole manifest in the README");
    let block = &readme[start + "```json\n".len()..];
    let block = &block[..block.find("```").unwrap()];
    let shown: Value = serde_json::from_str(block).unwrap();
    let file = std::fs::read_to_string(root().join("examples/engines/engine.json")).unwrap();
    let mut file: Value = serde_json::from_str(&file).unwrap();
    let mut shown_rest = shown.clone();
    assert_eq!(shown["profile"], "default");
    assert!(file["profile"].is_string());
    shown_rest.as_object_mut().unwrap().remove("profile");
    file.as_object_mut().unwrap().remove("profile");
    assert_eq!(shown_rest, file);
    // It names its engine as the copy has it: beside the manifest.
    assert_eq!(
        shown["command"],
        serde_json::json!(["python3", "kpe_engine.py"])
    );
}
