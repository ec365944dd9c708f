// Measured (issue 22, `benches/json-crates/`): no maintained JSON crate
// gives this. Reading the bench transcript into the format's types takes
// serde_json or sonic-rs 1.6-1.7x the time of kpe-check's whole check
// (this reader, the scan and the rules), plain or sorted keys; simd-json
// is slower still; a crate's read plus the rules, 4.1-5.2x. Against
// serde_json reading the file into `IgnoredAny` (`from_reader`), the whole
// check at `--jobs 1` is 1.38-1.44x the fastest floor any build gave,
// plain and sorted keys alike (2026-12-04, load 3.5-4.0; BENCHMARKS.md);
// against `from_slice` over the file in memory, 2.42-2.47x
// (`benches/json-crates`, the same day, load 1.4). The rules' own calls
// (`legal_moves` and `play` a ply) take 0.94x of `from_slice` alone, so
// the check comes within 1.5x of it only if reading and everything but
// the rules took 0.56x of `from_slice` (`check_speed`, BENCHMARKS.md).

//! Reading a game fast when it has the plain shape nearly every transcript
//! has: strings without escapes, numbers that are small integers, only the
//! fields the format defines, each once. Such a game is read here straight
//! from its bytes, with no allocation per ply; anything else (an escape, a
//! `null`, a duplicate or unknown field, a syntax error) makes this reader
//! give up, and the game is read again by serde, whose answer (a value or
//! an error with its place) is the one that counts.
//!
//! What this reader accepts it reads exactly as serde would: every value it
//! returns is the value serde gives for the same bytes. The
//! `quick_agrees_with_serde` property test checks that on mutated plies.

use crate::board::Pit;
use crate::position::Position;
use crate::report::Capture;

use super::handler::{GameHandler, GameRead, NoGame, Pass};
use super::scan::first_special;
use crate::transcript::{MAX_LISTED, Notation, Ply, notation_at};

/// Why the quick reader gave up: the game is for serde to read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Unsure;

type Quick<T> = Result<T, Unsure>;

/// Reads the game in `bytes` (exactly one JSON value) like the serde
/// reading `pass` would, giving its plies to `handler`.
///
/// # Errors
///
/// [`Unsure`] when the game is not of the plain shape; `handler` may have
/// been given some plies by then, and is given them again (after a new
/// [`GameHandler::begin`]) by the reading that follows.
pub(crate) fn game<H: GameHandler>(
    bytes: &[u8],
    pass: &Pass,
    handler: &mut H,
) -> Quick<Option<GameRead>> {
    let (read, len) = leading(bytes, pass, handler)?;
    let mut c = Cursor { bytes, at: len };
    c.ws();
    if c.at != bytes.len() {
        return Err(Unsure);
    }
    Ok(read)
}

/// [`game`] for the game `bytes` start with (more bytes may follow): what
/// it returns, and the game's length.
pub(crate) fn leading<H: GameHandler>(
    bytes: &[u8],
    pass: &Pass,
    handler: &mut H,
) -> Quick<(Option<GameRead>, usize)> {
    let mut c = Cursor { bytes, at: 0 };
    let mut ply = blank_ply();
    c.ws();
    c.byte(b'{')?;
    let mut fields = GameFields::default();
    let mut first = true;
    loop {
        c.ws();
        if c.peek() == Some(b'}') && first {
            c.at += 1;
            break;
        }
        first = false;
        let key = c.string()?;
        c.ws();
        c.byte(b':')?;
        c.ws();
        fields.member(key, &mut c, &mut ply, pass, handler)?;
        c.ws();
        match c.next()? {
            b',' => {}
            b'}' => break,
            _ => return Err(Unsure),
        }
    }
    if let Pass::Second { .. } = pass {
        return Ok((None, c.at));
    }
    match fields {
        GameFields {
            id: Some(id),
            start,
            plies_seen: true,
            again,
        } => Ok((
            Some(GameRead {
                id,
                start: start.unwrap_or_else(Position::initial),
                again,
            }),
            c.at,
        )),
        _ => Err(Unsure),
    }
}

/// The members of a game read so far by [`leading`].
#[derive(Default)]
struct GameFields {
    id: Option<String>,
    start: Option<Position>,
    plies_seen: bool,
    /// Whether the game is to be read again: its plies came before its
    /// `id` or `start`, or (first pass) before any `id`.
    again: bool,
}

