//! The rules of Kpé, step by step as `spec/RULES.md` gives them.
//!
//! Each step is one function tagged with the rule IDs it decides. Positions
//! are small `Copy` values and move lists are fixed-size arrays, so nothing
//! here allocates.

use std::fmt;

use arrayvec::ArrayVec;

use crate::board::{Pit, Player, is_capture_size};
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::report::{Capture, End, EndReason, Feeding, Report};

/// The legal moves of a position: at most four pits.
pub type Moves = ArrayVec<Pit, 4>;

/// Why a move was refused.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Reason {
    /// The pit is in the opponent's row (MOVE-1).
    NotOwnPit,
    /// The pit is empty (MOVE-2).
    EmptyPit,
    /// The opponent's row is empty and this move does not feed it, while
    /// another move would (FEED-1).
    FeedingRequired,
    /// The game is already over (MOVE-3).
    GameOver,
}

impl Reason {
    /// The reason code used in files and reports: `not-own-pit`, `empty-pit`,
    /// `feeding-required` or `game-over`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Reason::NotOwnPit => "not-own-pit",
            Reason::EmptyPit => "empty-pit",
            Reason::FeedingRequired => "feeding-required",
            Reason::GameOver => "game-over",
        }
    }

    /// The rule ID that refuses the move.
    #[must_use]
    pub const fn rule(self) -> &'static str {
        match self {
            Reason::NotOwnPit => "MOVE-1",
            Reason::EmptyPit => "MOVE-2",
            Reason::FeedingRequired => "FEED-1",
            Reason::GameOver => "MOVE-3",
        }
    }

    /// Every reason code.
    pub const ALL: [Reason; 4] = [
        Reason::NotOwnPit,
        Reason::EmptyPit,
        Reason::FeedingRequired,
        Reason::GameOver,
    ];
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A move the rules refuse, with the position it was tried in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// The move tried.
    pub pit: Pit,
    /// The position it was tried in.
    pub position: Position,
    /// Why it was refused.
    pub reason: Reason,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mover = self.position.to_move();
        let why = match self.reason {
            Reason::NotOwnPit => format!("{} is {}'s pit", self.pit, self.pit.owner()),
            Reason::EmptyPit => format!("{} is empty", self.pit),
            Reason::FeedingRequired => format!(
                "{}'s row is empty and {} does not feed it, but another move would",
                mover.opponent(),
                self.pit
            ),
            Reason::GameOver => "the game is over".to_owned(),
        };
        write!(
            f,
            "illegal move {} for {mover} in `{}`: {why} ({}, {})",
            self.pit,
            self.position,
            self.reason.code(),
            self.reason.rule()
        )
    }
}

impl std::error::Error for IllegalMove {}

/// The legal moves in `position` under `profile`, in pit order.
///
/// Empty exactly when the game is over (END-1, or FEED-3 under
/// `end-when-unfeedable`). Repetition (END-3) depends on the game's history
/// and is judged by [`crate::Game`], not here.
///
/// ```
/// use kpe::{Position, Profile, legal_moves};
/// let moves = legal_moves(&Position::initial(), Profile::DEFAULT);
/// assert_eq!(moves.len(), 4);
/// ```
#[must_use]
pub fn legal_moves(position: &Position, profile: Profile) -> Moves {
    legal_moves_and_feeding(position, profile).0
}

/// Whether the game is over in `position`, and why (END-1, FEED-3).
#[must_use]
pub fn game_over(position: &Position, profile: Profile) -> Option<EndReason> {
    if !legal_moves(position, profile).is_empty() {
        return None;
    }
    if position.row_stones(position.to_move()) == 0 {
        Some(EndReason::NoStones)
    } else {
        Some(EndReason::Unfeedable)
    }
}

/// The final totals if the game ended in `position`: each player's captured
/// stones plus the stones lying in their own row (END-2, RES-1).
#[must_use]
pub fn sweep(position: &Position) -> [u8; 2] {
    Player::BOTH.map(|p| position.captured(p) + position.row_stones(p))
}

