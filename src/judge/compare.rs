//! The reference's answer to a question, and the field-by-field comparison
//! of an engine's answer with it, naming the rules that decide each field.

use std::fmt::Write as _;

use serde::Serialize;

use super::facts::{Answer, Question};
use crate::board::{Pit, Player};
use crate::position::{Position, Setup};
use crate::profile::Profile;
use crate::protocol::{EndClaim, parse_reason};
use crate::report::{Capture, Report};
use crate::rules::{self, legal_moves};

/// The reference's answer to `question` under `profile`.
///
/// Repetition (END-3) is not part of it: a stateless question has no game
/// history, so the checker judges repetition itself.
#[must_use]
pub fn expected(question: &Question, profile: Profile) -> Answer {
    match *question {
        Question::Legal(position) => Answer::Legal(legal_moves(&position, profile).to_vec()),
        Question::Play(position, pit) => match rules::play(&position, pit, profile) {
            Ok((after, report)) => Answer::Played {
                position: after.to_string(),
                captures: report.captures.to_vec(),
                end: report.end.map(|end| EndClaim { totals: end.totals }),
            },
            Err(illegal) => Answer::Illegal(illegal.reason.code().to_owned()),
        },
    }
}

/// One field on which an engine's answer differs from the reference.
///
/// Fields are named as in transcripts: `legal`, `move` (played or refused,
/// and why), `after` (with the parts `after.pits`, `after.captured`,
/// `after.to_move`, `after.used` as details), `captures`, `game_over` and
/// `totals`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldDiff {
    /// The field.
    pub field: &'static str,
    /// What the rules give.
    pub expected: String,
    /// What the engine claimed.
    pub claimed: String,
    /// The rule IDs that decide this field.
    pub rules: Vec<&'static str>,
    /// The differing parts of a compound field (a position).
    pub details: Vec<FieldDiff>,
}

/// The differences between an engine's answer and the reference's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// The differing fields, in a fixed order.
    pub fields: Vec<FieldDiff>,
    /// The rule IDs that decide the differing fields.
    pub rules: Vec<&'static str>,
}

impl Mismatch {
    /// The names of the differing fields and parts: the shape of the
    /// divergence.
    #[must_use]
    pub fn shape(&self) -> Vec<&'static str> {
        self.fields
            .iter()
            .flat_map(|d| std::iter::once(d.field).chain(d.details.iter().map(|p| p.field)))
            .collect()
    }
}

/// What the reference did to answer a question an engine answered alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Agreed {
    /// The legal moves.
    Legal,
    /// The move, played (with the position after it and the rules' report)
    /// or refused.
    Play(Result<(Position, Report), rules::IllegalMove>),
}

/// [`compare`], and for an answer that agrees what the rules did to give
/// it: the rules are asked once, and an answer that agrees word for word
/// is judged without allocating (the usual case of a live run, where
/// every answer is judged).
///
/// # Errors
///
/// The [`Mismatch`] [`compare`] gives, when the answer does not agree.
pub fn agreement(
    question: &Question,
    claimed: &Answer,
    profile: Profile,
) -> Result<Agreed, Mismatch> {
    let agreed = match (*question, claimed) {
        (Question::Legal(position), Answer::Legal(got)) => {
            same_moves(&legal_moves(&position, profile), got).then_some(Agreed::Legal)
        }
        (Question::Play(position, pit), claimed) => {
            let result = rules::play(&position, pit, profile);
            same_result(&result, claimed).then_some(Agreed::Play(result))
        }
        (Question::Legal(_), _) => None,
    };
    match agreed {
        Some(agreed) => Ok(agreed),
        None => match compare(question, claimed, profile) {
            Some(mismatch) => Err(mismatch),
            // Alike after all, in a way the quick look above does not
            // see: asked again for what the rules did.
            None => Ok(match *question {
                Question::Legal(_) => Agreed::Legal,
                Question::Play(position, pit) => Agreed::Play(rules::play(&position, pit, profile)),
            }),
        },
    }
}

/// Whether the engine's moves `got` are the reference's `want` in some
/// order, as [`legal_diff`] judges them (sorted, then equal).
fn same_moves(want: &[Pit], got: &[Pit]) -> bool {
    let mut sorted = arrayvec::ArrayVec::<Pit, { crate::board::PITS }>::new();
    if got.len() > sorted.capacity() {
        return false;
    }
    sorted.extend(got.iter().copied());
    sorted.sort_unstable();
    want == sorted.as_slice()
}

/// Whether `claimed` is the answer the rules' `result` gives, as
/// [`compare`] judges it, without writing the reference's answer out.
fn same_result(result: &Result<(Position, Report), rules::IllegalMove>, claimed: &Answer) -> bool {
    match (result, claimed) {
        (
            Ok((after, report)),
            Answer::Played {
                position,
                captures,
                end,
            },
        ) => {
            let mut notation = arrayvec::ArrayString::<64>::new();
            write!(notation, "{after}").is_ok()
                && notation.as_str() == position
                && same_captures(&report.captures, captures)
                && report.end.map(|end| EndClaim { totals: end.totals }) == *end
        }
        (Err(illegal), Answer::Illegal(reason)) => illegal.reason.code() == reason,
        _ => false,
    }
}

