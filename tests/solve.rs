//! The solver against a plain minimax written apart from it.
//!
//! The minimax knows nothing of the solver: it lists positions with kpe's
//! own notation types, plays moves with the reference `legal_moves` and
//! `play`, and finds values by iterating the minimax rule over all
//! positions at once from "nothing decided" until nothing changes (value
//! iteration), where the solver grows won and lost sets backward from
//! captures. After `k` rounds an iteration holds the value of the game cut
//! off after `k` plies, the rest scoring 0; on a finite graph that is the
//! value of the game once `k` passes the longest forced line, and a round
//! that changes nothing can never be followed by one that does, so the
//! first fixed point is the value.

use std::path::Path;

use assert_cmd::Command;
use kpe::solve::{Class, Table};
use kpe::{Player, Position, Profile, Setup, Switch, legal_moves, play};
use predicates::prelude::PredicateBooleanExt as _;
use rustc_hash::FxHashMap;

/// Every board with an even number of stones, at most `max`, in 8 pits.
fn boards(max: u32) -> Vec<Vec<u32>> {
    fn fill(pit: usize, left: u32, board: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if pit == 7 {
            board.push(left);
            out.push(board.clone());
            board.pop();
            return;
        }
        for here in 0..=left {
            board.push(here);
            fill(pit + 1, left - here, board, out);
            board.pop();
        }
    }
    let mut out = Vec::new();
    for stones in (0..=max).step_by(2) {
        fill(0, stones, &mut Vec::new(), &mut out);
    }
    out
}

/// Both positions of a board after the lock (South and North to move).
fn positions(max: u32) -> Vec<Position> {
    let mut out = Vec::new();
    for pits in boards(max) {
        let off = 48 - pits.iter().sum::<u32>();
        for to_move in Player::BOTH {
            let setup = Setup {
                pits: pits.clone(),
                captured: [off, 0],
                to_move,
                used: [[true; 4]; 2],
            };
            out.push(Position::from_setup(&setup).expect("a valid position"));
        }
    }
    out
}

/// A position's key for what follows: the pits and the mover (captured
/// stones do not change the play).
fn key(p: &Position) -> ([u8; 8], Player) {
    (p.pits(), p.to_move())
}

/// The game graph the minimax works on: for each position, its sweep
/// margin if the game is over, else its moves as (stones captured, index of
/// the position after).
#[derive(PartialEq, Eq, Debug)]
struct Graph {
    keys: Vec<([u8; 8], Player)>,
    stones: Vec<u8>,
    over: Vec<Option<i8>>,
    first: Vec<usize>,
    moves: Vec<(i8, usize)>,
}

impl Graph {
    fn new(max: u32, profile: Profile) -> Graph {
        let all = positions(max);
        let index: FxHashMap<_, usize> = all.iter().enumerate().map(|(i, p)| (key(p), i)).collect();
        let mut graph = Graph {
            keys: all.iter().map(key).collect(),
            stones: all.iter().map(Position::board_stones).collect(),
            over: Vec::new(),
            first: vec![0],
            moves: Vec::new(),
        };
        for p in &all {
            let legal = legal_moves(p, profile);
            let mover = p.row_stones(p.to_move()) as i8;
            let theirs = p.row_stones(p.to_move().opponent()) as i8;
            graph.over.push(legal.is_empty().then_some(mover - theirs));
            for pit in legal {
                let (after, report) = play(p, pit, profile).expect("legal");
                graph
                    .moves
                    .push((report.captured() as i8, index[&key(&after)]));
            }
            graph.first.push(graph.moves.len());
        }
        graph
    }

    /// The positions with a move that captures nothing to each position.
    fn quiet_predecessors(&self) -> Vec<Vec<usize>> {
        let mut preds = vec![Vec::new(); self.keys.len()];
        for i in 0..self.keys.len() {
            for &(c, j) in &self.moves[self.first[i]..self.first[i + 1]] {
                if c == 0 {
                    preds[j].push(i);
                }
            }
        }
        preds
    }

    /// Value iteration over the positions `layer` (one stone count), the
    /// values of the positions below already in `v`, `ways` values per
    /// position: each round sets every value to the best move, `out(c, j)`
    /// for a move leaving the layer and minus the other player's value
    /// `other(w)` of the position reached for one staying, until a round
    /// changes nothing. A round recomputes only the values with a move to a
    /// value the round before changed: the others would come out the same.
    fn iterate(
        &self,
        layer: &[usize],
        preds: &[Vec<usize>],
        v: &mut [i8],
        ways: usize,
        other: fn(usize) -> usize,
        out: &dyn Fn(i8, usize) -> i8,
    ) {
        let mut todo: Vec<(usize, usize)> = layer
            .iter()
            .flat_map(|&i| (0..ways).map(move |w| (i, w)))
            .collect();
        let mut queued = vec![false; v.len()];
        while !todo.is_empty() {
            let mut changed = Vec::new();
            for &(i, w) in &todo {
                queued[ways * i + w] = false;
                let value = match self.over[i] {
                    Some(sweep) => sweep,
                    None => {
                        let mut best = i8::MIN;
                        for &(c, j) in &self.moves[self.first[i]..self.first[i + 1]] {
                            let m = if c > 0 {
                                out(c, j)
                            } else {
                                -v[ways * j + other(w)]
                            };
                            best = best.max(m);
                        }
                        best
                    }
                };
                if value != v[ways * i + w] {
                    changed.push((i, w, value));
                }
            }
            todo.clear();
            for &(j, w, value) in &changed {
                v[ways * j + w] = value;
                for &i in &preds[j] {
                    let slot = ways * i + other(w);
                    if !queued[slot] {
                        queued[slot] = true;
                        todo.push((i, other(w)));
                    }
                }
            }
        }
    }
}

