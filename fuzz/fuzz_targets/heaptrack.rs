//! heaptrack reader (and the capped zstd decoder under it): no panic on any input; a read
//! profile is valid; decompression never passes the cap.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::{heaptrack, zstd, Limits, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions {
        limits: Limits::fuzzing(),
        ..ReadOptions::default()
    };
    let cap = options.limits.max_decompressed_bytes;
    if let Ok(out) = zstd::unzstd_capped(data, cap, "fuzz") {
        assert!(out.len() <= cap);
    }
    let _ = zstd::unzstd_prefix(data, 4096);
    let _ = heaptrack::detect(data);
    if let Ok(parsed) = heaptrack::read(data, &options) {
        assert!(parsed.profile.validate().is_empty(), "a read profile is valid");
    }
});
