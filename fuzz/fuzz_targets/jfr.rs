//! JFR (Java Flight Recorder) reader: no panic on any input; a read profile is valid.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::{jfr, Limits, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions {
        limits: Limits::fuzzing(),
        ..ReadOptions::default()
    };
    let _ = jfr::detect(data);
    if let Ok(parsed) = jfr::read(data, &options) {
        assert!(parsed.profile.validate().is_empty(), "a read profile is valid");
    }
});
