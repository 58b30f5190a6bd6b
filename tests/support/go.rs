//! Go's pprof as a judge: the profiles recorded with Go's runtime/pprof
//! (`tests/fixtures/pprof`), reading pprof files with proftab, running `go tool pprof` and
//! parsing its `-top` report.
//!
//! Whatever needs Go returns `None` (after printing a `SKIP:` line) when `go` cannot be run,
//! so the tests pass, visibly skipped, on a machine without Go. `go tool pprof` always runs with
//! `-symbolize=none`, so its output does not depend on binaries on this machine.

use std::path::{Path, PathBuf};
use std::process::Command;

use proftab::formats::{pprof, WriteOptions};
use proftab::model::Profile;

use super::corpus::{files_in, fixture, scratch_dir};
use super::profile::{assert_valid, options};

/// tests/fixtures/pprof/*.pb.gz (the profiles recorded with Go's runtime/pprof).
pub fn fixture_files() -> Vec<PathBuf> {
    files_in(&fixture("pprof"))
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".pb.gz"))
        .collect()
}

/// Reads a pprof file with proftab (its path as source URI); the profile must be valid.
pub fn read_pprof(path: &Path) -> Profile {
    let bytes = std::fs::read(path).unwrap();
    let what = path.display().to_string();
    let profile = pprof::read(&bytes, &options(Some(&what)))
        .unwrap_or_else(|e| panic!("{what}: {e}"))
        .profile;
    assert_valid(&profile, &what);
    profile
}

/// `go tool pprof`, when Go is installed.
pub struct GoPprof {
    scratch: PathBuf,
}

impl GoPprof {
    /// `None` (after printing a SKIP note) when `go` cannot be run.
    pub fn find() -> Option<GoPprof> {
        let ok = Command::new("go")
            .arg("version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            eprintln!("SKIP: `go` not found; go tool pprof comparisons not run");
            return None;
        }
        Some(GoPprof {
            scratch: scratch_dir("pprof-tests"),
        })
    }

    /// The scratch folder `go tool pprof` runs in (`PPROF_TMPDIR`, `PPROF_BINARY_PATH`).
    pub fn scratch(&self) -> &Path {
        &self.scratch
    }

