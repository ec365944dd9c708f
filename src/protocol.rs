//! The kpe engine protocol, version 2 (version 1 still read): JSON lines between `kpe-check` and an
//! engine's standard input and output (specified in `spec/PROTOCOL.md`, with
//! a JSON Schema generated from these types in `spec/protocol.schema.json`).
//!
//! `kpe-check` writes one [`Request`] per line; the engine answers each with
//! exactly one [`Reply`] line and prints nothing else on stdout. Requests are
//! stateless: each carries the whole position in kpe notation, so an engine
//! needs no game state. Both directions are tagged by a `type` field, and
//! unknown fields are refused so that typos show up at once.
//!
//! ```
//! use kpe::protocol::{Reply, Request};
//! use kpe::{Pit, Position};
//!
//! let request = Request::Play { position: Position::initial(), pit: "S1".parse::<Pit>()? };
//! assert_eq!(
//!     serde_json::to_string(&request)?,
//!     r#"{"type":"play","position":"6,6,6,6/6,6,6,6 S 0/0 ----/----","move":"S1"}"#
//! );
//! let reply: Reply =
//!     serde_json::from_str(r#"{"type":"played","position":"0,7,7,7/7,7,7,6 N 0/0 1---/----","captures":[]}"#)?;
//! assert!(matches!(reply, Reply::Played { end: None, .. }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::board::Pit;
use crate::position::Position;
use crate::profile::Profile;
use crate::report::Capture;
use crate::rules::Reason;

/// The newest protocol version, the one kpe-check asks for in its hello.
///
/// Version 2 gave `perft` under `end-on-repetition` its meaning: a
/// position that recurs along a sequence ends the game there. Version 1
/// said nothing of repetition, and engines written to it count perft as
/// if no repetition rule applied. An engine answers the hello with the
/// version it speaks, [`OLDEST_PROTOCOL`] to this one, and is checked by
/// that version's meaning ([`perft_profile`]).
pub const PROTOCOL_VERSION: u32 = 2;

/// The oldest protocol version kpe-check still checks engines by.
pub const OLDEST_PROTOCOL: u32 = 1;

/// Every protocol version kpe-check speaks, oldest first: the hello's
/// `versions`.
#[must_use]
pub fn spoken() -> Vec<u32> {
    (OLDEST_PROTOCOL..=PROTOCOL_VERSION).collect()
}

/// A hello kpe-check sends (spec/PROTOCOL.md, "Versions"): first
/// [`Offer::Every`]; to an engine that refused it, on a fresh process,
/// each version's hello as that version published it, newest first
/// ([`Offer::ladder`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Offer {
    /// `protocol` the newest version, `versions` every version spoken.
    Every,
    /// The hello of this version as it was published: `protocol` the
    /// version, and no `versions` (which no version's hello had when it
    /// was published, and which an engine that refuses unknown fields, as
    /// versions 1 and 2 asked, answers with `error`).
    AsPublished(u32),
}

impl Offer {
    /// The hellos in the order they are tried: [`Offer::Every`], then each
    /// version's as published, from [`PROTOCOL_VERSION`] down to
    /// [`OLDEST_PROTOCOL`].
    #[must_use]
    pub fn ladder() -> Vec<Offer> {
        std::iter::once(Offer::Every)
            .chain(
                (OLDEST_PROTOCOL..=PROTOCOL_VERSION)
                    .rev()
                    .map(Offer::AsPublished),
            )
            .collect()
    }

    /// The hello request for `profile`.
    #[must_use]
    pub fn hello(self, profile: Profile) -> Request {
        match self {
            Offer::Every => Request::Hello {
                protocol: PROTOCOL_VERSION,
                versions: spoken(),
                profile,
            },
            Offer::AsPublished(version) => Request::Hello {
                protocol: version,
                versions: Vec::new(),
                profile,
            },
        }
    }
}

impl std::fmt::Display for Offer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Offer::Every => {
                let all: Vec<String> = spoken().iter().map(u32::to_string).collect();
                write!(f, "the hello offering versions {}", all.join(", "))
            }
            Offer::AsPublished(v) => write!(f, "version {v}'s hello as published"),
        }
    }
}

