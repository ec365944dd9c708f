// Measured (issue 22, 2026-12-04, load 0.3-1.2, `check_speed` on the
// bench file, fastest of 10 rounds): with the pieces, `--jobs 2` takes
// 33.8 ms; with the calling thread scanning games and handing them out
// instead (`drive_batches`, what no piece-cutting leaves), 42.2 ms. The
// pieces are worth 1.25x at `--jobs 2`, and `--jobs 1` / `--jobs 2` is
// 1.80 with them against 1.45 without (issue 11: at least 1.7). The
// crates measured in `benches/json-crates` read from a value's first
// byte; finding one in an arbitrary piece of the file is what this adds.

//! Checking a transcript's games on several threads, each finding its own
//! games in a piece of the file.
//!
//! What follows the start of `games` is cut into pieces of
//! [`Chunking::len`] bytes, with no scan. Each thread given a piece reads
//! it from the file itself, with [`Chunking::tail`] bytes more so that the
//! game it starts last can end there. It looks for the first `{` at which
//! the quick reader reads a whole game of the plain shape and checks that
//! game and the ones after it, up to the first that starts past the piece.
//! A game of another shape it only finds the end of, by a scan; it stops
//! at a game whose end is not in its bytes, and at bad input.
//!
//! Such a `{` is a game's first byte. Inside a string it could only be
//! followed by what the quick reader takes for members named `id`, `start`
//! or `plies`; but what it would take for a member's name is the text
//! between two strings of the file, made of punctuation, numbers and
//! `true`, `false` or `null`. A ply's `{` is refused at its first member.
//! None of this is relied on, though. The calling thread follows the file
//! from the start of `games`, one game after another, and takes a thread's
//! games only when the next game starts exactly where they do. It then
//! passes them unread (their line breaks counted by the thread) and gives
//! their outcomes, renumbered, to the consumer. Any other game it checks
//! itself, as with one job. So every error is found by the reading in
//! order, at its place, and a piece's thread never reports one.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

use super::reader::{Consumer, Mode, Top, Worker, check_leading};
use super::scan::FILE_START;
use crate::judge::ReportRules;
use crate::reporter::CheckError;
use crate::transcripts::quick::after_ws;
use crate::transcripts::scan::Scanner;

/// How the file is cut into pieces.
#[derive(Clone, Copy, Debug)]
pub(super) struct Chunking {
    /// A piece's length: its thread checks the games starting in it.
    pub(super) len: usize,
    /// The bytes after a piece also handed to its thread.
    pub(super) tail: usize,
    /// A piece's length when the end of `games` is looked for (a header
    /// field follows it), by [`super::skip`].
    pub(super) skip: usize,
    /// Whether header fields after `games` are first looked for at the end
    /// of the file, so that `games` need not be read twice.
    pub(super) from_end: bool,
}

impl Chunking {
    /// For files: a piece holds some tens of games of usual length (about
    /// 100 bytes a ply), and a game up to 64 KiB is read by the thread
    /// whose piece it starts in.
    pub(super) const FILE: Chunking = Chunking {
        len: 256 * 1024,
        tail: 64 * 1024,
        skip: 256 * 1024,
        from_end: true,
    };
}

/// How the games were checked: by the threads given pieces, or by the
/// calling thread (a game no thread took), in games and bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Tally {
    pub(super) taken: usize,
    pub(super) taken_bytes: usize,
    pub(super) own: usize,
    pub(super) own_bytes: usize,
    /// The calling thread took over the rest, in batches.
    pub(super) switched: bool,
    /// The end of `games` was found by threads in pieces ([`super::skip`]).
    pub(super) skipped: bool,
    /// The header fields after `games` were read from the end of the file.
    pub(super) from_end: bool,
}

impl Tally {
    /// After a few pieces, whether the calling thread is checking more
    /// than the others: most games are not for pieces (another shape,
    /// longer than the tail), and batches share them better.
    fn batches_pay(&self, pieces: usize) -> bool {
        pieces >= 4 && self.own_bytes > self.taken_bytes
    }
}

/// Whether the run is over or goes on in batches.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Flow {
    Done,
    Switch,
}

/// A run of the pieces' threads over one file.
pub(super) struct Run<'a> {
    pub(super) path: &'a Path,
    pub(super) source: &'a str,
    pub(super) jobs: usize,
    pub(super) chunking: Chunking,
}