impl GameFields {
    /// Reads the value of member `key` at `c`; the plies go to `handler`
    /// (on the first pass, only once the game's `id` is known).
    fn member<H: GameHandler>(
        &mut self,
        key: &[u8],
        c: &mut Cursor<'_>,
        ply: &mut Ply,
        pass: &Pass,
        handler: &mut H,
    ) -> Quick<()> {
        match key {
            b"id" => {
                let text = std::str::from_utf8(c.string()?).map_err(|_| Unsure)?;
                if self.id.replace(text.to_owned()).is_some() {
                    return Err(Unsure);
                }
                self.again |= self.plies_seen;
            }
            b"start" => {
                let text = std::str::from_utf8(c.string()?).map_err(|_| Unsure)?;
                let position: Position = text.parse().map_err(|_| Unsure)?;
                if self.start.replace(position).is_some() {
                    return Err(Unsure);
                }
                self.again |= self.plies_seen;
            }
            b"plies" => {
                if std::mem::replace(&mut self.plies_seen, true) {
                    return Err(Unsure);
                }
                match (pass, &self.id) {
                    (Pass::Second { id, start }, _) => {
                        handler.begin(id, *start);
                        plies(c, ply, handler)?;
                    }
                    (Pass::First, Some(id)) => {
                        handler.begin(id, self.start.unwrap_or_else(Position::initial));
                        plies(c, ply, handler)?;
                    }
                    (Pass::First, None) => {
                        plies(c, ply, &mut NoGame)?;
                        self.again = true;
                    }
                }
            }
            _ => return Err(Unsure),
        }
        Ok(())
    }
}

/// A ply to read into, its lists keeping their room from ply to ply.
fn blank_ply() -> Ply {
    Ply {
        mv: Pit::ALL[0],
        after: Notation::from(&Position::initial()),
        legal: Some(Vec::with_capacity(MAX_LISTED)),
        captures: Some(Vec::with_capacity(MAX_LISTED)),
        game_over: None,
        totals: None,
    }
}

/// The array of plies, each given to `handler` while it wants them (the
/// rest are still read, to find what is wrong with them).
fn plies<H: GameHandler>(c: &mut Cursor<'_>, ply: &mut Ply, handler: &mut H) -> Quick<()> {
    c.byte(b'[')?;
    c.ws();
    if c.peek() == Some(b']') {
        c.at += 1;
        return Ok(());
    }
    let mut wanted = true;
    // Where the lists wait while a ply leaves them out.
    let mut legal = Vec::with_capacity(MAX_LISTED);
    let mut captures = Vec::with_capacity(MAX_LISTED);
    loop {
        c.ws();
        read_ply(c, ply, &mut legal, &mut captures)?;
        if wanted {
            wanted = handler.ply(ply);
        }
        c.ws();
        match c.next()? {
            b',' => {}
            b']' => return Ok(()),
            _ => return Err(Unsure),
        }
    }
}

/// One ply object into `ply`. `legal` and `captures` lend their room to
/// the lists of `ply` and take it back.
fn read_ply(
    c: &mut Cursor<'_>,
    ply: &mut Ply,
    legal: &mut Vec<Pit>,
    captures: &mut Vec<Capture>,
) -> Quick<()> {
    // Give back the room of the last ply's lists.
    if let Some(list) = ply.legal.take() {
        *legal = list;
    }
    if let Some(list) = ply.captures.take() {
        *captures = list;
    }
    ply.game_over = None;
    ply.totals = None;
    let (mut mv, mut after) = (None, None);
    object(c, Cursor::ply_member, |c, member| {
        let duplicate = match member {
            Member::Move => mv.replace(c.pit()?).is_some(),
            Member::After => after.replace(c.notation()?).is_some(),
            Member::Legal => {
                listed(c, &mut ply.legal, legal, Cursor::pit)?;
                false
            }
            Member::Captures => {
                listed(c, &mut ply.captures, captures, capture)?;
                false
            }
            Member::GameOver => ply.game_over.replace(c.boolean()?).is_some(),
            Member::Totals => {
                if ply.totals.is_some() {
                    return Err(Unsure);
                }
                c.byte(b'[')?;
                c.ws();
                let south = c.small()?;
                c.ws();
                c.byte(b',')?;
                c.ws();
                let north = c.small()?;
                c.ws();
                c.byte(b']')?;
                ply.totals = Some([south, north]);
                false
            }
        };
        if duplicate { Err(Unsure) } else { Ok(()) }
    })?;
    // The checks serde's reading makes of a whole ply.
    if ply.totals.is_some() && ply.game_over != Some(true) {
        return Err(Unsure);
    }
    ply.mv = mv.ok_or(Unsure)?;
    ply.after = after.ok_or(Unsure)?;
    Ok(())
}

