//! The legacy v1 format (docs/model.md; `r-prof/profile`'s `profile_data`): validation, and the
//! conversions to and from v2.
//!
//! Rules checked by [`validate_v1`], in the order of docs/model.md (and of `validate_profile()` in
//! `r-prof/profile:R/api.R`, whose `stopifnot` semantics decide the NA cases):
//! 1. the tables are `meta`, `sample_types`, `samples`, `locations`, `functions` in this order;
//!    further components must start with a dot and come after them (they are ignored);
//! 2. each table has exactly its required columns first, in order and of the required types;
//!    further columns must start with a dot and come after them (they are ignored);
//! 3. `meta` has exactly one row, with key `version` and a value `package_version()` accepts
//!    (two or more numbers separated by `.` or `-`);
//! 4. `sample_types` has exactly one row, `samples` / `count`;
//! 5. `samples.value` is greater than zero (not NA);
//! 6. each `samples.locations` cell is a table with exactly one int column `location_id`, and
//!    each of its ids is a `locations.location_id` (NA only matches an NA id, as R's `%in%`);
//! 7. `locations.location_id` is unique (two NAs are duplicates, as R's `anyDuplicated`);
//!    `locations.function_id` is NA or a `functions.function_id`; `locations.line` is NA or
//!    non-negative;
//! 8. `functions.function_id` is unique; `name` and `system_name` are neither empty nor NA;
//!    `start_line` is non-negative (not NA).
//!
//! This file holds the schema and [`validate_v1`]; [`convert`] the conversions to and from v2
//! and the expansion of counted samples that both directions share.

mod convert;

use std::borrow::Cow;

use super::logical::{Table, Tables, Values};
use super::typing::{self, cell_text, chr_text};
use super::validate::{
    check_columns, check_foreign_key, check_non_empty, check_unique_ints, order_issues,
    validate_v2, ColType, IdIndex, Report, Violation, CHR, FUNCTIONS_COLUMNS, INT,
    LOCATIONS_COLUMNS, META_COLUMNS,
};
use crate::hash::HashMap;

pub(crate) use convert::{check_expansion, meta_v2_from_v1, repeat_values, v1_samples, V1Samples};
pub use convert::{v1_from_v2, v1_source_type, v2_from_v1};

/// The five v1 tables, in their required order.
pub const V1_TABLES: [&str; 5] = ["meta", "sample_types", "samples", "locations", "functions"];

/// The required columns of each v1 table, in order.
pub const V1_SCHEMA: [(&str, &[(&str, ColType)]); 5] = [
    ("meta", META_COLUMNS),
    ("sample_types", &[("type", CHR), ("unit", CHR)]),
    ("samples", &[("value", INT), ("locations", ColType::List)]),
    ("locations", LOCATIONS_COLUMNS),
    ("functions", FUNCTIONS_COLUMNS),
];

/// Most samples [`v2_from_v1`] expands a document to.
pub const MAX_EXPANDED_SAMPLES: usize = 50_000_000;
/// Most `sample_locations` rows [`v2_from_v1`] materializes.
pub const MAX_EXPANDED_LOCATION_ROWS: usize = 100_000_000;

/// The required columns of v1 table `name` (empty for a dotted component).
pub fn v1_required_columns(name: &str) -> &'static [(&'static str, ColType)] {
    V1_SCHEMA
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[], |(_, c)| c)
}

/// Validates a document by the rules of its `meta` version: `"2.0"` → [`validate_v2`], anything
/// else (or no version) → [`validate_v1`].
pub fn validate_profile(t: &Tables) -> Vec<Violation> {
    if t.version() == Some("2.0") {
        validate_v2(t)
    } else {
        validate_v1(t)
    }
}

/// Validates a v1 document (see the module doc for the rules). Returns every violation.
pub fn validate_v1(t: &Tables) -> Vec<Violation> {
    let mut r = Report::default();
    let names = t.names();
    for issue in order_issues(&names, &V1_TABLES, "table") {
        r.table(&issue.name, issue.message);
    }
    let mut sound: HashMap<&str, &Table> = HashMap::default();
    for (name, required) in V1_SCHEMA {
        if let Some(table) = t.table(name) {
            if check_columns(&mut r, name, table, required) {
                sound.insert(name, table);
            }
        }
    }
    if let Some(meta) = sound.get("meta") {
        check_v1_meta(&mut r, meta);
    }
    if let Some(st) = sound.get("sample_types") {
        check_v1_sample_types(&mut r, st);
    }
    let locations = sound
        .get("locations")
        .map(|l| check_v1_locations(&mut r, l, sound.get("functions").copied()));
    if let Some(samples) = sound.get("samples") {
        check_v1_samples(&mut r, samples, locations.as_ref());
    }
    if let Some(functions) = sound.get("functions") {
        check_v1_functions(&mut r, functions);
    }
    r.out
}

fn check_one_row(r: &mut Report, name: &str, t: &Table) {
    if t.nrow() != 1 {
        r.table(
            name,
            format!("must have exactly one row (found {})", t.nrow()),
        );
    }
}

/// Each cell of `col` must equal `expected`.
fn check_equals(r: &mut Report, name: &str, t: &Table, col: &str, expected: &str) {
    let Some(cells) = typing::chr_column(t, col) else {
        return;
    };
    let bad = cells
        .iter()
        .enumerate()
        .filter(|(_, c)| c.as_deref() != Some(expected))
        .map(|(i, c)| (i, chr_text(c.as_deref())));
    r.rule(name, col, &format!("must be \"{expected}\""), bad);
}

