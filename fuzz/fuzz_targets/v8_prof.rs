//! v8-prof (preprocessed `node --prof` log) reader: no panic on any input; a read profile is valid.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::{v8_prof, Limits, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions {
        limits: Limits::fuzzing(),
        ..ReadOptions::default()
    };
    let _ = v8_prof::detect(data);
    if let Ok(parsed) = v8_prof::read(data, &options) {
        assert!(parsed.profile.validate().is_empty(), "a read profile is valid");
    }
});
