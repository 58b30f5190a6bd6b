//! pprof's legacy text formats (read only): what Go's `net/http/pprof` serves with `?debug=1`
//! (heap, allocs, goroutine, threadcreate, mutex, block) and the older C++ and Java text
//! profiles `go tool pprof` still reads (`google/pprof:profile/legacy_profile.go`,
//! `legacy_java_profile.go`).
//!
//! | first line | variant | value types (pprof's) | period |
//! | --- | --- | --- | --- |
//! | `heap profile: A: B [C: D] @ heap/2R` | Go heap / allocs | `alloc_objects`/count, `alloc_space`/bytes, `inuse_objects`/count, `inuse_space`/bytes; only `objects`/count, `space`/bytes when the header's allocation totals equal the in-use ones (or are 0) | `space`/bytes, R |
//! | `heap profile: … @ heapz_v2/R`, `heap_v2/R`, `heapprofile` | C++ heapz | as above | `space`/bytes, R (1 for `heapprofile`) |
//! | `heap profile: … @ growthz`, `fragmentationz` | C++ growth | `objects`/count, `space`/bytes | `space`/bytes, 1 |
//! | `NAME profile: total N` | Go goroutine, threadcreate | `NAME`/count | `NAME`/count, 1 |
//! | `--- mutex:`, `--- contention:`, `--- contentionz …` | Go mutex, block; C++ contention | `contentions`/count, `delay`/nanoseconds | `contentions`/count, the `sampling period` |
//! | `--- heapz 1 ---`, `--- contentionz 1 ---` + `format = java` | Java heap, contention | `inuse_objects`/count + `inuse_space`/RESOLUTION, or `contentions`/count + `delay`/RESOLUTION | contention: `contentions`/count, sampling period |
//! | `--- threadz 1 ---`, `--- Thread … stack: ---` | C++ threads | `thread`/count | `thread`/count, 1 |
//!
//! Values are computed as `go tool pprof` computes them from the same text: heap values
//! sampled at rate R are unsampled (`scaleHeapSample`: divided by `1 - exp(-size/count/R)`,
//! truncated); Go writes `2R` after `heap/`, so R is half of it; contention counts are
//! multiplied by the sampling period and delays converted from cycles with `cycles/second`
//! (`delay = cycles × period / (cycles/second / 1e9)`); Java heap values are unsampled at
//! 512 KiB. Heap records carry pprof's numeric label `bytes` (size / count before scaling).
//!
//! Stacks: every `0x…` address of a record is a location; Go and C++ addresses are return
//! addresses, so 1 is subtracted (as pprof does; the leaf of a C++ thread stack excepted) and
//! `locations..address` holds the result. One location per distinct address, with
//! `.pprof_location_id` numbered in order of first use (pprof's ids). Go's `#\tPC\tfunc+0x…\t
//! file:line` lines under a record name the frames (`go tool pprof` ignores them): the PC is
//! the address minus one (or the address), several lines with one PC are an inline chain,
//! innermost first, as the pprof reader builds them (consecutive rows, `.pprof_line_index`).
//! An address without a `#` line (Go hides leading runtime frames) has no function, like an
//! unsymbolized pprof location. Java location lines `0xID function (file:line)` name Java
//! frames; their ids are not addresses, so there is no `.address`.
//!
//! Kept besides: `# labels: {…}` (goroutine) in `sample_labels`; the `# runtime.MemStats`
//! trailer, one `META_MEMSTATS` row per field; other comments as pprof comments; attributes
//! pprof has no field for (`cycles/second`, `discarded samples`) as `META_ATTRIBUTE` rows;
//! `ms since reset` as `pprof.duration_nanos`; a memory map (`--- Memory map: ---`,
//! `MAPPED_LIBRARIES:`) in the `mappings` table with `locations..mapping_id`, as pprof
//! assigns them.
//!
//! pprof's binary legacy CPU profile (`profilez`) is read by [`legacy_cpu`], a format of its
//! own (`pprof-legacy-cpu`) sharing this collector. Not read: Java's binary CPU profiles. Deviations from
//! `go tool pprof`, which rejects these: a count record without addresses (Go's threadcreate
//! profile writes `4 @`) is a sample with an empty stack, and attributes pprof does not know
//! are kept with a warning. Not set: the `drop_frames`/`keep_frames` regular expressions
//! pprof gives legacy profiles (`addLegacyFrameInfo`, e.g. `runtime\..*` for heap profiles).
//! They are meant for a later symbolization of every frame; with only the frames the `#` lines
//! name, pprof's pruning would cut whole stacks at `runtime.main` (the unnamed
//! `runtime.goexit` below it counts as user code), which go tool pprof never does to the text.

