//! perf-data reader (Linux `perf.data`): never a panic; a read profile is valid with one `samples` of value 1 per sample,
//! and writes as pprof with the same total per value type (`support::check_reader`). The input is
//! also read with the fixtures' `work` binary given (`read_with_files`, as npm and the viewer
//! read), so that `--call-graph dwarf` unwinding, symbols, lines and inlined frames are fuzzed:
//! never a panic, a valid profile with the same sample count.
#![no_main]

mod support;

use proftab::formats::perf_data::binaries::read_with_files;
use proftab::formats::Format;
use support::{assert_pprof_keeps_totals, fuzz_options, read_valid, type_total};

/// The binary the fixtures (and so the seed corpus) recorded.
static WORK: &[u8] = include_bytes!("../../tests/fixtures/perf-data/work");

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some(parsed) = read_valid(Format::PerfData, data) else {
        return;
    };
    let p = &parsed.profile;
    assert_eq!(
        type_total(p, "samples"),
        p.num_samples() as f64,
        "one samples per sample"
    );
    assert_pprof_keeps_totals(p);
    let binaries = [("work".to_owned(), WORK.to_vec())];
    if let Ok((with, _)) = read_with_files(data, &fuzz_options(), &binaries) {
        let violations = with.profile.validate();
        assert!(violations.is_empty(), "with work: {violations:?}");
        assert_eq!(with.profile.num_samples(), p.num_samples());
    }
});
