//! Nothing an engine starts outlives kpe-check (issue 42, item 5): after
//! `kill -9` of kpe-check, no process of its engines is left, however the
//! engine was launched (`sh -c 'python3 engine.py; true'`, a chain of two
//! shells), even one that ignores SIGTERM and the end of its input; the
//! watch that kills them (src/live/interrupt.rs) exits with status 0 and
//! is reaped.
//!
//! Linux only: processes are found in `/proc`, by a marker in their
//! command line (each engine script lies in a folder named after the
//! test and this process). No test depends on how fast the machine is:
//! each waits for a state (the engine has answered its hello, the
//! processes are gone) with a generous bounded deadline, and never sleeps
//! to let something happen.
//!
//! This test binary makes itself a child subreaper, so that the processes
//! orphaned by the killed kpe-check (the watch among them) become its
//! children: the watch's exit status can be read, and what is reaped is
//! known to be dead.

#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitOptions, kill_process, waitpid};

/// How long any wait in these tests may last before it fails: far more
/// than anything takes on a loaded machine.
const DEADLINE: Duration = Duration::from_secs(60);

/// The stand-in engine in sh: answers the hello (protocol 2, no perft),
/// starts a copy of itself in the background (a subshell, its command
/// line the same) with its input closed, says it is ready by creating
/// `ready` beside itself, then never reads again; both ignore SIGTERM,
/// SIGHUP, SIGINT and the end of their input.
const SH_ENGINE: &str = r#"trap '' TERM HUP INT
IFS= read -r hello
printf '%s\n' '{"type":"hello","protocol":2,"name":"stubborn","version":"1"}'
( exec 0<&-; while :; do sleep 1; done ) &
: > "$(dirname "$0")/ready"
while :; do sleep 1; done
"#;

/// The same in Python.
const PY_ENGINE: &str = r#"import os, signal, sys, time
for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(s, signal.SIG_IGN)
sys.stdin.readline()
print('{"type":"hello","protocol":2,"name":"stubborn","version":"1"}', flush=True)
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ready"), "w").close()
while True:
    time.sleep(1)
"#;

/// A folder whose path holds a marker unique to the test and this run,
/// with the engine script `name` written in it.
struct Marked {
    _dir: tempfile::TempDir,
    path: PathBuf,
    mark: String,
}

impl Marked {
    fn new(test: &str, name: &str, script: &str) -> Marked {
        let mark = format!("kpe-outlive-{test}-{}-", std::process::id());
        let dir = tempfile::Builder::new().prefix(&mark).tempdir().unwrap();
        let path = dir.path().to_path_buf();
        std::fs::write(path.join(name), script).unwrap();
        Marked {
            _dir: dir,
            path,
            mark,
        }
    }

    fn script(&self, name: &str) -> String {
        self.path.join(name).display().to_string()
    }

    /// Writes the manifest running `command` (a request timeout of a
    /// minute: the checker waits on the engine until it is killed).
    fn manifest(&self, command: &[String]) -> PathBuf {
        let manifest = serde_json::json!({
            "format": "kpe-engine", "version": 1,
            "command": command,
            "timeouts": {"start_ms": 60000, "request_ms": 60000},
            "random": {"games": 1, "seed": 1},
            "perft": {"max_depth": 1},
        });
        let path = self.path.join("engine.json");
        std::fs::write(&path, manifest.to_string()).unwrap();
        path
    }
}

/// The pids of live (not zombie) processes whose command line holds
/// `needle` (a zombie's command line is empty).
fn with_argv(needle: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.windows(needle.len()).any(|w| w == needle.as_bytes()))
        })
        .collect()
}

/// The pid of the watch kpe-check `checker` started
/// (`kpe-check __kpe-engine-watch CHECKER`).
fn watch_of(checker: u32) -> Option<i32> {
    let needle = format!("\0{}\0{checker}\0", kpe::live::interrupt::WATCH_ARG);
    with_argv(&needle).first().copied()
}

fn subreaper() {
    rustix::process::set_child_subreaper(Some(rustix::process::getpid())).unwrap();
}

/// Polls `done` until it holds, failing with `what` past [`DEADLINE`].
fn until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < DEADLINE,
            "{what}: not within {DEADLINE:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn kpe_check(manifest: &Path, jobs: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .arg(manifest)
        .args(["--format", "json", "--jobs", jobs])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Kills every process left with the marker, then fails naming them.
fn assert_none_left(mark: &str) {
    let left = kill_marked(mark);
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

/// Kills every live process whose command line holds `mark`; returns them.
fn kill_marked(mark: &str) -> Vec<i32> {
    let left = with_argv(mark);
    for &pid in &left {
        if let Some(pid) = Pid::from_raw(pid) {
            let _ = kill_process(pid, Signal::KILL);
        }
    }
    left
}

/// Kills what a test leaves behind, should it fail half-way.
struct Cleanup<'a>(&'a str);

impl Drop for Cleanup<'_> {
    fn drop(&mut self) {
        kill_marked(self.0);
    }
}

