//! Rprof → pprof, judged by Go and R: for every Rprof file, `go tool pprof -top` on proftab's
//! pprof conversion must give the flat (self) and cum (total) of every function, and the total,
//! that `summaryRprof()` gives for the Rprof file (samples × interval, memory in MiB). Skips,
//! visibly, without a pprof writer in this build, without Go or without R.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use proftab::formats::{rprof, write_as, Format, ReadOptions, WriteOptions};
use proftab::model::Profile;

/// `go tool pprof -top` of `file` for one sample type: (name, flat, cum) per function and the
/// total. `unit` is passed as `-unit` (values are then plain numbers with that suffix).
/// `-symbolize=none`: there is no binary to symbolize, and go 1.19's default demangling turns
/// the function `<GC>` (name = system name) into `<unknown>`.
fn go_top(file: &Path, sample_index: &str, unit: &str) -> (Vec<(String, f64, f64)>, f64) {
    let out = Command::new("go")
        .args([
            "tool",
            "pprof",
            "-top",
            "-symbolize=none",
            "-nodecount=1000000",
        ])
        .arg("-nodefraction=0")
        .args(["-edgefraction=0", &format!("-sample_index={sample_index}")])
        .arg(format!("-unit={unit}"))
        .arg(file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "go tool pprof failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let number = |s: &str| -> f64 {
        let digits = s.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        digits
            .parse()
            .unwrap_or_else(|_| panic!("number {s:?} in\n{text}"))
    };
    let total = text
        .lines()
        .find_map(|l| l.strip_prefix("Showing nodes accounting for "))
        .and_then(|l| l.split(" of ").nth(1))
        .and_then(|l| l.split_whitespace().next())
        .map(number)
        .unwrap_or_else(|| panic!("no total in\n{text}"));
    let mut rows: Vec<(String, f64, f64)> = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.trim_start().starts_with("flat  flat%") {
            in_table = true;
            continue;
        }
        if !in_table {
            continue;
        }
        let mut rest = line.trim_start();
        let mut fields = Vec::new();
        for _ in 0..5 {
            let end = rest.find(' ').unwrap_or(rest.len());
            fields.push(&rest[..end]);
            rest = rest[end..].trim_start();
        }
        let numeric = fields[0].starts_with(|c: char| c.is_ascii_digit());
        match rows.last_mut() {
            // go prints names raw: a line break in a name continues the previous row.
            Some((name, _, _)) if !numeric => {
                name.push('\n');
                name.push_str(line);
            }
            _ => rows.push((rest.to_owned(), number(fields[0]), number(fields[3]))),
        }
    }
    (rows, total)
}

/// go's table in the R script's format. `#total` only when every sample has frames (R's
/// sampling.time leaves out memory-only lines), is one line (R reads a name's line break as a
/// new sample) and the file has one header (R reads a second header line as a sample and every
/// sample at the first header's interval).
fn go_table_tsv(p: &Profile, pb: &Path) -> String {
    let (counts, total) = go_top(pb, "samples", "count");
    let memory = p
        .value_type_index("memory_increase")
        .map(|_| go_top(pb, "memory_increase", "B").0);
    let mut out = String::new();
    let one_run = p.meta_values("rprof.header").count() == 1;
    let one_line_each = !counts.iter().any(|r| r.0.contains('\n'));
    let all_framed = (0..p.num_samples()).all(|s| p.samples.stack[s] != u32::MAX);
    if one_run && one_line_each && all_framed {
        writeln!(out, "#total\t{total}\tNA\tNA").unwrap();
    }
    support::r::push_table_rows(&mut out, &counts, memory.as_deref());
    out
}

#[test]
fn go_pprof_top_agrees_with_summary_rprof() {
    if !Format::Pprof.can_write() {
        eprintln!("SKIP: rprof → pprof: this build has no pprof writer");
        return;
    }
    if !support::cli::have_tool("go", "rprof → pprof")
        || !support::cli::have_tool("Rscript", "rprof → pprof")
    {
        return;
    }
    support::r::assert_tables_agree_with_r(
        "rprof-pprof",
        "go tool pprof disagrees with summaryRprof",
        |scratch, i, path| {
            let parsed =
                rprof::read(&std::fs::read(path).unwrap(), &ReadOptions::default()).unwrap();
            let written = write_as(Format::Pprof, &parsed.profile, &WriteOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let pb = scratch.join(format!("{i}.pb.gz"));
            std::fs::write(&pb, &written.bytes).unwrap();
            go_table_tsv(&parsed.profile, &pb)
        },
    );
}
