//! Part 2: the smallest positions where the two readings answer
//! differently, by exhaustive search over valid positions with the fewest
//! stones on the board first.
//!
//! Every answer a scenario can pin is compared: the legal moves, and for
//! each move the position after it, its captures and whether it ends the
//! game. Under `end-on-repetition` the difference lies in the game's
//! history, not in one position, so the search also plays every line of up
//! to [`Options::max_line`] moves from positions of at most
//! [`Options::line_stones`] stones, shortest lines first.

use std::collections::BTreeMap;

use serde::Serialize;

use super::options::Options;
use crate::board::{PITS, Pit, Player, ROW, START_STONES, TOTAL_STONES};
use crate::game::Game;
use crate::position::{Position, Setup};
use crate::profile::{Profile, Switch};
use crate::report::Capture;
use crate::scenario::{Expect, Reference, Rejection, Scenario, Subject, SwitchName};

/// What the search found.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SearchPart {
    /// The most stones on the board tried.
    pub max_stones: u8,
    /// The longest line tried from a small position (1 unless the
    /// difference can lie in the history).
    pub max_line: usize,
    /// Whether the alternative depends on the game's history
    /// (`end-on-repetition`), so that lines of moves were searched.
    pub needs_history: bool,
    /// The most stones on the board of a start position for those lines.
    pub line_stones: u8,
    /// Valid start positions tried.
    pub positions_tried: u64,
    /// The fewest stones on the board of a position where the readings
    /// differ; none if no position up to `max_stones` differs.
    pub stones: Option<u8>,
    /// The length of the line that shows it (1: a single move).
    pub line: Option<usize>,
    /// How many start positions with that many stones differ, with a line
    /// of that length.
    pub differing_positions: u64,
    /// A few of them, each kind of difference first.
    pub examples: Vec<Example>,
}

/// One small position where the readings differ.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Example {
    /// The start position.
    pub start: Position,
    /// Stones on its board.
    pub stones: u8,
    /// The moves played from it; the last one is where the readings part.
    pub moves: Vec<Pit>,
    /// Which answers differ: `legal moves`, `position`, `captures`, `end`.
    pub differs: Vec<String>,
    /// The default reading's answer to the last move.
    pub default: Answer,
    /// The alternative's answer.
    pub alternative: Answer,
    /// The pits whose contents differ between the two answers (or the pits
    /// legal under one reading only).
    pub marks: Vec<Pit>,
    /// Two scenarios indented as the entries of a `conformance/*.yaml`
    /// file's `scenarios:` list, so that appended to one they load: the
    /// default's answer and the alternative's, each pinned to its reading.
    pub yaml: String,
}

/// The rules' answer to the last move of an example under one reading.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Answer {
    /// The legal moves before the last move.
    pub legal: Vec<Pit>,
    /// The position after it; none when it is refused.
    pub position: Option<Position>,
    /// The reason code it is refused with, if it is.
    pub refused: Option<String>,
    /// Its captures, landing pit first.
    pub captures: Vec<Capture>,
    /// How the game stands after it, in words.
    pub outcome: String,
}

/// Searches valid positions, fewest stones first, for differences between
/// the default profile and `alternative`.
#[must_use]
pub fn search(alternative: Profile, options: &Options) -> SearchPart {
    let needs_history = alternative.changes().any(|s| s == Switch::EndOnRepetition);
    let mut part = SearchPart {
        max_stones: options.max_stones,
        max_line: if needs_history { options.max_line } else { 1 },
        needs_history,
        line_stones: if needs_history {
            options.line_stones
        } else {
            0
        },
        positions_tried: 0,
        stones: None,
        line: None,
        differing_positions: 0,
        examples: Vec::new(),
    };
    // Captures take 2 or 4 stones, so the board always holds an even number.
    for stones in (2..=options.max_stones.min(TOTAL_STONES)).step_by(2) {
        let starts = positions(stones);
        part.positions_tried += starts.len() as u64;
        let longest = if needs_history && stones <= options.line_stones {
            options.max_line
        } else {
            1
        };
        for depth in 1..=longest.max(1) {
            let found: Vec<Found> = starts
                .iter()
                .filter_map(|&p| first_at_depth(p, alternative, depth))
                .collect();
            if !found.is_empty() {
                part.stones = Some(stones);
                part.line = Some(depth);
                part.differing_positions = found.len() as u64;
                part.examples = pick(found, options.examples)
                    .into_iter()
                    .enumerate()
                    .map(|(k, f)| example(f, alternative, k + 1))
                    .collect();
                return part;
            }
        }
    }
    part
}

