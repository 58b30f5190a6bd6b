//! pprof's `drop_frames` / `keep_frames`: the reader keeps the raw stacks and the expressions
//! (the writer gives both back), and `proftab top`, `diff` and `list` prune as `go tool pprof`
//! does on reading: once, after merging their inputs, with the first input's expressions
//! (`-diff_base`: NEW's).
//!
//! The profile is built with the prost types (tests/pprof_prune_fixture). `go tool pprof -top`,
//! `-top -diff_base` and `-list` of the files equal `proftab top`, `diff --absolute`, `list`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod pprof_prune_fixture;
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pprof_prune_fixture::{build, build_with};
use proftab::formats::pprof::prune::prune;
use proftab::formats::pprof::{self, META_DROP_FRAMES, META_KEEP_FRAMES};
use proftab::formats::{Format, ReadOptions, WriteOptions};
use support::cli::{run, run_json, stdout};
use support::go::{go_output, go_top, parse_top};
use support::json::sample_lines;
use support::profile::assert_valid;

fn read(bytes: &[u8]) -> proftab::model::Profile {
    let p = pprof::read(bytes, &ReadOptions::default()).unwrap().profile;
    assert_valid(&p, "built");
    p
}

#[test]
fn reader_keeps_raw_stacks_and_writer_keeps_expressions() {
    let bytes = build(r"runtime\..*|bar", r"runtime\.keepme");
    let p = read(&bytes);
    assert_eq!(p.meta_value(META_DROP_FRAMES), Some(r"runtime\..*|bar"));
    assert_eq!(p.meta_value(META_KEEP_FRAMES), Some(r"runtime\.keepme"));
    let back = read(&pprof::write(&p, &WriteOptions::default()).unwrap().bytes);
    assert_eq!(
        back.meta_value(META_DROP_FRAMES),
        p.meta_value(META_DROP_FRAMES)
    );
    assert_eq!(
        back.meta_value(META_KEEP_FRAMES),
        p.meta_value(META_KEEP_FRAMES)
    );
    assert_eq!(sample_lines(&back), sample_lines(&p));
    assert!(sample_lines(&p)[0].contains("runtime.mallocgc"));
}

#[test]
fn pruned_stacks() {
    let p = read(&build(r"runtime\..*|bar", r"runtime\.keepme"));
    let pruned = prune(&p).unwrap().unwrap();
    assert_valid(&pruned, "pruned");
    let stacks: Vec<String> = sample_lines(&pruned)
        .iter()
        .map(|l| l.split_whitespace().nth(1).unwrap().to_owned())
        .collect();
    assert_eq!(
        stacks,
        [
            "main.main@:10#1000;main.foo@:20#2000",
            "main.main@:10#1000;main.foo@:20#2000",
            "main.main@:10#1000;main.foo@:20#a000",
            "runtime.goexit@:70#7000;main.main@:10#1000;main.leaf@:60#6000",
            "main.main@:10#1000",
            "runtime.goexit@:70#7000;runtime.gcBgMarkWorker@:90#9000",
            "main.main@:10#1000;runtime.keepme@:40#4000",
        ]
    );
    // Without drop_frames nothing is pruned; an invalid expression is an error.
    assert!(prune(&read(&build("", "x"))).unwrap().is_none());
    assert!(prune(&read(&build("(", "")))
        .unwrap_err()
        .contains("drop_frames"));
}

/// `proftab top` (the CLI) equals `go tool pprof -top` of the same file, pruned or not
/// (an invalid expression: go tool pprof ignores it).
#[test]
fn proftab_top_equals_go_tool_pprof_top() {
    let dir = support::corpus::scratch_dir("pprof-prune");
    for (name, drop, keep) in [
        ("pruned", r"runtime\..*|bar", r"runtime\.keepme"),
        ("no-keep", r"runtime\..*", ""),
        ("invalid", "(", ""),
    ] {
        let path = dir.join(format!("{name}.pb"));
        std::fs::write(&path, build(drop, keep)).unwrap();
        let Some(want) = go_top(&path, "samples", "count") else {
            return;
        };
        let out = run(
            env!("CARGO_BIN_EXE_proftab"),
            &["top", path.to_str().unwrap()],
            None,
        );
        let (_, mut got) = parse_top(&stdout(&out));
        let mut want = want;
        for rows in [&mut got, &mut want] {
            rows.sort_by(|a, b| a.name.cmp(&b.name));
        }
        assert_eq!(got, want, "{name}");
        assert_eq!(
            proftab::formats::detect(&std::fs::read(&path).unwrap()),
            Some(Format::Pprof)
        );
    }
}

const EXE: &str = env!("CARGO_BIN_EXE_proftab");

