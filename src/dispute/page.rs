//! The page of `kpe dispute --html`: the four parts for someone who never
//! saw the code, with every example drawn as a board.

use super::model::Dispute;
use super::play::{Mean, Pairing, Share};
use super::scenarios::ScenarioDiff;
use super::search::{Answer, Example};
use super::text::{AFTER, BEFORE, headline, pits, share_of, summary};
use crate::board::Pit;
use crate::html::{self, Board, Markup, Page, Table, Tone, element};

pub(super) fn render(d: &Dispute) -> String {
    let alt = d.alternative.to_string();
    let mut page = Page::new(&format!("What would “{alt}” change in Kpé?"));
    page.lead(element(
        "p",
        Some("intro"),
        Markup::markdown(&format!(
            "{} The rules of Kpé leave a few points open. This page compares the default reading \
             of the rules with the alternative `{alt}`, using kpe's reference rules: which test \
             scenarios come out differently, the smallest positions where the two readings \
             disagree, how often it matters in play, and how the number of possible games changes.",
            headline(d)
        )),
    ));
    let verdict: Markup = summary(d)
        .iter()
        .map(|l| element("li", None, Markup::text(l)))
        .collect();
    let changes = !d.scenarios.differing.is_empty() || d.smallest.stones.is_some();
    page.lead(html::note(
        if changes { Tone::Bad } else { Tone::Good },
        element("ul", None, verdict),
    ));
    page.section("Words used on this page", glossary());
    page.section("The rule and the two readings", rule(d));
    page.section("Smallest positions where the readings differ", smallest(d));
    page.section(
        &format!(
            "Conformance scenarios that change ({} of {})",
            d.scenarios.differing.len(),
            d.scenarios.compared
        ),
        scenarios(d),
    );
    page.section("How much it matters in play", play(d));
    page.section("Counting every possible game (perft)", perft(d));
    page.section("With best play", best_play(d));
    page.footer(&format!(
        "Made by `kpe dispute {alt} --seed {} --games {}` from kpe's reference rules (spec/RULES.md); \
         the JSON form (`--format json`) is described in spec/DISPUTE.md.",
        d.play.seed, d.play.games
    ));
    page.finish()
}

/// The terms a reader who never saw the code may not know.
fn glossary() -> Markup {
    let mut t = Table::new(&["word", "what it means here"]);
    for (word, meaning) in [
        (
            "ply",
            "One move by one player. A game of 40 plies is 20 moves by South and 20 by North.",
        ),
        (
            "position notation",
            "A position written on one line, as in `6,6,6,6/6,6,6,6 S 0/0 ----/----`: the stones \
             in South's pits S1 to S4, then North's N1 to N4; who is to move (S or N); the stones \
             each player has captured (South/North); and which of each player's pits they have \
             moved from (a digit for a used pit, `-` for an unused one), which decides when they \
             may start capturing (spec/NOTATION.md).",
        ),
        (
            "rule ID",
            "The permanent name of one rule of spec/RULES.md, such as `SOW-4` (the fourth rule \
             on sowing) or `FEED-2` (the second on feeding): the tables below cite the rules that \
             decide each answer.",
        ),
        (
            "reading",
            "One of the points the written sources leave open (I1, I2, ...), each with two values; \
             the default is the value kpe takes unless told otherwise, and `kpe adopt` changes it.",
        ),
        (
            "scenario",
            "A test of the conformance suite: a start position, moves, and what the rules must \
             answer after each (conformance/*.yaml).",
        ),
        (
            "perft",
            "The number of different sequences of moves of a given length (in plies) from a \
             position. If the two readings give different counts, they allow different games.",
        ),
    ] {
        t.row([Markup::text(word), Markup::markdown(meaning)]);
    }
    t.finish()
}

fn rule(d: &Dispute) -> Markup {
    let mut out = Markup::new();
    for r in &d.readings {
        out.push(element(
            "h3",
            None,
            Markup::text(&format!("{} ({}): {}", r.reading, r.rule, r.question)),
        ));
        out.push(html::paragraph("What the rules say (spec/RULES.md):"));
        out.push(element("blockquote", None, Markup::markdown(&r.paragraph)));
        let mut t = Table::new(&["", "the default reading", "the alternative"]);
        t.row([
            Markup::text("answer"),
            Markup::markdown(&r.default),
            Markup::markdown(&r.alternative),
        ]);
        t.row([
            Markup::text("profile"),
            Markup::code("default"),
            Markup::code(&d.alternative.to_string()),
        ]);
        out.push(t.finish());
        let mut why = Markup::text("Why the default is the default: ");
        why.push(Markup::markdown(&r.why_default));
        out.push(element("p", None, why));
    }
    out
}

