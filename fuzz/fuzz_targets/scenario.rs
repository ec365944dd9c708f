//! Fuzz target `scenario`: see `../entries.rs`.
#![no_main]

mod entries {
    include!("../entries.rs");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| entries::scenario(data));
