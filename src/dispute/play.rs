//! Part 3: how much the reading matters in play, over seeded games between
//! simple strategies, with 95% confidence intervals (Wilson for shares,
//! normal for means).

use std::collections::HashSet;

use chacha20::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde::Serialize;

use super::options::Options;
use crate::board::{Pit, Player};
use crate::game::{Game, Outcome};
use crate::position::Position;
use crate::profile::{Profile, Switch};
use crate::rules::{self, Moves};

/// The z value of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// The figures of every strategy pairing.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PlayPart {
    /// The seed of the games: game `i` of a pairing draws its moves from
    /// ChaCha8 seeded with `seed + i`, under both readings alike.
    pub seed: u64,
    /// Games per pairing and reading.
    pub games: usize,
    /// Plies after which a game is stopped and counted unfinished.
    pub max_plies: usize,
    /// One entry per strategy pairing.
    pub pairings: Vec<Pairing>,
}

/// A simple way of choosing moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// A legal move drawn uniformly at random.
    Random,
    /// The legal move that captures the most stones now; ties drawn at
    /// random.
    Greedy,
}

impl Strategy {
    /// The strategy's name: `random` or `greedy`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Strategy::Random => "random",
            Strategy::Greedy => "greedy",
        }
    }
}

/// The figures of one pairing: South's strategy against North's.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Pairing {
    /// South's strategy.
    pub south: Strategy,
    /// North's strategy.
    pub north: Strategy,
    /// Games played under the default reading in which, at some ply, the
    /// alternative would answer differently (legal moves, or the result
    /// of the move played) in the same position with the same history.
    pub games_changed: Share,
    /// Plies of those default-reading games at which it would.
    pub plies_changed: Share,
    /// Games (the same seeds under both readings) whose result differs:
    /// another winner, a draw instead of a win, or a game finished under
    /// one reading and stopped unfinished under the other.
    pub winner_changed: Share,
    /// Results of the games played under the default reading.
    pub default: Results,
    /// Results of the same games (same seeds) played under the alternative.
    pub alternative: Results,
    /// The alternative's mean margin minus the default's, game by game
    /// (paired by seed), with its interval.
    pub margin_change: Mean,
}

/// A share with its 95% Wilson interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Share {
    /// How many counted.
    pub count: u64,
    /// Out of how many.
    pub total: u64,
    /// `count / total` (0 when `total` is 0).
    pub share: f64,
    /// Lower end of the 95% Wilson interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

impl Share {
    /// `count` out of `total`, with its Wilson score interval.
    #[must_use]
    pub fn new(count: u64, total: u64) -> Share {
        if total == 0 {
            return Share {
                count,
                total,
                share: 0.0,
                low: 0.0,
                high: 1.0,
            };
        }
        #[allow(clippy::cast_precision_loss)]
        let (k, n) = (count as f64, total as f64);
        let p = k / n;
        let z2 = Z95 * Z95;
        let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
        Share {
            count,
            total,
            share: p,
            low: (centre - half).max(0.0),
            high: (centre + half).min(1.0),
        }
    }
}

/// A mean with its 95% normal interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Mean {
    /// How many values.
    pub n: u64,
    /// Their mean (0 when there are none).
    pub mean: f64,
    /// Lower end of the 95% interval: mean − 1.96 standard errors.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

impl Mean {
    /// The mean of `values` with a normal-approximation interval.
    #[must_use]
    pub fn of(values: &[f64]) -> Mean {
        #[allow(clippy::cast_precision_loss)]
        let n = values.len() as f64;
        if values.is_empty() {
            return Mean {
                n: 0,
                mean: 0.0,
                low: 0.0,
                high: 0.0,
            };
        }
        let mean = values.iter().sum::<f64>() / n;
        let var = if values.len() > 1 {
            values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        let half = Z95 * (var / n).sqrt();
        Mean {
            n: values.len() as u64,
            mean,
            low: mean - half,
            high: mean + half,
        }
    }
}

/// How games came out, from South's side.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Results {
    /// Games South won.
    pub wins: Share,
    /// Games drawn 24-24.
    pub draws: Share,
    /// Games South lost.
    pub losses: Share,
    /// Games stopped at the ply cap (`max_plies`) before they ended.
    pub unfinished: Share,
    /// Games that ended by repetition (END-3).
    pub by_repetition: Share,
    /// South's total minus North's, over the finished games.
    pub margin: Mean,
    /// Mean length of all games in plies.
    pub plies: Mean,
}

/// The pairings measured: random against random, and greedy capture
/// against random from each side.
pub const PAIRINGS: [(Strategy, Strategy); 3] = [
    (Strategy::Random, Strategy::Random),
    (Strategy::Greedy, Strategy::Random),
    (Strategy::Random, Strategy::Greedy),
];

