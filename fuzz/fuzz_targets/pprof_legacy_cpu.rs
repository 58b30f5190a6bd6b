//! pprof legacy binary CPU reader: no panic on any input; a read profile is valid.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::{pprof_text::legacy_cpu, Limits, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions {
        limits: Limits::fuzzing(),
        ..ReadOptions::default()
    };
    let _ = legacy_cpu::detect(data);
    if let Ok(parsed) = legacy_cpu::read(data, &options) {
        assert!(parsed.profile.validate().is_empty(), "a read profile is valid");
    }
});
