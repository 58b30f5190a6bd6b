//! Checks shared by the tests of the small read-only importers (dhat, instruments, stackprof,
//! pmcstat, papyrus): a golden text view of a profile, every corpus-new file read and kept, the
//! detectors of the other formats refusing the file, and `proftab convert -o x.pb.gz` judged by
//! `go tool pprof -top` against `proftab top`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use proftab::formats::{registry, Format};
use proftab::model::Profile;
use proftab::model::ValueTypeIndex;

use super::cli::run_json;
use super::corpus::{corpus_new, corpus_new_folders, file_name, fixture, scratch_dir};
use super::go::go_top;
use super::golden;
use super::json::{sample_lines, totals};
use super::profile::read_path;
use super::reliability::{assert_function_tables, assert_tables_json_round_trip};
use super::text::{assert_detected, assert_other_formats_not_claimed, close, truncation_sweep};

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
    let Some(rows) = go_top(&out, value_type, unit) else {
        return false;
    };
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

/// Each file of `files` (read as `format`, detected as it) against its golden view
/// `tests/fixtures/<folder>/<name without suffix>.expected`, warnings appended.
pub fn check_golden_fixtures(
    format: Format,
    files: &[std::path::PathBuf],
    folder: &str,
    suffix: &str,
) {
    assert!(!files.is_empty(), "no fixtures in {folder}");
    for path in files {
        assert_detected(format, path);
        let parsed = read_path(format, path);
        let mut text = golden_text(&parsed.profile);
        for w in &parsed.warnings {
            text.push_str(&format!("warning: {w}\n"));
        }
        let name = file_name(path).replace(suffix, ".expected");
        golden::check(&fixture(folder).join(name), &text);
    }
}

/// [`check_pprof_conversion`] for every value type of every file of `files`.
pub fn check_pprof_conversion_all_types(format: Format, files: &[std::path::PathBuf]) {
    for path in files {
        let p = read_path(format, path).profile;
        for i in 0..p.values.len() {
            let (t, _) = p.value_type_names(ValueTypeIndex(i as u32));
            if !check_pprof_conversion(path, t) {
                return;
            }
        }
    }
}

/// `detect` claims no file of the other formats' corpus folders (corpus and corpus-new), and
/// no prefix of any of `files` makes the reader panic.
pub fn check_robustness(format: Format, detect: fn(&[u8]) -> bool, files: &[std::path::PathBuf]) {
    assert_other_formats_not_claimed(detect, "", &[]);
    for folder in corpus_new_folders() {
        if folder == format.name() {
            continue;
        }
        for path in corpus_new(&folder) {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !detect(&bytes),
                "{} claimed by {}",
                path.display(),
                format.name()
            );
        }
    }
    for path in files {
        truncation_sweep(format, &std::fs::read(path).unwrap());
    }
}

/// `proftab top FILE [--type TYPE] --json`: the type's total and, per function, (self, total).
pub fn top_rows(path: &Path, value_type: Option<&str>) -> (f64, BTreeMap<String, (f64, f64)>) {
    let mut args = vec!["top", path.to_str().unwrap(), "--json"];
    if let Some(t) = value_type {
        args.extend(["--type", t]);
    }
    let top = run_json(env!("CARGO_BIN_EXE_proftab"), &args);
    let rows = top["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let name = r["name"].as_str().unwrap().to_owned();
            (
                name,
                (r["self"].as_f64().unwrap(), r["total"].as_f64().unwrap()),
            )
        })
        .collect();
    (top["total"].as_f64().unwrap(), rows)
}
