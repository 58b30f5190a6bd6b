//! tables-JSON: proftab's own lossless JSON of the profile tables (`docs/formats/tables-json.md`).
//!
//! A document is one object whose keys are table names and whose values are objects of
//! equal-length column arrays, NA as `null` — what R writes with
//! `jsonlite::toJSON(x, dataframe = "columns", na = "null", digits = NA)` and reads back with
//! `jsonlite::fromJSON()`:
//!
//! ```json
//! {"meta":{"key":["version"],"value":["2.0"]},
//!  "functions":{"function_id":[1],"name":["main"], …}, …}
//! ```
//!
//! * **v2** (`meta` version `"2.0"`): the seven tables of the v2 model (`docs/model.md`), then
//!   any extension tables, then `column_types` and `value_types` (see
//!   [`crate::model::convert`]), which let [`read()`] restore every column type and every value
//!   type exactly.
//! * **v1** (any other version): the five tables of the legacy v1 format (`docs/model.md`),
//!   with `samples.locations` an array holding per sample an object `{"location_id": [...]}`
//!   (innermost first). [`read()`] converts it as [`crate::model::v2_from_v1`] does (and fills
//!   `source_uri` from [`crate::formats::ReadOptions::source_uri`], which v1 cannot store);
//!   [`write_v1`] writes it through [`crate::model::v1_from_v2`].
//!
//! Column types by content are described in the `parse` submodule; `int` columns written as
//! numbers with a fraction are accepted when the values are integral (see
//! [`crate::model::typing`]). [`write()`] output is deterministic, and doubles round-trip exactly.

mod parse;
mod read;
mod write;

use super::json_scan;

pub use read::{parse_document, read, violations_error};
pub use write::{write, write_document, write_v1};

/// Format name in messages.
pub const FORMAT: &str = "tables-json";
/// Format name of the v1 writer.
pub const FORMAT_V1: &str = "tables-json-v1";
/// How far into the input [`detect`] looks.
pub const DETECT_PREFIX: usize = 4096;
/// Most violations listed one by one in a [`crate::formats::ReadError`]; the rest are counted.
pub const MAX_LISTED_VIOLATIONS: usize = 100;

/// The first column of each table a document may start with (v2 and v1).
const FIRST_COLUMNS: [(&str, &[&str]); 8] = [
    ("meta", &["key", "value"]),
    ("sources", &["source_id"]),
    ("samples", &["sample_id", "value"]),
    ("sample_types", &["type"]),
    ("sample_values", &["sample_id"]),
    ("sample_locations", &["sample_id"]),
    ("locations", &["location_id"]),
    ("functions", &["function_id"]),
];

/// True when the bytes start like a tables-JSON document: `{"<table>":{"<its first column>"`
/// for one of the tables of v1 or v2 (e.g. `{"meta":{"key"`), so a Firefox profile, whose
/// `meta` object has other keys, is not taken for one.
pub fn detect(bytes: &[u8]) -> bool {
    first_table_and_column(json_scan::prefix(bytes, DETECT_PREFIX)).is_some_and(
        |(table, column)| {
            FIRST_COLUMNS.iter().any(|(t, cols)| {
                t.as_bytes() == table && cols.iter().any(|c| c.as_bytes() == column)
            })
        },
    )
}

/// The raw names of the first table and of its first column (`{"<table>":{"<column>"`), or
/// `None` when the head does not start that way.
fn first_table_and_column(head: &[u8]) -> Option<(&[u8], &[u8])> {
    let at = |pos: usize, byte: u8| (head.get(pos) == Some(&byte)).then_some(pos + 1);
    let open = at(json_scan::skip_bom_and_ws(head), b'{')?;
    let (table, end) = json_scan::raw_string(head, json_scan::skip_ws(head, open))?;
    let colon = at(json_scan::skip_ws(head, end), b':')?;
    let inner = at(json_scan::skip_ws(head, colon), b'{')?;
    let (column, _) = json_scan::raw_string(head, json_scan::skip_ws(head, inner))?;
    Some((table, column))
}