/// Compares an engine's `claimed` answer to `question` with the reference
/// under `profile`; `None` when they agree. Legal moves and captures may
/// come in any order.
#[must_use]
pub fn compare(question: &Question, claimed: &Answer, profile: Profile) -> Option<Mismatch> {
    let expected = expected(question, profile);
    let mut fields = Vec::new();
    match (&expected, claimed) {
        (Answer::Legal(want), Answer::Legal(got)) => {
            fields.extend(legal_diff(question, want, got, profile));
        }
        (Answer::Illegal(want), Answer::Illegal(got)) => {
            if want != got {
                let rules = reason_rule(want)
                    .into_iter()
                    .chain(reason_rule(got))
                    .collect();
                fields.push(field("move", refused(want), refused(got), rules));
            }
        }
        (Answer::Illegal(want), Answer::Played { position, .. }) => {
            let rules = reason_rule(want).into_iter().collect();
            fields.push(field("move", refused(want), played(position), rules));
        }
        (Answer::Played { position, .. }, Answer::Illegal(got)) => {
            let mut rules: Vec<&'static str> = reason_rule(got).into_iter().collect();
            if got == "feeding-required" {
                rules.push("FEED-2");
            }
            fields.push(field("move", played(position), refused(got), rules));
        }
        (Answer::Played { .. }, Answer::Played { .. }) => {
            played_diff(question, &expected, claimed, profile, &mut fields);
        }
        _ => fields.push(field(
            "answer",
            format!("{expected:?}"),
            format!("{claimed:?}"),
            Vec::new(),
        )),
    }
    if fields.is_empty() {
        return None;
    }
    let mut rules = broken(question, &expected, claimed, profile);
    if rules.is_empty() {
        for rule in fields.iter().flat_map(|f| f.rules.iter().copied()) {
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
    } else {
        label_with(&mut fields, &rules);
    }
    Some(Mismatch { fields, rules })
}

/// The `legal` field when the engine's legal moves `got` are not the
/// reference's `want`: what is missing, what is extra, and the rule broken.
fn legal_diff(
    question: &Question,
    want: &[Pit],
    got: &[Pit],
    profile: Profile,
) -> Option<FieldDiff> {
    let mut sorted = got.to_vec();
    sorted.sort();
    if want == sorted {
        return None;
    }
    // The rule broken decides the field.
    let rules = legal_broken(question.position(), got, profile);
    let mut diff = field("legal", pits(want), pits(got), rules);
    // What is missing from the engine's list, and what it has
    // that it should not (a pit named twice is one too many).
    let missing: Vec<Pit> = want.iter().copied().filter(|p| !got.contains(p)).collect();
    let mut extra: Vec<Pit> = got.iter().copied().filter(|p| !want.contains(p)).collect();
    for (i, p) in sorted.iter().enumerate() {
        if sorted[..i].contains(p) && want.contains(p) {
            extra.push(*p);
        }
    }
    if !missing.is_empty() {
        diff.details.push(field(
            "legal.missing",
            pits(&missing),
            "none".to_owned(),
            Vec::new(),
        ));
    }
    if !extra.is_empty() {
        diff.details.push(field(
            "legal.extra",
            "none".to_owned(),
            pits(&extra),
            Vec::new(),
        ));
    }
    Some(diff)
}

/// Labels every differing field, and each of its parts, with the rules
/// the divergence cites: once a step of the rules is singled out as the one
/// broken, every field that differs follows from it, so a field names no
/// other rule than the divergence does (spec/PROTOCOL.md, "Which rule a
/// divergence cites").
fn label_with(fields: &mut [FieldDiff], cited: &[&'static str]) {
    for field in fields {
        field.rules = cited.to_vec();
        for part in &mut field.details {
            if !part.rules.is_empty() {
                part.rules = cited.to_vec();
            }
        }
    }
}

fn field(
    name: &'static str,
    expected: String,
    claimed: String,
    rules: Vec<&'static str>,
) -> FieldDiff {
    FieldDiff {
        field: name,
        expected,
        claimed,
        rules,
        details: Vec::new(),
    }
}

fn refused(code: &str) -> String {
    format!("refused ({code})")
}

fn played(position: &str) -> String {
    format!("played, giving {position}")
}

fn pits(list: &[Pit]) -> String {
    if list.is_empty() {
        return "none".to_owned();
    }
    list.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn captures(list: &[Capture]) -> String {
    if list.is_empty() {
        return "none".to_owned();
    }
    list.iter()
        .map(|c| format!("{}:{}", c.pit, c.stones))
        .collect::<Vec<_>>()
        .join(" ")
}

fn same_captures(a: &[Capture], b: &[Capture]) -> bool {
    a.len() == b.len() && a.iter().all(|c| b.contains(c)) && b.iter().all(|c| a.contains(c))
}

fn totals(end: Option<&EndClaim>) -> String {
    match end {
        None => "none".to_owned(),
        Some(e) => format!("{}-{}", e.totals[0], e.totals[1]),
    }
}

fn reason_rule(code: &str) -> Option<&'static str> {
    parse_reason(code).ok().map(|r| r.rule())
}

fn played_diff(
    question: &Question,
    expected: &Answer,
    claimed: &Answer,
    profile: Profile,
    fields: &mut Vec<FieldDiff>,
) {
    let (
        Answer::Played {
            position: want_pos,
            captures: want_caps,
            end: want_end,
        },
        Answer::Played {
            position: got_pos,
            captures: got_caps,
            end: got_end,
        },
    ) = (expected, claimed)
    else {
        return;
    };
    if want_pos == got_pos && same_captures(want_caps, got_caps) && want_end == got_end {
        // The same answer, word for word: no field differs (the usual
        // case, spared two readings of the position and a move).
        return;
    }
    let Question::Play(before, pit) = *question else {
        return;
    };
    // The reference report, for the rules that fired.
    let Ok((_, report)) = rules::play(&before, pit, profile) else {
        return;
    };
    let want: Setup = want_pos
        .parse()
        .expect("the reference prints valid notation");
    fields.extend(after_diff(&want, want_pos, got_pos, &report, got_caps));
    if !same_captures(want_caps, got_caps) {
        let rules = capture_rules(&before, &report, got_caps);
        fields.push(field(
            "captures",
            captures(want_caps),
            captures(got_caps),
            rules,
        ));
    }
    fields.extend(end_diff(
        want_end.as_ref(),
        got_end.as_ref(),
        got_pos,
        &report,
    ));
}

/// The `after` field when the engine's position `got_pos` is not the
/// reference's `want`, with a part for each differing piece of it.
fn after_diff(
    want: &Setup,
    want_pos: &str,
    got_pos: &str,
    report: &Report,
    got_caps: &[Capture],
) -> Option<FieldDiff> {
    match got_pos.parse::<Setup>() {
        Err(e) => Some(field(
            "after",
            want_pos.to_owned(),
            format!("{got_pos} (unreadable: {e})"),
            vec!["BOARD-4"],
        )),
        Ok(got) => {
            let details = setup_diff(want, &got, report, got_caps);
            if details.is_empty() {
                return None;
            }
            let mut rules = Vec::new();
            for rule in details.iter().flat_map(|d| d.rules.iter().copied()) {
                if !rules.contains(&rule) {
                    rules.push(rule);
                }
            }
            Some(FieldDiff {
                field: "after",
                expected: want_pos.to_owned(),
                claimed: got_pos.to_owned(),
                rules,
                details,
            })
        }
    }
}

/// The `game_over` or `totals` field when the engine ends the game, or
/// counts its result, otherwise than the reference.
fn end_diff(
    want_end: Option<&EndClaim>,
    got_end: Option<&EndClaim>,
    got_pos: &str,
    report: &Report,
) -> Option<FieldDiff> {
    if want_end.is_some() != got_end.is_some() {
        let mut rules = vec!["END-1"];
        if let Some(e) = report.end {
            rules.push(e.reason.rule());
        } else if let Ok(after) = got_pos.parse::<Position>()
            && after.row_stones(after.to_move()) > 0
            && after.row_stones(after.to_move().opponent()) == 0
        {
            rules.push("FEED-3");
        }
        let over = |e: Option<&EndClaim>| e.is_some().to_string();
        Some(field("game_over", over(want_end), over(got_end), rules))
    } else if want_end != got_end {
        Some(field(
            "totals",
            totals(want_end),
            totals(got_end),
            vec!["END-2", "RES-1"],
        ))
    } else {
        None
    }
}

fn setup_diff(want: &Setup, got: &Setup, report: &Report, got_caps: &[Capture]) -> Vec<FieldDiff> {
    let mut details = Vec::new();
    let row = |s: &Setup| {
        let mut out = String::new();
        for (i, n) in s.pits.iter().enumerate() {
            if i > 0 {
                out.push(if i == 4 { '/' } else { ',' });
            }
            let _ = write!(out, "{n}");
        }
        out
    };
    if want.pits != got.pits {
        // Pits that differ only where one side captured point at the
        // captures; any other difference is the sowing's.
        let captured: Vec<usize> = report
            .captures
            .iter()
            .chain(got_caps)
            .map(|c| c.pit.index())
            .collect();
        let differs = |i: usize| want.pits.get(i) != got.pits.get(i) && !captured.contains(&i);
        let origin = report.pit.index();
        let mut rules = Vec::new();
        // The origin pit: emptied when the stones are taken up (SOW-2), sown
        // again or skipped when the sowing comes around (SOW-4).
        if differs(origin) {
            rules.push(if report.wrapped() { "SOW-4" } else { "SOW-2" });
        }
        // Any other pit: where the stones went (SOW-3), shifted by a skipped
        // origin on a long sowing (SOW-4).
        if (0..want.pits.len().max(got.pits.len())).any(|i| i != origin && differs(i)) {
            rules.push("SOW-3");
            if report.wrapped() && !rules.contains(&"SOW-4") {
                rules.push("SOW-4");
            }
        }
        if !captured.is_empty() || want.captured != got.captured {
            rules.extend(["CAP-1", "CAP-4"]);
        }
        details.push(field("after.pits", row(want), row(got), rules));
    }
    if want.captured != got.captured {
        let show = |s: &Setup| format!("{}/{}", s.captured[0], s.captured[1]);
        details.push(field(
            "after.captured",
            show(want),
            show(got),
            vec!["CAP-1", "CAP-4"],
        ));
    }
    if want.to_move != got.to_move {
        let show = |s: &Setup| s.to_move.letter().to_string();
        details.push(field("after.to_move", show(want), show(got), vec!["SOW-1"]));
    }
    if want.used != got.used {
        let used = |s: &Setup| {
            Player::BOTH
                .map(|p| {
                    s.used[p.index()]
                        .iter()
                        .enumerate()
                        .map(|(k, &u)| if u { char::from(b'1' + k as u8) } else { '-' })
                        .collect::<String>()
                })
                .join("/")
        };
        details.push(field("after.used", used(want), used(got), vec!["LOCK-2"]));
    }
    details
}

/// The rules that decide the captures of a move, given what the engine
/// claimed it captured.
fn capture_rules(before: &Position, report: &Report, got: &[Capture]) -> Vec<&'static str> {
    let mover = before.to_move();
    let want = &report.captures;
    let mut rules = Vec::new();
    // CAP-3: a claimed capture in the mover's own row (a chain run past the
    // row boundary ends there too).
    if got.iter().any(|c| c.pit.owner() == mover) {
        rules.push("CAP-3");
    }
    // LOCK-1, LOCK-3: captures while locked, or none on the unlocking move.
    if report.capture_locked && !got.is_empty() {
        rules.push("LOCK-1");
        if report.lock_opened {
            rules.push("LOCK-3");
        }
    }
    if report.lock_opened && want.len() > got.len() {
        rules.push("LOCK-3");
    }
    if got.iter().any(|c| !matches!(c.stones, 2 | 4)) || want.first() != got.first() {
        rules.push("CAP-1");
    }
    if want.len() > 1 || got.len() > 1 {
        rules.push("CAP-2");
    }
    if rules.is_empty() {
        rules.push("CAP-1");
    }
    rules
}

/// The rule an engine's answer breaks: the first step of the rules, taken in
/// the order `src/rules.rs` takes them, whose outcome the answer
/// contradicts (spec/PROTOCOL.md, "Which rule a divergence cites"). Later
/// steps that only inherit the error are not cited. Empty when no step can
/// be singled out; the caller then cites every rule deciding a differing
/// field.
pub(crate) fn broken(
    question: &Question,
    expected: &Answer,
    claimed: &Answer,
    profile: Profile,
) -> Vec<&'static str> {
    let position = question.position();
    match (question, expected, claimed) {
        (Question::Legal(_), Answer::Legal(_), Answer::Legal(got)) => {
            legal_broken(position, got, profile)
        }
        (Question::Play(_, pit), Answer::Illegal(want), Answer::Illegal(got)) => {
            // MOVE-4: a reason that also applies, given out of order.
            if parse_reason(got).is_ok_and(|r| applies(r, position, *pit, profile)) {
                vec!["MOVE-4"]
            } else {
                reason_rule(want)
                    .into_iter()
                    .chain(reason_rule(got))
                    .collect()
            }
        }
        (Question::Play(..), Answer::Illegal(want), Answer::Played { .. }) => {
            reason_rule(want).into_iter().collect()
        }
        (Question::Play(..), Answer::Played { .. }, Answer::Illegal(got)) => {
            if got != "feeding-required" {
                return reason_rule(got).into_iter().collect();
            }
            let mover = position.to_move();
            if position.row_stones(mover.opponent()) > 0 {
                vec!["FEED-1"] // feeding demanded while the opponent has stones
            } else if rules::legal_moves(position, profile).len() == non_empty(position) {
                vec!["FEED-3"] // nothing feeds, and the duty lapses
            } else {
                vec!["FEED-2"] // this move feeds, by the claimed reading
            }
        }
        (Question::Play(before, pit), Answer::Played { .. }, Answer::Played { .. }) => {
            played_broken(before, *pit, expected, claimed, profile)
        }
        _ => Vec::new(),
    }
}

