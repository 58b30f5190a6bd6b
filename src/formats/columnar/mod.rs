//! The profile tables as a columnar dataset: one Parquet or Arrow IPC file per table and part,
//! for DuckDB, Polars, Spark, pandas and R's arrow (`docs/columnar.md`).
//!
//! A dataset is a directory with a folder per table of [`crate::model::tables_from_profile`]
//! (the seven v2 tables, the extension tables, `column_types`, `value_types`), each holding
//! `part-NNNNN.parquet` (or `.arrow`) files that share one schema:
//!
//! * column names are those of the logical tables, dotted extension columns included;
//! * types: `int` → int32, `dbl` → float64, `chr` → utf8 dictionary-encoded (int32 keys),
//!   `lgl` → boolean, `u64` → uint64; NA is null; keys and names are declared non-nullable
//!   ([`schema`]);
//! * each file's schema metadata names its table ([`schema::TABLE_KEY`]) and its position in
//!   the document ([`schema::POSITION_KEY`]), so reading restores the table order exactly.
//!
//! This module does no I/O: [`encode_table`] / [`decode_table`] turn one table into one file's
//! bytes and back; [`tables_from_parts`] joins the parts of a dataset into logical tables;
//! [`read_tables`] makes a profile of them as tables-JSON does, so reading a dataset back gives
//! the same tables-JSON byte for byte. [`plan_append`] decides which tables an `--append`
//! grows by a part and which it rewrites. The CLI (`src/cli/dataset.rs`) owns the
//! directory.
//!
//! Native only (feature `columnar`): the viewer's wasm never links the Arrow crates.

mod append;
mod read;
pub mod schema;
mod write;

pub use append::{plan_append, select_rows, TablePlan, REWRITTEN_TABLES};
pub use read::{decode_table, read_tables, tables_from_parts, DecodedTable};
pub use write::encode_table;

/// Most rows of one Arrow record batch read or written at a time.
pub const BATCH_ROWS: usize = 64 * 1024;

/// The file container of a dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// Apache Parquet, snappy-compressed, dictionary-encoded strings.
    Parquet,
    /// Apache Arrow IPC file format (Feather v2), uncompressed.
    Arrow,
}

impl Container {
    /// Both containers.
    pub const ALL: [Container; 2] = [Container::Parquet, Container::Arrow];

    /// The name `--to` takes and messages use.
    pub fn name(self) -> &'static str {
        match self {
            Container::Parquet => "parquet",
            Container::Arrow => "arrow",
        }
    }

    /// The file name ending of its parts, with the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Container::Parquet => ".parquet",
            Container::Arrow => ".arrow",
        }
    }

    /// The container called `name` (`parquet`, `arrow`).
    pub fn from_name(name: &str) -> Option<Container> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The container whose parts end like `file_name`.
    pub fn of_file(file_name: &str) -> Option<Container> {
        Self::ALL
            .into_iter()
            .find(|c| file_name.ends_with(c.extension()))
    }
}
