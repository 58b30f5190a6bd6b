//! Pure computations on a [`crate::model::Profile`]: function tables, call trees, flame-graph and
//! time-order layouts, callers/callees and search. No I/O, no JavaScript.
//!
//! The viewer's pipeline: [`frames`] gives every function a dense id; [`tree`] turns the stack
//! table into a call tree by frame; [`transform`] rewrites that tree (focus, hide, collapse
//! recursion); [`filter`] weighs the chosen samples onto it; [`flame`], [`timeorder`] and
//! [`sandwich`] lay it out as flat columns; [`view`] keeps it all for one profile;
//! [`diff`] and [`diff_view`] do the same for a comparison of two selections of sources.

pub mod bits;
pub mod calltree;
pub mod children;
pub mod diff;
pub mod diff_view;
pub mod facets;
pub mod filter;
#[cfg(test)]
mod fixtures;
pub mod flame;
pub mod frames;
pub mod functions;
pub mod lines;
pub mod narrow_counts;
pub mod sandwich;
pub mod search;
pub mod source;
pub mod source_files;
pub mod summary;
pub mod timeorder;
pub mod transform;
pub mod tree;
pub mod tree_ranges;
pub mod view;
pub mod weights;