/// A list field of a ply, at most [`MAX_LISTED`] long, into `slot` (empty
/// unless the field came already), in the room `spare` lends.
fn listed<'a, T>(
    c: &mut Cursor<'a>,
    slot: &mut Option<Vec<T>>,
    spare: &mut Vec<T>,
    mut element: impl FnMut(&mut Cursor<'a>) -> Quick<T>,
) -> Quick<()> {
    if slot.is_some() {
        return Err(Unsure);
    }
    spare.clear();
    list(c, |c| {
        if spare.len() == MAX_LISTED {
            return Err(Unsure);
        }
        spare.push(element(c)?);
        Ok(())
    })?;
    *slot = Some(std::mem::take(spare));
    Ok(())
}

/// A JSON array, each element read by `element`.
fn list<'a>(
    c: &mut Cursor<'a>,
    mut element: impl FnMut(&mut Cursor<'a>) -> Quick<()>,
) -> Quick<()> {
    c.byte(b'[')?;
    c.ws();
    if c.peek() == Some(b']') {
        c.at += 1;
        return Ok(());
    }
    loop {
        c.ws();
        element(c)?;
        c.ws();
        match c.next()? {
            b',' => {}
            b']' => return Ok(()),
            _ => return Err(Unsure),
        }
    }
}

/// `{"pit": "S1", "stones": 2}`, its fields in either order.
fn capture(c: &mut Cursor<'_>) -> Quick<Capture> {
    let (mut at, mut stones) = (None, None);
    object(c, Cursor::string, |c, key| {
        let duplicate = match key {
            b"pit" => at.replace(c.pit()?).is_some(),
            b"stones" => stones.replace(c.small()?).is_some(),
            _ => return Err(Unsure),
        };
        if duplicate { Err(Unsure) } else { Ok(()) }
    })?;
    Ok(Capture {
        pit: at.ok_or(Unsure)?,
        stones: stones.ok_or(Unsure)?,
    })
}

