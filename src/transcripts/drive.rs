//! Running the games of a transcript on the calling thread, handing their
//! outcomes to a consumer in the file's order.
//!
//! One thread, whatever `--jobs` says: checking a game of the plain shape
//! costs about what reading its bytes as JSON does, so a thread that reads
//! the file to hand games out does the whole work again (issue 47: with
//! the file cut into pieces read by threads, or batches of games handed
//! out, `--jobs 2` took the wall and CPU time of `--jobs 1`, or more).

use std::path::Path;
use std::sync::atomic::AtomicBool;

use super::reader::{Consumer, Top, Worker};
use crate::reporter::CheckError;

/// Reads the transcript at `path`, checking each game as it reads it and
/// giving the outcomes to `consumer` in the file's order.
pub(super) fn drive<C: Consumer>(
    path: &Path,
    source: &str,
    consumer: &mut C,
) -> Result<(), CheckError> {
    drive_with(path, source, true, consumer).map(|_| ())
}

/// [`drive`], with header fields after `games` first looked for at the end
/// of the file only if `try_end`: whether they were found there.
pub(super) fn drive_with<C: Consumer>(
    path: &Path,
    source: &str,
    try_end: bool,
    consumer: &mut C,
) -> Result<bool, CheckError> {
    let mut top = Top::open(path, source)?;
    top.try_end = try_end;
    let header = top.header()?;
    let mode = match consumer.header(header) {
        Ok(mode) => mode,
        Err(abort) => return abort.into_result().map(|()| false),
    };
    let stop = AtomicBool::new(false);
    let mut worker = Worker::open(path, source)?;
    while let Some(outcomes) = top.checked_batch(&mode, &mut worker, &stop)? {
        for outcome in outcomes {
            if let Err(abort) = consumer.game(&mode, outcome?) {
                return abort.into_result().map(|()| false);
            }
        }
    }
    Ok(top.from_end)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::super::check::MainMode;
    use super::super::reader::{Abort, Header};
    use super::*;
    use crate::judge::RuleSet;
    use crate::reporter::UnitResult;
    use crate::testing::{edited, edits};
    use crate::{Game, Position, Profile};

    /// The units of a run, in the order given.
    struct Units(Vec<UnitResult>);

    impl Consumer for Units {
        type Mode = MainMode;

        fn header(&mut self, header: Header) -> Result<MainMode, Abort> {
            Ok(MainMode {
                engine: header.engine,
                profile: header.profile,
            })
        }

        fn game(
            &mut self,
            _: &MainMode,
            (mut unit, _): (UnitResult, RuleSet),
        ) -> Result<(), Abort> {
            unit.time = 0.0;
            self.0.push(unit);
            Ok(())
        }
    }

    /// The units a run gives before it ends, how it ends (an error as
    /// reported, with its place), and whether the header after `games` was
    /// read at the end of the file; `try_end` as [`drive_with`] takes it.
    fn check(text: &str, try_end: bool) -> (Vec<UnitResult>, Result<(), String>, bool) {
        let mut file = tempfile::NamedTempFile::new().expect("a temporary file");
        file.write_all(text.as_bytes()).expect("written");
        let mut units = Units(Vec::new());
        let result = drive_with(file.path(), "t.json", try_end, &mut units);
        let (ended, from_end) = match result {
            Ok(from_end) => (Ok(()), from_end),
            Err(e) => (Err(e.to_string()), false),
        };
        (units.0, ended, from_end)
    }

    /// Header fields after `games` looked for at the end of the file, as
    /// kpe-check does.
    const FROM_END: bool = true;

    /// No header looked for at the end of the file: `games` is read value
    /// by value, its games noted, and read again once the header is known.
    const NOTING: bool = false;

    const HEADER: &str = r#""format": "kpe-transcript", "version": 1, "engine": {"name": "t", "version": "1"}, "profile": "default""#;

    /// A random game of at most `plies` plies, one ply a line if `lines`;
    /// ply `wrong` (if any) claims the position before its move.
    fn game(seed: &mut u64, id: &str, plies: usize, lines: bool, wrong: Option<usize>) -> String {
        let mut game = Game::new(Position::initial(), Profile::DEFAULT);
        let mut out = Vec::new();
        for k in 0..plies {
            let legal = game.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = crate::testing::pick(seed, &legal);
            let before = *game.current();
            let report = game.play(mv).expect("a legal move").clone();
            let after = if wrong == Some(k) {
                before
            } else {
                *game.current()
            };
            out.push(
                serde_json::json!({
                    "move": mv,
                    "after": after,
                    "legal": legal.to_vec(),
                    "captures": report.captures.to_vec(),
                })
                .to_string(),
            );
        }
        let sep = if lines { ",\n  " } else { "," };
        format!(r#"{{"id": "{id}", "plies": [{}]}}"#, out.join(sep))
    }

    /// Games of all lengths: some diverge, one in seven has an escape in
    /// its id (not the plain shape) if `escapes`, one is long; on one line
    /// or several.
    fn games(escapes: bool) -> Vec<String> {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        (0..80)
            .map(|g| {
                let id = if escapes && g % 7 == 3 {
                    format!("\\u0067{g}")
                } else {
                    format!("g{g}")
                };
                let plies = if g == 41 { 400 } else { (g * 13) % 70 };
                let wrong = (g % 5 == 2).then_some(plies / 2);
                game(&mut seed, &id, plies, g % 3 != 0, wrong)
            })
            .collect()
    }

    fn transcript(games: &[String], sep: &str) -> String {
        format!("{{{HEADER},\n\"games\": [\n{}\n]}}\n", games.join(sep))
    }

    #[test]
    fn bad_input_is_refused_with_its_place() {
        for escapes in [true, false] {
            bad_input_refused(&games(escapes), transcript, FROM_END);
        }
    }

    /// With the header after the games, read at the end of the file or
    /// found by reading `games` first.
    #[test]
    fn bad_input_before_a_header_is_refused_with_its_place() {
        for escapes in [true, false] {
            for try_end in [FROM_END, NOTING] {
                bad_input_refused(&games(escapes), header_last, try_end);
            }
        }
    }

    /// Transcripts made of `games`, each with something wrong, written by
    /// `transcript`.
    fn bad_inputs(games: &[String], transcript: fn(&[String], &str) -> String) -> Vec<String> {
        let good = transcript(games, ",\n");
        // After a game on several lines, past the reader's first buffer.
        let k = games.len() / 2 + 1;
        assert!(games[k - 1].contains('\n') && good.len() > 2 * 64 * 1024);
        let halves = [games[..k].join(",\n"), games[k..].join(",\n")];
        let mut bad: Vec<String> = vec![
            // A missing comma, a trailing one, something between games.
            transcript(&halves, "\n"),
            good.replacen("\n]", ",\n]", 1),
            transcript(&halves, ", x, "),
            transcript(&halves, ", 3, "),
            transcript(&halves, ",, "),
            // A number or a literal with a bracket or a quote in it.
            transcript(&halves, ", 1[2], "),
            transcript(&halves, ", t{\"a\": 1}, "),
            transcript(&halves, ", n\"]\", "),
            transcript(&halves, ", f:[0], "),
            transcript(
                &[
                    games[..games.len() - 1].join(",\n"),
                    games[games.len() - 1].clone(),
                ],
                ", 1[, ",
            ),
            // A ply with a bad move, a game not closed.
            good.replacen(r#""move":"S"#, r#""move":"X"#, 9),
            good.replacen("]}", "]", 30),
        ];
        // Cut short anywhere.
        bad.extend((1..12).map(|k| good[..good.len() * k / 12].to_owned()));
        bad
    }

    fn bad_input_refused(
        games: &[String],
        transcript: fn(&[String], &str) -> String,
        try_end: bool,
    ) {
        for text in &bad_inputs(games, transcript) {
            let (_, ended, _) = check(text, try_end);
            let Err(error) = &ended else {
                panic!("bad input is refused: {text}");
            };
            assert!(error.starts_with("t.json:"), "{error}");
        }
    }

    /// Forty random games of 20 to 59 plies, every other one on several
    /// lines, the eighth diverging.
    fn forty_games(mut seed: u64) -> Vec<String> {
        (0..40)
            .map(|g| {
                game(
                    &mut seed,
                    &format!("g{g}"),
                    20 + g,
                    g % 2 == 0,
                    (g == 7).then_some(3),
                )
            })
            .collect()
    }

    /// The transcript of `games`, its header after them (as with sorted
    /// keys).
    fn header_last(games: &[String], sep: &str) -> String {
        format!("{{\"games\": [\n{}\n],\n{HEADER}}}\n", games.join(sep))
    }

    /// The header after the games, found by reading `games` first, gives
    /// the report the header first gives, with ids holding brackets and
    /// quotes.
    #[test]
    fn a_header_after_the_games_gives_the_report_the_header_first_gives() {
        let games = games(true);
        for sep in [",\n", ",", " ,\r\n\t"] {
            let text = header_last(&games, sep);
            let (units, ended, _) = check(&text, NOTING);
            assert_eq!(ended, Ok(()), "{sep:?}");
            let expected = check(&transcript(&games, sep), FROM_END).0;
            assert_eq!(expected.len(), games.len());
            assert!(expected.iter().any(|u| u.divergence.is_some()));
            pretty_assertions::assert_eq!(units, expected, "{sep:?}");
        }
        let tricky: Vec<String> = games
            .iter()
            .enumerate()
            .map(|(g, game)| game.replacen(&format!("\"g{g}\""), &format!(r#""g{g}\":[{{\"""#), 1))
            .collect();
        let text = header_last(&tricky, ",\n");
        let (expected, ended, _) = check(&text, NOTING);
        assert_eq!(ended, Ok(()));
        assert_eq!(expected.len(), games.len());
        let (units, found, _) = check(&text, FROM_END);
        assert_eq!(found, ended);
        pretty_assertions::assert_eq!(units, expected);
    }
    /// The file's end, read from the `]` that closes `games`, names the
    /// header: the games are then read once, as with the header first.
    #[test]
    fn a_header_read_at_the_end_gives_the_report_the_noting_gives() {
        let games = games(true);
        let tricky: Vec<String> = games
            .iter()
            .enumerate()
            .map(|(g, game)| {
                let id = format!(r#""g{g}\"],\"profile\": \"x\"}}]""#);
                game.replacen(&format!("\"g{g}\""), &id, 1)
            })
            .collect();
        let split = |games: &[String], sep: &str| {
            format!(
                "{{\"format\": \"kpe-transcript\", \"games\": [\n{}\n],\n\
                 \"profile\": \"default\", \"engine\": {{\"name\": \"t\", \"version\": \"1\"}}, \
                 \"version\": 1 }}\n\n",
                games.join(sep)
            )
        };
        for text in [
            header_last(&games, ",\n"),
            header_last(&games, " ,\r\n\t"),
            header_last(&tricky, ","),
            split(&games, ","),
        ] {
            assert!(both_ways_agree(&text, games.len()));
        }
    }

    /// Checks `text` (of `games` games) by noting the games and by reading
    /// the header at the end: both end well with the same units. Whether
    /// the header was read at the end.
    fn both_ways_agree(text: &str, games: usize) -> bool {
        let (expected, ended, _) = check(text, NOTING);
        assert_eq!(ended, Ok(()));
        assert_eq!(expected.len(), games);
        let (units, ended, from_end) = check(text, FROM_END);
        assert_eq!(ended, Ok(()));
        pretty_assertions::assert_eq!(units, expected);
        from_end
    }

    /// A header that cannot be read at the end of the file is found by
    /// reading `games` first, with the same report.
    #[test]
    fn a_header_not_read_at_the_end_is_found_by_the_count() {
        let games = games(false);
        let long = "n".repeat(70 * 1024);
        for text in [
            // Longer than the bytes looked at.
            header_last(&games, ",\n").replacen(
                r#""name": "t""#,
                &format!(r#""name": "{long}""#),
                1,
            ),
            // A field name with an escape.
            header_last(&games, ",\n").replacen(r#""format""#, r#""\u0066ormat""#, 1),
        ] {
            assert!(!both_ways_agree(&text, games.len()));
        }
    }

    /// Where `games` ends before the `]` that header fields at the end of
    /// the file follow, the file is no transcript: the games are reported,
    /// checked, and then what follows them, where it stands.
    #[test]
    fn games_that_end_before_the_header_at_the_end_are_reported_then_what_follows() {
        let games = games(true);
        let header = HEADER.replace(r#", "profile": "default""#, "");
        for (between, error) in [
            (r#""x": 1]"#, "unknown field `x`"),
            (r#""profile": "default"]"#, "expected `,` or `}`"),
            (r#""games": []"#, "duplicate field `games`"),
        ] {
            let text = format!(
                "{{\"games\": [\n{}\n], {between},\n{header}}}\n",
                games.join(",\n")
            );
            let (noting, noted, _) = check(&text, NOTING);
            assert!(noting.is_empty(), "{noted:?}");
            assert!(
                noted.as_ref().is_err_and(|e| e.contains(error)),
                "{noted:?}"
            );
            let (expected, ended, from_end) = check(&text, FROM_END);
            assert!(!from_end && ended.is_err());
            let Err(message) = &ended else { unreachable!() };
            assert!(message.contains(error), "{message}");
            // Where the other way finds it.
            assert_eq!(message, noted.as_ref().unwrap_err());
            assert_eq!(expected.len(), games.len());
            assert!(expected.iter().any(|u| u.divergence.is_some()));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

        #[test]
        fn a_header_read_at_the_end_agrees_with_the_other_ways_on_edited_files(edits in edits()) {
            let good = header_last(&forty_games(17), ",\n").into_bytes();
            // Edited anywhere, or in the last games and the header.
            let cut = good.len() - 600;
            let mut near_the_end = good[..cut].to_vec();
            near_the_end.extend(edited(good[cut..].to_vec(), &edits));
            for text in [edited(good.clone(), &edits), near_the_end] {
                let text = String::from_utf8_lossy(&text);
                let (units, ended, _) = check(&text, FROM_END);
                if ended.is_ok() {
                    // What reads as a transcript reads alike either way.
                    let (noted, noted_end, _) = check(&text, NOTING);
                    proptest::prop_assert_eq!(&noted_end, &ended);
                    proptest::prop_assert_eq!(&noted, &units);
                }
            }
        }
    }
}
