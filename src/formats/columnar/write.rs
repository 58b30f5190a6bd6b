//! One logical table → the bytes of one Parquet or Arrow IPC file.

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, DictionaryArray, Float64Array, Int32Array, RecordBatch,
    RecordBatchOptions, UInt64Array,
};
use arrow_schema::Schema;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::schema::{data_type, table_schema};
use super::{Container, BATCH_ROWS};
use crate::formats::WriteError;
use crate::model::{Table, Values};

/// The Arrow array of a column (strings dictionary-encoded).
fn array(v: &Values) -> Option<ArrayRef> {
    Some(match v {
        Values::Int(c) => Arc::new(Int32Array::from(c.clone())),
        Values::Dbl(c) => Arc::new(Float64Array::from(c.clone())),
        Values::Chr(c) => {
            let d: DictionaryArray<Int32Type> = c.iter().map(Option::as_deref).collect();
            Arc::new(d)
        }
        Values::Lgl(c) => Arc::new(BooleanArray::from(c.clone())),
        Values::U64(c) => Arc::new(UInt64Array::from(c.clone())),
        Values::List(_) => return None,
    })
}

/// `t` as one record batch with the schema of `name` at `position`.
fn record_batch(
    c: Container,
    name: &str,
    position: usize,
    t: &Table,
) -> Result<RecordBatch, WriteError> {
    let fail = |m: String| WriteError::new(c.name(), format!("table {name}: {m}"));
    let mut types = Vec::with_capacity(t.columns.len());
    let mut arrays = Vec::with_capacity(t.columns.len());
    for (col, v) in &t.columns {
        let (Some(ty), Some(a)) = (data_type(v), array(v)) else {
            return Err(fail(format!("column {col} is a list column (v1 only)")));
        };
        types.push((col.as_str(), ty));
        arrays.push(a);
    }
    let schema = table_schema(name, position, &types);
    let options = RecordBatchOptions::new().with_row_count(Some(t.nrow()));
    RecordBatch::try_new_with_options(schema, arrays, &options).map_err(|e| fail(e.to_string()))
}

/// The file bytes of table `name`, the `position`-th of its document. Fails on a list column,
/// a null in a non-nullable column ([`super::schema::NOT_NULL`]) or columns of unequal length.
pub fn encode_table(
    c: Container,
    name: &str,
    position: usize,
    t: &Table,
) -> Result<Vec<u8>, WriteError> {
    let batch = record_batch(c, name, position, t)?;
    let fail = |e: String| WriteError::new(c.name(), format!("table {name}: {e}"));
    match c {
        Container::Parquet => parquet_bytes(&batch).map_err(fail),
        Container::Arrow => ipc_bytes(&batch).map_err(fail),
    }
}

/// The Arrow IPC *stream* format bytes of table `name` (schema, batches, end-of-stream
/// marker; no file magic or footer), failing as [`encode_table`] does.
pub fn encode_arrow_stream(name: &str, position: usize, t: &Table) -> Result<Vec<u8>, WriteError> {
    let c = Container::Arrow;
    let batch = record_batch(c, name, position, t)?;
    ipc_stream_bytes(&batch).map_err(|e| WriteError::new(c.name(), format!("table {name}: {e}")))
}

/// Parquet: snappy pages, dictionary encoding (the writer's default), the Arrow schema
/// embedded so readers get dictionary strings and the table metadata back.
fn parquet_bytes(batch: &RecordBatch) -> Result<Vec<u8>, String> {
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(1024 * 1024))
        .build();
    let mut w =
        ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).map_err(|e| e.to_string())?;
    for part in slices(batch) {
        w.write(&part).map_err(|e| e.to_string())?;
    }
    w.into_inner().map_err(|e| e.to_string())
}

/// Writes the slices of `batch` with an Arrow IPC writer (file or stream: the two share no
/// trait) and returns its bytes.
macro_rules! ipc_written {
    ($writer:path, $batch:expr) => {{
        let batch: &RecordBatch = $batch;
        let schema: &Schema = &batch.schema();
        let mut w = <$writer>::try_new(Vec::new(), schema).map_err(|e| e.to_string())?;
        for part in slices(batch) {
            w.write(&part).map_err(|e| e.to_string())?;
        }
        w.finish().map_err(|e| e.to_string())?;
        w.into_inner().map_err(|e| e.to_string())
    }};
}

/// Arrow IPC file format, uncompressed (its compressions need C code or another crate).
fn ipc_bytes(batch: &RecordBatch) -> Result<Vec<u8>, String> {
    ipc_written!(arrow_ipc::writer::FileWriter<Vec<u8>>, batch)
}

/// Arrow IPC stream format, uncompressed.
fn ipc_stream_bytes(batch: &RecordBatch) -> Result<Vec<u8>, String> {
    ipc_written!(arrow_ipc::writer::StreamWriter<Vec<u8>>, batch)
}

/// `batch` in slices of at most [`BATCH_ROWS`] rows (one empty slice for an empty batch).
fn slices(batch: &RecordBatch) -> Vec<RecordBatch> {
    let n = batch.num_rows();
    if n == 0 {
        return vec![batch.clone()];
    }
    (0..n)
        .step_by(BATCH_ROWS)
        .map(|start| batch.slice(start, BATCH_ROWS.min(n - start)))
        .collect()
}
