//! The text report of `kpe dispute`.

use std::fmt::Write as _;

use super::best::margin_text;
use super::model::Dispute;
use super::play::{Mean, Pairing, Share};
use super::scenarios::{ScenarioDiff, Step};
use crate::board::Pit;

/// Plies shown before the first differing ply of a scenario.
pub(super) const BEFORE: usize = 2;
/// Plies shown after it.
pub(super) const AFTER: usize = 2;

pub(super) fn render(d: &Dispute) -> String {
    let mut out = String::new();
    let alt = d.alternative;
    let _ = writeln!(out, "kpe dispute: default against {alt}");
    let _ = writeln!(out, "{}\n", headline(d));
    for line in summary(d) {
        let _ = writeln!(out, "  {line}");
    }
    for r in &d.readings {
        let _ = writeln!(
            out,
            "\n{} ({}, switch `{}`): {}\n  default:     {}\n  alternative: {}\n  why the default: {}\n  spec: {}",
            r.reading,
            r.rule,
            r.switch,
            r.question,
            r.default,
            r.alternative,
            r.why_default,
            r.paragraph
        );
    }
    scenarios(&mut out, d);
    smallest(&mut out, d);
    play(&mut out, d);
    perft(&mut out, d);
    best_play(&mut out, d);
    out
}

/// The readings the dispute changes, as the settings they take:
/// `I3 feeding=after-capture`.
pub(super) fn adopted(d: &Dispute) -> String {
    let names: Vec<String> = d
        .alternative
        .changes()
        .map(|s| {
            format!(
                "{} `{}={}`",
                s.reading(),
                s.setting(),
                s.value_in(d.alternative)
            )
        })
        .collect();
    names.join(" and ")
}

/// The answer to the disputant's question, in one sentence: what adopting
/// the alternative changes in the suite and in random games.
pub(super) fn headline(d: &Dispute) -> String {
    let s = &d.scenarios;
    let mut out = format!(
        "Adopting {} changes {} of {} conformance scenarios",
        adopted(d),
        s.differing.len(),
        s.compared
    );
    if let Some(rr) = d.play.pairings.first() {
        let w = &rr.winner_changed;
        let _ = write!(out, " and the result of {} of random games", pct(w.share));
        if pct(w.share) == "0.0%" {
            let _ = write!(out, " ({} of {})", thousands(w.count), thousands(w.total));
        }
    }
    if let Some(value) = value_clause(d) {
        let _ = write!(out, "; {value}");
    }
    out.push('.');
    out
}

/// What adopting the alternative does to the value of Kpé, when both
/// values are known (spec/solved.yaml): `it changes the value of Kpé from
/// +2 to 0 for South` or `it leaves the value of Kpé at +2 for South`.
pub(super) fn value_clause(d: &Dispute) -> Option<String> {
    let g = &d.best_play.game;
    let (from, to) = (g.default.value?, g.alternative.value?);
    let (from_text, to_text) = (margin_text(from), margin_text(to));
    Some(if from == to {
        format!("it leaves the value of Kpé at {from_text} for South")
    } else {
        format!("it changes the value of Kpé from {from_text} to {to_text} for South")
    })
}

/// A share as a percentage; one that rounds to 0.0% also gives its count
/// (`0.0% (31 of 407,647 plies)`), so that "none" and "a few" differ.
pub(super) fn share_of(s: &Share, unit: &str) -> String {
    let p = pct(s.share);
    if p == "0.0%" {
        format!(
            "{p} ({} of {} {unit})",
            thousands(s.count),
            thousands(s.total)
        )
    } else {
        p
    }
}

