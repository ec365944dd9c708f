//! The reference rules as an engine: the protocol's server side, behind
//! `kpe engine`.

use std::io::{self, BufRead, Write};
use std::str::FromStr;

use crate::Pit;
use crate::board::Player;
use crate::perft::perft;
use crate::position::Position;
use crate::profile::Profile;
use crate::protocol::{EndClaim, OLDEST_PROTOCOL, PROTOCOL_VERSION, Reply, Request, perft_profile};
use crate::report::Capture;
use crate::rules::{self, legal_moves};

/// The longest request line `kpe engine` reads, in bytes: a longer one is
/// skipped (read to its end without being kept) and answered with `error`.
pub const MAX_REQUEST_LINE: usize = 1 << 16;

/// The deepest perft `kpe engine` counts: a `perft` request deeper than
/// this is answered with `error` (the count recurses once per ply).
pub const MAX_PERFT_DEPTH: u32 = 64;

/// How `kpe engine` should play.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServeOptions {
    /// Play this profile whatever the hello asks (to see how kpe-check
    /// diagnoses an engine that follows another reading). `None` follows
    /// the hello.
    pub rules: Option<Profile>,
    /// Misbehave on purpose, for testing kpe-check without other programs.
    pub fault: Option<Fault>,
    /// With `rules`: the hello lists that one profile as the only one
    /// played (without it, a pinned engine lists none, and an unpinned one
    /// every profile).
    pub announce: bool,
    /// Answer `legal` and `play` with a seeded rules bug (`kpe engine --bug`).
    pub bug: Option<super::bugs::Bug>,
    /// Speak only this protocol version (`kpe engine --protocol N`), as an
    /// engine written to it would; `None` speaks the version the hello
    /// asks for, if it is one kpe speaks, else the newest.
    pub protocol: Option<u32>,
    /// With `protocol`: answer `error` to a hello that offers any other
    /// version, or has a field that version's hello did not have
    /// (`versions`), as an engine that followed protocol 1's text would
    /// (`kpe engine --protocol 1 --refuse-newer`).
    pub refuse_newer: bool,
    /// With `protocol` 1: count `perft` under `end-on-repetition` with the
    /// repetition rule, as version 1's text said from 2026-12-01 (`kpe
    /// engine --protocol 1 --perft-repetition`); without it, version 1
    /// counts as its text first said, with no repetition rule.
    pub perft_repetition: bool,
}

/// What a hello settled for the rest of the session.
#[derive(Clone, Copy, Debug)]
struct Agreed {
    profile: Profile,
    protocol: u32,
}

/// A deliberate misbehaviour of `kpe engine --fault`, used by the tests of
/// kpe-check. Each one starts after a correct hello, at the first request
/// that is not a hello, except `wrong-protocol`, which is in the hello.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Abort (killed by SIGABRT on Unix).
    Crash,
    /// Exit with status 0 without answering.
    Exit,
    /// Never answer.
    Hang,
    /// Answer with a line that is not JSON.
    Garbage,
    /// Answer with a line of 2 MiB.
    HugeLine,
    /// Write to stderr without end instead of answering.
    StderrFlood,
    /// Answer each request twice, in one write.
    ExtraLine,
    /// Answer each request twice, in two writes.
    ExtraWrite,
    /// Answer each request once, and write that answer again only after
    /// reading the next request (`quit` included), just before answering
    /// it: the duplicate always arrives after kpe-check asked again.
    ExtraLate,
    /// Say in the hello a protocol version newer than kpe speaks.
    WrongProtocol,
    /// Never read stdin after the hello: answer by peeking at the pipe
    /// (`tee(2)`, Linux; elsewhere this hangs), so that the pipe fills and
    /// the checker's writes block.
    NoRead,
    /// Start a process that detaches itself (`setsid`, else its own process
    /// group) and holds stdout and stderr, then hang.
    Detach,
    /// A rules bug no reading explains: capture a 2 or 4 in the mover's own
    /// row when the last stone lands there (breaks CAP-3).
    CaptureOwnRow,
    /// Answer every request correctly, but only after sleeping
    /// [`SLOW_DELAY`]: a slow engine, for measuring `--jobs`.
    Slow,
    /// Say the version the hello asks for, but count `perft` as protocol
    /// version 1 did, with no repetition rule (wrong under
    /// `end-on-repetition` from version 2 on).
    PerftWithoutRepetition,
    /// The first start in a working directory answers its hello only after
    /// [`SLOW_START_DELAY`] (a cold start: a JIT warming up, a cache
    /// filled); it leaves the file [`FIRST_START_MARK`] there, and every
    /// later start that finds it answers at once.
    SlowFirstStart,
    /// Spin on a CPU without end instead of answering: a hung engine that
    /// is busy, where `hang` sleeps.
    Spin,
    /// The first start in a working directory writes its process id to
    /// [`STOPPED_MARK`] there at its first request after the hello, stops
    /// itself (SIGSTOP, Unix; elsewhere it answers at once) and, once
    /// continued, answers it and every other correctly: a request pending
    /// while the engine is held back, as a busy machine does to it.
    StopOnce,
    /// Answer correctly, but never answer the [`HANG_EVERY`]th request
    /// after the hello of each process (a hang that passes when run again
    /// on a fresh process).
    HangSometimes,
}

