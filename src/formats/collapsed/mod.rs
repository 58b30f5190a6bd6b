//! Brendan Gregg's collapsed ("folded") stacks: one `frame;frame;… count` line per stack,
//! outermost frame first (docs/formats/collapsed.md).
//!
//! Reading:
//! * Each valid line becomes **one** sample (never expanded): value type `samples`/`count` holds
//!   the count, which may be an integer or a decimal (`31.23`, `6.`; kept exactly as `f64`).
//!   Identical stacks on several lines stay several samples, in file order.
//! * Differential files (`stack before after`, as `difffolded` writes them) read as two value
//!   types: `before`/`count` (first count) and `samples`/`count` (second count, the one
//!   flamegraph.pl and inferno draw). A file is differential when *every* valid line has two
//!   counts; otherwise a number before the count is part of the last frame's name (a frame such
//!   as `LazyCompile:foo node.js 387` stays intact).
//! * The count is split off from the right at the last space or tab; frames are split on `;`.
//!   Lines are trimmed (CRLF, trailing blanks). Text may be UTF-8 (a BOM is skipped) or
//!   UTF-16 LE/BE with a BOM; invalid UTF-8 is replaced and reported.
//! * Lines starting with `#` are comments (austin's `# interval: 100` metadata); they are kept
//!   in meta as `collapsed.comment` rows. Other lines that do not parse are skipped and counted
//!   in one warning; a file without any stack line is an error ("no stack counts found", as
//!   flamegraph.pl says).
//! * Empty frame names (`a;;b`) become `(anonymous)` (counted warning); frames ending in `_[k]`
//!   get `locations..frame_type = "kernel"` (the names are kept verbatim).
//! * A line of a blank then the count alone (` 108`: py-spy's samples without Python frames)
//!   is a sample of the root alone (no stack), as flamegraph.pl and inferno count it; the
//!   writer writes such samples so.
//!
//! Writing aggregates samples by stack (summing the chosen value type), one line per distinct
//! stack, sorted by stack text, `\n` line ends, one ASCII space before the count: the format of
//! stackcollapse-perf.pl. A `;` inside a frame name is written as `:` and line breaks as
//! spaces, as stackcollapse-perf.pl does; other control characters (which readers take for
//! binary data) become U+FFFD, and leading blanks of a root frame (which readers trim) are
//! dropped — each with a warning. When the profile has a `before` value type and
//! `samples` is written, lines carry both counts (`stack before after`), so differential files
//! round-trip.
//!
//! This file holds detection; `grammar` the line grammar that detection, reading and writing
//! share (the text decoding is `read_common::decode_text`, shared by every text format); [`read`] and [`write`] the two directions.

mod grammar;
mod read;
pub mod stream;
mod write;

use super::read_common::decode_text;
use super::sniff::Sniff;
use grammar::{has_control_chars, is_root_only, split_count};
pub use read::read;
pub use write::write;

/// Format name used in errors and warnings.
pub const NAME: &str = "collapsed";

/// Meta key of the comment lines (`# …`), one row per line, without the `#`.
pub const META_COMMENT: &str = "collapsed.comment";

/// Value type of the first count of a differential line.
pub const BEFORE_TYPE: &str = "before";

/// Bytes of the input examined by [`detect`] (at least; see `detect_prefix_len`).
const DETECT_PREFIX_BYTES: usize = 64 * 1024;
/// Candidate lines (not blank, not comments) examined by [`detect`].
const DETECT_MAX_LINES: usize = 100;
/// At most one judged line in this many may fail to be `stack count` (inferno's test file
/// with two bad lines in ten still reads, with a warning).
const DETECT_MAX_BAD_SHARE: usize = 3;

/// True when the text looks like folded stacks: see [`sniff`].
pub fn detect(bytes: &[u8]) -> bool {
    matches!(sniff(bytes), Sniff::Fits)
}

