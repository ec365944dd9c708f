//! Explaining a divergence: which fields differ, which rules decide them,
//! which reading would give the engine's answer, and a scenario that
//! reproduces it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::board::{Pit, Player};
use crate::game::Outcome;
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::report::{Capture, End, Report};
use crate::rules::{IllegalMove, Reason, play};
use crate::scenario::{Expect, Rejection, Scenario, SwitchName};

use super::divergence::{Divergence, FieldDiff};
use super::oracle::{GameCheck, Mismatch, Refusal, Replay, compare, replay, same_captures};
use super::reading::{closest, switch_summary};
use super::rules::RuleSet;
use crate::transcript::{Engine, Ply};

/// Where a divergence happened, for its scenario's id and description.
pub(crate) struct Context<'a> {
    /// The engine, when the input names it.
    pub(crate) engine: Option<&'a Engine>,
    /// The unit's id.
    pub(crate) unit: &'a str,
    /// The 1-based ply.
    pub(crate) ply: u64,
}

/// Names profiles for people: `skip-origin` or `skip-origin,strict-lock`,
/// joined with " or ".
pub(crate) fn profile_list(profiles: &[Profile]) -> String {
    profiles
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" or ")
}

/// Builds the report of a ply that did not match: `check` is the game just
/// before the ply.
pub(crate) fn diagnose(
    check: &GameCheck,
    claim: &Ply,
    mismatch: Mismatch,
    ctx: &Context<'_>,
) -> Divergence {
    let claimed_profile = check.profile;
    let before = check.position;
    let (legal, result) = check.answer(claim.mv, true);
    let legal = legal.unwrap_or_default();
    let others: Vec<Profile> = Profile::all().filter(|&p| p != claimed_profile).collect();

    // The readings under which the whole ply is right explain every field
    // at once. A reading that gives one field but not the whole ply explains
    // nothing: its rule and a note would point away from the rule broken.
    let whole: Vec<Profile> = others
        .iter()
        .copied()
        .filter(|&p| {
            let (l, r) = check.answer_under(p, claim.mv, claim.legal.is_some());
            !compare(claim, l.as_ref(), &r).any()
        })
        .collect();
    let (mut fields, mut rules) = field_diffs(check, claim, mismatch, &legal, &result, &whole);
    let mut notes = Vec::new();
    match &result {
        Err(refusal) => notes.push(refusal_note(&before, claim.mv, refusal)),
        Ok((_, _)) => {
            if mismatch.has(Mismatch::AFTER)
                && let Err(e) = claim.after.position()
            {
                notes.push(format!(
                    "the claimed position could not occur in any game: {e}"
                ));
            }
        }
    }
    if !whole.is_empty() {
        let near = closest(claimed_profile, &whole);
        notes.push(format!(
            "the whole ply is what the rules give under {}: {}",
            profile_list(&near),
            switch_summary(claimed_profile, near[0])
        ));
    }
    // No reading gives the whole ply: cite the rule broken, the first step of
    // the rules the claim contradicts, as the live mode does (spec/PROTOCOL.md,
    // "Which rule a divergence cites").
    if whole.is_empty() {
        let broken = broken_rules(check, claim, &mismatch, &legal, &result);
        if !broken.is_empty() {
            rules = broken;
            // Every differing field follows from the step broken: it is
            // labelled with that rule alone, as in the live mode.
            for diff in &mut fields {
                diff.rules = broken;
            }
        }
    }
    let scenario = scenario(check, claim, rules, ctx);
    if scenario.moves.len() > 1 {
        notes.push(history_note(check.profile));
    }
    Divergence {
        ply: Some(ctx.ply),
        before: Some(before),
        mv: Some(claim.mv),
        fields,
        rules,
        notes,
        scenario: Some(scenario),
        perft: None,
        counts: Vec::new(),
    }
}

