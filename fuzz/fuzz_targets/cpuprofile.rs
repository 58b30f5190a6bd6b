//! `.cpuprofile` / Chrome trace reader: no panic and no hang (parent cycles, deep trees).
#![no_main]

#[allow(dead_code)]
mod text_limits;

use libfuzzer_sys::fuzz_target;
use proftab::formats::cpuprofile;
use text_limits::fuzz_options;

fuzz_target!(|data: &[u8]| {
    let options = fuzz_options();
    let _ = cpuprofile::detect(data);
    if let Ok(parsed) = cpuprofile::read(data, &options) {
        assert!(parsed.profile.num_samples() <= 100_000);
        assert!(parsed.profile.validate().is_empty(), "a read profile is valid");
    }
});
