//! Rprof → proftab → Rprof, judged by R: `summaryRprof()` must give the same `by.self`,
//! `by.total`, `by.line`, `sample.interval` and `sampling.time` for the original and the
//! rewrite (with `memory = "both"` and `lines = "show"` where the file has them), and proftab's
//! function table must agree with `summaryRprof()`'s `by.total`. Skips (visibly) without R.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proftab::analysis::functions::{function_table, FrameKey};
use proftab::formats::{rprof, ReadOptions, WriteOptions};
use proftab::model::{Profile, ProfileBuilder};

/// One input of the comparison.
struct Case {
    id: String,
    original: PathBuf,
    /// Compare against the original with the damage the reader reports removed.
    repair: bool,
}

fn cases(scratch: &Path) -> Vec<Case> {
    let mut cases: Vec<Case> = support::r::valid_files()
        .into_iter()
        .map(|p| Case {
            id: support::corpus::file_name(&p),
            original: p,
            repair: false,
        })
        .collect();
    cases.extend(
        support::r::damaged_corpus_files()
            .into_iter()
            .map(|p| Case {
                id: support::corpus::file_name(&p),
                original: p,
                repair: true,
            }),
    );
    // A Windows copy of the combined fixture: CRLF line ends (R's readLines accepts them).
    let lf = std::fs::read(support::corpus::fixture("rprof").join("combined.out")).unwrap();
    let crlf = String::from_utf8(lf).unwrap().replace('\n', "\r\n");
    let crlf_path = scratch.join("combined-crlf.out");
    std::fs::write(&crlf_path, crlf).unwrap();
    cases.push(Case {
        id: "combined-crlf.out".to_owned(),
        original: crlf_path,
        repair: false,
    });
    // A profile that never was Rprof (pprof-like: files, lines, counts above 1), written by
    // proftab: R must read it and agree with proftab's function table.
    let foreign_path = scratch.join("foreign.out");
    let written = rprof::write(&foreign_profile(), &WriteOptions::default()).unwrap();
    std::fs::write(&foreign_path, written.bytes).unwrap();
    cases.push(Case {
        id: "foreign.out".to_owned(),
        original: foreign_path,
        repair: false,
    });
    cases
}

/// Three call paths over four functions in two files, with counts 1 to 5.
fn foreign_profile() -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("pprof", Some("cpu.pb.gz"), None);
    let n = b.value_type("samples", "count");
    let cpu = b.value_type("cpu", "nanoseconds");
    let loc = |b: &mut ProfileBuilder, name: &str, file: &str, line: i32| {
        let f = b.function_named(name, Some(file));
        b.location(Some(f), line)
    };
    let main = loc(&mut b, "main", "main.go", 10);
    let parse = loc(&mut b, "parse", "parse.go", 33);
    let scan = loc(&mut b, "scan", "parse.go", 80);
    let alloc = loc(&mut b, "runtime.mallocgc", "malloc.go", 900);
    let paths = [
        vec![scan, parse, main],
        vec![alloc, scan, parse, main],
        vec![parse, main],
    ];
    for (i, path) in paths.iter().enumerate() {
        let stack = b.stack_leaf_first(path);
        let count = (2 * i + 1) as f64;
        b.add_sample_with_values(src, stack, &[(n, count), (cpu, count * 10e6)]);
    }
    b.build().unwrap()
}

/// Name, self count, total count and total `memory_increase` bytes per function, as TSV.
fn function_table_tsv(p: &Profile) -> String {
    let samples = p.value_type_index("samples").unwrap();
    let counts = function_table(p, samples, None);
    let memory = p
        .value_type_index("memory_increase")
        .map(|vt| function_table(p, vt, None));
    let mem_of = |key: FrameKey| {
        memory.as_ref().map_or("NA".to_owned(), |m| {
            // Functions only in samples without memory increase have no row.
            let total = m
                .rows
                .iter()
                .find(|r| r.key == key)
                .map_or(0.0, |r| r.total_value);
            format!("{total}")
        })
    };
    let mut out = String::new();
    for r in counts
        .rows
        .iter()
        .filter(|r| support::r::comparable_name(&r.name))
    {
        writeln!(
            out,
            "{}\t{}\t{}\t{}",
            r.name,
            r.self_value,
            r.total_value,
            mem_of(r.key)
        )
        .unwrap();
    }
    out
}

/// Round-trips every case into `scratch` and returns the manifest for the R script.
fn prepare(scratch: &Path, cases: &[Case]) -> String {
    let mut manifest = String::new();
    for (i, case) in cases.iter().enumerate() {
        let bytes = std::fs::read(&case.original).unwrap();
        let parsed = rprof::read(&bytes, &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", case.id));
        let written = rprof::write(&parsed.profile, &WriteOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", case.id));
        let roundtrip = scratch.join(format!("{i}-roundtrip.out"));
        std::fs::write(&roundtrip, &written.bytes).unwrap();
        let table = scratch.join(format!("{i}-table.tsv"));
        std::fs::write(&table, function_table_tsv(&parsed.profile)).unwrap();
        manifest.push_str(&support::r::manifest_line(
            &case.id,
            &case.original,
            Some(&roundtrip),
            case.repair,
            &table,
        ));
    }
    manifest
}

#[test]
fn summary_rprof_agrees_after_round_trip() {
    if !support::cli::have_tool("Rscript", "rprof fidelity") {
        return;
    }
    let scratch = support::corpus::scratch_dir("rprof-fidelity");
    let cases = cases(&scratch);
    let results = support::r::run_r_compare(&scratch, &prepare(&scratch, &cases));
    support::r::assert_results_ok(&results, true, "summaryRprof disagrees");
    for case in &cases {
        let of_case: Vec<&String> = results
            .iter()
            .filter(|l| l.starts_with(&format!("RESULT {} ", case.id)))
            .collect();
        assert!(
            of_case.len() >= 2,
            "{}: R reported {} checks",
            case.id,
            of_case.len()
        );
        assert!(
            of_case.iter().any(|l| l.contains(" function-table OK ")),
            "{}: function table not confirmed",
            case.id
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
