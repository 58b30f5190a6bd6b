//! `proftab list` against its judges: `go tool pprof -list` on the recorded Go CPU profile
//! (per-line flat and cum of the hottest functions, the lines shown, their text and the
//! printed values) and `summaryRprof(lines = "show")$by.line` on the Rprof line profiles; then
//! the command line itself (help, errors, source lookup, JSON). Skips (visibly) without Go / R.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use support::cli::{have_tool, run, run_json, stderr, stdout};
use support::corpus::fixture;
use support::go::{go_output, read_pprof, GoPprof};

const EXE: &str = env!("CARGO_BIN_EXE_proftab");

fn cpu_profile() -> PathBuf {
    fixture("pprof/cpu.pb.gz")
}

/// The folder holding cpu.go, the program cpu.pb.gz was recorded from.
fn committed_source() -> PathBuf {
    fixture("pprof/src")
}

/// One line of a `-list` routine: flat and cum as printed, line number, text.
#[derive(Debug, Clone, PartialEq)]
struct ListLine {
    flat: String,
    cum: String,
    line: i32,
    text: String,
}

/// A routine of `-list` output: the header's flat as printed, and its lines.
#[derive(Debug)]
struct Routine {
    flat: String,
    lines: Vec<ListLine>,
}

/// Parses `-list` output (`go tool pprof`'s or proftab's: they share the layout).
fn parse_list(report: &str) -> Vec<Routine> {
    let mut routines: Vec<Routine> = Vec::new();
    let mut lines = report.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("ROUTINE ======================== ") {
            let header = lines.next().unwrap();
            let flat = header.split_whitespace().next().unwrap().to_owned();
            routines.push(Routine {
                flat,
                lines: Vec::new(),
            });
            continue;
        }
        let Some(routine) = routines.last_mut() else {
            continue;
        };
        let mut rest = line.trim_start();
        let mut take = || {
            let end = rest.find(' ').unwrap();
            let token = rest[..end].to_owned();
            rest = rest[end..].trim_start();
            token
        };
        let (flat, cum) = (take(), take());
        let (number, text) = rest.split_once(':').unwrap();
        routine.lines.push(ListLine {
            flat,
            cum,
            line: number.trim().parse().unwrap(),
            text: text.to_owned(),
        });
    }
    routines
}

/// The number a pprof value starts with (`720000000ns` → 7.2e8); 0 for `.`.
fn value(printed: &str) -> f64 {
    if printed == "." {
        return 0.0;
    }
    let end = printed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(printed.len());
    printed[..end].parse().unwrap()
}

/// `^name$` with the name's metacharacters escaped (the same regex for Go and regex-lite).
fn exact(name: &str) -> String {
    let mut out = String::from("^");
    for c in name.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('$');
    out
}

/// The folder to find `file` in: the committed source for the profiled program, Go's own
/// sources for the standard library when this machine has them at the recorded path.
fn source_dir_for(file: &str, goroot_src: &Path) -> Option<PathBuf> {
    let name = Path::new(file).file_name()?;
    if committed_source().join(name).is_file() {
        return Some(committed_source());
    }
    (file.starts_with(&*goroot_src.to_string_lossy()) && Path::new(file).is_file())
        .then(|| goroot_src.to_path_buf())
}

/// The functions of the CPU profile by flat, hottest first, with their file.
fn hottest_functions() -> Vec<(String, String)> {
    let p = read_pprof(&cpu_profile());
    let vt = p.default_value_type().unwrap();
    let table = proftab::analysis::functions::function_table(&p, vt, None);
    let mut rows = table.rows;
    rows.sort_by(|a, b| b.self_value.total_cmp(&a.self_value));
    let all = regex_lite::Regex::new("").unwrap();
    let listing = proftab::analysis::source::source_listing(&p, vt, &all, None);
    rows.iter()
        .filter_map(|r| {
            let f = listing.functions.iter().find(|f| f.name == r.name)?;
            Some((r.name.clone(), f.file.clone()))
        })
        .collect()
}

