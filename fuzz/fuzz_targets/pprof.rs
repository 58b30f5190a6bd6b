//! Fuzzes the pprof reader (gzip or raw protobuf, whatever the bytes are). On success the
//! profile must be a valid v2 profile (`Profile::validate`), and proftab's own pprof output of
//! it must read back with the same value types and totals, and the same number of samples or
//! fewer (the writer merges equal samples).
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run pprof -- -max_total_time=60` (seeds: the pprof files of
//! `tests/fixtures/pprof/`, `tests/fixtures/invalid/pprof/` and `shared/corpus/pprof/`).

#![no_main]

mod support;

use libfuzzer_sys::fuzz_target;
use proftab::formats::{pprof, WriteOptions};
use support::{fuzz_options, totals_by_name};

fuzz_target!(|data: &[u8]| {
    let options = fuzz_options();
    let _ = pprof::detect(data);
    let Ok(parsed) = pprof::read(data, &options) else {
        return;
    };
    let violations = parsed.profile.validate();
    assert!(violations.is_empty(), "invalid profile: {violations:?}");
    let written = pprof::write(&parsed.profile, &WriteOptions::default()).expect("write");
    let back = pprof::read(&written.bytes, &options).expect("proftab's pprof must read back");
    assert!(back.profile.num_samples() <= parsed.profile.num_samples());
    assert_eq!(back.profile.values.len(), parsed.profile.values.len());
    // Merging keeps every total (exactly, while the sums are exact in an f64).
    let totals = totals_by_name(&back.profile);
    for c in &parsed.profile.values {
        let name = parsed.profile.str(c.value_type);
        let (before, after) = (c.total(), totals.get(name).copied().unwrap_or(0.0));
        assert!(
            before == after || before.abs() >= 2f64.powi(53),
            "{name}: {before} vs {after}"
        );
    }
});
