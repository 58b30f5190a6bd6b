//! How the cells of a logical column are typed.
//!
//! Logical tables come from JSON, from R (through `jsonlite`) or from code, and JSON has one
//! number type: `jsonlite::toJSON` writes the R vectors `c(1L, 2L)` (`int`) and `c(1, 2)` (`dbl`)
//! both as `[1,2]`, and writes an all-`NA` column of any type as `[null,null]`. So a rule that
//! asks for a type accepts every column that holds exactly such values:
//!
//! | wanted | accepted [`Values`] |
//! | --- | --- |
//! | `int` | `Int`; `Dbl` whose cells are all integral and inside `int` range (`i32::MIN`, R's `NA_integer_`, excluded); `U64` whose cells are at most `i32::MAX` |
//! | `dbl` | `Dbl`; `Int`; `U64` whose cells are at most 2^53 (so the conversion is exact) |
//! | `chr` | `Chr` |
//! | `lgl` | `Lgl` |
//! | `u64` | `U64`; `Int` and `Dbl` whose cells are all integral, non-negative and below 2^64 |
//!
//! A `Lgl` column whose cells are all NA (R's `NA` is logical; an all-`null` or empty JSON
//! array has no other type) is accepted as every type. NA cells (`None`) are NA in every type.
//! Nothing else converts: text is never parsed as a number, numbers never become text.

use std::borrow::Cow;

use super::columns::ColumnKind;
use super::logical::{Table, Values};

/// Largest integer up to which every integer is exactly representable as an `f64`.
pub const MAX_EXACT_DOUBLE_INT: f64 = 9_007_199_254_740_992.0;

/// Why a column does not hold values of the wanted type.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// The first offending row (0-based), when one cell is to blame.
    pub row: Option<usize>,
    /// That cell's text.
    pub value: Option<String>,
    /// E.g. `must be int, found dbl with a non-integral value`.
    pub message: String,
}

fn whole_type(v: &Values, wanted: &str) -> Mismatch {
    Mismatch {
        row: None,
        value: None,
        message: format!("must be {wanted}, found {}", v.type_name()),
    }
}

fn cell_mismatch(v: &Values, row: usize, wanted: &str, what: &str) -> Mismatch {
    Mismatch {
        row: Some(row),
        value: Some(cell_text(v, row)),
        message: format!("must be {wanted}, found {} with {what}", v.type_name()),
    }
}

/// True when every cell is NA (also for an empty column).
pub fn all_na(v: &Values) -> bool {
    match v {
        Values::Int(c) => c.iter().all(Option::is_none),
        Values::Dbl(c) => c.iter().all(Option::is_none),
        Values::Chr(c) => c.iter().all(Option::is_none),
        Values::Lgl(c) => c.iter().all(Option::is_none),
        Values::U64(c) => c.iter().all(Option::is_none),
        Values::List(c) => c.iter().all(Option::is_none),
    }
}

fn untyped_na(v: &Values) -> bool {
    matches!(v, Values::Lgl(_)) && all_na(v)
}

/// The cell at `row` as text for messages: numbers as written, text quoted, NA as `NA`.
pub fn cell_text(v: &Values, row: usize) -> String {
    fn or_na<T>(c: Option<&Option<T>>, f: impl Fn(&T) -> String) -> String {
        c.and_then(Option::as_ref)
            .map_or_else(|| "NA".to_owned(), f)
    }
    match v {
        Values::Int(c) => or_na(c.get(row), |x| x.to_string()),
        Values::Dbl(c) => or_na(c.get(row), |x| x.to_string()),
        Values::Chr(c) => or_na(c.get(row), |x| format!("{x:?}")),
        Values::Lgl(c) => or_na(c.get(row), |x| if *x { "TRUE" } else { "FALSE" }.to_owned()),
        Values::U64(c) => or_na(c.get(row), |x| x.to_string()),
        Values::List(c) => or_na(c.get(row), |t| format!("<table of {} rows>", t.nrow())),
    }
}

/// A text cell for messages: quoted, or `NA`.
pub fn chr_text(c: Option<&str>) -> String {
    c.map_or_else(|| "NA".to_owned(), |s| format!("{s:?}"))
}

fn int_from_dbl(x: f64) -> Option<i32> {
    let fits = x.fract() == 0.0 && x > f64::from(i32::MIN) && x <= f64::from(i32::MAX);
    // The range check makes the cast exact.
    #[allow(clippy::cast_possible_truncation)]
    fits.then_some(x as i32)
}

fn u64_from_dbl(x: f64) -> Option<u64> {
    // 2^64 as f64; every integral f64 below it converts exactly.
    let fits = x.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&x);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    fits.then_some(x as u64)
}

fn dbl_from_u64(x: u64) -> Option<f64> {
    #[allow(clippy::cast_precision_loss)]
    let d = x as f64;
    (d <= MAX_EXACT_DOUBLE_INT).then_some(d)
}

/// Converts every cell with `f`; the first cell `f` rejects is reported.
fn convert_cells<T: Copy, U>(
    cells: &[Option<T>],
    f: impl Fn(T) -> Option<U>,
) -> Result<Vec<Option<U>>, usize> {
    cells
        .iter()
        .enumerate()
        .map(|(i, c)| match c {
            None => Ok(None),
            Some(x) => f(*x).map(Some).ok_or(i),
        })
        .collect()
}

