//! The transcripts the check bench measures, shared with
//! `examples/bench_transcript.rs` (which writes one to a file).

use kpe::{Game, Position, Profile};

/// A transcript of `games` random games of at most `max_plies` plies under
/// `profile`, and its number of plies.
pub fn transcript(games: usize, max_plies: usize, profile: Profile, full: bool) -> (Vec<u8>, u64) {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut plies = 0;
    let mut out = format!(
        r#"{{"format": "kpe-transcript", "version": 1, "engine": {{"name": "bench", "version": "1"}}, "profile": "{profile}", "games": ["#
    );
    for g in 0..games {
        if g > 0 {
            out.push(',');
        }
        out.push_str(&format!("\n{{\"id\": \"g{g}\", \"plies\": ["));
        let mut game = Game::new(Position::initial(), profile);
        for i in 0..max_plies {
            let legal = game.legal_moves();
            if legal.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mv = legal[(seed % legal.len() as u64) as usize];
            let report = game.play(mv).expect("legal").clone();
            let mut ply = serde_json::json!({"move": mv, "after": game.current()});
            if full {
                ply["legal"] = serde_json::json!(legal.to_vec());
                ply["captures"] = serde_json::json!(report.captures.to_vec());
            }
            if let (Some(end), true) = (report.end, full) {
                ply["game_over"] = true.into();
                ply["totals"] = serde_json::json!(end.totals);
            }
            if i > 0 {
                out.push(',');
            }
            out.push_str(&format!("\n{ply}"));
            plies += 1;
        }
        out.push_str("]}");
    }
    out.push_str("]}\n");
    (out.into_bytes(), plies)
}