/// What the minimax finds for each position of `graph`: the mover's margin
/// and whether it is an endless 0.
fn minimax(graph: &Graph) -> FxHashMap<([u8; 8], Player), (i8, bool)> {
    let n = graph.keys.len();
    let max = graph.stones.iter().copied().max().unwrap_or(0);
    // The values, never-ending play scoring 0: round 0 is the game cut off
    // at once, every position still playing worth 0.
    let mut value: Vec<i8> = graph.over.iter().map(|o| o.unwrap_or(0)).collect();
    // Whether each player can hold 0 with play that leaves the stone count
    // (a capture or the end): `hold[2i]` is position i's value when never
    // leaving scores -1 for its mover, `hold[2i + 1]` when it scores +1
    // (-1 for the opponent). Cut off at once, those are -1 and +1.
    let mut hold: Vec<i8> = (0..2 * n)
        .map(|k| graph.over[k / 2].unwrap_or(if k % 2 == 0 { -1 } else { 1 }))
        .collect();
    let preds = graph.quiet_predecessors();
    for stones in (0..=max).step_by(2) {
        let layer: Vec<usize> = (0..n).filter(|&i| graph.stones[i] == stones).collect();
        let below = value.clone();
        graph.iterate(&layer, &preds, &mut value, 1, |_| 0, &|c, j| c - below[j]);
        let known = value.clone();
        graph.iterate(&layer, &preds, &mut hold, 2, |w| 1 - w, &|c, j| {
            c - known[j]
        });
    }
    (0..n)
        .map(|i| {
            let holds = hold[2 * i] >= 0 && hold[2 * i + 1] <= 0;
            (graph.keys[i], (value[i], value[i] == 0 && !holds))
        })
        .collect()
}

/// Checks every position of up to `max` stones under both profiles of
/// `class` against the table, after the lock and before it.
fn cross_check(class: Class, max: u32) {
    let table = Table::in_memory(class, max as u8);
    let [plain, strict] = class.covers();
    let graph = Graph::new(max, plain);
    // Under the other profile of the class the game graph, the minimax's
    // whole input, is the same: so are its values.
    assert!(
        Graph::new(max, strict) == graph,
        "{strict} plays unlike {plain}"
    );
    let want = minimax(&graph);
    let mut checked = 0;
    for p in positions(max) {
        let entry = table.entry(&p).expect("covered");
        let (margin, endless) = want[&key(&p)];
        assert_eq!(
            (entry.margin, entry.endless),
            (margin, endless),
            "{p} under {plain}: table against minimax"
        );
        checked += 1;
    }
    // Both sides to move of every board of 0, 2, .., 12 stones.
    let boards: usize = [1, 36, 330, 1716, 6435, 19_448, 50_388][..=max as usize / 2]
        .iter()
        .sum();
    assert_eq!(checked, 2 * boards);
    // Before the lock, on top of the same table and minimax.
    cross_check_opening(&table, &want, max);
}

macro_rules! cross_checks {
    ($($name:ident: $class:literal,)*) => {$(
        #[test]
        fn $name() {
            // Named against the all-off profile, so the classes are
            // the same whatever the default is.
            let profile = Profile::read_against($class, Profile::ALL_OFF).unwrap();
            cross_check(Class::of(profile).unwrap(), 12);
        }
    )*};
}

cross_checks! {
    up_to_12_stones_the_table_is_the_minimax_under_default: "default",
    up_to_12_stones_the_table_is_the_minimax_under_skip_origin: "skip-origin",
    up_to_12_stones_the_table_is_the_minimax_under_feed_after_capture: "feed-after-capture",
    up_to_12_stones_the_table_is_the_minimax_under_skip_origin_feed_after_capture: "skip-origin,feed-after-capture",
    up_to_12_stones_the_table_is_the_minimax_under_end_when_unfeedable: "end-when-unfeedable",
    up_to_12_stones_the_table_is_the_minimax_under_skip_origin_end_when_unfeedable: "skip-origin,end-when-unfeedable",
    up_to_12_stones_the_table_is_the_minimax_under_feed_after_capture_end_when_unfeedable: "feed-after-capture,end-when-unfeedable",
    up_to_12_stones_the_table_is_the_minimax_under_all_three: "skip-origin,feed-after-capture,end-when-unfeedable",
}

