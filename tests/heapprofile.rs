//! The `.heapprofile` reader: node 20's own recording (golden), the corpus-new folder, invalid
//! inputs, the node judge (`tests/fixtures/heapprofile/judge.cjs`, selfSize per function) and
//! `go tool pprof -top` of the converted profile.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use proftab::analysis::functions::function_table;
use proftab::formats::{heapprofile, Format};
use support::corpus::fixture;
use support::profile::{assert_valid, read_path};
use support::text::{assert_other_formats_not_claimed, check_invalid_fixtures, truncation_sweep};

fn self_bytes(path: &Path) -> BTreeMap<String, f64> {
    let p = read_path(Format::Heapprofile, path).profile;
    let vt = p.value_type_index("space").expect("a space type");
    function_table(&p, vt, None)
        .rows
        .iter()
        .filter(|r| r.self_value != 0.0)
        .map(|r| (r.name.clone(), r.self_value))
        .collect()
}

#[test]
fn golden_node_recording() {
    let path = fixture("heapprofile/alloc.heapprofile");
    let parsed = read_path(Format::Heapprofile, &path);
    assert_valid(&parsed.profile, "alloc");
    let mut text = String::new();
    for (name, bytes) in self_bytes(&path) {
        text.push_str(&format!("{name}\t{bytes}\n"));
    }
    for w in &parsed.warnings {
        text.push_str(&format!("warning: {w}\n"));
    }
    support::golden::check(&fixture("heapprofile/alloc.expected"), &text);
}

/// The judge's self bytes per function, or `None` (after `SKIP:`) without node.
fn judge(path: &Path) -> Option<BTreeMap<String, f64>> {
    let Ok(out) = std::process::Command::new("node")
        .arg(fixture("heapprofile/judge.cjs"))
        .arg(path)
        .output()
    else {
        eprintln!("SKIP: node not found; the judge did not run");
        return None;
    };
    assert!(out.status.success(), "judge failed on {}", path.display());
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| l.rsplit_once('\t'))
            .map(|(n, v)| (n.to_owned(), v.parse().unwrap()))
            .collect(),
    )
}

#[test]
fn corpus_new_reads() {
    let files = support::corpus::corpus_new("heapprofile");
    assert!(!files.is_empty(), "corpus-new/heapprofile missing");
    for path in files {
        assert!(heapprofile::detect(&std::fs::read(&path).unwrap()));
        assert_eq!(
            proftab::formats::detect(&std::fs::read(&path).unwrap()),
            Some(Format::Heapprofile)
        );
        let parsed = read_path(Format::Heapprofile, &path);
        assert_valid(&parsed.profile, &path.display().to_string());
        support::text::assert_kept_through_tables_json(
            &parsed.profile,
            &path.display().to_string(),
        );
    }
}

#[test]
fn self_bytes_equal_the_node_judge() {
    let mut files = support::corpus::corpus_new("heapprofile");
    files.push(fixture("heapprofile/alloc.heapprofile"));
    for path in files {
        let Some(want) = judge(&path) else {
            return;
        };
        assert!(!want.is_empty());
        assert_eq!(self_bytes(&path), want, "{}", path.display());
    }
}

#[test]
fn go_pprof_top_equals_proftab_top() {
    let path = fixture("heapprofile/alloc.heapprofile");
    let p = read_path(Format::Heapprofile, &path).profile;
    let out = support::corpus::scratch_dir("heapprofile").join("alloc.pb.gz");
    support::text::assert_pprof_keeps_top(&p, &out, "space", "bytes", "alloc.heapprofile");
}

#[test]
fn invalid_inputs() {
    assert_eq!(
        check_invalid_fixtures(Format::Heapprofile, "heapprofile"),
        3
    );
}

#[test]
fn detection_claims_no_other_format() {
    assert_other_formats_not_claimed(heapprofile::detect, "", &[]);
    truncation_sweep(
        Format::Heapprofile,
        &std::fs::read(fixture("heapprofile/alloc.heapprofile")).unwrap(),
    );
}
