//! The reference rules as an engine: the protocol's server side, behind
//! `kpe engine`.

use std::io::{self, BufRead, Write};
use std::str::FromStr;

use crate::board::Player;
use crate::perft::perft;
use crate::position::Position;
use crate::profile::Profile;
use crate::protocol::{EndClaim, PROTOCOL_VERSION, Reply, Request};
use crate::report::Capture;
use crate::rules::{self, legal_moves};

/// How `kpe engine` should play.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServeOptions {
    /// Play this profile whatever the hello asks (to see how kpe-check
    /// diagnoses an engine that follows another reading). `None` follows
    /// the hello.
    pub rules: Option<Profile>,
    /// Misbehave on purpose, for testing kpe-check without other programs.
    pub fault: Option<Fault>,
    /// Answer `legal` and `play` with a seeded rules bug (`kpe engine --bug`).
    pub bug: Option<super::bugs::Bug>,
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
    /// Answer each request twice.
    ExtraLine,
    /// Say protocol version 2 in the hello.
    WrongProtocol,
    /// A rules bug no reading explains: capture a 2 or 4 in the mover's own
    /// row when the last stone lands there (breaks CAP-3).
    CaptureOwnRow,
}

impl Fault {
    /// Every fault with its name.
    pub const ALL: [(&'static str, Fault); 9] = [
        ("crash", Fault::Crash),
        ("exit", Fault::Exit),
        ("hang", Fault::Hang),
        ("garbage", Fault::Garbage),
        ("huge-line", Fault::HugeLine),
        ("stderr-flood", Fault::StderrFlood),
        ("extra-line", Fault::ExtraLine),
        ("wrong-protocol", Fault::WrongProtocol),
        ("capture-own-row", Fault::CaptureOwnRow),
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
pub fn serve(input: impl BufRead, mut output: impl Write, options: ServeOptions) -> io::Result<()> {
    let mut profile = options.rules.unwrap_or_default();
    let mut bugged = options.bug.map(super::bugs::Session::new);
    for line in input.lines() {
        let line = line?;
        let request = match serde_json::from_str::<Request>(&line) {
            Ok(request) => request,
            Err(e) => {
                let reply = Reply::Error {
                    message: format!("cannot read the request: {e}"),
                };
                send(&mut output, &reply)?;
                continue;
            }
        };
        if !matches!(request, Request::Hello { .. }) {
            misbehave(options.fault, &mut output)?;
        }
        if let Some(session) = bugged.as_mut()
            && let Some(reply) = session.answer(&request, profile)
        {
            send(&mut output, &reply)?;
            continue;
        }
        let reply = match request {
            Request::Hello { profile: asked, .. } => {
                profile = options.rules.unwrap_or(asked);
                let protocol = if options.fault == Some(Fault::WrongProtocol) {
                    PROTOCOL_VERSION + 1
                } else {
                    PROTOCOL_VERSION
                };
                Reply::Hello {
                    protocol,
                    name: "kpe".to_owned(),
                    version: env!("CARGO_PKG_VERSION").to_owned(),
                    perft: true,
                }
            }
            Request::Legal { position } => Reply::Legal {
                moves: legal_moves(&position, profile).to_vec(),
            },
            Request::Play { position, pit } => match rules::play(&position, pit, profile) {
                Ok((after, report)) => {
                    let mut reply = Reply::Played {
                        position: after.to_string(),
                        captures: report.captures.to_vec(),
                        end: report.end.map(|end| EndClaim { totals: end.totals }),
                    };
                    if options.fault == Some(Fault::CaptureOwnRow) {
                        reply = capture_own_row(&after, report.landing, reply);
                    }
                    reply
                }
                Err(illegal) => Reply::Illegal {
                    reason: illegal.reason.code().to_owned(),
                },
            },
            Request::Perft { position, depth } => Reply::Perft {
                nodes: perft(&position, depth, profile),
            },
            Request::Quit {} => return Ok(()),
        };
        if options.fault == Some(Fault::ExtraLine) {
            // Both lines in one write, so they arrive together.
            let line = serde_json::to_string(&reply).map_err(io::Error::other)?;
            output.write_all(format!("{line}\n{line}\n").as_bytes())?;
            output.flush()?;
        } else {
            send(&mut output, &reply)?;
        }
    }
    Ok(())
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