/// Every valid position with exactly `stones` on the board, in a fixed
/// order: pit counts, then side to move, then unused pits. Captured stones
/// are split as evenly as evenness allows; they change no answer but the
/// final totals.
fn positions(stones: u8) -> Vec<Position> {
    let mut out = Vec::new();
    let mut pits = [0u32; PITS];
    distribute(u32::from(stones), 0, &mut pits, &mut |pits| {
        // Pits with fewer than 6 stones must have been used (LOCK-2); each
        // pit with 6 or more may be used or not.
        let free: Vec<usize> = (0..PITS)
            .filter(|&i| pits[i] >= u32::from(START_STONES))
            .collect();
        for to_move in Player::BOTH {
            for unused in 0..(1u32 << free.len()) {
                let mut used = [[true; ROW]; 2];
                for (bit, &i) in free.iter().enumerate() {
                    if unused & (1 << bit) != 0 {
                        used[i / ROW][i % ROW] = false;
                    }
                }
                let taken = u32::from(TOTAL_STONES - stones);
                let captured =
                    crate::judge::captured_by_open_rows(taken, used, || (taken / 2) & !1);
                let setup = Setup {
                    pits: pits.to_vec(),
                    captured,
                    to_move,
                    used,
                };
                if let Ok(p) = Position::from_setup(&setup) {
                    out.push(p);
                }
            }
        }
    });
    out
}

/// Calls `f` with every way of putting `left` stones into pits `i..`.
fn distribute(left: u32, i: usize, pits: &mut [u32; PITS], f: &mut dyn FnMut(&[u32; PITS])) {
    if i == PITS - 1 {
        pits[i] = left;
        f(pits);
        return;
    }
    for here in 0..=left {
        pits[i] = here;
        distribute(left - here, i + 1, pits, f);
    }
}

/// A line whose last move is answered differently.
struct Found {
    start: Position,
    moves: Vec<Pit>,
    differs: Vec<String>,
}

/// The first line (in pit order) of exactly `depth` moves from `start`
/// whose answers agree up to its last move and differ there.
fn first_at_depth(start: Position, alternative: Profile, depth: usize) -> Option<Found> {
    let games = (
        Game::new(start, Profile::DEFAULT),
        Game::new(start, alternative),
    );
    let mut moves = Vec::new();
    walk(&games, depth, &mut moves).map(|differs| Found {
        start,
        moves,
        differs,
    })
}

/// Depth-first through lines that agree so far; `moves` ends up holding
/// the line that parts, if any.
fn walk(games: &(Game, Game), depth: usize, moves: &mut Vec<Pit>) -> Option<Vec<String>> {
    let (default, alternative) = games;
    let legal_d = default.legal_moves();
    let legal_a = alternative.legal_moves();
    if depth == 1 && legal_d != legal_a {
        let only_one = legal_d
            .iter()
            .find(|p| !legal_a.contains(p))
            .or_else(|| legal_a.iter().find(|p| !legal_d.contains(p)))
            .copied();
        moves.push(only_one.expect("different move lists differ in a move"));
        return Some(vec!["legal moves".to_owned()]);
    }
    if legal_d != legal_a {
        return None; // parted earlier: found at a shallower depth
    }
    for pit in legal_d {
        let mut next = games.clone();
        let d = next.0.play(pit).map(|r| (r.captures.clone(), r.end)).ok()?;
        let a = next.1.play(pit).map(|r| (r.captures.clone(), r.end)).ok()?;
        let mut differs = Vec::new();
        if next.0.current() != next.1.current() {
            differs.push("position".to_owned());
        }
        if d.0 != a.0 {
            differs.push("captures".to_owned());
        }
        if d.1 != a.1 {
            differs.push("end".to_owned());
        }
        moves.push(pit);
        if depth == 1 {
            if !differs.is_empty() {
                return Some(differs);
            }
        } else if differs.is_empty()
            && let Some(found) = walk(&next, depth - 1, moves)
        {
            return Some(found);
        }
        moves.pop();
    }
    None
}

