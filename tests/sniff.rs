//! Detection refuses rather than guesses (issue #10, item 8).
//!
//! * Every real file of the shared corpora (`corpus/<format>/`, `corpus-new/<format>/`) is
//!   claimed by its own format's detector and by no other one. A corpus-new folder whose format
//!   proftab does not read yet is claimed by none.
//! * Text that is no profile — `tests/fixtures/sniff/*` (a README, CSV, logs, source code,
//!   near misses of each text grammar) and the scripts, sources and notes beside the fixtures —
//!   is refused by every detector, and `read_any` says why, per likely reader:
//!   `tests/fixtures/sniff/<file>.expected` holds the full message up to the list of readable
//!   formats that ends it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::{Path, PathBuf};

use proftab::formats::{self, read_any, readable_names, registry, Format};
use support::corpus::*;
use support::golden;
use support::profile::options;

/// The formats whose detectors claim `bytes`.
fn claimants(bytes: &[u8]) -> Vec<&'static str> {
    registry()
        .iter()
        .filter(|s| s.detect.is_some_and(|d| d(bytes)))
        .map(|s| s.format.name())
        .collect()
}

/// Files beside real ones that describe them (expected outputs of other tools).
fn is_side_file(path: &Path) -> bool {
    let name = file_name(path);
    name.ends_with(".expected") || name.ends_with(".expected.txt") || name == "PROVENANCE.md"
}

/// `(folder, file)` of every real corpus file, both corpora.
fn corpus_files_by_folder() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let old = corpus_folders().into_iter().filter(|f| f != "invalid");
    for folder in old {
        for path in files_under(&corpus().join(&folder)) {
            out.push((folder.clone(), path));
        }
    }
    for folder in corpus_new_folders() {
        for path in corpus_new(&folder) {
            if !is_side_file(&path) {
                out.push((folder.clone(), path));
            }
        }
    }
    out
}

/// The decompressed bytes of a compressed file (what `read_any` looks at), else the bytes.
fn content(bytes: Vec<u8>) -> Vec<u8> {
    match formats::decompress(&bytes, 1 << 30) {
        Ok(Some((inner, _))) => inner,
        _ => bytes,
    }
}

