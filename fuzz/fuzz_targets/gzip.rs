//! Fuzzes the capped gzip decoder: never more than the cap, and gzip → gunzip is the identity.

#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::gzip;

/// Decompression cap of the target.
const CAP: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    if let Ok(out) = gzip::gunzip_capped(data, CAP, "fuzz") {
        assert!(out.len() <= CAP);
    }
    let _ = gzip::gunzip_prefix(data, 4096);
    let round = gzip::gunzip_capped(&gzip::gzip(data), usize::MAX, "fuzz").expect("own gzip");
    assert_eq!(round, data);
});
