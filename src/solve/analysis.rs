//! `kpe value`: the forced margin of a position, its best moves and a line
//! of best play, from the table, or by a search down to the table for
//! positions it does not cover.

use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::class::{Class, NotCovered};
use super::file::TableError;
use super::opening::{Opening, Stopped, after_lock};
use super::table::{MoveValue, Table, TableKnown};
use crate::board::{PITS, Pit, Player};
use crate::position::Position;
use crate::profile::Profile;
use crate::rules;

/// How far the search for positions the table does not cover may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The deepest iteration, in plies.
    pub max_depth: u32,
    /// The time after which no new iteration starts and a running one is
    /// abandoned (the last finished one is reported).
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            max_depth: 64,
            time: Duration::from_secs(10),
        }
    }
}

/// The longest line of best play shown.
pub const MAX_LINE: usize = 400;

/// What best play from a position gives, as `kpe value` prints it.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Analysis {
    /// The position.
    pub position: Position,
    /// The rules profile asked for.
    pub rules: Profile,
    /// The table's class (the profiles it covers share it).
    #[schemars(with = "String")]
    #[serde(serialize_with = "super::serialize_display")]
    pub class: Class,
    /// The player to move.
    pub mover: Player,
    /// The margin the mover can force from here on (captures to come and
    /// the end sweep): `None` when the search only bounded it.
    pub margin: Option<i8>,
    /// The lowest and highest margin the mover can force (equal when exact).
    pub bounds: [i8; 2],
    /// Whether the value is an endless 0 (the table's mark).
    pub endless: bool,
    /// Plies until a capture or the end with best play, from the table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u16>,
    /// Every legal move with its value, in pit order.
    pub moves: Vec<MoveValue>,
    /// The moves that attain the margin (all of them); empty when inexact.
    pub best: Vec<Pit>,
    /// A line of best play, when the table covers the position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<BestLine>,
    /// Where the value comes from.
    pub source: ValueSource,
}

/// Where a value comes from.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ValueSource {
    /// The game is over: the sweep.
    Over,
    /// The table.
    Table,
    /// The opening: an exact search of the positions before the lock
    /// down to the table, which play before the lock cannot make go round
    /// (spec/SOLVE.md).
    Opening {
        /// Positions before the lock valued by this search (0 when the
        /// opening file had them all).
        solved: u64,
        /// Time taken.
        seconds: f64,
        /// The opening file read, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        file: Option<String>,
    },
    /// A search down to the table.
    Search {
        /// The deepest finished iteration, in plies.
        depth: u32,
        /// Positions searched in all iterations.
        nodes: u64,
        /// Time taken.
        seconds: f64,
        /// Whether the value is exact (every line reached the table or the
        /// end, or was proven not to matter).
        exact: bool,
    },
}

/// A line of best play from the position.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BestLine {
    /// The moves.
    pub moves: Vec<Pit>,
    /// How it stops.
    pub end: LineEnd,
}

/// How a line of best play stops.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum LineEnd {
    /// The game is over: final totals, South then North.
    Over {
        /// Totals after the sweep (RES-1).
        totals: [u8; 2],
        /// The winner, `None` for a draw.
        winner: Option<Player>,
    },
    /// The line reaches an endless 0: play can go on for ever with no
    /// capture; the captured stones then.
    Endless {
        /// Stones captured by South and North when the line stops.
        captured: [u8; 2],
    },
    /// A position of the line came back (the value allows going round).
    Repeats {
        /// The ply whose position repeats an earlier one.
        at: usize,
        /// Stones captured by South and North then.
        captured: [u8; 2],
    },
    /// Stopped after [`MAX_LINE`] moves.
    Stopped,
}

/// Why a position cannot be valued.
#[derive(Debug)]
#[non_exhaustive]
pub enum ValueError {
    /// No table covers the profile (end-on-repetition).
    NotCovered(NotCovered),
    /// The table is of another class than the profile asked for.
    WrongClass {
        /// The class the profile needs.
        wanted: Class,
        /// The table's.
        table: Class,
    },
    /// A layer file is missing or refused.
    Table(TableError),
}

