//! Ruby stackprof JSON (`StackProf.results` dumped as JSON, `stackprof --json`): `mode`,
//! `interval`, `frames` keyed by frame id (`name`, `file`, `line`) and `raw`, a flat list of
//! `[height, frame ids outermost first…, count]` entries.
//!
//! Reading:
//! * One sample per `raw` entry (stackprof already merges consecutive identical stacks into one
//!   entry with a count; that is kept, never expanded): `samples`/`count` = the count, plus
//!   `time`/`nanoseconds` in `cpu` mode (count × interval µs, as speedscope), in `wall` mode
//!   the sum of the entry's `raw_timestamp_deltas` (µs; count × interval when the file has
//!   none), and `objects`/`count` (count × interval) in `object` mode. The default type is
//!   `time` or `objects`, else `samples`.
//! * `.time` of a sample: seconds from the first `raw_sample_timestamps` entry to the entry's
//!   first sample, when the file has them.
//! * Functions: `name` (frames without one are named `(unknown)`, warning), `file`, `line` as
//!   start line; `raw_lines`, when present, give each frame's line in the location.
//! * Meta: `stackprof.version`, `stackprof.mode`, `stackprof.interval`, `stackprof.samples`,
//!   `stackprof.gc_samples`, `stackprof.missed_samples`, and `stackprof.metadata.<key>` per
//!   scalar of `metadata`. The frames' `samples`, `total_samples`, `edges` and `lines` are
//!   sums of `raw` and not read.
//! * Garbage collection entries (`(garbage collection)`, `(marking)`, `(sweeping)`) keep their
//!   own stack as stackprof wrote it (speedscope instead appends them to the previous stack).
//! * Errors: a frame id not in `frames`, an entry running past the end of `raw`.

mod read;

use super::json_scan;

pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "stackprof";

/// Modes stackprof writes.
const MODES: [&str; 4] = ["cpu", "wall", "object", "custom"];

/// True for a JSON object with `mode` (one of stackprof's), `interval`, and `frames` as an
/// object.
pub fn detect(bytes: &[u8]) -> bool {
    if json_scan::first_significant_byte(bytes) != Some(b'{') {
        return false;
    }
    let Some(m) = json_scan::top_level_members(bytes) else {
        return false;
    };
    json_scan::member_str(bytes, &m, "mode").is_some_and(|mode| MODES.contains(&mode.as_str()))
        && json_scan::member(&m, "interval").is_some()
        && json_scan::member_starts_with(bytes, &m, "frames", b'{')
        && json_scan::member_starts_with(bytes, &m, "raw", b'[')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_needs_mode_frames_raw() {
        assert!(detect(
            br#"{"mode":"cpu","interval":1000,"frames":{},"raw":[]}"#
        ));
        assert!(!detect(
            br#"{"mode":"fast","interval":1000,"frames":{},"raw":[]}"#
        ));
        assert!(!detect(br#"{"mode":"cpu","frames":{},"raw":[]}"#));
        assert!(!detect(b"[]"));
    }
}