/// The file `kpe engine --fault stop-once` writes its process id to before
/// it stops itself.
pub const STOPPED_MARK: &str = "kpe-stopped";

/// Which request of each process `kpe engine --fault hang-sometimes`
/// never answers (the hello not counted).
pub const HANG_EVERY: u64 = 12;

/// How long the first start of `kpe engine --fault slow-first-start` waits
/// before its hello.
pub const SLOW_START_DELAY: std::time::Duration = std::time::Duration::from_millis(1500);

/// The file `kpe engine --fault slow-first-start` leaves in its working
/// directory at its first start.
pub const FIRST_START_MARK: &str = "kpe-first-start";

/// How long `kpe engine --fault slow` sleeps before each answer.
pub const SLOW_DELAY: std::time::Duration = std::time::Duration::from_millis(2);

impl Fault {
    /// Every fault with its name.
    pub const ALL: [(&'static str, Fault); 19] = [
        ("crash", Fault::Crash),
        ("exit", Fault::Exit),
        ("hang", Fault::Hang),
        ("garbage", Fault::Garbage),
        ("huge-line", Fault::HugeLine),
        ("stderr-flood", Fault::StderrFlood),
        ("extra-line", Fault::ExtraLine),
        ("extra-write", Fault::ExtraWrite),
        ("extra-late", Fault::ExtraLate),
        ("wrong-protocol", Fault::WrongProtocol),
        ("no-read", Fault::NoRead),
        ("detach", Fault::Detach),
        ("capture-own-row", Fault::CaptureOwnRow),
        ("slow", Fault::Slow),
        ("perft-without-repetition", Fault::PerftWithoutRepetition),
        ("slow-first-start", Fault::SlowFirstStart),
        ("spin", Fault::Spin),
        ("stop-once", Fault::StopOnce),
        ("hang-sometimes", Fault::HangSometimes),
    ];
}

impl FromStr for Fault {
    type Err = String;