/// Every valid position before the lock (one player at least with a pit
/// never used) with at most `max` stones on the board, both sides to move:
/// the stones off the board are the captures of a player whose lock is open
/// (with 36 or more off the board, one is).
fn before_lock(max: u32) -> Vec<Position> {
    let mut out = Vec::new();
    let masks = |bits: u8| std::array::from_fn(|k| bits & (1 << k) != 0);
    for pits in boards(max) {
        let off = 48 - pits.iter().sum::<u32>();
        for (south, north) in (0..16u8).flat_map(|s| (0..16u8).map(move |n| (s, n))) {
            if (south, north) == (15, 15) {
                continue;
            }
            let captured = if south == 15 { [off, 0] } else { [0, off] };
            for to_move in Player::BOTH {
                let setup = Setup {
                    pits: pits.clone(),
                    captured,
                    to_move,
                    used: [masks(south), masks(north)],
                };
                if let Ok(p) = Position::from_setup(&setup) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// The plain minimax before the lock: the best of the moves, each worth
/// its captures minus what follows, the positions after the lock valued by
/// `after` (the minimax of the table's cross-check) and a game over by its
/// sweep. It recurses with no bound: play before the lock never comes
/// back to a position (spec/SOLVE.md), and a cycle would be caught here.
struct PlainOpening<'a> {
    profile: Profile,
    after: &'a FxHashMap<([u8; 8], Player), (i8, bool)>,
    memo: FxHashMap<([u8; 8], Player, [bool; 8]), i8>,
    on_stack: std::collections::HashSet<([u8; 8], Player, [bool; 8])>,
}

impl PlainOpening<'_> {
    fn value(&mut self, p: &Position) -> i8 {
        let setup = p.to_setup();
        let used: [bool; 8] = std::array::from_fn(|k| setup.used[k / 4][k % 4]);
        if used.iter().all(|&u| u) {
            return self.after[&key(p)].0;
        }
        let k = (p.pits(), p.to_move(), used);
        if let Some(&v) = self.memo.get(&k) {
            return v;
        }
        assert!(
            self.on_stack.insert(k),
            "play before the lock came back to {p}"
        );
        let legal = legal_moves(p, self.profile);
        let v = if legal.is_empty() {
            p.row_stones(p.to_move()) as i8 - p.row_stones(p.to_move().opponent()) as i8
        } else {
            legal
                .into_iter()
                .map(|pit| {
                    let (after, report) = play(p, pit, self.profile).expect("legal");
                    report.captured() as i8 - self.value(&after)
                })
                .max()
                .expect("a move")
        };
        self.on_stack.remove(&k);
        self.memo.insert(k, v);
        v
    }
}

/// Every position before the lock with at most `max` stones, under both
/// profiles of the class of `table` (the lock reading I2 matters before the
/// lock), valued by the opening search against the plain minimax, which
/// takes the values after the lock from `after`.
fn cross_check_opening(table: &Table, after: &FxHashMap<([u8; 8], Player), (i8, bool)>, max: u32) {
    let positions = before_lock(max);
    for profile in table.class().covers() {
        let got = kpe::solve::exact_values(table, profile, &positions).unwrap();
        let mut plain = PlainOpening {
            profile,
            after,
            memo: FxHashMap::default(),
            on_stack: Default::default(),
        };
        for (p, &v) in positions.iter().zip(&got) {
            assert_eq!(
                v,
                plain.value(p),
                "{p} under {profile}: opening against minimax"
            );
        }
    }
    // Not vacuous: the valid positions before the lock with up to 12
    // stones (a pit never used holds 6 or more, so at most two are).
    if max == 12 {
        assert_eq!(positions.len(), 33_352);
    }
}

#[test]
fn moves_that_keep_the_value_and_lower_the_depth_make_progress() {
    // The winner can always keep the value and go deeper into the won set
    // (or leave the layer); the loser cannot keep the value and stay away:
    // so choosing by depth ends the layer, where the value alone may not.
    let table = Table::in_memory(Class::DEFAULT, 10);
    let rules = covered();
    let mut checked = 0;
    for p in positions(10)
        .into_iter()
        .filter(|p| p.to_move() == Player::South)
    {
        let here = table.entry(&p).unwrap();
        let moves: Vec<(u8, kpe::solve::Entry, bool)> = legal_moves(&p, rules)
            .into_iter()
            .map(|pit| {
                let (after, report) = play(&p, pit, rules).unwrap();
                let child = table.entry(&after).unwrap();
                let keeps = report.captured() as i8 - child.margin == here.margin;
                (report.captured(), child, keeps)
            })
            .collect();
        let onward = |&(c, child, keeps): &(u8, kpe::solve::Entry, bool)| {
            keeps && (c > 0 || child.depth < here.depth)
        };
        if here.margin > 0 {
            assert!(
                moves.is_empty() || moves.iter().any(onward),
                "{p}: no way forward"
            );
            checked += 1;
        } else if here.margin < 0 {
            let stays = |m: &&(u8, kpe::solve::Entry, bool)| m.2 && m.0 == 0;
            assert!(
                moves.iter().filter(stays).all(onward),
                "{p}: the loser holds out"
            );
            checked += 1;
        }
    }
    assert!(checked > 10_000, "{checked}");
}

fn kpe() -> Command {
    Command::cargo_bin("kpe").expect("the kpe binary is built")
}

/// The profile the command-line tests solve and ask about, named on every
/// command line: the default's readings with no repetition rule, which no
/// table covers (spec/SOLVE.md). It is the default itself unless the
/// default ends games on repetition (`kpe adopt I5`).
fn covered() -> Profile {
    Class::DEFAULT.profile()
}

/// `covered()` as `--rules` takes it.
fn rules() -> [String; 2] {
    ["--rules".to_owned(), covered().to_string()]
}

/// Builds the table of [`covered`] up to `stones` under `dir` with
/// `kpe solve`.
fn solve_into(dir: &Path, stones: u8) -> String {
    let out = kpe()
        .args(["solve", "--stones", &stones.to_string()])
        .args(rules())
        .arg("--dir")
        .arg(dir)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn kpe_solve_writes_a_layer_file_for_each_even_stone_count() {
    let dir = tempfile::tempdir().unwrap();
    let out = solve_into(dir.path(), 8);
    // `default` by the committed default.
    let class = Class::DEFAULT;
    let [without, with] = class.covers();
    assert!(
        out.starts_with(&format!(
            "kpe solve: class {class} (covers {without} and {with}), layers 0 to 8 stones"
        )),
        "{out}"
    );
    assert!(out.contains("layer  8:        6435 states in "), "{out}");
    assert!(
        out.contains("done: 5 layers (5 solved now, 0 checked), 8518 states"),
        "{out}"
    );
    for stones in [0, 2, 4, 6, 8] {
        let path = dir.path().join(format!("{class}/layer-{stones:02}.kpet"));
        let text = std::fs::read(&path).unwrap();
        let header = format!("kpe-solve-table\nformat: 2\nclass: {class}\n");
        assert!(text.starts_with(header.as_bytes()), "{header}");
    }
    assert!(!dir.path().join(format!("{class}/layer-10.kpet")).exists());
}

#[test]
fn an_interrupted_solve_resumes_after_its_last_layer_to_the_same_bytes() {
    let whole = tempfile::tempdir().unwrap();
    solve_into(whole.path(), 10);
    // Stopped after layer 6, in the middle of layer 8: a partial file left.
    let resumed = tempfile::tempdir().unwrap();
    solve_into(resumed.path(), 6);
    let class = Class::DEFAULT;
    let partial = resumed
        .path()
        .join(format!("{class}/layer-08.kpet.partial"));
    std::fs::write(&partial, b"half a layer").unwrap();
    let out = solve_into(resumed.path(), 10);
    assert!(
        out.contains("layer  6:        1716 states, finished before (header and checksum checked)"),
        "{out}"
    );
    assert!(
        out.contains("done: 6 layers (2 solved now, 4 checked)"),
        "{out}"
    );
    assert!(!partial.exists());
    for stones in [0, 2, 4, 6, 8, 10] {
        let name = format!("{class}/layer-{stones:02}.kpet");
        let a = std::fs::read(whole.path().join(&name)).unwrap();
        let b = std::fs::read(resumed.path().join(&name)).unwrap();
        assert!(a == b, "{name} differs after resuming");
    }
}

#[test]
fn a_corrupt_layer_is_refused_by_solve_and_value_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 6);
    let class = Class::DEFAULT;
    let path = dir.path().join(format!("{class}/layer-04.kpet"));
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    kpe()
        .args(["solve", "--stones", "6"])
        .args(rules())
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .code(3)
        .stderr(predicates::str::contains(
            "layer-04.kpet: checksum mismatch",
        ));
    kpe()
        .args(["value", "0,0,1,1/1,0,0,1 S 22/22 1234/1234"])
        .args(rules())
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .code(3)
        .stderr(predicates::str::contains(
            "layer-04.kpet: checksum mismatch",
        ));
    // A table of another class under this class's name.
    let other = tempfile::tempdir().unwrap();
    let skip =
        Class::of(covered().set(Switch::SkipOrigin, !covered().has(Switch::SkipOrigin))).unwrap();
    kpe()
        .args([
            "solve",
            "--stones",
            "4",
            "--rules",
            &skip.profile().to_string(),
            "--dir",
        ])
        .arg(other.path())
        .assert()
        .success();
    std::fs::copy(other.path().join(format!("{skip}/layer-04.kpet")), &path).unwrap();
    kpe()
        .args(["value", "0,0,1,1/1,0,0,1 S 22/22 1234/1234"])
        .args(rules())
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .code(3)
        .stderr(predicates::str::contains(format!(
            "header field `class` says `{skip}`, expected `{class}`"
        )));
}

#[test]
fn kpe_value_without_a_table_or_for_repetition_says_why() {
    let dir = tempfile::tempdir().unwrap();
    kpe()
        .args(["value", "1,0,0,0/1,0,0,0 S 22/24 1234/1234"])
        .args(rules())
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .code(3)
        .stderr(predicates::str::contains(format!(
            "no table of {} in",
            Class::DEFAULT
        )))
        .stderr(predicates::str::contains("kpe solve"));
    // `end-on-repetition` by the committed default, `default` once the
    // default ends games on repetition: refused by solve, value and the
    // perfect engine, naming the profile to ask for instead.
    let repeating = covered().set(Switch::EndOnRepetition, true).to_string();
    let refused = |args: &[&str]| {
        kpe()
            .args(args)
            .arg("--dir")
            .arg(dir.path())
            .assert()
            .stderr(predicates::str::contains(format!(
                "no table covers `{repeating}`"
            )))
            .stderr(predicates::str::contains("depends on the game's history"))
            .stderr(predicates::str::contains(format!(
                "`--rules {}`",
                covered()
            )))
    };
    refused(&["value", "initial", "--rules", &repeating]).code(2);
    refused(&["solve", "--stones", "2", "--rules", &repeating]).code(2);
    let asked = format!(
        r#"{{"type":"hello","protocol":1,"profile":"{repeating}"}}
{{"type":"best","position":"0,0,2,1/1,0,0,2 S 20/22 1234/1234"}}
{{"type":"quit"}}
"#
    );
    let out = kpe()
        .args(["engine", "--perfect", "--dir"])
        .arg(dir.path())
        .write_stdin(asked)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let reply = text.lines().nth(1).unwrap_or_default();
    assert!(
        reply.contains(r#""type":"error""#)
            && reply.contains(&format!("no table covers `{repeating}`")),
        "{text}"
    );
    // Without `--rules` the default is asked for: refused the same way
    // exactly when the default ends games on repetition (spec/SOLVE.md).
    let bare = kpe()
        .args(["solve", "--stones", "2", "--dir"])
        .arg(dir.path())
        .assert();
    if Profile::DEFAULT.has(Switch::EndOnRepetition) {
        bare.code(2)
            .stderr(predicates::str::contains("no table covers `default`"))
            .stderr(predicates::str::contains(format!(
                "`--rules {}`",
                covered()
            )));
    } else {
        bare.success();
    }
}

/// A small deterministic generator for sampling positions.
fn sample(seed: &mut u64, n: usize) -> usize {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*seed >> 33) as usize % n
}

#[test]
fn kpe_value_agrees_with_the_minimax_on_sampled_positions() {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 8);
    let want = minimax(&Graph::new(8, covered()));
    let all = positions(8);
    let mut seed = 7;
    for _ in 0..12 {
        let p = all[sample(&mut seed, all.len())];
        let out = kpe()
            .args(["value", &p.to_string(), "--json"])
            .args(rules())
            .arg("--dir")
            .arg(dir.path())
            .assert()
            .success();
        let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        let (margin, endless) = want[&key(&p)];
        assert_eq!(json["margin"], serde_json::json!(margin), "{p}");
        assert_eq!(json["endless"], serde_json::json!(endless), "{p}");
        assert_eq!(json["source"]["kind"], "table", "{p}");
        // The best moves are the moves worth the margin.
        let best: Vec<String> = json["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["margin"] == serde_json::json!(margin))
            .map(|m| m["move"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(json["best"], serde_json::json!(best), "{p}");
    }
}

#[test]
fn kpe_value_prints_the_margin_the_best_moves_and_a_line_of_best_play() {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 6);
    // South takes N1's 2 (S4 lands there) and the game is over at once.
    kpe()
        .args(["value", "0,0,0,1/1,0,0,0 S 24/22 1234/1234"])
        .args(rules())
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "value: +2 for South, the player to move",
        ))
        .stdout(predicates::str::contains(
            "with best play: South 26 - North 22: South wins",
        ))
        .stdout(predicates::str::contains("best moves: S4"))
        .stdout(predicates::str::contains(
            "best line (1 plies): S4\n  game over: South 26 - North 22",
        ))
        .stdout(predicates::str::contains("source: the table"));
    // The chase: endless.
    kpe()
        .args(["value", "1,0,0,0/1,0,0,0 N 22/24 1234/1234"])
        .args(rules())
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "value: 0 for North, the player to move (endless",
        ))
        .stdout(predicates::str::contains(
            "the game never ends: South has captured 22, North 24",
        ));
}