/// The mover's non-empty pits.
fn non_empty(position: &Position) -> usize {
    position
        .to_move()
        .pits()
        .iter()
        .filter(|&&p| position.stones(p) > 0)
        .count()
}

/// Whether `reason` is a true reason to refuse `pit` (MOVE-4 picks one of
/// those that are).
fn applies(reason: rules::Reason, position: &Position, pit: Pit, profile: Profile) -> bool {
    use rules::Reason;
    let mover = position.to_move();
    let legal = legal_moves(position, profile);
    match reason {
        Reason::GameOver => legal.is_empty(),
        Reason::NotOwnPit => pit.owner() != mover,
        Reason::EmptyPit => position.stones(pit) == 0,
        Reason::FeedingRequired => {
            position.row_stones(mover.opponent()) == 0
                && !legal.contains(&pit)
                && legal.len() < non_empty(position)
        }
    }
}

fn legal_broken(position: &Position, got: &[Pit], profile: Profile) -> Vec<&'static str> {
    let mover = position.to_move();
    let mut rules = Vec::new();
    if got.iter().any(|p| p.owner() != mover) {
        rules.push("MOVE-1");
    }
    if got
        .iter()
        .any(|&p| p.owner() == mover && position.stones(p) == 0)
    {
        rules.push("MOVE-2");
    }
    if !rules.is_empty() {
        return rules;
    }
    // Only the mover's non-empty pits are in play: the feeding rule decides.
    let candidates = non_empty(position);
    let mut distinct = got.to_vec();
    distinct.sort();
    distinct.dedup();
    if position.row_stones(mover.opponent()) > 0 {
        // Every non-empty pit is legal: a shorter list demands feeding (or
        // an end) where there is none.
        return vec![if got.is_empty() { "END-1" } else { "FEED-1" }];
    }
    // The feeding rule kept, but judged on a relay sowing: which moves feed
    // follows from the sowing, and the sowing is the step broken (SOW-5).
    if !got.is_empty() && relay_feeding_lists(position, profile).contains(&distinct) {
        return vec!["SOW-5"];
    }
    let feeding: Vec<Pit> = mover
        .pits()
        .into_iter()
        .filter(|&p| position.stones(p) > 0 && rules::feeds(position, p, profile))
        .collect();
    let feeds = !feeding.is_empty();
    if !feeds {
        // Nothing feeds: FEED-3 decides.
        return vec!["FEED-3"];
    }
    if got.is_empty() {
        // No move at all where a feeding move exists: the engine ended the
        // game, and the end is END-1's to decide.
        return vec!["END-1"];
    }
    if distinct.len() != candidates {
        return vec!["FEED-2"]; // another idea of which moves feed
    }
    // Every pit legal while a move feeds. When a move that feeds ends in
    // the opponent's row, every idea of feeding counts it: the duty itself
    // is missing (FEED-1). When each one sows past the row and ends beyond
    // it, the list is the duty kept with too narrow an idea of what feeds
    // (only a last stone in their row): nothing feeds by it and the duty
    // lapses. What feeds is FEED-2's.
    let lands_there = feeding
        .iter()
        .any(|&p| rules::apply(position, p, profile).1.landing.owner() == mover.opponent());
    vec![if lands_there { "FEED-1" } else { "FEED-2" }]
}

