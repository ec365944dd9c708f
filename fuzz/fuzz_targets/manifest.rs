//! Fuzz target `manifest`: see `../entries.rs`.
#![no_main]

mod entries {
    include!("../entries.rs");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| entries::manifest(data));
