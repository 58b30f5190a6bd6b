//! Fuzzes the pprof reader (gzip or raw protobuf, whatever the bytes are). On success the
//! profile must be a valid v2 profile (`Profile::validate`), and proftab's own pprof output of it must read
//! back with the same number of samples or fewer (the writer merges equal samples).

#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::{pprof, Limits, ReadOptions, WriteOptions};

/// Limits below libFuzzer's memory limit, so a limit hit is an error, not an OOM report.
fn options() -> ReadOptions {
    ReadOptions {
        source_uri: None,
        limits: Limits {
            max_decompressed_bytes: 16 << 20,
            max_samples: 100_000,
            max_stack_depth: 10_000,
        },
    }
}

fuzz_target!(|data: &[u8]| {
    let options = options();
    let _ = pprof::detect(data);
    let Ok(parsed) = pprof::read(data, &options) else {
        return;
    };
    let violations = parsed.profile.validate();
    assert!(violations.is_empty(), "invalid profile: {violations:?}");
    let written = pprof::write(&parsed.profile, &WriteOptions::default()).expect("write");
    let back = pprof::read(&written.bytes, &options).expect("proftab's pprof must read back");
    assert!(back.profile.num_samples() <= parsed.profile.num_samples());
    assert_eq!(back.profile.values.len(), parsed.profile.values.len());
});