fn smallest(d: &Dispute) -> Markup {
    let s = &d.smallest;
    let alt = d.alternative.to_string();
    let mut out = Markup::new();
    let Some(stones) = s.stones else {
        out.push(html::note(
            Tone::Good,
            Markup::text(&format!(
                "No position with up to {} stones on the board is answered differently ({} positions tried).",
                s.max_stones, s.positions_tried
            )),
        ));
        return out;
    };
    out.push(html::paragraph(&format!(
        "kpe tried every valid position with 2, 4, 6, ... stones on the board, fewest first \
         ({} positions). The fewest stones with which the readings disagree is {stones}: {} \
         positions. Each example below shows the position, the move, and the board after it \
         under each reading; the pits that come out differently are outlined in orange.",
        s.positions_tried, s.differing_positions
    )));
    if s.needs_history {
        out.push(html::note(
            Tone::Info,
            Markup::text(&format!(
                "`end-on-repetition` depends on what happened earlier in the game, not on one \
                 position, so kpe also played every line of up to {} moves from positions with \
                 up to {} stones.",
                s.max_line, s.line_stones
            )),
        ));
    }
    for (k, e) in s.examples.iter().enumerate() {
        out.push(example(k + 1, e, &alt));
    }
    out
}

fn answer_text(e: &Example, a: &Answer) -> String {
    let then = if a.outcome == "unfinished" {
        "The game goes on.".to_owned()
    } else {
        format!("Game over: {}.", a.outcome)
    };
    let mv = e.moves.last().map(ToString::to_string).unwrap_or_default();
    let caps: Vec<String> = a
        .captures
        .iter()
        .map(|c| format!("{} ({} stones)", c.pit, c.stones))
        .collect();
    match &a.refused {
        Some(reason) => format!(
            "legal moves: {}. {mv} is refused ({reason}).",
            pits(&a.legal)
        ),
        None => format!(
            "legal moves: {}. {mv} captures {}. {then}",
            pits(&a.legal),
            if caps.is_empty() {
                "nothing".to_owned()
            } else {
                caps.join(", ")
            }
        ),
    }
}

fn example(k: usize, e: &Example, alt: &str) -> Markup {
    let mut body = element(
        "h3",
        None,
        Markup::text(&format!(
            "Example {k}: {} stones, {} (differs: {})",
            e.stones,
            if e.moves.len() == 1 {
                format!("move {}", e.moves[0])
            } else {
                format!("moves {}", pits(&e.moves))
            },
            e.differs.join(", ")
        )),
    );
    let last: Vec<Pit> = e.moves.last().copied().into_iter().collect();
    let before_label = if e.moves.len() > 1 {
        format!("start (then {})", pits(&e.moves))
    } else {
        format!("before {}", pits(&last))
    };
    let d_label = format!("default: after {}", pits(&last));
    let a_label = format!("{alt}: after {}", pits(&last));
    let refused_d = format!("default: {} refused", pits(&last));
    let refused_a = format!("{alt}: {} refused", pits(&last));
    let mut boards = vec![Board::new(&e.start, &last, &before_label)];
    match &e.default.position {
        Some(p) => boards.push(Board::new(p, &e.marks, &d_label)),
        None => boards.push(Board::new(&e.start, &e.marks, &refused_d)),
    }
    match &e.alternative.position {
        Some(p) => boards.push(Board::new(p, &e.marks, &a_label)),
        None => boards.push(Board::new(&e.start, &e.marks, &refused_a)),
    }
    let mut figure = html::boards_svg(&boards);
    let mut caption = Markup::text("Start: ");
    caption.push(Markup::code(&e.start.to_string()));
    caption.push(html::line_break());
    caption.push(element("strong", None, Markup::text("Default: ")));
    caption.push(Markup::text(&answer_text(e, &e.default)));
    caption.push(html::line_break());
    caption.push(element("strong", None, Markup::text(&format!("{alt}: "))));
    caption.push(Markup::text(&answer_text(e, &e.alternative)));
    figure.push(element("figcaption", None, caption));
    body.push(element("figure", Some("example"), figure));
    body.push(html::details(
        "Ready-to-paste conformance scenarios (YAML)",
        html::pre(&e.yaml),
    ));
    element("div", Some("example-block"), body)
}