/// The rules profiles under which a `perft` answer of an engine speaking
/// `protocol` is right, the first being the one its divergences are
/// reported by. From version 2 on, `profile` alone. Version 1's text said,
/// as first published (2026-11-30), that an engine claiming
/// `end-on-repetition` answers every request as one that does not; from
/// 2026-12-01 it said that under `end-on-repetition` a repetition along a
/// sequence ends the game there; version 2 then took that meaning, and
/// version 1 was restated as the first. Both were version 1 as published,
/// so an engine of version 1 may count either way: `profile` without
/// `end-on-repetition`, and `profile` itself.
#[must_use]
pub fn perft_profiles(protocol: u32, profile: Profile) -> Vec<Profile> {
    let first = perft_profile(protocol, profile);
    if first == profile {
        vec![profile]
    } else {
        vec![first, profile]
    }
}

/// The rules profile by which `kpe engine --protocol N` counts `perft`:
/// `profile` itself from version 2 on; under version 1, `profile` without
/// `end-on-repetition`, as version 1's text first said (the first of
/// [`perft_profiles`], by which kpe-check reports a version 1 count that
/// is neither). Every other request means the same in both.
#[must_use]
pub fn perft_profile(protocol: u32, profile: Profile) -> Profile {
    if protocol < 2 {
        profile.set(crate::profile::Switch::EndOnRepetition, false)
    } else {
        profile
    }
}

/// A line `kpe-check` sends to the engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Request {
    /// The first request: says which protocol version and rules profile the
    /// checker expects. The engine answers [`Reply::Hello`].
    Hello {
        /// The newest version the checker speaks ([`PROTOCOL_VERSION`]),
        /// or, in a hello sent as an older version published it
        /// ([`Offer::AsPublished`]), that version.
        protocol: u32,
        /// Every version the checker speaks, oldest first ([`spoken`]):
        /// the engine answers with one of them. Absent from a hello sent
        /// as a version published it; an engine may ignore it.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        versions: Vec<u32>,
        /// The rules profile the engine's manifest claims. An engine that
        /// implements a single reading may ignore it.
        profile: Profile,
    },
    /// What are the legal moves in this position? Answered by
    /// [`Reply::Legal`].
    Legal {
        /// The position, in kpe notation.
        position: Position,
    },
    /// Play this move in this position. Answered by [`Reply::Played`] or,
    /// when the rules refuse the move, [`Reply::Illegal`].
    Play {
        /// The position before the move, in kpe notation.
        position: Position,
        /// The pit to move from.
        #[serde(rename = "move")]
        pit: Pit,
    },
    /// Count the move sequences of exactly `depth` moves from this position.
    /// Sent only to engines whose hello says `"perft": true`; answered by
    /// [`Reply::Perft`].
    Perft {
        /// The root position, in kpe notation.
        position: Position,
        /// How many plies deep to count (at least 1).
        depth: u32,
    },
    /// Which move would you play here? Optional: an engine that plays no
    /// moves of its own (a rules engine) answers [`Reply::Error`]; `kpe
    /// engine --perfect` answers [`Reply::Best`] with a move of perfect
    /// play. kpe-check never sends it.
    Best {
        /// The position, in kpe notation.
        position: Position,
    },
    /// The session is over: the engine exits with status 0 and answers
    /// nothing.
    Quit {},
}

impl Request {
    /// The request's `type` tag, e.g. `play`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Request::Hello { .. } => "hello",
            Request::Legal { .. } => "legal",
            Request::Play { .. } => "play",
            Request::Perft { .. } => "perft",
            Request::Best { .. } => "best",
            Request::Quit {} => "quit",
        }
    }

    /// The reply types that may answer this request, besides `error`.
    #[must_use]
    pub fn expected_replies(&self) -> &'static [&'static str] {
        match self {
            Request::Hello { .. } => &["hello"],
            Request::Legal { .. } => &["legal"],
            Request::Play { .. } => &["played", "illegal"],
            Request::Perft { .. } => &["perft"],
            Request::Best { .. } => &["best"],
            Request::Quit {} => &[],
        }
    }
}

