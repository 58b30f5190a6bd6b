//! One Parquet or Arrow IPC file → one logical table; the parts of a dataset → logical tables →
//! a profile (through [`profile_from_tables`], as tables-JSON reads).
//!
//! Invariant: every part of a table has the same column names and kinds, in the same order;
//! a part that differs is an error naming it, never a silent conversion.

use std::io::Cursor;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowDictionaryKeyType, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type,
    UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{ArrowError, DataType, SchemaRef};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::schema::{POSITION_KEY, TABLE_KEY};
use super::{Container, BATCH_ROWS};
use crate::formats::tables_json::violations_error;
use crate::formats::{Place, ReadError, ReadOptions, Warning};
use crate::model::convert::unkept_parts;
use crate::model::validate::V2_TABLES;
use crate::model::{profile_from_tables, Profile, Table, Tables, Values};

/// One decoded file: its table's name and position (from the schema metadata) and its rows.
#[derive(Clone, Debug)]
pub struct DecodedTable {
    /// The table's name.
    pub name: String,
    /// Its 0-based position in the document; `None` when the file does not say.
    pub position: Option<usize>,
    /// Its rows.
    pub table: Table,
}

/// Decodes one file of table `name` (the folder it is in). `place` names the file in errors.
pub fn decode_table(
    c: Container,
    name: &str,
    bytes: Vec<u8>,
    place: &str,
) -> Result<DecodedTable, ReadError> {
    let fail = |m: String| ReadError::new(c.name(), Place::Path(place.to_owned()), m);
    let (schema, batches) = match c {
        Container::Parquet => parquet_batches(bytes),
        Container::Arrow => ipc_batches(bytes),
    }
    .map_err(|e| fail(e.to_string()))?;
    let position = schema
        .metadata()
        .get(POSITION_KEY)
        .and_then(|p| p.parse().ok());
    if let Some(named) = schema.metadata().get(TABLE_KEY).filter(|n| *n != name) {
        return Err(fail(format!(
            "the file says it holds table {named}, not {name}"
        )));
    }
    let mut columns = Vec::with_capacity(schema.fields().len());
    for (i, field) in schema.fields().iter().enumerate() {
        let mut values = empty_values(field.data_type())
            .ok_or_else(|| fail(unsupported(field.name(), field.data_type())))?;
        for b in &batches {
            push_array(&mut values, b.column(i).as_ref())
                .map_err(|m| fail(format!("column {}: {m}", field.name())))?;
        }
        columns.push((field.name().clone(), values));
    }
    Ok(DecodedTable {
        name: name.to_owned(),
        position,
        table: Table::new(columns),
    })
}

fn unsupported(column: &str, t: &DataType) -> String {
    format!(
        "column {column} has type {t}; proftab reads int32, float64, utf8 (plain or \
         dictionary), boolean and uint64"
    )
}

fn parquet_batches(bytes: Vec<u8>) -> Result<(SchemaRef, Vec<RecordBatch>), ArrowError> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes))?;
    let schema = builder.schema().clone();
    let reader = builder.with_batch_size(BATCH_ROWS).build()?;
    let batches = reader.collect::<Result<Vec<_>, _>>()?;
    Ok((schema, batches))
}

/// The magic that starts an Arrow IPC file (the stream format has none).
const ARROW_FILE_MAGIC: &[u8] = b"ARROW1";

/// The batches of Arrow IPC bytes in the file format, or in the stream format.
fn ipc_batches(bytes: Vec<u8>) -> Result<(SchemaRef, Vec<RecordBatch>), ArrowError> {
    if !bytes.starts_with(ARROW_FILE_MAGIC) {
        let reader = arrow_ipc::reader::StreamReader::try_new(Cursor::new(bytes), None)?;
        let schema = reader.schema();
        let batches = reader.collect::<Result<Vec<_>, _>>()?;
        return Ok((schema, batches));
    }
    let reader = arrow_ipc::reader::FileReader::try_new(Cursor::new(bytes), None)?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>, _>>()?;
    Ok((schema, batches))
}

/// An empty column of the kind an Arrow type reads into, or `None` when unsupported.
fn empty_values(t: &DataType) -> Option<Values> {
    Some(match t {
        DataType::Int32 => Values::Int(Vec::new()),
        DataType::Float64 => Values::Dbl(Vec::new()),
        DataType::Boolean => Values::Lgl(Vec::new()),
        DataType::UInt64 => Values::U64(Vec::new()),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Values::Chr(Vec::new()),
        DataType::Dictionary(_, v) if is_text(v) => Values::Chr(Vec::new()),
        _ => return None,
    })
}

fn is_text(t: &DataType) -> bool {
    matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
}

/// Appends the cells of `a` to `values` (whose kind [`empty_values`] chose from `a`'s type).
fn push_array(values: &mut Values, a: &dyn Array) -> Result<(), String> {
    match values {
        Values::Int(v) => v.extend(a.as_primitive::<Int32Type>().iter()),
        Values::Dbl(v) => v.extend(a.as_primitive::<Float64Type>().iter()),
        Values::U64(v) => v.extend(a.as_primitive::<UInt64Type>().iter()),
        Values::Lgl(v) => v.extend(a.as_boolean().iter()),
        Values::Chr(v) => push_text(v, a)?,
        Values::List(_) => return Err("list columns are not read".to_owned()),
    }
    Ok(())
}