#[test]
fn every_corpus_file_is_claimed_by_its_own_detector_only() {
    let files = corpus_files_by_folder();
    assert!(
        files.len() >= 100,
        "corpus looks incomplete: {}",
        files.len()
    );
    let mut failures = Vec::new();
    for (folder, path) in &files {
        let bytes = content(std::fs::read(path).unwrap());
        let readable = Format::from_name(folder).filter(|f| f.can_read());
        let expected: Vec<&str> = readable.map(|f| f.name()).into_iter().collect();
        let got = claimants(&bytes);
        if got != expected {
            failures.push(format!(
                "{folder}/{}: claimed by {got:?}, expected {expected:?}",
                file_name(path)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Non-profile text files beside the fixtures: notes, scripts, sources, expected outputs.
fn side_files_of_fixtures() -> Vec<PathBuf> {
    const ENDINGS: &[&str] = &[
        ".md",
        ".c",
        ".sh",
        ".py",
        ".js",
        ".cjs",
        ".go",
        ".R",
        ".expected",
        ".annotate.txt",
    ];
    files_under(&fixtures())
        .into_iter()
        .filter(|p| !p.starts_with(fixture("sniff")))
        .filter(|p| {
            let name = file_name(p);
            ENDINGS.iter().any(|e| name.ends_with(e)) && !name.ends_with(".pb.gz")
        })
        .collect()
}

#[test]
fn text_that_is_no_profile_is_refused_by_every_detector() {
    let mut files = files_in(&fixture("sniff"));
    files.retain(|p| !file_name(p).ends_with(".expected"));
    assert!(files.len() >= 10, "tests/fixtures/sniff looks empty");
    files.extend(side_files_of_fixtures());
    let mut failures = Vec::new();
    for path in &files {
        let got = claimants(&std::fs::read(path).unwrap());
        if !got.is_empty() {
            failures.push(format!("{}: claimed by {got:?}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn unrecognized_text_says_what_each_likely_reader_found_wrong() {
    for path in files_in(&fixture("sniff")) {
        let name = file_name(&path);
        if name.ends_with(".expected") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let err = read_any(&bytes, &options(None))
            .expect_err(&name)
            .to_string();
        // The list of readable formats that ends the message grows with every reader: checked
        // here, left out of the recorded text.
        let (head, list) = err.split_once("; proftab reads ").expect(&err);
        assert_eq!(list, readable_names().join(", "), "{name}");
        let expected = path.with_file_name(format!("{name}.expected"));
        golden::check(&expected, &format!("{head}\n"));
    }
}

/// A profile cut short (a download stopped, a process killed while writing) is refused by
/// detection, which needs the top level whole; `read_any` still names the reader of the format
/// it begins as, and that reader says where it ends, for the formats claimed only when whole:
/// `.cpuprofile` and speedscope JSON here, raw pprof and OTLP in their own tests.
#[test]
fn a_json_profile_cut_short_gets_its_readers_error() {
    let cases = [
        ("cpuprofile", ".cpuprofile"),
        ("speedscope", ".speedscope.json"),
    ];
    let mut cut_files = 0;
    for (folder, suffix) in cases {
        for (name, bytes) in corpus_bytes(folder) {
            if !name.ends_with(suffix) {
                continue;
            }
            for cut in [bytes.len() / 3, bytes.len() * 9 / 10] {
                let err = read_any(&bytes[..cut], &options(None))
                    .map(|p| p.format)
                    .unwrap_err()
                    .to_string();
                let named = err.starts_with(&format!("{folder}: at byte "));
                assert!(
                    named && err.contains(": EOF while parsing"),
                    "{name} cut at {cut}: {err}"
                );
            }
            cut_files += 1;
        }
    }
    assert!(cut_files >= 7, "{cut_files} files");
    // Trace events in the JSON Object Format (the Array Format may end anywhere and is read).
    let mut traces = 0;
    for path in corpus_new("trace-event") {
        let bytes = std::fs::read(&path).unwrap();
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            continue;
        }
        let cut = bytes.len() / 2;
        let err = read_any(&bytes[..cut], &options(None))
            .map(|p| p.format)
            .unwrap_err()
            .to_string();
        let named = err.starts_with("trace-event: at byte ");
        assert!(named, "{} cut at {cut}: {err}", path.display());
        traces += 1;
    }
    assert!(traces >= 3, "{traces} object-format traces");
}

/// A compressed JSON profile is detected on its first decompressed MiB; a `.cpuprofile` larger
/// than that (its `nodes` come first and hold most of it) is detected by how it begins, through
/// `read_any` and through the viewer's stream alike.
#[test]
fn a_gzipped_cpuprofile_past_the_first_mib_is_read() {
    let (_, text) = corpus_bytes("cpuprofile")
        .into_iter()
        .find(|(name, _)| name.ends_with("sucrase.cpuprofile"))
        .expect("the sucrase .cpuprofile of the corpus");
    // JSON whitespace before the closing brace: the same profile, past 1 MiB.
    let mut big = text[..text.len() - 1].to_vec();
    big.extend(std::iter::repeat_n(b' ', 100_000));
    big.push(b'}');
    assert!(big.len() > 1 << 20);
    let gz = proftab::formats::gzip::gzip(&big);
    let whole = read_any(&big, &options(None)).unwrap();
    let read = read_any(&gz, &options(None)).unwrap();
    assert_eq!(
        (read.format, read.profile.num_samples()),
        (Format::Cpuprofile, whole.profile.num_samples())
    );
    let tail = u32::from_le_bytes(gz[gz.len() - 4..].try_into().unwrap());
    let mut stream = proftab::formats::stream::StreamRead::new(options(None), gz.len(), Some(tail));
    for piece in gz.chunks(65536) {
        stream.feed(piece);
    }
    assert_eq!(stream.finish().unwrap().format, Format::Cpuprofile);
}