/// The legal moves an engine gives that keeps the feeding rule (FEED-1 to
/// FEED-3) but sows with relay (what SOW-5 rules out), once or for as long
/// as the relay goes on, when they are neither the rules' own nor every
/// non-empty pit (the list of an engine with no duty): a move feeds
/// when some lap of its sowing puts a stone into the opponent's row. Only
/// under feeding by sowing (under `feed-after-capture` the captures a
/// relay would make decide, which this does not follow). Sorted lists.
fn relay_feeding_lists(position: &Position, profile: Profile) -> Vec<Vec<Pit>> {
    if profile.has(crate::profile::Switch::FeedAfterCapture) {
        return Vec::new();
    }
    let mover = position.to_move();
    let start: Vec<u32> = position.pits().iter().map(|&c| u32::from(c)).collect();
    let skip = skips_origin(profile);
    let candidates: Vec<Pit> = mover
        .pits()
        .into_iter()
        .filter(|&p| position.stones(p) > 0)
        .collect();
    let rules_list = legal_moves(position, profile).to_vec();
    let mut lists = Vec::new();
    for most_laps in [1, 64] {
        let feeding: Vec<Pit> = candidates
            .iter()
            .copied()
            .filter(|&pit| relay_feeds(&start, pit, skip, most_laps, mover.opponent()))
            .collect();
        let list = if !feeding.is_empty() {
            feeding
        } else if profile.has(crate::profile::Switch::EndWhenUnfeedable) {
            Vec::new()
        } else {
            candidates.clone()
        };
        // Every non-empty pit is what an engine with no duty lists too: it
        // tells nothing of the sowing.
        if list != rules_list && list != candidates && !lists.contains(&list) {
            lists.push(list);
        }
    }
    lists
}

