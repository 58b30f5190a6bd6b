//! speedscope reader: no panic; a read profile writes and reads back with the same totals.
#![no_main]

mod support;

use libfuzzer_sys::fuzz_target;
use proftab::formats::{speedscope, WriteOptions};
use support::{fuzz_options, type_total};

fuzz_target!(|data: &[u8]| {
    let options = fuzz_options();
    let _ = speedscope::detect(data);
    let Ok(first) = speedscope::read(data, &options) else {
        return;
    };
    assert!(
        first.profile.validate().is_empty(),
        "a read profile is valid"
    );
    let Ok(written) = speedscope::write(&first.profile, &WriteOptions::default()) else {
        // A profile without value types (no profiles in the file) has nothing to write.
        assert!(first.profile.values.is_empty());
        return;
    };
    let second = speedscope::read(&written.bytes, &options).expect("written speedscope reads back");
    let p = &first.profile;
    let Some(vt) = p.default_value_type() else {
        return;
    };
    let name = p.value_type_names(vt).0.to_owned();
    if written.warnings.is_empty() {
        let (a, b) = (type_total(p, &name), type_total(&second.profile, &name));
        assert!((a - b).abs() <= 1e-6 * a.abs().max(1.0), "{a} vs {b}");
    }
});
