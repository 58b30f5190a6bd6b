//! Between the physical [`Profile`] and the logical [`Tables`] of docs/model.md, and the validation
//! of a physical profile.
//!
//! [`tables_from_profile`] writes the seven tables with logical ids = row index + 1, every
//! extension column after the required ones, every extension table, and two tables of its own:
//!
//! * [`COLUMN_TYPES_TABLE`] `(table, column, type)` names the type (`int`, `dbl`, `chr`, `lgl`,
//!   `u64`) of every non-required column, so that a reader restores `u64` and `lgl` columns
//!   exactly even though JSON has one number type;
//! * [`VALUE_TYPES_TABLE`] `(type, unit)` lists the value types in order, so that a type without
//!   any `sample_values` row (a profile without samples) survives.
//!
//! The way back, [`profile_from_tables`], validates first, maps arbitrary ids to rows and
//! restores extension columns and tables (see [`profile_from_tables`]).

use crate::hash::HashSet;

use super::builder::check_invariants;
use super::columns::{ColumnData, ExtColumns, ExtTable};
use super::ids::*;
use super::logical::{Table, Tables, Values};
use super::profile::*;
use super::strings::StringTable;
use super::validate::{
    check_meta_version, check_unique_tables, v2_required_columns, Report, Violation, V2_TABLES,
};

pub use super::load::{profile_from_tables, profile_from_v1, unkept_parts};

/// Extension table naming the type of every non-required column: `table`, `column`, `type`.
pub const COLUMN_TYPES_TABLE: &str = "column_types";
/// Extension table listing the value types in order: `type`, `unit`.
pub const VALUE_TYPES_TABLE: &str = "value_types";
/// Table names proftab writes itself and therefore reserves.
pub const RESERVED_TABLES: [&str; 2] = [COLUMN_TYPES_TABLE, VALUE_TYPES_TABLE];

/// The logical tables of a profile: the seven v2 tables, the extension tables, then
/// [`COLUMN_TYPES_TABLE`] and [`VALUE_TYPES_TABLE`]. Materializes `sample_locations` row by row;
/// writers of large profiles stream [`sample_location_rows`] instead.
pub fn tables_from_profile(p: &Profile) -> Tables {
    let mut tables = vec![
        ("meta".to_owned(), meta_table(p)),
        ("sources".to_owned(), sources_table(p)),
        ("samples".to_owned(), samples_table(p)),
        ("sample_values".to_owned(), sample_values_table(p)),
        ("sample_locations".to_owned(), sample_locations_table(p)),
        ("locations".to_owned(), locations_table(p)),
        ("functions".to_owned(), functions_table(p)),
    ];
    tables.extend(ext_tables(p));
    tables.push((COLUMN_TYPES_TABLE.to_owned(), column_types_table(p)));
    tables.push((VALUE_TYPES_TABLE.to_owned(), value_types_table(p)));
    Tables { tables }
}

fn col(name: &str, v: Values) -> (String, Values) {
    (name.to_owned(), v)
}

/// 1-based logical ids `1..=n`.
pub fn logical_ids(n: usize) -> Values {
    Values::Int((0..n).map(row_id).collect())
}

/// The logical id of 0-based row `row` (`None` beyond the int range).
pub fn row_id(row: usize) -> Option<i32> {
    i32::try_from(row).ok().and_then(|r| r.checked_add(1))
}

fn chr(strings: &StringTable, ids: &[StringId]) -> Values {
    Values::Chr(
        ids.iter()
            .map(|&s| strings.get(s).map(str::to_owned))
            .collect(),
    )
}

fn int_na(cells: &[i32]) -> Values {
    Values::Int(cells.iter().map(|&x| (x != INT_NA).then_some(x)).collect())
}

fn dbl_na(cells: &[f64]) -> Values {
    Values::Dbl(cells.iter().map(|&x| (!x.is_nan()).then_some(x)).collect())
}