    fn from_str(s: &str) -> Result<Fault, String> {
        Fault::ALL
            .iter()
            .find(|(name, _)| *name == s)
            .map(|&(_, f)| f)
            .ok_or_else(|| {
                let names: Vec<&str> = Fault::ALL.iter().map(|(n, _)| *n).collect();
                format!("unknown fault `{s}`: expected one of {}", names.join(", "))
            })
    }
}

/// Serves the protocol on `input` and `output` until `quit` or the end of
/// the input.
///
/// # Errors
///
/// An I/O error reading or writing the streams.
pub fn serve(input: impl BufRead, output: impl Write, options: ServeOptions) -> io::Result<()> {
    serve_with(input, output, options, None)
}

/// [`serve`], also answering `best` requests with a move of perfect play
/// from the tables under `dir` (`kpe engine --perfect`).
///
/// # Errors
///
/// An I/O error reading or writing the streams.
pub fn serve_perfect(
    input: impl BufRead,
    output: impl Write,
    options: ServeOptions,
    dir: &std::path::Path,
) -> io::Result<()> {
    serve_with(
        input,
        output,
        options,
        Some(&crate::solve::Perfect::new(dir)),
    )
}

fn serve_with(
    mut input: impl BufRead,
    mut output: impl Write,
    options: ServeOptions,
    perfect: Option<&crate::solve::Perfect>,
) -> io::Result<()> {
    let mut agreed = Agreed {
        profile: options.rules.unwrap_or_default(),
        protocol: options.protocol.unwrap_or(PROTOCOL_VERSION),
    };
    let mut bugged = options.bug.map(super::bugs::Session::new);
    let mut line = Vec::new();
    // The `extra-late` fault: the last answer, written again after the
    // next request is read.
    let mut late: Option<String> = None;
    // Requests read after the hello, for `hang-sometimes`.
    let mut asked = 0u64;
    loop {
        let Some(read) = read_request(&mut input, &mut line)? else {
            return Ok(());
        };
        let request = match read.and_then(|text| {
            serde_json::from_str::<Request>(text)
                .map_err(|e| format!("cannot read the request: {e}"))
        }) {
            Ok(request) => request,
            Err(message) => {
                send(&mut output, &Reply::Error { message })?;
                continue;
            }
        };
        if matches!(request, Request::Hello { .. })
            && options.fault == Some(Fault::SlowFirstStart)
            && std::fs::File::create_new(FIRST_START_MARK).is_ok()
        {
            std::thread::sleep(SLOW_START_DELAY);
        }
        if matches!(request, Request::Hello { .. }) {
            late = None;
        } else {
            if let Some(again) = late.take() {
                output.write_all(format!("{again}\n").as_bytes())?;
                output.flush()?;
            }
            if options.fault == Some(Fault::NoRead) {
                return peek_forever(request, &mut agreed, options, &mut output);
            }
            asked += 1;
            if options.fault == Some(Fault::HangSometimes) && asked == HANG_EVERY {
                misbehave(Some(Fault::Hang), &mut output)?;
            }
            if options.fault == Some(Fault::StopOnce) && asked == 1 {
                stop_once()?;
            }
            misbehave(options.fault, &mut output)?;
        }
        if let Some(session) = bugged.as_mut()
            && let Some(reply) = session.answer(&request, agreed.profile)
        {
            send(&mut output, &reply)?;
            continue;
        }
        let Some(reply) = answer(request, &mut agreed, options, perfect) else {
            return Ok(());
        };
        // The doubling faults start after the hello, as every fault does.
        let doubled = if matches!(reply, Reply::Hello { .. }) {
            None
        } else {
            options.fault
        };
        if doubled == Some(Fault::ExtraLine) {
            // Both lines in one write, so they arrive together.
            let line = serde_json::to_string(&reply).map_err(io::Error::other)?;
            output.write_all(format!("{line}\n{line}\n").as_bytes())?;
            output.flush()?;
        } else if doubled == Some(Fault::ExtraWrite) {
            send(&mut output, &reply)?;
            send(&mut output, &reply)?;
        } else if doubled == Some(Fault::ExtraLate) {
            let line = serde_json::to_string(&reply).map_err(io::Error::other)?;
            output.write_all(format!("{line}\n").as_bytes())?;
            output.flush()?;
            late = Some(line);
        } else {
            send(&mut output, &reply)?;
        }
    }
}

/// Reads one request line into `line`: `None` at the end of the input,
/// else the line's text or why it cannot be a request (longer than
/// [`MAX_REQUEST_LINE`], or not UTF-8). A line too long is consumed to its
/// end without being kept.
fn read_request<'a>(
    input: &mut impl BufRead,
    line: &'a mut Vec<u8>,
) -> io::Result<Option<Result<&'a str, String>>> {
    line.clear();
    let limit = MAX_REQUEST_LINE as u64 + 1;
    let n = io::Read::take(&mut *input, limit).read_until(b'\n', line)?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
    }
    if line.len() > MAX_REQUEST_LINE {
        skip_line(input)?;
        return Ok(Some(Err(format!(
            "the request line is longer than {MAX_REQUEST_LINE} bytes"
        ))));
    }
    Ok(Some(std::str::from_utf8(line).map_err(|e| {
        format!(
            "the request line is not UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        )
    })))
}

/// Discards input up to and including the next newline.
fn skip_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        if let Some(at) = memchr::memchr(b'\n', buffer) {
            input.consume(at + 1);
            return Ok(());
        }
        let n = buffer.len();
        input.consume(n);
    }
}