/// Up to `n` lines, the first of each kind of difference first.
fn pick(found: Vec<Found>, n: usize) -> Vec<Found> {
    let mut by_kind: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    let mut first = Vec::new();
    let mut rest = Vec::new();
    for f in found {
        let seen = by_kind.entry(f.differs.clone()).or_insert(0);
        *seen += 1;
        if *seen == 1 {
            first.push(f);
        } else {
            rest.push(f);
        }
    }
    first.into_iter().chain(rest).take(n).collect()
}

/// The answers to the last move of a line under `profile`.
fn answer(start: Position, moves: &[Pit], profile: Profile) -> Answer {
    let (last, before) = moves.split_last().expect("a line has a move");
    let mut game =
        Game::replay(start, profile, before).expect("the line agrees before its last move");
    let legal = game.legal_moves().to_vec();
    match game.play(*last) {
        Ok(report) => {
            let captures = report.captures.to_vec();
            Answer {
                legal,
                position: Some(*game.current()),
                refused: None,
                captures,
                outcome: game.outcome().to_string(),
            }
        }
        Err(e) => Answer {
            legal,
            position: None,
            refused: Some(e.reason.code().to_owned()),
            captures: Vec::new(),
            outcome: game.outcome().to_string(),
        },
    }
}

fn example(found: Found, alternative: Profile, k: usize) -> Example {
    let default = answer(found.start, &found.moves, Profile::DEFAULT);
    let alt = answer(found.start, &found.moves, alternative);
    let marks = match (default.position, alt.position) {
        (Some(d), Some(a)) => Pit::ALL
            .into_iter()
            .filter(|&p| d.stones(p) != a.stones(p))
            .collect(),
        _ => Pit::ALL
            .into_iter()
            .filter(|p| default.legal.contains(p) != alt.legal.contains(p))
            .collect(),
    };
    // A slug: `skip-origin`, or `feeding-by-sowing` for a setting written
    // `setting=value` (after `kpe adopt`).
    let id = format!(
        "{}-smallest-{k}",
        alternative.to_string().replace([',', '='], "-")
    );
    let scenarios = [
        scenario(&found, &default, Profile::DEFAULT, alternative, &id),
        scenario(&found, &alt, alternative, alternative, &id),
    ];
    let yaml = crate::scenario::scenario_entries(&[&scenarios[0], &scenarios[1]]);
    Example {
        start: found.start,
        stones: found.start.board_stones(),
        moves: found.moves,
        differs: found.differs,
        default,
        alternative: alt,
        marks,
        yaml,
    }
}