/// Plays `pit` in `position` under `profile`.
///
/// Returns the position after the move (before any end-of-game sweep, so
/// board plus captured stones is still 48) and a report of what happened.
///
/// ```
/// use kpe::{Pit, Position, Profile, play};
/// let s1: Pit = "S1".parse().unwrap();
/// let (after, report) = play(&Position::initial(), s1, Profile::DEFAULT).unwrap();
/// assert_eq!(after.to_string(), "0,7,7,7/7,7,7,6 N 0/0 1---/----");
/// assert_eq!(report.landing.to_string(), "N3");
/// ```
///
/// # Errors
///
/// Returns an [`IllegalMove`] when the game is over (MOVE-3), the pit is not
/// the mover's (MOVE-1), the pit is empty (MOVE-2), or the opponent must be
/// fed and this move does not feed (FEED-1).
pub fn play(
    position: &Position,
    pit: Pit,
    profile: Profile,
) -> Result<(Position, Report), IllegalMove> {
    let (legal, feeding) = legal_moves_and_feeding(position, profile);
    let refuse = |reason| IllegalMove {
        pit,
        position: *position,
        reason,
    };
    if legal.is_empty() {
        return Err(refuse(Reason::GameOver)); // MOVE-3
    }
    if pit.owner() != position.to_move() {
        return Err(refuse(Reason::NotOwnPit)); // MOVE-1
    }
    if position.stones(pit) == 0 {
        return Err(refuse(Reason::EmptyPit)); // MOVE-2
    }
    if !legal.contains(&pit) {
        return Err(refuse(Reason::FeedingRequired)); // FEED-1
    }
    let (after, mut report) = apply(position, pit, profile);
    report.feeding = feeding;
    report.end = game_over(&after, profile).map(|reason| End {
        reason,
        totals: sweep(&after),
    });
    Ok((after, report))
}

/// Legal moves plus how the feeding rule shaped them.
fn legal_moves_and_feeding(position: &Position, profile: Profile) -> (Moves, Option<Feeding>) {
    let mover = position.to_move();
    // MOVE-1, MOVE-2: any non-empty pit of the mover's own row.
    let candidates: Moves = mover
        .pits()
        .into_iter()
        .filter(|&p| position.stones(p) > 0)
        .collect();
    // END-1: no stones, no moves.
    if candidates.is_empty() || position.row_stones(mover.opponent()) > 0 {
        return (candidates, None);
    }
    // FEED-1: the opponent's row is empty, so a feeding move is required
    // whenever one exists.
    let feeding: Moves = candidates
        .iter()
        .copied()
        .filter(|&p| feeds(position, p, profile))
        .collect();
    if !feeding.is_empty() {
        return (feeding, Some(Feeding::Forced));
    }
    // FEED-3 (I4): no move feeds.
    if profile.has(Switch::EndWhenUnfeedable) {
        (Moves::new(), None) // `unfeedable=ends-game`: the game ends at once
    } else {
        (candidates, Some(Feeding::Lapsed)) // `unfeedable=lapses`: the obligation lapses
    }
}

/// FEED-2 (I3): whether playing `pit` (a non-empty pit of the mover) feeds
/// the opponent's row. The one statement of reading I3: other modules ask
/// this function rather than keep a copy.
#[must_use]
pub fn feeds(position: &Position, pit: Pit, profile: Profile) -> bool {
    let opponent = position.to_move().opponent();
    let (after, report) = apply(position, pit, profile);
    if profile.has(Switch::FeedAfterCapture) {
        // `feeding=after-capture`: the opponent keeps a stone after captures.
        after.row_stones(opponent) > 0
    } else {
        // `feeding=by-sowing`: the sowing puts at least one stone into their row.
        report.sown.iter().any(|p| p.owner() == opponent)
    }
}

/// Sows and captures, with no legality checks: the heart of a move.
pub(crate) fn apply(position: &Position, pit: Pit, profile: Profile) -> (Position, Report) {
    let mover = position.to_move();
    let mut next = *position;
    let mut report = Report {
        mover,
        pit,
        stones: position.stones(pit),
        sown: ArrayVec::new(),
        landing: pit,
        lock_opened: false,
        capture_locked: false,
        captures: ArrayVec::new(),
        feeding: None,
        end: None,
    };
    sow(&mut next, pit, profile, &mut report);
    // LOCK-2: the pit is now used by the mover, for good.
    next.mark_used(pit);
    report.lock_opened = !position.lock_open(mover) && next.lock_open(mover);
    if may_capture(position, &next, profile) {
        capture(&mut next, report.landing, &mut report);
    } else {
        // LOCK-1: note a capture the lock prevented.
        let landing = report.landing;
        report.capture_locked = landing.owner() != mover && is_capture_size(next.stones(landing));
    }
    // SOW-1: the turn passes; there are no extra turns.
    next.to_move = mover.opponent();
    (next, report)
}

