//! Helpers shared by the pprof integration tests: corpus and fixture discovery, and running
//! `go tool pprof` on a file.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use proftab::formats::{pprof, ReadOptions, WriteOptions};
use proftab::model::Profile;

/// `shared/corpus`, from `PROFTAB_CORPUS` or beside the repository.
pub fn corpus_dir() -> PathBuf {
    std::env::var("PROFTAB_CORPUS").map_or_else(
        |_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")),
        PathBuf::from,
    )
}

/// The files of one corpus folder, sorted; empty (with a SKIP note) when it is missing.
pub fn corpus_files(folder: &str) -> Vec<PathBuf> {
    let dir = corpus_dir().join(folder);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("SKIP: corpus folder {} not found", dir.display());
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    files.sort();
    files
}

/// tests/fixtures/pprof/*.pb.gz (the profiles recorded with Go's runtime/pprof).
pub fn fixture_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pprof");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| Some(e.ok()?.path()))
                .filter(|p| p.to_string_lossy().ends_with(".pb.gz"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Reads a pprof file with proftab.
pub fn read_pprof(path: &Path) -> Profile {
    let bytes = std::fs::read(path).unwrap();
    let options = ReadOptions {
        source_uri: Some(path.display().to_string()),
        ..ReadOptions::default()
    };
    let profile = pprof::read(&bytes, &options)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .profile;
    let violations = profile.validate();
    assert!(violations.is_empty(), "{}: {violations:?}", path.display());
    profile
}

/// A scratch directory for this test process.
pub fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("proftab-pprof-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
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
            scratch: scratch_dir(),
        })
    }

    /// stdout of `go tool pprof -symbolize=none ARGS FILE`; fails on a non-zero exit.
    /// `-symbolize=none` keeps the output independent of binaries on this machine.
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

/// One row of `go tool pprof -top`: name (without the `(inline)` marks), flat, cum.
#[derive(Debug, Clone, PartialEq)]
pub struct TopRow {
    pub name: String,
    pub flat: f64,
    pub cum: f64,
}

/// The total and the rows of a `-top` report printed with `-unit` equal to the type's own unit
/// (so the numbers are the raw sums, followed by a unit suffix).
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
            continue;
        }
        if line.trim_start().starts_with("flat  flat%") {
            in_table = true;
            continue;
        }
        if !in_table {
            continue;
        }
        // Five number columns, then the name as printed (it may hold spaces or tabs).
        let mut rest = line;
        let mut numbers = Vec::new();
        for _ in 0..5 {
            let trimmed = rest.trim_start();
            let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
            numbers.push(&trimmed[..end]);
            rest = &trimmed[end..];
        }
        let (flat, cum) = (numbers[0], numbers[3]);
        let name = rest.strip_prefix("  ").unwrap_or(rest.trim_start());
        rows.push(TopRow {
            // pprof marks functions inlined everywhere / somewhere; proftab's name has no mark.
            name: name
                .trim_end_matches(" (inline)")
                .trim_end_matches(" (partial-inline)")
                .to_owned(),
            flat: leading_number(flat),
            cum: leading_number(cum),
        });
    }
    (total, rows)
}

fn leading_number(s: &str) -> f64 {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e' || c == '+'))
        .unwrap_or(s.len());
    s[..end].parse().unwrap_or(f64::NAN)
}
