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
//!
//! `sample_values` is written type by type ([`crate::model::convert::sample_value_rows`]), so
//! the new samples' rows are not at its end; its rows may come in any order (the profile is
//! the same), so an append adds the rows of the new samples as a part when the stored rows are
//! exactly the combined rows of the old samples, as sets ([`sample_values_plan`]).

use crate::model::{Table, Tables, Values};

/// Tables that are always rewritten whole: small, and combining may change their old rows
/// (`meta` keys become `source.N.key` when inputs disagree; the type lists are unions).
pub const REWRITTEN_TABLES: [&str; 3] = ["meta", "column_types", "value_types"];

/// What to do with one table of `all`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TablePlan {
    /// Nothing changed.
    Keep,
    /// Add one part with these 0-based rows of the table, in this order.
    Append { rows: Vec<usize> },
    /// Replace every part with one part holding the whole table.
    Rewrite,
}

/// The plan for each table of `all`, in its order, as `(name, position, plan)`.
pub fn plan_append<'a>(old: &Tables, all: &'a Tables) -> Vec<(&'a str, usize, TablePlan)> {
    let plans: Vec<_> = all
        .tables
        .iter()
        .enumerate()
        .map(|(position, (name, t))| {
            let plan = match old.table(name) {
                _ if REWRITTEN_TABLES.contains(&name.as_str()) => TablePlan::Rewrite,
                Some(o) if is_prefix(o, t) => tail_plan(o.nrow(), t.nrow()),
                _ => TablePlan::Rewrite,
            };
            (name.as_str(), position, plan)
        })
        .collect();
    let samples_kept = plans
        .iter()
        .any(|(n, _, p)| *n == "samples" && *p != TablePlan::Rewrite);
    plans
        .into_iter()
        .map(
            |(name, position, plan)| match (name, old.table(name), all.table(name)) {
                ("sample_values", Some(o), Some(a))
                    if samples_kept && plan == TablePlan::Rewrite =>
                {
                    let n = old.table("samples").map_or(0, Table::nrow);
                    (name, position, sample_values_plan(o, a, n))
                }
                _ => (name, position, plan),
            },
        )
        .collect()
}

/// Keep when nothing was added, else append rows `old_rows..new_rows`.
fn tail_plan(old_rows: usize, new_rows: usize) -> TablePlan {
    if old_rows == new_rows {
        TablePlan::Keep
    } else {
        TablePlan::Append {
            rows: (old_rows..new_rows).collect(),
        }
    }
}

/// One `sample_values` row, comparable (the value by its bits).
type ValueRow<'a> = (Option<i32>, Option<&'a str>, Option<&'a str>, Option<u64>);

/// The rows of a `sample_values` table, or `None` when its columns are not the v2 ones.
fn value_rows(t: &Table) -> Option<Vec<ValueRow<'_>>> {
    let names: Vec<&str> = t.names();
    let (
        [Values::Int(id), Values::Chr(ty), Values::Chr(unit), Values::Dbl(v)],
        ["sample_id", "type", "unit", "value"],
    ) = (
        [
            &t.columns.first()?.1,
            &t.columns.get(1)?.1,
            &t.columns.get(2)?.1,
            &t.columns.get(3)?.1,
        ],
        names.as_slice(),
    )
    else {
        return None;
    };
    let rows = id.iter().zip(ty).zip(unit).zip(v);
    Some(
        rows.map(|(((id, ty), unit), v)| {
            (*id, ty.as_deref(), unit.as_deref(), v.map(f64::to_bits))
        })
        .collect(),
    )
}

/// `sample_values` of `all` against the stored `old`, the first `old_samples` samples being
/// unchanged: append the rows of later samples when the stored rows equal, as a set, the rows
/// of the old samples; else rewrite.
fn sample_values_plan(old: &Table, all: &Table, old_samples: usize) -> TablePlan {
    let (Some(mut stored), Some(rows)) = (value_rows(old), value_rows(all)) else {
        return TablePlan::Rewrite;
    };
    let limit = i32::try_from(old_samples).unwrap_or(i32::MAX);
    let is_old = |r: &ValueRow| r.0.is_some_and(|id| id <= limit);
    let mut kept: Vec<ValueRow> = rows.iter().copied().filter(is_old).collect();
    stored.sort_unstable();
    kept.sort_unstable();
    if stored != kept {
        return TablePlan::Rewrite;
    }
    let new: Vec<usize> = (0..rows.len())
        .filter(|&i| rows.get(i).is_some_and(|r| !is_old(r)))
        .collect();
    if new.is_empty() {
        TablePlan::Keep
    } else {
        TablePlan::Append { rows: new }
    }
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

/// Rows `rows` of `t` (rows out of range are left out).
pub fn select_rows(t: &Table, rows: &[usize]) -> Table {
    fn tail<T: Clone>(v: &[T], rows: &[usize]) -> Vec<T> {
        rows.iter().filter_map(|&r| v.get(r).cloned()).collect()
    }
    let columns = t
        .columns
        .iter()
        .map(|(name, v)| {
            let cut = match v {
                Values::Int(c) => Values::Int(tail(c, rows)),
                Values::Dbl(c) => Values::Dbl(tail(c, rows)),
                Values::Chr(c) => Values::Chr(tail(c, rows)),
                Values::Lgl(c) => Values::Lgl(tail(c, rows)),
                Values::U64(c) => Values::U64(tail(c, rows)),
                Values::List(c) => Values::List(tail(c, rows)),
            };
            (name.clone(), cut)
        })
        .collect();
    Table::new(columns)
}
