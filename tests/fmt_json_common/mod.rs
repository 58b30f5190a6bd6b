//! Helpers shared by the OTLP and Firefox integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use proftab::formats::{ReadError, ReadOptions};
use proftab::model::{Cell, Profile, SAMPLE_TIME};

/// The shared corpus directory.
pub fn corpus() -> PathBuf {
    std::env::var("PROFTAB_CORPUS").map_or_else(
        |_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")),
        PathBuf::from,
    )
}

/// `(file name, bytes)` of every file in a corpus subdirectory, sorted by name.
pub fn corpus_files(dir: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(corpus().join(dir))
        .unwrap_or_else(|e| panic!("corpus dir {dir}: {e}"))
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// One line per sample: source, frames root→leaf as `name@file:line`, values by type, time.
pub fn sample_lines(p: &Profile) -> Vec<String> {
    let times = p.samples.ext.dbl(SAMPLE_TIME);
    (0..p.num_samples())
        .map(|s| {
            let stack = p.sample_stack(proftab::model::SampleIndex(s as u32));
            let mut frames: Vec<String> = p
                .frames_leaf_first(stack)
                .map(|l| frame_text(p, l))
                .collect();
            frames.reverse();
            let values: Vec<String> = p
                .values
                .iter()
                .filter_map(|c| c.get(s).map(|v| format!("{}={v}", p.str(c.value_type))))
                .collect();
            let time = times
                .and_then(|t| t.get(s))
                .map_or(String::new(), |t| format!("{t:.9}"));
            format!(
                "src{} {} [{}] t={time}",
                p.samples.source[s].0,
                frames.join(";"),
                values.join(",")
            )
        })
        .collect()
}

/// A frame as `name@file:line` plus its address when it has one.
pub fn frame_text(p: &Profile, l: proftab::model::LocationIndex) -> String {
    let (name, file) = p
        .location_function(l)
        .map_or(("?".to_owned(), String::new()), |f| {
            (
                p.str(p.functions.name[f.idx()]).to_owned(),
                p.str(p.functions.filename[f.idx()]).to_owned(),
            )
        });
    let addr = match p.locations.ext.cell(".address", l.idx()) {
        Some(Cell::U64(Some(a))) => format!("#{a:x}"),
        _ => String::new(),
    };
    format!("{name}@{file}:{}{addr}", p.locations.line[l.idx()])
}

/// Totals per value type as `type/unit=total`.
pub fn totals(p: &Profile) -> Vec<String> {
    p.values
        .iter()
        .map(|c| format!("{}/{}={}", p.str(c.value_type), p.str(c.unit), c.total()))
        .collect()
}

/// Runs every `tests/fixtures/invalid/<format>/<case>.*` input (not `.expected`) through
/// `read` and checks that it fails with a message containing the text of `<case>.expected`.
pub fn check_invalid_fixtures(
    format: &str,
    read: fn(&[u8], &ReadOptions) -> Result<proftab::formats::Parsed, ReadError>,
) -> usize {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/invalid"
    ))
    .join(format);
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.extension().is_some_and(|e| e == "expected") {
            continue;
        }
        let expected_path = path.with_extension("expected");
        let expected = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|_| panic!("{} has no .expected file", path.display()));
        let bytes = std::fs::read(&path).unwrap();
        let result = std::panic::catch_unwind(|| read(&bytes, &ReadOptions::default()));
        let outcome = result.unwrap_or_else(|_| panic!("{} panicked", path.display()));
        let e = outcome
            .err()
            .unwrap_or_else(|| panic!("{} was accepted", path.display()));
        let text = e.to_string();
        assert!(
            text.contains(expected.trim()),
            "{}: error {text:?} does not contain {:?}",
            path.display(),
            expected.trim()
        );
        n += 1;
    }
    n
}

/// Asserts that `p` passes the v2 validator (every `Ok` of a reader must).
pub fn assert_valid(p: &Profile, what: &str) {
    let violations: Vec<String> = p.validate().iter().map(ToString::to_string).collect();
    assert!(violations.is_empty(), "{what}: {}", violations.join("\n"));
}
