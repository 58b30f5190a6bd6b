//! OTLP reader: any bytes → `otlp::read` must return without panicking; on success the
//! profile must survive write → read with the same number of samples.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::{otlp, Limits, ReadOptions, WriteOptions};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions {
        source_uri: None,
        limits: Limits::fuzzing(),
    };
    if let Ok(parsed) = otlp::read(data, &options) {
        assert!(
            parsed.profile.validate().is_empty(),
            "a read profile must validate"
        );
        let written = otlp::write(&parsed.profile, &WriteOptions::default()).expect("write");
        let back = otlp::read(&written.bytes, &options).expect("re-read");
        assert_eq!(back.profile.num_samples(), parsed.profile.num_samples());
    }
});