/// A line the engine sends back: exactly one for each request but `quit`.
///
/// Positions in replies are kept as text: they come from outside and are
/// validated by the checker, which reports an unreadable or impossible
/// position as a divergence rather than a protocol error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Reply {
    /// The answer to [`Request::Hello`]: who the engine is and what it does.
    Hello {
        /// The version the engine speaks: from [`OLDEST_PROTOCOL`] to the
        /// request's `protocol`.
        protocol: u32,
        /// The engine's name, for reports.
        name: String,
        /// The engine's version, for reports.
        version: String,
        /// Whether the engine answers [`Request::Perft`]; `false` if absent.
        #[serde(default)]
        perft: bool,
        /// The rules profiles the engine plays. This certifies nothing by
        /// itself: kpe-check checks the profiles the manifest or
        /// `--profiles` request, and skips the units of a requested
        /// profile not listed here (the run then does not conform).
        /// Absent: the engine plays the profile of the request.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        profiles: Option<Vec<Profile>>,
    },
    /// The legal moves of the position, in any order; an empty list means
    /// the game is over.
    Legal {
        /// The legal moves, as pit names.
        moves: Vec<Pit>,
    },
    /// The move was played.
    Played {
        /// The position after the move, in kpe notation, before any
        /// end-of-game sweep (board plus captured stays 48).
        #[schemars(with = "Position")]
        position: String,
        /// The pits the move captured, in the order taken: the landing pit
        /// first, then backward along the chain. Empty when nothing was
        /// captured.
        captures: Vec<Capture>,
        /// Set when the game is over after the move; absent or `null`
        /// otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end: Option<EndClaim>,
    },
    /// The rules refuse the move.
    Illegal {
        /// Why: `not-own-pit`, `empty-pit`, `feeding-required` or
        /// `game-over`.
        #[schemars(with = "Reason")]
        reason: String,
    },
    /// The answer to [`Request::Perft`].
    Perft {
        /// The number of move sequences of exactly the requested depth.
        nodes: u64,
    },
    /// The answer to [`Request::Best`]: the move the engine plays.
    Best {
        /// The move, a pit of the player to move.
        #[serde(rename = "move")]
        pit: Pit,
        /// The margin the engine expects from here on for the player to
        /// move (captures to come and the sweep), when it knows it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        margin: Option<i8>,
    },
    /// The engine could not handle the request (for example a position it
    /// cannot read). The checker reports it as a failure of that request.
    Error {
        /// What went wrong, for people.
        message: String,
    },
}

impl Reply {
    /// The reply's `type` tag, e.g. `played`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Reply::Hello { .. } => "hello",
            Reply::Legal { .. } => "legal",
            Reply::Played { .. } => "played",
            Reply::Illegal { .. } => "illegal",
            Reply::Perft { .. } => "perft",
            Reply::Best { .. } => "best",
            Reply::Error { .. } => "error",
        }
    }
}

/// The end of the game, as an engine reports it after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EndClaim {
    /// Final totals after the sweep, South then North: captured stones plus
    /// the stones left in the player's own row (END-2, RES-1).
    pub totals: [u8; 2],
}

/// The reason code in an `illegal` reply, read back into a [`Reason`].
///
/// # Errors
///
/// Returns the list of valid codes when `code` is not one of them.
pub fn parse_reason(code: &str) -> Result<Reason, String> {
    Reason::ALL
        .into_iter()
        .find(|r| r.code() == code)
        .ok_or_else(|| {
            format!(
                "unknown reason code `{}`: expected one of {}",
                code.escape_debug(),
                Reason::ALL.map(Reason::code).join(", ")
            )
        })
}

/// One line of the protocol, in either direction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
#[schemars(
    title = "kpe engine protocol, version 2: one line",
    description = "One JSON object per line: a `Request` from kpe-check to the engine's stdin, or a `Reply` the engine writes on stdout, exactly one per request except `quit`. See spec/PROTOCOL.md."
)]
#[schemars(extend("$id" = "urn:kpe:schema:protocol:2"))]
pub enum Line {
    /// A line sent to the engine.
    Request(Request),
    /// A line the engine sends back.
    Reply(Reply),
}