/// Whether sowing `pit` on `start` with up to `most_laps` relays puts a
/// stone into `opponent`'s row.
fn relay_feeds(start: &[u32], pit: Pit, skip: bool, most_laps: usize, opponent: Player) -> bool {
    let (mut board, mut at) = (start.to_vec(), pit);
    for lap in 0..=most_laps {
        let stones = board[at.index()];
        if lap > 0 && stones <= 1 {
            return false;
        }
        let origin = at;
        let before = board.clone();
        (board, at) = sow_board(&before, origin, stones, skip);
        let sown_there = Pit::ALL
            .into_iter()
            .any(|p| p.owner() == opponent && p != origin && board[p.index()] > before[p.index()]);
        if sown_there {
            return true;
        }
    }
    false
}

/// Whether the reference passes over the origin of a long sowing under
/// `profile` (SOW-4, reading I1). Asked of the reference on a sowing of 8,
/// so that this file holds no copy of the reading and follows it when the
/// reading changes.
fn skips_origin(profile: Profile) -> bool {
    let eight: Position = "8,6,6,6/6,6,6,4 S 0/0 1---/1234"
        .parse()
        .expect("a valid position");
    rules::play(&eight, Pit::ALL[0], profile).is_ok_and(|(after, _)| after.stones(Pit::ALL[0]) == 0)
}

/// Sows `take` stones from `origin` on `pits` (SOW-2 to SOW-5), leaving the
/// rest in the origin: the board and the landing pit.
fn sow_board(pits: &[u32], origin: Pit, take: u32, skip_origin: bool) -> (Vec<u32>, Pit) {
    let mut board = pits.to_vec();
    board[origin.index()] -= take;
    let mut hand = take;
    let mut at = origin;
    for _ in 0..64 {
        if hand == 0 {
            break;
        }
        at = at.next();
        if at == origin && skip_origin {
            continue;
        }
        board[at.index()] += 1;
        hand -= 1;
    }
    (board, at)
}

fn played_broken(
    before: &Position,
    pit: Pit,
    expected: &Answer,
    claimed: &Answer,
    profile: Profile,
) -> Vec<&'static str> {
    let (
        Answer::Played {
            position: want_pos,
            captures: want_caps,
            end: want_end,
        },
        Answer::Played {
            position: got_pos,
            captures: got_caps,
            end: got_end,
        },
    ) = (expected, claimed)
    else {
        return Vec::new();
    };
    let Ok((_, report)) = rules::play(before, pit, profile) else {
        return Vec::new();
    };
    let Ok(got) = got_pos.parse::<Setup>() else {
        return vec!["BOARD-4"];
    };
    let Ok(want) = want_pos.parse::<Setup>() else {
        return Vec::new();
    };
    if got.pits.len() != want.pits.len() {
        return vec!["BOARD-1"];
    }
    let start: Vec<u32> = before.pits().iter().map(|&c| u32::from(c)).collect();
    let skip = skips_origin(profile);
    // 1. Sowing (SOW-2 to SOW-5): the board before captures. The engine's
    // board with its captured pits given back is compared with the
    // reference's sowing.
    let (sown, landing) = sow_board(&start, pit, start[pit.index()], skip);
    let restored = given_back(&got.pits, got_caps);
    if restored != sown {
        return sowing_broken(&start, pit, &restored, &sown, landing, skip, &report);
    }
    // 2. The lock and the captures (LOCK-1, LOCK-3, CAP-1 to CAP-4), on the
    // right board.
    let mut rules = Vec::new();
    if !same_captures(want_caps, got_caps) {
        rules.extend(capture_broken(before, &report, &sown, landing, got_caps));
    } else if !captures_kept(before, &got, got_caps) {
        rules.push("CAP-4");
    }
    // 3. The turn (SOW-1) and the used pits (LOCK-2).
    if want.to_move != got.to_move {
        rules.push("SOW-1");
    }
    if want.used != got.used {
        rules.push("LOCK-2");
    }
    if !rules.is_empty() {
        return rules;
    }
    // 4. The end (END-1, FEED-3) and the totals (END-2, RES-1), on the
    // right position.
    rules.extend(end_broken(
        want_pos,
        want_end.as_ref(),
        got_end.as_ref(),
        profile,
    ));
    rules
}

