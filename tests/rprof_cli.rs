//! `proftab top --json` on every Rprof file agrees with `summaryRprof()`'s by.self / by.total
//! (samples × interval, and mem.total from `memory_increase`). Skips, visibly, when this build
//! has no `proftab` binary or R is missing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;

/// The CLI binary, when this package builds one.
const PROFTAB: Option<&str> = option_env!("CARGO_BIN_EXE_proftab");

/// `proftab top FILE --type TYPE --json` as (name, self, total) rows and the total.
fn top(bin: &str, file: &Path, value_type: &str) -> Vec<(String, f64, f64)> {
    let file = file.display().to_string();
    let json = support::cli::run_json(bin, &["top", &file, "--type", value_type, "--json"]);
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
    support::r::push_table_rows(&mut out, &counts, mem.as_deref());
    out
}

#[test]
fn top_json_agrees_with_summary_rprof() {
    let Some(bin) = PROFTAB else {
        eprintln!("SKIP: proftab top: this build has no proftab binary");
        return;
    };
    if !support::cli::have_tool("Rscript", "proftab top vs summaryRprof") {
        return;
    }
    support::r::assert_tables_agree_with_r(
        "rprof-cli",
        "proftab top disagrees with summaryRprof",
        |_, _, path| {
            let memory = std::fs::read(path).unwrap().starts_with(b"memory");
            cli_table_tsv(bin, path, memory)
        },
    );
}
