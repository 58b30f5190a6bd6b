//! Every file of the shared corpus through `read_any`.
//!
//! * Format folders: with and without a file name the read succeeds, gives the same format,
//!   the one the folder stands for, a valid profile, identical totals after a tables-JSON round
//!   trip, and function tables that add up. Files of formats that cannot be read yet are listed
//!   in [`NOT_YET_READABLE`]; they must fail with a clear error, and the list must shrink (a
//!   listed file that reads fails the test, so the list is kept up to date).
//! * `invalid/`: an error naming a format, or a profile with at least one warning; the exact
//!   outcome per file is compared with `tests/fixtures/corpus_invalid_outcomes.txt`
//!   (regenerate with `PROFTAB_BLESS=1 cargo test --test corpus_all`, then review the diff).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;

use proftab::formats::{read_any, Format};
use support::corpus::*;
use support::golden;
use support::profile::*;
use support::reliability::*;

/// Corpus files no reader reads yet (e.g. while their reader is written on another branch);
/// each must fail with a clear error. Remove a line when its reader lands: the test fails
/// until you do. (Empty since the OTLP and Firefox readers landed.)
const NOT_YET_READABLE: &[&str] = &[];

/// The expected outcomes of `invalid/`, one `file<TAB>outcome` line each (under
/// `tests/fixtures`).
const INVALID_OUTCOMES: &str = "corpus_invalid_outcomes.txt";

/// The format a corpus folder holds.
fn folder_format(folder: &str) -> Format {
    match folder {
        "collapsed" => Format::Collapsed,
        "cpuprofile" => Format::Cpuprofile,
        "firefox" => Format::Firefox,
        "otlp" => Format::Otlp,
        "pprof" => Format::Pprof,
        "rprof" => Format::Rprof,
        "speedscope" => Format::Speedscope,
        other => panic!("corpus folder {other} has no expected format: add it to folder_format"),
    }
}

/// `folder/file` of a corpus file.
fn corpus_key(path: &Path) -> String {
    let folder = file_name(path.parent().unwrap());
    format!("{folder}/{}", file_name(path))
}

fn format_files() -> Vec<(Format, std::path::PathBuf)> {
    corpus_folders()
        .into_iter()
        .filter(|f| f != "invalid")
        .flat_map(|folder| {
            let format = folder_format(&folder);
            files_under(&corpus().join(&folder))
                .into_iter()
                .map(move |p| (format, p))
        })
        .collect()
}

/// Checks one readable corpus file; returns an error text instead of panicking so that all
/// failures are reported together.
fn check_readable(format: Format, path: &Path) -> Result<(), String> {
    let bytes = std::fs::read(path).unwrap();
    let key = corpus_key(path);
    let named = read_any(&bytes, &options(Some(&file_name(path))))
        .map_err(|e| format!("{key}: read with its name failed: {e}"))?;
    let anonymous = read_any(&bytes, &options(None))
        .map_err(|e| format!("{key}: read without a name failed: {e}"))?;
    if named.format != format || anonymous.format != format {
        return Err(format!(
            "{key}: read as {} (named) / {} (no name), expected {}",
            named.format.name(),
            anonymous.format.name(),
            format.name()
        ));
    }
    if totals(&named.profile) != totals(&anonymous.profile) {
        return Err(format!("{key}: the file name changed the totals"));
    }
    let p = &named.profile;
    std::panic::catch_unwind(|| {
        assert_valid(p, &key);
        assert_tables_json_round_trip(p, &key);
        assert_function_tables(p, &key);
    })
    .map_err(|e| panic_text(&e))
}

fn panic_text(e: &Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "panic".to_owned())
}

/// Checks a file whose format cannot be read yet: a clear error, both with and without a name.
fn check_not_yet_readable(path: &Path) -> Result<(), String> {
    let bytes = std::fs::read(path).unwrap();
    let key = corpus_key(path);
    for name in [Some(file_name(path)), None] {
        match read_any(&bytes, &options(name.as_deref())) {
            Ok(p) => {
                return Err(format!(
                    "{key} now reads (as {}): remove it from NOT_YET_READABLE",
                    p.format.name()
                ))
            }
            Err(e) if error_names_a_format(&e) => {}
            Err(e) => return Err(format!("{key}: unclear error: {e}")),
        }
    }
    Ok(())
}

#[test]
fn every_corpus_file_reads_as_its_folder_format() {
    let files = format_files();
    assert!(
        files.len() >= 80,
        "corpus looks incomplete: {} files",
        files.len()
    );
    let mut failures = Vec::new();
    let mut pending_seen = Vec::new();
    for (format, path) in &files {
        let key = corpus_key(path);
        let result = if NOT_YET_READABLE.contains(&key.as_str()) {
            pending_seen.push(key.clone());
            check_not_yet_readable(path)
        } else {
            check_readable(*format, path)
        };
        if let Err(e) = result {
            failures.push(e);
        }
    }
    for listed in NOT_YET_READABLE {
        if !pending_seen.iter().any(|k| k == listed) {
            failures.push(format!(
                "{listed} is listed in NOT_YET_READABLE but not in the corpus"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The outcome of every `invalid/` file, as `file<TAB>outcome` lines.
fn invalid_outcomes() -> String {
    let mut out = String::new();
    for path in files_under(&corpus().join("invalid")) {
        let bytes = std::fs::read(&path).unwrap();
        let name = file_name(&path);
        let result = read_any(&bytes, &options(Some(&name)));
        match &result {
            Ok(p) => {
                assert!(!p.warnings.is_empty(), "{name}: read without any warning");
                assert_valid(&p.profile, &name);
            }
            Err(e) => assert!(error_names_a_format(e), "{name}: unclear error {e}"),
        }
        let anonymous = read_any(&bytes, &options(None));
        assert_eq!(
            outcome_line(&result),
            outcome_line(&anonymous),
            "{name}: the file name changed the outcome"
        );
        out.push_str(&format!("{name}\t{}\n", outcome_line(&result)));
    }
    out
}

#[test]
fn invalid_corpus_files_give_their_recorded_outcomes() {
    golden::check(&fixture(INVALID_OUTCOMES), &invalid_outcomes());
}

/// pprof's legacy text formats are read as `pprof-text`, never as folded stacks, even when
/// their sample lines happen to end in a number; malformed ones get pprof-text's error.
#[test]
fn pprof_legacy_text_is_read_not_taken_for_collapsed() {
    let cases = [
        ("--- heapz 1 ---\n0 0 @ 0\n1 2 @ 3 4\n5 6 @ 7 8\n", false),
        (
            "heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1 0x2\n",
            true,
        ),
        ("goroutine profile: total 3\n3 @ 0x1 0x2 12\n", false),
        ("goroutine profile: total 3\n3 @ 0x1 0x2 0x12\n", true),
        ("--- contention:\ncycles/second=1\n1 2 @ 3 4\n", false),
        ("--- contention:\ncycles/second=1\n1 2 @ 0x3 0x4\n", true),
    ];
    for (text, reads) in cases {
        match read_any(text.as_bytes(), &options(None)) {
            Ok(p) => {
                assert!(reads, "{text:?} read");
                assert_eq!(p.format, Format::PprofText, "{text:?}");
            }
            Err(e) => {
                assert!(!reads, "{text:?}: {e}");
                assert_eq!(e.format, "pprof-text", "{text:?}: {e}");
            }
        }
    }
    // A collapsed file whose frames merely contain "profile:" is still collapsed.
    let folded = "main;profile: total 3\nmain;work 5\n";
    assert_eq!(
        read_any(folded.as_bytes(), &options(None)).unwrap().format,
        Format::Collapsed
    );
}
