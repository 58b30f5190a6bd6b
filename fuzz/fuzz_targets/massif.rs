//! massif (valgrind --tool=massif output) reader: no panic on any input; a read profile is valid.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::{massif, Limits, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions {
        limits: Limits::fuzzing(),
        ..ReadOptions::default()
    };
    let _ = massif::detect(data);
    if let Ok(parsed) = massif::read(data, &options) {
        assert!(parsed.profile.validate().is_empty(), "a read profile is valid");
    }
});