/// `407647` as `407,647`.
pub(super) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One line per part: the verdict first.
pub(super) fn summary(d: &Dispute) -> Vec<String> {
    let s = &d.scenarios;
    let mut lines = vec![format!(
        "scenarios: {} of {} conformance scenarios answer differently",
        s.differing.len(),
        s.compared
    )];
    lines.push(match (d.smallest.stones, d.smallest.line) {
        (Some(n), Some(1)) => format!(
            "smallest positions: {n} stones on the board ({} positions differ in one move)",
            d.smallest.differing_positions
        ),
        (Some(n), Some(l)) => format!(
            "smallest positions: {n} stones on the board, after a line of {l} moves ({} positions)",
            d.smallest.differing_positions
        ),
        _ => format!(
            "smallest positions: none with up to {} stones",
            d.smallest.max_stones
        ),
    });
    if let Some(rr) = d.play.pairings.first() {
        lines.push(format!(
            "in play: {} of random games and {} of their plies change (95% CI {})",
            share_of(&rr.games_changed, "games"),
            share_of(&rr.plies_changed, "plies"),
            interval(&rr.games_changed)
        ));
    }
    lines.push(match d.perft.first_difference {
        Some(depth) => {
            let row = d.perft.depths[depth as usize - 1];
            format!(
                "perft: counts part at depth {depth} ({} against {}, {:+})",
                row.default, row.alternative, row.difference
            )
        }
        None => format!("perft: equal up to depth {}", d.perft.max_depth),
    });
    let suite = &d.perft.from_suite;
    if !suite.is_empty() {
        let parted = suite
            .iter()
            .filter(|f| f.first_difference.is_some())
            .count();
        let last = lines.len() - 1;
        let _ = write!(
            lines[last],
            "; from the suite's {} other perft positions: {parted} part",
            suite.len()
        );
    }
    lines.push(best_summary(d));
    lines.push(game_summary(d));
    lines
}

/// The summary line of the value of the game under both readings.
pub(super) fn game_summary(d: &Dispute) -> String {
    if let Some(clause) = value_clause(d) {
        return format!("value of Kpé: {clause}");
    }
    let g = &d.best_play.game;
    let one =
        |v: &super::best::ValueOfTheGame| v.value.map_or_else(|| "unknown".to_owned(), margin_text);
    format!(
        "value of Kpé: {} under the default, {} under the alternative (part 5 says why)",
        one(&g.default),
        one(&g.alternative)
    )
}

fn scenarios(out: &mut String, d: &Dispute) {
    let part = &d.scenarios;
    let _ = writeln!(
        out,
        "\n== 1. Conformance scenarios that answer differently: {} of {}",
        part.differing.len(),
        part.compared
    );
    for s in &part.differing {
        scenario(out, s, &d.alternative.to_string());
    }
}

fn scenario(out: &mut String, s: &ScenarioDiff, alt: &str) {
    let written = match (s.written_for_default, s.written_for_alternative) {
        (true, true) => "written for both readings",
        (true, false) => "written for the default",
        (false, true) => "written for the alternative",
        (false, false) => "written for other readings",
    };
    let _ = writeln!(
        out,
        "\n{}: `{}` (rules {}; {written}): first difference at ply {}",
        s.file,
        s.id,
        s.rules.join(" "),
        s.first_difference
    );
    if !s.default_profile.is_default() {
        let _ = writeln!(
            out,
            "   (other readings as the scenario pins them: {} against {})",
            s.default_profile, s.alternative_profile
        );
    }
    let from = s.first_difference.saturating_sub(BEFORE);
    let to = (s.first_difference + AFTER).min(s.plies.len() - 1);
    if from > 0 {
        let _ = writeln!(out, "  ... plies 0 to {} are the same", from - 1);
    }
    for p in &s.plies[from..=to] {
        let marker = if p.ply == s.first_difference {
            ">>"
        } else if p.differs {
            " ≠"
        } else {
            "  "
        };
        let mv = p.mv.map(|m| m.to_string()).unwrap_or_default();
        let _ = writeln!(
            out,
            "{marker} ply {:<3} {mv:<3} default:     {}",
            p.ply,
            step(&p.default)
        );
        if p.differs {
            let _ = writeln!(
                out,
                "{:<14}{:<13}{}",
                "",
                format!("{}:", short(alt)),
                step(&p.alternative)
            );
        } else {
            let _ = writeln!(out, "{:<14}(the same under {alt})", "");
        }
    }
    if to + 1 < s.plies.len() {
        let _ = writeln!(out, "  ... {} more plies", s.plies.len() - 1 - to);
    }
    let _ = writeln!(
        out,
        "   outcome: default: {}\n            {}: {}",
        s.default_outcome,
        short(alt),
        s.alternative_outcome
    );
}

/// The alternative's label, kept short for columns.
fn short(alt: &str) -> &str {
    if alt.len() > 12 { "alt" } else { alt }
}

fn step(s: &Step) -> String {
    let mut text = s.did.clone();
    if let Some(p) = s.position {
        let _ = write!(text, "\n{:<27}-> {p}; legal {}", "", pits(&s.legal));
    }
    text
}

