//! What a writer leaves out: extension columns, extension tables and meta keys it does not
//! know, reported as one warning so that nothing is dropped silently.

use crate::model::{ExtColumns, Profile};

use super::Warning;

/// What a writer knows how to write (every other extension item is reported).
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
    /// Meta keys, or key prefixes ending in `.` / `*`.
    pub meta: &'a [&'a str],
}

/// A warning naming every extension column, table and meta key of `p` that `known` lacks.
pub fn report(p: &Profile, format: &'static str, known: &Known) -> Option<Warning> {
    let mut lost: Vec<String> = Vec::new();
    let mut columns = |table: &str, ext: &ExtColumns, names: &[&str]| {
        for c in &ext.columns {
            if !names.contains(&c.name.as_str()) {
                lost.push(format!("{table}.{}", c.name));
            }
        }
    };
    columns("locations", &p.locations.ext, known.locations);
    columns("samples", &p.samples.ext, known.samples);
    columns("sources", &p.sources.ext, known.sources);
    columns("functions", &p.functions.ext, known.functions);
    for t in &p.ext_tables {
        if !known.tables.contains(&t.name.as_str()) {
            lost.push(format!("table {}", t.name));
        }
    }
    let mut keys: Vec<&str> = p.meta.key.iter().map(|&k| p.str(k)).collect();
    keys.dedup();
    for key in keys {
        let known_key = known.meta.iter().any(|m| match m.strip_suffix('*') {
            Some(prefix) => key.starts_with(prefix),
            None => *m == key,
        });
        if !known_key && !lost.iter().any(|l| l == &format!("meta {key}")) {
            lost.push(format!("meta {key}"));
        }
    }
    (!lost.is_empty()).then(|| {
        Warning::new(
            format,
            format!("cannot hold and did not write: {}", lost.join(", ")),
            1,
        )
    })
}
