//! Perft counts as units: from the initial position up to the run's depth,
//! and the suite's perft tables (`conformance/perft.yaml`) of the profile,
//! within the node budget. An engine with its own perft is asked for each
//! count, and a wrong count is followed down the tree to the first wrong
//! answer; an engine without one is asked the legal moves and every move
//! of each position at that depth instead.

use std::collections::HashSet;

use super::{Ctx, Outcome, Unit, questions_at};
use crate::judge::{Divergence, FieldDiff, PerftClaim};
use crate::live::engine::Failure;
use crate::live::shrink::Diverging;
use crate::perft::perft;
use crate::position::Position;
use crate::profile::Profile;
use crate::protocol::{perft_profile, perft_profiles};
use crate::rules::legal_moves;
use crate::scenario::Suite;

/// One perft count: `depth` plies from `root`.
pub struct PerftCount {
    table: String,
    root: Position,
    depth: u32,
    nodes: u64,
    /// The count by protocol version 1's meaning, where it differs
    /// ([`crate::protocol::perft_profile`]).
    nodes_v1: Option<u64>,
    /// Whether the table is the suite's (counted only by an engine perft).
    from_suite: bool,
    /// The suite's perft file, as its report names it (`DIR/perft.yaml`).
    file: Option<String>,
}

/// The perft units of `profile`: depths 1 to `max_depth` from the initial
/// position whose counts are within `max_nodes`, then each suite table of
/// the profile, depth by depth within the same budget (named as the
/// perft file of `suite_dir`). The second value says how deep the initial
/// position went, when the budget cut it short.
#[must_use]
pub fn perft_units(
    suite_dir: &std::path::Path,
    suite: &Suite,
    profile: Profile,
    max_depth: u32,
    max_nodes: u64,
) -> (Vec<PerftCount>, Option<u32>) {
    let root = Position::initial();
    let mut units: Vec<PerftCount> = (1..=max_depth)
        .map(|depth| (depth, perft(&root, depth, profile)))
        .take_while(|&(_, nodes)| nodes <= max_nodes)
        .map(|(depth, nodes)| PerftCount {
            table: "initial".to_owned(),
            root,
            depth,
            nodes,
            nodes_v1: v1_count(&root, depth, profile),
            from_suite: false,
            file: None,
        })
        .collect();
    let cut = (units.len() < max_depth as usize).then_some(units.len() as u32);
    let shown = suite_dir
        .join(crate::scenario::PERFT_FILE)
        .display()
        .to_string();
    if let Some(file) = &suite.perft {
        for table in file.tables.iter().filter(|t| t.rules == profile) {
            let Ok(start) = table.start_text().parse::<Position>() else {
                continue;
            };
            for (k, &nodes) in table.nodes.iter().enumerate() {
                if nodes > max_nodes {
                    break;
                }
                units.push(PerftCount {
                    table: table.id.clone(),
                    root: start,
                    depth: k as u32 + 1,
                    nodes,
                    nodes_v1: v1_count(&start, k as u32 + 1, profile),
                    from_suite: true,
                    file: Some(shown.clone()),
                });
            }
        }
    }
    (units, cut)
}

/// The count of `depth` plies from `root` by protocol version 1's meaning,
/// if it is another profile's.
fn v1_count(root: &Position, depth: u32, profile: Profile) -> Option<u64> {
    let v1 = perft_profile(1, profile);
    (v1 != profile).then(|| perft(root, depth, v1))
}

impl Unit for PerftCount {
    fn kind(&self) -> &'static str {
        "perft"
    }

    fn id(&self) -> String {
        format!("perft/{}/{}", self.table, self.depth)
    }

    fn location(&self) -> Option<String> {
        self.file.clone()
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Outcome {
        let own = match ctx.engine.start() {
            Ok(info) => info.perft,
            Err(failure) => return Outcome::Errored { plies: 0, failure },
        };
        if own {
            self.count(ctx)
        } else if self.from_suite {
            Outcome::Skipped(
                "suite perft tables, which need an engine perft (the hello says none)".to_owned(),
            )
        } else {
            self.walk(ctx)
        }
    }
}

