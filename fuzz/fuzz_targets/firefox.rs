//! Firefox processed-profile reader: any bytes → `firefox::read` must return without
//! panicking (version gate, prefix invariants); on success writing must succeed too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proftab::formats::{firefox, Limits, ReadOptions, WriteOptions};

fuzz_target!(|data: &[u8]| {
    let options = ReadOptions {
        source_uri: None,
        limits: Limits::fuzzing(),
    };
    if let Ok(parsed) = firefox::read(data, &options) {
        assert!(
            parsed.profile.validate().is_empty(),
            "a read profile must validate"
        );
        if parsed.profile.values.is_empty() {
            return;
        }
        let written = firefox::write(&parsed.profile, &WriteOptions::default()).expect("write");
        firefox::read(&written.bytes, &options).expect("re-read");
    }
});
