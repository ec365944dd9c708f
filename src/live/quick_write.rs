//! Writing protocol lines by hand, byte for byte as serde writes them: the
//! two requests of a game (`legal`, `play`) straight from the position's
//! notation, and a question with its answer as the spool keeps them (a
//! request and the reply that gave the answer), with serde escaping only a
//! string that needs it. Property tests check both against serde: this only
//! spares the checker serde's buffering of tagged enums and its escaping of
//! text that needs none, which cost more than the rest of a request.

use std::fmt::Write as _;

use crate::board::Pit;
use crate::judge::{Answer, Question};
use crate::protocol::Request;

/// Writes `request` into `out` (emptied first) as serde writes it: the two
/// requests of a game by hand (the notation needs no escaping), every other
/// one by serde.
pub(super) fn request_line(request: &Request, out: &mut String) {
    out.clear();
    push_request(request, out);
}

/// Appends `request` to `out` as serde writes it.
pub(super) fn push_request(request: &Request, out: &mut String) {
    let (position, pit) = match request {
        Request::Legal { position } => {
            out.push_str(r#"{"type":"legal","position":""#);
            (position, None)
        }
        Request::Play { position, pit } => {
            out.push_str(r#"{"type":"play","position":""#);
            (position, Some(pit))
        }
        other => {
            out.push_str(&serde_json::to_string(other).expect("requests serialise"));
            return;
        }
    };
    let _ = write!(out, "{position}");
    out.push('"');
    if let Some(pit) = pit {
        out.push_str(r#","move":"#);
        push_pit(out, *pit);
    }
    out.push('}');
}

/// Appends `question` and `answer` to `out` as serde writes the pair of
/// the request that asks the question and the reply that gives the answer:
/// `[{"type":"legal",...},{"type":"legal","moves":[...]}]`.
pub(super) fn push_fact(question: &Question, answer: &Answer, out: &mut String) {
    out.push('[');
    push_request(&question.request(), out);
    out.push(',');
    match answer {
        Answer::Legal(moves) => {
            out.push_str(r#"{"type":"legal","moves":["#);
            for (k, &pit) in moves.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                push_pit(out, pit);
            }
            out.push(']');
        }
        Answer::Played {
            position,
            captures,
            end,
        } => {
            out.push_str(r#"{"type":"played","position":"#);
            push_str(out, position);
            out.push_str(r#","captures":["#);
            for (k, capture) in captures.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push_str(r#"{"pit":"#);
                push_pit(out, capture.pit);
                let _ = write!(out, r#","stones":{}}}"#, capture.stones);
            }
            out.push(']');
            if let Some(end) = end {
                let [south, north] = end.totals;
                let _ = write!(out, r#","end":{{"totals":[{south},{north}]}}"#);
            }
        }
        Answer::Illegal(reason) => {
            out.push_str(r#"{"type":"illegal","reason":"#);
            push_str(out, reason);
        }
    }
    out.push_str("}]");
}

/// A pit's name in quotes.
fn push_pit(out: &mut String, pit: Pit) {
    out.push('"');
    out.push(pit.owner().letter());
    out.push(char::from(b'0' + pit.number()));
    out.push('"');
}

/// `text` as a JSON string: in quotes, escaped by serde if it needs it.
fn push_str(out: &mut String, text: &str) {
    if text.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        out.push_str(&serde_json::to_string(text).expect("strings serialise"));
    } else {
        out.push('"');
        out.push_str(text);
        out.push('"');
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::game::Game;
    use crate::live::spool::reply_of;
    use crate::position::Position;
    use crate::profile::Profile;
    use crate::protocol::EndClaim;
    use crate::report::Capture;
    use crate::testing::pick;

    /// The request lines written by hand are the ones serde writes, for
    /// every position of some random games and every kind of request.
    #[test]
    fn request_lines_are_the_ones_serde_writes() {
        let mut seed = 22;
        let mut line = String::from("left over");
        let mut requests = vec![Request::Quit {}];
        for _ in 0..10 {
            let mut game = Game::new(Position::initial(), Profile::DEFAULT);
            for _ in 0..150 {
                let position = *game.current();
                requests.push(Request::Legal { position });
                requests.extend(Pit::ALL.map(|pit| Request::Play { position, pit }));
                requests.push(Request::Perft { position, depth: 3 });
                let legal = game.legal_moves();
                if legal.is_empty() || game.play(pick(&mut seed, &legal)).is_err() {
                    break;
                }
            }
        }
        for request in &requests {
            request_line(request, &mut line);
            assert_eq!(line, serde_json::to_string(request).unwrap());
        }
    }

    fn questions() -> impl Strategy<Value = Question> {
        let pit = (0..8usize).prop_map(|k| Pit::ALL[k]);
        let position = (0..60usize).prop_map(|plies| {
            let mut game = Game::new(Position::initial(), Profile::DEFAULT);
            let mut seed = plies as u64 + 1;
            for _ in 0..plies {
                let legal = game.legal_moves();
                if legal.is_empty() || game.play(pick(&mut seed, &legal)).is_err() {
                    break;
                }
            }
            *game.current()
        });
        prop_oneof![
            position.clone().prop_map(Question::Legal),
            (position, pit).prop_map(|(p, pit)| Question::Play(p, pit)),
        ]
    }

    fn answers() -> impl Strategy<Value = Answer> {
        let pit = (0..8usize).prop_map(|k| Pit::ALL[k]);
        let capture = (pit.clone(), any::<u8>()).prop_map(|(pit, stones)| Capture { pit, stones });
        // Notation, any text, and text with what JSON escapes.
        let text = prop_oneof![
            Just("6,6,6,6/6,6,6,6 S 0/0 ----/----".to_owned()),
            "[ -~]{0,40}",
            "\\PC{0,12}",
            "[\"\\\\\u{0}-\u{1f}\u{7f}a\u{e9}]{0,8}",
        ];
        let end = proptest::option::of(any::<[u8; 2]>().prop_map(|totals| EndClaim { totals }));
        prop_oneof![
            proptest::collection::vec(pit, 0..10).prop_map(Answer::Legal),
            (text.clone(), proptest::collection::vec(capture, 0..4), end).prop_map(
                |(position, captures, end)| Answer::Played {
                    position,
                    captures,
                    end
                }
            ),
            text.prop_map(Answer::Illegal),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// A question and its answer are written as serde writes the pair
        /// of their request and reply, whatever the answer's text holds.
        #[test]
        fn facts_are_written_as_serde_writes_them(question in questions(), answer in answers()) {
            let mut out = String::from("kept ");
            push_fact(&question, &answer, &mut out);
            let serde = serde_json::to_string(&(question.request(), reply_of(&answer))).unwrap();
            prop_assert_eq!(out, format!("kept {serde}"));
        }
    }
}
