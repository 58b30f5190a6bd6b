//! The v2 schema as data: the seven tables, their required columns in order, and the type
//! each must have. v1 shares `meta`, `locations` and `functions` with v2.

use super::super::columns::ColumnKind;

/// The names of the seven v2 tables, in document order.
pub const V2_TABLES: [&str; 7] = [
    "meta",
    "sources",
    "samples",
    "sample_values",
    "sample_locations",
    "locations",
    "functions",
];

/// The type a required column must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColType {
    /// A scalar column of this kind.
    Kind(ColumnKind),
    /// A list column of nested tables (v1 `samples.locations`).
    List,
}

pub(crate) const INT: ColType = ColType::Kind(ColumnKind::Int);
pub(super) const DBL: ColType = ColType::Kind(ColumnKind::Dbl);
pub(crate) const CHR: ColType = ColType::Kind(ColumnKind::Chr);

/// The required columns of `meta` (v1 and v2).
pub const META_COLUMNS: &[(&str, ColType)] = &[("key", CHR), ("value", CHR)];
/// The required columns of `locations` (v1 and v2).
pub const LOCATIONS_COLUMNS: &[(&str, ColType)] =
    &[("location_id", INT), ("function_id", INT), ("line", INT)];
/// The required columns of `functions` (v1 and v2).
pub const FUNCTIONS_COLUMNS: &[(&str, ColType)] = &[
    ("function_id", INT),
    ("name", CHR),
    ("system_name", CHR),
    ("filename", CHR),
    ("start_line", INT),
];

/// The required columns of each v2 table, in order.
pub const V2_SCHEMA: [(&str, &[(&str, ColType)]); 7] = [
    ("meta", META_COLUMNS),
    (
        "sources",
        &[
            ("source_id", INT),
            ("source_type", CHR),
            ("source_uri", CHR),
            ("source_timestamp", DBL),
        ],
    ),
    ("samples", &[("sample_id", INT), ("source_id", INT)]),
    (
        "sample_values",
        &[
            ("sample_id", INT),
            ("type", CHR),
            ("unit", CHR),
            ("value", DBL),
        ],
    ),
    (
        "sample_locations",
        &[("sample_id", INT), ("depth", INT), ("location_id", INT)],
    ),
    ("locations", LOCATIONS_COLUMNS),
    ("functions", FUNCTIONS_COLUMNS),
];

/// The required columns of v2 table `name` (empty for an extension table).
pub fn v2_required_columns(name: &str) -> &'static [(&'static str, ColType)] {
    V2_SCHEMA
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[], |(_, c)| c)
}
