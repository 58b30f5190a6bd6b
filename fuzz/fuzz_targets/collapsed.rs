//! Collapsed reader: no panic; a read profile writes and reads back with the same totals.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::{collapsed, Limits, ReadOptions, WriteOptions};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions {
        source_uri: None,
        limits: Limits {
            max_decompressed_bytes: 16 << 20,
            max_samples: 100_000,
            max_stack_depth: 10_000,
        },
    };
    let _ = collapsed::detect(data);
    let Ok(first) = collapsed::read(data, &options) else {
        return;
    };
    let written = collapsed::write(&first.profile, &WriteOptions::default())
        .expect("a read profile can be written");
    let Ok(second) = collapsed::read(&written.bytes, &options) else {
        // Everything was dropped on writing (e.g. only frameless samples); nothing to compare.
        assert!(written.bytes.is_empty() || !written.warnings.is_empty());
        return;
    };
    let total = |p: &proftab::model::Profile| {
        p.value_type_index("samples")
            .and_then(|vt| p.value_column(vt))
            .map_or(0.0, |c| c.total())
    };
    let (a, b) = (total(&first.profile), total(&second.profile));
    assert!((a - b).abs() <= 1e-6 * a.abs().max(1.0), "{a} vs {b}");
});
