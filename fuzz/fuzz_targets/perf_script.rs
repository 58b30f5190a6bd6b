//! perf-script reader (Linux `perf script` output): never a panic; a read profile is valid with one `samples` of value 1 per sample,
//! and writes as pprof with the same total per value type (`support::check_reader`).
#![no_main]

mod support;

use proftab::formats::Format;
use support::{assert_pprof_keeps_totals, read_valid, type_total};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some(parsed) = read_valid(Format::PerfScript, data) else {
        return;
    };
    let p = &parsed.profile;
    assert_eq!(
        type_total(p, "samples"),
        p.num_samples() as f64,
        "one samples per sample"
    );
    assert_pprof_keeps_totals(p);
});
