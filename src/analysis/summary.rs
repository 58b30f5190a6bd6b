//! What a profile holds at a glance: its tables with their row counts and extension columns,
//! and a table's extension columns found by name. The JavaScript API and the CLI's `info` show
//! these; nothing here knows how they are shown.
//!
//! Invariant: [`tables`] lists the seven logical v2 tables (`docs/model.md`) in their order,
//! counting the long forms (`sample_values`, `sample_locations`) without materializing them,
//! then the extension tables in the profile's order.

use crate::model::{ExtColumns, Profile};

/// One table of a profile.
#[derive(Clone, Copy, Debug)]
pub struct TableSummary<'a> {
    /// The table's name (`samples`, `mappings`, …).
    pub name: &'a str,
    /// Its number of rows.
    pub rows: usize,
    /// Its extension columns, for the tables that carry them.
    pub ext: Option<&'a ExtColumns>,
}

impl<'a> TableSummary<'a> {
    fn new(name: &'a str, rows: usize, ext: Option<&'a ExtColumns>) -> Self {
        TableSummary { name, rows, ext }
    }
}

/// Every table of `p`: the seven logical v2 tables, then the extension tables.
pub fn tables(p: &Profile) -> Vec<TableSummary<'_>> {
    let mut out = vec![
        TableSummary::new("meta", p.meta.key.len(), None),
        TableSummary::new("sources", p.sources.source_type.len(), Some(&p.sources.ext)),
        TableSummary::new("samples", p.num_samples(), Some(&p.samples.ext)),
        TableSummary::new("sample_values", p.sample_value_rows(), None),
        TableSummary::new("sample_locations", p.sample_location_rows(), None),
        TableSummary::new("locations", p.locations.line.len(), Some(&p.locations.ext)),
        TableSummary::new("functions", p.functions.name.len(), Some(&p.functions.ext)),
    ];
    out.extend(
        p.ext_tables
            .iter()
            .map(|t| TableSummary::new(&t.name, t.len(), Some(&t.columns))),
    );
    out
}

/// The extension columns of `table`: `samples`, `locations`, `functions`, `sources`, or an
/// extension table's name; `None` for any other name.
pub fn ext_columns<'a>(p: &'a Profile, table: &str) -> Option<&'a ExtColumns> {
    match table {
        "samples" => Some(&p.samples.ext),
        "locations" => Some(&p.locations.ext),
        "functions" => Some(&p.functions.ext),
        "sources" => Some(&p.sources.ext),
        _ => p.ext_table(table).map(|t| &t.columns),
    }
}

/// The `meta` rows as `(key, value)` text pairs, in order.
pub fn meta_rows(p: &Profile) -> Vec<(&str, &str)> {
    p.meta
        .key
        .iter()
        .zip(&p.meta.value)
        .map(|(&k, &v)| (p.str(k), p.str(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fixtures::paths_profile;
    use crate::model::validate::V2_TABLES;

    #[test]
    fn seven_tables_then_extension_tables() {
        let p = paths_profile(&["run"], &[(0, &["main"], 1.0)]);
        let t = tables(&p);
        let names: Vec<&str> = t.iter().take(7).map(|t| t.name).collect();
        assert_eq!(names, V2_TABLES);
        assert_eq!(t[2].rows, 1);
        assert!(ext_columns(&p, "samples").is_some());
        assert!(ext_columns(&p, "no such table").is_none());
    }
}
