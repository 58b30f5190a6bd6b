//! Fuzzes the capped bzip2 decoder: no panic on any input, never more than the cap.

#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::bz2;

/// Decompression cap of the target.
const CAP: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let _ = bz2::is_bzip2(data);
    if let Ok(out) = bz2::bunzip2_capped(data, CAP, "fuzz") {
        assert!(out.len() <= CAP);
    }
});
