//! FreeBSD `pmcstat -G` call graphs (`pmcstat`), judged by the file's own counts.
//!
//! * Every row's `[count]` must equal the sum of the samples whose stack (innermost first)
//!   starts with the row's path (chain head → … → row), and each function's self value equals
//!   the sum of the counts of the chain heads naming it (parsed here independently).
//! * The hand-written fixture (two events, a stack cut at a caller remainder, objects inherited
//!   from the callee; no FreeBSD here to record with) reads to its golden view; every file of
//!   corpus-new/pmcstat reads; `proftab convert -o x.pb.gz` gives `go tool pprof -top` equal
//!   to `proftab top`; invalid inputs give their messages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proftab::formats::{pmcstat, Format};
use proftab::model::{Profile, SampleIndex};
use support::corpus::{corpus_new, files_in, fixture};
use support::importers::{
    check_corpus_new, check_golden_fixtures, check_pprof_conversion_all_types, check_robustness,
};
use support::profile::read_path;
use support::text::check_invalid_fixtures;

fn fixtures() -> Vec<PathBuf> {
    files_in(&fixture("pmcstat"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect()
}

fn all_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(corpus_new("pmcstat"));
    v
}

#[test]
fn fixtures_read_to_their_golden_views() {
    check_golden_fixtures(Format::Pmcstat, &fixtures(), "pmcstat", ".txt");
}

/// Innermost-first names of sample `s`.
fn leaf_first(p: &Profile, s: usize) -> Vec<String> {
    p.frames_leaf_first(p.sample_stack(SampleIndex(s as u32)))
        .map(|l| p.frame_display_name(l))
        .collect()
}

/// (event, path from chain head, count) of every row, and per event the flat count per head.
type Rows = Vec<(String, Vec<String>, f64)>;

fn file_rows(path: &Path) -> (Rows, BTreeMap<(String, String), f64>) {
    let text = std::fs::read_to_string(path).unwrap();
    let (mut rows, mut heads) = (Vec::new(), BTreeMap::new());
    let (mut event, mut chain) = (String::new(), Vec::<String>::new());
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("@ ") {
            event = rest.split(" [").next().unwrap().to_owned();
            continue;
        }
        let Some((before, after)) = line.split_once("]") else {
            continue;
        };
        let Some((pct, count)) = before.split_once("%  [") else {
            continue;
        };
        let depth = pct.len() - pct.trim_start().len();
        let name = after.split(" @ ").next().unwrap().trim().to_owned();
        let count: f64 = count.parse().unwrap();
        chain.truncate(depth);
        chain.push(name.clone());
        if depth == 0 {
            *heads.entry((event.clone(), name)).or_insert(0.0) += count;
        }
        rows.push((event.clone(), chain.clone(), count));
    }
    (rows, heads)
}

#[test]
fn every_row_count_is_the_sum_of_its_samples() {
    for path in all_inputs() {
        let p = read_path(Format::Pmcstat, &path).profile;
        let (rows, heads) = file_rows(&path);
        assert!(!rows.is_empty());
        let stacks: Vec<Vec<String>> = (0..p.num_samples()).map(|s| leaf_first(&p, s)).collect();
        let value = |event: &str, s: usize| {
            let vt = p.value_type_index(event).unwrap();
            p.value_column(vt).unwrap().get(s).unwrap_or(0.0)
        };
        for (event, chain, count) in &rows {
            let sum: f64 = (0..p.num_samples())
                .filter(|&s| stacks[s].starts_with(chain))
                .map(|s| value(event, s))
                .sum();
            assert_eq!(sum, *count, "{}: {event} {chain:?}", path.display());
        }
        for ((event, head), count) in &heads {
            let flat: f64 = (0..p.num_samples())
                .filter(|&s| stacks[s][0] == *head)
                .map(|s| value(event, s))
                .sum();
            assert_eq!(flat, *count, "{}: flat of {head}", path.display());
        }
    }
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    check_pprof_conversion_all_types(Format::Pmcstat, &all_inputs());
}

#[test]
fn corpus_new_reads() {
    let n = check_corpus_new(Format::Pmcstat, "pmcstat");
    assert_eq!(n, corpus_new("pmcstat").len());
}

#[test]
fn invalid_inputs() {
    assert_eq!(check_invalid_fixtures(Format::Pmcstat, "pmcstat"), 5);
}

#[test]
fn detection_refuses_other_formats_and_prefixes_never_panic() {
    check_robustness(Format::Pmcstat, pmcstat::detect, &all_inputs());
}