impl std::fmt::Display for ValueError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueError::NotCovered(e) => e.fmt(f),
            ValueError::WrongClass { wanted, table } => write!(
                f,
                "the table is for `{table}`, but the rules asked for need the table of `{wanted}`"
            ),
            ValueError::Table(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ValueError {}

impl From<TableError> for ValueError {
    fn from(e: TableError) -> ValueError {
        ValueError::Table(e)
    }
}

/// Values `position` under `profile` with `table`: from the table when it
/// covers the position, else by iterative deepening down to it within
/// `budget`.
///
/// # Errors
///
/// A [`ValueError`] when the profile is not covered, the table is of
/// another class, or a layer file the value needs is missing or refused.
pub fn analyse(
    table: &Table,
    position: &Position,
    profile: Profile,
    budget: Budget,
) -> Result<Analysis, ValueError> {
    let class = Class::of(profile).map_err(ValueError::NotCovered)?;
    if class != table.class() {
        return Err(ValueError::WrongClass {
            wanted: class,
            table: table.class(),
        });
    }
    let mut analysis = Analysis {
        position: *position,
        rules: profile,
        class,
        mover: position.to_move(),
        margin: None,
        bounds: [0, 0],
        endless: false,
        depth: None,
        moves: Vec::new(),
        best: Vec::new(),
        line: None,
        source: ValueSource::Over,
    };
    if rules::legal_moves(position, profile).is_empty() {
        let margin = final_margin(position);
        analysis.margin = Some(margin);
        analysis.bounds = [margin, margin];
        return Ok(analysis);
    }
    if table.covers(position) {
        let here = table.entry(position)?;
        analysis.margin = Some(here.margin);
        analysis.bounds = [here.margin; 2];
        analysis.endless = here.endless;
        analysis.depth = Some(here.depth);
        analysis.moves = move_values(table, position, profile)?;
        analysis.best = best_of(&analysis.moves, here.margin);
        analysis.line = Some(best_line(table, position, profile)?);
        analysis.source = ValueSource::Table;
        return Ok(analysis);
    }
    if table
        .max_stones()
        .is_some_and(|m| position.board_stones() <= m)
        && let Some(exact) = before_lock(table, position, profile, budget)?
    {
        let margin = bounds_of(&exact.moves).0;
        analysis.margin = Some(margin);
        analysis.bounds = [margin, margin];
        analysis.best = best_of(&exact.moves, margin);
        analysis.moves = exact.moves;
        analysis.line = Some(exact.line);
        analysis.source = exact.source;
        return Ok(analysis);
    }
    let (moves, source) = search_down(table, position, profile, budget)?;
    let (lo, hi) = bounds_of(&moves);
    analysis.bounds = [lo, hi];
    analysis.margin = (lo == hi).then_some(lo);
    if lo == hi {
        analysis.best = best_of(&moves, lo);
    }
    analysis.moves = moves;
    analysis.source = source;
    Ok(analysis)
}

/// The exact values of `positions` under `profile` (the margin each mover
/// can force from there on), all from one opening search down to `table`
/// that remembers every position it values: a position after the lock is
/// the table's, one before it is searched. Every position must have no
/// more stones on the board than the table holds.
///
/// # Errors
///
/// A [`ValueError`] when the profile is not the table's class, or a layer
/// the search needs is missing or refused.
pub fn exact_values(
    table: &Table,
    profile: Profile,
    positions: &[Position],
) -> Result<Vec<i8>, ValueError> {
    let class = Class::of(profile).map_err(ValueError::NotCovered)?;
    if class != table.class() {
        return Err(ValueError::WrongClass {
            wanted: class,
            table: table.class(),
        });
    }
    let known = TableKnown {
        table,
        opening: table.opening(profile)?,
    };
    let mut search = Opening::new(profile);
    positions
        .iter()
        .map(|p| match search.value(p, &known, &mut |_| true) {
            Ok(v) => Ok(v),
            Err(Stopped::Table(e)) => Err(e.into()),
            Err(Stopped::Asked) => unreachable!("never asked to stop"),
        })
        .collect()
}

/// What the opening search gives a position before the lock.
struct BeforeLock {
    moves: Vec<MoveValue>,
    line: BestLine,
    source: ValueSource,
}

/// Every move of `position` valued through `search`: exact values.
fn opening_moves(
    table: &Table,
    position: &Position,
    profile: Profile,
    search: &mut Opening,
    known: &TableKnown<'_>,
    tick: &mut dyn FnMut(u64) -> bool,
) -> Result<Vec<MoveValue>, Stopped> {
    let mut out = Vec::new();
    for pit in rules::legal_moves(position, profile) {
        let (after, report) = rules::play(position, pit, profile).expect("a legal move");
        let c = report.captured() as i8;
        let margin = c - search.value(&after, known, tick)?;
        let child = if table.covers(&after) {
            Some(table.entry(&after)?)
        } else {
            None
        };
        out.push(MoveValue {
            pit,
            captures: report.captured(),
            margin: Some(margin),
            bounds: [margin, margin],
            after: child,
        });
    }
    Ok(out)
}

/// The exact value of a position before the lock (or beyond the table's
/// lock, with no more stones than it holds): its moves valued by the
/// opening search, from the opening file when there is one, and a line of
/// best play that goes on into the table. `None` when the search did not
/// finish within `budget`'s time.
fn before_lock(
    table: &Table,
    position: &Position,
    profile: Profile,
    budget: Budget,
) -> Result<Option<BeforeLock>, ValueError> {
    let started = Instant::now();
    let deadline = started + budget.time;
    let opening = table.opening(profile)?;
    let file = opening.as_ref().map(|f| f.path().display().to_string());
    let known = TableKnown { table, opening };
    let mut search = Opening::new(profile);
    let mut tick = |_| Instant::now() < deadline;
    let run = |search: &mut Opening, tick: &mut dyn FnMut(u64) -> bool| {
        let moves = opening_moves(table, position, profile, search, &known, tick)?;
        // The line: a best move at each ply (a capture first, else the
        // first in pit order) until the lock opens, the table after it.
        // Every move before the lock raises the potential, so it ends.
        let mut line = Vec::new();
        let mut here = *position;
        while !after_lock(&here) && !rules::legal_moves(&here, profile).is_empty() {
            let options = opening_moves(table, &here, profile, search, &known, tick)?;
            let value = bounds_of(&options).0;
            let pick = options
                .iter()
                .filter(|m| m.margin == Some(value))
                .min_by_key(|m| (m.captures == 0, m.pit))
                .expect("a best move");
            line.push(pick.pit);
            here = rules::play(&here, pick.pit, profile).expect("legal").0;
        }
        let rest = best_line(table, &here, profile)?;
        let end = match rest.end {
            LineEnd::Repeats { at, captured } => LineEnd::Repeats {
                at: at + line.len(),
                captured,
            },
            end => end,
        };
        line.extend(rest.moves);
        Ok::<_, Stopped>((moves, BestLine { moves: line, end }))
    };
    match run(&mut search, &mut tick) {
        Ok((moves, line)) => Ok(Some(BeforeLock {
            moves,
            line,
            source: ValueSource::Opening {
                solved: search.solved,
                seconds: started.elapsed().as_secs_f64(),
                file,
            },
        })),
        Err(Stopped::Asked) => Ok(None),
        Err(Stopped::Table(e)) => Err(e.into()),
    }
}

/// The margin of a game that is over, for the player to move: the sweep
/// (END-2) added to what each side captured.
fn final_margin(position: &Position) -> i8 {
    let [s, n] = rules::sweep(position).map(|t| t as i8);
    let c = [
        position.captured(Player::South),
        position.captured(Player::North),
    ]
    .map(|t| t as i8);
    let margin = (s - c[0]) - (n - c[1]);
    if position.to_move() == Player::South {
        margin
    } else {
        -margin
    }
}

/// The values of `position`'s moves by iterative deepening down to the
/// table, within `budget`: the deepest finished search (each move with
/// its bounds, wide open when none finished) and how it was found.
fn search_down(
    table: &Table,
    position: &Position,
    profile: Profile,
    budget: Budget,
) -> Result<(Vec<MoveValue>, ValueSource), ValueError> {
    let started = Instant::now();
    let mut search = Search {
        table,
        profile,
        deadline: started + budget.time,
        nodes: 0,
        memo: FxHashMap::default(),
    };
    let mut finished = None;
    for depth in 1..=budget.max_depth {
        match search.moves(position, depth) {
            Ok(moves) => {
                let exact = bounds_of(&moves).0 == bounds_of(&moves).1;
                finished = Some((depth, moves));
                if exact {
                    break;
                }
            }
            Err(Stop::Time) => break,
            Err(Stop::Table(e)) => return Err(e.into()),
        }
        if Instant::now() >= search.deadline {
            break;
        }
    }
    let (depth, moves) = finished.unwrap_or_else(|| {
        let s = position.board_stones() as i8;
        let unknown = rules::legal_moves(position, profile)
            .iter()
            .map(|&pit| MoveValue {
                pit,
                captures: 0,
                margin: None,
                bounds: [-s, s],
                after: None,
            })
            .collect();
        (0, unknown)
    });
    let (lo, hi) = bounds_of(&moves);
    let source = ValueSource::Search {
        depth,
        nodes: search.nodes,
        seconds: started.elapsed().as_secs_f64(),
        exact: lo == hi,
    };
    Ok((moves, source))
}

fn bounds_of(moves: &[MoveValue]) -> (i8, i8) {
    let lo = moves.iter().map(|m| m.bounds[0]).max().unwrap_or(0);
    let hi = moves.iter().map(|m| m.bounds[1]).max().unwrap_or(0);
    (lo, hi)
}

fn best_of(moves: &[MoveValue], margin: i8) -> Vec<Pit> {
    moves
        .iter()
        .filter(|m| m.margin == Some(margin))
        .map(|m| m.pit)
        .collect()
}

/// The value of every legal move of a covered position.
fn move_values(
    table: &Table,
    position: &Position,
    profile: Profile,
) -> Result<Vec<MoveValue>, TableError> {
    rules::legal_moves(position, profile)
        .into_iter()
        .map(|pit| {
            let (after, report) = rules::play(position, pit, profile).expect("a legal move");
            let child = table.entry(&after)?;
            let margin = report.captured() as i8 - child.margin;
            Ok(MoveValue {
                pit,
                captures: report.captured(),
                margin: Some(margin),
                bounds: [margin, margin],
                after: Some(child),
            })
        })
        .collect()
}

/// The move best play picks among the best moves of a covered position:
/// one that captures or ends first; else the winner (margin above 0) takes
/// the least depth, so that the game makes progress, the loser the
/// greatest, to hold out longest; at 0 a move to a state that is not
/// endless, then the least depth.
///
/// # Errors
///
/// A [`TableError`] when a layer file is missing or refused.
pub fn choose(
    table: &Table,
    position: &Position,
    profile: Profile,
) -> Result<Option<(Pit, i8)>, TableError> {
    let here = table.entry(position)?;
    let moves = move_values(table, position, profile)?;
    let best = moves
        .iter()
        .filter(|m| m.margin == Some(here.margin))
        .min_by_key(|m| {
            let after = m.after.expect("covered");
            let quiet = m.captures == 0;
            let depth = i32::from(after.depth);
            let order = match here.margin.signum() {
                1 => depth,
                -1 => -depth,
                _ => i32::from(after.endless) * 1000 + depth,
            };
            (quiet, order)
        });
    Ok(best.map(|m| (m.pit, here.margin)))
}

/// A line of best play from a covered position, by [`choose`].
fn best_line(table: &Table, start: &Position, profile: Profile) -> Result<BestLine, TableError> {
    let mut seen: FxHashMap<([u8; PITS], Player), usize> = FxHashMap::default();
    let mut position = *start;
    let mut moves = Vec::new();
    let captured = |p: &Position| [p.captured(Player::South), p.captured(Player::North)];
    loop {
        if rules::legal_moves(&position, profile).is_empty() {
            let totals = rules::sweep(&position);
            let winner = match totals[0].cmp(&totals[1]) {
                std::cmp::Ordering::Greater => Some(Player::South),
                std::cmp::Ordering::Less => Some(Player::North),
                std::cmp::Ordering::Equal => None,
            };
            return Ok(BestLine {
                moves,
                end: LineEnd::Over { totals, winner },
            });
        }
        if table.entry(&position)?.endless {
            return Ok(BestLine {
                moves,
                end: LineEnd::Endless {
                    captured: captured(&position),
                },
            });
        }
        if let Some(&at) = seen.get(&(position.pits(), position.to_move())) {
            return Ok(BestLine {
                moves,
                end: LineEnd::Repeats {
                    at,
                    captured: captured(&position),
                },
            });
        }
        if moves.len() == MAX_LINE {
            return Ok(BestLine {
                moves,
                end: LineEnd::Stopped,
            });
        }
        seen.insert((position.pits(), position.to_move()), moves.len());
        let Some((pit, _)) = choose(table, &position, profile)? else {
            unreachable!("a position with legal moves has a best one");
        };
        position = rules::play(&position, pit, profile)
            .expect("a legal move")
            .0;
        moves.push(pit);
    }
}

/// Why a search iteration stopped early.
enum Stop {
    Time,
    Table(TableError),
}

/// A position for the search: pits, mover and used pits.
type SearchKey = ([u8; PITS], Player, [u8; 2]);

/// Iterative deepening with bounds: a position the table covers is exact,
/// one at the depth limit is anywhere between losing and winning every stone
/// on the board.
struct Search<'a> {
    table: &'a Table,
    profile: Profile,
    deadline: Instant,
    nodes: u64,
    /// Bounds by position (captured counts aside: they do not change what
    /// follows) with the depth they were searched to.
    memo: FxHashMap<SearchKey, (u32, i8, i8)>,
}

