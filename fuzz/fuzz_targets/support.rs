//! What the fuzz targets share (included by each as `mod support;`): read options with limits
//! small enough that hitting one is an `Err`, not a libFuzzer out-of-memory report, and the
//! checks every reader target makes — never a panic, a read profile is valid, and it writes as
//! pprof with every total kept.
#![allow(dead_code)] // each target uses a part

use proftab::formats::{self, pprof, Format, Limits, Parsed, ReadOptions, WriteOptions};
use proftab::model::Profile;

/// Largest magnitude a sum of integers keeps exactly in an f64 (2^53).
pub const EXACT: f64 = 9_007_199_254_740_992.0;

/// Options with fuzzing limits (16 MiB decompressed, 100,000 samples, depth 10,000).
pub fn fuzz_options() -> ReadOptions {
    ReadOptions {
        source_uri: None,
        limits: Limits {
            max_decompressed_bytes: 16 << 20,
            max_expansion_ratio: 300,
            max_samples: 100_000,
            max_stack_depth: 10_000,
        },
    }
}

/// Total of value type `name` (0 when absent).
pub fn type_total(p: &Profile, name: &str) -> f64 {
    p.value_type_index(name)
        .and_then(|vt| p.value_column(vt))
        .map_or(0.0, |c| c.total())
}

/// Runs `format`'s detector and reader on `data`; what reads must be a valid profile.
pub fn read_valid(format: Format, data: &[u8]) -> Option<Parsed> {
    let spec = format.spec().expect("a registered format");
    let _ = spec.detect.map(|detect| detect(data));
    let parsed = formats::read_as(format, data, &fuzz_options()).ok()?;
    let violations = parsed.profile.validate();
    assert!(
        violations.is_empty(),
        "{}: invalid profile: {violations:?}",
        format.name()
    );
    Some(parsed)
}

/// The body of a reader target: `data` read as `format`; a read profile is valid, writes as
/// pprof, and reads back with the same total per value type.
pub fn check_reader(format: Format, data: &[u8]) {
    if let Some(parsed) = read_valid(format, data) {
        assert_pprof_keeps_totals(&parsed.profile);
    }
}

/// True when every value of `p` is an integer and every total is below 2^53 in magnitude: then
/// pprof (64-bit integers) holds the values exactly and an f64 sums them exactly.
pub fn integral(p: &Profile) -> bool {
    p.values.iter().all(|c| {
        let values: Vec<f64> = (0..c.values.len()).filter_map(|s| c.get(s)).collect();
        values.iter().all(|v| v.fract() == 0.0)
            && values.iter().map(|v| v.abs()).sum::<f64>() < EXACT
    })
}

/// `p` writes as pprof, the pprof reads back, and (for [`integral`] profiles) every value type
/// keeps its total. The pprof is not gzipped: compressing it (a deflate state of about 200 KB
/// allocated and zeroed per call) took a third of each execution, and the `gzip` and `pprof`
/// targets fuzz that path.
pub fn assert_pprof_keeps_totals(p: &Profile) {
    let written = pprof::write_uncompressed(p, &WriteOptions::default())
        .expect("a valid profile writes as pprof");
    let back = pprof::read(&written.bytes, &fuzz_options())
        .expect("proftab's pprof output reads back")
        .profile;
    if !integral(p) {
        return;
    }
    let after = totals_by_name(&back);
    for c in &p.values {
        let name = p.str(c.value_type);
        assert_eq!(
            after.get(name).copied().unwrap_or(0.0),
            c.total(),
            "total of {name} after pprof"
        );
    }
}

/// The total of every value type of `p` by name: one pass, where [`type_total`] per type costs
/// the square of their number (a profile may have thousands).
pub fn totals_by_name(p: &Profile) -> std::collections::HashMap<&str, f64> {
    p.values
        .iter()
        .map(|c| (p.str(c.value_type), c.total()))
        .collect()
}
