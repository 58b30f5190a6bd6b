//! Shared helpers of the Rprof integration tests: where the inputs are, and R.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The shared corpus: `$PROFTAB_CORPUS`, else `../shared/corpus` beside the crate.
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("PROFTAB_CORPUS").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")),
        PathBuf::from,
    )
}

/// This crate's fixture directory `tests/fixtures/<sub>`.
pub fn fixture_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(sub)
}

fn files_in(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&keep))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Valid Rprof files: the corpus's `rprof/` and this crate's recorded fixtures.
pub fn valid_files() -> Vec<PathBuf> {
    let mut v = files_in(&corpus_dir().join("rprof"), |_| true);
    v.extend(files_in(&fixture_dir("rprof"), |n| n.ends_with(".out")));
    v
}

/// The corpus's damaged Rprof files (`invalid/rprof-*`).
pub fn damaged_corpus_files() -> Vec<PathBuf> {
    files_in(&corpus_dir().join("invalid"), |n| n.starts_with("rprof-"))
}

/// True when `tool --version` (or `tool version`, as Go has it) runs; else prints a visible
/// SKIP line.
pub fn have_tool(tool: &str, test: &str) -> bool {
    let runs = |arg: &str| {
        Command::new(tool)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let ok = runs("--version") || runs("version");
    if !ok {
        eprintln!("SKIP: {test}: `{tool}` is not installed");
    }
    ok
}

/// A fresh scratch directory under the system temp dir.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("proftab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// The file name of a path, for ids and messages.
pub fn short_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
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

/// Runs `tests/support/rprof_compare.R` on `manifest` (written into `scratch`), prints its
/// `RESULT` lines and returns them.
pub fn run_r_compare(scratch: &Path, manifest: &str) -> Vec<String> {
    let manifest_path = scratch.join("manifest.tsv");
    std::fs::write(&manifest_path, manifest).expect("write manifest");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/rprof_compare.R");
    let out = Command::new("Rscript")
        .arg(script)
        .arg(&manifest_path)
        .output()
        .expect("run Rscript");
    assert!(
        out.status.success(),
        "Rscript failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Vec<String> = String::from_utf8_lossy(&out.stdout)
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
            &short_name(path),
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
