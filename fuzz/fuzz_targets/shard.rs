//! Fuzz target `shard`: see `../entries.rs`.
#![no_main]

mod entries {
    // Each target uses one of the entry points.
    #![allow(dead_code)]
    include!("../entries.rs");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| entries::shard(data));
