//! Sample facets: the per-sample facts a viewer can filter by, like `go tool pprof -tagfocus`.
//!
//! A facet is either a key of the `sample_labels` extension table (pprof and OTLP labels,
//! goroutine labels: one sample may have several values of one key) or a sample extension
//! column of text, logical or integer cells (a goroutine's state, an Rprof run, a thread).
//! A column whose values are nearly all distinct (ids, times) says nothing as a filter and is
//! left out: a facet has at most [`MAX_FACET_VALUES`] values, and fewer values than samples.

use std::collections::BTreeMap;

use crate::hash::HashSet;
use crate::model::ext::tables::SAMPLE_LABELS;
use crate::model::{Cell, ColumnData, ExtTable, Profile, INT_NA, SAMPLE_TIME};

/// Most distinct values a facet may have.
pub const MAX_FACET_VALUES: usize = 500;

/// Where a facet's values come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FacetSource {
    /// A `key` of the `sample_labels` table.
    Label(String),
    /// A sample extension column (its name, with the leading dot).
    Column(String),
}

/// One facet: its name for display, and each value with the number of samples that have it,
/// values sorted by that number (most first), then by text.
#[derive(Clone, Debug, PartialEq)]
pub struct Facet {
    /// Where the values come from.
    pub source: FacetSource,
    /// The name shown: the label key, or the column name without its dot.
    pub name: String,
    /// `(value, samples)` pairs.
    pub values: Vec<(String, usize)>,
}

/// Every facet of `p`, labels first, then columns in table order.
pub fn facets(p: &Profile) -> Vec<Facet> {
    let mut out = label_facets(p);
    out.extend(column_facets(p));
    out
}

/// The samples that have `value` for the facet from `source`: one flag per sample.
pub fn facet_mask(p: &Profile, source: &FacetSource, value: &str) -> Vec<bool> {
    let mut mask = vec![false; p.num_samples()];
    for (s, v) in facet_cells(p, source) {
        if v == value {
            if let Some(m) = mask.get_mut(s) {
                *m = true;
            }
        }
    }
    mask
}

/// `(sample row, value text)` of every cell of the facet from `source`.
fn facet_cells(p: &Profile, source: &FacetSource) -> Vec<(usize, String)> {
    match source {
        FacetSource::Label(key) => label_cells(p, Some(key))
            .into_iter()
            .map(|(s, _, v)| (s, v))
            .collect(),
        FacetSource::Column(name) => p
            .samples
            .ext
            .get(name)
            .map(|col| column_cells(p, col))
            .unwrap_or_default(),
    }
}

/// `(sample row, key, value)` of the rows of `sample_labels` (of key `only_key`, when given);
/// numeric labels read as the number and its unit (`"512 bytes"`).
fn label_cells(p: &Profile, only_key: Option<&str>) -> Vec<(usize, String, String)> {
    let Some(t) = p.ext_table(SAMPLE_LABELS) else {
        return Vec::new();
    };
    let (Some(ids), Some(keys)) = (t.columns.int("sample_id"), t.columns.chr("key")) else {
        return Vec::new();
    };
    let wanted = only_key.map(|k| p.strings.find(k));
    let mut out = Vec::new();
    for (row, (&id, &key)) in ids.iter().zip(keys).enumerate() {
        if wanted.is_some_and(|w| w != Some(key)) {
            continue;
        }
        let Some(sample) = usize::try_from(id).ok().and_then(|id| id.checked_sub(1)) else {
            continue;
        };
        if let Some(value) = label_value(p, t, row) {
            out.push((sample, p.str(key).to_owned(), value));
        }
    }
    out
}

fn label_value(p: &Profile, t: &ExtTable, row: usize) -> Option<String> {
    let text = t.columns.chr("str").and_then(|c| c.get(row)).copied();
    if let Some(s) = text.filter(|s| !s.is_na()) {
        return Some(p.str(s).to_owned());
    }
    let num = match t.columns.cell("num", row)? {
        Cell::Int(n) if n != INT_NA => n.to_string(),
        Cell::Dbl(n) if !n.is_nan() => n.to_string(),
        Cell::U64(Some(n)) => n.to_string(),
        _ => return None,
    };
    let unit = t.columns.chr("num_unit").and_then(|c| c.get(row)).copied();
    Some(match unit.filter(|u| !u.is_na()) {
        Some(u) => format!("{num} {}", p.str(u)),
        None => num,
    })
}

/// `(sample row, value text)` of the non-NA cells of a sample column that can be a facet.
fn column_cells(p: &Profile, col: &ColumnData) -> Vec<(usize, String)> {
    let text = |cell: Cell| match cell {
        Cell::Chr(s) if !s.is_na() => Some(p.str(s).to_owned()),
        Cell::Lgl(Some(b)) => Some(if b { "TRUE" } else { "FALSE" }.to_owned()),
        Cell::Int(n) if n != INT_NA => Some(n.to_string()),
        _ => None,
    };
    (0..col.len())
        .filter_map(|s| Some((s, text(col.cell(s)?)?)))
        .collect()
}

fn label_facets(p: &Profile) -> Vec<Facet> {
    let mut by_key: BTreeMap<String, Vec<(usize, String)>> = BTreeMap::new();
    for (s, key, value) in label_cells(p, None) {
        by_key.entry(key).or_default().push((s, value));
    }
    by_key
        .into_iter()
        .filter_map(|(key, cells)| facet(p, FacetSource::Label(key.clone()), key, cells))
        .collect()
}

fn column_facets(p: &Profile) -> Vec<Facet> {
    p.samples
        .ext
        .columns
        .iter()
        .filter(|c| {
            c.name != SAMPLE_TIME && !matches!(c.data, ColumnData::Dbl(_) | ColumnData::U64(_))
        })
        .filter_map(|c| {
            let name = c.name.trim_start_matches('.').to_owned();
            facet(
                p,
                FacetSource::Column(c.name.clone()),
                name,
                column_cells(p, &c.data),
            )
        })
        .collect()
}

/// The facet of `cells`, when it has between 1 and [`MAX_FACET_VALUES`] values and fewer
/// values than the profile has samples (a column of ids is no filter).
fn facet(
    p: &Profile,
    source: FacetSource,
    name: String,
    cells: Vec<(usize, String)>,
) -> Option<Facet> {
    let mut counts: BTreeMap<String, HashSet<usize>> = BTreeMap::new();
    for (s, v) in cells {
        counts.entry(v).or_default().insert(s);
        if counts.len() > MAX_FACET_VALUES {
            return None;
        }
    }
    if counts.is_empty() || (counts.len() >= p.num_samples() && p.num_samples() > 1) {
        return None;
    }
    let mut values: Vec<(String, usize)> = counts.into_iter().map(|(v, s)| (v, s.len())).collect();
    values.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Some(Facet {
        source,
        name,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{read_any, ReadOptions};

    fn read(text: &str) -> Profile {
        read_any(text.as_bytes(), &ReadOptions::default())
            .unwrap()
            .profile
    }

    #[test]
    fn rprof_runs_are_a_facet_and_times_are_not() {
        // Two runs (Rprof(append = TRUE)): 2 samples in the first, 1 in the second.
        let p = read(concat!(
            "sample.interval=10000\n\"a\" \"main\" \n\"b\" \"main\" \n",
            "sample.interval=10000\n\"a\" \"main\" \n",
        ));
        let f = facets(&p);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].name, "rprof_run");
        assert_eq!(f[0].values, vec![("1".to_owned(), 2), ("2".to_owned(), 1)]);
        assert_eq!(facet_mask(&p, &f[0].source, "2"), vec![false, false, true]);
    }
}
