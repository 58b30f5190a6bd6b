//! valgrind DHAT's JSON output (`valgrind --tool=dhat`, `dhatFileVersion` 2), the file
//! `dh_view.html` and the Firefox Profiler open.
//!
//! Reading:
//! * One sample per program point (`pps[i]`): its stack is `fs` (indices into `ftbl`, innermost
//!   first), its values the program point's counters, each a value type when the file has it:
//!   `tb` → `total_bytes`/`bytes`, `tbk` → `total_blocks`/`count`, `tl` → `total_lifetime`/`tu`
//!   (the file's time unit, `instrs` or `ms`), `mb`/`mbk` → `max_bytes`/`max_blocks`,
//!   `gb`/`gbk` → `tgmax_bytes`/`tgmax_blocks` (live at the global heap maximum), `eb`/`ebk` →
//!   `tend_bytes`/`tend_blocks` (live at the end), `rb`/`wb` → `reads`/`writes` (bytes).
//!   In ad-hoc mode `tb`/`tbk` are named by the file's `bsu`/`bksu` (`total_units`,
//!   `total_events`, unit `count`). The default type is the `tb` one.
//! * Frames: `0xADDR: name (file:line)` gives a function `name` in `file`, a location with that
//!   line and `locations..address`; `0xADDR: name (in object)` a function without file and
//!   `locations..object`; `???` names the function by its address. Each `ftbl` entry is one
//!   location.
//! * Meta: `dhat.version`, `dhat.mode`, `dhat.verb`, `dhat.cmd`, `dhat.pid`, `dhat.time_unit`
//!   (`tu`), `dhat.time_unit_m` (`Mtu`), `dhat.tuth`, `dhat.te` (t-end), `dhat.tgmax` (`tg`),
//!   `dhat.block_lifetimes` (`bklt`), `dhat.block_accesses` (`bkacc`), and ad-hoc mode's unit
//!   names `dhat.bu`, `dhat.bsu`, `dhat.bksu`.
//! * Not kept, and said in warnings: the per-block access histograms (`acc`), unknown keys.
//!   Errors: not JSON, no `pps` or `ftbl`, a frame index outside `ftbl`, a counter that is not
//!   a non-negative number.

mod read;
mod schema;

use super::json_scan;

pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "dhat";
/// `locations` extension column: the object file of a frame without source (`(in /lib.so)`).
pub const LOCATION_OBJECT: &str = crate::model::ext::locations::OBJECT;

/// Bytes [`detect`] examines.
const DETECT_PREFIX_BYTES: usize = 4096;

/// True for a JSON object that names `dhatFileVersion` within its first 4 KiB (valgrind writes
/// it first) and whose `pps` and `ftbl` are not yet ruled out.
pub fn detect(bytes: &[u8]) -> bool {
    let head = json_scan::prefix(bytes, DETECT_PREFIX_BYTES);
    json_scan::opens_object(head)
        && json_scan::contains(head, b"\"dhatFileVersion\"")
        && (json_scan::contains(head, b"\"pps\"") || head.len() == DETECT_PREFIX_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_needs_the_version_key() {
        assert!(detect(b"{\"dhatFileVersion\":2,\"pps\":[],\"ftbl\":[]}"));
        assert!(!detect(b"{\"version\":2,\"pps\":[]}"));
        assert!(!detect(b"[\"dhatFileVersion\"]"));
        assert!(!detect(b"dhatFileVersion \"pps\""));
    }
}
