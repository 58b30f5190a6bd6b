//! Why a detector refused a file: the text of the "unrecognized format" error.
//!
//! A detector claims a file only when its grammar fits the prefix it examined. When none
//! claims it, [`likely_refusals`] asks the readers of [`SNIFFERS`] what they found wrong, so
//! the error can say `collapsed: line 3 has no sample count` rather than guess. A row is
//! `(Format, fn(&[u8]) -> Sniff)`; a format joins by adding its row here (its `detect` should
//! then be `matches!(sniff(bytes), Sniff::Fits)`, so that the two never disagree). Formats
//! without a row are simply not named in the error.

use super::{
    callgrind, collapsed, goroutine_dump, instruments, papyrus, perf_script, pmcstat, rprof,
    safari, speedscope, Format,
};

/// What a detector makes of a prefix.
#[derive(Debug, Clone, PartialEq)]
pub enum Sniff {
    /// The grammar fits: the detector claims the file.
    Fits,
    /// The file resembles the format (it started to fit, or has its shape) but a nameable
    /// rule failed.
    Near(Miss),
    /// The file has nothing of the format (binary for a text format, no header, …).
    Foreign,
}

/// Why a file that resembles a format is not one.
#[derive(Debug, Clone, PartialEq)]
pub struct Miss {
    /// How far the grammar got (lines or items that fit before the refusal): the more, the
    /// more plausible the format, and the earlier it is named. A format's distinctive header
    /// keyword (`goroutine `, `@ `, `sample.interval=`) counts as 1, the header that fits as 2.
    pub progress: usize,
    /// What was wrong, without the format name (`line 3 has no sample count`).
    pub why: String,
}

impl Sniff {
    /// A near miss with its progress and reason.
    pub fn near(progress: usize, why: impl Into<String>) -> Sniff {
        Sniff::Near(Miss {
            progress,
            why: why.into(),
        })
    }
}

/// Bytes [`likely_refusals`] checks for binary data.
const BINARY_CHECK_BYTES: usize = 4096;

/// Bytes at the start that must be valid UTF-8 for text: a magic number (PNG's `89 50 4e 47`,
/// ELF's `7f 45 4c 46`…) usually is not.
const MAGIC_BYTES: usize = 8;

/// True when the first bytes hold control characters no text profile has (anything but tab,
/// line ends and form feed) or start with bytes that are not UTF-8: binary data, of which no
/// text or JSON format has anything to say.
pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
    let head = bytes.get(..BINARY_CHECK_BYTES).unwrap_or(bytes);
    let magic = head.get(..MAGIC_BYTES).unwrap_or(head);
    if let Err(e) = std::str::from_utf8(magic) {
        // An error at the very end may be a character cut by the slice: that is still text.
        if e.error_len().is_some() {
            return true;
        }
    }
    String::from_utf8_lossy(head)
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c'))
}

/// The refusal reasons of one format's detector.
pub type SniffFn = fn(&[u8]) -> Sniff;

/// Readers that can say why they refused, the most plausible first when their progress ties
/// (the line formats without a header before those whose header did not fit, then JSON
/// formats whose distinctive key was there).
pub const SNIFFERS: &[(Format, SniffFn)] = &[
    (Format::Collapsed, collapsed::sniff),
    (Format::PerfScript, perf_script::sniff),
    (Format::Callgrind, callgrind::sniff),
    (Format::GoroutineDump, goroutine_dump::sniff),
    (Format::Pmcstat, pmcstat::sniff),
    (Format::Papyrus, papyrus::sniff),
    (Format::Instruments, instruments::sniff),
    (Format::Rprof, rprof::sniff),
    (Format::Safari, safari::sniff),
    (Format::Speedscope, speedscope::sniff),
];

/// At most this many readers are named in the error.
pub const MAX_NAMED: usize = 4;

/// `format: why` of the readers that refused `bytes` for a nameable reason, most plausible
/// first (greatest progress, then [`SNIFFERS`] order), at most [`MAX_NAMED`]. None for binary
/// data: every row is a text or JSON format.
pub fn likely_refusals(bytes: &[u8]) -> Vec<String> {
    if looks_binary(bytes) {
        return Vec::new();
    }
    let mut misses: Vec<(usize, Format, Miss)> = SNIFFERS
        .iter()
        .enumerate()
        .filter_map(|(i, (format, sniff))| match sniff(bytes) {
            Sniff::Near(miss) => Some((i, *format, miss)),
            Sniff::Fits | Sniff::Foreign => None,
        })
        .collect();
    misses.sort_by(|a, b| b.2.progress.cmp(&a.2.progress).then(a.0.cmp(&b.0)));
    misses
        .into_iter()
        .take(MAX_NAMED)
        .map(|(_, format, miss)| format!("{}: {}", format.name(), miss.why))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_magic_number_that_is_not_utf8_is_binary() {
        assert!(looks_binary(&[0x89, 0x50, 0x4e, 0x47]));
        assert!(looks_binary(b"\x7fELF\x02\x01\x01"));
        assert!(likely_refusals(&[0x89, 0x50, 0x4e, 0x47, b'\n', b'a', b' ', b'1']).is_empty());
    }

    #[test]
    fn text_with_a_character_cut_by_the_check_is_not_binary() {
        // "abcdefg" then the first byte of "é" (c3 a9): the 8-byte window ends inside it.
        assert!(!looks_binary("abcdefgé 1\n".as_bytes()));
        assert!(!looks_binary(b"main;work 10\n"));
    }
}
