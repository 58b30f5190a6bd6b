//! Fuzzes `read_any`, the entry point the CLI and the browser call: content detection, gzip,
//! every reader. On success the profile must validate (`Profile::validate`), and its
//! tables-JSON must read back as tables-JSON with the same value types, totals (bit for bit)
//! and number of samples.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run read_any -- -max_total_time=60` (seeds: `tests/fixtures/`
//! and `shared/corpus/`, e.g. copied into `fuzz/corpus/read_any/`).

#![no_main]

mod support;

use libfuzzer_sys::fuzz_target;
use proftab::formats::{read_any, tables_json, Format, WriteOptions};
use proftab::model::Profile;
use support::fuzz_options;

/// `(type, unit, total bits)` per value type.
fn totals(p: &Profile) -> Vec<(String, String, u64)> {
    p.values
        .iter()
        .map(|c| {
            (
                p.str(c.value_type).to_owned(),
                p.str(c.unit).to_owned(),
                c.total().to_bits(),
            )
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let options = fuzz_options();
    let Ok(parsed) = read_any(data, &options) else {
        return;
    };
    let violations = parsed.profile.validate();
    assert!(violations.is_empty(), "invalid profile: {violations:?}");
    let written = tables_json::write(&parsed.profile, &WriteOptions::default())
        .expect("every valid profile can be written as tables-JSON");
    let back = read_any(&written.bytes, &options).expect("tables-JSON must read back");
    assert_eq!(back.format, Format::TablesJson);
    assert_eq!(back.profile.num_samples(), parsed.profile.num_samples());
    assert_eq!(totals(&back.profile), totals(&parsed.profile));
});