#[test]
fn before_the_lock_kpe_value_is_exact_from_the_opening_search() {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 6);
    // North has one unused pit (N4, 6 stones) and must feed South with it.
    let out = kpe()
        .args(["value", "0,0,0,0/0,0,0,6 N 42/0 1234/123-", "--json"])
        .args(rules())
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["source"]["kind"], "opening", "{json}");
    // One ply down North is unlocked and the table has the rest: no
    // position before the lock but this one, whose moves are valued.
    assert_eq!(json["source"]["solved"], 0, "{json}");
    let after: kpe::Position = "1,1,1,1/1,1,0,0 S 42/0 1234/1234".parse().unwrap();
    let table = Table::in_memory(Class::DEFAULT, 6);
    let margin = -table.entry(&after).unwrap().margin;
    assert_eq!(json["margin"], serde_json::json!(margin), "{json}");
    assert_eq!(json["best"], serde_json::json!(["N4"]), "{json}");
    // The line of best play starts with N4 and goes on into the table.
    let line = json["line"]["moves"].as_array().unwrap();
    assert_eq!(line[0], "N4", "{json}");
    assert!(line.len() > 1, "{json}");
    // The text says where the value comes from.
    kpe()
        .args(["value", "0,0,0,0/0,0,0,6 N 42/0 1234/123-"])
        .args(rules())
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "source: the opening, exact: 0 positions before the lock solved now",
        ))
        .stdout(predicates::str::contains("best moves: N4"));
}