/// Text cells of a plain or dictionary-encoded string array.
fn push_text(v: &mut Vec<Option<String>>, a: &dyn Array) -> Result<(), String> {
    let own = |s: Option<&str>| s.map(str::to_owned);
    match a.data_type() {
        DataType::Utf8 => v.extend(a.as_string::<i32>().iter().map(own)),
        DataType::LargeUtf8 => v.extend(a.as_string::<i64>().iter().map(own)),
        DataType::Utf8View => v.extend(a.as_string_view().iter().map(own)),
        DataType::Dictionary(k, _) => match k.as_ref() {
            DataType::Int8 => push_dictionary::<Int8Type>(v, a)?,
            DataType::Int16 => push_dictionary::<Int16Type>(v, a)?,
            DataType::Int32 => push_dictionary::<Int32Type>(v, a)?,
            DataType::Int64 => push_dictionary::<Int64Type>(v, a)?,
            DataType::UInt8 => push_dictionary::<UInt8Type>(v, a)?,
            DataType::UInt16 => push_dictionary::<UInt16Type>(v, a)?,
            DataType::UInt32 => push_dictionary::<UInt32Type>(v, a)?,
            DataType::UInt64 => push_dictionary::<UInt64Type>(v, a)?,
            t => return Err(format!("dictionary keys of type {t} are not read")),
        },
        t => return Err(format!("type {t} is not text")),
    }
    Ok(())
}

/// Text cells of a dictionary array with keys `K`; a key outside the dictionary is an error.
fn push_dictionary<K: ArrowDictionaryKeyType>(
    v: &mut Vec<Option<String>>,
    a: &dyn Array,
) -> Result<(), String>
where
    usize: TryFrom<K::Native>,
{
    let d = a.as_dictionary::<K>();
    let mut words = Vec::new();
    push_text(&mut words, d.values().as_ref())?;
    for (row, key) in d.keys().iter().enumerate() {
        let Some(key) = key else {
            v.push(None);
            continue;
        };
        let word = usize::try_from(key)
            .ok()
            .and_then(|k| words.get(k))
            .ok_or_else(|| {
                format!("row {row}: dictionary key {key:?} is outside the dictionary")
            })?;
        v.push(word.clone());
    }
    Ok(())
}

/// The order of a table in the document: its recorded position, else the v2 order, else after
/// both (then by name).
fn order_key(t: &DecodedTable) -> (usize, usize, String) {
    let v2 = V2_TABLES.iter().position(|n| *n == t.name);
    match (t.position, v2) {
        (Some(p), _) => (0, p, String::new()),
        (None, Some(p)) => (1, p, String::new()),
        (None, None) => (2, 0, t.name.clone()),
    }
}

/// Joins decoded parts into a document: parts of one table (in the order given) become one
/// table; tables are ordered by [`order_key`]. Fails when two parts of a table differ in their
/// columns; `c` names the container in that error.
pub fn tables_from_parts(c: Container, parts: Vec<DecodedTable>) -> Result<Tables, ReadError> {
    let mut joined: Vec<DecodedTable> = Vec::new();
    for part in parts {
        match joined.iter_mut().find(|t| t.name == part.name) {
            Some(t) => append_part(&mut t.table, part.table)
                .map_err(|m| ReadError::new(c.name(), Place::Path(part.name.clone()), m))?,
            None => joined.push(part),
        }
    }
    joined.sort_by_key(order_key);
    Ok(Tables {
        tables: joined.into_iter().map(|t| (t.name, t.table)).collect(),
    })
}

/// Appends the rows of `more` to `t`; both must have the same columns of the same kinds.
fn append_part(t: &mut Table, more: Table) -> Result<(), String> {
    let same = t.columns.len() == more.columns.len()
        && t.columns.iter().zip(&more.columns).all(|((a, x), (b, y))| {
            a == b && std::mem::discriminant(x) == std::mem::discriminant(y)
        });
    if !same {
        return Err(format!(
            "its parts have different columns: [{}] and [{}]",
            t.names().join(", "),
            more.names().join(", ")
        ));
    }
    for ((_, into), (_, from)) in t.columns.iter_mut().zip(more.columns) {
        match (into, from) {
            (Values::Int(a), Values::Int(b)) => a.extend(b),
            (Values::Dbl(a), Values::Dbl(b)) => a.extend(b),
            (Values::Chr(a), Values::Chr(b)) => a.extend(b),
            (Values::Lgl(a), Values::Lgl(b)) => a.extend(b),
            (Values::U64(a), Values::U64(b)) => a.extend(b),
            (Values::List(a), Values::List(b)) => a.extend(b),
            _ => return Err("a column changes kind between parts".to_owned()),
        }
    }
    Ok(())
}

/// The profile of a dataset's tables, with the warnings tables-JSON gives (what the model does
/// not keep). Fails on a broken v2 rule or more samples than `options` allow.
pub fn read_tables(
    c: Container,
    tables: &Tables,
    options: &ReadOptions,
) -> Result<(Profile, Vec<Warning>), ReadError> {
    let n = tables.table("samples").map_or(0, Table::nrow);
    let max = options.limits.max_samples;
    if n > max {
        let m = format!("{n} samples, more than the limit of {max}");
        return Err(ReadError::new(c.name(), Place::Path("samples".into()), m));
    }
    let profile = profile_from_tables(tables).map_err(|v| {
        let e = violations_error("v2", &v);
        ReadError::new(c.name(), e.place, e.message)
    })?;
    let unkept = unkept_parts(tables);
    let mut warnings = Vec::new();
    if !unkept.is_empty() {
        let m = format!(
            "not kept (no place in the profile model): {}",
            unkept.join(", ")
        );
        warnings.push(Warning::new(c.name(), m, unkept.len()));
    }
    Ok((profile, warnings))
}