mod collect;
mod contention;
mod count;
mod heap;
mod java;
pub mod legacy_cpu;
mod lines;
mod maps;
mod symbols;
mod thread;

use std::iter::Peekable;

use collect::Collector;
use lines::{is_blank_or_comment, Line, Lines};

use super::{Parsed, Place, ReadError, ReadOptions};

/// Format name in messages.
pub const FORMAT: &str = "pprof-text";

/// Meta key of the `# runtime.MemStats` trailer of Go heap profiles: one row per field, as
/// written (`Alloc = 663936`).
pub const META_MEMSTATS: &str = "go.memstats";
/// Meta key of attribute lines pprof has no field for (`cycles/second=2600000155`), as read.
pub const META_ATTRIBUTE: &str = "pprof-text.attribute";

/// Bytes of the input [`detect`] looks at.
const DETECT_PREFIX_BYTES: usize = 4096;

/// An error at 1-based line `line`.
pub(crate) fn err(line: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(FORMAT, Place::Line(line), message)
}

/// The variant a header line announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Heap,
    Count,
    Contention,
    Java,
    Thread,
}

/// The variant of header line `text`, if it is one.
fn variant(text: &str) -> Option<Variant> {
    let t = text.trim();
    if t.starts_with("heap profile:") {
        return Some(Variant::Heap);
    }
    if count::is_header(t) {
        return Some(Variant::Count);
    }
    if t == "--- heapz 1 ---" {
        return Some(Variant::Java);
    }
    if t.starts_with("--- mutex:")
        || t.starts_with("--- contention:")
        || t.starts_with("--- contentionz ")
    {
        return Some(Variant::Contention);
    }
    if thread::is_header(t) {
        return Some(Variant::Thread);
    }
    None
}

/// The first line that is neither blank nor a `#` comment.
fn first_content_line(text: &str) -> Option<Line<'_>> {
    Lines::new(text).find(|l| !is_blank_or_comment(l.text))
}

/// True when the first line that is not blank or a comment is a header of one of pprof's
/// legacy text formats.
pub fn detect(bytes: &[u8]) -> bool {
    let head = bytes.get(..DETECT_PREFIX_BYTES).unwrap_or(bytes);
    if head.contains(&0) {
        return false;
    }
    let text = String::from_utf8_lossy(head);
    first_content_line(&text).is_some_and(|l| variant(l.text).is_some())
}

/// True when `text` starts like one of pprof's legacy text formats, broadly: a `--- ` section
/// marker or a header [`detect`] knows. Other text readers (collapsed) refuse such input.
pub(crate) fn starts_like_legacy_text(text: &str) -> bool {
    first_content_line(text)
        .is_some_and(|l| l.text.trim_start().starts_with("--- ") || variant(l.text).is_some())
}

/// Reads one of pprof's legacy text profiles.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let text = String::from_utf8_lossy(bytes);
    let mut c = Collector::new(options);
    if matches!(text, std::borrow::Cow::Owned(_)) {
        c.warnings.add(FORMAT, "utf8", || {
            "the text is not valid UTF-8; invalid bytes were replaced with U+FFFD".to_owned()
        });
    }
    let mut lines = Lines::new(&text).peekable();
    let header = header_line(&mut lines, &mut c)?;
    match variant(header.text) {
        Some(Variant::Heap) => heap::read(&mut lines, header, &mut c)?,
        Some(Variant::Count) => count::read(&mut lines, header, &mut c)?,
        Some(Variant::Contention) => contention::read(&mut lines, header, &mut c)?,
        Some(Variant::Java) => java::read(&mut lines, header, &mut c)?,
        Some(Variant::Thread) => thread::read(&mut lines, header, &mut c)?,
        None => return Err(unknown_header(header)),
    }
    c.finish()
}

/// Skips leading blank and comment lines (keeping comments) and returns the header.
fn header_line<'a>(
    lines: &mut Peekable<Lines<'a>>,
    c: &mut Collector<'a>,
) -> Result<Line<'a>, ReadError> {
    for line in lines.by_ref() {
        if line.text.trim().is_empty() {
            continue;
        }
        if line.text.trim_start().starts_with('#') {
            c.comment(line);
            continue;
        }
        return Ok(line);
    }
    Err(ReadError::whole(
        FORMAT,
        "no header line (the input is empty or only comments)",
    ))
}