/// A piece for a thread: its place among the pieces, where it starts.
struct Piece {
    seq: usize,
    start: u64,
}

/// Consecutive games a thread found in a piece, from its bytes.
struct Stretch<O> {
    /// Where the first starts.
    start: usize,
    /// Their outcomes, the calling thread to pass them unread; none for a
    /// game the thread could only find the end of (of another shape), for
    /// the calling thread to read.
    outcomes: Vec<O>,
    /// Where the calling thread goes on after passing them: the first byte
    /// of the game after them when `at_next` (a comma followed, and no
    /// `]` after it), else the end of the last.
    to: usize,
    at_next: bool,
    /// The line breaks from `start` to `to`, and the column at `to` if
    /// there are any.
    lines: u64,
    column: Option<u64>,
}

/// The stretches a thread found in a piece, in order: the first starts at
/// the first game of the plain shape in the piece, each other where the
/// one before ends or goes on.
type Found<O> = VecDeque<Stretch<O>>;

/// A thread's answer: the piece's place and what it found (or the
/// thread's panic).
type Answer<O> = (usize, std::thread::Result<Found<O>>);

impl Run<'_> {
    /// Checks the games from the scan's place on, giving their outcomes to
    /// `consumer` in the file's order; [`Flow::Switch`] when the calling
    /// thread was doing most of the work (the scan is then at a game, or
    /// at the comma before one).
    pub(super) fn drive<C: Consumer>(
        &self,
        top: &mut Top,
        mode: &C::Mode,
        consumer: &mut C,
        tally: &mut Tally,
    ) -> Result<Flow, CheckError> {
        let own = Worker::open(self.path, self.source)?;
        let workers = (0..self.jobs)
            .map(|_| Worker::open(self.path, self.source))
            .collect::<Result<Vec<_>, _>>()?;
        let file_len = std::fs::metadata(self.path)
            .map_err(|e| CheckError::Input(top.io(e)))?
            .len();
        // Each thread has one piece being checked and one waiting.
        let ahead = 2 * self.jobs;
        let (job_tx, job_rx) = mpsc::sync_channel::<Piece>(ahead);
        let job_rx = Mutex::new(job_rx);
        let stop = AtomicBool::new(false);
        let Chunking { len, tail, .. } = self.chunking;
        std::thread::scope(|s| {
            let (result_tx, result_rx) = mpsc::channel();
            for mut worker in workers {
                let (job_rx, result_tx, stop) = (&job_rx, result_tx.clone(), &stop);
                s.spawn(move || {
                    let mut bytes = Vec::new();
                    loop {
                        let job = job_rx.lock().map(|rx| rx.recv());
                        let Ok(Ok(piece)) = job else { break };
                        let found = if stop.load(Ordering::Relaxed)
                            || worker
                                .reader
                                .read_upto(piece.start, len + tail, &mut bytes)
                                .is_err()
                        {
                            // A read error is met again, and reported, by
                            // the calling thread.
                            Ok(Found::new())
                        } else {
                            // A panic (a bug) goes to the calling thread.
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                check_piece(mode, &mut worker.memo, &bytes, len, stop)
                            }))
                        };
                        if found.is_err() {
                            stop.store(true, Ordering::Relaxed);
                        }
                        if result_tx.send((piece.seq, found)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(result_tx);
            // Owned by the reading, so that the job channel is closed (and
            // the threads end) however it ends, a panic included.
            let mut reading = Reading {
                len: len as u64,
                ahead,
                job_tx,
                result_rx,
                starts: VecDeque::new(),
                next: 0,
                answers: BTreeMap::new(),
                frontier: top.scan.mark().offset,
                file_len,
                own,
                kept: Vec::new(),
            };
            let result = reading.run(top, mode, consumer, tally);
            stop.store(true, Ordering::Relaxed);
            result
        })
    }
}

/// The calling thread's side of a run: the pieces handed out and not yet
/// done with, and the answers come back.
struct Reading<O> {
    /// A piece's length.
    len: u64,
    /// At most this many pieces are out at once.
    ahead: usize,
    job_tx: mpsc::SyncSender<Piece>,
    result_rx: mpsc::Receiver<Answer<O>>,
    /// Where each piece out starts in the file, in order.
    starts: VecDeque<u64>,
    /// The number of the first of them.
    next: usize,
    answers: BTreeMap<usize, Found<O>>,
    /// Where the next piece starts.
    frontier: u64,
    /// Pieces are handed out up to here (the file's length when the run
    /// began; what may follow is read by this thread).
    file_len: u64,
    /// For the games this thread checks itself.
    own: Worker,
    kept: Vec<u8>,
}

impl<O: Send> Reading<O> {
    fn run<C: Consumer>(
        &mut self,
        top: &mut Top,
        mode: &C::Mode,
        consumer: &mut C,
        tally: &mut Tally,
    ) -> Result<Flow, CheckError>
    where
        C::Mode: Mode<Outcome = O>,
    {
        loop {
            self.hand_out(top);
            let Some(start) = self.starts.pop_front() else {
                // Nothing is out: the file is all handed out and every
                // piece done with. What is left (nothing, in a valid file
                // that did not grow) is read here.
                self.games_before(top, mode, consumer, tally, u64::MAX, (0, Found::new()))?;
                return Ok(Flow::Done);
            };
            let found = self.answer();
            let end = start + self.len;
            if self.games_before(top, mode, consumer, tally, end, (start, found))? {
                return Ok(Flow::Done);
            }
            if tally.batches_pay(self.next) {
                tally.switched = true;
                return Ok(Flow::Switch);
            }
        }
    }

    /// Hands out pieces until `ahead` are out or the file is all handed
    /// out.
    fn hand_out(&mut self, top: &Top) {
        while self.starts.len() < self.ahead {
            // The reading may have gone past the pieces out (a long game).
            let start = self.frontier.max(top.scan.mark().offset);
            if start >= self.file_len {
                return;
            }
            let seq = self.next + self.starts.len();
            if self.job_tx.send(Piece { seq, start }).is_err() {
                // No thread is left (cannot happen while this runs): the
                // rest is read here.
                self.file_len = 0;
                return;
            }
            self.starts.push_back(start);
            self.frontier = start + self.len;
        }
    }

    /// The answer for the first piece out, waited for.
    fn answer(&mut self) -> Found<O> {
        let seq = self.next;
        self.next += 1;
        loop {
            if let Some(found) = self.answers.remove(&seq) {
                return found;
            }
            let Ok((done, found)) = self.result_rx.recv() else {
                return Found::new();
            };
            let found = found.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            self.answers.insert(done, found);
        }
    }

    /// Gives `consumer` the outcomes of the games that start before `end`:
    /// those of the stretches found in the piece starting at `piece` when
    /// the reading comes to each, passing them unread, the others checked
    /// here. True once the run is over: every game read, or the consumer
    /// done.
    fn games_before<C: Consumer>(
        &mut self,
        top: &mut Top,
        mode: &C::Mode,
        consumer: &mut C,
        tally: &mut Tally,
        end: u64,
        (piece, mut found): (u64, Found<O>),
    ) -> Result<bool, CheckError>
    where
        C::Mode: Mode<Outcome = O>,
    {
        loop {
            let Some(index) = top.game_start()? else {
                return Ok(true);
            };
            let at = top.scan.mark().offset;
            if at >= end {
                return Ok(false);
            }
            // Stretches behind the reading are of no use (a game of another
            // shape, which it read itself).
            let found_at = |s: &Stretch<O>| piece + s.start as u64;
            while found.front().is_some_and(|s| found_at(s) < at) {
                found.pop_front();
            }
            let here = found
                .front()
                .is_some_and(|s| found_at(s) == at && !s.outcomes.is_empty());
            if let Some(s) = if here { found.pop_front() } else { None } {
                let len = s.to - s.start;
                let games = s.outcomes.len();
                top.pass_games(index, games, len as u64, s.lines, s.column, s.at_next)?;
                tally.taken += games;
                tally.taken_bytes += len;
                for (k, mut outcome) in s.outcomes.into_iter().enumerate() {
                    mode.renumber(&mut outcome, index + k);
                    if let Err(abort) = consumer.game(mode, outcome) {
                        return abort.into_result().map(|()| true);
                    }
                }
            } else {
                let (outcome, len) =
                    top.checked_game(mode, &mut self.own, index, &mut self.kept)?;
                tally.own += 1;
                tally.own_bytes += len;
                if let Err(abort) = consumer.game(mode, outcome?) {
                    return abort.into_result().map(|()| true);
                }
            }
        }
    }
}

/// What a thread finds in a piece (`bytes`, whose first `len` are the
/// piece and the rest its tail): from the first game of the plain shape
/// that starts in it, the games up to the first that starts past the
/// piece, or whose end cannot be found in `bytes`; each checked if it has
/// the plain shape, else only found.
fn check_piece<M: Mode>(
    mode: &M,
    memo: &mut ReportRules,
    bytes: &[u8],
    len: usize,
    stop: &AtomicBool,
) -> Found<M::Outcome> {
    let mut found = Found::new();
    let piece = &bytes[..len.min(bytes.len())];
    let Some((mut at, mut game)) = memchr::memchr_iter(b'{', piece)
        .filter(|&at| opens_a_game(&bytes[at..]))
        .find_map(|at| {
            check_leading(mode, memo, 0, &bytes[at..])
                .map(|(outcome, game)| (at, (Some(outcome), game)))
        })
    else {
        return found;
    };
    loop {
        let (outcome, game_len) = game;
        let end = at + game_len;
        let checked = outcome.is_some();
        match found.back_mut() {
            Some(s) if checked && !s.outcomes.is_empty() => (s.to, s.at_next) = (end, false),
            _ => found.push_back(Stretch {
                start: at,
                outcomes: Vec::new(),
                to: end,
                at_next: false,
                lines: 0,
                column: None,
            }),
        }
        let last = found.back_mut().expect("just pushed");
        last.outcomes.extend(outcome);
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let comma = after_ws(bytes, end);
        if bytes.get(comma) != Some(&b',') {
            break;
        }
        let next = after_ws(bytes, comma + 1);
        if bytes.get(next).is_none_or(|&b| b == b']') {
            // The end of the piece's bytes, or a trailing comma: for the
            // calling thread to read.
            break;
        }
        if checked {
            (last.to, last.at_next) = (next, true);
        }
        if next >= len {
            break;
        }
        at = next;
        game = match check_leading(mode, memo, 0, &bytes[at..]) {
            Some((outcome, game_len)) => (Some(outcome), game_len),
            None => match Scanner::new(&bytes[at..], FILE_START).value() {
                Ok(span) if at + span.len as usize <= bytes.len() => (None, span.len as usize),
                _ => break,
            },
        };
    }
    for s in found.iter_mut().filter(|s| !s.outcomes.is_empty()) {
        let passed = &bytes[s.start..s.to];
        if let Some(last) = memchr::memrchr(b'\n', passed) {
            s.lines = memchr::memchr_iter(b'\n', passed).count() as u64;
            s.column = Some((passed.len() - last) as u64);
        }
    }
    found
}

/// Whether `bytes` (at a `{`) start an object whose first member is named
/// as a game's can be: a quick test that passes over a ply's `{` without
/// starting to read a game there.
fn opens_a_game(bytes: &[u8]) -> bool {
    let key = after_ws(bytes, 1);
    let name = bytes.get(key + 1..).unwrap_or_default();
    bytes.get(key) == Some(&b'"')
        && [&b"id\""[..], b"start\"", b"plies\""]
            .iter()
            .any(|n| name.starts_with(n))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::super::check::MainMode;
    use super::super::drive::drive_with;
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
    /// reported, with its place), and how the games were checked.
    fn check(
        text: &str,
        jobs: usize,
        chunking: Chunking,
    ) -> (Vec<UnitResult>, Result<(), String>, Tally) {
        let mut file = tempfile::NamedTempFile::new().expect("a temporary file");
        file.write_all(text.as_bytes()).expect("written");
        let mut units = Units(Vec::new());
        let result = drive_with(file.path(), "t.json", jobs, chunking, &mut units);
        let (ended, tally) = match result {
            Ok(tally) => (Ok(()), tally),
            Err(e) => (Err(e.to_string()), Tally::default()),
        };
        (units.0, ended, tally)
    }

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

    /// Pieces from far smaller than a game to larger than the file, with
    /// tails shorter and longer than the games.
    const CHUNKINGS: [(usize, usize); 6] = [
        (64, 32),
        (300, 1000),
        (1000, 300),
        (4096, 4096),
        (16 * 1024, 64 * 1024),
        (1 << 20, 1 << 20),
    ];

    #[test]
    fn pieces_give_the_report_one_job_gives() {
        let games = games(true);
        for sep in [",\n", ",", " ,\r\n\t"] {
            let text = transcript(&games, sep);
            let (expected, ended, _) = check(&text, 1, Chunking::FILE);
            assert_eq!(ended, Ok(()));
            assert_eq!(expected.len(), games.len());
            assert!(expected.iter().any(|u| u.divergence.is_some()));
            for (len, tail) in CHUNKINGS {
                for jobs in [2, 3] {
                    let (units, ended, tally) = check(
                        &text,
                        jobs,
                        Chunking {
                            len,
                            tail,
                            ..Chunking::FILE
                        },
                    );
                    let at = format!("{len}/{tail} bytes, --jobs {jobs}, {sep:?}");
                    assert_eq!(ended, Ok(()), "{at}");
                    pretty_assertions::assert_eq!(units, expected, "{at}");
                    if tail >= 64 * 1024 {
                        // The games of the plain shape that fit the tail
                        // are checked by the pieces' threads.
                        assert!(!tally.switched, "{at}");
                        assert_eq!(tally.taken + tally.own, games.len(), "{at}");
                        assert!(tally.taken > games.len() / 2, "{at}: {tally:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn bad_input_is_found_where_one_job_finds_it() {
        for escapes in [true, false] {
            bad_input_found_where_one_job_finds_it(&games(escapes), transcript);
        }
    }

    /// With the header at the end of the file too.
    #[test]
    fn bad_input_before_a_header_at_the_end_is_found_where_one_job_finds_it() {
        for escapes in [true, false] {
            bad_input_found_where_one_job_finds_it(&games(escapes), header_last);
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

    fn bad_input_found_where_one_job_finds_it(
        games: &[String],
        transcript: fn(&[String], &str) -> String,
    ) {
        for text in &bad_inputs(games, transcript) {
            let (expected, ended, _) = check(text, 1, Chunking::FILE);
            let Err(error) = &ended else {
                panic!("bad input is refused: {text}");
            };
            assert!(error.starts_with("t.json:"), "{error}");
            for (len, tail) in CHUNKINGS {
                let (units, found, _) = check(
                    text,
                    2,
                    Chunking {
                        len,
                        tail,
                        ..Chunking::FILE
                    },
                );
                let at = format!("{len}/{tail} bytes");
                assert_eq!(found, ended, "{at}");
                pretty_assertions::assert_eq!(units, expected, "{at}");
            }
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

    /// Pieces to find the end of `games` in: shorter than a ply, about a
    /// game, several games.
    const SKIPS: [usize; 3] = [50, 700, 8000];

    /// No piece to find the end of `games` in, and no header looked for at
    /// the end of the file: one job reads `games` value by value, noting
    /// its games, the way the pieces are checked against.
    const NOTING: Chunking = Chunking {
        skip: usize::MAX,
        from_end: false,
        ..Chunking::FILE
    };

    fn skipping(skip: usize) -> Chunking {
        Chunking {
            skip,
            from_end: false,
            ..Chunking::FILE
        }
    }

    #[test]
    fn the_end_of_games_found_in_pieces_gives_the_report_one_job_gives() {
        let games = games(true);
        for sep in [",\n", ",", " ,\r\n\t"] {
            let text = header_last(&games, sep);
            let (expected, ended, _) = check(&text, 1, NOTING);
            assert_eq!(ended, Ok(()));
            assert_eq!(
                expected,
                check(&transcript(&games, sep), 1, Chunking::FILE).0
            );
            for skip in SKIPS {
                let (units, ended, tally) = check(&text, 2, skipping(skip));
                let at = format!("{skip} bytes, {sep:?}");
                assert_eq!(ended, Ok(()), "{at}");
                pretty_assertions::assert_eq!(units, expected, "{at}");
                assert!(tally.skipped, "{at}");
                // The games are then found in pieces, as with the header
                // first.
                assert!(tally.taken > games.len() / 2, "{at}: {tally:?}");
                // One job finds the end in pieces too.
                let (units, ended, _) = check(&text, 1, skipping(skip));
                assert_eq!(ended, Ok(()), "{at}, --jobs 1");
                pretty_assertions::assert_eq!(units, expected, "{at}, --jobs 1");
            }
        }
        // Ids holding what a piece starts after, `":`, and brackets: a
        // piece may start inside a string, which the join finds.
        let tricky: Vec<String> = games
            .iter()
            .enumerate()
            .map(|(g, game)| game.replacen(&format!("\"g{g}\""), &format!(r#""g{g}\":[{{\"""#), 1))
            .collect();
        let text = header_last(&tricky, ",\n");
        let (expected, ended, _) = check(&text, 1, NOTING);
        assert_eq!(ended, Ok(()));
        assert_eq!(expected.len(), games.len());
        for skip in SKIPS {
            for jobs in [1, 2] {
                let (units, found, _) = check(&text, jobs, skipping(skip));
                let at = format!("{skip} bytes, --jobs {jobs}");
                assert_eq!(found, ended, "{at}");
                pretty_assertions::assert_eq!(units, expected, "{at}");
            }
        }
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
        for (text, plain) in [
            (header_last(&games, ",\n"), true),
            (header_last(&games, " ,\r\n\t"), true),
            (header_last(&tricky, ","), false),
            (split(&games, ","), true),
        ] {
            let (expected, ended, _) = check(&text, 1, NOTING);
            assert_eq!(ended, Ok(()));
            assert_eq!(expected.len(), games.len());
            for jobs in [1, 2] {
                let (units, ended, tally) = check(&text, jobs, Chunking::FILE);
                assert_eq!(ended, Ok(()), "--jobs {jobs}");
                pretty_assertions::assert_eq!(units, expected, "--jobs {jobs}");
                assert!(tally.from_end && !tally.skipped, "--jobs {jobs}: {tally:?}");
            }
            for (len, tail) in CHUNKINGS {
                let chunking = Chunking {
                    len,
                    tail,
                    ..Chunking::FILE
                };
                let (units, ended, tally) = check(&text, 2, chunking);
                assert_eq!(ended, Ok(()), "{len}/{tail} bytes");
                pretty_assertions::assert_eq!(units, expected, "{len}/{tail} bytes");
                if plain && tail >= 64 * 1024 && len < text.len() / 4 {
                    // The games are found in pieces, as with the header
                    // first.
                    assert!(tally.taken > games.len() / 2, "{tally:?}");
                }
            }
        }
    }

    /// A header that cannot be read at the end of the file is found the
    /// other way, with the same report.
    #[test]
    fn a_header_not_read_at_the_end_is_found_by_the_count() {
        let games = games(false);
        let long = "n".repeat(70 * 1024);
        for (text, counted) in [
            // Longer than the bytes looked at (and than a piece of the
            // count: it gives up, and the games are noted).
            (
                header_last(&games, ",\n").replacen(
                    r#""name": "t""#,
                    &format!(r#""name": "{long}""#),
                    1,
                ),
                false,
            ),
            // A field name with an escape.
            (
                header_last(&games, ",\n").replacen(r#""format""#, r#""\u0066ormat""#, 1),
                true,
            ),
        ] {
            let (expected, ended, _) = check(&text, 1, NOTING);
            assert_eq!(ended, Ok(()));
            assert_eq!(expected.len(), games.len());
            for jobs in [1, 2] {
                // Pieces small enough for the count to be tried.
                let chunking = Chunking {
                    skip: 8000,
                    ..Chunking::FILE
                };
                let (units, ended, tally) = check(&text, jobs, chunking);
                assert_eq!(ended, Ok(()), "--jobs {jobs}");
                pretty_assertions::assert_eq!(units, expected, "--jobs {jobs}");
                assert!(!tally.from_end, "--jobs {jobs}: {tally:?}");
                assert_eq!(tally.skipped, counted, "--jobs {jobs}: {tally:?}");
            }
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
            let (noting, noted, _) = check(&text, 1, NOTING);
            assert!(noting.is_empty(), "{noted:?}");
            assert!(
                noted.as_ref().is_err_and(|e| e.contains(error)),
                "{noted:?}"
            );
            let (expected, ended, tally) = check(&text, 1, Chunking::FILE);
            assert!(tally == Tally::default() && ended.is_err());
            let Err(message) = &ended else { unreachable!() };
            assert!(message.contains(error), "{message}");
            // Where the other way finds it.
            assert_eq!(message, noted.as_ref().unwrap_err());
            assert_eq!(expected.len(), games.len());
            assert!(expected.iter().any(|u| u.divergence.is_some()));
            for (len, tail) in CHUNKINGS {
                let (units, found, _) = check(
                    &text,
                    2,
                    Chunking {
                        len,
                        tail,
                        ..Chunking::FILE
                    },
                );
                assert_eq!(found, ended, "{len}/{tail} bytes");
                pretty_assertions::assert_eq!(units, expected, "{len}/{tail} bytes");
            }
        }
    }

    #[test]
    fn bad_input_before_a_header_is_found_where_one_job_finds_it() {
        for escapes in [true, false] {
            for text in &bad_inputs(&games(escapes), header_last) {
                let (expected, ended, _) = check(text, 1, NOTING);
                assert!(ended.is_err(), "bad input is refused: {text}");
                for skip in SKIPS {
                    for jobs in [1, 2] {
                        let (units, found, _) = check(text, jobs, skipping(skip));
                        let at = format!("{skip} bytes, --jobs {jobs}");
                        assert_eq!(found, ended, "{at}");
                        pretty_assertions::assert_eq!(units, expected, "{at}");
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]

        #[test]
        fn pieces_of_games_agree_with_one_job_on_edited_files_with_the_header_last(
            skip in 1usize..5_000,
            edits in edits(),
        ) {
            let text = edited(header_last(&forty_games(13), ",\n").into_bytes(), &edits);
            let text = String::from_utf8_lossy(&text);
            let (expected, ended, _) = check(&text, 1, NOTING);
            for jobs in [1, 2] {
                let (units, found, _) = check(&text, jobs, skipping(skip));
                proptest::prop_assert_eq!(&found, &ended);
                proptest::prop_assert_eq!(&units, &expected);
            }
        }

        #[test]
        fn a_header_read_at_the_end_agrees_with_the_other_ways_on_edited_files(
            len in 1usize..20_000,
            edits in edits(),
        ) {
            let good = header_last(&forty_games(17), ",\n").into_bytes();
            // Edited anywhere, or in the last games and the header.
            let cut = good.len() - 600;
            let mut near_the_end = good[..cut].to_vec();
            near_the_end.extend(edited(good[cut..].to_vec(), &edits));
            for text in [edited(good.clone(), &edits), near_the_end] {
                let text = String::from_utf8_lossy(&text);
                let (expected, ended, _) = check(&text, 1, Chunking::FILE);
                let (units, found, _) = check(&text, 2, Chunking { len, ..Chunking::FILE });
                proptest::prop_assert_eq!(&found, &ended);
                proptest::prop_assert_eq!(&units, &expected);
                if ended.is_ok() {
                    // What reads as a transcript reads alike either way.
                    let (noted, noted_end, _) = check(&text, 1, NOTING);
                    proptest::prop_assert_eq!(&noted_end, &ended);
                    proptest::prop_assert_eq!(&noted, &units);
                }
            }
        }

        #[test]
        fn pieces_of_any_size_agree_with_one_job_on_edited_files(
            len in 1usize..20_000,
            tail in 0usize..20_000,
            edits in edits(),
        ) {
            // Past the reader's first buffer (64 KiB), so that games are
            // passed unread.
            let text = edited(transcript(&forty_games(11), ",\n").into_bytes(), &edits);
            let text = String::from_utf8_lossy(&text);
            let (expected, ended, _) = check(&text, 1, Chunking::FILE);
            let (units, found, _) = check(&text, 2, Chunking { len, tail, ..Chunking::FILE });
            proptest::prop_assert_eq!(found, ended);
            proptest::prop_assert_eq!(units, expected);
        }
    }

    #[test]
    fn games_no_piece_can_read_are_handed_out_in_batches() {
        // Every id has an escape: no game is of the plain shape.
        let mut seed = 7;
        let games: Vec<String> = (0..60)
            .map(|g| game(&mut seed, &format!("\\u0067{g}"), 30, true, None))
            .collect();
        let text = transcript(&games, ",\n");
        let (expected, _, _) = check(&text, 1, Chunking::FILE);
        let (units, ended, tally) = check(
            &text,
            2,
            Chunking {
                len: 1024,
                tail: 1024,
                ..Chunking::FILE
            },
        );
        assert_eq!(ended, Ok(()));
        assert_eq!(units, expected);
        assert!(tally.switched, "{tally:?}");
        assert_eq!(tally.taken, 0);
    }
}
