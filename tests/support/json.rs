//! Sample-by-sample views of a profile for the OTLP and Firefox tests (formats whose round
//! trips must keep every sample, frame, address and time), and their invalid-input runner.
//!
//! The views are plain text lines, so a failing comparison prints what differs.

use std::path::Path;

use proftab::formats::{Parsed, ReadError, ReadOptions};
use proftab::model::{ext, Cell, LocationIndex, Profile, SampleIndex, SAMPLE_TIME};

use super::corpus::fixture;
use super::golden;

/// One line per sample: source, frames root→leaf as `name@file:line`, values by type, time.
pub fn sample_lines(p: &Profile) -> Vec<String> {
    let times = p.samples.ext.dbl(SAMPLE_TIME);
    (0..p.num_samples())
        .map(|s| {
            let stack = p.sample_stack(SampleIndex(s as u32));
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
pub fn frame_text(p: &Profile, l: LocationIndex) -> String {
    let (name, file) = p
        .location_function(l)
        .map_or(("?".to_owned(), String::new()), |f| {
            (
                p.str(p.functions.name[f.idx()]).to_owned(),
                p.str(p.functions.filename[f.idx()]).to_owned(),
            )
        });
    let addr = match p.locations.ext.cell(ext::locations::ADDRESS, l.idx()) {
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

/// Runs every input of `tests/fixtures/invalid/<format>/` through `read`: it must fail, without
/// a panic, with a message containing the text of the input's `.expected` file. Returns the
/// number of inputs.
pub fn check_invalid_fixtures(
    format: &str,
    read: fn(&[u8], &ReadOptions) -> Result<Parsed, ReadError>,
) -> usize {
    let dir = fixture("invalid").join(format);
    golden::check_cases(&dir, golden::check_contains, |path: &Path, bytes| {
        let result = std::panic::catch_unwind(|| read(bytes, &ReadOptions::default()));
        let outcome = result.unwrap_or_else(|_| panic!("{} panicked", path.display()));
        outcome
            .err()
            .unwrap_or_else(|| panic!("{} was accepted", path.display()))
            .to_string()
    })
}
