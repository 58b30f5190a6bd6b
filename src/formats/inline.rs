//! Inline chains in the v2 tables, as the readers record them.
//!
//! Two conventions exist side by side:
//! * pprof and OTLP: the rows of one machine location (its inline chain, innermost first) are
//!   consecutive `locations` rows sharing `.pprof_location_id`, with `.pprof_line_index`
//!   0, 1, 2, … ;
//! * Firefox: a frame inlined into its caller carries `.inlined = TRUE`.
//!
//! Writers that can express inlining (OTLP, Firefox, pprof) ask [`inlined_into`].

use crate::model::{ext, Cell, LocationIndex, Profile, INT_NA};

/// Location column: the id of the machine location a row belongs to (u64).
pub const PPROF_LOCATION_ID: &str = ext::locations::PPROF_LOCATION_ID;
/// Location column: the row's position in its location's inline chain (int, 0 = innermost).
pub const PPROF_LINE_INDEX: &str = ext::locations::PPROF_LINE_INDEX;
/// Location column: TRUE when the frame was inlined into its caller.
pub const INLINED: &str = ext::locations::INLINED;

/// True when frame `inner` was inlined into `outer`, its caller in a stack.
pub fn inlined_into(p: &Profile, inner: LocationIndex, outer: LocationIndex) -> bool {
    let ext = &p.locations.ext;
    if matches!(ext.cell(INLINED, inner.idx()), Some(Cell::Lgl(Some(true)))) {
        return true;
    }
    let id = |l: LocationIndex| match ext.cell(PPROF_LOCATION_ID, l.idx()) {
        Some(Cell::U64(Some(v))) => Some(v),
        _ => None,
    };
    let index = |l: LocationIndex| match ext.cell(PPROF_LINE_INDEX, l.idx()) {
        Some(Cell::Int(v)) if v != INT_NA => Some(v),
        _ => None,
    };
    outer.0 == inner.0.wrapping_add(1)
        && id(inner).is_some()
        && id(inner) == id(outer)
        && matches!((index(inner), index(outer)), (Some(a), Some(b)) if b == a.wrapping_add(1))
}
