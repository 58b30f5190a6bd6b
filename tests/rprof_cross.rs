//! Every profile of the other formats in the shared corpus writes as Rprof or is refused with a
//! clear message; what is written reads back, valid, with one line per tick of each sample.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::formats::{read_any, rprof, ReadOptions, WriteOptions};
use proftab::model::Profile;

/// Profiles expanding to more lines are skipped (keeps the test quick in debug builds).
const MAX_LINES: f64 = 50_000.0;
/// Larger inputs are skipped for the same reason (scale is the benches' business).
const MAX_INPUT_BYTES: usize = 512 * 1024;

/// Σ over samples with frames of their rounded `samples` count.
fn expected_lines(p: &Profile) -> Option<f64> {
    let col = p.value_column(p.value_type_index("samples")?)?;
    Some(
        (0..p.num_samples())
            .filter(|&s| p.samples.stack[s] != u32::MAX)
            .filter_map(|s| col.get(s))
            .map(f64::round)
            .sum(),
    )
}

#[test]
fn other_formats_write_as_rprof_or_say_why_not() {
    let corpus = support::corpus::corpus();
    let mut written = 0;
    for dir in [
        "collapsed",
        "speedscope",
        "cpuprofile",
        "firefox",
        "pprof",
        "otlp",
    ] {
        let Ok(entries) = std::fs::read_dir(corpus.join(dir)) else {
            continue;
        };
        for path in entries.map(|e| e.unwrap().path()) {
            let bytes = std::fs::read(&path).unwrap();
            if bytes.len() > MAX_INPUT_BYTES {
                continue;
            }
            let Ok(parsed) = read_any(&bytes, &ReadOptions::default()) else {
                continue;
            };
            // Keep the test quick: huge aggregated counts make files of 100 MB and more.
            if expected_lines(&parsed.profile).is_some_and(|l| l > MAX_LINES) {
                continue;
            }
            let out = match rprof::write(&parsed.profile, &WriteOptions::default()) {
                Ok(out) => out,
                Err(e) => {
                    assert!(e.message.len() > 20, "{}: terse error {e}", path.display());
                    continue;
                }
            };
            let back = rprof::read(&out.bytes, &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{}: written Rprof does not read: {e}", path.display()));
            assert!(back.profile.validate().is_empty(), "{}", path.display());
            if let Some(lines) = expected_lines(&parsed.profile) {
                assert_eq!(
                    back.profile.num_samples() as f64,
                    lines,
                    "{}",
                    path.display()
                );
            }
            written += 1;
        }
    }
    assert!(
        written >= 20,
        "only {written} profiles of other formats were written"
    );
}
