//! heaptrack's data files (`heaptrack.APP.PID.zst` / `.gz`, as `heaptrack_interpret` writes
//! them and `heaptrack_print` / `heaptrack_gui` read them), file versions 0–3.
//!
//! The file is line-based text, numbers in lowercase hex: `v HEAPTRACK_VERSION FILE_VERSION`,
//! `X cmdline`, `I pagesize pages`, `s string` (version 3: `s LEN string`), `i ip module
//! [function file line [function file line]...]` (the frames of an instruction pointer: the
//! innermost inlined one first, then the functions it was inlined into), `t ip parent` (the
//! trace tree), `a size trace` (an allocation info), `+ info` / `- info` (version 0: `+ size
//! trace pointer` / `- pointer`), `c ms`, `R pages`, `A` (attached), `S suppression`, `#`.
//!
//! Reading (the semantics of heaptrack's `AccumulatedTraceData::read`):
//! * One sample per allocation info (one size on one trace) and time stamp: the allocations
//!   made from it between two `c` records. Its stack is the trace, each `i` record giving one
//!   location per frame (inlined frames marked in `locations..inlined`, the ip in
//!   `locations..address`, the module in `locations..object`); functions without a name are
//!   named `0x<ip>` as heaptrack_print does. Trace nodes whose ip is in `operator new` are
//!   folded into their caller, as heaptrack does (counted in a warning).
//! * Values: `allocations` (calls to allocation functions), `temporary` (count; a free of the
//!   allocation info of the immediately preceding allocation, heaptrack's definition),
//!   `allocated` (bytes), `peak` (bytes live at the global peak of heap consumption) and
//!   `leaked` (bytes never freed). `samples..time` is the time stamp in seconds.
//! * Meta: `heaptrack.version`, `heaptrack.file_version`, `heaptrack.command`,
//!   `heaptrack.page_size`, `heaptrack.pages`, `heaptrack.peak_rss` (bytes),
//!   `heaptrack.total_time_ms`, `heaptrack.attached`, `heaptrack.suppression` (one row each).
//! * Which of several live blocks of one allocation info a `-` frees is not in the file: the
//!   most recent one is taken, so per-sample times of leaked and peak bytes are the latest
//!   possible; totals per allocation info are exact.
//! * Leaked bytes are not reduced by leak suppressions (heaptrack_print applies its built-in
//!   and the embedded `S` ones); the `S` lines are kept as meta.
//! * Warnings: malformed or out-of-range lines (skipped, as heaptrack skips them), frees of
//!   nothing live, timestamps going back, unknown records. Errors: not a heaptrack file, a file
//!   version above 3, a raw (uninterpreted) file, a second `X` line, the sample limit.

mod read;

pub use read::read;

use super::read_common::detect_prefix_text;
use super::{gzip, zstd};

/// Format name used in errors and warnings.
pub const NAME: &str = "heaptrack";
/// The newest file format version this reader knows (heaptrack 1.3+ writes 3).
pub const MAX_FILE_VERSION: u64 = 3;
/// Bytes [`detect`] examines.
const DETECT_PREFIX_BYTES: usize = 4096;
/// Record letters whose fields are all hex numbers.
const HEX_RECORDS: &[u8] = b"Iitac+-R";
/// Record letters whose rest is free text (`v` is checked on its own; `x`/`m` are the raw
/// file's, claimed so that the reader can say it must be interpreted first).
const TEXT_RECORDS: &[u8] = b"XsSxm#";

/// True for text whose first line is `v HEX [HEX]` and whose further lines (at least one)
/// within the first 4 KiB are all heaptrack records; gzip- and zstd-compressed files (as
/// heaptrack writes them) are judged by their first 4 KiB decompressed.
pub fn detect(bytes: &[u8]) -> bool {
    let inflated = if gzip::is_gzip(bytes) {
        gzip::gunzip_prefix(bytes, DETECT_PREFIX_BYTES + 1)
    } else if zstd::is_zstd(bytes) {
        zstd::unzstd_prefix(bytes, DETECT_PREFIX_BYTES + 1)
    } else {
        None
    };
    let bytes = inflated.as_deref().unwrap_or(bytes);
    let Some(text) = detect_prefix_text(bytes, DETECT_PREFIX_BYTES) else {
        return false;
    };
    let mut lines: Vec<&str> = text.split('\n').collect();
    if bytes.len() > DETECT_PREFIX_BYTES || !text.ends_with('\n') {
        lines.pop(); // possibly cut by the bound
    }
    let Some((first, rest)) = lines.split_first() else {
        return false;
    };
    let version_ok = first
        .strip_prefix("v ")
        .is_some_and(|v| (1..=2).contains(&v.split(' ').count()) && all_hex(v));
    version_ok && rest.iter().any(|l| !l.is_empty()) && rest.iter().all(|l| is_record(l))
}

/// True when `line` has the shape of a heaptrack record.
fn is_record(line: &str) -> bool {
    let b = line.as_bytes();
    match b {
        [] | [b'A'] => true,
        [c, b' ', ..] if HEX_RECORDS.contains(c) => all_hex(&line[2..]),
        [c, b' ', ..] if TEXT_RECORDS.contains(c) => true,
        [b'#', ..] => true,
        _ => false,
    }
}

/// True for one or more lowercase hex numbers separated by single spaces.
fn all_hex(fields: &str) -> bool {
    fields
        .split(' ')
        .all(|f| !f.is_empty() && f.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_interpreted_files_only() {
        assert!(detect(
            b"v 10400 3\nX ./a.out\nI 1000 5e29\ns 4 main\ni 5 1 1\nt 1 0\n"
        ));
        assert!(detect(b"v 10000 2\nX ./a\n# comment\nA\n"));
        assert!(detect(b"v 10200\nX ./a\n+ 10 1 7f00\n"));
        assert!(!detect(b"v 10400 3\n"));
        assert!(!detect(b"v 10400 3\nmain;foo 12\n"));
        assert!(!detect(b"v 10400 3\nt 1 G\n"));
        assert!(!detect(b"v 1.4\nX ./a\n"));
        assert!(!detect(b"main;v 3\nX a\n"));
        assert!(!detect(b"X ./a\nv 10400 3\n"));
    }
}
