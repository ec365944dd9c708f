//! The transcript the check bench (`cargo bench --bench check`) measures,
//! on stdout, to time `kpe-check` on it by hand:
//!
//! ```sh
//! cargo build --release --bin kpe-check --example bench_transcript
//! target/release/examples/bench_transcript full default > bench.json
//! time target/release/kpe-check bench.json -q
//! ```
//!
//! Shape `full` (every ply claims its position, legal moves and captures)
//! or `minimal` (the move and the position); then the profile; then,
//! optionally, the order of the keys (issue 22 measures both):
//!
//! - left out: as the check bench writes them, the header in the format's
//!   order and each ply's keys sorted (serde_json's map);
//! - `plain`: every object's keys in the format's order (`move`, `after`,
//!   `legal`, `captures`, `game_over`, `totals`);
//! - `sorted`: every object's keys sorted, as `jq -S` or serde_json's map
//!   write a whole file, so the header's `profile` and `version` follow
//!   `games`.
//!
//! The games, the layout (one ply a line) and the length in bytes are the
//! same in all three.

use std::io::Write as _;

#[path = "../benches/common/transcript.rs"]
mod transcript;

/// The order of a ply's keys in the format (`spec/TRANSCRIPT.md`).
const PLY_ORDER: [&str; 6] = ["move", "after", "legal", "captures", "game_over", "totals"];

/// What follows the last ply of the bench's transcript: the end of its
/// game, of `games` and of the file.
const FILE_END: &str = "]}]}\n";

/// How the keys of the transcript's objects are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keys {
    /// As the check bench writes them.
    Bench,
    /// The format's order everywhere.
    Plain,
    /// Sorted everywhere.
    Sorted,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (shape, profile, keys) = match &args[..] {
        [shape, profile] => (shape, profile, Some(Keys::Bench)),
        [shape, profile, keys] => (shape, profile, parse_keys(keys)),
        _ => usage(),
    };
    let (Some(keys), "full" | "minimal") = (keys, shape.as_str()) else {
        usage()
    };
    let profile = profile.parse::<kpe::Profile>().unwrap_or_else(|e| {
        eprintln!("bench_transcript: {e}");
        std::process::exit(2)
    });
    let (text, plies) = transcript::transcript(2_000, 150, profile, shape == "full");
    let text = rekeyed(&text, keys);
    eprintln!("{} bytes, {plies} plies", text.len());
    if let Err(e) = std::io::stdout().write_all(&text) {
        eprintln!("bench_transcript: {e}");
        std::process::exit(1)
    }
}

fn parse_keys(keys: &str) -> Option<Keys> {
    match keys {
        "plain" => Some(Keys::Plain),
        "sorted" => Some(Keys::Sorted),
        _ => None,
    }
}

fn usage() -> ! {
    eprintln!("usage: bench_transcript full|minimal PROFILE [plain|sorted]");
    std::process::exit(2)
}

/// The check bench's transcript `bench` with its keys ordered as `keys`
/// says; the layout kept, line by line.
fn rekeyed(bench: &[u8], keys: Keys) -> Vec<u8> {
    let text = std::str::from_utf8(bench).expect("the bench writes UTF-8");
    let mut out = String::with_capacity(text.len());
    let mut lines = text.split_inclusive('\n');
    let header = lines.next().expect("the header's line");
    if keys == Keys::Sorted {
        out.push_str(&sorted_header(header));
    } else {
        out.push_str(header);
    }
    for line in lines {
        let (body, tail) = split_tail(line);
        match serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(body) {
            // serde_json's map keeps its keys sorted: the bench's plies
            // come sorted, and need reordering only for `plain`.
            Ok(ply) if keys == Keys::Plain && ply.contains_key("move") => {
                let fields: Vec<String> = PLY_ORDER
                    .iter()
                    .filter_map(|k| ply.get(*k).map(|v| format!("\"{k}\":{v}")))
                    .collect();
                out.push('{');
                out.push_str(&fields.join(","));
                out.push('}');
            }
            _ => out.push_str(body),
        }
        let tail = match (keys, tail) {
            (Keys::Sorted, FILE_END) => sorted_end(header),
            _ => tail.to_owned(),
        };
        out.push_str(&tail);
    }
    out.into_bytes()
}

