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
//! [`encode_profile`] / [`decode_files`] do the same for a dataset held in memory (one file
//! per table: the npm package's `toArrow` / `fromArrow`), and [`zip_dataset`] zips a dataset
//! directory (the viewer's Export).
//!
//! Feature `columnar`: on for the CLI and the native tests, and in the second wasm build
//! (`pkg/columnar-*`, `scripts/build.sh`); the viewer's own wasm (`pkg/web`) is built without
//! it and never links the Arrow crates.

mod append;
mod files;
mod read;
pub mod schema;
mod write;

pub use append::{plan_append, select_rows, TablePlan, REWRITTEN_TABLES};
pub use files::{decode_files, decode_tables, encode_profile, zip_dataset};
pub use read::{decode_table, read_tables, tables_from_parts, DecodedTable};
pub use write::{encode_arrow_stream, encode_table};

/// Digits of a part's number in its file name (`part-00000`).
pub const PART_DIGITS: usize = 5;

/// The file name of part `number` of a table: `part-00000.parquet`.
pub fn part_file_name(c: Container, number: usize) -> String {
    format!("part-{number:0PART_DIGITS$}{}", c.extension())
}

/// Whether `name` can be a table's folder: letters, digits, `_`, `-` and `.` (not first), so
/// an extension table read from a file cannot be called `../x`.
pub fn is_plain_table_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.'))
}

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
