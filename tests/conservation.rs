//! Conservation (issue #13): over every corpus file of the text formats where an independent
//! count is easy, the reader's total equals a second, naive parse written here: collapsed
//! (sum of each line's last count), perf-script (one sample per header line) and Rprof (one
//! sample per sample line). A sample a reader drops is a failure here, counted or not.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::{Path, PathBuf};

use proftab::formats::{self, Format, ReadOptions};
use support::corpus::{corpus_files, corpus_new};

/// The text of a corpus file: UTF-8, or UTF-16 with a BOM (two collapsed files).
fn text(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    let utf16 = |be: bool| {
        let units: Vec<u16> = bytes[2..]
            .chunks_exact(2)
            .map(|c| match be {
                true => u16::from_be_bytes([c[0], c[1]]),
                false => u16::from_le_bytes([c[0], c[1]]),
            })
            .collect();
        String::from_utf16_lossy(&units)
    };
    match bytes.get(..2) {
        Some([0xff, 0xfe]) => utf16(false),
        Some([0xfe, 0xff]) => utf16(true),
        _ => String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// The reader's total of value type `name` over all samples.
fn reader_total(format: Format, path: &Path, name: &str) -> f64 {
    let bytes = std::fs::read(path).unwrap();
    let parsed = formats::read_as(format, &bytes, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let p = &parsed.profile;
    let col = p.value_column(p.value_type_index(name).unwrap()).unwrap();
    (0..p.num_samples()).filter_map(|s| col.get(s)).sum()
}

/// Checks every file of `files` and names each mismatch.
fn check(format: Format, files: &[PathBuf], name: &str, naive: fn(&str) -> f64) {
    let mut wrong = Vec::new();
    for path in files {
        let expected = naive(&text(path));
        let got = reader_total(format, path, name);
        println!("{}: naive {expected}, reader {got}", path.display());
        if (expected - got).abs() > 1e-9 * expected.abs().max(1.0) {
            wrong.push(format!(
                "{}: naive {expected}, reader {got}",
                path.display()
            ));
        }
    }
    assert!(wrong.is_empty(), "totals differ:\n{}", wrong.join("\n"));
}

/// flamegraph.pl's rule: `^(.*)\s+?(\d+(?:\.\d*)?)$`, the last count of each line.
fn collapsed_naive(text: &str) -> f64 {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim_start().starts_with('#') && !l.contains('\0'))
        .filter_map(|l| {
            let (_, count) = l.rsplit_once([' ', '\t'])?;
            let digits = count.split_once('.').map_or(count, |(i, _)| i);
            let fits = !digits.is_empty() && count.chars().all(|c| c.is_ascii_digit() || c == '.');
            fits.then(|| count.parse::<f64>().ok()).flatten()
        })
        .sum()
}

/// One sample per header: a line that is neither indented, blank nor a `#` comment.
fn perf_script_naive(text: &str) -> f64 {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with([' ', '\t', '#']))
        .count() as f64
}

/// One sample per line after the header line, except `#File` lines.
fn rprof_naive(text: &str) -> f64 {
    text.lines()
        .skip(1)
        .filter(|l| !l.starts_with("#File "))
        .count() as f64
}

#[test]
fn collapsed_totals_are_the_naive_sums() {
    let files = corpus_files("collapsed");
    assert!(!files.is_empty(), "no collapsed corpus");
    check(Format::Collapsed, &files, "samples", collapsed_naive);
}

#[test]
fn perf_script_keeps_one_sample_per_header() {
    check(
        Format::PerfScript,
        &corpus_new("perf-script"),
        "samples",
        perf_script_naive,
    );
}

#[test]
fn rprof_keeps_one_sample_per_line() {
    check(
        Format::Rprof,
        &corpus_files("rprof"),
        "samples",
        rprof_naive,
    );
}

/// The py-spy line of the issue: ` 108` is 108 samples of the root alone, counted by both.
#[test]
fn py_spy_root_only_lines_are_counted() {
    let text = "<module> (run.py:3);main (run.py:9) 13780\n 108\n";
    assert_eq!(collapsed_naive(text), 13_888.0);
    let parsed = formats::read_any(text.as_bytes(), &ReadOptions::default()).unwrap();
    let p = &parsed.profile;
    let col = p
        .value_column(p.value_type_index("samples").unwrap())
        .unwrap();
    let total: f64 = (0..p.num_samples()).filter_map(|s| col.get(s)).sum();
    assert_eq!(total, 13_888.0);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
}