/// A line of the bench's transcript as its value and what follows it: the
/// comma, or the brackets that close the game (and, last, the file).
fn split_tail(line: &str) -> (&str, &str) {
    for tail in [FILE_END, "]},\n", ",\n"] {
        if let Some(body) = line.strip_suffix(tail) {
            return (body, tail);
        }
    }
    (line, "")
}

/// The bench's header line (`{"format": ..., "games": [`) with its keys
/// sorted: `engine` and `format` before `games`; `profile` and `version`
/// after it, in [`sorted_end`].
fn sorted_header(header: &str) -> String {
    let fields = header_fields(header);
    format!(
        "{{\"engine\": {}, \"format\": {}, \"games\": [\n",
        spaced(&fields["engine"]),
        fields["format"]
    )
}

/// `value` as the bench writes the header's values: an object with a space
/// after each colon and comma (its members are scalars).
fn spaced(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Object(map) => {
            let members: Vec<String> = map.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
            format!("{{{}}}", members.join(", "))
        }
        _ => value.to_string(),
    }
}

/// What follows the last ply when the header's keys are sorted: the end
/// of its game and of `games`, then `profile` and `version`.
fn sorted_end(header: &str) -> String {
    let fields = header_fields(header);
    format!(
        "]}}], \"profile\": {}, \"version\": {}}}\n",
        fields["profile"], fields["version"]
    )
}

/// The header's fields other than `games`.
fn header_fields(header: &str) -> serde_json::Map<String, serde_json::Value> {
    let closed = header.trim_end().replace("\"games\": [", "\"games\": []}");
    serde_json::from_str(&closed).expect("the bench's header")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plies' lines of `text`: those that hold a move.
    fn ply_lines(text: &str) -> Vec<&str> {
        text.lines().filter(|l| l.contains("\"move\"")).collect()
    }

    #[test]
    fn each_order_writes_the_same_transcript_in_as_many_bytes() {
        let (bench, plies) = transcript::transcript(4, 30, kpe::Profile::DEFAULT, true);
        let value = |text: &[u8]| serde_json::from_slice::<serde_json::Value>(text).unwrap();
        for keys in [Keys::Bench, Keys::Plain, Keys::Sorted] {
            let text = rekeyed(&bench, keys);
            assert_eq!(text.len(), bench.len(), "{keys:?}");
            assert_eq!(value(&text), value(&bench), "{keys:?}");
            let text = String::from_utf8(text).unwrap();
            assert_eq!(ply_lines(&text).len() as u64, plies, "{keys:?}");
        }
    }

    #[test]
    fn plain_puts_each_ply_in_the_formats_order() {
        let (bench, _) = transcript::transcript(4, 30, kpe::Profile::DEFAULT, true);
        let text = String::from_utf8(rekeyed(&bench, Keys::Plain)).unwrap();
        assert!(text.starts_with("{\"format\""));
        for line in ply_lines(&text) {
            let at = |key: &str| line.find(&format!("\"{key}\":")).unwrap();
            assert!(line.starts_with("{\"move\":"), "{line}");
            assert!(
                at("move") < at("after") && at("after") < at("legal"),
                "{line}"
            );
            assert!(at("legal") < at("captures"), "{line}");
        }
    }

    #[test]
    fn sorted_puts_the_header_around_games_and_sorts_the_plies() {
        let (bench, _) = transcript::transcript(4, 30, kpe::Profile::DEFAULT, true);
        let text = String::from_utf8(rekeyed(&bench, Keys::Sorted)).unwrap();
        assert!(
            text.starts_with("{\"engine\": {\"name\": \"bench\", \"version\": \"1\"}, \"format\"")
        );
        assert!(text.ends_with("]}], \"profile\": \"default\", \"version\": 1}\n"));
        for line in ply_lines(&text) {
            let at = |key: &str| line.find(&format!("\"{key}\":")).unwrap();
            assert!(line.starts_with("{\"after\":"), "{line}");
            assert!(
                at("captures") < at("legal") && at("legal") < at("move"),
                "{line}"
            );
        }
    }
}