impl PerftCount {
    /// The engine's own perft count; on a wrong count, the questions down
    /// the tree that find where it goes wrong.
    fn count(&self, ctx: &mut Ctx<'_>) -> Outcome {
        let protocol = ctx
            .engine
            .info()
            .map_or(crate::protocol::PROTOCOL_VERSION, |i| i.protocol);
        let counts = Counts(perft_profiles(protocol, ctx.profile));
        // The right counts, by each meaning the protocol allows.
        let right: Vec<u64> = counts
            .0
            .iter()
            .map(|&p| match self.nodes_v1 {
                Some(v1) if p != ctx.profile => v1,
                _ => self.nodes,
            })
            .collect();
        let nodes = right[0];
        let (root, depth) = (self.root, self.depth);
        let claimed = match ctx.engine.perft(&root, depth, nodes) {
            Ok(n) => n,
            Err(failure) => return Outcome::Errored { plies: 0, failure },
        };
        if right.contains(&claimed) {
            return Outcome::Conforms(u64::from(depth));
        }
        let expected = counts.expected(&right);
        let head = format!(
            "perft({depth}) from `{root}`: expected {expected}, the engine counted {claimed}; the first wrong answer below it:"
        );
        match locate(ctx, &counts, root, depth, 0) {
            Ok(Some((found, ply))) => {
                let mut outcome = ctx.diverged(found, ply, None);
                if let Outcome::Diverges {
                    divergence, plies, ..
                } = &mut outcome
                {
                    divergence.notes.insert(0, head);
                    *plies = u64::from(depth);
                }
                outcome
            }
            Ok(None) => match smallest_subtree(ctx, &counts, root, depth, nodes, claimed) {
                Ok(subtree) => Outcome::Diverges {
                    plies: u64::from(depth),
                    divergence: Box::new(
                        subtree.divergence(root, depth, &expected, claimed, &counts),
                    ),
                    found: None,
                },
                Err(failure) => Outcome::Errored { plies: 0, failure },
            },
            Err(failure) => Outcome::Errored { plies: 0, failure },
        }
    }

    /// Without an engine perft: every distinct position exactly `depth - 1`
    /// plies from the root, asked for its legal moves and each move's
    /// result (all depths together walk the whole tree).
    fn walk(&self, ctx: &mut Ctx<'_>) -> Outcome {
        let mut level = vec![self.root];
        for _ in 1..self.depth {
            let mut seen = HashSet::new();
            level = level
                .iter()
                .flat_map(|p| {
                    legal_moves(p, ctx.profile)
                        .into_iter()
                        .filter_map(|pit| crate::rules::play(p, pit, ctx.profile).ok())
                        .map(|(child, _)| child)
                        .collect::<Vec<_>>()
                })
                .filter(|c| seen.insert(*c))
                .collect();
        }
        let mut checked = 0;
        for position in level {
            for question in questions_at(position, ctx.profile) {
                checked += 1;
                match ctx.check(question) {
                    Err(failure) => return Outcome::Errored { plies: 0, failure },
                    Ok(Some(found)) => {
                        let mut outcome = ctx.diverged(found, u64::from(self.depth), None);
                        if let Outcome::Diverges { plies, .. } = &mut outcome {
                            *plies = checked;
                        }
                        return outcome;
                    }
                    Ok(None) => {}
                }
            }
        }
        Outcome::Conforms(checked)
    }
}

/// The profiles by which an engine's perft counts are right, by its
/// protocol's meaning ([`perft_profiles`]): one, or for version 1 under
/// `end-on-repetition` two; the first is the one a divergence is
/// reported by.
struct Counts(Vec<Profile>);

impl Counts {
    /// The right counts of `depth` plies from `root`, one per profile.
    fn of(&self, root: &Position, depth: u32) -> Vec<u64> {
        self.0.iter().map(|&p| perft(root, depth, p)).collect()
    }

    /// `right` (the counts of [`Counts::of`]) as a report says them: `138`,
    /// or `138 (or 132, by protocol version 1's other reading of perft
    /// under end-on-repetition)`.
    fn expected(&self, right: &[u64]) -> String {
        match right {
            [one] => one.to_string(),
            [first, other, ..] if first == other => first.to_string(),
            [first, other, ..] => format!(
                "{first} (or {other}: protocol version 1 also allowed counting with the repetition rule)"
            ),
            [] => String::new(),
        }
    }
}

/// The smallest subtree whose engine count differs, where every one of its
/// children's counts agrees (or it is one ply deep).
struct Subtree {
    /// The moves from the unit's root to it.
    line: Vec<crate::board::Pit>,
    /// Its root.
    top: Position,
    depth: u32,
    nodes: u64,
    claimed: u64,
    /// Every count the engine gave on the way down, the root's first
    /// (this subtree's among them).
    counts: Vec<PerftClaim>,
}