/// Runs kpe-check on the engine `command` with `--jobs JOBS`, waits until
/// an engine has answered its hello (and the checker's watch runs), kills
/// kpe-check with SIGKILL, and checks that every process marked `marked`
/// ends, and that the watch exits with status 0 and is reaped here.
fn killed_checker_leaves_nothing(marked: &Marked, command: &[String], jobs: &str) {
    subreaper();
    let _cleanup = Cleanup(&marked.mark);
    let manifest = marked.manifest(command);
    let mut checker = kpe_check(&manifest, jobs);
    let ready = marked.path.join("ready");
    until("the engine answers its hello", || ready.exists());
    let mut watch = None;
    until("the watch runs", || {
        watch = watch_of(checker.id());
        watch.is_some()
    });
    let watch = Pid::from_raw(watch.unwrap()).unwrap();
    let engines = with_argv(&marked.mark);
    assert!(!engines.is_empty(), "no engine process found");
    checker.kill().unwrap();
    checker.wait().unwrap();
    // Orphaned, the watch is this process's child now: it exits by
    // itself, with status 0.
    let mut status = None;
    until("the watch exits", || {
        status = waitpid(Some(watch), WaitOptions::NOHANG).unwrap();
        status.is_some()
    });
    let (_, status) = status.unwrap();
    assert_eq!(status.exit_status(), Some(0), "the watch's end: {status:?}");
    // Every marked process ends; those orphaned here are reaped.
    until("every engine process ends", || {
        for &pid in &engines {
            if let Some(pid) = Pid::from_raw(pid) {
                let _ = waitpid(Some(pid), WaitOptions::NOHANG);
            }
        }
        with_argv(&marked.mark).is_empty()
    });
    assert_none_left(&marked.mark);
}

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|&w| w.to_owned()).collect()
}

fn has_python3() -> bool {
    Command::new("python3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Regression (issue 42): `["sh", "-c", "python3 engine.py; true"]` left
/// its Python engines running after `kill -9` of `kpe-check --jobs 2`:
/// the parent-death signal reached only the shell.
#[test]
fn a_launcher_shell_and_its_python_engine_die_with_the_checker() {
    if !has_python3() {
        eprintln!("skipped: needs python3");
        return;
    }
    let marked = Marked::new("python", "engine.py", PY_ENGINE);
    let script = format!("python3 '{}'; true", marked.script("engine.py"));
    killed_checker_leaves_nothing(&marked, &words(&["sh", "-c", &script]), "2");
}

/// The same with no other program than sh: the launcher shell and the
/// shell that runs the engine.
#[test]
fn a_launcher_shell_and_its_shell_engine_die_with_the_checker() {
    let marked = Marked::new("sh", "engine.sh", SH_ENGINE);
    let script = format!("sh '{}'; true", marked.script("engine.sh"));
    killed_checker_leaves_nothing(&marked, &words(&["sh", "-c", &script]), "2");
}

/// A chain of two launcher shells (as a version manager's shim that runs
/// another script would make) before the engine's own.
#[test]
fn a_chain_of_two_shells_dies_with_the_checker() {
    let marked = Marked::new("chain", "engine.sh", SH_ENGINE);
    let inner = format!("sh '{}'; true", marked.script("engine.sh"));
    let outer = format!("sh -c \"{inner}\"; true");
    killed_checker_leaves_nothing(&marked, &words(&["sh", "-c", &outer]), "1");
}

/// An engine started directly (the guard's parent-death signal kills it)
/// that ignores SIGTERM and the end of its input, with a child of its own
/// that ignores them too and has closed its input.
#[test]
fn an_engine_ignoring_sigterm_and_its_closed_input_dies_with_the_checker() {
    let marked = Marked::new("stubborn", "engine.sh", SH_ENGINE);
    killed_checker_leaves_nothing(&marked, &words(&["sh", &marked.script("engine.sh")]), "1");
}

/// A run that ends by itself reaps its watch: none is left running or
/// handed to another parent as a zombie.
#[test]
fn a_finished_run_reaps_its_watch() {
    subreaper();
    // Answers its hello, then exits with status 1 once `go` exists.
    let engine = r#"IFS= read -r hello
printf '%s\n' '{"type":"hello","protocol":2,"name":"short","version":"1"}'
here=$(dirname "$0")
: > "$here/ready"
while [ ! -e "$here/go" ]; do sleep 0.05; done
exit 1
"#;
    let marked = Marked::new("finished", "engine.sh", engine);
    let _cleanup = Cleanup(&marked.mark);
    let manifest = marked.manifest(&words(&["sh", &marked.script("engine.sh")]));
    let mut checker = Command::new(env!("CARGO_BIN_EXE_kpe-check"))
        .arg(&manifest)
        .args([
            "--format",
            "json",
            "--jobs",
            "1",
            "--only",
            "perft/initial/1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let ready = marked.path.join("ready");
    until("the engine answers its hello", || ready.exists());
    let mut watch = None;
    until("the watch runs", || {
        watch = watch_of(checker.id());
        watch.is_some()
    });
    let watch = Pid::from_raw(watch.unwrap()).unwrap();
    std::fs::write(marked.path.join("go"), "").unwrap();
    let mut status = None;
    until("kpe-check ends", || {
        status = checker.try_wait().unwrap();
        status.is_some()
    });
    // kpe-check reaped it: it is no child of this process (which would
    // have inherited it, running or a zombie, otherwise) and is gone.
    assert_eq!(
        waitpid(Some(watch), WaitOptions::NOHANG).map(|_| ()),
        Err(rustix::io::Errno::CHILD),
        "the watch was not reaped by kpe-check"
    );
    assert!(watch_of(checker.id()).is_none());
    assert_none_left(&marked.mark);
}
