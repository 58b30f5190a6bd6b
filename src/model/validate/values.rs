//! Rules on single values: the `meta` version row (3), non-negative lines (8), and function
//! names neither NA nor empty (9).

use super::super::logical::{Table, Values};
use super::super::typing::{self, cell_text};
use super::{Report, V2Rules};

impl V2Rules<'_, '_> {
    /// Rule 8.
    pub(super) fn non_negative(&mut self, table: &str, col: &str) {
        let Some(cells) = self.int(table, col) else {
            return;
        };
        let bad = cells.iter().enumerate().filter_map(|(i, c)| match c {
            Some(x) if *x < 0 => Some((i, x.to_string())),
            _ => None,
        });
        self.r.rule(table, col, "must be non-negative or NA", bad);
    }

    /// Rule 9.
    pub(super) fn non_empty(&mut self, table: &str, col: &str) {
        let Some(cells) = self.chr(table, col) else {
            return;
        };
        check_non_empty(self.r, table, col, &cells);
    }
}

/// NA and empty strings in `cells`.
pub(crate) fn check_non_empty(r: &mut Report, table: &str, col: &str, cells: &[Option<String>]) {
    r.na_cells(table, col, "must not be NA", cells);
    let empty = cells
        .iter()
        .enumerate()
        .filter(|(_, c)| c.as_deref() == Some(""));
    r.rule(
        table,
        col,
        "must not be empty",
        empty.map(|(i, _)| (i, "\"\"".to_owned())),
    );
}

/// Rule 3 (v2: exactly `"2.0"`): one `version` row with the expected value.
pub(crate) fn check_meta_version(r: &mut Report, meta: &Table, expected: &str) {
    let (Some(keys), Some(values)) = (
        typing::chr_column(meta, "key"),
        typing::chr_column(meta, "value"),
    ) else {
        return;
    };
    let rows: Vec<usize> = keys
        .iter()
        .enumerate()
        .filter(|(_, k)| k.as_deref() == Some("version"))
        .map(|(i, _)| i)
        .collect();
    if rows.is_empty() {
        r.column("meta", "key", "required row key = \"version\" is missing");
    }
    for (n, &row) in rows.iter().enumerate() {
        if n > 0 {
            r.cell(
                "meta",
                "key",
                row,
                "\"version\"".to_owned(),
                "key \"version\" appears more than once",
            );
        }
        let value = values.get(row).cloned().flatten();
        if value.as_deref() != Some(expected) {
            let text = cell_text(&Values::Chr(vec![value]), 0);
            r.cell(
                "meta",
                "value",
                row,
                text,
                format!("version must be \"{expected}\""),
            );
        }
    }
}
