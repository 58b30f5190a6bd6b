//! valgrind massif output (`valgrind --tool=massif`, `massif.out.PID`): a header (`desc:`,
//! `cmd:`, `time_unit:`), then snapshots, each `snapshot=N` between `#-----------` lines with
//! `time=`, `mem_heap_B=`, `mem_heap_extra_B=`, `mem_stacks_B=` and `heap_tree=` `empty`,
//! `detailed` or `peak`; a detailed or peak snapshot is followed by its allocation tree, one
//! node a line, indented by depth:
//!
//! ```text
//! n2: 12000 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.
//!  n1: 8000 0x8048404: h (prog.c:4)
//!   n0: 8000 0x8048472: main (prog.c:24)
//!  n0: 4000 in 3 places, all below massif's threshold (1.00%)
//! ```
//!
//! `nK` is the node's number of children, then its bytes (its children's and its own). The root
//! is the allocation functions; a child is a caller of its parent, so a path from the root is a
//! stack innermost first (the allocation site first).
//!
//! Reading (docs/formats/massif.md):
//! * One sample per tree node with bytes of its own (node minus children; every leaf, even of
//!   0 bytes), its stack the path below the root: `heap`/bytes in every detailed and peak
//!   snapshot, `peak_heap`/bytes the same but 0 outside the peak snapshot (the default type: its
//!   total is the peak's tree). The root itself is a frame only where it has bytes of its own.
//! * One sample per snapshot (empty ones too) with the stack `snapshot N` and the snapshot's
//!   `mem_heap`, `mem_heap_extra` and `mem_stacks` (bytes): the series over time.
//! * Every sample: `samples..snapshot` (int, a facet to select one snapshot) and
//!   `samples..snapshot_time` (dbl, in the file's `time_unit`; not `.time`, which is seconds).
//! * Frames: `0xADDR: fn (file:line)` → function `fn` in `file`, location line and
//!   `locations..address`; `(in object)` → `locations..object`; `???` → a function named by
//!   the address (`0x4d3286`, as for DHAT); `in N places, all below massif's threshold (…)` → a frame of that name.
//! * Meta `massif.desc`, `massif.cmd`, `massif.time_unit`, `massif.peak_snapshot`,
//!   `massif.alloc_fns` (each distinct root text).
//! * Warnings: header lines not understood, a node smaller than its children, a tree whose root
//!   differs from `mem_heap_B`, more than one peak. Errors: a malformed field or node line, a
//!   tree cut short, no snapshot.

mod grammar;
mod read;

pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "massif";
/// `samples` extension column: the snapshot number (int).
pub const SAMPLE_SNAPSHOT: &str = ".snapshot";
/// `samples` extension column: the snapshot's `time=`, in the unit meta `massif.time_unit`
/// names (`i` instructions, `ms`, `B` bytes allocated).
pub const SAMPLE_SNAPSHOT_TIME: &str = ".snapshot_time";
/// Value type of the peak snapshot's tree (the default).
pub const PEAK_HEAP: &str = "peak_heap";
/// Value type of every detailed snapshot's tree.
pub const HEAP: &str = "heap";
/// Value types of the per-snapshot totals.
pub const MEM_HEAP: &str = "mem_heap";
pub const MEM_HEAP_EXTRA: &str = "mem_heap_extra";
pub const MEM_STACKS: &str = "mem_stacks";

/// Bytes [`detect`] examines.
const DETECT_PREFIX_BYTES: usize = 8192;

/// True when the input starts with the header lines `desc:`, `cmd:`, `time_unit:` in this
/// order, followed by the separator `#-----------` and `snapshot=` (where they fit in the
/// examined prefix).
pub fn detect(bytes: &[u8]) -> bool {
    let text = super::read_common::text_prefix(bytes, DETECT_PREFIX_BYTES);
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let cut = bytes.len() > text.len();
    let mut lines = text.split('\n').map(|l| l.trim_end_matches('\r'));
    let expected: [fn(&str) -> bool; 5] = [
        |l| l.starts_with("desc:"),
        |l| l.starts_with("cmd:"),
        |l| grammar::time_unit(l).is_some(),
        |l| l == grammar::SEPARATOR,
        |l| l.starts_with("snapshot="),
    ];
    let mut seen = 0;
    for want in expected {
        match lines.next() {
            Some(l) if want(l) => seen += 1,
            // The prefix may end inside a line.
            Some(_) if cut && lines.clone().next().is_none() => return seen >= 3,
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_needs_the_header_in_order() {
        let ok = b"desc: (none)\ncmd: ./a\ntime_unit: i\n#-----------\nsnapshot=0\n";
        assert!(detect(ok));
        assert!(!detect(b"desc: I1 cache\ncmd: ./a\nevents: Ir\n"));
        assert!(!detect(b"cmd: ./a\ndesc: x\ntime_unit: i\n"));
        assert!(!detect(b"desc: x\ncmd: ./a\ntime_unit: i\nsnapshot=0\n"));
    }
}