/// The differing fields of a ply, each with the rules that decide it, and
/// the union of those rules. `whole` are the readings under which the whole
/// ply is right.
fn field_diffs(
    check: &GameCheck,
    claim: &Ply,
    mismatch: Mismatch,
    legal: &[Pit],
    result: &Result<(Position, Report), Refusal>,
    whole: &[Profile],
) -> (Vec<FieldDiff>, RuleSet) {
    let claimed_profile = check.profile;
    let mut fields = Vec::new();
    let mut rules = RuleSet::new();
    for field in Mismatch::FIELDS.into_iter().filter(|&f| mismatch.has(f)) {
        let mut diff = field_diff(field, check, claim, legal, result);
        let near = closest(claimed_profile, whole);
        if let (Mismatch::MOVE, Err(refusal)) = (field, result) {
            // A refused move is decided by its reason's rule in any case.
            diff.rules.insert(refusal.reason.rule());
        }
        if near.is_empty() {
            diff.rules
                .extend(heuristic_rules(field, check, claim, legal, result));
        } else {
            for p in &near {
                for s in Switch::ALL
                    .iter()
                    .filter(|&&s| p.has(s) != claimed_profile.has(s))
                {
                    diff.rules.insert(s.rule());
                }
            }
        }
        rules.extend(diff.rules);
        fields.push(diff);
    }
    (fields, rules)
}

/// The rules a ply that does not match cites under the game's own profile
/// alone (no other reading is asked): the step it breaks, or, when no step
/// can be singled out, the rules that decide each differing field. What a
/// transcript's closest reading counts, profile by profile.
pub(crate) fn cited_rules(check: &GameCheck, claim: &Ply, mismatch: Mismatch) -> RuleSet {
    let (legal, result) = check.answer(claim.mv, true);
    let legal = legal.unwrap_or_default();
    let broken = broken_rules(check, claim, &mismatch, &legal, &result);
    if !broken.is_empty() {
        return broken;
    }
    let mut rules = RuleSet::new();
    for field in Mismatch::FIELDS.into_iter().filter(|&f| mismatch.has(f)) {
        if let (Mismatch::MOVE, Err(refusal)) = (field, &result) {
            rules.insert(refusal.reason.rule());
        }
        rules.extend(heuristic_rules(field, check, claim, &legal, &result));
    }
    rules
}

/// The rule a transcript ply breaks, by the live mode's step order: the
/// legal moves when they differ, else the move. Empty when no step can be
/// singled out.
fn broken_rules(
    check: &GameCheck,
    claim: &Ply,
    mismatch: &Mismatch,
    legal: &[Pit],
    result: &Result<(Position, Report), Refusal>,
) -> RuleSet {
    use super::facts::{Answer, Question};
    use crate::protocol::EndClaim;
    let before = check.position;
    let profile = check.profile;
    let mut ids: Vec<&'static str> = Vec::new();
    if mismatch.has(Mismatch::LEGAL)
        && let Some(claimed) = &claim.legal
    {
        ids = super::compare::broken(
            &Question::Legal(before),
            &Answer::Legal(legal.to_vec()),
            &Answer::Legal(claimed.clone()),
            profile,
        );
    } else {
        match result {
            // The move is refused by the rules but was played.
            Err(refusal) => ids.push(refusal.reason.rule()),
            Ok((after, report)) => {
                let reference_end = report.end.map(|e| EndClaim { totals: e.totals });
                let end = match claim.game_over {
                    None => reference_end,
                    Some(false) => None,
                    Some(true) => Some(EndClaim {
                        totals: claim
                            .totals
                            .or(report.end.map(|e| e.totals))
                            .unwrap_or_else(|| crate::rules::sweep(after)),
                    }),
                };
                let claimed = Answer::Played {
                    position: claim.after.to_string(),
                    captures: claim
                        .captures
                        .clone()
                        .unwrap_or_else(|| report.captures.to_vec()),
                    end,
                };
                let expected = Answer::Played {
                    position: after.to_string(),
                    captures: report.captures.to_vec(),
                    end: reference_end,
                };
                ids = super::compare::broken(
                    &Question::Play(before, claim.mv),
                    &expected,
                    &claimed,
                    profile,
                );
            }
        }
    }
    let mut set = RuleSet::new();
    for id in ids {
        set.insert(id);
    }
    set
}

