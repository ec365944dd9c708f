//! Protocol versions negotiated (issue 42, item 4; spec/PROTOCOL.md,
//! "Versions"), at one engine session: an engine that refuses kpe-check's
//! hello is started again and sent each version's hello as published;
//! what counts as a refusal; which failure a start that every hello failed
//! reports; later starts begin with the hello taken.
//!
//! The engines are sh scripts that append a line to `starts` beside
//! themselves each time they start, so that the processes started are
//! counted. No test depends on how fast the machine is: the one timeout
//! (a hello never answered) is asserted as a timeout, whenever it fires.

#![cfg(unix)]

use std::path::Path;

use kpe::Profile;
use kpe::live::{Engine, Manifest};
use kpe::protocol::Offer;

/// The session of an engine running `body` after it counts its start,
/// with `start_ms` to answer the hello; and its folder.
fn session(body: &str, start_ms: u64) -> (Engine, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("engine.sh");
    std::fs::write(
        &script,
        format!("echo start >> \"$(dirname \"$0\")/starts\"\n{body}"),
    )
    .unwrap();
    let path = dir.path().join("engine.json");
    let manifest = serde_json::json!({
        "format": "kpe-engine", "version": 1,
        "command": ["sh", script.display().to_string()],
        "timeouts": {"start_ms": start_ms, "request_ms": 10000},
    });
    std::fs::write(&path, manifest.to_string()).unwrap();
    let manifest = Manifest::load(&path).unwrap();
    let engine = Engine::new(
        manifest.launch(dir.path()),
        manifest.timeouts,
        Profile::DEFAULT,
    );
    (engine, dir)
}

/// How many times the engine in `dir` was started.
fn started(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("starts"))
        .unwrap_or_default()
        .lines()
        .count()
}

/// After the hello, answers nothing until `quit`, and then exits.
const SERVE_UNTIL_QUIT: &str = r#"while IFS= read -r line; do
    case $line in *'"quit"'*) exit 0 ;; esac
done
"#;

/// An engine of version 1 that answers `error` to any hello but version
/// 1's as published: refused twice, it takes the third hello, is checked
/// by version 1, and the session's next start sends that hello at once.
#[test]
fn an_engine_refusing_newer_hellos_takes_version_1s() {
    let body = format!(
        r#"IFS= read -r hello
case $hello in
    *versions*|*'"protocol":2'*)
        echo '{{"type":"error","message":"protocol 1 only"}}'; exit 0 ;;
esac
echo '{{"type":"hello","protocol":1,"name":"old","version":"1"}}'
{SERVE_UNTIL_QUIT}"#
    );
    let (mut engine, dir) = session(&body, 10000);
    let info = engine.start().unwrap().clone();
    assert_eq!(info.protocol, 1);
    assert_eq!(info.took, Offer::AsPublished(1));
    assert_eq!(info.refused.len(), 2, "{:?}", info.refused);
    assert!(
        info.refused[0].starts_with("the hello offering versions 1, 2: ")
            && info.refused[0].contains("protocol 1 only (engine-error)"),
        "{:?}",
        info.refused
    );
    assert!(
        info.refused[1].starts_with("version 2's hello as published: "),
        "{:?}",
        info.refused
    );
    assert_eq!(started(dir.path()), 3);
    assert_eq!(engine.starts(), 1, "the hellos refused are one start");
    engine.quit().unwrap();
    let info = engine.start().unwrap().clone();
    assert_eq!(info.took, Offer::AsPublished(1));
    assert!(info.refused.is_empty());
    assert_eq!(started(dir.path()), 4, "one process for the next start");
    engine.quit().unwrap();
}

/// An engine that answers every hello with the same `error` (a profile it
/// cannot play) fails its start with its answer to the first hello.
#[test]
fn the_same_refusal_to_every_hello_is_reported_as_the_first() {
    let body = format!(
        r#"IFS= read -r hello
echo '{{"type":"error","message":"cannot play strict-lock"}}'
{SERVE_UNTIL_QUIT}"#
    );
    let (mut engine, dir) = session(&body, 10000);
    let failure = engine.start().map(|_| ()).unwrap_err();
    assert_eq!(failure.code, "engine-error");
    assert!(failure.kind.to_string().contains("cannot play strict-lock"));
    let request = failure.request.unwrap();
    assert!(request.contains(r#""versions":[1,2]"#), "{request}");
    assert_eq!(started(dir.path()), 3, "every hello was tried");
}

/// An engine of version 1 refusing the newer hellos and then the profile:
/// the start fails with its answer to the last hello, version 1's.
#[test]
fn different_refusals_are_reported_as_the_last() {
    let body = format!(
        r#"IFS= read -r hello
case $hello in
    *versions*|*'"protocol":2'*) echo '{{"type":"error","message":"protocol 1 only"}}' ;;
    *) echo '{{"type":"error","message":"cannot play this profile"}}' ;;
esac
{SERVE_UNTIL_QUIT}"#
    );
    let (mut engine, dir) = session(&body, 10000);
    let failure = engine.start().map(|_| ()).unwrap_err();
    assert!(
        failure
            .kind
            .to_string()
            .contains("cannot play this profile"),
        "{}",
        failure.kind
    );
    let request = failure.request.unwrap();
    assert!(
        request.contains(r#""protocol":1"#) && !request.contains("versions"),
        "{request}"
    );
    assert_eq!(started(dir.path()), 3);
}

/// An engine that exits at the newer hellos (an assertion on the version
/// number) is refusing them too.
#[test]
fn an_exit_at_the_hello_is_a_refusal() {
    let body = format!(
        r#"IFS= read -r hello
case $hello in *versions*|*'"protocol":2'*) exit 1 ;; esac
echo '{{"type":"hello","protocol":1,"name":"old","version":"1"}}'
{SERVE_UNTIL_QUIT}"#
    );
    let (mut engine, dir) = session(&body, 10000);
    let info = engine.start().unwrap().clone();
    assert_eq!(info.protocol, 1);
    assert!(info.refused[0].contains("(crash)"), "{:?}", info.refused);
    assert_eq!(started(dir.path()), 3);
    engine.quit().unwrap();
}

/// A hello that gets no answer in time is not a refusal: no older hello
/// is tried (the engine is slow or hung, not old).
#[test]
fn a_hello_timeout_is_not_a_refusal() {
    let (mut engine, dir) = session("IFS= read -r hello\nsleep 60\n", 200);
    let failure = engine.start().map(|_| ()).unwrap_err();
    assert_eq!(failure.code, "timeout", "{}", failure.kind);
    assert_eq!(started(dir.path()), 1);
}
