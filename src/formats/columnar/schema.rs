//! Arrow types of the logical columns (`docs/columnar.md`, "Types").
//!
//! Invariant: a column's Arrow type follows from its [`Values`] kind alone, and its
//! nullability from its table and name alone ([`NOT_NULL`]), so every part of a table written
//! by proftab has the same schema.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};

use crate::model::Values;

/// Schema metadata key naming the table a file holds.
pub const TABLE_KEY: &str = "proftab.table";
/// Schema metadata key giving the table's 0-based position in the document.
pub const POSITION_KEY: &str = "proftab.position";

/// Columns that are never NA (docs/model.md, invariants 4–6 and 9): declared non-nullable.
/// Every other column, extension columns included, is nullable.
pub const NOT_NULL: &[(&str, &str)] = &[
    ("meta", "key"),
    ("sources", "source_id"),
    ("sources", "source_type"),
    ("samples", "sample_id"),
    ("samples", "source_id"),
    ("sample_values", "sample_id"),
    ("sample_values", "type"),
    ("sample_locations", "sample_id"),
    ("sample_locations", "depth"),
    ("sample_locations", "location_id"),
    ("locations", "location_id"),
    ("functions", "function_id"),
    ("functions", "name"),
    ("functions", "system_name"),
];

/// The Arrow type of strings: dictionary-encoded utf8 with int32 keys.
pub fn string_type() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
}

/// The Arrow type of a column kind, or `None` for list columns (v1 only, never written).
pub fn data_type(v: &Values) -> Option<DataType> {
    Some(match v {
        Values::Int(_) => DataType::Int32,
        Values::Dbl(_) => DataType::Float64,
        Values::Chr(_) => string_type(),
        Values::Lgl(_) => DataType::Boolean,
        Values::U64(_) => DataType::UInt64,
        Values::List(_) => return None,
    })
}

/// Whether `table.column` may hold nulls.
pub fn nullable(table: &str, column: &str) -> bool {
    !NOT_NULL.contains(&(table, column))
}

/// The schema of `table` at `position`, for columns `(name, type)`.
pub fn table_schema(table: &str, position: usize, columns: &[(&str, DataType)]) -> Arc<Schema> {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, t)| Field::new(*name, t.clone(), nullable(table, name)))
        .collect();
    let metadata = HashMap::from([
        (TABLE_KEY.to_owned(), table.to_owned()),
        (POSITION_KEY.to_owned(), position.to_string()),
    ]);
    Arc::new(Schema::new_with_metadata(fields, metadata))
}
