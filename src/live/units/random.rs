//! Seeded random games as units: at each ply the engine's legal moves,
//! sometimes an illegal move, then a random legal move; once the game is
//! over, a move after the end. Game `n` of a run comes from the run's seed
//! and `n` alone, so any `--jobs` and `--shard` give the same games.

use std::sync::Arc;

use arrayvec::ArrayVec;
use chacha20::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

use super::{Ctx, Outcome, Unit};
use crate::board::Pit;
use crate::game::{Game, Outcome as GameOutcome};
use crate::judge::Question;
use crate::live::repro::{repetition_rules, reproduction_in_game};
use crate::live::shrink::Diverging;
use crate::position::Position;
use crate::profile::Profile;
use crate::rules::legal_moves;

/// The outcome of a wrong answer in `game` (whose current position is the
/// question's): its reproduction starts where a repeating stretch began when
/// the repetition rule decides it (END-3), and is then not shrunk, since the
/// history matters.
fn diverged_in_game(ctx: &Ctx<'_>, found: Diverging, ply: u64, game: &Game) -> Outcome {
    let scenario = reproduction_in_game(&found, ctx.profile, None, game);
    let repetition = repetition_rules(&found, ctx.profile, game);
    let mut outcome = ctx.diverged(found, ply, None);
    match repetition {
        Some(rules) => super::cite_repetition(&mut outcome, &rules, scenario),
        None => {
            if let Outcome::Diverges { divergence, .. } = &mut outcome {
                divergence.scenario = Some(scenario);
            }
        }
    }
    outcome
}

/// One in this many plies of a random game also tries an illegal move.
const ILLEGAL_PROBE: u32 = 4;

/// One random game.
pub struct RandomGame {
    seed: u64,
    index: u32,
    max_plies: u32,
    starts: Arc<[Position]>,
}

/// `games` random games from `seed`, each at most `max_plies` long, from
/// the initial position, or from `starts` in turn when some are given.
#[must_use]
pub fn random_units(seed: u64, games: u32, max_plies: u32, starts: &[Position]) -> Vec<RandomGame> {
    let starts: Arc<[Position]> = starts.into();
    (0..games)
        .map(|index| RandomGame::new(seed, index, max_plies, Arc::clone(&starts)))
        .collect()
}

impl RandomGame {
    /// Game `index` of the random games from `seed`, at most `max_plies`
    /// long, from the initial position, or from `starts` in turn when some
    /// are given: made alone, so that a plan need not hold them all.
    #[must_use]
    pub fn new(seed: u64, index: u32, max_plies: u32, starts: Arc<[Position]>) -> RandomGame {
        RandomGame {
            seed,
            index,
            max_plies,
            starts,
        }
    }

    fn start(&self) -> Position {
        if self.starts.is_empty() {
            Position::initial()
        } else {
            self.starts[self.index as usize % self.starts.len()]
        }
    }
}

impl Unit for RandomGame {
    fn kind(&self) -> &'static str {
        "random-game"
    }

    fn id(&self) -> String {
        format!("random/{}", self.index)
    }

    fn run(&self, ctx: &mut Ctx<'_>) -> Outcome {
        // The game as the rules play it: the engine's answers only end it
        // early, so every question is known before the first is asked (a
        // pipeline sends them ahead: [`crate::live::Engine::expect`]).
        let plies = self.walk(ctx.profile);
        ctx.engine
            .expect(plies.iter().flat_map(|ply| ply.questions.iter().copied()));
        for (index, ply) in plies.iter().enumerate() {
            let at = index as u64 + 1;
            for &question in &ply.questions {
                match ctx.check(question) {
                    Err(failure) => return Outcome::Errored { plies: at, failure },
                    Ok(Some(found)) => {
                        let game = self.replay(ctx.profile, &plies[..index]);
                        return diverged_in_game(ctx, found, at, &game);
                    }
                    Ok(None) => {}
                }
            }
        }
        Outcome::Conforms(plies.iter().filter(|ply| ply.chosen.is_some()).count() as u64)
    }
}

/// A ply of a random game: the questions asked at its position, and the
/// move then played (none once the game is over).
struct Ply {
    questions: ArrayVec<Question, 3>,
    chosen: Option<Pit>,
}

impl RandomGame {
    /// The game's plies as the rules play them: at each ply the legal
    /// moves, sometimes an illegal move, then a random legal move; once
    /// the game is over, a move after the end.
    fn walk(&self, profile: Profile) -> Vec<Ply> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(u64::from(self.index));
        let mut game = Game::new(self.start(), profile);
        let mut plies = Vec::new();
        loop {
            let position = *game.current();
            let legal = game.legal_moves();
            // A game over by repetition (END-3) is judged here: the engine
            // sees no history, and is not asked about it.
            let repeated = legal.is_empty() && !legal_moves(&position, profile).is_empty();
            if repeated || plies.len() >= self.max_plies as usize {
                break;
            }
            let mut questions = ArrayVec::<Question, 3>::new();
            questions.push(Question::Legal(position));
            let illegal: ArrayVec<Pit, { Pit::ALL.len() }> = Pit::ALL
                .into_iter()
                .filter(|p| !legal.contains(p))
                .collect();
            // Once the game is over every pit is illegal (MOVE-3): try one.
            if !illegal.is_empty() && (legal.is_empty() || rng.random_range(0..ILLEGAL_PROBE) == 0)
            {
                let pit = illegal[rng.random_range(0..illegal.len())];
                questions.push(Question::Play(position, pit));
            }
            let chosen = (!legal.is_empty()).then(|| legal[rng.random_range(0..legal.len())]);
            if let Some(pit) = chosen {
                questions.push(Question::Play(position, pit));
            }
            plies.push(Ply { questions, chosen });
            let Some(pit) = chosen else {
                break; // the game is over
            };
            if game.play(pit).is_err() {
                break;
            }
            if game.outcome() != GameOutcome::Unfinished
                && legal_moves(game.current(), profile).is_empty()
            {
                continue; // ask about the final position once more
            }
            if game.outcome() != GameOutcome::Unfinished {
                break;
            }
        }
        plies
    }

    /// The game before `plies` were played, with its history.
    fn replay(&self, profile: Profile, plies: &[Ply]) -> Game {
        let mut game = Game::new(self.start(), profile);
        for pit in plies.iter().filter_map(|ply| ply.chosen) {
            // Played by the walk before, the same way.
            let _ = game.play(pit);
        }
        game
    }
}