/// The cells of an `int` column (see the module doc for what is accepted).
pub fn int_cells(v: &Values) -> Result<Cow<'_, [Option<i32>]>, Mismatch> {
    match v {
        Values::Int(c) => Ok(Cow::Borrowed(c)),
        Values::Dbl(c) => convert_cells(c, int_from_dbl)
            .map(Cow::Owned)
            .map_err(|r| cell_mismatch(v, r, "int", "a value that is not an int")),
        Values::U64(c) => convert_cells(c, |x| i32::try_from(x).ok())
            .map(Cow::Owned)
            .map_err(|r| cell_mismatch(v, r, "int", "a value beyond the int range")),
        _ if untyped_na(v) => Ok(Cow::Owned(vec![None; v.len()])),
        _ => Err(whole_type(v, "int")),
    }
}

/// The cells of a `dbl` column.
pub fn dbl_cells(v: &Values) -> Result<Cow<'_, [Option<f64>]>, Mismatch> {
    match v {
        Values::Dbl(c) => Ok(Cow::Borrowed(c)),
        Values::Int(c) => Ok(Cow::Owned(c.iter().map(|x| x.map(f64::from)).collect())),
        Values::U64(c) => convert_cells(c, dbl_from_u64)
            .map(Cow::Owned)
            .map_err(|r| cell_mismatch(v, r, "dbl", "a value a dbl cannot hold exactly")),
        _ if untyped_na(v) => Ok(Cow::Owned(vec![None; v.len()])),
        _ => Err(whole_type(v, "dbl")),
    }
}

/// The cells of a `chr` column.
pub fn chr_cells(v: &Values) -> Result<Cow<'_, [Option<String>]>, Mismatch> {
    match v {
        Values::Chr(c) => Ok(Cow::Borrowed(c)),
        _ if untyped_na(v) => Ok(Cow::Owned(vec![None; v.len()])),
        _ => Err(whole_type(v, "chr")),
    }
}

/// The cells of a `lgl` column.
pub fn lgl_cells(v: &Values) -> Result<Cow<'_, [Option<bool>]>, Mismatch> {
    match v {
        Values::Lgl(c) => Ok(Cow::Borrowed(c)),
        _ => Err(whole_type(v, "lgl")),
    }
}

/// The cells of a `u64` column.
pub fn u64_cells(v: &Values) -> Result<Cow<'_, [Option<u64>]>, Mismatch> {
    match v {
        Values::U64(c) => Ok(Cow::Borrowed(c)),
        Values::Int(c) => convert_cells(c, |x| u64::try_from(x).ok())
            .map(Cow::Owned)
            .map_err(|r| cell_mismatch(v, r, "u64", "a negative value")),
        Values::Dbl(c) => convert_cells(c, u64_from_dbl)
            .map(Cow::Owned)
            .map_err(|r| cell_mismatch(v, r, "u64", "a value that is not a u64")),
        _ if untyped_na(v) => Ok(Cow::Owned(vec![None; v.len()])),
        _ => Err(whole_type(v, "u64")),
    }
}

/// The column converted to `kind`, or why it cannot be.
pub fn coerce(v: &Values, kind: ColumnKind) -> Result<Values, Mismatch> {
    Ok(match kind {
        ColumnKind::Int => Values::Int(int_cells(v)?.into_owned()),
        ColumnKind::Dbl => Values::Dbl(dbl_cells(v)?.into_owned()),
        ColumnKind::Chr => Values::Chr(chr_cells(v)?.into_owned()),
        ColumnKind::Lgl => Values::Lgl(lgl_cells(v)?.into_owned()),
        ColumnKind::U64 => Values::U64(u64_cells(v)?.into_owned()),
    })
}

/// Checks that the column holds values of `kind` without converting it.
pub fn conforms(v: &Values, kind: ColumnKind) -> Result<(), Mismatch> {
    match kind {
        ColumnKind::Int => int_cells(v).map(drop),
        ColumnKind::Dbl => dbl_cells(v).map(drop),
        ColumnKind::Chr => chr_cells(v).map(drop),
        ColumnKind::Lgl => lgl_cells(v).map(drop),
        ColumnKind::U64 => u64_cells(v).map(drop),
    }
}

/// The natural [`ColumnKind`] of a column (`None` for a list column).
pub fn natural_kind(v: &Values) -> Option<ColumnKind> {
    match v {
        Values::Int(_) => Some(ColumnKind::Int),
        Values::Dbl(_) => Some(ColumnKind::Dbl),
        Values::Chr(_) => Some(ColumnKind::Chr),
        Values::Lgl(_) => Some(ColumnKind::Lgl),
        Values::U64(_) => Some(ColumnKind::U64),
        Values::List(_) => None,
    }
}

/// The `int` cells of column `name` of `table`, when it exists and conforms.
pub fn int_column<'a>(table: &'a Table, name: &str) -> Option<Cow<'a, [Option<i32>]>> {
    int_cells(table.column(name)?).ok()
}

/// The `dbl` cells of column `name` of `table`, when it exists and conforms.
pub fn dbl_column<'a>(table: &'a Table, name: &str) -> Option<Cow<'a, [Option<f64>]>> {
    dbl_cells(table.column(name)?).ok()
}

/// The `chr` cells of column `name` of `table`, when it exists and conforms.
pub fn chr_column<'a>(table: &'a Table, name: &str) -> Option<Cow<'a, [Option<String>]>> {
    chr_cells(table.column(name)?).ok()
}