/// The engine's board `pits` with the pits it says it captured given
/// back their stones: its board before captures (step 1 of
/// [`played_broken`]).
fn given_back(pits: &[u32], captures: &[Capture]) -> Vec<u32> {
    let mut restored = pits.to_vec();
    for c in captures {
        if restored[c.pit.index()] == 0 {
            restored[c.pit.index()] = u32::from(c.stones);
        }
    }
    restored
}

/// Whether the engine's position `got` after a move from `before` that
/// captured `captures` (the right ones) credits their stones to the mover
/// and leaves the captured pits empty (CAP-4).
fn captures_kept(before: &Position, got: &Setup, captures: &[Capture]) -> bool {
    let taken: u32 = captures.iter().map(|c| u32::from(c.stones)).sum();
    let mut credited = [
        u32::from(before.captured(Player::South)),
        u32::from(before.captured(Player::North)),
    ];
    credited[before.to_move().index()] += taken;
    let left = captures.iter().any(|c| got.pits[c.pit.index()] != 0);
    credited == got.captured && !left
}

/// Step 1 of [`played_broken`]: the sowing rule (SOW-2 to SOW-5) the
/// engine's board before captures (`restored`) breaks, given the
/// reference's sowing `sown` of `start` from `pit`.
fn sowing_broken(
    start: &[u32],
    pit: Pit,
    restored: &[u32],
    sown: &[u32],
    landing: Pit,
    skip: bool,
    report: &Report,
) -> Vec<&'static str> {
    let mut rules = Vec::new();
    let origin = pit.index();
    let taken = start[origin].checked_sub(restored[origin]);
    if sow_board(start, pit, start[origin], !skip).0 == restored {
        rules.push("SOW-4"); // the origin sown or skipped the other way
    } else if relayed(sown, landing, skip, restored) {
        rules.push("SOW-5"); // the landing pit's stones sown on, once or more
    } else if restored[origin] != sown[origin]
        && taken.is_some_and(|t| t > 0 && sow_board(start, pit, t, skip).0 == restored)
    {
        rules.push("SOW-2"); // not every stone taken up
    } else {
        if restored[origin] != sown[origin] {
            rules.push(if report.wrapped() { "SOW-4" } else { "SOW-2" });
        }
        rules.push("SOW-3");
    }
    rules
}

/// Step 4 of [`played_broken`]: the end (END-1, FEED-3) and the totals
/// (END-2, RES-1), on the right position `want_pos`.
fn end_broken(
    want_pos: &str,
    want_end: Option<&EndClaim>,
    got_end: Option<&EndClaim>,
    profile: Profile,
) -> Vec<&'static str> {
    let mut rules = Vec::new();
    if want_end.is_some() != got_end.is_some() {
        let after: Option<Position> = want_pos.parse().ok();
        let flipped = profile.set(
            crate::profile::Switch::EndWhenUnfeedable,
            !profile.has(crate::profile::Switch::EndWhenUnfeedable),
        );
        let i4_decides = after.is_some_and(|a| {
            rules::game_over(&a, profile).is_some() != rules::game_over(&a, flipped).is_some()
        });
        rules.push(if i4_decides { "FEED-3" } else { "END-1" });
    } else if let (Some(w), Some(g)) = (want_end, got_end)
        && w != g
        && let Ok(after) = want_pos.parse::<Position>()
    {
        let captured = Player::BOTH.map(|p| after.captured(p));
        let rows = Player::BOTH.map(|p| after.row_stones(p));
        let no_sweep = captured;
        let swapped = [captured[0] + rows[1], captured[1] + rows[0]];
        if g.totals == no_sweep || g.totals == swapped {
            rules.push("END-2");
        } else if g.totals == rows {
            rules.push("RES-1");
        }
    }
    rules
}

/// Whether `restored` is the board after relay sowing (what SOW-5 rules
/// out): the landing pit's stones taken up and sown on, once or lap after
/// lap, for as long as the relay goes on (each lap sows from the pit the
/// last one landed in; the origin of a long lap is that pit). Whatever
/// stops the engine's relay, its board is one of these laps.
fn relayed(sown: &[u32], landing: Pit, skip_origin: bool, restored: &[u32]) -> bool {
    let (mut board, mut at) = (sown.to_vec(), landing);
    // A bound on the laps followed, as a relay may go round for ever: a
    // board of more laps than this is not recognised as a relay.
    for _ in 0..64 {
        let stones = board[at.index()];
        if stones <= 1 {
            return false;
        }
        (board, at) = sow_board(&board, at, stones, skip_origin);
        if board == restored {
            return true;
        }
    }
    false
}

