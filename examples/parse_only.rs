//! The check bench's parse-only pass (serde_json reading the file into
//! `IgnoredAny`, the floor of any checking), to time by hand against
//! `kpe-check` on the same file:
//!
//! ```sh
//! cargo build --release --bin kpe-check --example bench_transcript --example parse_only
//! target/release/examples/bench_transcript full default > bench.json
//! time target/release/examples/parse_only bench.json
//! time target/release/kpe-check bench.json -q
//! ```

#[path = "../benches/common/parse_only.rs"]
mod parse_only;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path] = &args[..] else {
        eprintln!("usage: parse_only FILE");
        std::process::exit(2)
    };
    if let Err(e) = parse_only::parse_only(std::path::Path::new(path)) {
        eprintln!("parse_only: {path}: {e}");
        std::process::exit(1)
    }
}
