//! Checks shared by the tests of the small read-only importers (dhat, instruments, stackprof,
//! pmcstat, papyrus): a golden text view of a profile, every corpus-new file read and kept, the
//! detectors of the other formats refusing the file, and `proftab convert -o x.pb.gz` judged by
//! `go tool pprof -top` against `proftab top`.

use std::path::Path;
use std::process::Command;

use proftab::formats::{self, registry, Format};
use proftab::model::Profile;

use super::cli::run_json;
use super::corpus::{corpus_new, file_name, scratch_dir};
use super::go::{go_output, parse_top};
use super::json::{sample_lines, totals};
use super::profile::read_path;
use super::reliability::{assert_function_tables, assert_tables_json_round_trip};
use super::text::{assert_detected, close};

/// The golden view of a profile: value types with totals, meta rows, then one line per sample.
pub fn golden_text(p: &Profile) -> String {
    let mut out = String::new();
    for t in totals(p) {
        out.push_str(&format!("total {t}\n"));
    }
    for (k, v) in p.meta.key.iter().zip(&p.meta.value) {
        out.push_str(&format!("meta {}={}\n", p.str(*k), p.str(*v)));
    }
    for line in sample_lines(p) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Asserts that no registered detector but `format`'s claims `bytes`.
pub fn assert_only_detector(format: Format, bytes: &[u8], what: &str) {
    for spec in registry() {
        if let Some(detect) = spec.detect {
            let claims = detect(bytes);
            assert_eq!(
                claims,
                spec.format == format,
                "{what}: detector of {} says {claims}",
                spec.format.name()
            );
        }
    }
}

/// Every file of corpus-new `folder`: detected as `format` (and by no other detector), read
/// with a valid profile, totals kept through tables-JSON, function tables that add up. Returns
/// the number of files.
pub fn check_corpus_new(format: Format, folder: &str) -> usize {
    let files = corpus_new(folder);
    for path in &files {
        let what = path.display().to_string();
        assert_detected(format, path);
        assert_only_detector(format, &std::fs::read(path).unwrap(), &what);
        let p = read_path(format, path).profile;
        assert!(p.num_samples() > 0, "{what}: no samples");
        assert_tables_json_round_trip(&p, &what);
        assert_function_tables(&p, &what);
    }
    files.len()
}

/// `proftab convert FILE -o x.pb.gz`, then `go tool pprof -top -sample_index=TYPE` of the
/// result must give the rows of `proftab top FILE --type TYPE` (flat and cum per function).
/// Returns false (after `SKIP:`) when Go is missing.
pub fn check_pprof_conversion(path: &Path, value_type: &str) -> bool {
    let exe = env!("CARGO_BIN_EXE_proftab");
    let out = scratch_dir("importers").join(format!("{}.pb.gz", file_name(path)));
    let file = path.to_str().unwrap();
    let status = Command::new(exe)
        .args(["convert", file, "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "convert {file}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let top = run_json(exe, &["top", file, "--type", value_type, "--json"]);
    let unit = top["unit"].as_str().unwrap();
    let mut args: Vec<String> = [
        "tool",
        "pprof",
        "-symbolize=none",
        "-top",
        "-nodecount=1000000",
        "-nodefraction=0",
        "-edgefraction=0",
    ]
    .map(str::to_owned)
    .to_vec();
    args.push(format!("-sample_index={value_type}"));
    // Raw sums, unscaled: pprof scales bytes and times unless told their own unit.
    match unit {
        "bytes" => args.push("-unit=byte".to_owned()),
        "nanoseconds" => args.push("-unit=ns".to_owned()),
        "milliseconds" => args.push("-unit=ms".to_owned()),
        "microseconds" => args.push("-unit=us".to_owned()),
        _ => {}
    }
    args.push(out.display().to_string());
    let Some(report) = go_output(&args) else {
        return false;
    };
    let rows = parse_top(&report).1;
    let mine = top["functions"].as_array().unwrap();
    let nonzero: Vec<_> = mine
        .iter()
        .filter(|r| r["self"].as_f64() != Some(0.0) || r["total"].as_f64() != Some(0.0))
        .collect();
    assert_eq!(nonzero.len(), rows.len(), "{file}: number of functions");
    for row in &rows {
        let m = nonzero
            .iter()
            .find(|r| r["name"] == row.name.as_str())
            .unwrap_or_else(|| panic!("{file}: proftab top has no row {}", row.name));
        let (flat, cum) = (m["self"].as_f64().unwrap(), m["total"].as_f64().unwrap());
        assert!(
            close(flat, row.flat) && close(cum, row.cum),
            "{file}: {}: proftab {flat}/{cum}, go {}/{}",
            row.name,
            row.flat,
            row.cum
        );
    }
    true
}

/// Reads `bytes` as `format` and returns the error text or the warnings (for invalid inputs).
pub fn outcome_text(format: Format, bytes: &[u8]) -> String {
    match formats::read_as(format, bytes, &formats::ReadOptions::default()) {
        Ok(parsed) => parsed
            .warnings
            .iter()
            .map(|w| format!("warning: {w}\n"))
            .collect(),
        Err(e) => format!("{e}\n"),
    }
}
