//! Transcript checking speed: `cargo bench --bench check`.
fn main() {}
