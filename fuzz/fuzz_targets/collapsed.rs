//! Collapsed reader: no panic; a read profile writes and reads back with the same totals.
#![no_main]

mod support;

use libfuzzer_sys::fuzz_target;
use proftab::formats::{collapsed, WriteOptions};
use support::{fuzz_options, type_total};

fuzz_target!(|data: &[u8]| {
    let options = fuzz_options();
    let _ = collapsed::detect(data);
    let Ok(first) = collapsed::read(data, &options) else {
        return;
    };
    assert!(
        first.profile.validate().is_empty(),
        "a read profile is valid"
    );
    let written = collapsed::write(&first.profile, &WriteOptions::default())
        .expect("a read profile can be written");
    let Ok(second) = collapsed::read(&written.bytes, &options) else {
        // Everything was dropped on writing (e.g. only frameless samples); nothing to compare.
        assert!(written.bytes.is_empty() || !written.warnings.is_empty());
        return;
    };
    let (a, b) = (
        type_total(&first.profile, "samples"),
        type_total(&second.profile, "samples"),
    );
    assert!((a - b).abs() <= 1e-6 * a.abs().max(1.0), "{a} vs {b}");
});
