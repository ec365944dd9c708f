//! The Python wheel (`pyproject.toml`, maturin with `bindings = "bin"`):
//! installing the wheel gives `kpe` and `kpe-check` on PATH (docs/GUIDE.md,
//! "The Python wheel").
//!
//! The first test always runs: `pyproject.toml` names the package as
//! Cargo.toml does, takes its version from Cargo.toml, ships binaries and
//! the two licence files.
//! The second builds the wheel with maturin (a release build: minutes), so
//! it runs only with `KPE_WHEEL_TEST=1` and says why it skips otherwise,
//! or when maturin, python3 or its venv module is missing:
//!
//! ```sh
//! pip install maturin        # once (needs the network)
//! KPE_WHEEL_TEST=1 cargo test --test wheel -- --nocapture
//! ```
//!
//! It builds the wheel into a temporary folder (the build itself goes to
//! `KPE_WHEEL_TARGET`, by default `wheel/` beside the test binaries' target
//! folder, so a second run is quick), installs it with `pip --no-index` into a fresh virtual
//! environment, and runs `kpe-check` from there on a sample transcript and
//! on the reference engine, `kpe engine`, from the same wheel.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The `key = value` lines of one `[section]` of a TOML file, values as
/// written. Enough for the two files read here, which this test keeps
/// simple.
fn section(text: &str, name: &str) -> Vec<(String, String)> {
    let header = format!("[{name}]");
    let mut inside = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            inside = line == header;
            continue;
        }
        if !inside || line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            lines.push((key.trim().to_owned(), value.trim().to_owned()));
        }
    }
    lines
}

fn value<'a>(lines: &'a [(String, String)], key: &str) -> Option<&'a str> {
    lines
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

#[test]
fn pyproject_names_the_crate_and_takes_its_version_from_cargo() {
    let pyproject = std::fs::read_to_string(root().join("pyproject.toml")).unwrap();
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let package = section(&cargo, "package");
    let project = section(&pyproject, "project");
    let maturin = section(&pyproject, "tool.maturin");
    let build = section(&pyproject, "build-system");
    assert_eq!(value(&project, "name"), value(&package, "name"));
    assert_eq!(value(&project, "name"), Some("\"kpe\""));
    assert_eq!(value(&project, "license"), value(&package, "license"));
    // No version of its own: maturin takes Cargo.toml's.
    assert_eq!(value(&project, "version"), None);
    assert_eq!(value(&project, "dynamic"), Some("[\"version\"]"));
    assert_eq!(value(&maturin, "bindings"), Some("\"bin\""));
    assert_eq!(value(&build, "build-backend"), Some("\"maturin\""));
    // Issue 44: the licences the manifests declare, in the repository and
    // (PEP 639's license-files, read by maturin 1.9 and later) the wheel.
    assert_eq!(
        value(&project, "license-files"),
        Some("[\"LICENSE-MIT\", \"LICENSE-APACHE\"]")
    );
    assert_eq!(
        value(&build, "requires"),
        Some("[\"maturin>=1.9,<2\"]"),
        "a maturin that reads license-files"
    );
    for licence in ["LICENSE-MIT", "LICENSE-APACHE"] {
        let text = std::fs::read_to_string(root().join(licence)).unwrap();
        assert!(text.len() > 1000, "{licence}: {} bytes", text.len());
    }
    // The binaries the wheel carries are the crate's.
    for bin in ["kpe", "kpe-check"] {
        assert!(
            cargo.contains(&format!("[[bin]]\nname = \"{bin}\"")),
            "Cargo.toml has no binary {bin}"
        );
    }
}

fn succeeds(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

fn show(out: &Output) -> String {
    format!(
        "exit {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn the_wheel_builds_installs_and_checks_a_transcript() {
    if std::env::var_os("KPE_WHEEL_TEST").is_none_or(|v| v != "1") {
        eprintln!(
            "skipped: building the wheel takes a release build; set KPE_WHEEL_TEST=1 to run it"
        );
        return;
    }
    let maturin = std::env::var("KPE_MATURIN").unwrap_or_else(|_| "maturin".to_owned());
    if !succeeds(&maturin, &["--version"]) {
        eprintln!("skipped: no `{maturin}` (pip install maturin, or set KPE_MATURIN)");
        return;
    }
    if !succeeds("python3", &["-c", "import venv, ensurepip"]) {
        eprintln!("skipped: python3 with its venv and ensurepip modules is not available");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let wheels = dir.path().join("wheels");
    // KPE_WHEEL_TARGET, or beside the target folder of this test, so
    // that the build is kept for the next run.
    let target: PathBuf = std::env::var_os("KPE_WHEEL_TARGET").map_or_else(
        || {
            Path::new(env!("CARGO_BIN_EXE_kpe"))
                .parent()
                .and_then(Path::parent)
                .unwrap()
                .join("wheel")
        },
        PathBuf::from,
    );
    let out = Command::new(&maturin)
        .current_dir(root())
        .env("CARGO_TARGET_DIR", &target)
        .args(["build", "--release", "--locked", "--out"])
        .arg(&wheels)
        .output()
        .unwrap();
    assert!(out.status.success(), "maturin build: {}", show(&out));
    let built: Vec<PathBuf> = std::fs::read_dir(&wheels)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "whl"))
        .collect();
    assert_eq!(built.len(), 1, "{built:?}");
    let wheel = &built[0];
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        name.starts_with(&format!("kpe-{version}-")),
        "the wheel's name carries Cargo.toml's version {version}: {name}"
    );
    // The licence texts, in the wheel's .dist-info/licenses/ (PEP 639).
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))",
        ])
        .arg(wheel)
        .output()
        .unwrap();
    assert!(out.status.success(), "listing the wheel: {}", show(&out));
    let files = String::from_utf8_lossy(&out.stdout);
    for licence in ["LICENSE-MIT", "LICENSE-APACHE"] {
        let inside = format!("kpe-{version}.dist-info/licenses/{licence}");
        assert!(
            files.lines().any(|f| f == inside),
            "{name} lacks {inside}:\n{files}"
        );
    }
    // A fresh virtual environment, and the wheel installed without an index.
    let venv = dir.path().join("venv");
    let out = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .output()
        .unwrap();
    assert!(out.status.success(), "python3 -m venv: {}", show(&out));
    let bin = venv.join("bin");
    let out = Command::new(bin.join("pip"))
        .args(["install", "--no-index", "--quiet"])
        .arg(wheel)
        .output()
        .unwrap();
    assert!(out.status.success(), "pip install: {}", show(&out));
    // kpe-check from the environment, on the sample transcripts.
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |args: &[&str]| {
        Command::new(bin.join("kpe-check"))
            .current_dir(root())
            .env("PATH", &path)
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["--version"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("kpe-check {version}")
    );
    let out = run(&["examples/transcripts/conforming.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("CONFORMS"));
    let out = run(&["-q", "examples/transcripts/skip-origin.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    // And the wheel's kpe as the engine, found on PATH by the manifest.
    let out = run(&[
        "-q",
        "--games",
        "2",
        "--perft-depth",
        "2",
        "--only",
        "random/*",
        "--only",
        "perft/initial/*",
        "examples/engines/kpe-release.json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    eprintln!(
        "built {name}: {} bytes",
        std::fs::metadata(wheel).unwrap().len()
    );
}
