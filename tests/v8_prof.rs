//! V8 `--prof` logs preprocessed to JSON (`v8-prof`), judged by V8's own tick processor.
//!
//! * The recorded fixture (`tests/fixtures/v8-prof/record.sh`, node 20) reads to its golden
//!   view, and per JS function the self samples of `proftab top` equal the ticks of the
//!   `[JavaScript]` section of `node --prof-process` (summed over the function's code objects,
//!   `*` optimized, `^` Sparkplug, `~` interpreted); likewise the `[C++]` and `[Shared libraries]` lines and
//!   the total tick count. With node present, the same check runs on a fresh recording.
//! * The corpus-new file reads; `proftab convert -o x.pb.gz` gives `go tool pprof -top` equal
//!   to `proftab top`; invalid inputs give their messages; other formats are not claimed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use proftab::formats::{v8_prof, Format};
use support::cli::have_tool;
use support::corpus::{corpus_new, fixture, scratch_dir};
use support::importers::{
    check_corpus_new, check_golden_fixtures, check_pprof_conversion_all_types, check_robustness,
    top_rows,
};
use support::text::check_invalid_fixtures;

fn fixtures() -> Vec<PathBuf> {
    vec![fixture("v8-prof/work.v8prof.json")]
}

fn all_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(corpus_new("v8-prof"));
    v
}

#[test]
fn fixtures_read_to_their_golden_views() {
    check_golden_fixtures(Format::V8Prof, &fixtures(), "v8-prof", ".v8prof.json");
}

/// What the tick processor's report says: total ticks, and ticks per JS function (marker
/// stripped, anonymous functions named as proftab names them) and per shared library.
fn tick_processor_report(text: &str) -> (f64, BTreeMap<String, f64>) {
    let total: f64 = text
        .split_once(", (")
        .and_then(|(_, rest)| rest.split_once(" ticks"))
        .map(|(n, _)| n.parse().unwrap())
        .expect("no tick total in the report");
    let mut want = BTreeMap::new();
    let mut section = "";
    for line in text.lines() {
        if line.starts_with(" [") {
            section = line.trim();
            continue;
        }
        let mut cols = line.split_whitespace();
        let Some(ticks) = cols.next().and_then(|t| t.parse::<f64>().ok()) else {
            continue;
        };
        let name = match section {
            "[JavaScript]:" => {
                let Some(js) = line.split_once("JS: ").map(|(_, n)| n) else {
                    continue;
                };
                let js = js.trim_start_matches(['*', '^', '~', '+']);
                let (name, place) = js.rsplit_once(' ').unwrap();
                if name.is_empty() {
                    let (file_line, _col) = place.rsplit_once(':').unwrap();
                    format!("(anonymous {file_line})")
                } else {
                    name.to_owned()
                }
            }
            "[Shared libraries]:" => line.split_whitespace().last().unwrap().to_owned(),
            // `ticks total nonlib name`: the name is the rest of the line after three columns.
            "[C++]:" => cpp_name(line),
            _ => continue,
        };
        *want.entry(name).or_default() += ticks;
    }
    (total, want)
}

/// The name of a `[C++]` line: what follows the ticks and the two percentages.
fn cpp_name(line: &str) -> String {
    let mut rest = line.trim_start();
    for _ in 0..3 {
        let end = rest.find(' ').unwrap_or(rest.len());
        rest = rest[end..].trim_start();
    }
    rest.to_owned()
}

/// proftab's self samples for the names of the tick processor's report equal its ticks.
fn check_against_tick_processor(json: &Path, report: &Path) {
    let (total, want) = tick_processor_report(&std::fs::read_to_string(report).unwrap());
    assert!(!want.is_empty(), "{}: nothing to compare", report.display());
    let (got_total, rows) = top_rows(json, Some("samples"));
    assert_eq!(got_total, total, "{}: total ticks", json.display());
    let got: BTreeMap<String, f64> = want
        .keys()
        .map(|name| (name.clone(), rows.get(name).map_or(0.0, |r| r.0)))
        .collect();
    assert_eq!(got, want, "{}", json.display());
}

#[test]
fn self_ticks_equal_the_tick_processors() {
    check_against_tick_processor(
        &fixture("v8-prof/work.v8prof.json"),
        &fixture("v8-prof/work.prof.txt"),
    );
}

#[test]
fn fresh_recording_matches_the_tick_processor() {
    if !have_tool("node", "fresh_recording_matches_the_tick_processor") {
        return;
    }
    let dir = scratch_dir("v8-prof-record");
    std::fs::copy(fixture("v8-prof/work.js"), dir.join("work.js")).unwrap();
    let node = |args: &[&str]| {
        let out = Command::new("node")
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "node {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    node(&["--prof", "--no-log-source-code", "work.js"]);
    let log = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("isolate") && n.ends_with("-v8.log"))
        .expect("node --prof wrote no isolate log");
    let json = dir.join("fresh.v8prof.json");
    let report = dir.join("fresh.prof.txt");
    std::fs::write(&json, node(&["--prof-process", "--preprocess", &log])).unwrap();
    std::fs::write(&report, node(&["--prof-process", &log])).unwrap();
    check_against_tick_processor(&json, &report);
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    check_pprof_conversion_all_types(Format::V8Prof, &all_inputs());
}

#[test]
fn corpus_new_reads() {
    let n = check_corpus_new(Format::V8Prof, "v8-prof");
    assert_eq!(n, corpus_new("v8-prof").len());
}

#[test]
fn invalid_inputs() {
    assert_eq!(check_invalid_fixtures(Format::V8Prof, "v8-prof"), 8);
}

#[test]
fn detection_refuses_other_formats_and_prefixes_never_panic() {
    check_robustness(Format::V8Prof, v8_prof::detect, &all_inputs());
}
