//! The real libraries judge proftab's datasets (tests/support/columnar_judge.py): pyarrow
//! reads every table of `--to parquet` and `--to arrow` output with seed 000's column types,
//! and DuckDB's top function by self value equals `proftab top`'s first row — for the default
//! type of one input, and per source over a dataset grown with `--append`. Without pyarrow and
//! duckdb (scripts/setup.sh installs them) each test prints SKIP.
#![cfg(not(target_arch = "wasm32"))] // the Arrow crates are native-only
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use proftab::formats::columnar::Container;
use serde_json::Value;
use support::cli::{run, run_json, stderr};
use support::corpus::{fixture, fixtures, scratch_dir};

const EXE: &str = env!("CARGO_BIN_EXE_proftab");

/// pprof with labels and mappings, Rprof with memory columns, a V8 .cpuprofile.
const INPUTS: [&str; 3] = [
    "pprof/cpu.pb.gz",
    "rprof/memory.out",
    "cpuprofile/node-cpu-prof.cpuprofile",
];

fn judge_script() -> PathBuf {
    fixtures().join("../support/columnar_judge.py")
}

/// True when python3 imports duckdb and pyarrow; else prints a SKIP line naming `test`.
fn have_judges(test: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import duckdb, pyarrow"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIP: {test}: python3 with duckdb and pyarrow is missing (scripts/setup.sh)");
    }
    ok
}

/// The judge's report on the dataset in `dir` (`wanted`: a value type, else the default).
fn judge(c: Container, dir: &Path, wanted: Option<&str>) -> Value {
    let mut cmd = Command::new("python3");
    cmd.arg(judge_script()).arg(c.name()).arg(dir);
    cmd.args(wanted);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "judge failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn convert(inputs: &[&str], dir: &Path, c: Container, append: bool) {
    let d = dir.to_str().unwrap();
    let mut args = vec!["convert"];
    args.extend(inputs);
    args.extend(["-o", d, "--to", c.name()]);
    if append {
        args.push("--append");
    }
    let o = run(EXE, &args, None);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
}

/// `proftab top`'s first row as `[name, self]`.
fn proftab_top(file: &str, value_type: Option<&str>) -> Value {
    let mut args = vec!["top", file, "--json", "--limit", "1"];
    if let Some(t) = value_type {
        args.extend(["--type", t]);
    }
    let top = run_json(EXE, &args);
    let row = &top["functions"][0];
    serde_json::json!([row["name"], row["self"].as_f64().unwrap()])
}

/// Seed 000's types (and the model's extension types) as pyarrow names them.
fn assert_types(schema: &Value, input: &str) {
    let dict = "dictionary<values=string, indices=int32, ordered=0>";
    let want = [
        ("sources", "source_id", "int32"),
        ("sources", "source_type", dict),
        ("sources", "source_timestamp", "double"),
        ("samples", "sample_id", "int32"),
        ("sample_values", "value", "double"),
        ("sample_locations", "depth", "int32"),
        ("locations", "function_id", "int32"),
        ("functions", "name", dict),
        ("functions", "start_line", "int32"),
        ("meta", "value", dict),
    ];
    for (table, column, ty) in want {
        assert_eq!(schema[table][column], ty, "{input}: {table}.{column}");
    }
    if input.starts_with("pprof") {
        assert_eq!(schema["locations"][".address"], "uint64", "{input}");
        assert_eq!(schema["mappings"]["memory_start"], "uint64", "{input}");
    }
}

#[test]
fn pyarrow_reads_every_table_and_duckdb_top_equals_proftab_top() {
    if !have_judges("pyarrow_reads_every_table_and_duckdb_top_equals_proftab_top") {
        return;
    }
    for c in Container::ALL {
        for input in INPUTS {
            let file = fixture(input).to_str().unwrap().to_owned();
            let dir = scratch_dir("columnar-judges").join(format!(
                "{}-{}",
                c.name(),
                input.replace('/', "-")
            ));
            let _ = std::fs::remove_dir_all(&dir);
            convert(&[&file], &dir, c, false);
            let report = judge(c, &dir, None);
            let info = run_json(EXE, &["info", "--json", &file]);
            for (table, rows) in info["tables"].as_object().unwrap() {
                assert_eq!(
                    &report["tables"][table],
                    rows,
                    "{input} {}: {table}",
                    c.name()
                );
            }
            assert_types(&report["schema"], input);
            assert_eq!(
                report["top"],
                proftab_top(&file, None),
                "{input} {}",
                c.name()
            );
        }
    }
}

#[test]
fn duckdb_top_per_source_over_an_appended_dataset() {
    if !have_judges("duckdb_top_per_source_over_an_appended_dataset") {
        return;
    }
    let files: Vec<String> = INPUTS
        .iter()
        .map(|i| fixture(i).to_str().unwrap().to_owned())
        .collect();
    for c in Container::ALL {
        let dir = scratch_dir("columnar-judges").join(format!("{}-appended", c.name()));
        let _ = std::fs::remove_dir_all(&dir);
        convert(&[&files[0]], &dir, c, false);
        convert(&[&files[1], &files[2]], &dir, c, true);
        let report = judge(c, &dir, Some("samples"));
        let rows = report["top_per_source"].as_array().unwrap();
        assert_eq!(rows.len(), files.len(), "{}", c.name());
        for (i, (row, file)) in rows.iter().zip(&files).enumerate() {
            assert_eq!(row[0], i + 1);
            assert_eq!(row[1], file.as_str());
            let want = proftab_top(file, Some("samples"));
            assert_eq!(row[2], want[0], "{file} {}", c.name());
            assert_eq!(row[3], want[1], "{file} {}", c.name());
        }
    }
}
