//! GHC `-pj` JSON cost-centre profiles (`ghc-prof`), judged by GHC's own totals.
//!
//! * The ticks and allocations summed over the samples equal the file's `total_ticks` and
//!   `total_alloc`, and the individual ticks summed per cost centre (`Module.label`, from the
//!   JSON, here) equal the self column of `proftab top --type ticks`.
//! * The hand-written fixture (no GHC here to record with) reads to its golden view; the
//!   corpus-new file reads; `proftab convert -o x.pb.gz` gives `go tool pprof -top` equal to
//!   `proftab top`; invalid inputs give their messages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use proftab::formats::{ghc_prof, Format};
use support::corpus::{corpus_new, files_in, fixture};
use support::importers::{
    check_corpus_new, check_golden_fixtures, check_pprof_conversion_all_types, check_robustness,
    top_rows,
};
use support::profile::read_path;
use support::text::{check_invalid_fixtures, total};

fn fixtures() -> Vec<PathBuf> {
    files_in(&fixture("ghc-prof"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "prof"))
        .collect()
}

fn all_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(corpus_new("ghc-prof"));
    v
}

#[test]
fn fixtures_read_to_their_golden_views() {
    check_golden_fixtures(Format::GhcProf, &fixtures(), "ghc-prof", ".prof");
}

#[test]
fn totals_and_self_ticks_equal_ghcs() {
    for path in all_inputs() {
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let p = read_path(Format::GhcProf, &path).profile;
        assert_eq!(total(&p, "ticks"), doc["total_ticks"].as_f64().unwrap());
        assert_eq!(total(&p, "alloc"), doc["total_alloc"].as_f64().unwrap());
        let names: BTreeMap<u64, String> = doc["cost_centres"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let name = format!(
                    "{}.{}",
                    c["module"].as_str().unwrap(),
                    c["label"].as_str().unwrap()
                );
                (c["id"].as_u64().unwrap(), name)
            })
            .collect();
        let mut want: BTreeMap<String, f64> = BTreeMap::new();
        let mut todo = vec![&doc["profile"]];
        while let Some(node) = todo.pop() {
            let ticks = node["ticks"].as_f64().unwrap();
            if ticks != 0.0 {
                *want
                    .entry(names[&node["id"].as_u64().unwrap()].clone())
                    .or_default() += ticks;
            }
            todo.extend(node["children"].as_array().unwrap());
        }
        let got: BTreeMap<String, f64> = top_rows(&path, Some("ticks"))
            .1
            .into_iter()
            .filter(|(_, (s, _))| *s != 0.0)
            .map(|(n, (s, _))| (n, s))
            .collect();
        assert_eq!(got, want, "{}", path.display());
    }
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    check_pprof_conversion_all_types(Format::GhcProf, &all_inputs());
}

#[test]
fn corpus_new_reads() {
    let n = check_corpus_new(Format::GhcProf, "ghc-prof");
    assert_eq!(n, corpus_new("ghc-prof").len());
}

#[test]
fn invalid_inputs() {
    assert_eq!(check_invalid_fixtures(Format::GhcProf, "ghc-prof"), 5);
}

#[test]
fn detection_refuses_other_formats_and_prefixes_never_panic() {
    check_robustness(Format::GhcProf, ghc_prof::detect, &all_inputs());
}
