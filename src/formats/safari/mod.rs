//! Safari's Web Inspector timeline recording (Timelines › Export, `*.json`, version 1): a
//! `recording` object whose `sampleStackTraces` are the JavaScript sampling profiler's samples
//! (`timestamp` in seconds, `stackFrames` innermost first) and `sampleDurations` their weights
//! (seconds), beside timeline `records` (network, layout, script, CPU usage) and `markers`.
//!
//! Reading (as speedscope's `import/safari.ts`):
//! * One sample per entry of `sampleStackTraces`, its stack the `stackFrames` reversed (outermost
//!   first). Value types: `time`/`nanoseconds` = the entry's `sampleDurations` value (the
//!   default type, speedscope's weight), rounded to whole nanoseconds (the export's seconds
//!   carry float noise below that; pprof keeps integers), and `samples`/`count` = 1. A
//!   sample without frames keeps an empty stack (its time still counts in the total).
//! * `samples..time`: seconds from the recording's `startTime` to the sample's `timestamp`.
//! * Functions: `name` (`(anonymous)` when empty, as speedscope), `filename` = `url`,
//!   `start_line` = `line`, `functions..start_column` = `column`: one function per distinct
//!   (name, url, line, column), speedscope's frame key. Locations: the line and column being
//!   executed (`expressionLocation`), else the function's; `locations..column`.
//! * Meta: `safari.version`, `safari.display_name`, `safari.start_time`, `safari.end_time`.
//! * Warnings: a version other than 1, timeline records and markers (not samples; counted and
//!   not kept). Errors: `sampleDurations` not as long as `sampleStackTraces`, a negative or
//!   missing duration, malformed JSON.

mod read;

use super::json_scan;
use super::sniff::Sniff;

pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "safari";

/// True for a JSON object whose `recording` is an object with a `sampleStackTraces` array and
/// a `sampleDurations` array.
pub fn detect(bytes: &[u8]) -> bool {
    matches!(sniff(bytes), Sniff::Fits)
}

/// [`detect`], saying why not when the object has a `recording`.
pub fn sniff(bytes: &[u8]) -> Sniff {
    if json_scan::first_significant_byte(bytes) != Some(b'{') {
        return Sniff::Foreign;
    }
    let Some(top) = json_scan::top_level_members(bytes) else {
        return Sniff::Foreign;
    };
    let Some(recording) = json_scan::member(&top, "recording") else {
        return Sniff::Foreign;
    };
    let open = json_scan::skip_ws(bytes, recording.value.start);
    let members = match bytes.get(open) {
        Some(b'{') => json_scan::object_members(bytes, open),
        _ => None,
    };
    let Some(m) = members else {
        return Sniff::near(1, "`recording` is not an object");
    };
    if !json_scan::member_starts_with(bytes, &m, "sampleStackTraces", b'[') {
        return Sniff::near(
            1,
            "`recording` has no `sampleStackTraces` array (recorded without JavaScript samples?)",
        );
    }
    match json_scan::member_starts_with(bytes, &m, "sampleDurations", b'[') {
        true => Sniff::Fits,
        false => Sniff::near(2, "`recording` has no `sampleDurations` array"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_needs_recording_with_samples() {
        assert!(detect(
            br#"{"version":1,"recording":{"sampleStackTraces":[],"sampleDurations":[]}}"#
        ));
        assert!(!detect(br#"{"version":1,"recording":{"records":[]}}"#));
        assert!(!detect(br#"{"sampleStackTraces":[],"sampleDurations":[]}"#));
        assert!(!detect(b"[]"));
    }
}
