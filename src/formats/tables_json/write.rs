//! Deterministic tables-JSON output: one table per line, columns as arrays, NA as `null`; the
//! v2 writer ([`write()`]), the v1 writer ([`write_v1`], with what v1 cannot hold reported)
//! and [`write_document`] for logical tables as given.
//!
//! Numbers: `int` and `u64` cells as integer literals; `dbl` cells in Rust's shortest
//! round-trip form, always with a `.` or an exponent (`1.0`, `0.1`, `1e300`) so that readers
//! (this one and R's `jsonlite`) see doubles; NaN as `null`; ±Inf, which JSON cannot hold, as
//! `null` too, counted in [`JsonWriter::infinite`] so the caller can warn.

use std::fmt::Write as _;

use super::{FORMAT, FORMAT_V1};
use crate::formats::{Warning, WriteError, WriteOptions, Written};
use crate::model::convert::{
    column_types_table, ext_tables, functions_table, locations_table, meta_table, row_id,
    sample_location_rows, sample_value_rows, samples_table, sources_table, value_types_table,
    COLUMN_TYPES_TABLE, VALUE_TYPES_TABLE,
};
use crate::model::{v1_from_v2, Profile, Table, Tables, Values, INT_NA};

/// Builds the output text.
pub(super) struct JsonWriter {
    out: String,
    tables: usize,
    columns: usize,
    /// Number of infinite `dbl` cells written as `null`.
    pub(super) infinite: usize,
}

impl JsonWriter {
    pub(super) fn new() -> Self {
        JsonWriter {
            out: String::from("{"),
            tables: 0,
            columns: 0,
            infinite: 0,
        }
    }

    pub(super) fn finish(mut self) -> (Vec<u8>, usize) {
        self.end_table();
        self.out.push_str("\n}\n");
        (self.out.into_bytes(), self.infinite)
    }

    fn end_table(&mut self) {
        if self.tables > 0 {
            self.out.push('}');
        }
    }

    pub(super) fn begin_table(&mut self, name: &str) {
        self.end_table();
        if self.tables > 0 {
            self.out.push(',');
        }
        self.out.push('\n');
        push_string(&mut self.out, name);
        self.out.push_str(":{");
        self.tables += 1;
        self.columns = 0;
    }

    fn begin_column(&mut self, name: &str) {
        if self.columns > 0 {
            self.out.push(',');
        }
        push_string(&mut self.out, name);
        self.out.push_str(":[");
        self.columns += 1;
    }

    /// Writes one column from an iterator of already formatted cells.
    fn cells<I, F>(&mut self, name: &str, cells: I, mut write: F)
    where
        I: IntoIterator,
        F: FnMut(&mut Self, I::Item),
    {
        self.begin_column(name);
        for (i, c) in cells.into_iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            write(self, c);
        }
        self.out.push(']');
    }

    pub(super) fn int_column(&mut self, name: &str, cells: impl IntoIterator<Item = Option<i32>>) {
        self.cells(name, cells, |w, c| w.int(c));
    }

    pub(super) fn dbl_column(&mut self, name: &str, cells: impl IntoIterator<Item = Option<f64>>) {
        self.cells(name, cells, |w, c| w.dbl(c));
    }

    /// A column of strings given as indices into `texts` (written escaped once each).
    pub(super) fn text_column(
        &mut self,
        name: &str,
        texts: &[Option<String>],
        cells: impl IntoIterator<Item = usize>,
    ) {
        let escaped: Vec<String> = texts
            .iter()
            .map(|t| {
                let mut s = String::new();
                match t {
                    Some(t) => push_string(&mut s, t),
                    None => s.push_str("null"),
                }
                s
            })
            .collect();
        self.cells(name, cells, |w, i| {
            w.out
                .push_str(escaped.get(i).map_or("null", String::as_str));
        });
    }

    fn int(&mut self, c: Option<i32>) {
        match c {
            Some(x) => {
                let _ = write!(self.out, "{x}");
            }
            None => self.out.push_str("null"),
        }
    }

    fn dbl(&mut self, c: Option<f64>) {
        match c {
            Some(x) if x.is_finite() => {
                let _ = write!(self.out, "{x:?}");
            }
            Some(x) if x.is_infinite() => {
                self.infinite += 1;
                self.out.push_str("null");
            }
            _ => self.out.push_str("null"),
        }
    }

    /// Writes a whole logical table.
    pub(super) fn table(&mut self, name: &str, t: &Table) {
        self.begin_table(name);
        self.table_columns(t);
    }

    fn table_columns(&mut self, t: &Table) {
        for (name, values) in &t.columns {
            self.values(name, values);
        }
    }

    fn values(&mut self, name: &str, v: &Values) {
        match v {
            Values::Int(c) => self.int_column(name, c.iter().copied()),
            Values::Dbl(c) => self.dbl_column(name, c.iter().copied()),
            Values::Chr(c) => self.cells(name, c, |w, s| match s {
                Some(s) => push_string(&mut w.out, s),
                None => w.out.push_str("null"),
            }),
            Values::Lgl(c) => self.cells(name, c, |w, b| {
                w.out.push_str(match b {
                    Some(true) => "true",
                    Some(false) => "false",
                    None => "null",
                });
            }),
            Values::U64(c) => self.cells(name, c, |w, x| match x {
                Some(x) => {
                    let _ = write!(w.out, "{x}");
                }
                None => w.out.push_str("null"),
            }),
            Values::List(c) => self.cells(name, c, |w, t| match t {
                Some(t) => w.nested_table(t),
                None => w.out.push_str("null"),
            }),
        }
    }

    fn nested_table(&mut self, t: &Table) {
        let outer = std::mem::replace(&mut self.columns, 0);
        self.out.push('{');
        self.table_columns(t);
        self.out.push('}');
        self.columns = outer;
    }
}