fn scenarios(d: &Dispute) -> Markup {
    let mut out = Markup::new();
    let part = &d.scenarios;
    if part.differing.is_empty() {
        out.push(html::note(
            Tone::Good,
            Markup::text("No conformance scenario is answered differently."),
        ));
        return out;
    }
    out.push(html::paragraph(
        "Each scenario is a position and a list of moves from kpe's test suite. Below, the moves \
         around the first one that comes out differently; the highlighted row is that move, and \
         the boards show the position after it under each reading.",
    ));
    let alt = d.alternative.to_string();
    for s in &part.differing {
        out.push(scenario(s, &alt));
    }
    out
}

fn scenario(s: &ScenarioDiff, alt: &str) -> Markup {
    let mut body = element(
        "h3",
        None,
        Markup::text(&format!(
            "{} (in {}): first difference at move {}",
            s.id, s.file, s.first_difference
        )),
    );
    if !s.description.is_empty() {
        body.push(html::paragraph(&s.description));
    }
    let mut t = Table::new(&["move", "", "default", alt]);
    let from = s.first_difference.saturating_sub(BEFORE);
    let to = (s.first_difference + AFTER).min(s.plies.len() - 1);
    for p in &s.plies[from..=to] {
        // The legal moves too, as the text report gives them: a first
        // difference in the legal moves alone would otherwise show two
        // identical cells.
        let cell = |step: &super::scenarios::Step| {
            let mut m = Markup::text(&step.did);
            if let Some(pos) = step.position {
                m.push(html::line_break());
                m.push(Markup::code(&pos.to_string()));
                m.push(html::line_break());
                m.push(Markup::text(&format!(
                    "legal: {}",
                    super::text::pits(&step.legal)
                )));
            }
            m
        };
        let cells = [
            Markup::text(&p.ply.to_string()),
            Markup::text(
                &p.mv
                    .map(|m| m.to_string())
                    .unwrap_or_else(|| "start".into()),
            ),
            cell(&p.default),
            if p.differs {
                cell(&p.alternative)
            } else {
                Markup::text("the same")
            },
        ];
        if p.ply == s.first_difference {
            t.marked_row(cells);
        } else {
            t.row(cells);
        }
    }
    body.push(t.finish());
    let first = &s.plies[s.first_difference];
    if let (Some(a), Some(b)) = (first.default.position, first.alternative.position) {
        let marks: Vec<Pit> = Pit::ALL
            .into_iter()
            .filter(|&p| a.stones(p) != b.stones(p))
            .collect();
        let da = format!("default, after move {}", first.ply);
        let db = format!("{alt}, after move {}", first.ply);
        let mut fig = html::boards_svg(&[Board::new(&a, &marks, &da), Board::new(&b, &marks, &db)]);
        fig.push(element(
            "figcaption",
            None,
            Markup::text("The position after the first move that comes out differently; pits that differ are outlined."),
        ));
        body.push(element("figure", Some("scenario"), fig));
    }
    body.push(html::paragraph(&format!(
        "Outcome: default: {}; {alt}: {}.",
        s.default_outcome, s.alternative_outcome
    )));
    element("div", Some("scenario-block"), body)
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn share(s: &Share, unit: &str) -> Markup {
    Markup::text(&format!(
        "{} ({}–{})",
        share_of(s, unit),
        pct(s.low),
        pct(s.high)
    ))
}

fn mean(m: &Mean) -> Markup {
    Markup::text(&format!("{:+.2} ({:+.2} to {:+.2})", m.mean, m.low, m.high))
}

fn play(d: &Dispute) -> Markup {
    let p = &d.play;
    let alt = d.alternative.to_string();
    let mut out = html::paragraph(&format!(
        "kpe played {} games for each pairing of simple players under each reading (random: any \
         legal move; greedy: the move that captures most), from the start, with the same random \
         choices under both readings (seed {}), stopping a game after {} moves. Figures in \
         brackets are 95% confidence intervals.",
        p.games, p.seed, p.max_plies
    ));
    let mut t = Table::new(&[
        "South against North",
        "games where the reading changes something",
        "plies where it does",
        "games whose result changes",
        "change in South's mean margin",
    ]);
    for pairing in &p.pairings {
        t.row([
            Markup::text(&names(pairing)),
            share(&pairing.games_changed, "games"),
            share(&pairing.plies_changed, "plies"),
            share(&pairing.winner_changed, "games"),
            mean(&pairing.margin_change),
        ]);
    }
    out.push(t.finish());
    let mut r = Table::new(&[
        "South against North",
        "reading",
        "South wins",
        "draws",
        "South loses",
        "unfinished",
        "ended by repetition",
        "South's mean margin",
        "mean length (plies)",
    ]);
    for pairing in &p.pairings {
        for (label, res) in [
            ("default", &pairing.default),
            (alt.as_str(), &pairing.alternative),
        ] {
            r.row([
                Markup::text(&names(pairing)),
                Markup::code(label),
                share(&res.wins, "games"),
                share(&res.draws, "games"),
                share(&res.losses, "games"),
                share(&res.unfinished, "games"),
                share(&res.by_repetition, "games"),
                mean(&res.margin),
                Markup::text(&format!("{:.1}", res.plies.mean)),
            ]);
        }
    }
    out.push(element(
        "h3",
        None,
        Markup::text("Results under each reading"),
    ));
    out.push(r.finish());
    out
}

fn names(p: &Pairing) -> String {
    format!("{} against {}", p.south.name(), p.north.name())
}

fn perft(d: &Dispute) -> Markup {
    let p = &d.perft;
    let mut out = html::paragraph(
        "Perft counts every sequence of moves of a given number of plies from the start of the \
         game. Where the counts part, the readings allow different games.",
    );
    let mut t = Table::new(&["moves", "default", &d.alternative.to_string(), "difference"]);
    for row in &p.depths {
        let cells = [
            Markup::text(&row.depth.to_string()),
            Markup::text(&row.default.to_string()),
            Markup::text(&row.alternative.to_string()),
            Markup::text(&format!("{:+}", row.difference)),
        ];
        if Some(row.depth) == p.first_difference {
            t.marked_row(cells);
        } else {
            t.row(cells);
        }
    }
    out.push(t.finish());
    out.push(html::paragraph(&match p.first_difference {
        Some(depth) => format!("The counts first part after {depth} plies."),
        None => format!("The counts are equal up to {} plies.", p.max_depth),
    }));
    if p.from_suite.is_empty() {
        return out;
    }
    out.push(html::paragraph(
        "The same counts from the start position of each perft table of the conformance suite \
         (conformance/perft.yaml), positions chosen because the readings matter there:",
    ));
    let mut t = Table::new(&[
        "table",
        "start position",
        "plies",
        "default",
        &d.alternative.to_string(),
        "difference",
    ]);
    for f in &p.from_suite {
        let Some(row) = f.depths.last() else {
            continue;
        };
        let cells = [
            Markup::text(&f.table),
            Markup::code(&f.start.to_string()),
            Markup::text(&row.depth.to_string()),
            Markup::text(&row.default.to_string()),
            Markup::text(&row.alternative.to_string()),
            Markup::text(&format!("{:+}", row.difference)),
        ];
        if f.first_difference.is_some() {
            t.marked_row(cells);
        } else {
            t.row(cells);
        }
    }
    out.push(t.finish());
    out.push(html::paragraph(
        "Each row stops at the first number of plies where the counts part (marked), or at the \
         deepest the suite records.",
    ));
    out
}

/// Part 5: the summary, then each example with both readings' best moves.
fn best_play(d: &Dispute) -> Markup {
    let mut out = Markup::new();
    out.push(html::paragraph(&super::text::best_summary(d)));
    out.push(html::paragraph(&d.best_play.initial));
    for e in &d.best_play.examples {
        let line = |label: &str, v: &super::best::BestValue| {
            let best: Vec<String> = v.best.iter().map(ToString::to_string).collect();
            format!(
                "{label}: South forces {:+}{}, best moves {}",
                v.margin,
                if v.endless { " (endless)" } else { "" },
                best.join(" ")
            )
        };
        out.push(html::paragraph(&format!(
            "{}: {}; {}",
            e.position,
            line("default", &e.default),
            line("alternative", &e.alternative)
        )));
    }
    out
}
