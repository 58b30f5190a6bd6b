//! Papyrus profiling logs (`papyrus`), judged by the log's own PUSH/POP times.
//!
//! * Pairing each `POP` with the latest open `PUSH` of the same function on the same stack
//!   (independently, here) gives each call's duration; their sum per function must be the
//!   total column of `proftab top` (functions do not recurse in these logs).
//! * The hand-written fixture (nested calls on two stacks, a queued event, a call open at the
//!   end; no Skyrim here to record with) reads to its golden view; every file of
//!   corpus-new/papyrus reads; `proftab convert -o x.pb.gz` gives `go tool pprof -top` equal to
//!   `proftab top`; invalid inputs give their messages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proftab::formats::{papyrus, Format};
use support::corpus::{corpus_new, files_in, fixture};
use support::importers::{
    check_corpus_new, check_golden_fixtures, check_pprof_conversion_all_types, check_robustness,
    top_rows,
};
use support::text::check_invalid_fixtures;

fn fixtures() -> Vec<PathBuf> {
    files_in(&fixture("papyrus"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect()
}

fn all_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(corpus_new("papyrus"));
    v
}

#[test]
fn fixtures_read_to_their_golden_views() {
    check_golden_fixtures(Format::Papyrus, &fixtures(), "papyrus", ".log");
}

/// Inclusive nanoseconds per function from PUSH/POP pairs; calls open at the end run to the
/// last event.
fn paired_durations(path: &Path) -> BTreeMap<String, f64> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut open: Vec<(String, String, i64)> = Vec::new();
    let mut out = BTreeMap::new();
    let mut last = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(':').collect();
        if f.len() < 3 {
            continue;
        }
        let time: i64 = f[0].parse().unwrap();
        last = time;
        let Some(function) = f.last().filter(|_| f.len() >= 6) else {
            continue;
        };
        let (stack, function) = (f[2].to_owned(), function.to_string());
        match f[1] {
            "PUSH" => open.push((stack, function, time)),
            "POP" => {
                if let Some(i) = open
                    .iter()
                    .rposition(|(s, n, _)| *s == stack && *n == function)
                {
                    let (_, name, start) = open.remove(i);
                    *out.entry(name).or_insert(0.0) += (time - start) as f64 * 1e6;
                }
            }
            _ => {}
        }
    }
    for (_, name, start) in open {
        *out.entry(name).or_insert(0.0) += (last - start) as f64 * 1e6;
    }
    out.retain(|_, v| *v != 0.0);
    out
}

#[test]
fn function_totals_equal_the_paired_call_durations() {
    for path in all_inputs() {
        let want = paired_durations(&path);
        let got: BTreeMap<String, f64> = top_rows(&path, None)
            .1
            .into_iter()
            .map(|(n, (_, t))| (n, t))
            .collect();
        assert_eq!(got, want, "{}", path.display());
    }
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    check_pprof_conversion_all_types(Format::Papyrus, &all_inputs());
}

#[test]
fn corpus_new_reads() {
    let n = check_corpus_new(Format::Papyrus, "papyrus");
    assert_eq!(n, corpus_new("papyrus").len());
}

#[test]
fn invalid_inputs() {
    assert_eq!(check_invalid_fixtures(Format::Papyrus, "papyrus"), 4);
}

#[test]
fn detection_refuses_other_formats_and_prefixes_never_panic() {
    check_robustness(Format::Papyrus, papyrus::detect, &all_inputs());
}
