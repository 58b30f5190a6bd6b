//! Pure computations on a [`crate::model::Profile`]: function tables, call trees, flame-graph and
//! time-order layouts, callers/callees and diffs. No I/O, no JavaScript.

pub mod diff;
pub mod functions;
