//! The source-line table (`proftab top --by line`) against its two judges:
//! `summaryRprof(lines = "show")$by.line` for every Rprof file with line profiling, and
//! `go tool pprof -top -lines` for the recorded Go CPU profile. Skips (visibly) without R / Go.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use proftab::analysis::lines::{line_table, LineTable};
use proftab::formats::{read_any, ReadOptions};
use proftab::model::Profile;

fn read(path: &Path) -> Profile {
    let bytes = std::fs::read(path).unwrap();
    read_any(&bytes, &ReadOptions::default()).unwrap().profile
}

/// `file#line` → (self, total) in seconds, as `rprof_by_line.R` prints them per file.
type ByLine = BTreeMap<String, (f64, f64)>;

/// One file's `by.line`, and its sample interval in seconds.
type RByLine = (PathBuf, Result<(f64, ByLine), String>);

fn summary_rprof_by_line(files: &[PathBuf]) -> Vec<RByLine> {
    let out = support::r::run_rscript("rprof_by_line.R", files);
    let mut result: Vec<RByLine> = Vec::new();
    for line in out.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        match fields[..] {
            ["FILE", path, "ERROR", message] => {
                result.push((path.into(), Err(message.to_owned())));
            }
            ["FILE", path, interval] => {
                result.push((path.into(), Ok((interval.parse().unwrap(), ByLine::new()))));
            }
            ["ROW", key, self_time, total_time] => {
                let (_, Ok((_, rows))) = result.last_mut().unwrap() else {
                    panic!("row after an error: {line}")
                };
                rows.insert(
                    key.to_owned(),
                    (self_time.parse().unwrap(), total_time.parse().unwrap()),
                );
            }
            _ => panic!("unexpected line from R: {line}"),
        }
    }
    result
}

/// Our table (of the `samples` type, in ticks) in R's terms: `basename#line` (or `<no
/// location>`) → (self, total) in seconds, rounded as `summaryRprof` rounds (3 decimals for
/// intervals under 10 ms, else 2).
fn ours_by_line(t: &LineTable, interval: f64) -> ByLine {
    let digits = if interval < 0.01 { 3 } else { 2 };
    let seconds = |ticks: f64| {
        let scale = 10f64.powi(digits);
        (ticks * interval * scale).round() / scale
    };
    t.rows
        .iter()
        .map(|r| {
            let key = r.line.map_or("<no location>".to_owned(), |l| {
                let base = Path::new(&r.file).file_name().unwrap_or_default();
                format!("{}#{}", base.to_string_lossy(), l.line)
            });
            (key, (seconds(r.self_value), seconds(r.total_value)))
        })
        .collect()
}

/// The samples `summaryRprof` keeps: with memory profiling it drops samples without frames
/// (its `nc == 0` step), without it they count as `<no location>`.
fn samples_r_keeps(p: &Profile) -> impl Fn(usize) -> bool + '_ {
    let memory = p.value_type_index("memory_increase").is_some();
    move |s| !memory || p.samples.stack[s] != proftab::model::NO_INDEX
}

fn same(ours: &ByLine, theirs: &ByLine, self_too: bool) -> bool {
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    ours.len() == theirs.len()
        && ours
            .iter()
            .zip(theirs)
            .all(|((k, a), (l, b))| k == l && close(a.1, b.1) && (!self_too || close(a.0, b.0)))
}

fn has_line_profiling(path: &Path) -> bool {
    std::fs::read(path)
        .map(|b| {
            let head = &b[..b.len().min(200)];
            String::from_utf8_lossy(head).contains("line profiling")
        })
        .unwrap_or(false)
}

/// R splits a sample line at spaces, so a name with a space leaves a piece that R takes for a
/// source reference (`NA#b"]]"`); those rows have no counterpart and are left out. Such a
/// piece can also take the self value of its sample from the real innermost line, so in a
/// file with such rows only totals are compared.
fn judged_by_r(key: &str) -> bool {
    !key.starts_with("NA#")
}