/// The reply to one request under the profile and protocol a hello
/// settled (`agreed`), or `None` for `quit`. With `perfect`, `best` is
/// answered from the solved tables.
fn answer(
    request: Request,
    agreed: &mut Agreed,
    options: ServeOptions,
    perfect: Option<&crate::solve::Perfect>,
) -> Option<Reply> {
    let reply = match request {
        Request::Hello {
            profile: asked,
            protocol: newest,
            versions,
        } => {
            if options.refuse_newer
                && let Some(only) = options.protocol
                && (newest != only || !versions.is_empty())
            {
                return Some(Reply::Error {
                    message: format!(
                        "this engine speaks protocol version {only} only, and its hello has no other field"
                    ),
                });
            }
            hello(asked, newest, &versions, agreed, options)
        }
        Request::Legal { position } => Reply::Legal {
            moves: legal_moves(&position, agreed.profile).to_vec(),
        },
        Request::Play { position, pit } => played(&position, pit, agreed.profile, options),
        Request::Perft { depth, .. } if depth > MAX_PERFT_DEPTH => Reply::Error {
            message: format!(
                "perft depth {depth} is deeper than this engine counts (at most {MAX_PERFT_DEPTH})"
            ),
        },
        Request::Perft { position, depth } => Reply::Perft {
            nodes: {
                let version = if options.fault == Some(Fault::PerftWithoutRepetition) {
                    1
                } else {
                    agreed.protocol
                };
                let counted = if options.perft_repetition {
                    agreed.profile
                } else {
                    perft_profile(version, agreed.profile)
                };
                perft(&position, depth, counted)
            },
        },
        Request::Best { position } => best(&position, agreed.profile, perfect),
        Request::Quit {} => return None,
    };
    Some(reply)
}

/// The hello: agrees on the profile and the protocol version (the one
/// `--protocol` names, else the newest of `versions`, or `newest` in a
/// hello without them, that kpe speaks), and says which profiles this
/// engine plays.
fn hello(
    asked: Profile,
    newest: u32,
    versions: &[u32],
    agreed: &mut Agreed,
    options: ServeOptions,
) -> Reply {
    let spoken = OLDEST_PROTOCOL..=PROTOCOL_VERSION;
    let offered = if versions.is_empty() {
        Some(newest).filter(|v| spoken.contains(v))
    } else {
        versions
            .iter()
            .copied()
            .filter(|v| spoken.contains(v))
            .max()
    };
    agreed.profile = options.rules.unwrap_or(asked);
    agreed.protocol = options
        .protocol
        .unwrap_or(offered.unwrap_or(PROTOCOL_VERSION));
    let protocol = if options.fault == Some(Fault::WrongProtocol) {
        PROTOCOL_VERSION + 1
    } else {
        agreed.protocol
    };
    Reply::Hello {
        protocol,
        name: "kpe".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        perft: true,
        // Every profile, unless `--rules` pins one: then it plays
        // that one whatever it is asked, as an engine that follows
        // one reading, and says nothing.
        profiles: match options.rules {
            None => Some(Profile::all().collect()),
            Some(p) if options.announce => Some(vec![p]),
            Some(_) => None,
        },
    }
}

/// The answer to `play`: the position after, or why the move is illegal.
fn played(position: &Position, pit: Pit, profile: Profile, options: ServeOptions) -> Reply {
    match rules::play(position, pit, profile) {
        Ok((after, report)) => {
            let reply = Reply::Played {
                position: after.to_string(),
                captures: report.captures.to_vec(),
                end: report.end.map(|end| EndClaim { totals: end.totals }),
            };
            if options.fault == Some(Fault::CaptureOwnRow) {
                capture_own_row(&after, report.landing, reply)
            } else {
                reply
            }
        }
        Err(illegal) => Reply::Illegal {
            reason: illegal.reason.code().to_owned(),
        },
    }
}

/// The answer to `best`, from the solved tables if the engine has them.
fn best(position: &Position, profile: Profile, perfect: Option<&crate::solve::Perfect>) -> Reply {
    match perfect {
        Some(perfect) => match perfect.best(position, profile) {
            Ok((pit, margin)) => Reply::Best { pit, margin },
            Err(message) => Reply::Error { message },
        },
        None => Reply::Error {
            message: "this engine plays no moves of its own: start it with `kpe engine --perfect`"
                .to_owned(),
        },
    }
}