#[test]
fn list_matches_go_tool_pprof_on_the_hottest_functions() {
    let Some(go) = GoPprof::find() else { return };
    let Some(goroot) = go_output(&["env".to_owned(), "GOROOT".to_owned()]) else {
        return;
    };
    let goroot_src = Path::new(goroot.trim()).join("src");
    let profile = cpu_profile();
    let mut compared = Vec::new();
    for (name, file) in hottest_functions() {
        if compared.len() == 3 {
            break;
        }
        let Some(dir) = source_dir_for(&file, &goroot_src) else {
            eprintln!("SKIP: no source of {name} ({file}) on this machine");
            continue;
        };
        let dir_arg = dir.display().to_string();
        let regex = exact(&name);
        // Exact values (-unit=ns prints every value in nanoseconds, unrounded).
        let exact_args = ["-list", &regex, "-source_path", &dir_arg, "-unit=ns"];
        let theirs = parse_list(&go.run(&exact_args, &profile).unwrap());
        assert_eq!(theirs.len(), 1, "{name}: one routine expected");
        let file = profile.to_string_lossy();
        let ours_args = ["list", &regex, &file, "--source-dir", &dir_arg];
        let json = run_json(EXE, &[&ours_args[..], &["--json"]].concat());
        let function = &json["functions"][0];
        assert_eq!(json["functions"].as_array().unwrap().len(), 1);
        assert_eq!(function["self"].as_f64().unwrap(), value(&theirs[0].flat));
        let ours = function["lines"].as_array().unwrap();
        assert_eq!(ours.len(), theirs[0].lines.len(), "{name}: lines shown");
        for (o, t) in ours.iter().zip(&theirs[0].lines) {
            assert_eq!(o["line"].as_i64().unwrap(), i64::from(t.line), "{name}");
            let at = format!("{name} line {}", t.line);
            assert_eq!(o["self"].as_f64().unwrap(), value(&t.flat), "{at}: flat");
            assert_eq!(o["total"].as_f64().unwrap(), value(&t.cum), "{at}: cum");
            assert_eq!(o["text"].as_str().unwrap(), t.text, "{at}: text");
        }
        // The text report: values scaled as pprof scales them, `.` where pprof prints none.
        let printed = go.run(&["-list", &regex, "-source_path", &dir_arg], &profile);
        let theirs = parse_list(&printed.unwrap());
        let out = run(EXE, &ours_args, None);
        assert!(out.status.success(), "{}", stderr(&out));
        let ours = parse_list(&stdout(&out));
        assert_eq!(ours[0].flat, theirs[0].flat, "{name}: header flat");
        assert_eq!(ours[0].lines, theirs[0].lines, "{name}: printed lines");
        compared.push(name);
    }
    eprintln!("compared with go tool pprof -list: {compared:?}");
    assert!(
        compared.iter().any(|n| n == "main.fib"),
        "main.fib (committed source) not compared: {compared:?}"
    );
}

/// `basename#line` → (self, total) in seconds, as `rprof_by_line.R` prints `by.line`.
type ByLine = BTreeMap<String, (f64, f64)>;

fn summary_rprof_by_line(path: &Path) -> Option<(f64, ByLine)> {
    let out = support::r::run_rscript("rprof_by_line.R", &[path]);
    let mut interval = None;
    let mut rows = ByLine::new();
    for line in out.lines() {
        match line.split('\t').collect::<Vec<_>>()[..] {
            ["FILE", _, "ERROR", message] => {
                eprintln!("note: summaryRprof fails on {}: {message}", path.display());
                return None;
            }
            ["FILE", _, i] => interval = Some(i.parse().unwrap()),
            ["ROW", key, s, t] => {
                rows.insert(key.to_owned(), (s.parse().unwrap(), t.parse().unwrap()));
            }
            _ => panic!("unexpected line from R: {line}"),
        }
    }
    Some((interval?, rows))
}

/// Per `basename#line` of every function's listing: the sum of the functions' self and the
/// largest and the summed total, in ticks.
fn listed_lines(json: &Value) -> BTreeMap<String, (f64, f64, f64)> {
    let mut by_line: BTreeMap<String, (f64, f64, f64)> = BTreeMap::new();
    for f in json["functions"].as_array().unwrap() {
        let base = Path::new(f["file"].as_str().unwrap())
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for l in f["lines"].as_array().unwrap() {
            let key = format!("{base}#{}", l["line"]);
            let (s, t) = (l["self"].as_f64().unwrap(), l["total"].as_f64().unwrap());
            let e = by_line.entry(key).or_default();
            *e = (e.0 + s, e.1.max(t), e.2 + t);
        }
    }
    by_line
}

#[test]
fn rprof_list_agrees_with_summary_rprof_by_line() {
    if !have_tool("Rscript", "rprof_list_agrees_with_summary_rprof_by_line") {
        return;
    }
    for name in ["line.out", "combined.out"] {
        let path = fixture("rprof").join(name);
        let Some((interval, theirs)) = summary_rprof_by_line(&path) else {
            continue;
        };
        // A name with a space leaves R a piece it takes for a source reference (`NA#b"]]"`,
        // see lines_fidelity.rs); when that piece has self, it took it from a real line.
        let self_too = theirs
            .iter()
            .all(|(k, v)| !k.starts_with("NA#") || v.0 == 0.0);
        assert!(
            self_too,
            "{name}: R charged self to a name piece; pick another file"
        );
        let seconds = |ticks: f64| (ticks * interval * 100.0).round() / 100.0;
        let args = [
            "list",
            ".",
            &path.to_string_lossy(),
            "--type",
            "samples",
            "--json",
        ];
        let ours = listed_lines(&run_json(EXE, &args));
        assert!(ours.len() >= 5, "{name}: {} lines listed", ours.len());
        for (key, &(self_ticks, max_total, sum_total)) in &ours {
            let &(r_self, r_total) = theirs
                .get(key)
                .unwrap_or_else(|| panic!("{name}: {key} not in by.line"));
            assert!(
                (seconds(self_ticks) - r_self).abs() < 1e-9,
                "{name} {key} self"
            );
            // A line of one function has R's total; a line of several (closures defined on
            // it) counts a sample once per function here and once in R.
            let (lo, hi) = (seconds(max_total), seconds(sum_total));
            assert!(
                lo - 1e-9 <= r_total && r_total <= hi + 1e-9,
                "{name} {key} total: R {r_total}, ours {lo}..{hi}"
            );
        }
    }
}