#[test]
fn kpe_engine_perfect_never_answers_best_from_bounds() {
    let input = |p: &str| {
        format!(
            "{{\"type\":\"hello\",\"protocol\":1,\"profile\":\"{}\"}}\n{{\"type\":\"best\",\"position\":\"{p}\"}}\n{{\"type\":\"quit\"}}\n",
            covered()
        )
    };
    let reply = |dir: &Path, p: &str| {
        let out = kpe()
            .args(["engine", "--perfect", "--dir"])
            .arg(dir)
            .write_stdin(input(p))
            .timeout(std::time::Duration::from_secs(600))
            .assert()
            .success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        text.lines().nth(1).unwrap().to_owned()
    };
    // No table at all: an error, not a move from a search.
    let empty = tempfile::tempdir().unwrap();
    let r = reply(empty.path(), "6,6,6,6/6,6,6,6 S 0/0 ----/----");
    assert!(r.contains(r#""type":"error""#), "{r}");
    assert!(r.contains("no perfect play"), "{r}");
    assert!(r.contains("no layer"), "{r}");
    // Before the lock on a small table: the exact move of the opening.
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 6);
    let r = reply(dir.path(), "0,0,0,0/0,0,0,6 N 42/0 1234/123-");
    let after: kpe::Position = "1,1,1,1/1,1,0,0 S 42/0 1234/1234".parse().unwrap();
    let margin = -Table::in_memory(Class::DEFAULT, 6)
        .entry(&after)
        .unwrap()
        .margin;
    assert_eq!(
        r,
        format!(r#"{{"type":"best","move":"N4","margin":{margin}}}"#)
    );
    // Beyond the table: an error naming the layers it needs.
    let r = reply(dir.path(), "6,6,6,6/6,6,6,6 S 0/0 ----/----");
    assert!(r.contains("needs the layers up to 48 stones"), "{r}");
}

/// Runs `kpe value` on a position of `dir`'s table and returns its exit
/// code and standard error.
fn value_error(dir: &Path) -> (i32, String) {
    let out = kpe()
        .args(["value", "0,0,1,1/1,0,0,1 S 22/22 1234/1234"])
        .args(rules())
        .arg("--dir")
        .arg(dir)
        .timeout(std::time::Duration::from_secs(600))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Regression (issue 45): a layer that is a FIFO made `kpe value`,
/// `kpe solve` and `kpe engine --perfect` wait for ever; one linked to
/// /dev/zero was read until memory ran out. Neither is opened now.
#[test]
fn a_layer_that_is_a_fifo_or_a_device_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 6);
    let path = dir.path().join(format!("{}/layer-04.kpet", Class::DEFAULT));
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let (code, err) = value_error(dir.path());
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("layer-04.kpet: not a regular file (a character device)"),
        "{err}"
    );
    std::fs::remove_file(&path).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&path).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped the FIFO: `mkfifo` is not available");
        return;
    }
    let (code, err) = value_error(dir.path());
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("layer-04.kpet: not a regular file (a FIFO)"),
        "{err}"
    );
    kpe()
        .args(["solve", "--stones", "6"])
        .args(rules())
        .arg("--dir")
        .arg(dir.path())
        .timeout(std::time::Duration::from_secs(600))
        .assert()
        .code(3)
        .stderr(predicates::str::contains("not a regular file (a FIFO)"));
    let input = format!(
        "{{\"type\":\"hello\",\"protocol\":1,\"profile\":\"{}\"}}\n{{\"type\":\"best\",\"position\":\"0,0,1,1/1,0,0,1 S 22/22 1234/1234\"}}\n{{\"type\":\"quit\"}}\n",
        covered()
    );
    kpe()
        .args(["engine", "--perfect", "--dir"])
        .arg(dir.path())
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(600))
        .assert()
        .success()
        .stdout(predicates::str::contains("not a regular file (a FIFO)"));
}