/// The most pits a sowing can step through: 48 stones, plus one skipped
/// origin for each full lap of 8 under `skip-origin` (SOW-4), is 54; seven
/// laps are 56.
const SOW_STEP_LIMIT: usize = 56;

/// SOW-2 to SOW-5: take up every stone of `pit` and sow them one by one in
/// sowing order, a single lap.
fn sow(position: &mut Position, pit: Pit, profile: Profile, report: &mut Report) {
    // SOW-2: take up all the stones.
    let mut in_hand = position.pits[pit.index()];
    position.pits[pit.index()] = 0;
    let mut current = pit;
    for _ in 0..SOW_STEP_LIMIT {
        if in_hand == 0 {
            break;
        }
        // SOW-3: one stone into each following pit, counter-clockwise.
        current = current.next();
        // SOW-4 (I1): coming back around to the origin.
        if current == pit && profile.has(Switch::SkipOrigin) {
            continue;
        }
        position.pits[current.index()] += 1;
        in_hand -= 1;
        report.sown.push(current);
    }
    // Guard, not a rule: a sowing that has not ended by now is a bug in this
    // file, so it fails here instead of looping for ever.
    assert_eq!(
        in_hand, 0,
        "sowing from {pit} did not end in {SOW_STEP_LIMIT} steps"
    );
    // SOW-5: the lap ends where the last stone fell; no relay.
    report.landing = current;
}

/// LOCK-1, LOCK-3 (I2): whether the mover may capture with this move.
fn may_capture(before: &Position, after_sowing: &Position, profile: Profile) -> bool {
    let mover = before.to_move();
    if profile.has(Switch::StrictLock) {
        // `lock=before-sowing`: all four pits used before this move.
        before.lock_open(mover)
    } else {
        // `lock=after-sowing`: judged after this move's pit is marked used.
        after_sowing.lock_open(mover)
    }
}