/// A physical column as a logical one (NA sentinels become `None`).
pub fn values_from_column(data: &ColumnData, strings: &StringTable) -> Values {
    match data {
        ColumnData::Int(v) => int_na(v),
        ColumnData::Dbl(v) => dbl_na(v),
        ColumnData::Chr(v) => chr(strings, v),
        ColumnData::Lgl(v) => Values::Lgl(v.clone()),
        ColumnData::U64(v) => Values::U64(v.clone()),
    }
}

fn with_ext(mut columns: Vec<(String, Values)>, ext: &ExtColumns, strings: &StringTable) -> Table {
    for c in &ext.columns {
        columns.push((c.name.clone(), values_from_column(&c.data, strings)));
    }
    Table::new(columns)
}

/// `meta`.
pub fn meta_table(p: &Profile) -> Table {
    Table::new(vec![
        col("key", chr(&p.strings, &p.meta.key)),
        col("value", chr(&p.strings, &p.meta.value)),
    ])
}

/// `sources` with its extension columns.
pub fn sources_table(p: &Profile) -> Table {
    let s = &p.sources;
    with_ext(
        vec![
            col("source_id", logical_ids(s.source_type.len())),
            col("source_type", chr(&p.strings, &s.source_type)),
            col("source_uri", chr(&p.strings, &s.source_uri)),
            col("source_timestamp", dbl_na(&s.source_timestamp)),
        ],
        &s.ext,
        &p.strings,
    )
}

/// `samples` with its extension columns.
pub fn samples_table(p: &Profile) -> Table {
    let s = &p.samples;
    let sources = s.source.iter().map(|x| row_id(x.idx())).collect();
    with_ext(
        vec![
            col("sample_id", logical_ids(s.source.len())),
            col("source_id", Values::Int(sources)),
        ],
        &s.ext,
        &p.strings,
    )
}

/// The rows of `sample_values` as `(sample row, value type, value)`, type by type and within a
/// type in sample order; samples without a value of a type have no row.
pub fn sample_value_rows(p: &Profile) -> impl Iterator<Item = (usize, ValueTypeIndex, f64)> + '_ {
    p.values.iter().enumerate().flat_map(move |(t, c)| {
        let vt = ValueTypeIndex(u32::try_from(t).unwrap_or(u32::MAX));
        (0..c.values.len()).filter_map(move |s| c.get(s).map(|v| (s, vt, v)))
    })
}

/// The rows of `sample_locations` as `(sample row, depth, location)`, sample by sample,
/// innermost frame (depth 1) first, computed from the stack table on the fly.
pub fn sample_location_rows(
    p: &Profile,
) -> impl Iterator<Item = (usize, usize, LocationIndex)> + '_ {
    (0..p.num_samples()).flat_map(move |s| {
        let stack = p.sample_stack(SampleIndex(u32::try_from(s).unwrap_or(u32::MAX)));
        p.frames_leaf_first(stack)
            .enumerate()
            .map(move |(d, loc)| (s, d + 1, loc))
    })
}

/// `sample_values`, materialized (see [`sample_value_rows`]).
pub fn sample_values_table(p: &Profile) -> Table {
    let mut ids = Vec::new();
    let mut types = Vec::new();
    let mut units = Vec::new();
    let mut values = Vec::new();
    for (s, vt, v) in sample_value_rows(p) {
        let (t, u) = p.value_type_names(vt);
        ids.push(row_id(s));
        types.push(Some(t.to_owned()));
        units.push(Some(u.to_owned()));
        values.push((!v.is_nan()).then_some(v));
    }
    Table::new(vec![
        col("sample_id", Values::Int(ids)),
        col("type", Values::Chr(types)),
        col("unit", Values::Chr(units)),
        col("value", Values::Dbl(values)),
    ])
}

/// `sample_locations`, materialized (see [`sample_location_rows`]).
pub fn sample_locations_table(p: &Profile) -> Table {
    let mut ids = Vec::new();
    let mut depths = Vec::new();
    let mut locs = Vec::new();
    for (s, d, loc) in sample_location_rows(p) {
        ids.push(row_id(s));
        depths.push(i32::try_from(d).ok());
        locs.push(row_id(loc.idx()));
    }
    Table::new(vec![
        col("sample_id", Values::Int(ids)),
        col("depth", Values::Int(depths)),
        col("location_id", Values::Int(locs)),
    ])
}

