//! Rprof's `memory_freed` per source line against profvis, the tool R users read it in: for the
//! recorded `combined.out` (with its `workload.R` beside it, where profvis looks), each line's
//! total freed bytes in the line table equal what `profvis::parse_rprof()` and profvis.js's
//! per-line sum give (tests/support/profvis_freed_by_line.R). Skips, visibly, without R or
//! without the profvis package (Debian: `r-cran-profvis`).
//!
//! profvis sums a line's memory once per frame at that line, so a line twice in one stack
//! (`1#16 "FUN" "vapply" 1#16`) counts twice, while it counts that line's time once. proftab
//! counts every value type once per sample, as profvis counts time: the judge prints both sums
//! and how many samples repeat the line; ours must equal the once-per-sample sum everywhere,
//! and profvis's own sum wherever no sample repeats the line.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use proftab::analysis::lines::line_table;
use proftab::formats::{read_any, ReadOptions};

/// profvis's verdict for one line: freed bytes per frame, once per sample, repeating samples.
#[derive(Debug)]
struct Judged {
    per_frame: f64,
    per_sample: f64,
    repeated: u32,
}

/// `file#line` → the judge's row; `None` when profvis is not installed.
fn profvis_freed(file: &Path) -> Option<BTreeMap<String, Judged>> {
    let out = support::r::run_rscript("profvis_freed_by_line.R", &[file]);
    let mut rows = BTreeMap::new();
    for line in out.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields[..] {
            ["NO-PROFVIS"] => return None,
            ["ROW", key, per_frame, per_sample, repeated] => {
                let judged = Judged {
                    per_frame: per_frame.parse().unwrap(),
                    per_sample: per_sample.parse().unwrap(),
                    repeated: repeated.parse().unwrap(),
                };
                rows.insert(key.to_owned(), judged);
            }
            _ if line.starts_with("PROFVIS ") => eprintln!("judge: {line}"),
            _ => panic!("unexpected line from R: {line}"),
        }
    }
    Some(rows)
}

/// Our line table of `memory_freed`: `file#line` → total bytes.
fn ours(file: &Path) -> BTreeMap<String, f64> {
    let bytes = std::fs::read(file).unwrap();
    let p = read_any(&bytes, &ReadOptions::default()).unwrap().profile;
    let vt = p.value_type_index("memory_freed").unwrap();
    line_table(&p, vt, None)
        .rows
        .iter()
        .filter_map(|r| Some((format!("{}#{}", r.file, r.line?.line), r.total_value)))
        .collect()
}

#[test]
fn memory_freed_per_line_matches_profvis() {
    if !support::cli::have_tool("Rscript", "memory_freed_per_line_matches_profvis") {
        return;
    }
    let file = support::corpus::fixture("rprof").join("combined.out");
    let Some(theirs) = profvis_freed(&file) else {
        eprintln!("SKIP: memory_freed_per_line_matches_profvis: R has no profvis package");
        return;
    };
    let ours = ours(&file);
    // profvis rounds through MiB (bytes / 2^20, differences, × 2^20): within a byte.
    let close = |a: f64, b: f64| (a - b).abs() < 1.0;
    // profvis splits `"handlers[["a b"]]" 1#29` at the space inside the name (as summaryRprof
    // does, tests/fixtures/rprof/README.md), so it loses line 29, where that call is made.
    let unjudged: Vec<&String> = ours.keys().filter(|k| !theirs.contains_key(*k)).collect();
    assert_eq!(unjudged, ["workload.R#29"], "lines profvis misses");
    assert!(
        theirs.keys().all(|k| ours.contains_key(k)),
        "lines only profvis has"
    );
    let mut repeated_lines = 0;
    for (key, judged) in &theirs {
        let got = ours[key];
        assert!(
            close(got, judged.per_sample),
            "{key}: ours {got}, profvis once per sample {judged:?}"
        );
        if judged.repeated == 0 {
            assert!(
                close(got, judged.per_frame),
                "{key}: ours {got}, profvis {judged:?}"
            );
        } else {
            repeated_lines += 1;
        }
    }
    let freed: f64 = ours.values().sum();
    assert!(
        freed > 1e8,
        "the fixture frees memory on its lines ({freed} bytes)"
    );
    assert!(
        repeated_lines < theirs.len(),
        "some lines compare with profvis's own sum"
    );
}