/// Regression (issue 45): a missing layer below others made `kpe value`
/// search silently; a layer that is a loop of links was taken as missing.
#[test]
fn a_missing_layer_in_the_middle_or_a_link_loop_is_named() {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 8);
    let folder = dir.path().join(Class::DEFAULT.to_string());
    std::fs::remove_file(folder.join("layer-04.kpet")).unwrap();
    let (code, err) = value_error(dir.path());
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("layer-04.kpet: no such layer file, but ")
            && err.contains("layer-08.kpet is there"),
        "{err}"
    );
    // `kpe solve` fills the gap.
    let out = solve_into(dir.path(), 8);
    assert!(out.contains("layer  4:"), "{out}");
    assert!(folder.join("layer-04.kpet").exists());
    // A loop of links where layer 4 should be.
    let four = folder.join("layer-04.kpet");
    std::fs::remove_file(&four).unwrap();
    std::os::unix::fs::symlink(&four, &four).unwrap();
    let (code, err) = value_error(dir.path());
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("layer-04.kpet: ") && err.contains("symbolic links"),
        "{err}"
    );
}

/// Regression (issue 45): unknown and repeated header fields, and a
/// `covers:` line naming other profiles, were accepted.
#[test]
fn a_header_with_an_unknown_repeated_or_forged_field_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 4);
    let path = dir.path().join(format!("{}/layer-02.kpet", Class::DEFAULT));
    let good = std::fs::read(&path).unwrap();
    let end = good.windows(2).position(|w| w == b"\n\n").unwrap();
    let head = String::from_utf8(good[..end].to_vec()).unwrap();
    let with_head = |h: &str| [h.as_bytes(), &good[end..]].concat();
    let cases = [
        (
            format!("{head}\nowner: me"),
            "layer-02.kpet:9: header: unknown field `owner`",
        ),
        (
            format!("{head}\nstones: 2"),
            "layer-02.kpet:9: header: field `stones` is given twice",
        ),
        (
            head.replacen("lock=before-sowing", "lock=after-sowing", 1),
            "header field `covers` says",
        ),
    ];
    for (text, expected) in cases {
        std::fs::write(&path, with_head(&text)).unwrap();
        let (code, err) = value_error(dir.path());
        assert_eq!(code, 3, "{err}");
        assert!(err.contains(expected), "{expected}: {err}");
    }
}

