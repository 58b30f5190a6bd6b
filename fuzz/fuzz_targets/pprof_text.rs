//! Fuzz target: bytes → pprof-text reader (pprof's legacy text formats). Never a panic;
//! whatever reads is a valid v2 profile, writes as pprof, and the pprof reads back with the
//! same total per value type (when every value is exact in a double).
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run pprof_text -- -dict=pprof_text.dict -max_total_time=180`
//! (seed corpus: `tests/fixtures/pprof-text/`, `tests/fixtures/invalid/pprof-text/`).

#![no_main]

mod text_limits;

use libfuzzer_sys::fuzz_target;
use proftab::formats::{pprof, pprof_text, ReadOptions, WriteOptions};
use proftab::model::{Profile, ValueTypeIndex};
use text_limits::{fuzz_options, type_total};

/// Largest magnitude written to pprof exactly (2^53).
const EXACT: f64 = 9_007_199_254_740_992.0;

fuzz_target!(|data: &[u8]| {
    let options = fuzz_options();
    let _ = pprof_text::detect(data);
    let Ok(parsed) = pprof_text::read(data, &options) else {
        return;
    };
    let p = &parsed.profile;
    let violations = p.validate();
    assert!(violations.is_empty(), "invalid profile: {violations:?}");
    let written =
        pprof::write(p, &WriteOptions::default()).expect("a read profile writes as pprof");
    let back = pprof::read(&written.bytes, &ReadOptions::default())
        .expect("proftab's pprof output reads back")
        .profile;
    if !all_exact(p) {
        return;
    }
    for vt in 0..p.values.len() {
        let (name, _) = p.value_type_names(ValueTypeIndex(vt as u32));
        assert_eq!(
            type_total(p, name),
            type_total(&back, name),
            "total of {name}"
        );
    }
});

fn all_exact(p: &Profile) -> bool {
    p.values.iter().all(|c| {
        c.values.iter().all(|v| v.abs() < EXACT)
            && c.values.iter().map(|v| v.abs()).sum::<f64>() < EXACT
    })
}