impl Search<'_> {
    fn moves(&mut self, position: &Position, depth: u32) -> Result<Vec<MoveValue>, Stop> {
        let mut out = Vec::new();
        for pit in rules::legal_moves(position, self.profile) {
            let (after, report) = rules::play(position, pit, self.profile).expect("a legal move");
            let c = report.captured() as i8;
            let (lo, hi) = self.bounds(&after, depth - 1)?;
            let bounds = [c - hi, c - lo];
            out.push(MoveValue {
                pit,
                captures: report.captured(),
                margin: (lo == hi).then_some(c - lo),
                bounds,
                after: None,
            });
        }
        Ok(out)
    }

    fn bounds(&mut self, position: &Position, depth: u32) -> Result<(i8, i8), Stop> {
        if rules::legal_moves(position, self.profile).is_empty() {
            let own = position.row_stones(position.to_move()) as i8;
            let theirs = position.row_stones(position.to_move().opponent()) as i8;
            return Ok((own - theirs, own - theirs));
        }
        if self.table.covers(position) {
            let e = self.table.entry(position).map_err(Stop::Table)?;
            return Ok((e.margin, e.margin));
        }
        let s = position.board_stones() as i8;
        if depth == 0 {
            return Ok((-s, s));
        }
        let key = (position.pits(), position.to_move(), position.used);
        if let Some(&(searched, lo, hi)) = self.memo.get(&key)
            && (searched >= depth || lo == hi)
        {
            return Ok((lo, hi));
        }
        self.nodes += 1;
        if self.nodes.is_multiple_of(4096) && Instant::now() >= self.deadline {
            return Err(Stop::Time);
        }
        let (mut lo, mut hi) = (i8::MIN, i8::MIN);
        for pit in rules::legal_moves(position, self.profile) {
            let (after, report) = rules::play(position, pit, self.profile).expect("a legal move");
            let c = report.captured() as i8;
            let (clo, chi) = self.bounds(&after, depth - 1)?;
            lo = lo.max(c - chi);
            hi = hi.max(c - clo);
        }
        self.memo.insert(key, (depth, lo, hi));
        Ok((lo, hi))
    }
}

