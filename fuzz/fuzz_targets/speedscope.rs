//! speedscope reader: no panic; a read profile writes and reads back with the same totals.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::{speedscope, Limits, ReadOptions, WriteOptions};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions {
        source_uri: None,
        limits: Limits {
            max_decompressed_bytes: 16 << 20,
            max_samples: 100_000,
            max_stack_depth: 10_000,
        },
    };
    let _ = speedscope::detect(data);
    let Ok(first) = speedscope::read(data, &options) else {
        return;
    };
    let Ok(written) = speedscope::write(&first.profile, &WriteOptions::default()) else {
        // A profile without value types (no profiles in the file) has nothing to write.
        assert!(first.profile.values.is_empty());
        return;
    };
    let second = speedscope::read(&written.bytes, &options).expect("written speedscope reads back");
    let p = &first.profile;
    let Some(vt) = p.default_value_type() else { return };
    let name = p.value_type_names(vt).0.to_owned();
    let total = |q: &proftab::model::Profile, name: &str| {
        q.value_type_index(name)
            .and_then(|vt| q.value_column(vt))
            .map_or(0.0, |c| c.total())
    };
    if written.warnings.is_empty() {
        let (a, b) = (total(p, &name), total(&second.profile, &name));
        assert!((a - b).abs() <= 1e-6 * a.abs().max(1.0), "{a} vs {b}");
    }
});