/// A JSON object of at least one member, each key read by `key` and each
/// value by `member` (given what `key` read).
fn object<'a, K>(
    c: &mut Cursor<'a>,
    key: impl Fn(&mut Cursor<'a>) -> Quick<K>,
    mut member: impl FnMut(&mut Cursor<'a>, K) -> Quick<()>,
) -> Quick<()> {
    c.byte(b'{')?;
    loop {
        c.ws();
        let key = key(c)?;
        c.ws();
        c.byte(b':')?;
        c.ws();
        member(c, key)?;
        c.ws();
        match c.next()? {
            b',' => {}
            b'}' => return Ok(()),
            _ => return Err(Unsure),
        }
    }
}

/// The members of a ply the format defines.
#[derive(Clone, Copy)]
enum Member {
    Move,
    After,
    Legal,
    Captures,
    GameOver,
    Totals,
}

/// `S1`..`S4` or `N1`..`N4`, the contents of a string.
fn pit(side: u8, digit: u8) -> Quick<Pit> {
    Pit::from_name_bytes(side, digit).ok_or(Unsure)
}

/// A position in the bytes of one game.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// Where the JSON whitespace from `at` on ends in `bytes`.
pub(crate) fn after_ws(bytes: &[u8], at: usize) -> usize {
    let mut c = Cursor { bytes, at };
    c.ws();
    c.at
}

impl<'a> Cursor<'a> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    #[inline]
    fn next(&mut self) -> Quick<u8> {
        let b = self.peek().ok_or(Unsure)?;
        self.at += 1;
        Ok(b)
    }

    /// Skips JSON whitespace.
    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.at += 1;
        }
    }

    /// Exactly the byte `b`.
    #[inline]
    fn byte(&mut self, b: u8) -> Quick<()> {
        if self.next()? == b {
            Ok(())
        } else {
            Err(Unsure)
        }
    }

    /// A ply's member name, written plainly (an escape makes it
    /// [`Unsure`], as any other name does).
    #[inline]
    fn ply_member(&mut self) -> Quick<Member> {
        self.byte(b'"')?;
        let rest = &self.bytes[self.at..];
        // Each name with its closing quote, known by its first letter.
        let (member, len) = match rest.first() {
            Some(b'a') if rest.starts_with(b"after\"") => (Member::After, 6),
            Some(b'c') if rest.starts_with(b"captures\"") => (Member::Captures, 9),
            Some(b'l') if rest.starts_with(b"legal\"") => (Member::Legal, 6),
            Some(b'm') if rest.starts_with(b"move\"") => (Member::Move, 5),
            Some(b'g') if rest.starts_with(b"game_over\"") => (Member::GameOver, 10),
            Some(b't') if rest.starts_with(b"totals\"") => (Member::Totals, 7),
            _ => return Err(Unsure),
        };
        self.at += len;
        Ok(member)
    }

    /// A pit name string, `"S1"`..`"N4"`.
    #[inline]
    fn pit(&mut self) -> Quick<Pit> {
        let Some(&[b'"', side, digit, b'"']) = self.bytes.get(self.at..self.at + 4) else {
            return Err(Unsure);
        };
        self.at += 4;
        pit(side, digit)
    }

    /// A position string in canonical notation (none of whose characters
    /// needs an escape, so the notation ends the string or it is not one).
    #[inline]
    fn notation(&mut self) -> Quick<Notation> {
        self.byte(b'"')?;
        let (notation, end) = notation_at(self.bytes, self.at).ok_or(Unsure)?;
        self.at = end;
        self.byte(b'"')?;
        Ok(notation)
    }

    /// A string with no escape and no control character; its contents.
    #[inline]
    fn string(&mut self) -> Quick<&'a [u8]> {
        self.byte(b'"')?;
        let start = self.at;
        let end = first_special::<true>(self.bytes, start);
        if self.bytes.get(end) != Some(&b'"') {
            return Err(Unsure);
        }
        self.at = end + 1;
        Ok(&self.bytes[start..end])
    }

    /// `true` or `false`, followed by what may follow a value.
    fn boolean(&mut self) -> Quick<bool> {
        let rest = &self.bytes[self.at..];
        let (value, len) = if rest.starts_with(b"true") {
            (true, 4)
        } else if rest.starts_with(b"false") {
            (false, 5)
        } else {
            return Err(Unsure);
        };
        self.at += len;
        self.delimited(value)
    }

    /// A number from 0 to 255 written as plain digits (no sign, fraction,
    /// exponent or leading zero), followed by what may follow a value.
    fn small(&mut self) -> Quick<u8> {
        let start = self.at;
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        let digits = &self.bytes[start..self.at];
        if digits.is_empty() || digits.len() > 3 || (digits.len() > 1 && digits[0] == b'0') {
            return Err(Unsure);
        }
        let n = digits
            .iter()
            .fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'));
        self.delimited(u8::try_from(n).map_err(|_| Unsure)?)
    }

    /// `value`, if the next byte may follow a value.
    fn delimited<T>(&self, value: T) -> Quick<T> {
        match self.peek() {
            Some(b' ' | b'\n' | b'\r' | b'\t' | b',' | b']' | b'}') => Ok(value),
            _ => Err(Unsure),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::testing::{edited, edits};
    use crate::transcripts::game::serde_game;
    use crate::{Game, Profile};

    /// What a reading gave the handler: each game begun, with its plies.
    #[derive(Debug, Default, PartialEq)]
    struct Record(Vec<(String, Position, Vec<Ply>)>);

    impl GameHandler for Record {
        fn begin(&mut self, id: &str, start: Position) {
            self.0.push((id.to_owned(), start, Vec::new()));
        }
        fn ply(&mut self, ply: &Ply) -> bool {
            let plies = &mut self.0.last_mut().expect("begun").2;
            plies.push(ply.clone());
            plies.len() < 40
        }
    }

    impl Record {
        /// What counts: the plies of the last beginning.
        fn last(&self) -> Option<&(String, Position, Vec<Ply>)> {
            self.0.last()
        }
    }

    /// A game played by the rules, written with every field.
    fn game_text(seed: u64, plies: usize, start_last: bool) -> String {
        let mut game = Game::new(Position::initial(), Profile::default());
        let mut x = seed | 1;
        let mut out = Vec::new();
        for _ in 0..plies {
            let legal = game.legal_moves().to_vec();
            if legal.is_empty() {
                break;
            }
            let mv = crate::testing::pick(&mut x, &legal);
            let report = game.play(mv).expect("legal").clone();
            let mut ply = serde_json::json!({
                "move": mv, "after": game.current(), "legal": legal,
                "captures": report.captures.to_vec(),
            });
            if let Some(end) = report.end {
                ply["game_over"] = true.into();
                ply["totals"] = serde_json::json!(end.totals);
            }
            out.push(ply);
        }
        let plies = serde_json::to_string_pretty(&out).expect("JSON");
        if start_last {
            format!(
                r#"{{"plies": {plies}, "id": "g{seed}", "start": "{}"}}"#,
                Position::initial()
            )
        } else {
            format!(r#"{{"id": "g{seed}", "plies": {plies}}}"#)
        }
    }

    /// Both readers over `bytes`: whenever the quick one is sure, it read
    /// what serde reads, and gave the handler the same plies.
    fn agree(bytes: &[u8]) -> Result<bool, TestCaseError> {
        let (mut quick, mut slow) = (Record::default(), Record::default());
        let Ok(read) = game(bytes, &Pass::First, &mut quick) else {
            return Ok(false);
        };
        let read = read.expect("a first reading says what it found");
        let expected = serde_game(bytes, Pass::First, &mut slow);
        let Ok(Some(expected)) = expected else {
            return Err(TestCaseError::fail(format!(
                "quick read {:?} that serde refuses: {expected:?}",
                String::from_utf8_lossy(bytes)
            )));
        };
        prop_assert_eq!(
            (&read.id, read.start, read.again),
            (&expected.id, expected.start, expected.again)
        );
        prop_assert_eq!(quick.last(), slow.last());
        if read.again {
            let second = |id: &str| Pass::Second {
                id: id.to_owned(),
                start: read.start,
            };
            prop_assert!(game(bytes, &second(&read.id), &mut quick).is_ok());
            serde_game(bytes, second(&read.id), &mut slow).expect("read once");
            prop_assert_eq!(quick.last(), slow.last());
        }
        Ok(true)
    }

    #[test]
    fn plain_games_are_read_quickly_and_as_serde_reads_them() {
        for (seed, start_last) in [(1, false), (2, true), (3, false)] {
            let text = game_text(seed, 200, start_last);
            assert!(agree(text.as_bytes()).expect("they agree"), "{text}");
        }
        let compact = serde_json::to_string(
            &serde_json::from_str::<serde_json::Value>(&game_text(4, 50, false)).unwrap(),
        )
        .unwrap();
        assert!(agree(compact.as_bytes()).expect("they agree"));
    }

    #[test]
    fn anything_unusual_is_left_to_serde() {
        let plain =
            r#"{"id": "g", "plies": [{"move": "S1", "after": "0,7,7,7/7,7,7,6 N 0/0 1---/----"}]}"#;
        assert!(agree(plain.as_bytes()).expect("they agree"));
        for unusual in [
            plain.replace(r#""g""#, r#""\u0067""#),
            plain.replace(r#""move""#, r#""move": "S1", "move""#),
            plain.replace(r#""S1""#, "null"),
            plain.replace(r#""plies""#, r#""extra": 1, "plies""#),
            plain.replace("]}", r#"], "id": "h"}"#),
            plain.replace("}]", r#", "totals": [1, 2]}]"#),
            plain.replace("}]", r#", "game_over": true, "totals": [1, 2.0]}]"#),
            plain.replace("}]", r#", "game_over": true, "totals": [01, 2]}]"#),
            plain.replace("}]", r#", "game_over": true, "totals": [256, 2]}]"#),
            plain.replace(
                "}]",
                r#", "legal": ["S1","S1","S1","S1","S1","S1","S1","S1","S1"]}]"#,
            ),
            plain.replace("}]", "},]"),
            format!("{plain} x"),
            // Member names, pit names and positions are matched whole.
            plain.replace(r#""move""#, r#""\u006dove""#),
            plain.replace(r#""move""#, r#""moves""#),
            plain.replace(r#""move""#, r#""mov""#),
            plain.replace(r#""after""#, r#""aftermath""#),
            plain.replace(r#""S1""#, r#""S1 ""#),
            plain.replace(r#""S1""#, r#""S5""#),
            plain.replace(r#""S1""#, r#""\u0053\u0031""#),
            plain.replace("1---/----\"", "1---/---- \""),
            plain.replace("1---/----\"", "1---/----\\n\""),
            plain.replace("1---/----\"", "1---/---\""),
            plain.replace("0,7,7", "00,7,7"),
            plain.replace("0,7,7", "0,7,0007"),
        ] {
            assert!(!agree(unusual.as_bytes()).expect("they agree"), "{unusual}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn quick_agrees_with_serde(
            seed in 1u64..1000,
            plies in 0usize..12,
            start_last in any::<bool>(),
            edits in edits(),
        ) {
            let text = edited(game_text(seed, plies, start_last).into_bytes(), &edits);
            agree(&text)?;
        }
    }
}