fn signed(m: i8) -> String {
    if m > 0 {
        format!("+{m}")
    } else {
        m.to_string()
    }
}

impl Analysis {
    /// The report for people, as `kpe value` prints it.
    #[must_use]
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "position: {} (rules {}; table {})",
            self.position, self.rules, self.class
        );
        let _ = writeln!(out, "{}", self.value_text());
        if let Some(m) = self.margin {
            let _ = writeln!(out, "{}", self.outcome_text(m));
        }
        if !self.best.is_empty() {
            let best: Vec<String> = self.best.iter().map(ToString::to_string).collect();
            let _ = writeln!(out, "best moves: {}", best.join(" "));
        }
        if !self.moves.is_empty() {
            let _ = writeln!(out, "moves:");
        }
        for m in &self.moves {
            let _ = writeln!(out, "  {}", move_text(m));
        }
        if let Some(d) = self.depth.filter(|_| !self.endless) {
            let more = if d >= 1022 { " or more" } else { "" };
            let _ = writeln!(out, "depth: {d}{more} plies to the next capture or the end");
        }
        if let Some(line) = &self.line {
            let _ = writeln!(out, "{}", line_text(line));
        }
        let _ = writeln!(out, "{}", self.source_text());
        if let Some(note) = self.solved_note() {
            let _ = writeln!(out, "{note}");
        }
        out
    }

    /// When only bounds were found for the initial position: what the full
    /// solve found (spec/solved.yaml), and the command that writes the
    /// opening file that answers exactly here.
    fn solved_note(&self) -> Option<String> {
        if self.margin.is_some() || self.position != Position::initial() {
            return None;
        }
        let row = super::value_of_the_game(self.rules)?;
        let best: Vec<String> = row.best.iter().map(ToString::to_string).collect();
        Some(format!(
            "the full solve found {} for South, best {} (spec/solved.yaml); `{}` writes the opening file that answers exactly here",
            signed(row.value),
            best.join(" "),
            row.command
        ))
    }

    /// `value: ...`: the margin for the player to move, or its bounds.
    fn value_text(&self) -> String {
        let mover = self.mover;
        match self.margin {
            Some(m) => {
                let endless = if self.endless {
                    " (endless: one player holds it only by never capturing again)"
                } else {
                    ""
                };
                format!(
                    "value: {} for {mover}, the player to move{endless}",
                    signed(m)
                )
            }
            None => format!(
                "value: between {} and {} for {mover}, the player to move (not exact)",
                signed(self.bounds[0]),
                signed(self.bounds[1])
            ),
        }
    }

    /// `with best play: ...`: the final score that margin `m` gives, or
    /// the endless play the best line ends in.
    fn outcome_text(&self, m: i8) -> String {
        let (p, mover) = (&self.position, self.mover);
        let s = i16::from(p.board_stones());
        let own = i16::from(p.captured(mover)) + (s + i16::from(m)) / 2;
        let theirs = i16::from(p.captured(mover.opponent())) + (s - i16::from(m)) / 2;
        let (south, north) = if mover == Player::South {
            (own, theirs)
        } else {
            (theirs, own)
        };
        let verdict = match south.cmp(&north) {
            std::cmp::Ordering::Greater => "South wins",
            std::cmp::Ordering::Less => "North wins",
            std::cmp::Ordering::Equal => "a draw",
        };
        match self.line.as_ref().map(|l| &l.end) {
            Some(LineEnd::Endless { captured } | LineEnd::Repeats { captured, .. }) => {
                let left = 48 - captured[0] - captured[1];
                format!(
                    "with best play: the game never ends: South has captured {}, North {}, and {left} stones go round for ever",
                    captured[0], captured[1]
                )
            }
            _ => format!("with best play: South {south} - North {north}: {verdict}"),
        }
    }

    /// `source: ...`: where the value came from.
    fn source_text(&self) -> String {
        match &self.source {
            ValueSource::Over => "source: the game is over (the sweep, END-2)".to_owned(),
            ValueSource::Table => "source: the table".to_owned(),
            ValueSource::Opening {
                solved,
                seconds,
                file,
            } => {
                let file = file
                    .as_ref()
                    .map_or_else(String::new, |f| format!(" and the opening file {f}"));
                format!(
                    "source: the opening, exact: {solved} positions before the lock solved now in {seconds:.2} s, down to the table{file}"
                )
            }
            ValueSource::Search {
                depth,
                nodes,
                seconds,
                exact,
            } => format!(
                "source: search down to the table, {depth} plies deep, {nodes} positions in {seconds:.2} s: {}",
                if *exact {
                    "exact"
                } else {
                    "bounds only (raise --seconds or --depth, or build the whole table and its openings with `kpe solve`)"
                }
            ),
        }
    }
}

