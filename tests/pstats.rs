//! Python cProfile / profile statistics (`pstats`), judged by Python's own `pstats` module.
//!
//! * The fixtures (recorded with `tests/fixtures/pstats/script/record.sh`) read to their golden
//!   views, and to what `tests/fixtures/pstats/expected.py` (pstats.Stats) made of them, stored
//!   as `<name>.expected.json`: per function (file, line, funcname) the self time equals
//!   `tottime` (to the nanosecond), the self calls `ncalls`, the columns `cc` and `ct`; the
//!   total time is `total_tt`, the calls `total_calls`; and the sandwich view (callers and
//!   callees of every function name, time and calls) equals `print_callers()` /
//!   `print_callees()`. When python3 is here, the expected files are recomputed and compared
//!   too, and the corpus-new files are judged the same way, live. The Python 2 file (which
//!   Python 3's marshal cannot load) is decoded for pstats by expected.py's own small Python 2
//!   marshal decoder, and also reads to its golden view.
//! * `proftab convert -o x.pb.gz` gives `go tool pprof -top` equal to `proftab top`; invalid
//!   inputs give their messages; no other detector claims a pstats file, nor ours theirs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use proftab::analysis::children::Children;
use proftab::analysis::sandwich::{callees, callers, WeighedTree};
use proftab::analysis::tree::ROOT;
use proftab::analysis::view::{View, ViewOptions};
use proftab::formats::{pstats, Format};
use proftab::model::{FunctionIndex, Profile, ValueTypeIndex, NO_INDEX};
use serde_json::Value;
use support::corpus::{corpus_new, file_name, files_in, fixture};
use support::importers::{
    check_corpus_new, check_golden_fixtures, check_pprof_conversion_all_types, check_robustness,
    golden_text,
};
use support::profile::read_path;
use support::text::{check_invalid_fixtures, total};

fn fixtures() -> Vec<PathBuf> {
    files_in(&fixture("pstats"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "prof"))
        .collect()
}

fn all_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(corpus_new("pstats"));
    v
}

