//! Safari Web Inspector timeline recordings (`safari`), judged by speedscope's semantics.
//!
//! * The hand-made fixture (`tests/fixtures/safari/small.safari.json`: the layout of Safari
//!   13's export, with anonymous functions on one line, a sample without frames and timeline
//!   records) and the corpus-new file (speedscope's sample) read to their golden views.
//! * Per function name, `proftab top`'s self and total time equal what speedscope's importer
//!   gives (each stack weighed by its `sampleDurations` entry), as computed independently by
//!   `tests/fixtures/safari/judge.cjs` (node).
//! * `proftab convert -o x.pb.gz` gives `go tool pprof -top` equal to `proftab top`; invalid
//!   inputs give their messages; other formats are not claimed; prefixes never panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::PathBuf;

use proftab::formats::{safari, Format};
use support::cli::{have_tool, tool_stdout};
use support::corpus::{corpus_new, fixture};
use support::importers::{
    check_corpus_new, check_golden_fixtures, check_pprof_conversion_all_types, check_robustness,
    top_rows,
};
use support::text::{check_invalid_fixtures, close};

fn fixtures() -> Vec<PathBuf> {
    vec![fixture("safari/small.safari.json")]
}

fn all_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(corpus_new("safari"));
    v
}

#[test]
fn fixtures_read_to_their_golden_views() {
    check_golden_fixtures(Format::Safari, &fixtures(), "safari", ".safari.json");
    let corpus = corpus_new("safari");
    if !corpus.is_empty() {
        check_golden_fixtures(Format::Safari, &corpus, "safari", ".html-recording.json");
    }
}

#[test]
fn top_matches_speedscope_semantics() {
    if !have_tool("node", "top_matches_speedscope_semantics") {
        return;
    }
    for path in all_inputs() {
        let text = tool_stdout(
            "node",
            &[fixture("safari/judge.cjs").as_os_str(), path.as_os_str()],
        );
        let (total, rows) = top_rows(&path, Some("time"));
        let mut names = 0;
        for line in text.lines() {
            let cols: Vec<&str> = line.split('\t').collect();
            if cols[0] == "TOTAL" {
                let want: f64 = cols[1].parse().unwrap();
                assert!(
                    close(total, want),
                    "{}: total {total} vs {want}",
                    path.display()
                );
                continue;
            }
            names += 1;
            let (want_self, want_total): (f64, f64) =
                (cols[1].parse().unwrap(), cols[2].parse().unwrap());
            let (got_self, got_total) = rows
                .get(cols[0])
                .copied()
                .unwrap_or_else(|| panic!("{}: no row {}", path.display(), cols[0]));
            assert!(
                close(got_self, want_self) && close(got_total, want_total),
                "{}: {}: proftab {got_self}/{got_total}, speedscope {want_self}/{want_total}",
                path.display(),
                cols[0]
            );
        }
        assert_eq!(names, rows.len(), "{}: function names", path.display());
    }
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    check_pprof_conversion_all_types(Format::Safari, &all_inputs());
}

#[test]
fn corpus_new_reads() {
    let n = check_corpus_new(Format::Safari, "safari");
    assert_eq!(n, corpus_new("safari").len());
}

#[test]
fn invalid_inputs() {
    assert_eq!(check_invalid_fixtures(Format::Safari, "safari"), 6);
}

#[test]
fn detection_refuses_other_formats_and_prefixes_never_panic() {
    check_robustness(Format::Safari, safari::detect, &all_inputs());
}
