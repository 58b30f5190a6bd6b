//! Inputs the fuzz targets found (`scripts/fuzz.sh`, docs/fuzzing.md), kept as
//! `tests/fixtures/invalid/<format>/fuzz-*`: each reads as its format without a panic, and
//! what reads is a valid profile that writes as pprof — the checks the targets make. Their
//! messages (error or warnings) are checked beside them by each format's invalid-fixture test
//! (`check_invalid_fixtures`, the `.expected` file).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::formats::{pprof, read_as, Format, ReadOptions, WriteOptions};
use support::corpus::{files_in, fixture};

/// The fuzz finds of one format's invalid folder (inputs only, not their `.expected`).
fn finds(dir: &str) -> Vec<std::path::PathBuf> {
    files_in(&fixture("invalid").join(dir))
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("fuzz-") && !name.ends_with(".expected")
        })
        .collect()
}

#[test]
fn fuzz_finds_read_to_valid_profiles_or_errors() {
    let mut seen = 0;
    for (format, dir) in [(Format::Dhat, "dhat"), (Format::PerfData, "perf-data")] {
        for path in finds(dir) {
            seen += 1;
            let bytes = std::fs::read(&path).unwrap();
            let Ok(parsed) = read_as(format, &bytes, &ReadOptions::default()) else {
                continue;
            };
            let violations = parsed.profile.validate();
            assert!(violations.is_empty(), "{}: {violations:?}", path.display());
            pprof::write(&parsed.profile, &WriteOptions::default()).unwrap();
        }
    }
    assert!(seen >= 1, "no fuzz finds under tests/fixtures/invalid/");
}

/// Inputs of `round_trip` that made a reader panic, kept in tests/fixtures/fuzz/: each reads
/// (`read_any`) to a valid profile with what went wrong said in a warning, and writes back.
#[test]
fn round_trip_finds_read_with_a_warning() {
    let cases = [(
        // A perf.data MMAP2 record whose build-id length is over 20: the crate's
        // assertion, now a skipped record.
        "round-trip-mmap2-build-id-too-long.data",
        "records could not be parsed and were skipped",
    )];
    for (name, warning) in cases {
        let bytes = std::fs::read(fixture("fuzz").join(name)).unwrap();
        let parsed = proftab::formats::read_any(&bytes, &ReadOptions::default()).unwrap();
        assert!(parsed.profile.validate().is_empty(), "{name}");
        assert!(
            parsed.warnings.iter().any(|w| w.message.contains(warning)),
            "{name}: {:?}",
            parsed.warnings
        );
        pprof::write(&parsed.profile, &WriteOptions::default()).unwrap();
    }
}