/// Plays the games of every pairing under both readings.
#[must_use]
pub fn measure(alternative: Profile, options: &Options) -> PlayPart {
    PlayPart {
        seed: options.seed,
        games: options.games,
        max_plies: options.max_plies,
        pairings: PAIRINGS
            .iter()
            .map(|&(south, north)| pairing(south, north, alternative, options))
            .collect(),
    }
}

/// One game's record.
struct Played {
    outcome: Outcome,
    plies: usize,
    /// Plies at which the other reading would answer differently (counted
    /// only when asked).
    changed: usize,
}

fn pairing(south: Strategy, north: Strategy, alternative: Profile, options: &Options) -> Pairing {
    let mut default = Vec::with_capacity(options.games);
    let mut alt = Vec::with_capacity(options.games);
    for i in 0..options.games {
        let seed = options.seed.wrapping_add(i as u64);
        default.push(play_game(
            [south, north],
            Profile::DEFAULT,
            Some(alternative),
            seed,
            options.max_plies,
        ));
        alt.push(play_game(
            [south, north],
            alternative,
            None,
            seed,
            options.max_plies,
        ));
    }
    let margins = |games: &[Played]| -> Vec<Option<f64>> { games.iter().map(margin).collect() };
    let (md, ma) = (margins(&default), margins(&alt));
    let paired: Vec<f64> = md
        .iter()
        .zip(&ma)
        .filter_map(|(d, a)| Some((*a)? - (*d)?))
        .collect();
    let result = |g: &Played| match g.outcome {
        Outcome::Finished { winner, .. } => Some(winner),
        Outcome::Unfinished => None,
    };
    let winner_changed = default
        .iter()
        .zip(&alt)
        .filter(|(d, a)| result(d) != result(a))
        .count();
    let plies: usize = default.iter().map(|g| g.plies).sum();
    let changed: usize = default.iter().map(|g| g.changed).sum();
    Pairing {
        south,
        north,
        games_changed: Share::new(
            default.iter().filter(|g| g.changed > 0).count() as u64,
            default.len() as u64,
        ),
        plies_changed: Share::new(changed as u64, plies as u64),
        winner_changed: Share::new(winner_changed as u64, default.len() as u64),
        default: results(&default),
        alternative: results(&alt),
        margin_change: Mean::of(&paired),
    }
}

/// South's margin in a finished game.
fn margin(game: &Played) -> Option<f64> {
    match game.outcome {
        Outcome::Finished { totals, .. } => Some(f64::from(totals[0]) - f64::from(totals[1])),
        Outcome::Unfinished => None,
    }
}

fn results(games: &[Played]) -> Results {
    let n = games.len() as u64;
    let count =
        |f: &dyn Fn(&Played) -> bool| Share::new(games.iter().filter(|g| f(g)).count() as u64, n);
    let winner = |g: &Played| match g.outcome {
        Outcome::Finished { winner, .. } => Some(winner),
        Outcome::Unfinished => None,
    };
    let margins: Vec<f64> = games.iter().filter_map(margin).collect();
    #[allow(clippy::cast_precision_loss)]
    let lengths: Vec<f64> = games.iter().map(|g| g.plies as f64).collect();
    Results {
        wins: count(&|g| winner(g) == Some(Some(Player::South))),
        draws: count(&|g| winner(g) == Some(None)),
        losses: count(&|g| winner(g) == Some(Some(Player::North))),
        unfinished: count(&|g| winner(g).is_none()),
        by_repetition: count(&|g| {
            matches!(
                g.outcome,
                Outcome::Finished {
                    reason: crate::EndReason::Repetition,
                    ..
                }
            )
        }),
        margin: Mean::of(&margins),
        plies: Mean::of(&lengths),
    }
}

/// Plays one game from the initial position under `profile`; with
/// `compare`, counts the plies where that profile would answer otherwise.
fn play_game(
    strategies: [Strategy; 2],
    profile: Profile,
    compare: Option<Profile>,
    seed: u64,
    max_plies: usize,
) -> Played {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(Position::initial(), profile);
    let mut seen: HashSet<Position> = HashSet::from([*game.current()]);
    let mut repeated = false;
    let mut changed = 0;
    while game.reports().len() < max_plies {
        let legal = game.legal_moves();
        let position = *game.current();
        let choice = (!legal.is_empty()).then(|| {
            choose(
                strategies[position.to_move().index()],
                &position,
                &legal,
                profile,
                &mut rng,
            )
        });
        if let Some(other) = compare
            && differs(&position, &seen, repeated, choice, profile, other)
        {
            changed += 1;
        }
        let Some(pit) = choice else { break };
        if game.play(pit).is_err() {
            break; // cannot happen: the move is legal
        }
        repeated |= !seen.insert(*game.current());
    }
    Played {
        outcome: game.outcome(),
        plies: game.reports().len(),
        changed,
    }
}

