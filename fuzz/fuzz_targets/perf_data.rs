//! Fuzz target: bytes → perf-data reader (Linux `perf.data`). Never a panic;
//! whatever reads is a valid v2 profile with one `samples` of value 1 per sample, writes as
//! pprof, and the pprof reads back with the same sample count.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run perf_data -- -max_total_time=120`
//! (seed corpus: `tests/fixtures/perf-data/`, `tests/fixtures/invalid/perf-data/`).

#![no_main]

mod text_limits;

use libfuzzer_sys::fuzz_target;
use proftab::formats::{perf_data, pprof, ReadOptions, WriteOptions};
use text_limits::{fuzz_options, type_total};

fuzz_target!(|data: &[u8]| {
    let options = fuzz_options();
    let _ = perf_data::detect(data);
    let Ok(parsed) = perf_data::read(data, &options) else {
        return;
    };
    let p = &parsed.profile;
    let violations = p.validate();
    assert!(violations.is_empty(), "invalid profile: {violations:?}");
    let n = p.num_samples() as f64;
    assert_eq!(type_total(p, "samples"), n, "one sample count per sample");
    let written =
        pprof::write(p, &WriteOptions::default()).expect("a read profile writes as pprof");
    let back = pprof::read(&written.bytes, &ReadOptions::default())
        .expect("proftab's pprof output reads back")
        .profile;
    assert_eq!(type_total(&back, "samples"), n, "samples after pprof");
});
