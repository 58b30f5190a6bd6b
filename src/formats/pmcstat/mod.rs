//! FreeBSD `pmcstat -G` call graphs: per event a `@ EVENT [N samples]` header, then blank-line
//! separated chains. A chain's first line is a function that was sampled (with its share and
//! `[count]`), each following line one level deeper (one more leading space) a caller of the
//! line above, so a chain is a tree of callers hanging from the sampled function:
//!
//! ```text
//! @ inst_retired.any [35705 samples]
//!
//! 20.86%  [7447]     zfs_lz4_compress @ /boot/kernel/zfs.ko
//!  100.0%  [7447]      zio_compress_data
//! ```
//!
//! Reading:
//! * One source per event (`sources..name` = the event), one value type per event (the event
//!   name, unit `count`).
//! * One sample per caller-tree node whose count exceeds the sum of its callers' counts, valued
//!   by the difference (the samples whose recorded stack ends there), with the stack from the
//!   sampled function (innermost) to the node. So every chain's samples add up to its first
//!   line's count, and stacks cut at pmcstat's depth limit are kept, not dropped as speedscope
//!   does.
//! * `@ object` names the binary of a frame (`locations..object`); a line without it is in its
//!   callee's (the line above's) object, as pmcstat prints only changes.
//! * Warnings: lines that are not rows (comments, garbage) are skipped and counted; an event
//!   whose counts do not add up to its header's sample count is named. Errors: a line more than
//!   one level deeper than the line above, a row before any `@` header.

mod read;

use super::sniff::Sniff;
pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "pmcstat";

/// Bytes [`detect`] examines.
const DETECT_PREFIX_BYTES: usize = 4096;

/// True when the output fits `pmcstat -G`'s grammar: see [`sniff`].
pub fn detect(bytes: &[u8]) -> bool {
    matches!(sniff(bytes), Sniff::Fits)
}

/// The output fits when the first non-blank line is an event header (`@ EVENT [N samples]`)
/// and the first line that is a row of the grammar comes before any other non-blank,
/// non-comment line.
pub fn sniff(bytes: &[u8]) -> Sniff {
    let mut lines = super::read_common::numbered_prefix_lines(bytes, DETECT_PREFIX_BYTES);
    let Some((n, first)) = lines.by_ref().find(|(_, l)| !l.trim().is_empty()) else {
        return Sniff::Foreign;
    };
    if read::event_header(first).is_none() {
        return match first.starts_with("@ ") {
            true => Sniff::near(1, format!("line {n} is not `@ EVENT [N samples]`")),
            false => Sniff::Foreign,
        };
    }
    match lines.find(|(_, l)| !l.trim().is_empty() && !read::is_comment(l)) {
        Some((_, l)) if read::row(l).is_some() => Sniff::Fits,
        Some((m, _)) => Sniff::near(
            2,
            format!("line {m} is not a row `SHARE% [COUNT] FUNCTION`"),
        ),
        None => Sniff::near(2, "the event header is followed by no row"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_needs_header_and_row() {
        assert!(detect(
            b"@ cycles [10 samples]\n\n100.0%  [10]  f @ /bin/x\n"
        ));
        assert!(!detect(b"@ cycles [10 samples]\n\nf 10\n"));
        assert!(!detect(b"100.0%  [10]  f @ /bin/x\n"));
    }
}
