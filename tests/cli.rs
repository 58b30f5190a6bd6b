//! The `proftab` binary end to end: JSON shapes, human output, exit codes and messages.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use proftab::formats::{self, Format, WriteOptions};
use proftab::model::{Cell, Profile, ProfileBuilder, META_DEFAULT_TYPE};
use serde_json::Value;
use support::cli::{stderr, stdout};
use support::corpus::{corpus, fixture};

fn proftab(args: &[&str], stdin: Option<&[u8]>) -> Output {
    support::cli::run(env!("CARGO_BIN_EXE_proftab"), args, stdin)
}

fn json_of(o: &Output) -> Value {
    assert!(o.status.success(), "failed: {}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Writes `p` as tables-JSON to `dir/name`.
fn write_profile(dir: &Path, name: &str, p: &Profile) -> PathBuf {
    let written = formats::write_as(Format::TablesJson, p, &WriteOptions::default()).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, written.bytes).unwrap();
    path
}

/// One source, value types `samples`/count and `cpu`/nanoseconds (the default), and three
/// samples: a←b←a (leaf a; 20 ms), b←a (leaf b; 30 ms) and one without frames (10 ms); plus
/// one `sample_labels` row.
///
/// By hand, for cpu: total 60ms; a self 20ms, total 50ms (once, although it recurs); b self
/// 30ms, total 50ms. For samples: total 3; a and b self 1, total 2 each.
fn recursive_profile() -> Profile {
    let mut b = ProfileBuilder::new();
    b.set_meta(META_DEFAULT_TYPE, "cpu");
    let src = b.add_source("manual", Some("recursive"), Some(1_700_000_000.0));
    let samples = b.value_type("samples", "count");
    let cpu = b.value_type("cpu", "nanoseconds");
    let fa = b.function_named("a", Some("x.R"));
    let fb = b.function_named("b", Some("x.R"));
    let la = b.location(Some(fa), 3);
    let lb = b.location(Some(fb), 7);
    let s1 = b.stack_leaf_first(&[la, lb, la]);
    let s2 = b.stack_leaf_first(&[lb, la]);
    let first = b.add_sample_with_values(src, s1, &[(samples, 1.0), (cpu, 20e6)]);
    b.add_sample_with_values(src, s2, &[(samples, 1.0), (cpu, 30e6)]);
    b.add_sample_with_values(src, None, &[(samples, 1.0), (cpu, 10e6)]);
    let key = b.intern("thread");
    b.ext_table("sample_labels")
        .push_row(&[
            ("sample_id", Cell::Int(first.logical_id())),
            ("key", Cell::Chr(key)),
        ])
        .unwrap();
    b.build().unwrap()
}

/// One source `other` with one sample of `main` (samples 4, cpu 40 ms).
fn other_profile() -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("manual", Some("other"), None);
    let samples = b.value_type("samples", "count");
    let cpu = b.value_type("cpu", "nanoseconds");
    let f = b.function_named("main", Some("main.go"));
    let l = b.location(Some(f), 1);
    let s = b.stack_leaf_first(&[l]);
    b.add_sample_with_values(src, s, &[(samples, 4.0), (cpu, 40e6)]);
    b.build().unwrap()
}

