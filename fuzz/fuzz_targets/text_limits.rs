//! Read options shared by the collapsed, cpuprofile, speedscope and pprof fuzz targets: limits
//! small enough that hitting one is an `Err`, not a libFuzzer out-of-memory report.

use proftab::formats::{Limits, ReadOptions};

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

/// Total of value type `name` (0 when absent). Not every target that includes this file uses it.
#[allow(dead_code)]
pub fn type_total(p: &proftab::model::Profile, name: &str) -> f64 {
    p.value_type_index(name)
        .and_then(|vt| p.value_column(vt))
        .map_or(0.0, |c| c.total())
}
