//! Reading an engine's reply line: the two replies of a game, `legal` and
//! `played`, written as serde writes them (no spaces, fields in their
//! order, nothing escaped), straight from the bytes; anything else by
//! serde, which says what is wrong. Either way the reply is the one serde
//! reads (a property test checks it): this only spares the checker serde's
//! buffering of a tagged enum, most of its own time on a request.

use crate::board::Pit;
use crate::protocol::{EndClaim, Reply};
use crate::report::Capture;

/// The reply on `line`, as `serde_json::from_str` reads it: how kpe-check
/// reads an engine's reply lines.
///
/// # Errors
///
/// serde's, when the line is not a reply.
pub fn read_reply(line: &str) -> serde_json::Result<Reply> {
    match quick(line.as_bytes()) {
        Some(reply) => Ok(reply),
        None => serde_json::from_str(line),
    }
}

/// A cursor over a reply's bytes: each step `None` when the bytes are not
/// as serde writes them.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    /// Passes `text`, if it comes next.
    fn literal(&mut self, text: &[u8]) -> Option<()> {
        let end = self.at + text.len();
        (self.bytes.get(self.at..end)? == text).then(|| self.at = end)
    }

    /// Whether `text` comes next (passed if so).
    fn next_is(&mut self, text: &[u8]) -> bool {
        self.literal(text).is_some()
    }

    /// A pit name in quotes: `"S1"` to `"N4"`.
    fn pit(&mut self) -> Option<Pit> {
        let [b'"', side, digit, b'"'] = *self.bytes.get(self.at..self.at + 4)? else {
            return None;
        };
        let pit = Pit::from_name_bytes(side, digit)?;
        self.at += 4;
        Some(pit)
    }

    /// A number of one to three digits, without a leading zero, that fits
    /// a `u8`.
    fn small(&mut self) -> Option<u8> {
        let digits = self.bytes[self.at..]
            .iter()
            .take(4)
            .take_while(|b| b.is_ascii_digit())
            .count();
        let text = &self.bytes[self.at..self.at + digits];
        if digits == 0 || digits > 3 || (digits > 1 && text[0] == b'0') {
            return None;
        }
        let n = text.iter().fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'));
        self.at += digits;
        u8::try_from(n).ok()
    }

    /// A string with nothing escaped in it, in quotes.
    fn plain_string(&mut self) -> Option<String> {
        self.literal(b"\"")?;
        let rest = &self.bytes[self.at..];
        let end = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if rest[end] != b'"' {
            return None;
        }
        let text = std::str::from_utf8(&rest[..end]).ok()?.to_owned();
        self.at += end + 1;
        Some(text)
    }

    /// Items read by `item`, in brackets, separated by commas.
    fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        self.literal(b"[")?;
        let mut items = Vec::new();
        if self.next_is(b"]") {
            return Some(items);
        }
        loop {
            items.push(item(self)?);
            if self.next_is(b"]") {
                return Some(items);
            }
            self.literal(b",")?;
        }
    }

    fn capture(&mut self) -> Option<Capture> {
        self.literal(b"{\"pit\":")?;
        let pit = self.pit()?;
        self.literal(b",\"stones\":")?;
        let stones = self.small()?;
        self.literal(b"}")?;
        Some(Capture { pit, stones })
    }

    /// The bytes are over.
    fn end(&self) -> Option<()> {
        (self.at == self.bytes.len()).then_some(())
    }
}