/// `expected.py FILE` run by python3: `None` (after a SKIP line) when python3 is missing or
/// fails on the file.
fn python_expected(path: &Path) -> Option<Value> {
    let script = fixture("pstats/expected.py");
    let Ok(out) = Command::new("python3").arg(&script).arg(path).output() else {
        eprintln!("SKIP: pstats judge: python3 is not installed");
        return None;
    };
    if !out.status.success() {
        eprintln!(
            "SKIP: python3 pstats cannot load {}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        );
        return None;
    }
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn f64_of(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v} is not a number"))
}

/// Time and calls summed per function by the innermost frame of each sample.
fn self_per_function(p: &Profile) -> BTreeMap<u32, (f64, f64)> {
    let col = |name: &str| p.value_column(p.value_type_index(name).unwrap()).unwrap();
    let (time, calls) = (col("time"), col("calls"));
    let mut out: BTreeMap<u32, (f64, f64)> = BTreeMap::new();
    for (s, &stack) in p.samples.stack.iter().enumerate() {
        assert_ne!(stack, NO_INDEX, "a sample without frames");
        let loc = p.stacks.location.at(stack as usize);
        let f = p.location_function(loc).unwrap();
        let slot = out.entry(f.0).or_default();
        slot.0 += time.get(s).unwrap();
        slot.1 += calls.get(s).unwrap();
    }
    out
}

/// The function of an expected row `[file, line, funcname, name, …]`.
fn function_of(p: &Profile, row: &[Value]) -> FunctionIndex {
    let file = row[0].as_str().unwrap();
    let file = (file != "~" && !file.is_empty()).then_some(file);
    let line = row[1].as_i64().unwrap() as i32;
    let (name, raw) = (row[3].as_str().unwrap(), row[2].as_str().unwrap());
    let hits: Vec<usize> = (0..p.functions.name.len())
        .filter(|&i| {
            let f = &p.functions;
            p.str(f.name[i]) == name
                && p.str(f.system_name[i]) == raw
                && p.strings.get(f.filename[i]) == file
                && f.start_line[i] == line
        })
        .collect();
    assert_eq!(hits.len(), 1, "function {row:?}: {hits:?}");
    FunctionIndex(hits[0] as u32)
}

/// Per function: self time = tottime (ns), self calls = ncalls, columns cc and ct; totals.
fn check_functions(p: &Profile, doc: &Value, what: &str) {
    let own = self_per_function(p);
    let rows = doc["functions"].as_array().unwrap();
    let ext = &p.functions.ext;
    let cc = ext.dbl(pstats::PRIMITIVE_CALLS).unwrap();
    let ct = ext.dbl(pstats::CUMULATIVE_TIME).unwrap();
    for row in rows {
        let row = row.as_array().unwrap();
        let f = function_of(p, row);
        let (time, calls) = own.get(&f.0).copied().unwrap_or_default();
        let tt_ns = f64_of(&row[6]) * 1e9;
        assert!((time - tt_ns).abs() <= 0.51, "{what}: {row:?}: time {time}");
        assert_eq!(calls, f64_of(&row[5]), "{what}: {row:?}: calls");
        assert_eq!(cc[f.idx()], f64_of(&row[4]), "{what}: {row:?}: cc");
        assert_eq!(ct[f.idx()], f64_of(&row[7]), "{what}: {row:?}: ct");
    }
    let total_tt = f64_of(&doc["total_tt"]);
    let slack = 0.51 * rows.len() as f64;
    assert!(
        (total(p, "time") - total_tt * 1e9).abs() <= slack,
        "{what}: total time"
    );
    assert_eq!(total(p, "calls"), f64_of(&doc["total_calls"]), "{what}");
    let meta = |k: &str| p.meta_value(k).unwrap().parse::<f64>().unwrap();
    assert_eq!(meta("pstats.total_tt"), total_tt, "{what}: meta total_tt");
    assert_eq!(meta("pstats.total_calls"), f64_of(&doc["total_calls"]));
    assert_eq!(meta("pstats.primitive_calls"), f64_of(&doc["prim_calls"]));
}

/// The children of the sandwich tree's node for the frame: name → total weight (non-zero).
fn first_level(view: &View, t: &WeighedTree, frame: u32) -> BTreeMap<String, f64> {
    let kids = Children::of_tree(&t.tree);
    let top = kids
        .of(ROOT)
        .iter()
        .copied()
        .find(|&n| t.tree.frame(n as usize) == frame);
    let Some(top) = top else {
        return BTreeMap::new();
    };
    kids.of(top)
        .iter()
        .map(|&n| {
            let name = view.frames().name[t.tree.frame(n as usize) as usize].clone();
            (name, t.weights.total.at(n as usize))
        })
        .filter(|(_, w)| *w != 0.0)
        .collect()
}

/// pstats' pairs of one name (`[nc, tt]` per other name) as name → value of `column` (0: nc,
/// 1: tt in ns; a missing tt, the `profile` module's, is 0), non-zero only.
fn expected_pairs(doc: &Value, side: &str, name: &str, column: usize) -> BTreeMap<String, f64> {
    let Some(row) = doc[side][name].as_object() else {
        return BTreeMap::new();
    };
    row.iter()
        .map(|(k, v)| {
            let x = v[column].as_f64().unwrap_or(0.0);
            (k.clone(), if column == 1 { x * 1e9 } else { x })
        })
        .filter(|(_, w)| *w != 0.0)
        .collect()
}

/// Calls are equal; times within `slack` ns (each pair was rounded to the nanosecond).
fn assert_pairs_equal(
    got: &BTreeMap<String, f64>,
    want: &BTreeMap<String, f64>,
    slack: f64,
    what: &str,
) {
    let names = |m: &BTreeMap<String, f64>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(got), names(want), "{what}");
    for (k, w) in want {
        assert!(
            (got[k] - w).abs() <= slack,
            "{what}: {k}: {} vs {w}",
            got[k]
        );
    }
}