/// The capture step the engine got wrong, on a board it sowed right.
fn capture_broken(
    before: &Position,
    report: &Report,
    sown: &[u32],
    landing: Pit,
    got: &[Capture],
) -> Vec<&'static str> {
    let mover = before.to_move();
    let want = &report.captures;
    let opponents = |p: Pit| p.owner() != mover;
    // CAP-3: nothing in the mover's own row; the rest is judged without it.
    let mut rules = Vec::new();
    if got.iter().any(|c| !opponents(c.pit)) {
        rules.push("CAP-3");
    }
    let got: Vec<Capture> = got.iter().copied().filter(|c| opponents(c.pit)).collect();
    let got = got.as_slice();
    if !rules.is_empty() && same_captures(want, got) {
        return rules;
    }
    // LOCK-1, LOCK-3: captures while locked, or none where the lock was open.
    if want.is_empty() && report.capture_locked {
        rules.push(if report.lock_opened {
            "LOCK-3"
        } else {
            "LOCK-1"
        });
        return rules;
    }
    if !want.is_empty() && got.is_empty() {
        // Not the unlocking move, so the mover had moved from all four
        // pits: by its own words the lock is not why they take nothing, and
        // a capture missed is CAP-1's. One lock does explain it: the
        // opponent's, when it is still shut and the landing pit holds a 2
        // (taken by any count of CAP-1, so only a lock leaves it): the lock
        // judged on the wrong player, LOCK-1.
        let opponent_locked = !before.lock_open(mover.opponent());
        rules.push(if report.lock_opened {
            "LOCK-3"
        } else if opponent_locked && sown[landing.index()] == 2 {
            "LOCK-1"
        } else {
            "CAP-1"
        });
        return rules;
    }
    // CAP-1: the landing pit, taken when it holds 2 or 4, with its stones.
    // Only the landing pit's capture is CAP-1's: a pit taken besides it was
    // found by the chain, right or wrong, and is CAP-2's.
    let at_landing = |caps: &[Capture]| caps.iter().find(|c| c.pit == landing).copied();
    let landing_right = match (at_landing(want), at_landing(got)) {
        (None, None) => true,
        (Some(w), Some(g)) => w.stones == g.stones,
        _ => false,
    };
    if !landing_right {
        rules.push("CAP-1");
        return rules;
    }
    // CAP-2: the chain over the opponent's pits before the landing pit, each
    // taken with its stones.
    let chain = |caps: &[Capture]| {
        let mut v: Vec<(Pit, u8)> = caps
            .iter()
            .filter(|c| c.pit != landing && opponents(c.pit))
            .map(|c| (c.pit, c.stones))
            .collect();
        v.sort();
        v
    };
    if chain(want) != chain(got) {
        rules.push("CAP-2");
    }
    if rules.is_empty() {
        rules.push("CAP-1");
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(position: &str, pit: &str) -> Question {
        Question::Play(position.parse().unwrap(), pit.parse().unwrap())
    }

    fn claim(position: &str, caps: &[(&str, u8)]) -> Answer {
        Answer::Played {
            position: position.to_owned(),
            captures: caps
                .iter()
                .map(|&(pit, stones)| Capture {
                    pit: pit.parse().unwrap(),
                    stones,
                })
                .collect(),
            end: None,
        }
    }

    #[test]
    fn agreeing_answers_give_no_mismatch() {
        let question = q("6,6,6,6/6,6,6,6 S 0/0 ----/----", "S1");
        let answer = expected(&question, Profile::DEFAULT);
        assert_eq!(compare(&question, &answer, Profile::DEFAULT), None);
        let legal = Question::Legal(Position::initial());
        let shuffled = Answer::Legal(
            ["S4", "S1", "S3", "S2"]
                .map(|p| p.parse().unwrap())
                .to_vec(),
        );
        assert_eq!(compare(&legal, &shuffled, Profile::DEFAULT), None);
    }

    #[test]
    fn a_capture_in_the_movers_own_row_blames_cap_3() {
        // South S4 holds 3: sows N1 N2 N3 -> 2, 4, 2; the chain stops at N1.
        let question = q("9,10,2,3/1,3,1,15 S 0/4 1234/1234", "S4");
        let claimed = claim(
            "9,10,0,0/0,0,0,15 N 10/4 1234/1234",
            &[("N3", 2), ("N2", 4), ("N1", 2), ("S3", 2)],
        );
        let m = compare(&question, &claimed, Profile::DEFAULT).unwrap();
        assert_eq!(
            m.shape(),
            ["after", "after.pits", "after.captured", "captures"]
        );
        assert!(m.rules.contains(&"CAP-3"), "{:?}", m.rules);
        // Only captured pits differ: the sowing is not to blame.
        assert!(
            !m.rules.iter().any(|r| r.starts_with("SOW")),
            "{:?}",
            m.rules
        );
    }

    #[test]
    fn a_wrong_sowing_names_the_pits_and_the_sowing_rules() {
        // Eight stones from S1: the origin sown gives the first board, skipped
        // the second. The engine claims the other I1 reading than the
        // default's, whichever that is.
        let question = q("8,6,6,6/6,6,6,4 S 0/0 1---/1234", "S1");
        let boards = ["1,7,7,7/7,7,7,5", "0,8,7,7/7,7,7,5"];
        let other = Profile::DEFAULT.flipped(crate::profile::Switch::SkipOrigin);
        let Answer::Played { position, .. } = expected(&question, Profile::DEFAULT) else {
            panic!("S1 plays");
        };
        let default = position.split(' ').next().unwrap().to_owned();
        let claimed = expected(&question, other);
        let m = compare(&question, &claimed, Profile::DEFAULT).unwrap();
        assert_eq!(m.shape(), ["after", "after.pits"]);
        assert_eq!(m.fields[0].details[0].expected, default);
        assert!(boards.contains(&default.as_str()), "{default}");
        assert!(
            boards.contains(&m.fields[0].details[0].claimed.as_str()),
            "{:?}",
            m.fields
        );
        // The shifted pits follow from the origin sown or skipped the other
        // way: SOW-4 alone is broken, and the pits field, though SOW-3
        // decides it too, is labelled with the rule cited.
        assert_eq!(m.rules, ["SOW-4"]);
        assert_eq!(m.fields[0].details[0].rules, ["SOW-4"]);
        let garbled = claim("0,8,7 N", &[]);
        let m = compare(&question, &garbled, Profile::DEFAULT).unwrap();
        assert_eq!(m.shape(), ["after"]);
        assert!(m.fields[0].claimed.contains("column"), "{:?}", m.fields);
    }

    #[test]
    fn live_answers_cite_as_transcripts_do_and_fields_agree() {
        // Relay (SOW-5) and a chain-only capture (CAP-2), as live answers:
        // the same rules as the transcript corpus (tests/citation.rs).
        let cases = [
            (
                q("0,0,0,0/3,0,0,5 N 16/24 1234/1234", "N4"),
                claim("0,1,1,1/0,1,1,1 S 16/26 1234/1234", &[("S1", 2)]),
                "SOW-5",
            ),
            (
                q("2,4,5,2/5,1,0,5 S 16/8 1234/1234", "S2"),
                claim("2,0,6,3/0,0,0,5 N 24/8 1234/1234", &[("N2", 2), ("N1", 6)]),
                "CAP-2",
            ),
        ];
        for (question, claimed, rule) in cases {
            let m = compare(&question, &claimed, Profile::DEFAULT).unwrap();
            assert_eq!(m.rules, [rule]);
            for f in &m.fields {
                assert_eq!(f.rules, [rule], "{f:?}");
            }
        }
    }

    #[test]
    fn refusals_compare_their_reason_codes() {
        let question = q("0,7,7,7/7,7,7,6 S 0/0 1---/---4", "S1");
        let m = compare(
            &question,
            &Answer::Illegal("not-own-pit".into()),
            Profile::DEFAULT,
        )
        .unwrap();
        assert_eq!(m.shape(), ["move"]);
        assert_eq!(m.rules, ["MOVE-2", "MOVE-1"]);
        let m = compare(&question, &claim("x", &[]), Profile::DEFAULT).unwrap();
        assert_eq!(m.shape(), ["move"]);
    }

    /// Answers alike and not, to every question about the positions of
    /// some random games under every profile: [`agreement`] finds the
    /// mismatch [`compare`] finds, and on agreement gives what the rules
    /// did.
    #[test]
    fn agreement_judges_as_compare_does() {
        use crate::game::Game;
        use crate::testing::pick;
        let mut seed = 22;
        let mut checked = 0;
        for profile in Profile::all() {
            for _ in 0..3 {
                let mut game = Game::new(Position::initial(), profile);
                for _ in 0..100 {
                    let position = *game.current();
                    let mut questions = vec![Question::Legal(position)];
                    questions.extend(Pit::ALL.map(|pit| Question::Play(position, pit)));
                    for question in questions {
                        for claimed in variants(&expected(&question, profile)) {
                            let judged = agreement(&question, &claimed, profile);
                            assert_eq!(
                                judged.as_ref().err(),
                                compare(&question, &claimed, profile).as_ref(),
                                "{question} answered {claimed:?}"
                            );
                            let rules_did = match question {
                                Question::Legal(_) => Agreed::Legal,
                                Question::Play(p, pit) => {
                                    Agreed::Play(rules::play(&p, pit, profile))
                                }
                            };
                            if let Ok(agreed) = judged {
                                assert_eq!(agreed, rules_did);
                                checked += 1;
                            }
                        }
                    }
                    let legal = game.legal_moves();
                    if legal.is_empty() || game.play(pick(&mut seed, &legal)).is_err() {
                        break;
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    /// `answer`, and answers like it: reordered (still alike), and changed
    /// in each of its parts.
    fn variants(answer: &Answer) -> Vec<Answer> {
        let mut out = vec![answer.clone(), Answer::Illegal("empty-pit".to_owned())];
        match answer {
            Answer::Legal(moves) => {
                out.push(Answer::Legal(moves.iter().rev().copied().collect()));
                out.push(Answer::Legal(
                    moves.iter().chain(moves.first()).copied().collect(),
                ));
                out.push(Answer::Legal(moves.iter().skip(1).copied().collect()));
                out.push(Answer::Legal(Pit::ALL.to_vec()));
            }
            Answer::Played {
                position,
                captures,
                end,
            } => {
                let played = |position: &str, captures: Vec<Capture>, end| Answer::Played {
                    position: position.to_owned(),
                    captures,
                    end,
                };
                let reversed = captures.iter().rev().copied().collect();
                out.push(played(position, reversed, *end));
                out.push(played(position, Vec::new(), *end));
                out.push(played(
                    &position.replacen('0', "1", 1),
                    captures.clone(),
                    *end,
                ));
                out.push(played(&format!("{position} "), captures.clone(), *end));
                out.push(played(position, captures.clone(), None));
                out.push(played(
                    position,
                    captures.clone(),
                    Some(EndClaim { totals: [24, 24] }),
                ));
            }
            Answer::Illegal(reason) => {
                out.push(Answer::Illegal(format!("{reason}x")));
                out.push(Answer::Legal(Vec::new()));
                out.push(Answer::Played {
                    position: Position::initial().to_string(),
                    captures: Vec::new(),
                    end: None,
                });
            }
        }
        out
    }
}