/// A `legal` or `played` reply as serde writes it; `None` for anything
/// else.
fn quick(bytes: &[u8]) -> Option<Reply> {
    let mut c = Cursor { bytes, at: 0 };
    if c.next_is(br#"{"type":"legal","moves":"#) {
        let moves = c.list(Cursor::pit)?;
        c.literal(b"}")?;
        c.end()?;
        return Some(Reply::Legal { moves });
    }
    c.literal(br#"{"type":"played","position":"#)?;
    let position = c.plain_string()?;
    c.literal(br#","captures":"#)?;
    let captures = c.list(Cursor::capture)?;
    let end = if c.next_is(br#","end":{"totals":["#) {
        let south = c.small()?;
        c.literal(b",")?;
        let north = c.small()?;
        c.literal(b"]}")?;
        Some(EndClaim {
            totals: [south, north],
        })
    } else {
        None
    };
    c.literal(b"}")?;
    c.end()?;
    Some(Reply::Played {
        position,
        captures,
        end,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::testing::{edited, edits};

    /// Replies of the two kinds read here, and others.
    fn replies() -> impl Strategy<Value = Reply> {
        let pit = (0..8usize).prop_map(|k| Pit::ALL[k]);
        let capture = (pit.clone(), any::<u8>()).prop_map(|(pit, stones)| Capture { pit, stones });
        let position = prop_oneof![
            Just("6,6,6,6/6,6,6,6 S 0/0 ----/----".to_owned()),
            "[ -~]{0,40}",
            "\\PC{0,12}",
        ];
        let end = proptest::option::of(any::<[u8; 2]>().prop_map(|totals| EndClaim { totals }));
        prop_oneof![
            proptest::collection::vec(pit, 0..6).prop_map(|moves| Reply::Legal { moves }),
            (position, proptest::collection::vec(capture, 0..4), end).prop_map(
                |(position, captures, end)| Reply::Played {
                    position,
                    captures,
                    end
                }
            ),
            Just(Reply::Perft { nodes: 20 }),
            Just(Reply::Illegal {
                reason: "empty-pit".to_owned()
            }),
        ]
    }

    /// The outcome of a read, comparable: the reply, or that there was
    /// none (serde's error message is its own either way).
    fn read(line: &str) -> Option<Reply> {
        read_reply(line).ok()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn replies_are_read_as_serde_reads_them(reply in replies(), edits in edits()) {
            let line = serde_json::to_string(&reply).expect("a reply serialises");
            prop_assert_eq!(read(&line), Some(reply.clone()));
            // Written as serde writes it, the two replies of a game are
            // read here.
            if matches!(reply, Reply::Legal { .. } | Reply::Played { .. })
                && !line.contains('\\')
            {
                prop_assert_eq!(quick(line.as_bytes()), Some(reply));
            }
            // Edited anyhow: read as serde reads it, or refused as serde
            // refuses it.
            let edited = String::from_utf8_lossy(&edited(line.into_bytes(), &edits)).into_owned();
            let serde: Option<Reply> = serde_json::from_str(&edited).ok();
            prop_assert_eq!(read(&edited), serde);
        }
    }

    #[test]
    fn anything_unusual_is_left_to_serde() {
        for line in [
            r#"{"type":"legal","moves":["S1","S2"]}"#,
            r#"{"type":"legal","moves":[]}"#,
            r#"{"type":"played","position":"0,7,7,7/7,7,7,6 N 0/0 1---/----","captures":[]}"#,
            r#"{"type":"played","position":"p","captures":[{"pit":"N3","stones":2}],"end":{"totals":[30,18]}}"#,
        ] {
            assert!(quick(line.as_bytes()).is_some(), "{line}");
            assert_eq!(read(line), serde_json::from_str(line).ok(), "{line}");
        }
        for line in [
            // Spaces, another order, an escape, a field more or null.
            r#"{"type": "legal", "moves": ["S1"]}"#,
            r#"{"moves":["S1"],"type":"legal"}"#,
            r#"{"type":"played","position":"a\"b","captures":[]}"#,
            r#"{"type":"played","position":"p","captures":[],"end":null}"#,
            r#"{"type":"legal","moves":["S1"],"extra":1}"#,
            // Numbers serde reads otherwise or refuses.
            r#"{"type":"played","position":"p","captures":[{"pit":"N3","stones":02}]}"#,
            r#"{"type":"played","position":"p","captures":[{"pit":"N3","stones":256}]}"#,
            r#"{"type":"played","position":"p","captures":[{"pit":"N3","stones":2.0}]}"#,
            // Pits that are none, trailing bytes.
            r#"{"type":"legal","moves":["S5"]}"#,
            r#"{"type":"legal","moves":["s1"]}"#,
            r#"{"type":"legal","moves":["S1"]} "#,
            r#"{"type":"legal","moves":["S1",]}"#,
        ] {
            assert!(quick(line.as_bytes()).is_none(), "{line}");
            assert_eq!(read(line), serde_json::from_str(line).ok(), "{line}");
        }
    }
}
