//! What `--append` writes: the dataset read back (`old`) and the combined profile's tables
//! (`all` = [`crate::model::combine`] of the old profile and the new inputs) decide, per table,
//! whether a new part with the new rows is enough or the table is rewritten.
//!
//! Invariant: after the plan is carried out, the parts of every table, read in order, equal
//! `all`'s table — so reading the dataset back gives the combined profile. Combining keeps an
//! earlier input's rows first and unchanged, with the same ids, so usually every table but
//! [`REWRITTEN_TABLES`] only grows; a table whose old rows are not a prefix of its new rows
//! (an extension column added or widened by the new inputs, a dataset whose ids were not
//! `1..n`) is rewritten whole.

use crate::model::{Table, Tables, Values};

/// Tables that are always rewritten whole: small, and combining may change their old rows
/// (`meta` keys become `source.N.key` when inputs disagree; the type lists are unions).
pub const REWRITTEN_TABLES: [&str; 3] = ["meta", "column_types", "value_types"];

/// What to do with one table of `all`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TablePlan {
    /// Nothing changed.
    Keep,
    /// Add one part with the rows from this 0-based row on.
    Append { from_row: usize },
    /// Replace every part with one part holding the whole table.
    Rewrite,
}

/// The plan for each table of `all`, in its order, as `(name, position, plan)`.
pub fn plan_append<'a>(old: &Tables, all: &'a Tables) -> Vec<(&'a str, usize, TablePlan)> {
    all.tables
        .iter()
        .enumerate()
        .map(|(position, (name, t))| {
            let plan = match old.table(name) {
                _ if REWRITTEN_TABLES.contains(&name.as_str()) => TablePlan::Rewrite,
                Some(o) if is_prefix(o, t) && o.nrow() == t.nrow() => TablePlan::Keep,
                Some(o) if is_prefix(o, t) => TablePlan::Append { from_row: o.nrow() },
                _ => TablePlan::Rewrite,
            };
            (name.as_str(), position, plan)
        })
        .collect()
}

/// True when `old` has the columns of `new` (names and kinds, in order) and its rows are the
/// first rows of `new`.
fn is_prefix(old: &Table, new: &Table) -> bool {
    let n = old.nrow();
    old.columns.len() == new.columns.len()
        && n <= new.nrow()
        && old
            .columns
            .iter()
            .zip(&new.columns)
            .all(|((a, x), (b, y))| a == b && values_prefix(x, y, n))
}

/// True when the first `n` cells of `a` and `b` are equal and of one kind (doubles by bits, so
/// that NaN equals NaN).
fn values_prefix(a: &Values, b: &Values, n: usize) -> bool {
    fn head<T: PartialEq>(a: &[T], b: &[T], n: usize) -> bool {
        a.get(..n).is_some() && a.get(..n) == b.get(..n)
    }
    match (a, b) {
        (Values::Int(a), Values::Int(b)) => head(a, b, n),
        (Values::Dbl(a), Values::Dbl(b)) => {
            let bits =
                |v: &[Option<f64>]| v.iter().map(|x| x.map(f64::to_bits)).collect::<Vec<_>>();
            head(&bits(a), &bits(b), n)
        }
        (Values::Chr(a), Values::Chr(b)) => head(a, b, n),
        (Values::Lgl(a), Values::Lgl(b)) => head(a, b, n),
        (Values::U64(a), Values::U64(b)) => head(a, b, n),
        _ => false,
    }
}

/// The rows of `t` from `from` on.
pub fn rows_from(t: &Table, from: usize) -> Table {
    fn tail<T: Clone>(v: &[T], from: usize) -> Vec<T> {
        v.get(from..).unwrap_or_default().to_vec()
    }
    let columns = t
        .columns
        .iter()
        .map(|(name, v)| {
            let cut = match v {
                Values::Int(c) => Values::Int(tail(c, from)),
                Values::Dbl(c) => Values::Dbl(tail(c, from)),
                Values::Chr(c) => Values::Chr(tail(c, from)),
                Values::Lgl(c) => Values::Lgl(tail(c, from)),
                Values::U64(c) => Values::U64(tail(c, from)),
                Values::List(c) => Values::List(tail(c, from)),
            };
            (name.clone(), cut)
        })
        .collect();
    Table::new(columns)
}