/// `package_version()`'s syntax: `[0-9]+([.-][0-9]+)+`.
pub fn is_package_version(s: &str) -> bool {
    let parts: Vec<&str> = s.split(['.', '-']).collect();
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

fn check_v1_meta(r: &mut Report, meta: &Table) {
    check_one_row(r, "meta", meta);
    check_equals(r, "meta", meta, "key", "version");
    let Some(values) = typing::chr_column(meta, "value") else {
        return;
    };
    let bad = values
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.as_deref().is_some_and(is_package_version))
        .map(|(i, v)| (i, chr_text(v.as_deref())));
    r.rule(
        "meta",
        "value",
        "must be a version package_version() accepts, such as \"1.0\"",
        bad,
    );
}

fn check_v1_sample_types(r: &mut Report, st: &Table) {
    check_one_row(r, "sample_types", st);
    check_equals(r, "sample_types", st, "type", "samples");
    check_equals(r, "sample_types", st, "unit", "count");
}

/// Rule 7; returns the index of `location_id` for rule 6.
fn check_v1_locations(r: &mut Report, l: &Table, functions: Option<&Table>) -> LocationIds {
    let name = "locations";
    let ids = typing::int_column(l, "location_id").unwrap_or_default();
    check_unique_ints(r, name, "location_id", &ids, true);
    if let (Some(fids), Some(target)) = (
        typing::int_column(l, "function_id"),
        functions.and_then(|f| typing::int_column(f, "function_id")),
    ) {
        check_foreign_key(r, name, "function_id", &fids, &IdIndex::new(&target), true);
    }
    if let Some(lines) = typing::int_column(l, "line") {
        let bad = lines.iter().enumerate().filter_map(|(i, x)| match x {
            Some(x) if *x < 0 => Some((i, x.to_string())),
            _ => None,
        });
        r.rule(name, "line", "must be non-negative or NA", bad);
    }
    LocationIds {
        has_na: ids.iter().any(Option::is_none),
        index: IdIndex::new(&ids),
    }
}

struct LocationIds {
    index: IdIndex,
    has_na: bool,
}

impl LocationIds {
    fn contains(&self, id: Option<i32>) -> bool {
        id.map_or(self.has_na, |id| self.index.row(id).is_some())
    }
}

/// Rules 5 and 6.
fn check_v1_samples(r: &mut Report, s: &Table, locations: Option<&LocationIds>) {
    if let Some(values) = typing::int_column(s, "value") {
        let bad = values
            .iter()
            .enumerate()
            .filter(|(_, v)| !v.is_some_and(|v| v > 0))
            .map(|(i, v)| (i, v.map_or_else(|| "NA".to_owned(), |v| v.to_string())));
        r.rule("samples", "value", "must be greater than zero", bad);
    }
    let Some(Values::List(cells)) = s.column("locations") else {
        return;
    };
    let mut shape = Vec::new();
    let mut unresolved = Vec::new();
    for (row, cell) in cells.iter().enumerate() {
        match stack_ids(cell.as_ref()) {
            Err(message) => shape.push((
                row,
                cell_text(&Values::List(vec![cell.clone()]), 0),
                message,
            )),
            Ok(ids) => {
                let missing = ids
                    .iter()
                    .find(|id| !locations.is_some_and(|l| l.contains(**id)));
                if let (Some(id), Some(_)) = (missing, locations) {
                    let text = id.map_or_else(|| "NA".to_owned(), |x| x.to_string());
                    unresolved.push((row, text));
                }
            }
        }
    }
    r.rule_with("samples", "locations", shape);
    r.rule(
        "samples",
        "locations",
        "location_id does not match any locations.location_id",
        unresolved,
    );
}

/// The location ids of one `samples.locations` cell, or why the cell is not a table with
/// exactly one int column `location_id`.
fn stack_ids(cell: Option<&Table>) -> Result<Cow<'_, [Option<i32>]>, String> {
    let shape = "must be a table with exactly one int column, location_id";
    let Some(t) = cell else {
        return Err(format!("{shape} (found NULL)"));
    };
    match t.columns.as_slice() {
        [(name, v)] if name == "location_id" => {
            typing::int_cells(v).map_err(|m| format!("location_id {}", m.message))
        }
        _ => Err(format!("{shape} (found columns {})", t.names().join(", "))),
    }
}

/// Rule 8.
fn check_v1_functions(r: &mut Report, f: &Table) {
    let name = "functions";
    if let Some(ids) = typing::int_column(f, "function_id") {
        check_unique_ints(r, name, "function_id", &ids, true);
    }
    for col in ["name", "system_name"] {
        if let Some(cells) = typing::chr_column(f, col) {
            check_non_empty(r, name, col, &cells);
        }
    }
    if let Some(starts) = typing::int_column(f, "start_line") {
        let bad = starts
            .iter()
            .enumerate()
            .filter(|(_, x)| !x.is_some_and(|x| x >= 0))
            .map(|(i, x)| (i, x.map_or_else(|| "NA".to_owned(), |x| x.to_string())));
        r.rule(name, "start_line", "must be non-negative", bad);
    }
}