fn unknown_header(header: Line<'_>) -> ReadError {
    err(
        header.number,
        format!(
            "{:?} is not a header of pprof's legacy text formats (`heap profile: …`, `NAME \
             profile: total N`, `--- mutex:`, `--- contention:`, `--- contentionz 1 ---`, \
             `--- heapz 1 ---`, `--- threadz 1 ---`)",
            lines::shorten(header.text.trim())
        ),
    )
}

/// How a section of records ended.
enum End<'a> {
    /// At the end of the input.
    Eof,
    /// At a memory map's first line (`--- Memory map: ---`, `MAPPED_LIBRARIES:`).
    MemoryMap,
    /// At another `---` line.
    Section(Line<'a>),
}

/// True for the lines that start a memory map (pprof's `isMemoryMapSentinel`).
fn is_memory_map_sentinel(text: &str) -> bool {
    text.contains("--- Memory map: ---") || text.contains("MAPPED_LIBRARIES:")
}

/// Reads record lines with `record` until the end, a memory map or (when `stop_at_dashes`) a
/// `---` line; `#` lines go to [`Collector::comment`].
fn read_records<'a>(
    lines: &mut Peekable<Lines<'a>>,
    c: &mut Collector<'a>,
    stop_at_dashes: bool,
    mut record: impl FnMut(Line<'a>, &mut Collector<'a>) -> Result<(), ReadError>,
) -> Result<End<'a>, ReadError> {
    for line in lines.by_ref() {
        let t = line.text.trim();
        if t.is_empty() {
            continue;
        }
        if is_memory_map_sentinel(t) {
            return Ok(End::MemoryMap);
        }
        if stop_at_dashes && t.starts_with("---") {
            return Ok(End::Section(line));
        }
        if t.starts_with('#') {
            c.comment(line);
            continue;
        }
        record(line, c)?;
    }
    Ok(End::Eof)
}

/// What follows the records: pprof skips other sections up to a memory map and reads that.
fn read_trailer<'a>(
    lines: &mut Peekable<Lines<'a>>,
    c: &mut Collector<'a>,
    end: End<'a>,
) -> Result<(), ReadError> {
    match end {
        End::Eof => Ok(()),
        End::MemoryMap => {
            read_memory_map(lines, c);
            Ok(())
        }
        End::Section(first) => {
            let mut skipped = 1usize;
            for line in lines.by_ref() {
                if is_memory_map_sentinel(line.text) {
                    return skipped_then_map(lines, c, first, skipped);
                }
                if !line.text.trim().is_empty() {
                    skipped += 1;
                }
            }
            warn_skipped(c, first, skipped);
            Ok(())
        }
    }
}

fn skipped_then_map<'a>(
    lines: &mut Peekable<Lines<'a>>,
    c: &mut Collector<'a>,
    first: Line<'a>,
    skipped: usize,
) -> Result<(), ReadError> {
    warn_skipped(c, first, skipped);
    read_memory_map(lines, c);
    Ok(())
}

/// Reads the memory map that ends the input and hands its mappings to the collector.
fn read_memory_map<'a>(lines: &mut Peekable<Lines<'a>>, c: &mut Collector<'a>) {
    let mappings = maps::read(lines, &mut c.warnings);
    c.mappings(mappings);
}

fn warn_skipped(c: &mut Collector<'_>, first: Line<'_>, skipped: usize) {
    c.warnings.add(FORMAT, "section", || {
        format!(
            "line {}: the section {:?} and what follows it up to a memory map ({skipped} \
             lines) are not part of the profile; ignored, as go tool pprof does",
            first.number,
            lines::shorten(first.text.trim())
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        for h in [
            "heap profile: 1: 2 [3: 4] @ heap/1048576",
            "goroutine profile: total 3",
            "--- mutex:",
            "--- contention:",
            "--- contentionz 1 ---",
            "--- heapz 1 ---",
            "--- threadz 1 ---",
        ] {
            assert!(detect(h.as_bytes()), "{h}");
            assert!(detect(format!("# comment\n\n{h}\n").as_bytes()), "{h}");
        }
        for not in ["main;profile: total 3", "--- a/file.c", "a 1", "", "heap 1"] {
            assert!(!detect(not.as_bytes()), "{not}");
        }
        assert!(starts_like_legacy_text("--- a/file.c\n"));
    }
}