/// `locations` with its extension columns.
pub fn locations_table(p: &Profile) -> Table {
    let l = &p.locations;
    let functions = l
        .function
        .iter()
        .map(|&f| decode_opt(f).and_then(|f| row_id(f as usize)))
        .collect();
    with_ext(
        vec![
            col("location_id", logical_ids(l.line.len())),
            col("function_id", Values::Int(functions)),
            col("line", int_na(&l.line)),
        ],
        &l.ext,
        &p.strings,
    )
}

/// `functions` with its extension columns.
pub fn functions_table(p: &Profile) -> Table {
    let f = &p.functions;
    with_ext(
        vec![
            col("function_id", logical_ids(f.name.len())),
            col("name", chr(&p.strings, &f.name)),
            col("system_name", chr(&p.strings, &f.system_name)),
            col("filename", chr(&p.strings, &f.filename)),
            col("start_line", int_na(&f.start_line)),
        ],
        &f.ext,
        &p.strings,
    )
}

/// The extension tables, in order.
pub fn ext_tables(p: &Profile) -> Vec<(String, Table)> {
    p.ext_tables
        .iter()
        .map(|t| (t.name.clone(), with_ext(Vec::new(), &t.columns, &p.strings)))
        .collect()
}

/// Every extension column of the v2 tables and every column of the extension tables, as
/// `(table, column, data)`.
fn typed_columns(p: &Profile) -> Vec<(&str, &str, &ColumnData)> {
    let v2 = [
        ("sources", &p.sources.ext),
        ("samples", &p.samples.ext),
        ("locations", &p.locations.ext),
        ("functions", &p.functions.ext),
    ];
    let ext = p.ext_tables.iter().map(|t| (t.name.as_str(), &t.columns));
    v2.into_iter()
        .chain(ext)
        .flat_map(|(t, cols)| {
            cols.columns
                .iter()
                .map(move |c| (t, c.name.as_str(), &c.data))
        })
        .collect()
}

/// [`COLUMN_TYPES_TABLE`].
pub fn column_types_table(p: &Profile) -> Table {
    let cols = typed_columns(p);
    let text = |f: &dyn Fn(&(&str, &str, &ColumnData)) -> String| {
        Values::Chr(cols.iter().map(|c| Some(f(c))).collect())
    };
    Table::new(vec![
        col("table", text(&|c| c.0.to_owned())),
        col("column", text(&|c| c.1.to_owned())),
        col("type", text(&|c| c.2.kind().name().to_owned())),
    ])
}

/// [`VALUE_TYPES_TABLE`].
pub fn value_types_table(p: &Profile) -> Table {
    Table::new(vec![
        col(
            "type",
            chr(
                &p.strings,
                &p.values.iter().map(|c| c.value_type).collect::<Vec<_>>(),
            ),
        ),
        col(
            "unit",
            chr(
                &p.strings,
                &p.values.iter().map(|c| c.unit).collect::<Vec<_>>(),
            ),
        ),
    ])
}

impl Profile {
    /// Checks the profile against the v2 rules of docs/model.md. Keys and references hold by construction
    /// (ids are rows, references are checked by [`check_invariants`]), so this checks what the
    /// physical form can still get wrong — `meta.version`, names, line numbers, value types,
    /// extension columns and tables — without materializing `sample_locations`.
    /// Violations name the logical table; stack problems name the physical table `stacks`.
    pub fn validate(&self) -> Vec<Violation> {
        let mut r = Report::default();
        if let Err(e) = check_invariants(self) {
            let (table, column) = e.place.split_once('.').unwrap_or((&e.place, ""));
            let column = (!column.is_empty()).then_some(column);
            r.add(Violation::new(table, column, None, None, e.problem));
            return r.out;
        }
        check_meta_version(&mut r, &meta_table(self), "2.0");
        self.validate_value_types(&mut r);
        self.validate_lines(&mut r);
        self.validate_names(&mut r);
        self.validate_extensions(&mut r);
        r.out
    }

