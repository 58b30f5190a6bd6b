//! Fuzz target: bytes → the small read-only importers (dhat, instruments, stackprof, pmcstat,
//! papyrus, ghc-prof), each detector and reader on the same input. Never a panic; whatever reads is a
//! valid v2 profile whose value totals are finite and non-negative, and that writes as pprof.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run small_importers -- -max_total_time=120`
//! (seed corpus: `tests/fixtures/{dhat,instruments,stackprof,pmcstat,papyrus,ghc-prof}/` and
//! `tests/fixtures/invalid/` of the same names).

#![no_main]

mod text_limits;

use libfuzzer_sys::fuzz_target;
use proftab::formats::{self, pprof, Format, WriteOptions};
use text_limits::{fuzz_options, type_total};

const FORMATS: [Format; 6] = [
    Format::Dhat,
    Format::Instruments,
    Format::Stackprof,
    Format::Pmcstat,
    Format::Papyrus,
    Format::GhcProf,
];

fuzz_target!(|data: &[u8]| {
    let options = fuzz_options();
    for format in FORMATS {
        let spec = format.spec().expect("registered");
        let _ = spec.detect.map(|d| d(data));
        let Ok(parsed) = formats::read_as(format, data, &options) else {
            continue;
        };
        let p = &parsed.profile;
        let violations = p.validate();
        assert!(violations.is_empty(), "{}: invalid profile: {violations:?}", format.name());
        for column in &p.values {
            let total = type_total(p, p.str(column.value_type));
            assert!(total.is_finite() && total >= 0.0, "{}: total {total}", format.name());
        }
        pprof::write(p, &WriteOptions::default()).expect("a read profile writes as pprof");
    }
});