/// Regression (issue 45): two `kpe solve` into one folder failed with a
/// misleading `No such file or directory`; now the second is refused by a
/// lock, clearly.
#[test]
fn a_second_solve_into_the_same_folder_is_refused_by_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join(Class::DEFAULT.to_string());
    std::fs::create_dir_all(&folder).unwrap();
    let lock = std::fs::File::create(folder.join(".kpe-solve.lock")).unwrap();
    lock.lock().unwrap();
    kpe()
        .args(["solve", "--stones", "4"])
        .args(rules())
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .code(3)
        .stderr(predicates::str::contains(
            ".kpe-solve.lock: another `kpe solve` is writing this table",
        ));
    drop(lock);
    solve_into(dir.path(), 4);
}

/// Regression (issue 45): `kpe solve -j 20000` could not start the threads
/// and then never exited; `--rules ''` was taken as the default.
#[test]
fn kpe_solve_refuses_too_many_threads_and_an_empty_profile() {
    kpe()
        .args(["solve", "--stones", "2", "-j", "20000"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("20000 is not in 1..=256"));
    for command in ["solve", "value"] {
        let mut cmd = kpe();
        cmd.arg(command);
        if command == "value" {
            cmd.arg("initial");
        }
        cmd.args(["--rules", ""])
            .assert()
            .code(2)
            .stderr(predicates::str::contains("an empty profile"));
    }
}

/// With no opening file, `kpe value initial` finds bounds only; it then
/// names the value the full solve recorded (spec/solved.yaml) and the
/// command that writes the file (issue 45), or nothing when the profile has
/// no row.
#[test]
fn kpe_value_initial_without_an_opening_names_the_recorded_value() {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 4);
    let out = kpe()
        .args(["value", "initial", "--seconds", "1", "--depth", "2"])
        .args(rules())
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("bounds only"), "{text}");
    match kpe::solve::value_of_the_game(covered()) {
        Some(row) => {
            let value = if row.value > 0 {
                format!("+{}", row.value)
            } else {
                row.value.to_string()
            };
            assert!(
                text.contains(&format!(
                    "the full solve found {value} for South, best {} (spec/solved.yaml); `{}` writes",
                    row.best
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(" "),
                    row.command
                )),
                "{text}"
            );
        }
        None => assert!(!text.contains("the full solve found"), "{text}"),
    }
}