/// Appends `s` as a JSON string: `"` and `\` escaped, control characters as `\n`, `\t`, … or
/// `\u00XX`, everything else as UTF-8.
fn push_string(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Writes a document of logical tables.
fn write_tables(t: &Tables) -> (Vec<u8>, usize) {
    let mut w = JsonWriter::new();
    for (name, table) in &t.tables {
        w.table(name, table);
    }
    w.finish()
}

/// Writes a profile as the tables of [`crate::model::tables_from_profile`], streaming
/// `sample_values` and `sample_locations` from the value columns and the stack table instead
/// of materializing them.
fn write_profile(p: &Profile) -> (Vec<u8>, usize) {
    let mut w = JsonWriter::new();
    w.table("meta", &meta_table(p));
    w.table("sources", &sources_table(p));
    w.table("samples", &samples_table(p));
    write_sample_values(&mut w, p);
    write_sample_locations(&mut w, p);
    w.table("locations", &locations_table(p));
    w.table("functions", &functions_table(p));
    for (name, t) in ext_tables(p) {
        w.table(&name, &t);
    }
    w.table(COLUMN_TYPES_TABLE, &column_types_table(p));
    w.table(VALUE_TYPES_TABLE, &value_types_table(p));
    w.finish()
}

fn write_sample_values(w: &mut JsonWriter, p: &Profile) {
    w.begin_table("sample_values");
    w.int_column("sample_id", sample_value_rows(p).map(|(s, _, _)| row_id(s)));
    let types: Vec<Option<String>> = p
        .values
        .iter()
        .map(|c| p.strings.get(c.value_type).map(str::to_owned))
        .collect();
    let units: Vec<Option<String>> = p
        .values
        .iter()
        .map(|c| p.strings.get(c.unit).map(str::to_owned))
        .collect();
    w.text_column(
        "type",
        &types,
        sample_value_rows(p).map(|(_, t, _)| t.idx()),
    );
    w.text_column(
        "unit",
        &units,
        sample_value_rows(p).map(|(_, t, _)| t.idx()),
    );
    w.dbl_column(
        "value",
        sample_value_rows(p).map(|(_, _, v)| (!v.is_nan()).then_some(v)),
    );
}

fn write_sample_locations(w: &mut JsonWriter, p: &Profile) {
    w.begin_table("sample_locations");
    w.int_column(
        "sample_id",
        sample_location_rows(p).map(|(s, _, _)| row_id(s)),
    );
    w.int_column(
        "depth",
        sample_location_rows(p).map(|(_, d, _)| i32::try_from(d).ok()),
    );
    w.int_column(
        "location_id",
        sample_location_rows(p).map(|(_, _, l)| row_id(l.idx())),
    );
}

fn infinite_warning(format: &'static str, n: usize) -> Vec<Warning> {
    if n == 0 {
        return Vec::new();
    }
    vec![Warning::new(
        format,
        "infinite values written as null (JSON has no infinity)",
        n,
    )]
}

/// Writes a profile as a v2 document (deterministic bytes).
pub fn write(p: &Profile, _options: &WriteOptions) -> Result<Written, WriteError> {
    let (bytes, infinite) = write_profile(p);
    Ok(Written {
        bytes,
        warnings: infinite_warning(FORMAT, infinite),
    })
}

/// Writes logical tables as a document (v1 or v2, as given, without validating them).
pub fn write_document(t: &Tables) -> Vec<u8> {
    write_tables(t).0
}

/// Writes a profile as a v1 document (see [`v1_from_v2`]), warning about everything v1
/// cannot hold.
pub fn write_v1(p: &Profile, _options: &WriteOptions) -> Result<Written, WriteError> {
    let tables = v1_from_v2(p).map_err(|m| WriteError::new(FORMAT_V1, m))?;
    let (bytes, infinite) = write_tables(&tables);
    let mut warnings = v1_losses(p);
    warnings.extend(infinite_warning(FORMAT_V1, infinite));
    Ok(Written { bytes, warnings })
}

/// What a v1 document cannot hold of `p`.
fn v1_losses(p: &Profile) -> Vec<Warning> {
    let mut lost = Vec::new();
    let meta = p.meta.key.len().saturating_sub(1);
    if meta > 0 {
        lost.push(format!("{meta} meta rows besides version"));
    }
    if !p.sources.source_type.is_empty() {
        lost.push(format!(
            "the sources table ({} rows)",
            p.sources.source_type.len()
        ));
    }
    for c in &p.values {
        let (t, u) = (p.str(c.value_type), p.str(c.unit));
        if (t, u) != ("samples", "count") {
            lost.push(format!("value type {t}/{u}"));
        }
    }
    let na_starts = p
        .functions
        .start_line
        .iter()
        .filter(|&&s| s == INT_NA)
        .count();
    if na_starts > 0 {
        lost.push(format!(
            "NA start_line of {na_starts} functions (written as 0, v1's unknown)"
        ));
    }
    for c in &p.samples.ext.columns {
        lost.push(format!("samples.{}", c.name));
    }
    for t in &p.ext_tables {
        lost.push(format!("extension table {}", t.name));
    }
    if p.num_samples() > 0 {
        lost.push("the identity and order of single samples (v1 aggregates stacks)".to_owned());
    }
    lost.into_iter()
        .map(|what| Warning::new(FORMAT_V1, format!("not written: {what}"), 1))
        .collect()
}
