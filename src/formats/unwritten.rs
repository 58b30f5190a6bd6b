//! What a writer leaves out of the extensions: extension columns, extension tables and meta
//! keys it does not know, reported with counts (the loss report's last kind, see
//! [`super::loss`]) so that nothing is dropped silently.

use std::collections::BTreeMap;

use crate::model::{ExtColumns, Profile};

use super::loss::{plural, present_cells};
use super::Warning;

/// What a writer knows how to write (every other extension item is reported).
#[derive(Debug)]
pub struct Known<'a> {
    /// `locations` extension columns.
    pub locations: &'a [&'a str],
    /// `samples` extension columns.
    pub samples: &'a [&'a str],
    /// `sources` extension columns.
    pub sources: &'a [&'a str],
    /// `functions` extension columns.
    pub functions: &'a [&'a str],
    /// Extension tables.
    pub tables: &'a [&'a str],
    /// Meta keys, or key prefixes ending in `*`.
    pub meta: &'a [&'a str],
}

impl Known<'_> {
    fn has_meta(&self, key: &str) -> bool {
        self.meta.iter().any(|m| match m.strip_suffix('*') {
            Some(prefix) => key.starts_with(prefix),
            None => *m == key,
        })
    }
}

/// Warnings for the extension items of `p` that neither `known` nor `owned` (the items other
/// loss kinds report) names: one per table's columns, one for tables, one for meta keys.
pub fn report(p: &Profile, format: &'static str, known: &Known, owned: &Known) -> Vec<Warning> {
    let mut out = Vec::new();
    let mut columns = |table: &str, row: &str, ext: &ExtColumns, names: &[&str], more: &[&str]| {
        let lost: Vec<(String, usize)> = ext
            .columns
            .iter()
            .filter(|c| !names.contains(&c.name.as_str()) && !more.contains(&c.name.as_str()))
            .map(|c| (c.name.clone(), present_cells(&c.data)))
            .filter(|&(_, n)| n > 0)
            .collect();
        if lost.is_empty() {
            return;
        }
        let total = lost.iter().map(|(_, n)| n).sum();
        let list: Vec<String> = lost
            .iter()
            .map(|(name, n)| format!("{name} ({})", plural(*n, row)))
            .collect();
        out.push(Warning::new(
            format,
            format!(
                "cannot hold these {table} columns: dropped {}",
                list.join(", ")
            ),
            total,
        ));
    };
    columns(
        "locations",
        "location",
        &p.locations.ext,
        known.locations,
        owned.locations,
    );
    columns(
        "samples",
        "sample",
        &p.samples.ext,
        known.samples,
        owned.samples,
    );
    columns(
        "sources",
        "source",
        &p.sources.ext,
        known.sources,
        owned.sources,
    );
    columns(
        "functions",
        "function",
        &p.functions.ext,
        known.functions,
        owned.functions,
    );
    out.extend(tables(p, format, known, owned));
    out.extend(meta(p, format, known, owned));
    out
}

/// The extension tables neither list names, with their row counts.
fn tables(p: &Profile, format: &'static str, known: &Known, owned: &Known) -> Option<Warning> {
    let lost: Vec<(&str, usize)> = p
        .ext_tables
        .iter()
        .map(|t| (t.name.as_str(), t.len()))
        .filter(|&(name, n)| {
            n > 0 && !known.tables.contains(&name) && !owned.tables.contains(&name)
        })
        .collect();
    let total: usize = lost.iter().map(|(_, n)| n).sum();
    (!lost.is_empty()).then(|| {
        let list: Vec<String> = lost
            .iter()
            .map(|(name, n)| format!("{name} ({})", plural(*n, "row")))
            .collect();
        Warning::new(
            format,
            format!("cannot hold these tables: dropped {}", list.join(", ")),
            total,
        )
    })
}

/// The meta keys neither list names, with the number of rows of each.
fn meta(p: &Profile, format: &'static str, known: &Known, owned: &Known) -> Option<Warning> {
    let mut lost: BTreeMap<&str, usize> = BTreeMap::new();
    for &k in &p.meta.key {
        let key = p.str(k);
        if !known.has_meta(key) && !owned.has_meta(key) {
            *lost.entry(key).or_default() += 1;
        }
    }
    (!lost.is_empty()).then(|| {
        let keys: Vec<&str> = lost.keys().copied().collect();
        Warning::new(
            format,
            format!(
                "cannot hold these meta keys: dropped {} ({})",
                keys.join(", "),
                plural(lost.values().sum(), "row")
            ),
            lost.len(),
        )
    })
}