#[test]
fn kpe_engine_perfect_answers_a_best_request_with_a_table_move() {
    let dir = tempfile::tempdir().unwrap();
    solve_into(dir.path(), 6);
    let p = "0,0,2,1/1,0,0,2 S 20/22 1234/1234";
    let input = format!(
        "{{\"type\":\"hello\",\"protocol\":1,\"profile\":\"{}\"}}\n{{\"type\":\"best\",\"position\":\"{p}\"}}\n{{\"type\":\"quit\"}}\n",
        covered()
    );
    let out = kpe()
        .args(["engine", "--perfect", "--dir"])
        .arg(dir.path())
        .write_stdin(input.clone())
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let reply = text.lines().nth(1).unwrap();
    // S4 captures 2 and keeps +4; S3 captures 2 too but gives 2 back.
    assert_eq!(reply, r#"{"type":"best","move":"S4","margin":4}"#);
    // Without --perfect the reference engine plays no moves of its own.
    let out = kpe().arg("engine").write_stdin(input).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.lines().nth(1).unwrap().contains(r#""type":"error""#),
        "{text}"
    );
}

/// Where the tables go without `--dir` (issue 44: not the current folder):
/// `KPE_TABLES`, else an absolute `XDG_CACHE_HOME`/kpe, else
/// `HOME`/.cache/kpe, else `kpe-tables`; empty values count as unset.
#[test]
fn the_tables_folder_is_the_users_cache_unless_kpe_tables_names_one() {
    use std::ffi::OsString;
    use std::path::PathBuf;
    let with = |vars: &[(&str, &str)]| {
        let vars: Vec<(String, OsString)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        kpe::solve::tables_dir(move |name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        })
    };
    let home = [("HOME", "/home/u")];
    assert_eq!(with(&home), PathBuf::from("/home/u/.cache/kpe"));
    assert_eq!(
        with(&[("XDG_CACHE_HOME", "/c"), home[0]]),
        PathBuf::from("/c/kpe")
    );
    // A relative XDG_CACHE_HOME is ignored, as the XDG specification says.
    assert_eq!(
        with(&[("XDG_CACHE_HOME", "rel"), home[0]]),
        PathBuf::from("/home/u/.cache/kpe")
    );
    assert_eq!(
        with(&[("XDG_CACHE_HOME", ""), home[0]]),
        PathBuf::from("/home/u/.cache/kpe")
    );
    assert_eq!(
        with(&[(kpe::solve::TABLES_ENV, "t"), ("XDG_CACHE_HOME", "/c")]),
        PathBuf::from("t")
    );
    if !cfg!(windows) {
        assert_eq!(with(&[]), PathBuf::from("kpe-tables"));
    }
}

/// `kpe solve` without `--dir` writes into the user's cache folder, not
/// the current one, and `kpe value` and `kpe engine --perfect` find the
/// table there; `KPE_TABLES` moves all three.
#[test]
fn solve_value_and_perfect_play_share_the_cache_folder_by_default() {
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let cache = root.path().join("cache");
    std::fs::create_dir_all(&work).unwrap();
    let env = |c: &mut Command| {
        c.current_dir(&work)
            .env_remove(kpe::solve::TABLES_ENV)
            .env("XDG_CACHE_HOME", &cache)
            .env("HOME", root.path().join("home"));
    };
    let mut solve = kpe();
    env(&mut solve);
    solve
        .args(["solve", "--stones", "4"])
        .args(rules())
        .assert()
        .success();
    assert_eq!(
        std::fs::read_dir(&work).unwrap().count(),
        0,
        "the current folder stays empty"
    );
    let classes: Vec<_> = std::fs::read_dir(cache.join("kpe"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(classes.len(), 1, "{classes:?}");
    assert!(classes[0].join("layer-04.kpet").is_file(), "{classes:?}");

    let mut value = kpe();
    env(&mut value);
    value
        .args(["value", "0,0,0,1/1,0,0,0 S 24/22 1234/1234"])
        .args(rules())
        .assert()
        .success()
        .stdout(predicates::str::contains("source: the table"));

    let mut perfect = kpe();
    env(&mut perfect);
    let asked = format!(
        "{{\"type\":\"hello\",\"protocol\":2,\"profile\":\"{}\"}}\n{{\"type\":\"best\",\"position\":\"0,0,0,1/1,0,0,0 S 24/22 1234/1234\"}}\n{{\"type\":\"quit\"}}\n",
        covered()
    );
    let out = perfect
        .args(["engine", "--perfect"])
        .write_stdin(asked)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("\"S4\""), "{text}");

    // KPE_TABLES wins: no table there, so value searches instead.
    let mut moved = kpe();
    env(&mut moved);
    moved
        .env(kpe::solve::TABLES_ENV, root.path().join("elsewhere"))
        .args(["value", "0,0,0,1/1,0,0,0 S 24/22 1234/1234"])
        .args(rules())
        .assert()
        .stdout(predicates::str::contains("source: the table").not());
    assert!(!root.path().join("elsewhere").join("layer-04.kpet").exists());
}
