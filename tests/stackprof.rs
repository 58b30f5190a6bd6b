//! Ruby stackprof JSON (`stackprof`), judged by stackprof's own per-frame counts.
//!
//! * `tests/fixtures/stackprof/*.stackprof.json` were recorded with stackprof 0.2.21 (ruby
//!   3.1) in cpu, wall and object mode (`record.sh`, workload `workload.rb`); each reads to its
//!   golden view.
//! * stackprof sums `raw` into each frame's `samples` (self count); summed per function name
//!   they must equal the self column of `proftab top --type samples`, and the sample total
//!   must equal the sum of the frames' `samples`.
//! * `proftab convert -o x.pb.gz` gives `go tool pprof -top` equal to `proftab top`; every
//!   file of corpus-new/stackprof reads; invalid inputs give their messages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use proftab::formats::{stackprof, Format};
use support::corpus::{corpus_new, files_in, fixture};
use support::importers::{
    check_corpus_new, check_golden_fixtures, check_pprof_conversion_all_types, check_robustness,
    top_rows,
};
use support::text::check_invalid_fixtures;

fn fixtures() -> Vec<PathBuf> {
    files_in(&fixture("stackprof"))
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".stackprof.json"))
        .collect()
}

fn all_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(corpus_new("stackprof"));
    v
}

#[test]
fn recorded_fixtures_read_to_their_golden_views() {
    check_golden_fixtures(
        Format::Stackprof,
        &fixtures(),
        "stackprof",
        ".stackprof.json",
    );
}

#[test]
fn self_counts_equal_stackprofs_own_frame_counts() {
    for path in all_inputs() {
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let mut want: BTreeMap<String, f64> = BTreeMap::new();
        for frame in doc["frames"].as_object().unwrap().values() {
            let name = frame["name"].as_str().unwrap_or("(unknown)").to_owned();
            *want.entry(name).or_default() += frame["samples"].as_f64().unwrap();
        }
        want.retain(|_, v| *v != 0.0);
        let (top_total, rows) = top_rows(&path, Some("samples"));
        let got: BTreeMap<String, f64> = rows
            .into_iter()
            .filter(|(_, (s, _))| *s != 0.0)
            .map(|(n, (s, _))| (n, s))
            .collect();
        assert_eq!(got, want, "{}", path.display());
        let total: f64 = want.values().sum();
        assert_eq!(top_total, total, "{}", path.display());
    }
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    check_pprof_conversion_all_types(Format::Stackprof, &all_inputs());
}

#[test]
fn corpus_new_reads() {
    let n = check_corpus_new(Format::Stackprof, "stackprof");
    assert_eq!(n, corpus_new("stackprof").len());
}

#[test]
fn invalid_inputs() {
    assert_eq!(check_invalid_fixtures(Format::Stackprof, "stackprof"), 7);
}

#[test]
fn detection_refuses_other_formats_and_prefixes_never_panic() {
    check_robustness(Format::Stackprof, stackprof::detect, &all_inputs());
}