/// CAP-1 to CAP-4: capture at the landing pit, then backward along the chain.
fn capture(position: &mut Position, landing: Pit, report: &mut Report) {
    let mover = position.to_move();
    let mut pit = landing;
    // CAP-3: only the opponent's pits; the chain stops at the mover's row.
    // CAP-1 (landing pit) and CAP-2 (each pit before it): exactly 2 or 4.
    while pit.owner() != mover && is_capture_size(position.stones(pit)) {
        let stones = position.stones(pit);
        // CAP-4: the stones leave the board and count for the capturer.
        position.pits[pit.index()] = 0;
        position.captured[mover.index()] += stones;
        report.captures.push(Capture { pit, stones });
        pit = pit.prev();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Player;

    fn pos(text: &str) -> Position {
        text.parse().unwrap()
    }

    fn pit(name: &str) -> Pit {
        name.parse().unwrap()
    }

    fn names(moves: &Moves) -> Vec<String> {
        moves.iter().map(ToString::to_string).collect()
    }

    /// Plays `mv` under `profile` written against the all-off profile, so
    /// that `"default"` here is `origin=sown,lock=after-sowing,...` whatever
    /// the authority's default is.
    fn after(text: &str, mv: &str, profile: &str) -> (String, Report) {
        let profile = Profile::read_against(profile, Profile::ALL_OFF).unwrap();
        let (p, r) = play(&pos(text), pit(mv), profile).unwrap();
        (p.to_string(), r)
    }

    #[test]
    fn sow_1_2_3_first_move_sows_six_forward_and_passes_the_turn() {
        let (p, r) = after("6,6,6,6/6,6,6,6 S 0/0 ----/----", "S3", "default");
        assert_eq!(p, "7,6,0,7/7,7,7,7 N 0/0 --3-/----");
        assert_eq!(
            names(&r.sown.iter().copied().take(4).collect()),
            ["S4", "N1", "N2", "N3"]
        );
        assert_eq!(r.sown.len(), 6);
        assert_eq!(r.landing, pit("S1"));
    }

    #[test]
    fn sow_4_the_origin_is_sown_under_one_reading_and_skipped_under_the_other() {
        // S1 holds 8: sown, S2..N4 then S1 itself (last stone home); skipped,
        // S2..N4 then S2. Which one the default plays is pinned by the
        // suite (conformance/sowing.yaml, `sow-eight-from-s1-origin-*`).
        let start = "8,6,6,6/6,6,6,4 S 0/0 1---/1234";
        let sown = ("1,7,7,7/7,7,7,5 N 0/0 1---/1234".to_owned(), pit("S1"));
        let skipped = ("0,8,7,7/7,7,7,5 N 0/0 1---/1234".to_owned(), pit("S2"));
        let under = |profile: &str| {
            let (p, r) = after(start, "S1", profile);
            assert_eq!(r.sown.len(), 8, "{profile}");
            (p, r.landing)
        };
        let (default, switched) = (under("default"), under("skip-origin"));
        if default == sown {
            assert_eq!(switched, skipped);
        } else {
            assert_eq!((default, switched), (skipped, sown));
        }
    }

    #[test]
    fn cap_1_2_capture_and_chain_when_unlocked() {
        // South S4 holds 3: sows N1 N2 N3 -> 2, 4, 2 -> chain N3, N2, N1.
        let (p, r) = after("9,10,8,3/1,3,1,9 S 0/4 1234/1234", "S4", "default");
        assert_eq!(p, "9,10,8,0/0,0,0,9 N 8/4 1234/1234");
        assert_eq!(r.captured(), 8);
        assert_eq!(r.captures.len(), 3);
    }

    #[test]
    fn lock_1_3_unlocking_move_captures_only_when_the_lock_is_judged_after_sowing() {
        // South's last unused pit is S1 (6 stones), landing N3 -> 2, N2 -> 4.
        let start = "6,10,8,7/2,3,1,9 S 0/2 -234/1234";
        let (p, r) = after(start, "S1", "default");
        assert!(r.lock_opened);
        assert!(!r.capture_locked);
        assert_eq!(p, "0,11,9,8/3,0,0,9 N 6/2 1234/1234");
        let (_, r) = after(start, "S1", "strict-lock");
        assert!(r.lock_opened);
        assert!(r.capture_locked);
        assert!(r.captures.is_empty());
    }

    #[test]
    fn move_errors_carry_their_reason_codes() {
        let start = pos("6,6,6,6/6,6,6,6 S 0/0 ----/----");
        let e = play(&start, pit("N1"), Profile::DEFAULT).unwrap_err();
        assert_eq!(e.reason, Reason::NotOwnPit);
        let codes: Vec<String> = Reason::ALL.iter().map(ToString::to_string).collect();
        assert_eq!(
            codes,
            ["not-own-pit", "empty-pit", "feeding-required", "game-over"]
        );
        let rules = Reason::ALL.map(Reason::rule);
        assert_eq!(rules, ["MOVE-1", "MOVE-2", "FEED-1", "MOVE-3"]);
        let p = pos("0,7,7,7/7,7,7,6 S 0/0 1---/---4");
        let e = play(&p, pit("S1"), Profile::DEFAULT).unwrap_err();
        assert_eq!(e.reason, Reason::EmptyPit);
        assert!(e.to_string().contains("empty-pit"));
        let over = pos("0,0,0,0/10,10,4,0 S 12/12 1234/1234");
        let e = play(&over, pit("S1"), Profile::DEFAULT).unwrap_err();
        assert_eq!(e.reason, Reason::GameOver);
    }

    #[test]
    fn cap_3_chain_stops_at_the_row_boundary_for_both_players() {
        // South: S3 sows S4 (1 -> 2, own) and N1 (1 -> 2): only N1 is taken.
        let (p, r) = after("5,5,2,1/1,10,10,10 S 2/2 1234/1234", "S3", "default");
        assert_eq!(
            r.captures.as_slice(),
            [Capture {
                pit: pit("N1"),
                stones: 2
            }]
        );
        assert_eq!(p, "5,5,0,2/0,10,10,10 N 4/2 1234/1234");
        // North: N3 sows N4 (1 -> 2, own) and S1 (1 -> 2): only S1 is taken.
        let (p, r) = after("1,10,10,10/5,5,2,1 N 2/2 1234/1234", "N3", "default");
        assert_eq!(
            r.captures.as_slice(),
            [Capture {
                pit: pit("S1"),
                stones: 2
            }]
        );
        assert_eq!(p, "0,10,10,10/5,5,0,2 S 2/4 1234/1234");
    }

    #[test]
    fn feed_1_only_feeding_moves_are_legal_when_the_opponent_row_is_empty() {
        let p = pos("1,2,0,5/0,0,0,0 S 20/20 1234/1234");
        for profile in Profile::all() {
            assert_eq!(names(&legal_moves(&p, profile)), ["S4"], "{profile}");
        }
        let e = play(&p, pit("S1"), Profile::DEFAULT).unwrap_err();
        assert_eq!(e.reason, Reason::FeedingRequired);
        let (_, r) = play(&p, pit("S4"), Profile::DEFAULT).unwrap();
        assert_eq!(r.feeding, Some(Feeding::Forced));
    }

    /// The profile like `profile` but for I1, which sows the origin pit of
    /// a long sowing (SOW-4; which reading that is, is the sow_4 test's and
    /// the suite's business).
    fn origin_sown(profile: Profile) -> Profile {
        let (p, _) = play(&pos("8,6,6,6/6,6,6,4 S 0/0 1---/1234"), pit("S1"), profile).unwrap();
        let sown_here = p.stones(pit("S1")) == 1;
        profile.set(
            Switch::SkipOrigin,
            profile.has(Switch::SkipOrigin) == sown_here,
        )
    }

    #[test]
    fn feed_2_a_sowing_that_captures_everything_back_feeds_only_by_sowing() {
        // S4 (12 stones), the origin sown, puts 2 in each of North's pits and
        // takes them all.
        let p = pos("0,0,2,12/0,0,0,0 S 18/16 1234/1234");
        let legal = |profile: Profile| names(&legal_moves(&p, profile));
        let sown = origin_sown(Profile::ALL_OFF);
        let after_capture = sown.set(Switch::FeedAfterCapture, true);
        assert_eq!(legal(sown), ["S3", "S4"]);
        assert_eq!(legal(after_capture), ["S3"]);
        // Skipping the origin shifts the last stone home: nothing captured.
        let skipped = after_capture.set(Switch::SkipOrigin, !after_capture.has(Switch::SkipOrigin));
        assert_eq!(legal(skipped), ["S3", "S4"]);
        let (after_s4, r) = play(&p, pit("S4"), sown).unwrap();
        assert_eq!(r.captured(), 8);
        assert_eq!(after_s4.row_stones(Player::North), 0);
    }

    #[test]
    fn feed_3_no_feeding_move_lapses_or_ends_the_game_under_the_switch() {
        let p = pos("1,1,0,0/0,0,0,0 S 24/22 1234/1234");
        let lapses = Profile::ALL_OFF;
        assert_eq!(names(&legal_moves(&p, lapses)), ["S1", "S2"]);
        assert_eq!(game_over(&p, lapses), None);
        let (_, r) = play(&p, pit("S1"), lapses).unwrap();
        assert_eq!(r.feeding, Some(Feeding::Lapsed));
        let strict = Profile::with(&[Switch::EndWhenUnfeedable]);
        assert!(legal_moves(&p, strict).is_empty());
        assert_eq!(game_over(&p, strict), Some(EndReason::Unfeedable));
        assert_eq!(sweep(&p), [26, 22]);
        let e = play(&p, pit("S1"), strict).unwrap_err();
        assert_eq!(e.reason, Reason::GameOver);
    }

    #[test]
    fn end_1_2_a_move_that_leaves_the_opponent_without_stones_ends_the_game() {
        // South's S4 (1 stone) lands in N1 (1 -> 2) and takes North's last stones.
        let p = pos("0,0,0,1/1,0,0,0 S 24/22 1234/1234");
        let (after, r) = play(&p, pit("S4"), Profile::DEFAULT).unwrap();
        assert_eq!(after.to_string(), "0,0,0,0/0,0,0,0 N 26/22 1234/1234");
        let end = r.end.unwrap();
        assert_eq!(end.reason, EndReason::NoStones);
        assert_eq!(end.totals, [26, 22]);
        assert_eq!(end.winner(), Some(Player::South));
        // South to move with an empty row: over, and the sweep gives North
        // the stones in its own row.
        let p = pos("0,0,0,0/3,1,0,0 S 22/22 1234/1234");
        assert_eq!(game_over(&p, Profile::DEFAULT), Some(EndReason::NoStones));
        assert_eq!(sweep(&p), [22, 26]);
    }

    #[test]
    fn switches_change_nothing_in_the_opening() {
        // I3-I5 only matter late; I1 first matters at depth 5 and I2 at depth 8.
        for profile in Profile::all() {
            assert_eq!(
                crate::perft(&Position::initial(), 4, profile),
                241,
                "{profile}"
            );
        }
    }

    /// Walks a random game (choices index the legal moves) and yields each
    /// position reached, with the profile it was played under.
    fn random_positions(profile: Profile, choices: &[usize]) -> Vec<Position> {
        let mut p = Position::initial();
        let mut seen = vec![p];
        for &c in choices {
            let moves = legal_moves(&p, profile);
            if moves.is_empty() {
                break;
            }
            p = play(&p, moves[c % moves.len()], profile).unwrap().0;
            seen.push(p);
        }
        seen
    }

    /// Whether the spec says `switch` can matter for `pit` in `p`: the
    /// condition under which each reading applies (SOW-4, LOCK-3, FEED-2,
    /// FEED-3). END-3 never matters to a single position.
    fn switch_can_matter(switch: Switch, p: &Position, pit: Pit) -> bool {
        let mover = p.to_move();
        let opponent_empty = p.row_stones(mover.opponent()) == 0;
        match switch {
            Switch::SkipOrigin => p.stones(pit) >= 8 || opponent_empty,
            Switch::StrictLock => {
                (!p.lock_open(mover) && (p.used[mover.index()] | 1 << (pit.number() - 1)) == 0b1111)
                    || opponent_empty
            }
            Switch::FeedAfterCapture | Switch::EndWhenUnfeedable => opponent_empty,
            Switch::EndOnRepetition => false,
        }
    }

    proptest::proptest! {
        #[test]
        fn each_switch_changes_play_only_where_the_spec_says(
            bits in 0..Profile::COUNT,
            choices in proptest::collection::vec(0usize..4, 0..120),
        ) {
            let profile = Profile::all().nth(bits).unwrap();
            for p in random_positions(profile, &choices) {
                for switch in Switch::ALL {
                    let other = profile.set(switch, !profile.has(switch));
                    for pit in p.to_move().pits() {
                        if switch_can_matter(switch, &p, pit) {
                            continue;
                        }
                        let a = play(&p, pit, profile).map(|(q, r)| (q, r.captures, r.end));
                        let b = play(&p, pit, other).map(|(q, r)| (q, r.captures, r.end));
                        // The end of the game may differ through the next
                        // position's feeding situation, which has its own check.
                        let strip = |x: Result<(Position, ArrayVec<Capture, 4>, Option<End>), IllegalMove>| {
                            x.map(|(q, c, _)| (q, c))
                        };
                        proptest::prop_assert_eq!(strip(a), strip(b), "{} in {} under {} vs {}", pit, p, profile, other);
                    }
                }
            }
        }

        #[test]
        fn legal_moves_are_exactly_the_playable_pits(
            bits in 0..Profile::COUNT,
            choices in proptest::collection::vec(0usize..4, 0..150),
        ) {
            let profile = Profile::all().nth(bits).unwrap();
            for p in random_positions(profile, &choices) {
                let legal = legal_moves(&p, profile);
                for pit in Pit::ALL {
                    let played = play(&p, pit, profile);
                    proptest::prop_assert_eq!(played.is_ok(), legal.contains(&pit), "{} in {}", pit, p);
                    if let Ok((q, _)) = played {
                        proptest::prop_assert_eq!(q.board_stones() + q.captured(Player::South) + q.captured(Player::North), 48);
                        proptest::prop_assert_eq!(Position::from_setup(&q.to_setup()), Ok(q));
                    }
                }
            }
        }
    }
}
