//! Readable traces of scenarios, for people and snapshots.

use std::fmt;

use super::Scenario;
use super::subject::show_pits;
use crate::game::Game;
use crate::position::Position;
use crate::profile::Profile;

// ---------------------------------------------------------------------------
// Traces for people (and snapshots)
// ---------------------------------------------------------------------------

/// A readable trace of `scenario` played by the reference rules under
/// `profile`: the start diagram, then for each move what it did, the rule
/// IDs that decided it, the position and diagram after it, the legal moves,
/// and finally the outcome. The profile itself is not printed, so traces
/// under different profiles can be compared.
#[must_use]
pub fn trace(scenario: &Scenario, profile: Profile) -> String {
    use fmt::Write as _;
    let mut out = String::new();
    let start_text = scenario.start_text();
    let start = match start_text.parse::<Position>() {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(out, "start: {start_text}");
            let _ = writeln!(out, "refused: {} ({e})", e.code());
            return out;
        }
    };
    let _ = writeln!(out, "start: {start}\n");
    out += &start.diagram();
    let mut game = Game::new(start, profile);
    let _ = writeln!(out, "{}", legal_line(&game));
    for (i, &pit) in scenario.moves.iter().enumerate() {
        let ply = i + 1;
        match game.play(pit) {
            Ok(report) => {
                let report = report.clone();
                let _ = writeln!(out, "\nply {ply}: {report}");
                let _ = writeln!(out, "  rules: {}", report.rules().join(" "));
                let _ = writeln!(out, "  after: {}\n", game.current());
                out += &game.current().diagram();
                let _ = writeln!(out, "{}", legal_line(&game));
            }
            Err(e) => {
                let _ = writeln!(out, "\nply {ply}: refused: {e}");
                break;
            }
        }
    }
    let _ = writeln!(out, "\noutcome: {}", game.outcome());
    out
}

fn legal_line(game: &Game) -> String {
    let legal = game.legal_moves();
    if legal.is_empty() {
        "legal moves: none".to_owned()
    } else {
        format!("legal moves: {}", show_pits(&legal))
    }
}