/// The `no-read` fault: answers `first`, then every later request, by
/// peeking at stdin with `tee(2)` and never consuming it, so the pipe
/// fills (it is shrunk to one page first) and the checker's writes block.
#[cfg(target_os = "linux")]
fn peek_forever(
    first: Request,
    agreed: &mut Agreed,
    options: ServeOptions,
    output: &mut impl Write,
) -> io::Result<()> {
    use std::io::Read as _;
    use std::os::fd::AsFd as _;
    let stdin = io::stdin();
    let fd = stdin.as_fd();
    let _ = rustix::pipe::fcntl_setpipe_size(fd, 4096);
    let (peeked, copy) = rustix::pipe::pipe()?;
    let mut peeked = std::fs::File::from(peeked);
    let mut answered = 0usize;
    let mut first = Some(first);
    loop {
        let requests = match first.take() {
            Some(request) => vec![request],
            None => {
                // Everything in the pipe, from the start: it is never consumed.
                let n = rustix::pipe::tee(fd, &copy, 1 << 16, rustix::pipe::SpliceFlags::empty())?;
                let mut bytes = vec![0; n];
                peeked.read_exact(&mut bytes)?;
                let fresh = bytes.get(answered..).unwrap_or_default();
                let Some(end) = memchr::memrchr(b'\n', fresh) else {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    continue;
                };
                answered += end + 1;
                fresh[..end]
                    .split(|&b| b == b'\n')
                    .filter_map(|line| serde_json::from_slice(line).ok())
                    .collect()
            }
        };
        for request in requests {
            let Some(reply) = answer(request, agreed, options, None) else {
                return Ok(());
            };
            send(output, &reply)?;
        }
    }
}

/// The `no-read` fault where `tee(2)` is missing: never read, never answer.
#[cfg(not(target_os = "linux"))]
fn peek_forever(
    _: Request,
    _: &mut Agreed,
    _: ServeOptions,
    output: &mut impl Write,
) -> io::Result<()> {
    misbehave(Some(Fault::Hang), output)
}

fn send(output: &mut impl Write, reply: &Reply) -> io::Result<()> {
    let line = serde_json::to_string(reply).map_err(io::Error::other)?;
    output.write_all(line.as_bytes())?;
    output.write_all(b"\n")?;
    output.flush()
}

fn misbehave(fault: Option<Fault>, output: &mut impl Write) -> io::Result<()> {
    match fault {
        Some(Fault::Crash) => std::process::abort(),
        Some(Fault::Exit) => std::process::exit(0),
        Some(Fault::Hang) => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
        Some(Fault::Garbage) => {
            output.write_all(b"legal moves: S1 S2 S3 S4\n")?;
            output.flush()
        }
        Some(Fault::HugeLine) => {
            let line = vec![b'['; 2 << 20];
            output.write_all(&line)?;
            output.write_all(b"\n")?;
            output.flush()
        }
        Some(Fault::Detach) => {
            detach()?;
            misbehave(Some(Fault::Hang), output)
        }
        Some(Fault::Slow) => {
            std::thread::sleep(SLOW_DELAY);
            Ok(())
        }
        Some(Fault::Spin) => {
            let mut n = 0u64;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
        Some(Fault::StderrFlood) => {
            let chunk = [b'!'; 8192];
            let mut stderr = io::stderr().lock();
            loop {
                stderr.write_all(&chunk)?;
            }
        }
        _ => Ok(()),
    }
}

/// The `stop-once` fault: at the first start in the working directory,
/// writes the process id to [`STOPPED_MARK`] and stops the process until
/// something continues it.
fn stop_once() -> io::Result<()> {
    let Ok(mut mark) = std::fs::File::create_new(STOPPED_MARK) else {
        return Ok(());
    };
    mark.write_all(std::process::id().to_string().as_bytes())?;
    drop(mark);
    #[cfg(unix)]
    rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::STOP)?;
    Ok(())
}

