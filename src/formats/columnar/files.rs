//! A profile ⇄ the files of a dataset held in memory, for the npm package and the viewer (no
//! directory): `{table: bytes}` one file per table, and the zip of a dataset directory.
//!
//! Invariant: [`encode_profile`] gives exactly the part-0 files the CLI writes for a new
//! dataset of the same profile (same bytes), in document order, and [`decode_files`] reads
//! them back into the profile whose tables-JSON equals the original's.

use super::read::{decode_table, read_tables, tables_from_parts};
use super::write::{encode_arrow_stream, encode_table};
use super::{is_plain_table_name, part_file_name, Container};
use crate::formats::zip::{self, Entry, Method};
use crate::formats::{ReadError, ReadOptions, Warning, WriteError};
use crate::model::{tables_from_profile, Profile, Tables};

/// One file per table of `p` (its logical tables, in document order) as `(table, bytes)`.
/// `stream`: Arrow IPC stream format instead of the file format (for [`Container::Arrow`]
/// only; readers that take a stream of messages, such as DuckDB-wasm, want it).
pub fn encode_profile(
    c: Container,
    p: &Profile,
    stream: bool,
) -> Result<Vec<(String, Vec<u8>)>, WriteError> {
    let tables = tables_from_profile(p);
    let mut files = Vec::with_capacity(tables.tables.len());
    for (position, (name, t)) in tables.tables.iter().enumerate() {
        let bytes = match (c, stream) {
            (Container::Arrow, true) => encode_arrow_stream(name, position, t)?,
            _ => encode_table(c, name, position, t)?,
        };
        files.push((name.clone(), bytes));
    }
    Ok(files)
}

/// The profile of one file per table (`(table, bytes)`; Arrow files in the file or the stream
/// format), with the warnings tables-JSON gives. Errors name the table.
pub fn decode_files(
    c: Container,
    files: Vec<(String, Vec<u8>)>,
    options: &ReadOptions,
) -> Result<(Profile, Vec<Warning>), ReadError> {
    read_tables(c, &decode_tables(c, files)?, options)
}

/// The logical tables of one file per table, as stored (not checked against the v2 rules).
pub fn decode_tables(c: Container, files: Vec<(String, Vec<u8>)>) -> Result<Tables, ReadError> {
    let mut parts = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        let place = format!("table {name}");
        parts.push(decode_table(c, &name, bytes, &place)?);
    }
    tables_from_parts(c, parts)
}

/// A zip holding the dataset directory `dir` of `p`: `dir/<table>/part-00000.<ext>`, as
/// `convert -o dir --to <c>` writes it (so unzipping gives a dataset every reading verb and
/// DuckDB read). Arrow files are deflated, Parquet files (compressed already) stored.
pub fn zip_dataset(c: Container, p: &Profile, dir: &str) -> Result<Vec<u8>, WriteError> {
    let fail = |m: String| WriteError::new(c.name(), m);
    if !is_plain_table_name(dir) {
        return Err(fail(format!("{dir:?} cannot name a dataset folder")));
    }
    let mut entries = Vec::new();
    for (table, bytes) in encode_profile(c, p, false)? {
        if !is_plain_table_name(&table) {
            return Err(fail(format!("table {table:?} cannot name a folder")));
        }
        let name = format!("{dir}/{table}/{}", part_file_name(c, 0));
        entries.push(Entry { name, bytes });
    }
    let method = match c {
        Container::Parquet => Method::Stored,
        Container::Arrow => Method::Deflate,
    };
    zip::zip(&entries, method).map_err(|e| fail(e.to_string()))
}