/// The JSON Schema of one protocol line (a request or a reply), as
/// committed in `spec/protocol.schema.json`.
#[must_use]
pub fn schema() -> schemars::Schema {
    schemars::schema_for!(Line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_and_refuse_unknown_fields() {
        // A profile is written relative to the default: one setting away
        // from it, whatever it is.
        let other = Profile::DEFAULT.flipped(crate::profile::Switch::SkipOrigin);
        let hello = format!(r#"{{"type":"hello","protocol":1,"profile":"{other}"}}"#);
        for line in [
            hello.as_str(),
            r#"{"type":"legal","position":"6,6,6,6/6,6,6,6 S 0/0 ----/----"}"#,
            r#"{"type":"perft","position":"6,6,6,6/6,6,6,6 S 0/0 ----/----","depth":3}"#,
            r#"{"type":"best","position":"6,6,6,6/6,6,6,6 S 0/0 ----/----"}"#,
            r#"{"type":"quit"}"#,
        ] {
            let request: Request = serde_json::from_str(line).unwrap();
            assert_eq!(serde_json::to_string(&request).unwrap(), line);
        }
        let err = serde_json::from_str::<Request>(r#"{"type":"quit","now":true}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field"), "{err}");
    }

    #[test]
    fn replies_refuse_unknown_fields_and_types() {
        let err = serde_json::from_str::<Reply>(r#"{"type":"legal","moves":[],"x":1}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `x`"), "{err}");
        let err = serde_json::from_str::<Reply>(r#"{"type":"moves","moves":[]}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown variant `moves`"), "{err}");
        let err = serde_json::from_str::<Reply>(r#"{"type":"legal","moves":["X9"]}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("X9"), "{err}");
        let hello: Reply =
            serde_json::from_str(r#"{"type":"hello","protocol":1,"name":"a","version":"1"}"#)
                .unwrap();
        assert!(matches!(hello, Reply::Hello { perft: false, .. }));
    }

    /// Issue 42: the hellos kpe-check tries, in order: every version
    /// offered, then each version's as published, byte for byte.
    #[test]
    fn the_hellos_offer_every_version_then_each_as_published() {
        let profile = Profile::DEFAULT;
        let lines: Vec<String> = Offer::ladder()
            .iter()
            .map(|o| serde_json::to_string(&o.hello(profile)).unwrap())
            .collect();
        assert_eq!(
            lines,
            [
                format!(
                    r#"{{"type":"hello","protocol":2,"versions":[1,2],"profile":"{profile}"}}"#
                ),
                format!(r#"{{"type":"hello","protocol":2,"profile":"{profile}"}}"#),
                format!(r#"{{"type":"hello","protocol":1,"profile":"{profile}"}}"#),
            ]
        );
        // A hello without `versions` reads back as one with none.
        let read: Request = serde_json::from_str(&lines[2]).unwrap();
        assert_eq!(read, Offer::AsPublished(1).hello(profile));
    }

    /// Issue 42: version 1's perft under `end-on-repetition` is right
    /// without the repetition rule (first) or with it; elsewhere, and from
    /// version 2 on, one profile.
    #[test]
    fn version_1_perft_is_right_either_way_under_end_on_repetition() {
        use crate::profile::Switch::EndOnRepetition;
        let with = Profile::DEFAULT.set(EndOnRepetition, true);
        let without = with.set(EndOnRepetition, false);
        assert_eq!(perft_profiles(1, with), [without, with]);
        assert_eq!(perft_profiles(2, with), [with]);
        assert_eq!(perft_profiles(1, without), [without]);
        assert_eq!(perft_profiles(2, without), [without]);
    }

    #[test]
    fn reason_codes_read_back() {
        for reason in Reason::ALL {
            assert_eq!(parse_reason(reason.code()), Ok(reason));
        }
        assert!(parse_reason("nope").unwrap_err().contains("empty-pit"));
    }
}