/// One move's row: its pit, value (or bounds), captures and what follows.
fn move_text(m: &MoveValue) -> String {
    let value = match m.margin {
        Some(v) => format!("{:>4}", signed(v)),
        None => format!("{}..{}", signed(m.bounds[0]), signed(m.bounds[1])),
    };
    let captures = if m.captures > 0 {
        format!("  captures {}", m.captures)
    } else {
        String::new()
    };
    let after = match m.after {
        Some(e) if e.endless => "  then endless",
        _ => "",
    };
    format!("{}  {value}{captures}{after}", m.pit)
}

/// `best line (N plies): ...` and how it ends, on two lines.
fn line_text(line: &BestLine) -> String {
    let moves: Vec<String> = line.moves.iter().map(ToString::to_string).collect();
    let shown = if moves.is_empty() {
        "(none)".to_owned()
    } else {
        moves.join(" ")
    };
    let end = match &line.end {
        LineEnd::Over { totals, .. } => {
            format!("game over: South {} - North {}", totals[0], totals[1])
        }
        LineEnd::Endless { captured } => format!(
            "then endless play with no capture (captured South {} - North {})",
            captured[0], captured[1]
        ),
        LineEnd::Repeats { at, captured } => format!(
            "then the position after ply {at} comes back: play may go round for ever (captured South {} - North {})",
            captured[0], captured[1]
        ),
        LineEnd::Stopped => format!("stopped after {MAX_LINE} plies"),
    };
    format!("best line ({} plies): {shown}\n  {end}", moves.len())
}