#[test]
fn rprof_line_table_matches_summary_rprof_by_line() {
    if !support::cli::have_tool("Rscript", "rprof_line_table_matches_summary_rprof_by_line") {
        return;
    }
    let files: Vec<PathBuf> = support::r::valid_files()
        .into_iter()
        .filter(|p| has_line_profiling(p))
        .collect();
    assert!(
        files.len() >= 8,
        "only {} files with line profiling",
        files.len()
    );
    let mut compared = 0;
    let mut failures = Vec::new();
    for (path, by_line) in summary_rprof_by_line(&files) {
        let (interval, theirs) = match by_line {
            Ok(result) => result,
            Err(e) => {
                eprintln!("note: summaryRprof fails on {}: {e}", path.display());
                continue;
            }
        };
        let p = read(&path);
        let samples = p.value_type_index("samples").unwrap();
        let keep = samples_r_keeps(&p);
        let ours = ours_by_line(&line_table(&p, samples, Some(&keep)), interval);
        let self_too = theirs.keys().all(|k| judged_by_r(k));
        let theirs: ByLine = theirs.into_iter().filter(|(k, _)| judged_by_r(k)).collect();
        compared += 1;
        if !same(&ours, &theirs, self_too) {
            failures.push(format!(
                "{}:\n  proftab {ours:?}\n  R       {theirs:?}",
                path.display()
            ));
        }
    }
    assert!(compared >= 8, "only {compared} files compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `file:line` → (flat, cum) of each function pprof shows at that line.
type GoLines = BTreeMap<String, Vec<(f64, f64)>>;

/// `go tool pprof -top -lines`: the total and the rows.
fn go_top_lines(path: &Path) -> Option<(f64, GoLines)> {
    let out = Command::new("go")
        .args([
            "tool",
            "pprof",
            "-top",
            "-lines",
            "-nodefraction=0",
            "-nodecount=1000000",
            "-unit=ns",
        ])
        .arg(path)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut total = None;
    let mut rows = GoLines::new();
    for line in text.lines() {
        if let Some(rest) = line
            .split(" of ")
            .nth(1)
            .filter(|_| line.starts_with("Showing"))
        {
            total = rest
                .trim_end_matches(" total")
                .trim_end_matches("ns")
                .parse()
                .ok();
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let [flat, _, _, cum, _, _function, location, ..] = f[..] else {
            continue;
        };
        let (Ok(flat), Ok(cum)) = (
            flat.trim_end_matches("ns").parse::<f64>(),
            cum.trim_end_matches("ns").parse::<f64>(),
        ) else {
            continue;
        };
        rows.entry(location.to_owned())
            .or_default()
            .push((flat, cum));
    }
    Some((total?, rows))
}

#[test]
fn pprof_line_table_matches_go_top_lines() {
    if !support::cli::have_tool("go", "pprof_line_table_matches_go_top_lines") {
        return;
    }
    let path = support::corpus::fixture("pprof").join("cpu.pb.gz");
    let (go_total, go_rows) = go_top_lines(&path).expect("go tool pprof -top -lines");
    let p = read(&path);
    let t = line_table(&p, p.value_type_index("cpu").unwrap(), None);
    assert_eq!(t.total, go_total);
    let ours: BTreeMap<String, (f64, f64)> = t
        .rows
        .iter()
        .filter(|r| r.self_value != 0.0 || r.total_value != 0.0)
        .map(|r| (r.label(), (r.self_value, r.total_value)))
        .collect();
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        go_rows.keys().collect::<Vec<_>>(),
        "the same lines"
    );
    let mut shared_lines = 0;
    for (line, functions) in &go_rows {
        let (self_value, total_value) = ours[line];
        let flat: f64 = functions.iter().map(|r| r.0).sum();
        assert_eq!(self_value, flat, "{line}: self");
        // pprof keys lines by function too: a closure defined and called on one line is two
        // rows there, whose cum overlap; the line's total is then at least the largest.
        match functions[..] {
            [(_, cum)] => assert_eq!(total_value, cum, "{line}: total"),
            _ => {
                shared_lines += 1;
                let largest = functions.iter().map(|r| r.1).fold(0.0, f64::max);
                let sum: f64 = functions.iter().map(|r| r.1).sum();
                assert!(
                    (largest..=sum).contains(&total_value),
                    "{line}: total {total_value} outside {largest}..={sum}"
                );
            }
        }
    }
    eprintln!(
        "{} lines compared, {shared_lines} shared by several functions",
        go_rows.len()
    );
    cli_prints_the_table(&path, "cpu", &ours);
}

/// `proftab top --by line --json` gives the same rows as [`line_table`].
fn cli_prints_the_table(path: &Path, value_type: &str, ours: &BTreeMap<String, (f64, f64)>) {
    let path = path.display().to_string();
    let args = ["top", "--by", "line", "--json", "--type", value_type, &path];
    let v = support::cli::run_json(env!("CARGO_BIN_EXE_proftab"), &args);
    let rows = v["lines"].as_array().unwrap();
    let printed: BTreeMap<String, (f64, f64)> = rows
        .iter()
        .filter(|r| r["self"] != 0.0 || r["total"] != 0.0)
        .map(|r| {
            let label = format!("{}:{}", r["file"].as_str().unwrap(), r["line"]);
            (
                label,
                (r["self"].as_f64().unwrap(), r["total"].as_f64().unwrap()),
            )
        })
        .collect();
    assert_eq!(&printed, ours);
}
