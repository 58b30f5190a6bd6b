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
use std::process::Command;

use proftab::formats::{dhat, Format};
use support::cli::{have_tool, run_json};
use support::corpus::{corpus_new, file_name, files_in, fixture};
use support::golden;
use support::importers::{check_corpus_new, check_pprof_conversion, golden_text, outcome_text};
use support::profile::read_path;
use support::text::{assert_detected, assert_other_formats_not_claimed, truncation_sweep};

fn fixtures() -> Vec<PathBuf> {
    files_in(&fixture("dhat"))
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".dhat.json"))
        .collect()
}

#[test]
fn recorded_fixtures_read_to_their_golden_views() {
    let files = fixtures();
    assert_eq!(files.len(), 3);
    for path in files {
        assert_detected(Format::Dhat, &path);
        let parsed = read_path(Format::Dhat, &path);
        let mut text = golden_text(&parsed.profile);
        for w in &parsed.warnings {
            text.push_str(&format!("warning: {w}\n"));
        }
        let name = file_name(&path).replace(".dhat.json", ".expected");
        golden::check(&fixture("dhat").join(name), &text);
    }
}

/// `name → (flat, cum)` as the judge script prints it.
fn judge(path: &std::path::Path) -> Option<BTreeMap<String, (f64, f64)>> {
    if !have_tool("python3", "dhat judge") {
        return None;
    }
    let out = Command::new("python3")
        .arg(fixture("dhat/judge_tb.py"))
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
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
    let mut files = fixtures();
    files.extend(corpus_new("dhat"));
    for path in files {
        let Some(want) = judge(&path) else {
            return;
        };
        let top = run_json(
            env!("CARGO_BIN_EXE_proftab"),
            &["top", path.to_str().unwrap(), "--json"],
        );
        let got: BTreeMap<String, (f64, f64)> = top["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let name = r["name"].as_str().unwrap().to_owned();
                (
                    name,
                    (r["self"].as_f64().unwrap(), r["total"].as_f64().unwrap()),
                )
            })
            .collect();
        assert!(!want.is_empty(), "{}", path.display());
        assert_eq!(got, want, "{}", path.display());
    }
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    let heap = fixture("dhat/heap.dhat.json");
    let p = read_path(Format::Dhat, &heap).profile;
    for i in 0..p.values.len() {
        let (t, _) = p.value_type_names(proftab::model::ValueTypeIndex(i as u32));
        if !check_pprof_conversion(&heap, t) {
            return;
        }
    }
    for path in corpus_new("dhat").into_iter().chain(fixtures()) {
        if !check_pprof_conversion(
            &path,
            if file_name(&path).starts_with("adhoc") {
                "total_units"
            } else {
                "total_bytes"
            },
        ) {
            return;
        }
    }
}

#[test]
fn corpus_new_reads() {
    let n = check_corpus_new(Format::Dhat, "dhat");
    assert_eq!(n, corpus_new("dhat").len());
}

#[test]
fn detection_refuses_other_formats() {
    assert_other_formats_not_claimed(dhat::detect, "", &[]);
}

#[test]
fn invalid_inputs() {
    let dir = fixture("invalid/dhat");
    let n = golden::check_cases(&dir, golden::check, |_, bytes| {
        outcome_text(Format::Dhat, bytes)
    });
    assert_eq!(n, 7);
}

#[test]
fn truncated_fixtures_never_panic() {
    for path in fixtures() {
        truncation_sweep(Format::Dhat, &std::fs::read(path).unwrap());
    }
}
