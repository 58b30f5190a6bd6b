//! GHC's JSON cost-centre profile (`+RTS -pj`, written as `PROGRAM.prof`): `cost_centres`
//! (`id`, `label`, `module`, `src_loc`, `is_caf`) and `profile`, the cost-centre-stack tree
//! whose nodes carry their individual `entries`, `ticks` and `alloc`.
//!
//! Reading:
//! * One sample per tree node with a non-zero count (entries, ticks or alloc), its stack the
//!   path from the root (`MAIN`) to it: `ticks`/`count`, `time`/`nanoseconds` (ticks ×
//!   `tick_interval` µs), `alloc`/`bytes`, `entries`/`count`; `time` is the default type. The
//!   node values are individual (self) values, so every node's subtree sums to its inherited
//!   values and the totals to `total_ticks` / `total_alloc`.
//! * Functions: one per cost centre, named `Module.label`; `src_loc` `file:line:col` or
//!   `file:(line,col)-(line,col)` gives filename and start line (`<built-in>`,
//!   `<entire-module>`, `<no location info>` give none); `functions..is_caf`.
//! * Meta `ghc.program`, `ghc.arguments` and `ghc.rts_arguments` (one row each), `ghc.end_time`,
//!   `ghc.initial_capabilities`, `ghc.total_time`, `ghc.total_ticks`, `ghc.tick_interval`,
//!   `ghc.total_alloc`.
//! * Warnings: top-level keys not read (named). Keys of cost centres and nodes beyond these are
//!   ignored.
//! * Errors: a node naming a cost centre not in `cost_centres`; trees nested deeper than
//!   serde_json's recursion limit (about 120 levels) are refused with its message. The text
//!   `.prof` form (`COST CENTRE` tables of `+RTS -p`) is not read yet.

mod read;

use super::json_scan;

pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "ghc-prof";
/// `functions` extension column: the cost centre is a CAF (lgl).
pub const FUNCTION_IS_CAF: &str = ".is_caf";

/// True for a JSON object with `cost_centres` (an array), `profile` (an object) and
/// `total_ticks`.
pub fn detect(bytes: &[u8]) -> bool {
    if json_scan::first_significant_byte(bytes) != Some(b'{') {
        return false;
    }
    json_scan::top_level_members(bytes).is_some_and(|m| {
        json_scan::member_starts_with(bytes, &m, "cost_centres", b'[')
            && json_scan::member_starts_with(bytes, &m, "profile", b'{')
            && json_scan::member(&m, "total_ticks").is_some()
    })
}