fn moves_text(moves: &[Pit]) -> String {
    if moves.is_empty() {
        return "none".to_owned();
    }
    let mut sorted = moves.to_vec();
    sorted.sort();
    sorted.dedup();
    sorted
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn captures_text(captures: &[Capture]) -> String {
    if captures.is_empty() {
        return "none".to_owned();
    }
    captures
        .iter()
        .map(|c| format!("{}:{}", c.pit, c.stones))
        .collect::<Vec<_>>()
        .join(" ")
}

fn end_text(end: Option<End>) -> String {
    match end {
        Some(end) => format!("true ({}, {})", end.reason, end.reason.rule()),
        None => "false".to_owned(),
    }
}

fn field_diff(
    field: Mismatch,
    check: &GameCheck,
    claim: &Ply,
    legal: &[Pit],
    result: &Result<(Position, Report), Refusal>,
) -> FieldDiff {
    let played = result.as_ref().ok();
    match field {
        Mismatch::LEGAL => {
            let expected = if legal.is_empty() {
                "none: the game is over".to_owned()
            } else {
                moves_text(legal)
            };
            FieldDiff::new(
                "legal",
                expected,
                moves_text(claim.legal.as_deref().unwrap_or_default()),
            )
        }
        Mismatch::MOVE => {
            let expected = match result {
                Err(Refusal { end: Some(end), .. }) => {
                    format!(
                        "no move: the game is over ({}, {})",
                        end.reason,
                        end.reason.rule()
                    )
                }
                _ => format!("one of the legal moves: {}", moves_text(legal)),
            };
            FieldDiff::new("move", expected, claim.mv.to_string())
        }
        Mismatch::AFTER => {
            let (after, _) = played.expect("a position differs only after a legal move");
            let mut diff = FieldDiff::new("after", after.to_string(), claim.after.to_string());
            diff.details = position_details(after, claim);
            diff
        }
        Mismatch::CAPTURES => {
            let (_, report) = played.expect("captures differ only after a legal move");
            FieldDiff::new(
                "captures",
                captures_text(&report.captures),
                captures_text(claim.captures.as_deref().unwrap_or_default()),
            )
        }
        Mismatch::GAME_OVER => {
            let (_, report) = played.expect("game_over differs only after a legal move");
            let claimed = claim.game_over.unwrap_or_default();
            FieldDiff::new("game_over", end_text(report.end), claimed.to_string())
        }
        _ => {
            let (_, report) = played.expect("totals differ only after a legal move");
            let expected = match report.end {
                Some(end) => format!("{}-{}", end.totals[0], end.totals[1]),
                None => "none: the game is not over".to_owned(),
            };
            let [s, n] = claim.totals.unwrap_or_default();
            let _ = check;
            FieldDiff::new("totals", expected, format!("{s}-{n}"))
        }
    }
}

/// The parts of a claimed position that differ from the rules' position.
fn position_details(after: &Position, claim: &Ply) -> Vec<FieldDiff> {
    let setup = claim.after.setup();
    let mut details = Vec::new();
    let (mut expected, mut claimed) = (Vec::new(), Vec::new());
    for pit in Pit::ALL {
        let c = setup.pits[pit.index()];
        if c != u32::from(after.stones(pit)) {
            expected.push(format!("{pit} {}", after.stones(pit)));
            claimed.push(format!("{pit} {c}"));
        }
    }
    if !expected.is_empty() {
        details.push(FieldDiff::new(
            "after.pits",
            expected.join(", "),
            claimed.join(", "),
        ));
    }
    let captured = [after.captured(Player::South), after.captured(Player::North)];
    if setup.captured != captured.map(u32::from) {
        details.push(FieldDiff::new(
            "after.captured",
            format!("South {}, North {}", captured[0], captured[1]),
            format!("South {}, North {}", setup.captured[0], setup.captured[1]),
        ));
    }
    if setup.to_move != after.to_move() {
        details.push(FieldDiff::new(
            "after.to_move",
            after.to_move().to_string(),
            setup.to_move.to_string(),
        ));
    }
    let expected_used =
        used_text(|pl, k| after.has_used(Pit::of(pl, k).expect("pit numbers 1..4")));
    let claimed_used = used_text(|pl, k| setup.used[pl.index()][usize::from(k) - 1]);
    if expected_used != claimed_used {
        details.push(FieldDiff::new("after.used", expected_used, claimed_used));
    }
    details
}

fn used_text(used: impl Fn(Player, u8) -> bool) -> String {
    let mut text = String::new();
    for (i, pl) in Player::BOTH.into_iter().enumerate() {
        if i > 0 {
            text.push('/');
        }
        for k in 1..=4 {
            if used(pl, k) {
                let _ = write!(text, "{k}");
            } else {
                text.push('-');
            }
        }
    }
    text
}

fn refusal_note(before: &Position, mv: Pit, refusal: &Refusal) -> String {
    match refusal.end {
        Some(end) if refusal.reason == Reason::GameOver => format!(
            "the rules refuse {mv}: the game is already over ({}, {}; MOVE-3)",
            end.reason,
            end.reason.rule()
        ),
        _ => format!(
            "the rules refuse it: {}",
            IllegalMove {
                pit: mv,
                position: *before,
                reason: refusal.reason,
            }
        ),
    }
}

/// The rules that decide `field` when no reading explains the engine's
/// answer: worked out from what the move did.
fn heuristic_rules(
    field: Mismatch,
    check: &GameCheck,
    claim: &Ply,
    legal: &[Pit],
    result: &Result<(Position, Report), Refusal>,
) -> RuleSet {
    let before = &check.position;
    match (field, result) {
        (Mismatch::LEGAL, _) => legal_rules(check, claim, legal),
        (Mismatch::MOVE, Err(refusal)) => {
            let mut rules = RuleSet::new();
            rules.insert(refusal.reason.rule());
            if let Some(end) = refusal.end {
                rules.insert(end.reason.rule());
            }
            if refusal.reason == Reason::FeedingRequired {
                rules.insert("FEED-2");
            }
            rules
        }
        (Mismatch::AFTER, Ok((after, report))) => after_rules(before, claim, after, report),
        (Mismatch::CAPTURES, Ok((after, report))) => captures_rules(before, claim, after, report),
        (Mismatch::GAME_OVER, Ok((after, report))) => game_over_rules(check, after, report),
        (_, Ok((_, report))) => {
            // Totals.
            let mut rules = RuleSet::new();
            rules.insert("END-2");
            rules.insert("RES-1");
            if report.end.is_none() {
                rules.insert("END-1");
            }
            rules
        }
        (_, Err(_)) => RuleSet::new(),
    }
}

/// Rules deciding the legal moves: the end of the game, feeding, and
/// which pits may be played.
fn legal_rules(check: &GameCheck, claim: &Ply, legal: &[Pit]) -> RuleSet {
    let before = &check.position;
    let profile = check.profile;
    let mut rules = RuleSet::new();
    if let Some(end) = check.end_under(profile) {
        rules.insert("MOVE-3");
        rules.insert(end.reason.rule());
    }
    let claimed = claim.legal.as_deref().unwrap_or_default();
    let feeding = before.row_stones(before.to_move().opponent()) == 0;
    for &pit in claimed.iter().filter(|p| !legal.contains(p)) {
        match play(before, pit, profile) {
            Err(e) if e.reason == Reason::FeedingRequired => {
                rules.insert("FEED-1");
                rules.insert("FEED-2");
            }
            Err(e) => rules.insert(e.reason.rule()),
            Ok(_) => {}
        }
    }
    for _ in legal.iter().filter(|p| !claimed.contains(p)) {
        if feeding {
            rules.insert("FEED-1");
            rules.insert("FEED-2");
            rules.insert("FEED-3");
        } else {
            rules.insert("MOVE-1");
            rules.insert("MOVE-2");
        }
    }
    rules
}

/// Rules deciding the position after the move: board, captured stones,
/// the player to move and the locked pits.
fn after_rules(before: &Position, claim: &Ply, after: &Position, report: &Report) -> RuleSet {
    let mut rules = RuleSet::new();
    let setup = claim.after.setup();
    let board_differs = Pit::ALL
        .iter()
        .any(|&p| setup.pits[p.index()] != u32::from(after.stones(p)));
    let captured = [after.captured(Player::South), after.captured(Player::North)];
    let captured_differs = setup.captured != captured.map(u32::from);
    if board_differs {
        let claimed: Vec<u32> = setup.pits.clone();
        rules.extend(board_rules(before, after, report, &claimed));
    }
    if captured_differs {
        rules.insert("CAP-4");
        if !board_differs {
            rules.insert("CAP-1");
        }
    }
    if setup.to_move != after.to_move() {
        rules.insert("SOW-1");
    }
    let used_differs = Player::BOTH.iter().any(|&pl| {
        pl.pits()
            .iter()
            .any(|&p| setup.used[pl.index()][usize::from(p.number()) - 1] != after.has_used(p))
    });
    if used_differs {
        rules.insert("LOCK-2");
    }
    rules
}

/// Rules deciding the captures a move makes.
fn captures_rules(before: &Position, claim: &Ply, after: &Position, report: &Report) -> RuleSet {
    let mut rules = RuleSet::new();
    let claimed = claim.captures.as_deref().unwrap_or_default();
    if same_captures(claimed, &report.captures) {
        return rules;
    }
    // The board the engine's captures imply: the sowing board with
    // the claimed pits emptied.
    let mut sown = after.pits();
    for c in &report.captures {
        sown[c.pit.index()] += c.stones;
    }
    let mut implied: Vec<u32> = sown.iter().map(|&n| u32::from(n)).collect();
    for c in claimed {
        if u32::from(c.stones) != implied[c.pit.index()] {
            // The engine counts the stones in a pit differently.
            rules.insert("CAP-1");
            rules.insert("SOW-3");
        }
        implied[c.pit.index()] = 0;
    }
    rules.extend(board_rules(before, after, report, &implied));
    rules
}

/// Rules deciding whether the game is over after the move.
fn game_over_rules(check: &GameCheck, after: &Position, report: &Report) -> RuleSet {
    let mut rules = RuleSet::new();
    match report.end {
        Some(end) => rules.insert(end.reason.rule()),
        None => {
            rules.insert("END-1");
            let next = after.to_move();
            if after.row_stones(next.opponent()) == 0 {
                rules.insert("FEED-3");
            }
            if check.history.contains(after) {
                rules.insert("END-3");
            }
        }
    }
    rules
}

/// Rules deciding a board that differs: a sowing difference, or captures
/// that differ (missed, extra, locked, past the row boundary).
fn board_rules(before: &Position, after: &Position, report: &Report, claimed: &[u32]) -> RuleSet {
    let mover = before.to_move();
    let mut rules = RuleSet::new();
    // The board the sowing leaves, before captures.
    let mut sown = after.pits();
    for c in &report.captures {
        sown[c.pit.index()] += c.stones;
    }
    let is_sowing_board_with_pits_emptied = Pit::ALL
        .iter()
        .all(|&p| claimed[p.index()] == u32::from(sown[p.index()]) || claimed[p.index()] == 0);
    if !is_sowing_board_with_pits_emptied {
        // SOW-2 to SOW-5: the stones went elsewhere.
        for id in ["SOW-2", "SOW-3", "SOW-5"] {
            rules.insert(id);
        }
        if report.wrapped() {
            rules.insert("SOW-4");
        }
        return rules;
    }
    let taken_by_rules: Vec<Pit> = report.captures.iter().map(|c| c.pit).collect();
    let taken_by_engine: Vec<Pit> = Pit::ALL
        .into_iter()
        .filter(|&p| claimed[p.index()] == 0 && sown[p.index()] > 0)
        .collect();
    let missed: Vec<Pit> = taken_by_rules
        .iter()
        .copied()
        .filter(|p| !taken_by_engine.contains(p))
        .collect();
    let extra: Vec<Pit> = taken_by_engine
        .iter()
        .copied()
        .filter(|p| !taken_by_rules.contains(p))
        .collect();
    if !missed.is_empty() {
        if taken_by_engine.is_empty() && report.lock_opened {
            // The engine judged the lock before this unlocking move.
            rules.insert("LOCK-1");
            rules.insert("LOCK-3");
        }
        rules.insert(if missed.contains(&report.landing) {
            "CAP-1"
        } else {
            "CAP-2"
        });
    }
    if !extra.is_empty() {
        if report.capture_locked {
            rules.insert("LOCK-1");
            if report.lock_opened {
                rules.insert("LOCK-3");
            }
        }
        // The pits a chain could reach: back from the landing pit through
        // the opponent's row only (CAP-3).
        let mut reachable = Vec::new();
        let mut pit = report.landing;
        while pit.owner() != mover && !reachable.contains(&pit) {
            reachable.push(pit);
            pit = pit.prev();
        }
        for &pit in &extra {
            if pit.owner() == mover || !reachable.contains(&pit) {
                rules.insert("CAP-3");
            } else if pit == report.landing {
                rules.insert("CAP-1");
            } else if !report.capture_locked {
                rules.insert("CAP-2");
            }
        }
    }
    if rules.is_empty() {
        rules.insert("CAP-1");
    }
    rules
}

/// A scenario that reproduces the divergence: from the position before the
/// move, or, when the repetition rule needs the game's history, from the
/// earlier occurrence of the position the move brings back.
fn scenario(check: &GameCheck, claim: &Ply, rules: RuleSet, ctx: &Context<'_>) -> Scenario {
    let profile = check.profile;
    let short = (check.position, vec![claim.mv]);
    // When the position before the move had occurred earlier, from that
    // earlier occurrence; when the move brings back an earlier position,
    // from that one (the history keeps each position once, so memory stays
    // bounded however long the game).
    let long = if check.repeated {
        check
            .history
            .cycle(profile)
            .map(|moves| (check.position, moves))
    } else {
        crate::rules::play(&check.position, claim.mv, profile)
            .ok()
            .map(|(next, _)| next)
            .filter(|next| check.history.contains(next))
            .and_then(|next| Some((next, check.history.path(next, profile)?)))
    }
    .map(|(start, mut moves)| {
        moves.push(claim.mv);
        (start, moves)
    });
    // The stretch comes along when some profile answers differently with
    // it than without: then the answer depends on the history (END-3),
    // under the claimed reading of I5 or under the one the engine played.
    let (start, moves) = match long {
        Some(long) if long.1.len() > 1 && needs_history(&short, &long) => long,
        _ => short,
    };
    let claims = Claims {
        legal: claim.legal.is_some(),
        captures: claim.captures.is_some(),
        result: claim.game_over.is_some() || claim.totals.is_some(),
    };
    let answers: Vec<(Profile, Expectation)> = Profile::all()
        .map(|p| {
            (
                p,
                expectation(&replay(start, &moves, p), moves.len(), claims),
            )
        })
        .collect();
    let mine = answers
        .iter()
        .find(|(p, _)| *p == profile)
        .map(|(_, e)| e.clone())
        .expect("every profile is answered");
    let when = pin(profile, &answers, &mine);
    let engine = ctx.engine.map(|e| e.name.as_str()).unwrap_or("engine");
    let what: Vec<&str> = rules.iter().collect();
    // Where it was found, in words that stay the same however the file was
    // named on the command line (a path, or `-`): the engine and the game.
    let by = ctx
        .engine
        .map(|e| format!(" by {} {}", e.name, e.version))
        .unwrap_or_default();
    Scenario {
        id: format!("{}-{}-ply-{}", slug(engine), game_slug(ctx.unit), ctx.ply),
        rules: rules.iter().map(str::to_owned).collect(),
        description: format!(
            "Found by kpe-check in a transcript{by}, game {}, ply {}: the engine departs from {}.",
            ctx.unit,
            ctx.ply,
            what.join(", ")
        ),
        when,
        start: (start != Position::initial()).then(|| start.to_string()),
        invalid_start: None,
        moves,
        expect: mine.expect,
        reject: mine.reject,
        result: mine.result,
    }
}

/// What the report says of a scenario that replays a repeating stretch:
/// where it reproduces, and why a live run cannot show it (spec/TRANSCRIPT.md,
/// "What kpe-check does with it").
pub(crate) fn history_note(profile: Profile) -> String {
    let live = if profile.has(Switch::EndOnRepetition) {
        "a live run cannot reproduce it: the protocol carries no history, so there kpe-check \
         itself ends the game at the repetition on the engine's positions, and an engine \
         driven live cannot get this wrong"
    } else {
        "a live run reproduces it only against an engine that keeps the history of its \
         session, since the protocol carries none"
    };
    format!(
        "the scenario needs the game's history (END-3): it replays the stretch since the last \
         capture or newly used pit, where the positions that can repeat begin; it reproduces \
         under `kpe suite` and in transcripts, but {live}"
    )
}

/// Whether some profile's answers to the line `long` (a repeating stretch
/// and the move) differ from its answers to `short` (the move alone).
fn needs_history(short: &(Position, Vec<Pit>), long: &(Position, Vec<Pit>)) -> bool {
    Profile::all().any(|p| {
        let (a, b) = (replay(short.0, &short.1, p), replay(long.0, &long.1, p));
        a.last != b.last || a.legal != b.legal
    })
}

/// Which fields the engine claimed at the diverging ply, so the scenario
/// checks exactly those.
#[derive(Clone, Copy)]
struct Claims {
    legal: bool,
    captures: bool,
    result: bool,
}

/// A scenario's expectations.
#[derive(Clone, Debug, PartialEq)]
struct Expectation {
    expect: Vec<Expect>,
    reject: Option<Rejection>,
    result: Option<Outcome>,
}

fn expectation(replay: &Replay, plies: usize, claims: Claims) -> Expectation {
    let mut expect = Vec::new();
    if claims.legal {
        expect.push(Expect {
            ply: plies - 1,
            legal: Some(replay.legal.clone()),
            ..Expect::default()
        });
    }
    match &replay.last {
        Err((ply, reason)) => Expectation {
            expect,
            reject: Some(Rejection {
                ply: *ply,
                reason: reason.code().to_owned(),
            }),
            result: None,
        },
        Ok((after, captures, outcome)) => {
            expect.push(Expect {
                ply: plies,
                position: Some(after.to_string()),
                captures: claims.captures.then(|| captures.clone()),
                ..Expect::default()
            });
            Expectation {
                expect,
                reject: None,
                result: claims.result.then_some(*outcome),
            }
        }
    }
}

/// The fewest switches to pin so that every profile the scenario admits
/// gives the same expectations as `claimed`.
fn pin(
    claimed: Profile,
    answers: &[(Profile, Expectation)],
    mine: &Expectation,
) -> BTreeMap<SwitchName, bool> {
    // Each subset of the switches as a bit set, the fewest switches first.
    let mut subsets: Vec<u32> = (0..1u32 << Switch::ALL.len()).collect();
    subsets.sort_by_key(|s| (s.count_ones(), *s));
    for subset in subsets {
        let pinned: Vec<Switch> = Switch::ALL
            .iter()
            .enumerate()
            .filter(|(k, _)| subset & (1 << k) != 0)
            .map(|(_, s)| *s)
            .collect();
        let holds = answers
            .iter()
            .filter(|(p, _)| pinned.iter().all(|&s| p.has(s) == claimed.has(s)))
            .all(|(_, e)| e == mine);
        if holds {
            return pinned
                .into_iter()
                .map(|s| (SwitchName(s), claimed.has(s)))
                .collect();
        }
    }
    unreachable!("pinning every switch admits only the claimed profile")
}

/// A scenario id: lowercase letters and digits in dash-separated words.
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        "divergence".to_owned()
    } else {
        out
    }
}

