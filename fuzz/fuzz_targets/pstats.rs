//! pstats (Python cProfile / profile statistics, a marshal dump) reader: no panic on any
//! input; a read profile is valid.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::{pstats, Limits, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions {
        limits: Limits::fuzzing(),
        ..ReadOptions::default()
    };
    let _ = pstats::detect(data);
    if let Ok(parsed) = pstats::read(data, &options) {
        assert!(parsed.profile.validate().is_empty(), "a read profile is valid");
    }
});
