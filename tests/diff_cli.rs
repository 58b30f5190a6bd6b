//! `proftab diff` end to end on small collapsed-stack files whose numbers are counted by hand.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use proftab::formats::{self, Format, WriteOptions};
use proftab::model::ProfileBuilder;
use serde_json::Value;

/// Baseline: total 100; parse self 40, alloc 20, render 40.
const A: &str = "main;parse 40\nmain;parse;alloc 20\nmain;render 40\n";
/// Comparison: total 140; parse self 20, alloc 20, render 100.
const B: &str = "main;parse 20\nmain;parse;alloc 20\nmain;render 100\n";
/// Joins A as a group: render 60 more, so the group totals 160 with render 100.
const C: &str = "main;render 60\n";

fn proftab(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_proftab"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    out
}

fn json_of(args: &[&str]) -> Value {
    let out = proftab(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A scratch folder holding a.folded, b.folded and c.folded.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("diff-cli-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in [("a.folded", A), ("b.folded", B), ("c.folded", C)] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

fn file(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_owned()
}

/// `(name, base, new, delta, relative)` of every row, in order.
fn rows(v: &Value) -> Vec<(String, f64, f64, f64, Option<f64>)> {
    v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_owned(),
                f["base"].as_f64().unwrap(),
                f["new"].as_f64().unwrap(),
                f["delta"].as_f64().unwrap(),
                f["relative"].as_f64(),
            )
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.abs().max(1.0)
}

#[test]
fn absolute_json_has_the_counted_numbers() {
    let d = scratch("absolute");
    let v = json_of(&[
        "diff",
        &file(&d, "a.folded"),
        &file(&d, "b.folded"),
        "--absolute",
        "--json",
    ]);
    assert_eq!(v["type"], "samples");
    assert_eq!(v["unit"], "count");
    assert_eq!(v["normalization"], "absolute");
    assert_eq!(
        (v["base_total"].as_f64(), v["new_total"].as_f64()),
        (Some(100.0), Some(140.0))
    );
    let expected = [
        ("render", 40.0, 100.0, 60.0, Some(1.5)),
        ("main", 0.0, 0.0, 0.0, None),
        ("alloc", 20.0, 20.0, 0.0, Some(0.0)),
        ("parse", 40.0, 20.0, -20.0, Some(-0.5)),
    ];
    let expected: Vec<_> = expected
        .iter()
        .map(|(n, b, w, d, r)| ((*n).to_owned(), *b, *w, *d, *r))
        .collect();
    assert_eq!(rows(&v), expected);
    let keys: Vec<&String> = v["functions"][0].as_object().unwrap().keys().collect();
    for key in ["name", "base", "new", "delta", "relative"] {
        assert!(keys.iter().any(|k| *k == key), "missing {key}");
    }
}

#[test]
fn scaled_json_puts_new_on_the_base_total() {
    let d = scratch("scaled");
    let v = json_of(&[
        "diff",
        &file(&d, "a.folded"),
        &file(&d, "b.folded"),
        "--json",
    ]);
    assert_eq!(v["normalization"], "scaled");
    assert!(close(v["scale"].as_f64().unwrap(), 100.0 / 140.0));
    assert!(close(v["new_total"].as_f64().unwrap(), 100.0));
    // New values times 100/140: render 100 -> 500/7, parse and alloc 20 -> 100/7.
    let expected = [
        ("render", 40.0, 500.0 / 7.0),
        ("main", 0.0, 0.0),
        ("alloc", 20.0, 100.0 / 7.0),
        ("parse", 40.0, 100.0 / 7.0),
    ];
    let got = rows(&v);
    assert_eq!(got.len(), expected.len());
    for ((name, base, new, delta, relative), (en, eb, ew)) in got.iter().zip(expected) {
        assert_eq!((name.as_str(), *base), (en, eb));
        assert!(
            close(*new, ew) && close(*delta, ew - eb),
            "{name}: {new} {delta}"
        );
        match relative {
            Some(r) => assert!(close(*r, (ew - eb) / eb)),
            None => assert_eq!(eb, 0.0),
        }
    }
}

#[test]
fn a_combined_file_is_one_group() {
    let d = scratch("group");
    let group = file(&d, "group.json");
    let out = proftab(&[
        "convert",
        &file(&d, "a.folded"),
        &file(&d, "c.folded"),
        "-o",
        &group,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let abs = json_of(&[
        "diff",
        &group,
        &file(&d, "b.folded"),
        "--absolute",
        "--json",
    ]);
    assert_eq!(abs["base_total"].as_f64(), Some(160.0));
    let find = |v: &Value, name: &str| rows(v).into_iter().find(|r| r.0 == name).unwrap();
    // Group: parse 40, alloc 20, render 40 + 60.
    assert_eq!(
        find(&abs, "render"),
        ("render".to_owned(), 100.0, 100.0, 0.0, Some(0.0))
    );
    assert_eq!(find(&abs, "parse").3, -20.0);
    // Scaled by 160/140 = 8/7: render 800/7 (+100/7), alloc 160/7 (+20/7), parse 160/7.
    let scaled = json_of(&["diff", &group, &file(&d, "b.folded"), "--json"]);
    let order: Vec<String> = rows(&scaled).into_iter().map(|r| r.0).collect();
    assert_eq!(order, ["render", "alloc", "main", "parse"]);
    assert!(close(find(&scaled, "render").3, 100.0 / 7.0));
    assert!(close(find(&scaled, "alloc").3, 20.0 / 7.0));
    assert!(close(find(&scaled, "parse").3, 160.0 / 7.0 - 40.0));
}

#[test]
fn a_file_compared_with_itself_shows_no_change() {
    let d = scratch("itself");
    let b = file(&d, "b.folded");
    for extra in [&["--absolute"][..], &[]] {
        let v = json_of(&[&["diff", b.as_str(), b.as_str(), "--json"][..], extra].concat());
        assert_eq!(v["scale"].as_f64(), Some(1.0));
        let got = rows(&v);
        assert_eq!(got.len(), 4);
        for (name, base, new, delta, _) in got {
            assert_eq!((base, delta), (new, 0.0), "{name}");
        }
    }
}

#[test]
fn limit_and_text_output() {
    let d = scratch("text");
    let (a, b) = (file(&d, "a.folded"), file(&d, "b.folded"));
    let v = json_of(&["diff", &a, &b, "--limit", "1", "--json"]);
    assert_eq!(rows(&v).len(), 1);
    let out = proftab(&["diff", &a, &b, "--absolute", "--limit=2"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Type: samples");
    assert_eq!(lines[1], format!("Base: 100 in 3 samples ({a})"));
    assert_eq!(
        lines[2],
        format!("New:  140 in 3 samples ({b}), absolute values")
    );
    assert_eq!(lines[3], "Showing top 2 functions out of 4");
    assert_eq!(
        lines[4].split_whitespace().collect::<Vec<_>>(),
        ["base", "new", "delta", "relative", "name"]
    );
    assert_eq!(
        lines[5].split_whitespace().collect::<Vec<_>>(),
        ["40", "100", "+60", "+150.0%", "render"]
    );
    assert_eq!(
        lines[6].split_whitespace().collect::<Vec<_>>(),
        ["0", "0", "0", "-", "main"]
    );
    assert_eq!(lines.len(), 7);
}

#[test]
fn a_value_type_missing_from_one_side_is_a_clear_error() {
    let d = scratch("types");
    let mut b = ProfileBuilder::new();
    let cpu = b.value_type("cpu", "nanoseconds");
    let src = b.add_source("manual", Some("cpu-only"), None);
    let f = b.function_named("main", None);
    let l = b.location(Some(f), 0);
    let st = b.stack_leaf_first(&[l]);
    b.add_sample_with_values(src, st, &[(cpu, 10.0)]);
    let written = formats::write_as(
        Format::TablesJson,
        &b.build().unwrap(),
        &WriteOptions::default(),
    );
    let cpu_file = file(&d, "cpu.json");
    std::fs::write(&cpu_file, written.unwrap().bytes).unwrap();
    let a = file(&d, "a.folded");
    let out = proftab(&["diff", &a, &cpu_file]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        format!(
            "proftab: {cpu_file}: no value type \"samples\" (the default value type of BASE); \
             it has: cpu; choose a type both files have with --type"
        )
    );
    let out = proftab(&["diff", &cpu_file, &a, "--type", "cpu"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        format!(
            "proftab: {a}: no value type \"cpu\" (--type); it has: samples; choose a type both \
             files have with --type"
        )
    );
}

#[test]
fn usage_errors_exit_2() {
    let d = scratch("usage");
    let a = file(&d, "a.folded");
    for args in [
        vec!["diff", a.as_str()],
        vec!["diff", &a, &a, &a],
        vec!["diff", &a, &a, "--limit", "x"],
    ] {
        let out = proftab(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