    fn validate_value_types(&self, r: &mut Report) {
        let mut seen = HashSet::default();
        for c in &self.values {
            if c.value_type.is_na() {
                r.column("sample_values", "type", "a value type is NA");
            } else if !seen.insert(c.value_type) {
                r.column(
                    "sample_values",
                    "type",
                    format!(
                        "value type {:?} appears twice, breaking the key (sample_id, type)",
                        self.str(c.value_type)
                    ),
                );
            }
        }
    }

    fn validate_lines(&self, r: &mut Report) {
        for (table, column, cells) in [
            ("locations", "line", &self.locations.line),
            ("functions", "start_line", &self.functions.start_line),
        ] {
            let bad = cells
                .iter()
                .enumerate()
                .filter(|(_, &x)| x < 0 && x != INT_NA)
                .map(|(i, x)| (i, x.to_string()));
            r.rule(table, column, "must be non-negative or NA", bad);
        }
    }

    fn validate_names(&self, r: &mut Report) {
        for (column, ids) in [
            ("name", &self.functions.name),
            ("system_name", &self.functions.system_name),
        ] {
            let na = ids.iter().enumerate().filter(|(_, s)| s.is_na());
            r.rule(
                "functions",
                column,
                "must not be NA",
                na.map(|(i, _)| (i, "NA".to_owned())),
            );
            let empty = ids
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.is_na() && self.str(**s).is_empty());
            r.rule(
                "functions",
                column,
                "must not be empty",
                empty.map(|(i, _)| (i, "\"\"".to_owned())),
            );
        }
    }

    fn validate_extensions(&self, r: &mut Report) {
        for (table, ext, rows) in [
            ("sources", &self.sources.ext, self.sources.source_type.len()),
            ("samples", &self.samples.ext, self.num_samples()),
            ("locations", &self.locations.ext, self.locations.line.len()),
            ("functions", &self.functions.ext, self.functions.name.len()),
        ] {
            let required: Vec<&str> = v2_required_columns(table).iter().map(|(c, _)| *c).collect();
            for c in &ext.columns {
                if !c.name.starts_with('.') || required.contains(&c.name.as_str()) {
                    r.column(table, &c.name, "extension columns must start with a dot");
                }
            }
            self.validate_ext_columns(r, table, ext, Some(rows));
        }
        let names = Tables {
            tables: self
                .ext_tables
                .iter()
                .map(|t| (t.name.clone(), Table::default()))
                .collect(),
        };
        check_unique_tables(r, &names);
        for t in &self.ext_tables {
            self.validate_ext_table(r, t);
        }
    }

    fn validate_ext_table(&self, r: &mut Report, t: &ExtTable) {
        if V2_TABLES.contains(&t.name.as_str()) || RESERVED_TABLES.contains(&t.name.as_str()) {
            r.table(
                &t.name,
                "an extension table must not take the name of a v2 table or a reserved one",
            );
        }
        self.validate_ext_columns(r, &t.name, &t.columns, None);
    }

    /// Unique names, `rows` cells each (or all the same length), text ids in range.
    fn validate_ext_columns(
        &self,
        r: &mut Report,
        table: &str,
        ext: &ExtColumns,
        rows: Option<usize>,
    ) {
        let mut seen = HashSet::default();
        let rows = rows.or_else(|| ext.columns.first().map(|c| c.data.len()));
        for c in &ext.columns {
            if !seen.insert(c.name.as_str()) {
                r.column(table, &c.name, "column appears more than once");
            }
            if let Some(n) = rows.filter(|&n| n != c.data.len()) {
                r.column(
                    table,
                    &c.name,
                    format!("has {} cells but the table has {n} rows", c.data.len()),
                );
            }
            if let ColumnData::Chr(ids) = &c.data {
                let bad = ids
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.idx() >= self.strings.len())
                    .map(|(i, s)| (i, s.0.to_string()));
                r.rule(table, &c.name, "string id out of range", bad);
            }
        }
    }
}
