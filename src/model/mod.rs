//! The v2 profile tables of docs/model.md: logical (relational, validated) and physical
//! (struct-of-arrays) forms, the builder readers use, and the legacy v1 format.

pub mod builder;
pub mod columns;
pub mod combine;
pub mod convert;
pub mod ext;
pub mod ids;
mod invariants;
mod load;
pub mod logical;
pub mod prefixes;
pub mod profile;
mod shared;
mod stack_index;
pub mod stack_locations;
pub mod strings;
pub mod typing;
pub mod v1;
pub mod validate;

pub use builder::{check_invariants, FunctionKey, ModelError, ProfileBuilder};
pub use columns::{Cell, Column, ColumnData, ColumnKind, ExtColumns, ExtTable};
pub use convert::{profile_from_tables, profile_from_v1, tables_from_profile};
pub use ids::*;
pub use logical::{Table, Tables, Values};
pub use prefixes::Prefixes;
pub use profile::*;
pub use shared::Shared;
pub use stack_locations::StackLocations;
pub use strings::StringTable;
pub use v1::{v1_from_v2, v2_from_v1, validate_profile, validate_v1};
pub use validate::{validate_v2, Violation};