/// The `detach` fault: a `sleep` that leaves the engine's process group
/// (and, with `setsid(1)`, its session) but keeps its stdout and stderr.
fn detach() -> io::Result<()> {
    use std::process::{Command, Stdio};
    let started = Command::new("setsid")
        .args(["sleep", "3600"])
        .stdin(Stdio::null())
        .spawn();
    let started = match started {
        Ok(child) => Ok(child),
        Err(_) => {
            let mut command = Command::new("sleep");
            command.arg("3600").stdin(Stdio::null());
            #[cfg(unix)]
            std::os::unix::process::CommandExt::process_group(&mut command, 0);
            command.spawn()
        }
    };
    // Not waited for: it is meant to outlive the engine.
    started.map(drop)
}

/// The `capture-own-row` bug: after the move, a landing pit in the mover's
/// own row holding 2 or 4 is captured too.
fn capture_own_row(after: &Position, landing: crate::Pit, reply: Reply) -> Reply {
    let Reply::Played {
        position,
        mut captures,
        end,
    } = reply
    else {
        return reply;
    };
    let mover: Player = after.to_move().opponent();
    let stones = after.stones(landing);
    if landing.owner() != mover || !matches!(stones, 2 | 4) || !after.lock_open(mover) {
        return Reply::Played {
            position,
            captures,
            end,
        };
    }
    let mut setup = after.to_setup();
    setup.pits[landing.index()] = 0;
    setup.captured[mover.index()] += u32::from(stones);
    captures.push(Capture {
        pit: landing,
        stones,
    });
    let position = Position::from_setup(&setup).map_or(position, |p| p.to_string());
    Reply::Played {
        position,
        captures,
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `kpe engine`'s answers to `requests`, one line each.
    fn served(requests: &[&str], options: ServeOptions) -> Vec<serde_json::Value> {
        let input = requests.join("\n") + "\n";
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out, options).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The hello's `versions` (issue 42): the newest kpe speaks is
    /// answered; without them, `protocol` is.
    #[test]
    fn the_hello_answers_the_newest_version_offered() {
        let protocol =
            |hello: &str| served(&[hello], ServeOptions::default())[0]["protocol"].clone();
        assert_eq!(
            protocol(r#"{"type":"hello","protocol":2,"versions":[1,2],"profile":"default"}"#),
            2
        );
        assert_eq!(
            protocol(r#"{"type":"hello","protocol":2,"versions":[1],"profile":"default"}"#),
            1
        );
        assert_eq!(
            protocol(r#"{"type":"hello","protocol":9,"versions":[1,2,9],"profile":"default"}"#),
            2
        );
        assert_eq!(
            protocol(r#"{"type":"hello","protocol":1,"profile":"default"}"#),
            1
        );
    }

    /// `--protocol 1 --refuse-newer` answers `error` to any hello but
    /// version 1's as published, then serves as version 1.
    #[test]
    fn refuse_newer_takes_only_its_versions_hello_as_published() {
        let options = ServeOptions {
            protocol: Some(1),
            refuse_newer: true,
            ..ServeOptions::default()
        };
        for hello in [
            r#"{"type":"hello","protocol":2,"versions":[1,2],"profile":"default"}"#,
            r#"{"type":"hello","protocol":2,"profile":"default"}"#,
            r#"{"type":"hello","protocol":1,"versions":[1],"profile":"default"}"#,
        ] {
            assert_eq!(served(&[hello], options)[0]["type"], "error", "{hello}");
        }
        let replies = served(
            &[r#"{"type":"hello","protocol":1,"profile":"default"}"#],
            options,
        );
        assert_eq!(replies[0]["type"], "hello");
        assert_eq!(replies[0]["protocol"], 1);
    }

    /// Version 1 counts perft under `end-on-repetition` without the
    /// repetition rule, or with it under `--perft-repetition`: 138 and 132
    /// at depth 9 of the suite's chase endgame.
    #[test]
    fn version_1_counts_perft_either_way() {
        let profile = Profile::DEFAULT
            .set(crate::profile::Switch::EndOnRepetition, true)
            .to_string();
        let hello = format!(r#"{{"type":"hello","protocol":1,"profile":"{profile}"}}"#);
        let perft = r#"{"type":"perft","position":"1,0,0,1/1,1,0,0 N 20/24 1234/1234","depth":9}"#;
        let count = |perft_repetition| {
            let options = ServeOptions {
                protocol: Some(1),
                perft_repetition,
                ..ServeOptions::default()
            };
            served(&[&hello, perft], options)[1]["nodes"].clone()
        };
        assert_eq!(count(false), 138);
        assert_eq!(count(true), 132);
    }
}