/// Two files with different expressions, in source file `prune.go`: BASE prunes runtime and
/// bar (keeping runtime.keepme), NEW (values ×3) only runtime.mallocgc.
fn base_and_new(scratch: &str) -> (PathBuf, PathBuf) {
    let dir = support::corpus::scratch_dir(scratch);
    let (base, new) = (dir.join("base.pb"), dir.join("new.pb"));
    let base_bytes = build_with(r"runtime\..*|bar", r"runtime\.keepme", "prune.go", 1);
    std::fs::write(&base, base_bytes).unwrap();
    std::fs::write(&new, build_with(r"runtime\.mallocgc", "", "prune.go", 3)).unwrap();
    (base, new)
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `go tool pprof ARGS FILES` with every node, unsymbolized; `None` without Go.
fn go_pprof(args: &[&str], files: &[&Path]) -> Option<String> {
    let mut all: Vec<String> = ["tool", "pprof", "-symbolize=none"]
        .iter()
        .chain(args)
        .map(|a| (*a).to_owned())
        .collect();
    all.extend(files.iter().map(|f| f.display().to_string()));
    go_output(&all)
}

/// Rows whose two numbers are not both zero, by name.
fn nonzero(rows: impl IntoIterator<Item = (String, f64, f64)>) -> BTreeMap<String, (f64, f64)> {
    rows.into_iter()
        .filter(|(_, a, b)| *a != 0.0 || *b != 0.0)
        .map(|(n, a, b)| (n, (a, b)))
        .collect()
}

fn f(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap()
}

/// `proftab diff --absolute` equals `go tool pprof -top -diff_base=BASE NEW`: both files
/// pruned with NEW's expressions (so BASE's bar(int) and memmove stay), flat and cum deltas.
#[test]
fn diff_equals_go_tool_pprof_diff_base() {
    let (base, new) = base_and_new("pprof-prune-diff");
    let diff_base = format!("-diff_base={}", base.display());
    let args = [
        "-top",
        "-nodecount=1000000",
        "-nodefraction=0",
        "-edgefraction=0",
    ];
    let Some(report) = go_pprof(&[&args[..], &[diff_base.as_str()]].concat(), &[&new]) else {
        return;
    };
    let want = nonzero(
        parse_top(&report)
            .1
            .into_iter()
            .map(|r| (r.name, r.flat, r.cum)),
    );
    let json = run_json(
        EXE,
        &[
            "diff",
            path_str(&base),
            path_str(&new),
            "--absolute",
            "--json",
        ],
    );
    let got = nonzero(json["functions"].as_array().unwrap().iter().map(|r| {
        let name = r["name"].as_str().unwrap().to_owned();
        (name, f(r, "delta"), f(r, "new_total") - f(r, "base_total"))
    }));
    assert_eq!(got, want);
    assert_eq!(got["bar(int)"], (32.0, 32.0), "BASE's bar(int) is kept");
    assert_eq!(got["runtime.memmove"], (0.0, 8.0), "BASE's memmove is kept");
}

/// The `(flat, cum)` of every `ROUTINE` header of `-list` output, by function name.
fn routine_headers(report: &str) -> BTreeMap<String, (f64, f64)> {
    let mut out = BTreeMap::new();
    let mut lines = report.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("ROUTINE ======================== ") else {
            continue;
        };
        let name = rest.rsplit_once(" in ").map_or(rest, |(n, _)| n).to_owned();
        let header: Vec<f64> = lines
            .next()
            .unwrap()
            .split_whitespace()
            .take(2)
            .map(|v| v.parse().unwrap())
            .collect();
        out.insert(name, (header[0], header[1]));
    }
    out
}

/// `(self, total)` of the `functions` of `proftab top --json` or `list --json`, by name.
fn self_and_total(json: &serde_json::Value) -> BTreeMap<String, (f64, f64)> {
    let rows = json["functions"].as_array().unwrap().iter();
    rows.map(|r| {
        (
            r["name"].as_str().unwrap().to_owned(),
            (f(r, "self"), f(r, "total")),
        )
    })
    .collect()
}

/// `proftab list` of BASE and NEW equals `go tool pprof -list` of them: merged, then pruned
/// with BASE's (the first file's) expressions (the source is absent: headers compared).
#[test]
fn list_equals_go_tool_pprof_list() {
    let (base, new) = base_and_new("pprof-prune-list");
    let regex = r"main\.|runtime\.|bar";
    let Some(report) = go_pprof(&["-list", regex], &[&base, &new]) else {
        return;
    };
    let want = routine_headers(&report);
    let json = run_json(
        EXE,
        &["list", regex, path_str(&base), path_str(&new), "--json"],
    );
    let got = self_and_total(&json);
    assert_eq!(got, want);
    assert!(!got.contains_key("runtime.mallocgc") && !got.contains_key("bar(int)"));
}

/// `proftab list` of one pruned file has `proftab top`'s totals, function by function.
#[test]
fn list_of_one_file_has_the_totals_of_top() {
    let (base, _) = base_and_new("pprof-prune-list-top");
    let top = run_json(EXE, &["top", path_str(&base), "--json"]);
    let list = run_json(EXE, &["list", ".", path_str(&base), "--json"]);
    assert_eq!(self_and_total(&list), self_and_total(&top));
    assert_eq!(list["total"], top["total"]);
}

/// `proftab convert` writes the raw stacks and the expressions (not the pruned stacks): the
/// written file reads back to the same samples, and `proftab top` of it still prunes.
#[test]
fn convert_keeps_raw_stacks_and_expressions() {
    let (base, _) = base_and_new("pprof-prune-convert");
    let out = base.with_file_name("converted.pb.gz");
    let done = run(
        EXE,
        &["convert", path_str(&base), "-o", path_str(&out)],
        None,
    );
    assert!(done.status.success(), "{}", support::cli::stderr(&done));
    let (raw, back) = (
        read(&std::fs::read(&base).unwrap()),
        read(&std::fs::read(&out).unwrap()),
    );
    assert_eq!(sample_lines(&back), sample_lines(&raw));
    assert_eq!(back.meta_value(META_DROP_FRAMES), Some(r"runtime\..*|bar"));
    assert_eq!(back.meta_value(META_KEEP_FRAMES), Some(r"runtime\.keepme"));
    let top = |p: &Path| run_json(EXE, &["top", path_str(p), "--json"]);
    assert_eq!(top(&out), top(&base));
}
