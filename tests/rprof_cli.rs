//! `proftab top --json` on every Rprof file agrees with `summaryRprof()`'s by.self / by.total
//! (samples × interval, and mem.total from `memory_increase`). Skips, visibly, when this build
//! has no `proftab` binary or R is missing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/rprof.rs"]
mod support;

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// The CLI binary, when this package builds one.
const PROFTAB: Option<&str> = option_env!("CARGO_BIN_EXE_proftab");

/// `proftab top FILE --type TYPE --json` as (name, self, total) rows and the total.
fn top(bin: &str, file: &Path, value_type: &str) -> Vec<(String, f64, f64)> {
    let out = Command::new(bin)
        .args([
            "top",
            &file.display().to_string(),
            "--type",
            value_type,
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "proftab top {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["type"], value_type);
    json["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_owned(),
                f["self"].as_f64().unwrap(),
                f["total"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// The CLI's tables in the R script's format (name, self, total samples, memory bytes).
fn cli_table_tsv(bin: &str, file: &Path, memory: bool) -> String {
    let counts = top(bin, file, "samples");
    let mem = memory.then(|| top(bin, file, "memory_increase"));
    let mut out = String::new();
    for (name, self_count, total) in counts.iter().filter(|r| support::comparable_name(&r.0)) {
        let bytes = mem.as_ref().map_or("NA".to_owned(), |m| {
            let total = m.iter().find(|r| &r.0 == name).map_or(0.0, |r| r.2);
            format!("{total}")
        });
        writeln!(out, "{name}\t{self_count}\t{total}\t{bytes}").unwrap();
    }
    out
}

#[test]
fn top_json_agrees_with_summary_rprof() {
    let Some(bin) = PROFTAB else {
        eprintln!("SKIP: proftab top: this build has no proftab binary");
        return;
    };
    if !support::have_tool("Rscript", "proftab top vs summaryRprof") {
        return;
    }
    let scratch = support::scratch_dir("rprof-cli");
    let files = support::valid_files();
    let mut manifest = String::new();
    for (i, path) in files.iter().enumerate() {
        let memory = std::fs::read(path).unwrap().starts_with(b"memory");
        let table = scratch.join(format!("{i}-cli.tsv"));
        std::fs::write(&table, cli_table_tsv(bin, path, memory)).unwrap();
        manifest.push_str(&support::manifest_line(
            &support::short_name(path),
            path,
            None,
            false,
            &table,
        ));
    }
    let results = support::run_r_compare(&scratch, &manifest);
    assert_eq!(results.len(), files.len());
    support::assert_results_ok(&results, false, "proftab top disagrees with summaryRprof");
    let _ = std::fs::remove_dir_all(&scratch);
}
