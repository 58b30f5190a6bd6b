//! Fuzz target: bytes → Rprof reader. Never a panic; whatever reads is a valid v2 profile and
//! writes; and where the writer reports nothing lost, writing is a fixpoint: read(written)
//! writes the same bytes.
//!
//! `cargo fuzz run rprof -- -max_total_time=60` (seed corpus: `tests/fixtures/rprof/`,
//! `tests/fixtures/invalid/rprof/`).

#![no_main]

mod support;

use libfuzzer_sys::fuzz_target;
use proftab::formats::{rprof, WriteOptions};
use support::fuzz_options;

fuzz_target!(|data: &[u8]| {
    let options = fuzz_options();
    let Ok(parsed) = rprof::read(data, &options) else {
        return;
    };
    let violations = parsed.profile.validate();
    assert!(violations.is_empty(), "invalid profile: {violations:?}");
    let first = rprof::write(&parsed.profile, &WriteOptions::default())
        .expect("a profile read from Rprof can be written as Rprof");
    if !first.warnings.is_empty() {
        return;
    }
    let again = rprof::read(&first.bytes, &options).expect("proftab's Rprof output reads back");
    let second = rprof::write(&again.profile, &WriteOptions::default()).expect("writes again");
    assert_eq!(first.bytes, second.bytes, "write(read(write(x))) differs");
});
