//! Apple Instruments deep copies (`instruments`), judged by the file's own total column.
//!
//! * Every row is one sample holding the node's self weight; the sum over the row's subtree
//!   must give the row's `Weight` / `Running Time` / `Bytes Used` cell as displayed (parsed
//!   here independently), within the display's rounding.
//! * Hand-written fixtures of the three layouts (Instruments 7.3.1 allocations, 13.4 cycles,
//!   16.0 time; no macOS here to record with) read to golden views; every file of
//!   corpus-new/instruments reads; `proftab convert -o x.pb.gz` gives `go tool pprof -top`
//!   equal to `proftab top`; invalid inputs give their messages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::{Path, PathBuf};

use proftab::formats::{instruments, Format};
use proftab::model::{Profile, SampleIndex, META_DEFAULT_TYPE};
use support::corpus::{corpus_new, files_in, fixture};
use support::importers::{
    check_corpus_new, check_golden_fixtures, check_pprof_conversion_all_types, check_robustness,
};
use support::profile::read_path;
use support::text::check_invalid_fixtures;

fn fixtures() -> Vec<PathBuf> {
    files_in(&fixture("instruments"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect()
}

fn all_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(corpus_new("instruments"));
    v
}

#[test]
fn fixtures_read_to_their_golden_views() {
    check_golden_fixtures(Format::Instruments, &fixtures(), "instruments", ".txt");
}

/// The first cell of a data line as (value in the type's unit, decimals shown, unit factor).
fn displayed_total(line: &str) -> (f64, f64) {
    let cell = line.split('\t').next().unwrap().trim();
    let mut parts = cell.split_whitespace();
    let first = parts.next().unwrap();
    let split = first
        .find(|c: char| c.is_alphabetic())
        .unwrap_or(first.len());
    let (number, mut unit) = first.split_at(split);
    if unit.is_empty() {
        unit = parts.next().unwrap();
    }
    let factor = match unit {
        "ms" => 1e6,
        "s" => 1e9,
        "Gc" => 1e9,
        "Mc" => 1e6,
        "Kc" => 1e3,
        "cycles" => 1.0,
        "MB" => 1048576.0,
        "KB" => 1024.0,
        "Bytes" => 1.0,
        other => panic!("unit {other}"),
    };
    let decimals = number.split('.').nth(1).map_or(0, str::len);
    let step = factor / 10f64.powi(decimals as i32);
    (number.parse::<f64>().unwrap() * factor, step)
}

/// Outermost-first frame names of sample `s`.
fn path_of(p: &Profile, s: usize) -> Vec<String> {
    let mut v: Vec<String> = p
        .frames_leaf_first(p.sample_stack(SampleIndex(s as u32)))
        .map(|l| p.frame_display_name(l))
        .collect();
    v.reverse();
    v
}

fn check_subtree_totals(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let rows: Vec<&str> = text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let p = read_path(Format::Instruments, path).profile;
    assert_eq!(p.num_samples(), rows.len(), "{}", path.display());
    let vt = p
        .value_type_index(p.meta_value(META_DEFAULT_TYPE).unwrap())
        .unwrap();
    let values = p.value_column(vt).unwrap();
    let paths: Vec<Vec<String>> = (0..p.num_samples()).map(|s| path_of(&p, s)).collect();
    for (i, line) in rows.iter().enumerate() {
        let (want, step) = displayed_total(line);
        // The samples of row i's subtree: the rows after it whose path extends its path, up to
        // the first that does not.
        let mut got = values.get(i).unwrap();
        for j in i + 1..rows.len() {
            if paths[j].len() <= paths[i].len() {
                break;
            }
            got += values.get(j).unwrap();
        }
        let subtree = (i + 1..rows.len())
            .take_while(|&j| paths[j].len() > paths[i].len())
            .count() as f64;
        let slack = step * (subtree + 1.0) + 1e-9 * want;
        assert!(
            (got - want).abs() <= slack,
            "{} line {}: subtree sum {got} vs displayed {want} (slack {slack})",
            path.display(),
            i + 2
        );
    }
}

#[test]
fn subtree_sums_equal_the_displayed_totals() {
    for path in all_inputs() {
        check_subtree_totals(&path);
    }
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    check_pprof_conversion_all_types(Format::Instruments, &all_inputs());
}

#[test]
fn corpus_new_reads() {
    let n = check_corpus_new(Format::Instruments, "instruments");
    assert_eq!(n, corpus_new("instruments").len());
}

#[test]
fn invalid_inputs() {
    assert_eq!(
        check_invalid_fixtures(Format::Instruments, "instruments"),
        7
    );
}

#[test]
fn detection_refuses_other_formats_and_prefixes_never_panic() {
    check_robustness(Format::Instruments, instruments::detect, &all_inputs());
}