/// The sandwich of every function name, for time and for calls, against pstats' callers and
/// callees.
fn check_sandwich(p: &Profile, doc: &Value, what: &str) {
    let mut names: Vec<&str> = doc["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[3].as_str().unwrap())
        .collect();
    // A name's pairs are sums of pairs rounded to the nanosecond one by one.
    let slack_ns = 0.51 * names.len() as f64;
    names.sort_unstable();
    names.dedup();
    for (vt, column, slack) in [("time", 1, slack_ns), ("calls", 0, 0.0)] {
        let mut view = View::new(p.clone());
        view.set_options(ViewOptions {
            value_type: p.value_type_index(vt).unwrap(),
            ..ViewOptions::default()
        });
        for name in &names {
            let frame = view.frames().find(name).unwrap();
            let up = callers(view.tree(), view.weights(), frame);
            let down = callees(view.tree(), view.weights(), frame);
            let w = format!("{what}: {vt}: {name}");
            for (side, tree) in [("callers", &up), ("callees", &down)] {
                assert_pairs_equal(
                    &first_level(&view, tree, frame),
                    &expected_pairs(doc, side, name, column),
                    slack,
                    &format!("{w}: {side}"),
                );
            }
        }
    }
}

fn check_against_pstats(path: &Path, doc: &Value) {
    let what = path.display().to_string();
    let p = read_path(Format::Pstats, path).profile;
    check_functions(&p, doc, &what);
    check_sandwich(&p, doc, &what);
}

#[test]
fn fixtures_read_to_their_golden_views() {
    check_golden_fixtures(Format::Pstats, &fixtures(), "pstats", ".prof");
}

#[test]
fn fixtures_match_pstats() {
    for path in fixtures() {
        let json = path.with_extension("expected.json");
        let stored: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        check_against_pstats(&path, &stored);
        if let Some(live) = python_expected(&path) {
            assert_eq!(live, stored, "{} differs from python3's", json.display());
        }
    }
}

#[test]
fn corpus_new_matches_pstats() {
    let mut judged = 0;
    for path in corpus_new("pstats") {
        if let Some(doc) = python_expected(&path) {
            check_against_pstats(&path, &doc);
            judged += 1;
        }
    }
    eprintln!("pstats: {judged} corpus-new files judged by python3");
    if Command::new("python3").arg("--version").output().is_ok() {
        assert_eq!(judged, corpus_new("pstats").len(), "every file judged");
    }
}

#[test]
fn python2_file_reads_to_its_golden_view() {
    let Some(path) = corpus_new("pstats")
        .into_iter()
        .find(|p| file_name(p).ends_with("-py2.pstats"))
    else {
        return;
    };
    let parsed = read_path(Format::Pstats, &path);
    let mut text = golden_text(&parsed.profile);
    for w in &parsed.warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    support::golden::check(
        &fixture("pstats/corpus-hatchet-cprofile-cycle-py2.expected"),
        &text,
    );
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    check_pprof_conversion_all_types(Format::Pstats, &all_inputs());
}

#[test]
fn corpus_new_reads() {
    let n = check_corpus_new(Format::Pstats, "pstats");
    assert_eq!(n, corpus_new("pstats").len());
}

#[test]
fn invalid_inputs() {
    assert_eq!(check_invalid_fixtures(Format::Pstats, "pstats"), 10);
}

#[test]
fn detection_refuses_other_formats_and_prefixes_never_panic() {
    check_robustness(Format::Pstats, pstats::detect, &all_inputs());
}

#[test]
fn samples_are_pairs_or_single_functions() {
    // Every sample is a pair [caller, callee] or one function: two frames at most.
    for path in all_inputs() {
        let p = read_path(Format::Pstats, &path).profile;
        assert!(
            p.stack_depths().iter().all(|&d| d <= 2),
            "{}",
            path.display()
        );
        assert!(p.value_type_index("time") == Some(ValueTypeIndex(0)));
    }
}
