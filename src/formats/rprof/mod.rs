//! R's `Rprof()` output: reader and writer (docs/formats/rprof.md).
//!
//! # What the reader produces
//!
//! * One `samples` row per sample line, in file order, never aggregated, with `.time` =
//!   seconds from the start of the file at which the sample was taken: the sum of the
//!   intervals up to and including its own (R's timer fires at the end of each interval, and
//!   `summaryRprof(memory = "tseries")` labels sample k with k × interval).
//! * `sample_values` per sample (long form, one row per type):
//!
//!   | type | unit | value |
//!   | --- | --- | --- |
//!   | `samples` | `count` | 1 (one timer tick) |
//!   | `time` | `nanoseconds` | the header's `sample.interval` × 1000 |
//!   | `vsize_small` | `bytes` | 8 × small-vector cells in use (memory profiling only) |
//!   | `vsize_large` | `bytes` | 8 × large-vector cells in use |
//!   | `nodes` | `bytes` | bytes of cons cells in use |
//!   | `duplications` | `count` | `duplicate()` calls since the previous sample |
//!   | `memory_increase` | `bytes` | Σ max(0, Δ) of the three byte totals since the previous sample with memory in the same run (0 for the first): `summaryRprof(memory = "both")`'s per-sample value |
//!   | `memory_freed` | `bytes` | max(0, −Δ) of the vector bytes (small + large, no nodes) since the previous sample with memory in the same run (0 for the first): profvis's per-sample "memory deallocated" |
//!
//!   The first four memory types are the raw totals, so the file can be written back exactly;
//!   `memory_increase` is what `summaryRprof()` attributes (its `mem.total`, in bytes rather than
//!   MiB, and without the reset every 5000 lines that `summaryRprof`'s chunked reading causes);
//!   `memory_freed` is what profvis's code pane shows as freed per line (`parse_rprof`'s
//!   negative `meminc`, in bytes rather than MiB). Both are derived from the raw totals, so the
//!   writer writes neither: reading the written file gives them back.
//!   Meta `default_sample_type` is `time`.
//! * Frames leaf first. A source reference `F#L` belongs to the frame after it (the line running
//!   in that function, as `r-prof/profile` reads it): the function is keyed by (name, file of
//!   `#File F`), `locations.line` = L, `functions.start_line` = the smallest line seen for that
//!   function (as `r-prof/profile` does; 0 without a file). `name` and `system_name` are the name
//!   exactly as R wrote it (`"<GC>"` stays `<GC>`). R writes names raw: one with spaces or
//!   quotes (`"x[["a b"]]"`) ends at the first `"` followed by a space and then `"`, a digit or
//!   the line end; one with a line break (a backquoted symbol) continues on the next line,
//!   which is joined when it cannot start a line of its own.
//! * A source reference after the last frame (the top-level line that called the outermost
//!   function) has no frame to belong to; it is kept in the sample extension columns
//!   `.rprof_toplevel_file` / `.rprof_toplevel_line` (present only when some sample has one).
//! * `sources`: one row, `source_type = "rprof"`, `source_uri` from the options.
//! * Meta `rprof.header`: each header line, in order. A file with more than one header
//!   (`Rprof(append = TRUE)`) also gets the sample column `.rprof_run`: the 1-based index of the
//!   header its sample follows. File numbers restart with each header.
//!
//! # Bad input
//!
//! A missing or malformed header, a malformed `#File` line, a source reference to an undeclared
//! file and any other token that is not Rprof are errors with a line number. A last line without
//! a line end (the file was cut while being written) is dropped with a warning, as
//! `r-prof/profile` does; a line cut inside its last token keeps its complete frames, with a
//! warning. Memory prefixes the header does not announce (or missing ones it does) are kept
//! as they are, with a warning.

pub mod header;
mod read;
pub mod tokens;
mod write;

use super::sniff::Sniff;
pub use header::Header;
pub use read::read;
pub use write::{write, MAX_OUTPUT_BYTES};

/// Format name used in messages.
pub const FORMAT: &str = "rprof";

/// Value type of the tick count: one per sample line.
pub const TYPE_SAMPLES: (&str, &str) = ("samples", "count");
/// Value type of the sampled time: the interval of the sample.
pub const TYPE_TIME: (&str, &str) = ("time", "nanoseconds");
/// Small-vector heap in use.
pub const TYPE_VSIZE_SMALL: (&str, &str) = ("vsize_small", "bytes");
/// Large-vector heap in use.
pub const TYPE_VSIZE_LARGE: (&str, &str) = ("vsize_large", "bytes");
/// Cons-cell bytes in use.
pub const TYPE_NODES: (&str, &str) = ("nodes", "bytes");
/// Duplications since the previous sample.
pub const TYPE_DUPLICATIONS: (&str, &str) = ("duplications", "count");
/// Heap growth since the previous sample (`summaryRprof(memory = "both")`).
pub const TYPE_MEMORY_INCREASE: (&str, &str) = ("memory_increase", "bytes");

/// Vector heap shrinkage since the previous sample (profvis's "memory deallocated").
pub const TYPE_MEMORY_FREED: (&str, &str) = ("memory_freed", "bytes");

/// Meta key of the header lines.
pub const META_HEADER: &str = "rprof.header";
/// Sample column: 1-based header (run) index, only in files with several headers.
pub const COL_RUN: &str = ".rprof_run";
/// Sample column: file of a top-level source reference.
pub const COL_TOPLEVEL_FILE: &str = ".rprof_toplevel_file";
/// Sample column: line of a top-level source reference.
pub const COL_TOPLEVEL_LINE: &str = ".rprof_toplevel_line";

/// Bytes of the input looked at by [`detect`].
pub const DETECT_PREFIX_BYTES: usize = 256;

/// UTF-8 byte order mark, skipped (with a warning) before the header.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// True when the first line is an Rprof header (`[memory profiling: ][GC profiling: ]
/// [line profiling: ]sample.interval=N`).
pub fn detect(bytes: &[u8]) -> bool {
    matches!(sniff(bytes), Sniff::Fits)
}

/// [`detect`], saying why not when the first line is a header with a bad interval.
pub fn sniff(bytes: &[u8]) -> Sniff {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let head = bytes
        .get(..bytes.len().min(DETECT_PREFIX_BYTES))
        .unwrap_or(bytes);
    let line = match memchr::memchr(b'\n', head) {
        Some(end) => head.get(..end).unwrap_or(head),
        None => head,
    };
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match Header::parse(line) {
        Ok(_) => Sniff::Fits,
        Err(header::HeaderProblem::BadInterval(why)) => Sniff::near(1, format!("line 1: {why}")),
        Err(header::HeaderProblem::NotAHeader) => Sniff::Foreign,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_headers_only() {
        assert!(detect(b"sample.interval=20000\n\"f\" \n"));
        assert!(detect(
            b"memory profiling: GC profiling: line profiling: sample.interval=10000\r\n"
        ));
        assert!(detect(b"\xEF\xBB\xBFsample.interval=10000"));
        assert!(!detect(b"main;foo 1\n"));
        assert!(!detect(b"sample.interval=\n"));
        assert!(!detect(b""));
    }
}
