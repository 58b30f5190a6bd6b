//! The Chrome trace-event reader: node 20's own trace (golden), every file of corpus-new
//! `trace-event/` (speedscope's fixtures, totals checked against speedscope's semantics),
//! invalid inputs and `go tool pprof -top` of the converted profile.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::analysis::functions::function_table;
use proftab::formats::{trace_event, Format};
use support::corpus::fixture;
use support::profile::{assert_valid, read_path};
use support::text::{assert_other_formats_not_claimed, check_invalid_fixtures, truncation_sweep};

fn report(path: &std::path::Path) -> String {
    let parsed = read_path(Format::TraceEvent, path);
    assert_valid(&parsed.profile, &path.display().to_string());
    let p = &parsed.profile;
    let vt = p.value_type_index("time").expect("a time type");
    let mut text = String::new();
    for r in &function_table(p, vt, None).rows {
        text.push_str(&format!(
            "{}\t{}\t{}\n",
            r.name, r.self_value, r.total_value
        ));
    }
    for w in &parsed.warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    text
}

#[test]
fn golden_node_trace() {
    let path = fixture("trace_event/node_trace.json");
    support::golden::check(&fixture("trace_event/node_trace.expected"), &report(&path));
}

#[test]
fn corpus_new_every_file_reads() {
    let files = support::corpus::corpus_new("trace-event");
    assert!(!files.is_empty(), "corpus-new/trace-event missing");
    let mut all = String::new();
    for path in &files {
        assert!(
            trace_event::detect(&std::fs::read(path).unwrap()),
            "{}",
            path.display()
        );
        all.push_str(&format!("== {}\n", support::corpus::file_name(path)));
        all.push_str(&report(path));
    }
    support::golden::check(&fixture("trace_event/corpus-new.expected"), &all);
}

#[test]
fn simple_matches_speedscope_intervals() {
    // speedscope's simple.json: alpha 0–14, beta 1–13, gamma 2–7, epsilon 7–11 (µs).
    let path = support::corpus::corpus_new_dir().join("trace-event/speedscope-simple.json");
    if !path.exists() {
        eprintln!("SKIP: corpus-new missing");
        return;
    }
    let p = read_path(Format::TraceEvent, &path).profile;
    let vt = p.value_type_index("time").expect("a time type");
    let rows = function_table(&p, vt, None).rows;
    let get = |n: &str| {
        rows.iter()
            .find(|r| r.name == n)
            .map(|r| (r.self_value, r.total_value))
    };
    assert_eq!(get("alpha"), Some((2000.0, 14000.0)));
    assert_eq!(get("beta"), Some((3000.0, 12000.0)));
    assert_eq!(get("gamma"), Some((5000.0, 5000.0)));
    assert_eq!(get("epsilon"), Some((4000.0, 4000.0)));
}

#[test]
fn go_pprof_top_equals_proftab_top() {
    let path = fixture("trace_event/node_trace.json");
    let p = read_path(Format::TraceEvent, &path).profile;
    let out = support::corpus::scratch_dir("trace_event").join("node.pb.gz");
    support::text::assert_pprof_keeps_top(&p, &out, "time", "nanoseconds", "node_trace");
}

#[test]
fn invalid_inputs() {
    assert_eq!(check_invalid_fixtures(Format::TraceEvent, "trace-event"), 4);
}

#[test]
fn detection_claims_no_other_format() {
    assert_other_formats_not_claimed(trace_event::detect, "", &[]);
    truncation_sweep(
        Format::TraceEvent,
        &std::fs::read(fixture("trace_event/node_trace.json")).unwrap(),
    );
}
