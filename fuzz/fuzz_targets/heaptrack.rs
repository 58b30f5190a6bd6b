//! heaptrack reader (and the capped zstd decoder under it): never a panic; decompression never
//! passes the cap; a read profile is valid and writes as pprof with the same totals.
#![no_main]

mod support;

use proftab::formats::{zstd, Format};
use support::{check_reader, fuzz_options};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let cap = fuzz_options().limits.max_decompressed_bytes;
    if let Ok(out) = zstd::unzstd_capped(data, cap, "fuzz") {
        assert!(out.len() <= cap);
    }
    let _ = zstd::unzstd_prefix(data, 4096);
    check_reader(Format::Heaptrack, data);
});
