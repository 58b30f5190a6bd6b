//! `.cpuprofile` / Chrome trace reader: no panic and no hang (parent cycles, deep trees).
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::{cpuprofile, Limits, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions {
        source_uri: None,
        limits: Limits {
            max_decompressed_bytes: 16 << 20,
            max_samples: 100_000,
            max_stack_depth: 10_000,
        },
    };
    let _ = cpuprofile::detect(data);
    if let Ok(parsed) = cpuprofile::read(data, &options) {
        assert!(parsed.profile.num_samples() <= 100_000);
    }
});