/// A game id as part of a scenario id: its [`slug`] when that is the id
/// itself, else the slug and eight hex digits of the id's SHA-256, so that
/// game ids a slug would merge (`G1` and `g1`, `g_1` and `g-1`) give
/// distinct scenario ids, the same in every run.
pub(crate) fn game_slug(id: &str) -> String {
    use sha2::Digest as _;
    let plain = slug(id);
    if plain == id {
        return plain;
    }
    let digest = sha2::Sha256::digest(id.as_bytes());
    let mut out = plain;
    out.push('-');
    for byte in &digest[..4] {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_scenario_ids() {
        assert_eq!(slug("Naive Kpé 0.3-g1-ply-7"), "naive-kp-0-3-g1-ply-7");
        assert_eq!(slug("--"), "divergence");
    }

    #[test]
    fn game_ids_a_slug_would_merge_stay_apart() {
        let ids = ["g1", "G1", "g_1", "g-1", "g 1", "--", "", "é"];
        let slugs: Vec<String> = ids.iter().map(|id| game_slug(id)).collect();
        for (k, a) in slugs.iter().enumerate() {
            assert!(
                a.split('-').all(|part| !part.is_empty()
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
                "{a} is not a scenario id part"
            );
            for (j, b) in slugs.iter().enumerate().skip(k + 1) {
                assert_ne!(a, b, "{} and {}", ids[k], ids[j]);
            }
        }
        // An id that is its own slug is kept as it is.
        assert_eq!(game_slug("g1"), "g1");
        assert_eq!(game_slug("g-1"), "g-1");
        assert!(game_slug("G1").starts_with("g1-"), "{}", game_slug("G1"));
    }
}
