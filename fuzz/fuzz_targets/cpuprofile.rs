//! `.cpuprofile` / Chrome trace reader: never a panic and no hang (parent cycles, deep trees);
//! a read profile is valid, within the sample limit, and writes as pprof with the same totals.
#![no_main]

mod support;

use proftab::formats::Format;
use support::{assert_pprof_keeps_totals, fuzz_options, read_valid};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some(parsed) = read_valid(Format::Cpuprofile, data) else {
        return;
    };
    assert!(parsed.profile.num_samples() <= fuzz_options().limits.max_samples);
    assert_pprof_keeps_totals(&parsed.profile);
});
