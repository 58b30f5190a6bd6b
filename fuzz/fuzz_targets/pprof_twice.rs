//! Fuzzes the pprof reader that reads a gzipped file twice instead of holding it inflated
//! (`StreamRead::read_twice_from`, the viewer's way for large files): a gzip input as it is, any
//! other taken for a raw `Profile` message and gzipped here (a sound stream, so the twice path
//! is taken); the piece size and the step budget follow from the bytes. What the two reads
//! give must be what `read_any` gives on the same bytes: the same error text, or the same
//! samples, nodes, totals and warnings, and the same pprof written from the profile.
//!
//! `RUSTC_BOOTSTRAP=1 cargo fuzz run pprof_twice -- -max_total_time=60` (seeds: the pprof
//! files of `tests/fixtures/pprof/`, `tests/fixtures/invalid/pprof/` and `shared/corpus/pprof/`).

#![no_main]

mod support;

use libfuzzer_sys::fuzz_target;
use proftab::formats::stream::StreamRead;
use proftab::formats::{gzip, pprof, read_any, Parsed, ReadError, WriteOptions};
use support::{fuzz_options, totals_by_name};

/// What a read gave, as text to compare: the error, or the profile's samples, stack nodes,
/// totals by value type, warnings and the pprof written from it.
fn shown(read: Result<Parsed, ReadError>) -> String {
    match read {
        Err(e) => format!("error: {e}"),
        Ok(p) => {
            let mut totals: Vec<_> = totals_by_name(&p.profile).into_iter().collect();
            totals.sort_by(|a, b| a.0.cmp(&b.0));
            let written = pprof::write_uncompressed(&p.profile, &WriteOptions::default())
                .map(|w| w.bytes)
                .unwrap_or_default();
            format!(
                "{:?} {} samples, {} nodes, {totals:?}, {:?}, pprof {:?}",
                p.format,
                p.profile.num_samples(),
                p.profile.stacks.location.len(),
                p.warnings,
                written
            )
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let gz = match gzip::is_gzip(data) {
        true => data.to_vec(),
        false => gzip::gzip(data),
    };
    if gz.len() < 4 {
        return;
    }
    let options = fuzz_options();
    let whole = shown(read_any(&gz, &options));
    let choice = data.iter().fold(0u8, |a, &b| a.wrapping_add(b));
    let piece = 1 + usize::from(choice) * 41;
    let tail = u32::from_le_bytes(gz[gz.len() - 4..].try_into().expect("a gzip trailer"));
    let mut read = StreamRead::new(options, gz.len(), Some(tail)).read_twice_from(0);
    for _ in 0..2 {
        gz.chunks(piece).for_each(|p| read.feed(p));
        if !read.wants_again() {
            break;
        }
    }
    assert!(!read.wants_again(), "asked for a third read");
    while !read.step(1 + usize::from(choice % 7)) {}
    assert_eq!(shown(read.finish()), whole);
});
