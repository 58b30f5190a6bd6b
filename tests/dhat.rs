//! valgrind DHAT JSON (`dhat`), judged by valgrind's own numbers.
//!
//! * `tests/fixtures/dhat/*.dhat.json` were recorded with `valgrind --tool=dhat` in heap, copy
//!   and ad-hoc mode (`record.sh`, workload `dhatwork.c`); each reads to its golden view.
//! * An independent judge, `judge_tb.py` beside the fixtures, sums `tb` per innermost function
//!   (flat) and per function anywhere in the stack (cum) from the JSON itself: `proftab top`
//!   of the default type (`total_bytes`, `total_units` in ad-hoc mode) must print the same.
//! * `proftab convert FILE -o x.pb.gz` then `go tool pprof -top` equals `proftab top`, for
//!   every value type of the heap fixture.
//! * Every file of corpus-new/dhat reads; invalid inputs give their messages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use proftab::formats::{dhat, Format};
use support::cli::{have_tool, tool_stdout};
use support::corpus::{corpus_new, files_in, fixture};
use support::importers::{
    check_corpus_new, check_golden_fixtures, check_pprof_conversion_all_types, check_robustness,
    top_rows,
};
use support::text::check_invalid_fixtures;

fn fixtures() -> Vec<PathBuf> {
    files_in(&fixture("dhat"))
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".dhat.json"))
        .collect()
}

fn all_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(corpus_new("dhat"));
    v
}

#[test]
fn recorded_fixtures_read_to_their_golden_views() {
    check_golden_fixtures(Format::Dhat, &fixtures(), "dhat", ".dhat.json");
}

/// `name → (flat, cum)` as the judge script prints it.
fn judge(path: &std::path::Path) -> Option<BTreeMap<String, (f64, f64)>> {
    if !have_tool("python3", "dhat judge") {
        return None;
    }
    let text = tool_stdout(
        "python3",
        &[fixture("dhat/judge_tb.py").as_os_str(), path.as_os_str()],
    );
    Some(
        text.lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                (
                    f[0].to_owned(),
                    (f[1].parse().unwrap(), f[2].parse().unwrap()),
                )
            })
            .collect(),
    )
}

#[test]
fn top_matches_the_python_judge() {
    for path in all_inputs() {
        let Some(want) = judge(&path) else {
            return;
        };
        let got = top_rows(&path, None).1;
        assert!(!want.is_empty(), "{}", path.display());
        assert_eq!(got, want, "{}", path.display());
    }
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    check_pprof_conversion_all_types(Format::Dhat, &all_inputs());
}

#[test]
fn corpus_new_reads() {
    let n = check_corpus_new(Format::Dhat, "dhat");
    assert_eq!(n, corpus_new("dhat").len());
}

#[test]
fn invalid_inputs() {
    assert_eq!(check_invalid_fixtures(Format::Dhat, "dhat"), 9);
}

#[test]
fn detection_refuses_other_formats_and_prefixes_never_panic() {
    check_robustness(Format::Dhat, dhat::detect, &all_inputs());
}
