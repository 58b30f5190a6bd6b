//! The v2 profile tables of seed 000: logical (relational, validated) and physical
//! (struct-of-arrays, seed 004 style) forms, the builder readers use, and the legacy v1 format.

pub mod builder;
pub mod columns;
pub mod combine;
pub mod ids;
pub mod logical;
pub mod profile;
mod stack_index;
pub mod strings;

pub use builder::{check_invariants, FunctionKey, ModelError, ProfileBuilder};
pub use columns::{Cell, Column, ColumnData, ColumnKind, ExtColumns, ExtTable};
pub use ids::*;
pub use logical::{Table, Tables, Values};
pub use profile::*;
pub use strings::StringTable;