/// Folded stacks fit when the text is not JSON, binary, Rprof output or pprof's legacy text,
/// nearly every one of the first lines (all but one in [`DETECT_MAX_BAD_SHARE`]) is
/// `stack count`, and the stacks look like stacks: some has several frames (`a;b`), or none
/// holds a space (one-frame "stacks" with spaces are prose ending in a number: a log line, a
/// message).
pub fn sniff(bytes: &[u8]) -> Sniff {
    let head = bytes.get(..detect_prefix_len(bytes)).unwrap_or(bytes);
    let (text, _) = decode_text(head);
    let complete = if head.len() < bytes.len() {
        // Only judge complete lines of a cut prefix.
        text.rfind('\n').map_or("", |end| &text[..end])
    } else {
        &text
    };
    if complete.contains('\0')
        || looks_like_json_or_rprof(complete)
        || super::pprof_text::starts_like_legacy_text(complete)
    {
        return Sniff::Foreign;
    }
    let mut tally = Tally::default();
    for (n, line) in complete
        .lines()
        .enumerate()
        .filter(|(_, l)| !is_root_only(l))
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .take(DETECT_MAX_LINES)
    {
        tally.line(n, line);
    }
    tally.verdict()
}

/// The lines [`sniff`] judged.
#[derive(Default)]
struct Tally {
    valid: usize,
    invalid: usize,
    /// The first line that is not `stack count`, and what is wrong with it.
    first_bad: Option<(usize, &'static str)>,
    several_frames: bool,
    spaced_frame: bool,
}

impl Tally {
    fn line(&mut self, n: usize, line: &str) {
        let problem = match split_count(line) {
            None => Some("has no sample count"),
            // A "stack" of bare numbers (`16 20`, `+3 * 12`) is a cost line of a
            // line-oriented format such as callgrind, not frames.
            Some((stack, _)) if stack.split_ascii_whitespace().all(is_number_token) => {
                Some("holds only numbers")
            }
            Some(_) if has_control_chars(line) => Some("holds control characters"),
            Some((stack, _)) => {
                self.several_frames |= stack.contains(';');
                self.spaced_frame |= stack.contains([' ', '\t']);
                None
            }
        };
        match problem {
            None => self.valid += 1,
            Some(p) => {
                self.invalid += 1;
                self.first_bad.get_or_insert((n, p));
            }
        }
    }

    fn verdict(self) -> Sniff {
        let Some((n, problem)) = self.first_bad.filter(|_| {
            self.valid == 0 || self.invalid * DETECT_MAX_BAD_SHARE > self.valid + self.invalid
        }) else {
            if self.valid > 0 && !self.several_frames && self.spaced_frame {
                return Sniff::near(
                    self.valid,
                    "no stack has several frames (`a;b`) and frames hold spaces: text, not stacks",
                );
            }
            return match self.valid {
                0 => Sniff::Foreign,
                _ => Sniff::Fits,
            };
        };
        let mut why = format!("line {n} {problem}");
        if self.valid > 0 {
            let judged = self.valid + self.invalid;
            why.push_str(&format!(
                " ({} of the first {judged} lines are not `stack count`)",
                self.invalid
            ));
        }
        Sniff::near(self.valid, why)
    }
}

/// `12`, `+3`, `-1`, `*`: a token of a cost line.
fn is_number_token(t: &str) -> bool {
    t == "*"
        || t.trim_start_matches(['+', '-'])
            .starts_with(|c: char| c.is_ascii_digit())
}

/// Bytes [`detect`] examines: [`DETECT_PREFIX_BYTES`], or up to the end of the first line
/// when that is longer (deep stacks of long names make lines of hundreds of KiB).
fn detect_prefix_len(bytes: &[u8]) -> usize {
    let prefix = bytes.len().min(DETECT_PREFIX_BYTES);
    if bytes
        .get(..prefix)
        .is_some_and(|h| memchr::memchr(b'\n', h).is_some())
    {
        return prefix;
    }
    memchr::memchr(b'\n', bytes).map_or(bytes.len(), |end| end + 1)
}

fn looks_like_json_or_rprof(text: &str) -> bool {
    let first = text.trim_start();
    if first.starts_with('{') || first.starts_with('[') {
        return true;
    }
    let first_line = first.lines().next().unwrap_or("");
    first_line.starts_with("sample.interval=")
        || ["memory profiling:", "line profiling:", "GC profiling:"]
            .iter()
            .any(|h| first_line.starts_with(h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_rejects_rprof_and_json() {
        assert!(!detect(b"sample.interval=20000\n\"a\" \"b\" \n"));
        assert!(!detect(b"{\"a\": 1}"));
        assert!(!detect(b"\x1f\x8b\x08\x00"));
        assert!(detect(b"a;b 1\n"));
    }
}
