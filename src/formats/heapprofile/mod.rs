//! Node / Chrome `.heapprofile` (V8's sampling heap profiler: `node --heap-prof`, DevTools
//! "Allocation sampling"): `{"head": node, "samples": [{size, nodeId, ordinal}]}` where a node
//! is `{callFrame, selfSize, id, children}`.
//!
//! Reading:
//! * One `sources` row. Value types `space`/`bytes` (the default) and `objects`/`count`.
//! * The tree's `selfSize` is the authority for `space` (it is what DevTools and speedscope
//!   show). A node whose `samples` add up to its `selfSize` gives one model sample per sampled
//!   allocation, in `ordinal` order (kept as `samples..ordinal`), valued its `size` and 1 object.
//!   Every other node with a `selfSize` (all of them in older files without `samples`; in node
//!   20's files, nodes whose samples differ from the tree) becomes one sample valued its
//!   `selfSize`, `objects` NA; samples naming nodes that are not in the tree are skipped. Each
//!   case is one warning with its count (and bytes).
//! * The stack is the path from the tree's root to the node; the synthetic `(root)` is left out.
//!   Functions as in `cpuprofile`: `functionName` (anonymous ones named `(anonymous file:line)`),
//!   `url` → filename, `lineNumber + 1` → `start_line`, `columnNumber + 1` →
//!   `functions..start_column`, `scriptId` → `functions..script_id`; locations have line 0.
//! * The tree is walked with an explicit stack (any depth, no recursion). Duplicate node ids are
//!   errors; unknown keys are reported in warnings.

mod read;

use super::json_scan;

pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "heapprofile";
/// `samples` extension column: V8's `ordinal` of the sampled allocation (its order).
pub const SAMPLE_ORDINAL: &str = ".ordinal";
/// Known top-level keys.
const KNOWN_KEYS: [&str; 2] = ["head", "samples"];

/// True for an object whose `head` is a node object with `callFrame` and `selfSize`, without
/// the `startTime`/`timestamps` of the old V8 CPU profile format.
pub fn detect(bytes: &[u8]) -> bool {
    if json_scan::first_significant_byte(bytes) != Some(b'{') {
        return false;
    }
    let Some(m) = json_scan::top_level_members(bytes) else {
        return false;
    };
    let Some(head) = json_scan::member(&m, "head") else {
        return false;
    };
    if ["startTime", "timestamps", "nodes", "traceEvents"]
        .iter()
        .any(|k| json_scan::member(&m, k).is_some())
    {
        return false;
    }
    json_scan::object_members(bytes, head.value.start).is_some_and(|h| {
        json_scan::member_starts_with(bytes, &h, "callFrame", b'{')
            && json_scan::member(&h, "selfSize").is_some()
    })
}