#[test]
fn help_and_usage_errors() {
    let help = run(EXE, &["help", "list"], None);
    assert!(help.status.success());
    assert!(stdout(&help).starts_with("usage: proftab list REGEX FILE..."));
    assert!(stdout(&run(EXE, &["help"], None)).contains("proftab list REGEX FILE..."));
    let profile = cpu_profile();
    let file = profile.to_string_lossy();
    let cases: [(&[&str], u8, &str); 4] = [
        (&["list"], 2, "list needs a REGEX and at least one FILE"),
        (
            &["list", "main"],
            2,
            "list needs a REGEX and at least one FILE",
        ),
        (&["list", "(", &file], 2, "invalid REGEX \"(\""),
        (
            &["list", "^nothing$", &file],
            1,
            "no function with a source line matches",
        ),
    ];
    for (args, status, message) in cases {
        let out = run(EXE, args, None);
        assert_eq!(out.status.code(), Some(i32::from(status)), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }
}

/// (line, self, total, text) of the first function of a `--json` listing.
fn first_function_lines(json: &Value) -> Vec<(i64, f64, f64, Option<String>)> {
    json["functions"][0]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let text = l["text"].as_str().map(str::to_owned);
            let (s, t) = (l["self"].as_f64().unwrap(), l["total"].as_f64().unwrap());
            (l["line"].as_i64().unwrap(), s, t, text)
        })
        .collect()
}

#[test]
fn source_is_found_by_the_longest_path_suffix() {
    let profile = cpu_profile();
    let file = profile.to_string_lossy();
    let src = committed_source();
    let found = run_json(
        EXE,
        &[
            "list",
            "^main\\.fib$",
            &file,
            "--source-dir",
            &src.to_string_lossy(),
            "--json",
        ],
    );
    // main.fib's file is /work/pprof/tests/fixtures/pprof/src/cpu.go, from another machine.
    assert!(json_str(&found["functions"][0]["file"]).ends_with("src/cpu.go"));
    let lines = first_function_lines(&found);
    let fib = lines
        .iter()
        .find(|l| l.3.as_deref() == Some("func fib(n int) int {"));
    let fib = fib.expect("the line of `func fib` shown");
    assert!(fib.1 > 0.0 && fib.2 >= fib.1);
    // Every line shown has a text, the lines run without a gap, 5 past the last with a cost.
    assert!(lines.iter().all(|l| l.3.is_some()));
    assert!(lines.windows(2).all(|w| w[1].0 == w[0].0 + 1));
    let last_cost = lines.iter().rev().find(|l| l.2 > 0.0).unwrap().0;
    assert_eq!(lines.last().unwrap().0, last_cost + 5);
    // Under a folder that does not hold it: the lines with a cost, without text, and a warning.
    let empty = support::corpus::scratch_dir("cli-list-empty");
    let args = [
        "list",
        "^main\\.fib$",
        &file,
        "--source-dir",
        &empty.to_string_lossy(),
    ];
    let out = run(EXE, &args, None);
    assert!(out.status.success());
    assert!(stderr(&out)
        .contains("warning: source file /work/pprof/tests/fixtures/pprof/src/cpu.go not found"));
    let missing = first_function_lines(&run_json(EXE, &[&args[..], &["--json"]].concat()));
    let with_cost: Vec<_> = lines
        .iter()
        .filter(|l| l.2 > 0.0)
        .map(|l| (l.0, l.1, l.2))
        .collect();
    let without: Vec<_> = missing.iter().map(|l| (l.0, l.1, l.2)).collect();
    assert_eq!(without, with_cost);
    assert!(missing.iter().all(|l| l.3.is_none()));
}

fn json_str(v: &Value) -> &str {
    v.as_str().unwrap()
}

#[test]
fn json_totals_are_the_functions_own() {
    let profile = cpu_profile();
    let json = run_json(
        EXE,
        &["list", "^main\\.fib$", &profile.to_string_lossy(), "--json"],
    );
    assert_eq!(json["type"], "cpu");
    assert_eq!(json["unit"], "nanoseconds");
    let f = &json["functions"][0];
    let lines = first_function_lines(&json);
    let self_sum: f64 = lines.iter().map(|l| l.1).sum();
    assert_eq!(f["self"].as_f64().unwrap(), self_sum);
    // Recursive: the function's total counts a sample once, not once per line.
    let top = run_json(EXE, &["top", &profile.to_string_lossy(), "--json"]);
    let fib = top["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "main.fib")
        .unwrap();
    assert_eq!(f["total"], fib["total"]);
    assert_eq!(f["self"], fib["self"]);
}