/// Follows a wrong count down, child by child (the engine's perft of each
/// child against the rules'), to the first subtree whose children all
/// count right.
fn smallest_subtree(
    ctx: &mut Ctx<'_>,
    counts: &Counts,
    root: Position,
    depth: u32,
    nodes: u64,
    claimed: u64,
) -> Result<Subtree, Failure> {
    let mut at = Subtree {
        line: Vec::new(),
        top: root,
        depth,
        nodes,
        claimed,
        counts: vec![PerftClaim {
            position: root,
            depth,
            nodes: claimed,
        }],
    };
    'down: while at.depth > 1 {
        for pit in legal_moves(&at.top, ctx.profile) {
            let Ok((child, _)) = crate::rules::play(&at.top, pit, ctx.profile) else {
                continue;
            };
            let right = counts.of(&child, at.depth - 1);
            let got = ctx.engine.perft(&child, at.depth - 1, right[0])?;
            at.counts.push(PerftClaim {
                position: child,
                depth: at.depth - 1,
                nodes: got,
            });
            if !right.contains(&got) {
                at.line.push(pit);
                at.top = child;
                at.depth -= 1;
                at.nodes = right[0];
                at.claimed = got;
                continue 'down;
            }
        }
        break;
    }
    Ok(at)
}

impl Subtree {
    /// The divergence: the subtree's count, the rule deciding it
    /// ([`crate::judge::count_rule`]) and a perft table reproducing it.
    fn divergence(
        &self,
        root: Position,
        depth: u32,
        expected: &str,
        claimed: u64,
        counts: &Counts,
    ) -> Divergence {
        let counted = counts.0[0];
        let (rules, why) =
            crate::judge::count_rule(&self.top, self.depth, counted, self.claimed, &self.counts);
        let mut count = FieldDiff::new("nodes", self.nodes.to_string(), self.claimed.to_string());
        count.rules = rules;
        let line = if self.line.is_empty() {
            "the root itself".to_owned()
        } else {
            let moves: Vec<String> = self.line.iter().map(ToString::to_string).collect();
            format!("after {} from the root", moves.join(" "))
        };
        let top = counts.expected(&counts.of(&self.top, self.depth));
        let mut notes = vec![
            format!(
                "perft({depth}) from `{root}`: expected {expected}, the engine counted {claimed}"
            ),
            format!(
                "the engine's legal moves and moves agree with the rules on every position checked: the smallest subtree whose count differs is {line}, perft({}) from `{}` (expected {top}, counted {}), every child of which counts right",
                self.depth, self.top, self.claimed
            ),
        ];
        notes.extend(why);
        let table = crate::scenario::PerftTable {
            id: format!("found-perft-{}", self.depth),
            description: format!(
                "Found by kpe-check: perft({}) from this position, where the engine counted {}.",
                self.depth, self.claimed
            ),
            start: Some(self.top.to_string()),
            rules: counted,
            nodes: (1..=self.depth)
                .map(|d| perft(&self.top, d, counted))
                .collect(),
            divide: None,
        };
        Divergence {
            ply: None,
            before: Some(self.top),
            mv: None,
            rules,
            fields: vec![count],
            notes,
            scenario: None,
            perft: Some(table),
            counts: self.counts.clone(),
        }
    }
}

/// Walks down from `position` to the first question the engine answers
/// wrongly, following children whose perft counts differ; the ply is the
/// 1-based ply of the wrong answer below the root. The engine's counts are
/// compared with the rules' under each profile of `counts`, those of its
/// protocol's perft: a count right by any of them is right.
fn locate(
    ctx: &mut Ctx<'_>,
    counts: &Counts,
    position: Position,
    depth: u32,
    ply: u64,
) -> Result<Option<(Diverging, u64)>, Failure> {
    for question in questions_at(position, ctx.profile) {
        if let Some(found) = ctx.check(question)? {
            return Ok(Some((found, ply + 1)));
        }
    }
    if depth <= 1 {
        return Ok(None);
    }
    for pit in legal_moves(&position, ctx.profile) {
        let Ok((child, _)) = crate::rules::play(&position, pit, ctx.profile) else {
            continue;
        };
        let right = counts.of(&child, depth - 1);
        if !right.contains(&ctx.engine.perft(&child, depth - 1, right[0])?) {
            return locate(ctx, counts, child, depth - 1, ply + 1);
        }
    }
    Ok(None)
}