fn choose(
    strategy: Strategy,
    position: &Position,
    legal: &Moves,
    profile: Profile,
    rng: &mut ChaCha8Rng,
) -> Pit {
    match strategy {
        Strategy::Random => legal[rng.random_range(0..legal.len())],
        Strategy::Greedy => {
            let gain =
                |&p: &Pit| rules::play(position, p, profile).map_or(0, |(_, r)| r.captured());
            let best = legal.iter().map(gain).max().unwrap_or(0);
            let top: Vec<Pit> = legal.iter().copied().filter(|p| gain(p) == best).collect();
            top[rng.random_range(0..top.len())]
        }
    }
}

/// Whether `other` answers differently from `profile` in `position` with
/// the positions `seen` so far (`repeated`: one of them recurred): its legal
/// moves, or the move played.
fn differs(
    position: &Position,
    seen: &HashSet<Position>,
    repeated: bool,
    choice: Option<Pit>,
    profile: Profile,
    other: Profile,
) -> bool {
    let legal = |p: Profile| -> Moves {
        // END-3 (I5): the game ended when a position first recurred.
        if repeated && p.has(Switch::EndOnRepetition) {
            Moves::new()
        } else {
            rules::legal_moves(position, p)
        }
    };
    if legal(profile) != legal(other) {
        return true;
    }
    let Some(pit) = choice else { return false };
    let result = |p: Profile| {
        rules::play(position, pit, p).map(|(q, r)| {
            let repeats = p.has(Switch::EndOnRepetition) && seen.contains(&q);
            (q, r.captures, r.end.is_some() || repeats)
        })
    };
    result(profile) != result(other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_and_normal_intervals_match_textbook_values() {
        let s = Share::new(10, 100);
        assert!((s.share - 0.1).abs() < 1e-12);
        assert!((s.low - 0.0552).abs() < 1e-3, "{s:?}");
        assert!((s.high - 0.1744).abs() < 1e-3, "{s:?}");
        let none = Share::new(0, 50);
        assert!(none.low.abs() < 1e-12, "{none:?}");
        assert!(none.high > 0.05 && none.high < 0.08, "{none:?}");
        let m = Mean::of(&[1.0, 2.0, 3.0, 4.0]);
        assert!((m.mean - 2.5).abs() < 1e-12);
        // sd = 1.291, se = 0.6455, half = 1.265
        assert!((m.high - m.mean - 1.265).abs() < 1e-3, "{m:?}");
        assert_eq!(Mean::of(&[]).n, 0);
    }

    /// The default with I5 (END-3) flipped, whatever the default is.
    fn other_repetition() -> Profile {
        let on = Profile::DEFAULT.has(Switch::EndOnRepetition);
        Profile::DEFAULT.set(Switch::EndOnRepetition, !on)
    }

    /// A pairing's results under `repetition=continues` and under
    /// `repetition=ends-game`, whichever of them is the default.
    fn continuing_and_ending(pairing: &Pairing) -> (&Results, &Results) {
        if Profile::DEFAULT.has(Switch::EndOnRepetition) {
            (&pairing.alternative, &pairing.default)
        } else {
            (&pairing.default, &pairing.alternative)
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_figures_and_another_seed_others() {
        let options = Options {
            games: 12,
            ..Options::default()
        };
        let p = other_repetition();
        let a = measure(p, &options);
        assert_eq!(a, measure(p, &options));
        let b = measure(
            p,
            &Options {
                seed: 99,
                ..options.clone()
            },
        );
        assert_ne!(a, b);
        assert_eq!(a.pairings.len(), 3);
        for pairing in &a.pairings {
            assert_eq!(continuing_and_ending(pairing).0.by_repetition.count, 0);
            let r = &pairing.default;
            assert_eq!(
                r.wins.count + r.draws.count + r.losses.count + r.unfinished.count,
                12
            );
        }
    }

    #[test]
    fn repetition_changes_the_chasing_games_and_ends_them() {
        // In random play about one game in five reaches an endless chase.
        let options = Options {
            games: 40,
            ..Options::default()
        };
        let part = measure(other_repetition(), &options);
        let rr = &part.pairings[0];
        let (continuing, ending) = continuing_and_ending(rr);
        assert!(continuing.unfinished.count > 0, "{rr:?}");
        assert_eq!(ending.unfinished.count, 0, "{rr:?}");
        assert!(ending.by_repetition.count > 0);
        assert!(rr.games_changed.count >= continuing.unfinished.count);
    }

    #[test]
    fn greedy_captures_when_it_can() {
        let p: Position = "9,10,8,3/1,3,1,9 S 0/4 1234/1234".parse().unwrap();
        let legal = rules::legal_moves(&p, Profile::DEFAULT);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        for _ in 0..5 {
            assert_eq!(
                choose(Strategy::Greedy, &p, &legal, Profile::DEFAULT, &mut rng).to_string(),
                "S4"
            );
        }
    }
}