    /// stdout of `go tool pprof -symbolize=none ARGS FILE`; fails on a non-zero exit.
    pub fn run(&self, args: &[&str], file: &Path) -> Result<String, String> {
        let out = Command::new("go")
            .args(["tool", "pprof", "-symbolize=none"])
            .args(args)
            .arg(file)
            .env("PPROF_TMPDIR", &self.scratch)
            .env("PPROF_BINARY_PATH", &self.scratch)
            .output()
            .map_err(|e| format!("cannot run go tool pprof: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "go tool pprof {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Writes `profile` with proftab's pprof writer into the scratch folder.
    pub fn write_profile(&self, profile: &Profile, name: &str) -> PathBuf {
        let written = pprof::write(profile, &WriteOptions::default()).unwrap();
        let path = self.scratch.join(name);
        std::fs::write(&path, written.bytes).unwrap();
        path
    }

    /// Reads `path`, writes it back, and compares `go tool pprof -top -sample_index=N` for
    /// every N, `-traces` and `-raw`.
    pub fn check_round_trip(&self, path: &Path) -> Result<(), String> {
        let profile = read_pprof(path);
        let name = format!(
            "{}.rewritten.pb.gz",
            path.file_name().unwrap().to_string_lossy()
        );
        let rewritten = self.write_profile(&profile, &name);
        let mut views: Vec<Vec<String>> = (0..profile.values.len())
            .map(|i| vec!["-top".to_owned(), format!("-sample_index={i}")])
            .collect();
        views.push(vec!["-traces".to_owned()]);
        // -raw prints every id, address, mapping, label and comment the profile holds.
        views.push(vec!["-raw".to_owned()]);
        for view in views {
            let args: Vec<&str> = view.iter().map(String::as_str).collect();
            let want = comparable(&self.run(&args, path)?);
            let got = comparable(&self.run(&args, &rewritten)?);
            if want != got {
                return Err(format!(
                    "{args:?} differs\n{}",
                    first_difference(&want, &got)
                ));
            }
        }
        Ok(())
    }
}

/// The report text that must match. Nothing is removed: every header line (`File:` from the
/// main mapping, `Build ID:`, `Type:`, `Time:` from time_nanos, `Duration:`) comes from data
/// the round trip keeps, so it must survive too.
pub fn comparable(report: &str) -> String {
    report.to_owned()
}

/// The first differing line of two reports, with its neighbours.
pub fn first_difference(want: &str, got: &str) -> String {
    let w: Vec<&str> = want.lines().collect();
    let g: Vec<&str> = got.lines().collect();
    let i = w
        .iter()
        .zip(&g)
        .position(|(a, b)| a != b)
        .unwrap_or(w.len().min(g.len()));
    let from = i.saturating_sub(2);
    format!(
        "line {}:\n  original:  {:?}\n  rewritten: {:?}\n({} vs {} lines)",
        i + 1,
        &w[from..(i + 3).min(w.len())],
        &g[from..(i + 3).min(g.len())],
        w.len(),
        g.len()
    )
}

/// stdout of `go ARGS` (which must succeed); `None` (after printing `SKIP:`) when Go is
/// missing.
pub fn go_output(args: &[String]) -> Option<String> {
    let Ok(out) = Command::new("go").args(args).output() else {
        eprintln!("SKIP: `go` not found; go tool pprof comparison not run");
        return None;
    };
    assert!(
        out.status.success(),
        "go {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

/// `go tool pprof -top` of `file` for `sample_index`, every node shown, values in the type's
/// own unit (`-unit=ns` for nanoseconds, `-unit=byte` for bytes). `None` (after printing `SKIP:`) when Go is missing.
pub fn go_top(file: &Path, sample_index: &str, unit: &str) -> Option<Vec<TopRow>> {
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
    args.push(format!("-sample_index={sample_index}"));
    // Raw sums, unscaled: pprof scales bytes and times unless told their own unit.
    match unit {
        "nanoseconds" => args.push("-unit=ns".to_owned()),
        "bytes" => args.push("-unit=byte".to_owned()),
        _ => {}
    }
    args.push(file.display().to_string());
    Some(parse_top(&go_output(&args)?).1)
}

/// One row of `go tool pprof -top`: function name (without `(inline)` or `(partial-inline)`),
/// flat, cum.
#[derive(Debug, Clone, PartialEq)]
pub struct TopRow {
    pub name: String,
    pub flat: f64,
    pub cum: f64,
}

/// The total and the rows of a `-top` report. Printed with `-unit` equal to the type's own
/// unit, the numbers are the raw sums followed by a unit suffix.
pub fn parse_top(report: &str) -> (f64, Vec<TopRow>) {
    let mut total = f64::NAN;
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in report.lines() {
        if let Some(rest) = line.strip_prefix("Showing nodes accounting for ") {
            // "A, P% of T total"
            if let Some(of) = rest.split(" of ").nth(1) {
                total = leading_number(of.trim_end_matches(" total"));
            }
        } else if line.trim_start().starts_with("flat  flat%") {
            in_table = true;
        } else if in_table {
            rows.extend(parse_top_row(line));
        }
    }
    (total, rows)
}

/// A row of the `-top` table: five number columns, then the name as printed (it may hold
/// spaces or tabs); `None` for a line with fewer columns.
fn parse_top_row(line: &str) -> Option<TopRow> {
    let mut rest = line;
    let mut numbers = Vec::new();
    for _ in 0..5 {
        let trimmed = rest.trim_start();
        let end = trimmed.find(char::is_whitespace)?;
        numbers.push(&trimmed[..end]);
        rest = &trimmed[end..];
    }
    let name = rest.strip_prefix("  ").unwrap_or(rest.trim_start());
    Some(TopRow {
        // pprof marks functions inlined everywhere / somewhere; proftab's name has no mark.
        name: name
            .trim_end_matches(" (inline)")
            .trim_end_matches(" (partial-inline)")
            .to_owned(),
        flat: leading_number(numbers[0]),
        cum: leading_number(numbers[3]),
    })
}

/// The number a column starts with (`12.5ms` → 12.5); NaN when there is none.
fn leading_number(s: &str) -> f64 {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e' || c == '+'))
        .unwrap_or(s.len());
    s[..end].parse().unwrap_or(f64::NAN)
}