/// The scenario that pins `answer`, the answer under `profile`. It is
/// pinned to the disputed switches; when the answer also depends on
/// another switch, to every switch.
fn scenario(
    found: &Found,
    answer: &Answer,
    profile: Profile,
    disputed: Profile,
    id: &str,
) -> Scenario {
    let suffix = if profile.is_default() {
        "default"
    } else {
        "alternative"
    };
    let last = found.moves.len();
    let mut rules: Vec<String> = disputed
        .changes()
        .map(|s| super::spec::reading(s).rule)
        .collect();
    let (before, _) = found.moves.split_at(last - 1);
    let mut game =
        Game::replay(found.start, profile, before).expect("the line agrees before its last move");
    match game.play(found.moves[last - 1]) {
        Ok(report) => rules.extend(report.rules().into_iter().map(str::to_owned)),
        Err(e) => rules.push(e.reason.rule().to_owned()),
    }
    // Every move takes these steps; the scenario cites the ones that decide it.
    let every_move = ["MOVE-1", "MOVE-2", "SOW-1", "SOW-2", "SOW-3", "LOCK-2"];
    let mut seen = std::collections::BTreeSet::new();
    rules.retain(|r| !every_move.contains(&r.as_str()) && seen.insert(r.clone()));
    let mut expect = vec![Expect {
        ply: last - 1,
        legal: Some(answer.legal.clone()),
        ..Expect::default()
    }];
    if let Some(p) = answer.position {
        expect.push(Expect {
            ply: last,
            position: Some(p.to_string()),
            captures: Some(answer.captures.clone()),
            ..Expect::default()
        });
    }
    let mut s = Scenario {
        id: format!("{id}-{suffix}"),
        rules,
        description: format!(
            "{} stones on the board: the smallest position where `{disputed}` changes an answer ({}). This is the {} reading's answer.",
            found.start.board_stones(),
            found.differs.join(", "),
            if profile.is_default() {
                "default"
            } else {
                "alternative"
            },
        ),
        when: disputed
            .changes()
            .map(|s| (SwitchName(s), profile.has(s)))
            .collect(),
        start: Some(found.start.to_string()),
        invalid_start: None,
        moves: found.moves.clone(),
        expect,
        reject: answer.refused.as_ref().map(|reason| Rejection {
            ply: last,
            reason: reason.clone(),
        }),
        result: Some(game.outcome()),
    };
    let holds = |s: &Scenario| {
        s.profiles()
            .all(|p| Reference::new().verify("dispute", s, p).is_ok())
    };
    if !holds(&s) {
        s.when = Switch::ALL
            .into_iter()
            .map(|sw| (SwitchName(sw), profile.has(sw)))
            .collect();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_valid_distinct_and_complete_for_two_stones() {
        let all = positions(2);
        // 36 ways to put 2 stones in 8 pits, 2 sides, every pit used.
        assert_eq!(all.len(), 72);
        let distinct: std::collections::HashSet<_> = all.iter().collect();
        assert_eq!(distinct.len(), 72);
        assert!(all.iter().all(|p| p.board_stones() == 2));
        // With a pit of 6 or more, its owner may not have used it yet.
        assert!(
            positions(8)
                .iter()
                .any(|p| !p.lock_open(Player::South) && p.to_move() == Player::South)
        );
    }

    #[test]
    fn end_when_unfeedable_parts_at_two_stones_on_the_legal_moves() {
        let options = Options {
            examples: 2,
            ..Options::default()
        };
        let alternative = crate::dispute::alternative("I4").unwrap();
        let part = search(alternative, &options);
        assert_eq!(part.stones, Some(2));
        assert_eq!(part.line, Some(1));
        // Kinds of difference come first: a move that leaves an unfeedable
        // position ends the game, and the unfeedable position has no moves.
        let kinds: Vec<&[String]> = part.examples.iter().map(|e| e.differs.as_slice()).collect();
        assert_eq!(kinds, [["end"], ["legal moves"]]);
        // The answer with no moves is that of the profile that ends the
        // game, the alternative or (after `kpe adopt I4`) the default.
        let e = &part.examples[1];
        let ends = if alternative.has(Switch::EndWhenUnfeedable) {
            &e.alternative
        } else {
            &e.default
        };
        assert!(ends.legal.is_empty(), "{e:?}");
        assert_eq!(ends.refused.as_deref(), Some("game-over"));
    }

    #[test]
    fn every_example_scenario_holds_under_the_reference() {
        let options = Options {
            max_stones: 12,
            ..Options::default()
        };
        for switch in ["skip-origin", "strict-lock", "end-when-unfeedable"] {
            let profile: Profile = crate::dispute::alternative(switch).unwrap();
            let part = search(profile, &options);
            assert!(!part.examples.is_empty(), "{switch}");
            for e in &part.examples {
                // The loader's own checks accept them appended as printed.
                let file = format!("topic: pasted\nscenarios:\n{}", e.yaml);
                let scenarios = crate::scenario::parse_file("pasted.yaml", &file)
                    .unwrap_or_else(|err| panic!("{switch}: {err}\n{file}"))
                    .scenarios;
                assert_eq!(scenarios.len(), 2);
                for s in &scenarios {
                    assert!(s.profiles().count() > 0);
                    for p in s.profiles() {
                        Reference::new()
                            .verify("example", s, p)
                            .unwrap_or_else(|f| panic!("{switch}: {f}\n{}", e.yaml));
                    }
                }
                assert!(scenarios[0].profiles().any(|p| p.is_default()));
                assert!(scenarios[1].profiles().any(|p| p == profile));
            }
        }
    }
}
