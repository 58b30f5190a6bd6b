//! Fuzz target: bytes → goroutine-dump reader (Go goroutine stack dumps). Never a panic;
//! whatever reads is a valid v2 profile with one `goroutine` of value 1 per sample, writes as
//! pprof, and the pprof reads back with the same goroutine count.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run goroutine_dump -- -dict=goroutine_dump.dict -max_total_time=120`
//! (seed corpus: `tests/fixtures/goroutine-dump/`, `tests/fixtures/invalid/goroutine-dump/`).

#![no_main]

mod text_limits;

use libfuzzer_sys::fuzz_target;
use proftab::formats::{goroutine_dump, pprof, ReadOptions, WriteOptions};
use text_limits::{fuzz_options, type_total};

fuzz_target!(|data: &[u8]| {
    let options = fuzz_options();
    let _ = goroutine_dump::detect(data);
    let Ok(parsed) = goroutine_dump::read(data, &options) else {
        return;
    };
    let p = &parsed.profile;
    let violations = p.validate();
    assert!(violations.is_empty(), "invalid profile: {violations:?}");
    let n = p.num_samples() as f64;
    assert_eq!(type_total(p, "goroutine"), n, "one goroutine per sample");
    let written =
        pprof::write(p, &WriteOptions::default()).expect("a read profile writes as pprof");
    let back = pprof::read(&written.bytes, &ReadOptions::default())
        .expect("proftab's pprof output reads back")
        .profile;
    assert_eq!(type_total(&back, "goroutine"), n, "goroutines after pprof");
});
