//! R as a judge of Rprof results: the valid and damaged Rprof inputs, running the R scripts
//! beside this module (`rprof_compare.R`, `rprof_by_line.R`) and the table format the compare
//! script reads.
//!
//! Scripts print their verdicts as lines on stdout; a failing `Rscript` fails the test with
//! its stderr. Callers check [`super::cli::have_tool`] first, so a machine without R skips.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::corpus::{corpus, file_name, files_in, fixture, scratch_dir};

/// Valid Rprof files: the corpus's `rprof/` and this crate's recorded fixtures.
pub fn valid_files() -> Vec<PathBuf> {
    let mut v = files_in(&corpus().join("rprof"));
    v.extend(
        files_in(&fixture("rprof"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "out")),
    );
    v
}

/// The corpus's damaged Rprof files (`invalid/rprof-*`).
pub fn damaged_corpus_files() -> Vec<PathBuf> {
    files_in(&corpus().join("invalid"))
        .into_iter()
        .filter(|p| file_name(p).starts_with("rprof-"))
        .collect()
}

/// stdout of `Rscript tests/support/<script> ARGS`, which must succeed.
pub fn run_rscript(script: &str, args: &[impl AsRef<OsStr>]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support")
        .join(script);
    let out = Command::new("Rscript")
        .arg(script)
        .args(args)
        .output()
        .expect("run Rscript");
    assert!(
        out.status.success(),
        "Rscript failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One line of the R script's manifest (see `rprof_compare.R`).
pub fn manifest_line(
    id: &str,
    original: &Path,
    roundtrip: Option<&Path>,
    repair: bool,
    table: &Path,
) -> String {
    let (roundtrip, checks) = match roundtrip {
        Some(r) => (r.display().to_string(), "all"),
        None => ("-".to_owned(), "table"),
    };
    format!(
        "{id}\t{}\t{roundtrip}\t{}\t{}\t{checks}\n",
        original.display(),
        u8::from(repair),
        table.display()
    )
}

/// Runs `rprof_compare.R` on `manifest` (written into `scratch`), prints its `RESULT` lines
/// and returns them.
pub fn run_r_compare(scratch: &Path, manifest: &str) -> Vec<String> {
    let manifest_path = scratch.join("manifest.tsv");
    std::fs::write(&manifest_path, manifest).expect("write manifest");
    let results: Vec<String> = run_rscript("rprof_compare.R", &[&manifest_path])
        .lines()
        .filter(|l| l.starts_with("RESULT "))
        .map(str::to_owned)
        .collect();
    for line in &results {
        eprintln!("{line}");
    }
    results
}

/// Asserts that every result is `OK` (or, where allowed, `BOTH-ERROR`: R fails alike on the
/// original and the rewrite).
pub fn assert_results_ok(results: &[String], allow_both_error: bool, what: &str) {
    let failures: Vec<&String> = results
        .iter()
        .filter(|l| !(l.contains(" OK ") || allow_both_error && l.contains(" BOTH-ERROR ")))
        .collect();
    assert!(failures.is_empty(), "{what}:\n{failures:#?}");
}

/// True when a function name can be judged against `summaryRprof()`: it splits lines at
/// spaces (and R reads a line break as a new sample), and the table files are tab-separated.
pub fn comparable_name(name: &str) -> bool {
    !name.contains([' ', '\t', '\n', '\r'])
}

/// A `(name, self, total)` row of a top table.
pub type TopRow = (String, f64, f64);

/// Appends `rows` in the R script's table format: name, self, total, and the total of the
/// name's `memory` row (0 when it has none) or `NA` without a memory table. Names R cannot
/// judge ([`comparable_name`]) are left out.
pub fn push_table_rows(out: &mut String, rows: &[TopRow], memory: Option<&[TopRow]>) {
    for (name, self_value, total) in rows.iter().filter(|r| comparable_name(&r.0)) {
        let bytes = memory.map_or("NA".to_owned(), |m| {
            let total = m.iter().find(|r| &r.0 == name).map_or(0.0, |r| r.2);
            format!("{total}")
        });
        out.push_str(&format!("{name}\t{self_value}\t{total}\t{bytes}\n"));
    }
}

/// Judges a table made for every valid Rprof file against `summaryRprof()`: `table(scratch,
/// i, file)` returns the table text of the `i`th file (it may keep files of its own in
/// `scratch`); any disagreement fails with `what`.
pub fn assert_tables_agree_with_r(
    scratch_name: &str,
    what: &str,
    mut table: impl FnMut(&Path, usize, &Path) -> String,
) {
    let scratch = scratch_dir(scratch_name);
    let files = valid_files();
    let mut manifest = String::new();
    for (i, path) in files.iter().enumerate() {
        let table_path = scratch.join(format!("{i}-table.tsv"));
        std::fs::write(&table_path, table(&scratch, i, path)).expect("write table");
        manifest.push_str(&manifest_line(
            &file_name(path),
            path,
            None,
            false,
            &table_path,
        ));
    }
    let results = run_r_compare(&scratch, &manifest);
    assert_eq!(results.len(), files.len());
    assert_results_ok(&results, false, what);
    let _ = std::fs::remove_dir_all(&scratch);
}
