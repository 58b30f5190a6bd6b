//! Fuzz target: bytes → callgrind reader. Never a panic; whatever reads is a valid v2 profile,
//! writes as pprof, and the pprof reads back with the same total of the default value type.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run callgrind -- -max_total_time=120`
//! (seed corpus: `tests/fixtures/callgrind/`, `tests/fixtures/invalid/callgrind/`).

#![no_main]

mod text_limits;

use libfuzzer_sys::fuzz_target;
use proftab::formats::{callgrind, pprof, ReadOptions, WriteOptions};
use text_limits::{fuzz_options, type_total};

fuzz_target!(|data: &[u8]| {
    let options = fuzz_options();
    let _ = callgrind::detect(data);
    let Ok(parsed) = callgrind::read(data, &options) else {
        return;
    };
    let p = &parsed.profile;
    let violations = p.validate();
    assert!(violations.is_empty(), "invalid profile: {violations:?}");
    let Some(vt) = p.default_value_type() else {
        return;
    };
    let name = p.value_type_names(vt).0.to_owned();
    let total = type_total(p, &name);
    let written =
        pprof::write(p, &WriteOptions::default()).expect("a read profile writes as pprof");
    let back = pprof::read(&written.bytes, &ReadOptions::default())
        .expect("proftab's pprof output reads back")
        .profile;
    assert_eq!(type_total(&back, &name), total, "total after pprof");
});