#[test]
fn info_json_has_every_field() {
    let dir = scratch("info");
    let file = write_profile(&dir, "rec.json", &recursive_profile());
    let v = json_of(&proftab(&["info", path_str(&file), "--json"], None));
    assert_eq!(v["format"], "tables-json");
    assert_eq!(v["samples"], 3);
    let src = &v["sources"][0];
    assert_eq!(src["source_id"], 1);
    assert_eq!(src["source_type"], "manual");
    assert_eq!(src["source_uri"], "recursive");
    assert_eq!(src["source_timestamp"], 1_700_000_000);
    assert_eq!(src["samples"], 3);
    assert_eq!(src["totals"]["cpu"], 60_000_000);
    assert_eq!(src["totals"]["samples"], 3);
    let types = v["value_types"].as_array().unwrap();
    assert_eq!(types.len(), 2);
    assert_eq!(types[0]["type"], "samples");
    assert_eq!(types[0]["unit"], "count");
    assert_eq!(types[0]["total"], 3);
    assert_eq!(types[1]["type"], "cpu");
    assert_eq!(types[1]["total"], 60_000_000);
    let t = &v["tables"];
    // Counted by hand from recursive_profile: 3 + 2 + 0 frames, 3 samples × 2 values.
    assert_eq!(t["sources"], 1);
    assert_eq!(t["samples"], 3);
    assert_eq!(t["sample_values"], 6);
    assert_eq!(t["sample_locations"], 5);
    assert_eq!(t["locations"], 2);
    assert_eq!(t["functions"], 2);
    assert_eq!(t["sample_labels"], 1);
    assert!(t["meta"].as_u64().unwrap() >= 2);
    assert!(v["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn info_text_names_tables_and_types() {
    let dir = scratch("info-text");
    let file = write_profile(&dir, "rec.json", &recursive_profile());
    let o = proftab(&["info", path_str(&file)], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for needle in [
        "format:   tables-json",
        "samples:  3",
        "cpu",
        "(default)",
        "sample_locations",
        "sample_labels",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
}

#[test]
fn info_reads_stdin() {
    let dir = scratch("stdin");
    let file = write_profile(&dir, "rec.json", &recursive_profile());
    let bytes = std::fs::read(file).unwrap();
    let v = json_of(&proftab(&["info", "-", "--json"], Some(&bytes)));
    assert_eq!(v["samples"], 3);
}

#[test]
fn top_json_counts_recursion_once() {
    let dir = scratch("top");
    let file = write_profile(&dir, "rec.json", &recursive_profile());
    let v = json_of(&proftab(&["top", path_str(&file), "--json"], None));
    assert_eq!(v["type"], "cpu");
    assert_eq!(v["unit"], "nanoseconds");
    assert_eq!(v["total"], 60_000_000);
    let f = v["functions"].as_array().unwrap();
    assert_eq!(f.len(), 2);
    assert_eq!(f[0]["name"], "b");
    assert_eq!(f[0]["self"], 30_000_000);
    assert_eq!(f[0]["total"], 50_000_000);
    assert_eq!(f[1]["name"], "a");
    assert_eq!(f[1]["self"], 20_000_000);
    assert_eq!(f[1]["total"], 50_000_000);

    let v = json_of(&proftab(
        &[
            "top",
            path_str(&file),
            "--json",
            "--type",
            "samples",
            "--limit",
            "1",
        ],
        None,
    ));
    assert_eq!(v["type"], "samples");
    assert_eq!(v["total"], 3);
    let f = v["functions"].as_array().unwrap();
    assert_eq!(f.len(), 1);
    assert_eq!(
        (&f[0]["self"], &f[0]["total"]),
        (&Value::from(1), &Value::from(2))
    );
}

#[test]
fn top_text_looks_like_pprof() {
    let dir = scratch("top-text");
    let file = write_profile(&dir, "rec.json", &recursive_profile());
    let o = proftab(&["top", path_str(&file)], None);
    assert!(o.status.success(), "{}", stderr(&o));
    // Percentages by hand: 30/60, 20/60, (30+20)/60, 50/60.
    let expected = "\
Type: cpu
Showing nodes accounting for 50ms, 83.33% of 60ms total
      flat  flat%   sum%        cum   cum%
      30ms 50.00% 50.00%       50ms 83.33%  b
      20ms 33.33% 83.33%       50ms 83.33%  a
";
    assert_eq!(stdout(&o), expected);
    let o = proftab(&["top", path_str(&file), "--limit", "1"], None);
    assert!(
        stdout(&o).contains("Showing top 1 nodes out of 2\n"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn top_rejects_unknown_type() {
    let dir = scratch("top-type");
    let file = write_profile(&dir, "rec.json", &recursive_profile());
    let o = proftab(&["top", path_str(&file), "--type", "wall"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no value type \"wall\"; the profile has: samples, cpu"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn convert_combines_inputs() {
    let dir = scratch("combine");
    let a = write_profile(&dir, "a.json", &recursive_profile());
    let b = write_profile(&dir, "b.json", &other_profile());
    let out = dir.join("out.json");
    let o = proftab(
        &["convert", path_str(&a), path_str(&b), "-o", path_str(&out)],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json_of(&proftab(&["info", path_str(&out), "--json"], None));
    assert_eq!(v["samples"], 4);
    let sources = v["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 2);
    assert_eq!(sources[1]["source_id"], 2);
    assert_eq!(sources[1]["samples"], 1);
    assert_eq!(sources[1]["totals"]["cpu"], 40_000_000);
    assert_eq!(v["tables"]["functions"], 3);
    let top = json_of(&proftab(&["top", path_str(&out), "--json"], None));
    assert_eq!(top["total"], 100_000_000);
    assert_eq!(top["functions"][0]["name"], "main");
    // `combine` is another name for `convert`.
    let again = dir.join("again.json");
    let o = proftab(
        &[
            "combine",
            path_str(&a),
            path_str(&b),
            "-o",
            path_str(&again),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&out).unwrap());
}

#[test]
fn convert_writes_stdout_with_to() {
    let dir = scratch("stdout");
    let a = write_profile(&dir, "a.json", &other_profile());
    let o = proftab(
        &["convert", path_str(&a), "-o", "-", "--to", "tables-json"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json_of(&proftab(&["info", "-", "--json"], Some(&o.stdout)));
    assert_eq!(v["samples"], 1);
}

#[test]
fn convert_maps_extensions_to_formats() {
    let dir = scratch("extensions");
    let a = write_profile(&dir, "a.json", &recursive_profile());
    let mut checked = 0;
    for format in formats::ALL_FORMATS {
        let (Some(ext), true) = (format.extensions().first(), format.can_write()) else {
            continue;
        };
        let out = dir.join(format!("out{ext}"));
        let o = proftab(&["convert", path_str(&a), "-o", path_str(&out)], None);
        assert!(o.status.success(), "{}: {}", format.name(), stderr(&o));
        let bytes = std::fs::read(&out).unwrap();
        if format.can_read() {
            assert_eq!(formats::detect(&bytes), Some(format), "{}", format.name());
        }
        checked += 1;
    }
    assert!(checked >= 1);
}

#[test]
fn format_from_path_prefers_the_longest_ending() {
    let cases = [
        ("x.json", Some(Format::TablesJson)),
        ("x.speedscope.json", Some(Format::Speedscope)),
        ("X.FIREFOX.JSON", Some(Format::Firefox)),
        ("x.pb.gz", Some(Format::Pprof)),
        ("x.pb", Some(Format::Pprof)),
        ("x.out", Some(Format::Rprof)),
        ("x.folded", Some(Format::Collapsed)),
        ("x.cpuprofile", Some(Format::Cpuprofile)),
        ("x.otlp", Some(Format::Otlp)),
        ("x.gz", None),
        ("x", None),
    ];
    for (path, want) in cases {
        assert_eq!(Format::from_path(path), want, "{path}");
    }
}

#[test]
fn convert_errors_name_the_problem() {
    let dir = scratch("convert-errors");
    let a = write_profile(&dir, "a.json", &other_profile());
    let a = path_str(&a);
    let cases: [(&[&str], i32, &str); 6] = [
        (
            &["convert", a, "-o", "x.json", "--source", "2"],
            2,
            "--source needs a source id from 1 to 1, got \"2\"",
        ),
        (
            &["convert", a, "-o", "out.unknown"],
            2,
            "cannot tell the output format",
        ),
        (
            &["convert", a, "-o", "x", "--to", "bogus"],
            2,
            "unknown format \"bogus\"",
        ),
        (
            &["convert", a, "-o", "-"],
            2,
            "cannot tell the output format",
        ),
        (&["convert", a], 2, "convert needs -o OUT"),
        (&["convert", "-o", "x.json"], 2, "at least one input"),
    ];
    for (args, code, message) in cases {
        let o = proftab(args, None);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn bad_inputs_fail_cleanly() {
    let dir = scratch("bad");
    let garbage = dir.join("garbage.bin");
    std::fs::write(&garbage, [0x00u8, 0xff, 0x13, 0x37, 0x42]).unwrap();
    let empty = dir.join("empty");
    std::fs::write(&empty, b"").unwrap();
    let missing = dir.join("missing");
    let cases: [(&[&str], i32, &str); 6] = [
        (&["info", path_str(&garbage)], 1, "unrecognized format"),
        (&["top", path_str(&empty)], 1, "the file is empty"),
        (&["info", path_str(&missing)], 1, "cannot read"),
        (&["frobnicate"], 2, "unknown command \"frobnicate\""),
        (&["info"], 2, "no input FILE"),
        (
            &["top", "x", "--limit", "many"],
            2,
            "--limit needs a whole number",
        ),
    ];
    for (args, code, message) in cases {
        let o = proftab(args, None);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with("proftab: "),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn validate_accepts_a_valid_profile() {
    let dir = scratch("validate");
    let file = write_profile(&dir, "rec.json", &recursive_profile());
    let o = proftab(&["validate", path_str(&file)], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("valid"));
}

#[test]
fn validate_lists_every_violation() {
    // Three faults put in by hand: function_id 9 does not exist, an empty function name,
    // and sample 2 has two frames at depth 1.
    let file = fixture("cli/validate-violations.json");
    let o = proftab(&["validate", path_str(&file)], None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    for needle in [
        "locations.function_id row 2",
        "functions.name row 1",
        "sample_locations",
    ] {
        assert!(out.contains(needle), "{needle:?} missing from:\n{out}");
    }
    let lines = out.lines().count();
    assert!(lines >= 3, "{out}");
    assert!(
        stderr(&o).contains(&format!(
            "not a valid tables-json profile: {lines} violations"
        )),
        "{}",
        stderr(&o)
    );
}

#[test]
fn validate_of_unreadable_input_fails() {
    let o = proftab(
        &["validate", "-"],
        Some(b"{\"meta\":{\"key\":[\"version\"],"),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with("proftab: <stdin>: tables-json: "),
        "{}",
        stderr(&o)
    );
}

/// Every corpus file of a readable format: `info --json` either succeeds with the directory's
/// format and a consistent table count, or fails with a message; never a panic.
#[test]
fn corpus_files_give_info_or_a_message() {
    let root = corpus();
    let Ok(dirs) = std::fs::read_dir(&root) else {
        eprintln!("SKIP: no corpus at {}", root.display());
        return;
    };
    for dir in dirs.flatten() {
        let name = dir.file_name().to_string_lossy().into_owned();
        let Some(format) = Format::from_name(&name).filter(|f| f.can_read()) else {
            continue;
        };
        let mut read = 0;
        for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let path = file.path();
            let o = proftab(&["info", path_str(&path), "--json"], None);
            if !o.status.success() {
                assert_eq!(o.status.code(), Some(1), "{}", path.display());
                assert!(stderr(&o).starts_with("proftab: "), "{}", path.display());
                continue;
            }
            let v = json_of(&o);
            assert_eq!(v["format"], format.name(), "{}", path.display());
            assert_eq!(v["tables"]["samples"], v["samples"], "{}", path.display());
            read += 1;
        }
        assert!(read > 0, "no {name} corpus file could be read");
    }
}

/// `go tool pprof -top` output from its `Showing nodes…` line on, `(inline)` marks dropped,
/// or `None` when Go is missing or pprof fails.
fn go_pprof_top(file: &Path, count: usize, sample_index: Option<&str>) -> Option<String> {
    let mut cmd = Command::new("go");
    cmd.args(["tool", "pprof", "-top", "-nodefraction=0"])
        .arg(format!("-nodecount={count}"));
    if let Some(t) = sample_index {
        cmd.arg(format!("-sample_index={t}"));
    }
    let out = cmd.arg(file).stderr(Stdio::null()).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let start = text.find("Showing nodes")?;
    let lines: Vec<&str> = text[start..]
        .lines()
        .map(|l| l.strip_suffix(" (inline)").unwrap_or(l))
        .collect();
    Some(lines.join("\n") + "\n")
}

/// `proftab top` prints what `go tool pprof -top` prints (values, units, percentages, order)
/// for every symbolized pprof corpus file. Files with unsymbolized frames are skipped: pprof
/// names those after their mapping (`[libc.so]`), proftab after their address.
#[test]
fn top_text_equals_go_tool_pprof() {
    if !Format::Pprof.can_read() {
        eprintln!("SKIP: pprof is not readable yet");
        return;
    }
    if Command::new("go").arg("version").output().is_err() {
        eprintln!("SKIP: go is not installed; cannot compare with go tool pprof -top");
        return;
    }
    let Ok(files) = std::fs::read_dir(corpus().join("pprof")) else {
        eprintln!("SKIP: no pprof corpus");
        return;
    };
    let mut compared = 0;
    for file in files.flatten() {
        let path = file.path();
        let Some(want) = go_pprof_top(&path, 12, None) else {
            continue;
        };
        if want.contains("  [") || want.contains("  <unknown>") {
            eprintln!("skipped (unsymbolized frames): {}", path.display());
            continue;
        }
        let o = proftab(&["top", path_str(&path), "--limit", "12"], None);
        assert!(o.status.success(), "{}: {}", path.display(), stderr(&o));
        let got = stdout(&o);
        let got = got.split_once('\n').map_or("", |(_, rest)| rest);
        assert_eq!(got, want, "{}", path.display());
        compared += 1;
    }
    assert!(compared >= 5, "only {compared} pprof files compared");
}

/// The same comparison for every value type of a profile with several (`--type` against
/// `-sample_index`).
#[test]
fn top_type_selects_like_sample_index() {
    let path = corpus().join("pprof/parca-alloc_objects.pb.gz");
    if !Format::Pprof.can_read() || !path.exists() {
        eprintln!("SKIP: pprof is not readable yet or the corpus file is missing");
        return;
    }
    for ty in [
        "alloc_objects",
        "alloc_space",
        "inuse_objects",
        "inuse_space",
    ] {
        let Some(want) = go_pprof_top(&path, 6, Some(ty)) else {
            eprintln!("SKIP: go tool pprof is not available");
            return;
        };
        let o = proftab(
            &["top", path_str(&path), "--limit", "6", "--type", ty],
            None,
        );
        let got = stdout(&o);
        assert_eq!(got.lines().next(), Some(format!("Type: {ty}").as_str()));
        let got = got.split_once('\n').map_or("", |(_, rest)| rest);
        assert_eq!(got, want, "{ty}");
    }
}
