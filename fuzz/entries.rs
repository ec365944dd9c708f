// The fuzz entry points, shared by the cargo-fuzz targets (`fuzz_targets/`)
// and the stable replay of the corpus (`tests/fuzz_corpus.rs`), which both
// `include!` this file. Each takes arbitrary bytes, feeds them to one reader
// of kpe, and checks what must hold of any input: no panic, and what is
// accepted reads back the same after printing.

use std::path::Path;

/// The position notation: whatever parses prints and parses back to the
/// same position.
pub fn notation(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(position) = text.parse::<kpe::Position>() {
        let printed = position.to_string();
        let again: kpe::Position = printed.parse().expect("a printed position reads back");
        assert_eq!(again, position, "{printed}");
        let setup = position.to_setup();
        assert_eq!(kpe::Position::from_setup(&setup).ok(), Some(position));
    }
    let _ = text.parse::<kpe::Setup>();
}

/// The engine manifest reader: an accepted manifest, printed as JSON,
/// reads back the same.
pub fn manifest(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.json");
    if let Ok(manifest) = kpe::live::Manifest::parse(text, path) {
        let printed = serde_json::to_string(&manifest).expect("a manifest prints");
        let again =
            kpe::live::Manifest::parse(&printed, path).expect("a printed manifest reads back");
        assert_eq!(again, manifest, "{printed}");
        let _ = manifest.launch(Path::new("/base"));
    }
}

/// An engine's reply line: read as a protocol reply, then compared, as an
/// answer, with the reference rules for a question picked by the first
/// byte, under every profile.
pub fn reply(data: &[u8]) {
    use kpe::judge::{Answer, Question, compare};
    use kpe::protocol::Reply;
    let Some((&pick, line)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(line) else {
        return;
    };
    // As kpe-check reads it.
    let Ok(reply) = serde_json::from_str::<Reply>(text) else {
        return;
    };
    let Ok(answer) = Answer::from_reply(reply) else {
        return;
    };
    let positions = [
        "6,6,6,6/6,6,6,6 S 0/0 ----/----",
        "1,0,0,0/1,0,0,0 S 22/24 1234/1234",
        "0,0,0,2/4,0,0,0 N 20/22 1234/1234",
        "8,6,6,6/6,6,6,4 S 0/0 1---/1234",
    ];
    let position: kpe::Position = positions[usize::from(pick) % positions.len()]
        .parse()
        .expect("the fuzz positions are valid");
    let pit = kpe::Pit::ALL[usize::from(pick / 4) % kpe::Pit::ALL.len()];
    let question = if pick & 0x80 == 0 {
        Question::Play(position, pit)
    } else {
        Question::Legal(position)
    };
    for profile in kpe::Profile::all() {
        if let Some(mismatch) = compare(&question, &answer, profile) {
            let _ = format!("{mismatch:?}");
        }
    }
}

/// The scenario loader: a scenario file and a perft file, from the same
/// text.
pub fn scenario(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(errors) = kpe::scenario::parse_file("fuzz.yaml", text) {
        let _ = errors.to_string();
    }
    if let Err(errors) = kpe::scenario::parse_perft_file("perft.yaml", text) {
        let _ = errors.to_string();
    }
}

/// The transcript reader, streaming from the bytes as from a file, with
/// its report written nowhere.
pub fn transcript(data: &[u8]) {
    let mut sink = kpe::reporter::JsonSink::new(std::io::sink());
    if let Err(e) = kpe::transcripts::check_transcript_reader("fuzz.json", data, &mut sink) {
        let _ = e.to_string();
    }
}

/// The shard report reader of `kpe-check merge`: any bytes end in a
/// report or an error, never a panic; an accepted report merges (alone,
/// and given twice) into a report or an error.
pub fn shard(data: &[u8]) {
    let Ok(report) = kpe::reporter::parse_report_bytes("fuzz.json", data) else {
        return;
    };
    let one = vec![("a.json".to_owned(), report)];
    let mut out = Vec::new();
    let _ = kpe::reporter::merge_reports(&one, &mut kpe::reporter::JsonSink::new(&mut out));
    let twice = vec![one[0].clone(), ("b.json".to_owned(), one[0].1.clone())];
    let mut out = Vec::new();
    let _ = kpe::reporter::merge_reports(&twice, &mut kpe::reporter::JsonSink::new(&mut out));
}

/// The `--expect-fail` reader: any text ends in a list or an error at a
/// line, and every unit is classified by what was read without a panic.
pub fn expect_fail(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut policy = kpe::reporter::Policy::default();
    if policy.parse_expected("fuzz.txt", text).is_err() {
        return;
    }
    let mut unmatched = kpe::reporter::Unmatched::new(&policy);
    for e in policy.expected.clone() {
        let mut unit = kpe::reporter::UnitResult::conforming("scenario", e.id.clone(), None, 1);
        unit.profile = e.profile;
        policy.classify(&mut unit);
        unmatched.see(&unit);
    }
    assert!(unmatched.notes().is_empty(), "every listed unit was seen");
}