pub(super) fn pits(pits: &[Pit]) -> String {
    if pits.is_empty() {
        return "none".to_owned();
    }
    pits.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn smallest(out: &mut String, d: &Dispute) {
    let s = &d.smallest;
    let _ = write!(out, "\n== 2. Smallest positions where the readings differ");
    match s.stones {
        None => {
            let _ = writeln!(
                out,
                ": none with up to {} stones on the board ({} positions tried)",
                s.max_stones, s.positions_tried
            );
        }
        Some(n) => {
            let _ = writeln!(
                out,
                ": {n} stones, {} positions ({} valid positions tried, fewest stones first)",
                s.differing_positions, s.positions_tried
            );
        }
    }
    if s.needs_history {
        let _ = writeln!(
            out,
            "   `end-on-repetition` depends on the game's history: lines of up to {} moves were played from positions of up to {} stones.",
            s.max_line, s.line_stones
        );
    }
    for (k, e) in s.examples.iter().enumerate() {
        let _ = writeln!(
            out,
            "\nexample {}: {}  moves {}  (differs: {})\n{}",
            k + 1,
            e.start,
            pits(&e.moves),
            e.differs.join(", "),
            indent(&e.start.diagram())
        );
        for (label, a) in [
            ("default", &e.default),
            (d.alternative.to_string().as_str(), &e.alternative),
        ] {
            let result = match (&a.position, &a.refused) {
                (_, Some(reason)) => format!("refused ({reason})"),
                (Some(p), None) => format!("-> {p}"),
                (None, None) => String::new(),
            };
            let caps: Vec<String> = a
                .captures
                .iter()
                .map(|c| format!("{}:{}", c.pit, c.stones))
                .collect();
            let _ = writeln!(
                out,
                "  {label}: legal {}; {} {result}; captures {}; {}",
                pits(&a.legal),
                e.moves.last().map(ToString::to_string).unwrap_or_default(),
                if caps.is_empty() {
                    "none".to_owned()
                } else {
                    caps.join(" ")
                },
                a.outcome
            );
        }
        let _ = writeln!(
            out,
            "  as scenarios (append as printed to a conformance/*.yaml file):\n{}",
            e.yaml
        );
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}\n"))
        .collect::<String>()
        .trim_end()
        .to_owned()
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn interval(s: &Share) -> String {
    format!("{}-{}", pct(s.low), pct(s.high))
}

fn mean(m: &Mean) -> String {
    format!("{:+.2} ({:+.2} to {:+.2})", m.mean, m.low, m.high)
}

fn play(out: &mut String, d: &Dispute) {
    let p = &d.play;
    let _ = writeln!(
        out,
        "\n== 3. In play: {} games per pairing and reading, seed {} (--seed), stopped at {} plies; 95% intervals",
        p.games, p.seed, p.max_plies
    );
    for pairing in &p.pairings {
        play_pairing(out, pairing, &d.alternative.to_string());
    }
}

fn play_pairing(out: &mut String, p: &Pairing, alt: &str) {
    let _ = writeln!(
        out,
        "\nSouth {} against North {}:\n  games where the reading changes an answer: {} ({})\n  plies where it does:                      {} ({})\n  games whose result changes:               {} ({})",
        p.south.name(),
        p.north.name(),
        share_of(&p.games_changed, "games"),
        interval(&p.games_changed),
        share_of(&p.plies_changed, "plies"),
        interval(&p.plies_changed),
        share_of(&p.winner_changed, "games"),
        interval(&p.winner_changed)
    );
    let _ = writeln!(
        out,
        "  {:<12} {:>20} {:>20} {:>20} {:>20} {:>24}",
        "reading", "South wins", "draws", "South loses", "unfinished", "mean margin (S-N)"
    );
    for (label, r) in [("default", &p.default), (short(alt), &p.alternative)] {
        let cell = |s: &Share| format!("{} ({})", share_of(s, "games"), interval(s));
        let _ = writeln!(
            out,
            "  {:<12} {:>20} {:>20} {:>20} {:>20} {:>24}",
            label,
            cell(&r.wins),
            cell(&r.draws),
            cell(&r.losses),
            cell(&r.unfinished),
            mean(&r.margin)
        );
    }
    let _ = writeln!(
        out,
        "  margin change (alternative - default, same seeds): {}",
        mean(&p.margin_change)
    );
    let (a, b) = (&p.default.plies, &p.alternative.plies);
    let _ = writeln!(
        out,
        "  game length (plies): default {:.1} ({:.1} to {:.1}), {}: {:.1} ({:.1} to {:.1}), {:+.1}",
        a.mean,
        a.low,
        a.high,
        short(alt),
        b.mean,
        b.low,
        b.high,
        b.mean - a.mean
    );
}

fn perft(out: &mut String, d: &Dispute) {
    let p = &d.perft;
    let _ = writeln!(
        out,
        "\n== 4. Perft from the initial position (depths 1 to at most {})",
        p.max_depth
    );
    let _ = writeln!(
        out,
        "  {:>5} {:>14} {:>14} {:>12}",
        "depth",
        "default",
        short(&d.alternative.to_string()),
        "difference"
    );
    for row in &p.depths {
        let _ = writeln!(
            out,
            "  {:>5} {:>14} {:>14} {:>+12}",
            row.depth, row.default, row.alternative, row.difference
        );
    }
    let _ = match p.first_difference {
        Some(depth) => writeln!(out, "  the counts first part at depth {depth}"),
        None => writeln!(
            out,
            "  the counts are equal up to depth {} (--perft-depth)",
            p.max_depth
        ),
    };
    if p.from_suite.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "  from the start positions of the suite's perft tables (conformance/perft.yaml):"
    );
    for f in &p.from_suite {
        let last = f.depths.last();
        let _ = match (f.first_difference, last) {
            (Some(depth), Some(row)) => writeln!(
                out,
                "    {} ({}): part at depth {depth} ({} against {}, {:+})",
                f.table, f.start, row.default, row.alternative, row.difference
            ),
            (_, Some(row)) => writeln!(
                out,
                "    {} ({}): equal up to depth {} ({})",
                f.table, f.start, row.depth, row.default
            ),
            (_, None) => writeln!(out, "    {} ({}): not compared", f.table, f.start),
        };
    }
}

/// The summary line of part 5.
pub(super) fn best_summary(d: &Dispute) -> String {
    let b = &d.best_play;
    if let Some(why) = &b.not_compared {
        return format!("with best play: not compared ({why})");
    }
    if b.same_table {
        return "with best play: the same after the opening lock (one table covers both readings)"
            .to_owned();
    }
    match b.stones {
        Some(n) => {
            let layer = b.layers.iter().find(|l| l.stones == n);
            format!(
                "with best play: values first differ with {n} stones on the board ({} of {} positions)",
                layer.map_or(0, |l| l.differing),
                layer.map_or(0, |l| l.states)
            )
        }
        None => format!(
            "with best play: the same value for every position of up to {} stones",
            b.max_stones
        ),
    }
}

fn best_play(out: &mut String, d: &Dispute) {
    let b = &d.best_play;
    let _ = writeln!(out, "\n== 5. With best play (spec/SOLVE.md)");
    let _ = writeln!(out, "  {}", best_summary(d));
    let _ = writeln!(out, "  {}", b.initial);
    if b.not_compared.is_some() || b.same_table {
        return;
    }
    let _ = writeln!(
        out,
        "  {:>6} {:>10} {:>10}",
        "stones", "positions", "differing"
    );
    for l in &b.layers {
        let _ = writeln!(
            out,
            "  {:>6} {:>10} {:>10}",
            l.stones, l.states, l.differing
        );
    }
    for (k, e) in b.examples.iter().enumerate() {
        let _ = writeln!(
            out,
            "\nexample {}: {}\n{}",
            k + 1,
            e.position,
            indent(&e.position.diagram())
        );
        for (label, v) in [("default", &e.default), ("alternative", &e.alternative)] {
            let endless = if v.endless { " (endless)" } else { "" };
            let _ = writeln!(
                out,
                "  {label}: South forces {:+}{endless}; best moves {}",
                v.margin,
                pits(&v.best)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_that_rounds_to_zero_gives_its_count() {
        assert_eq!(
            share_of(&Share::new(31, 407_647), "plies"),
            "0.0% (31 of 407,647 plies)"
        );
        assert_eq!(
            share_of(&Share::new(0, 2000), "games"),
            "0.0% (0 of 2,000 games)"
        );
        assert_eq!(share_of(&Share::new(1, 1000), "games"), "0.1%");
        assert_eq!(share_of(&Share::new(1, 2), "games"), "50.0%");
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
