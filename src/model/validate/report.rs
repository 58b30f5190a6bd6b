//! [`Violation`] and the [`Report`] that collects them, capping the rows reported per rule
//! at [`MAX_ROWS_PER_RULE`] so a document with millions of bad rows yields a bounded report.

use std::fmt;

use super::super::typing::Mismatch;

/// One broken rule. `row` is 1-based; `value` is the offending cell as text (text quoted).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Violation {
    /// Table name.
    pub table: String,
    /// Column name, when the rule concerns one column.
    pub column: Option<String>,
    /// 1-based row, when one row is to blame.
    pub row: Option<usize>,
    /// The offending value as text.
    pub value: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl Violation {
    /// A violation; `row` is 1-based.
    pub fn new(
        table: &str,
        column: Option<&str>,
        row: Option<usize>,
        value: Option<String>,
        message: impl Into<String>,
    ) -> Self {
        Violation {
            table: table.to_owned(),
            column: column.map(str::to_owned),
            row,
            value,
            message: message.into(),
        }
    }
}

impl fmt::Display for Violation {
    /// `functions.name row 3 (value ""): must not be empty`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.table)?;
        if let Some(c) = &self.column {
            write!(f, ".{c}")?;
        }
        if let Some(r) = self.row {
            write!(f, " row {r}")?;
        }
        if let Some(v) = &self.value {
            write!(f, " (value {v})")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Most rows reported for one rule on one column; the rest are counted in one more violation,
/// so a document with millions of bad rows yields a bounded report.
pub const MAX_ROWS_PER_RULE: usize = 1000;

/// Collects violations, capping the rows reported per rule.
#[derive(Default)]
pub(crate) struct Report {
    pub(crate) out: Vec<Violation>,
}

impl Report {
    pub(crate) fn add(&mut self, v: Violation) {
        self.out.push(v);
    }

    /// A violation of a whole table.
    pub(crate) fn table(&mut self, table: &str, message: impl Into<String>) {
        self.add(Violation::new(table, None, None, None, message));
    }

    /// A violation of a whole column.
    pub(crate) fn column(&mut self, table: &str, column: &str, message: impl Into<String>) {
        self.add(Violation::new(table, Some(column), None, None, message));
    }

    /// A violation of one cell; `row0` is 0-based.
    pub(crate) fn cell(
        &mut self,
        table: &str,
        column: &str,
        row0: usize,
        value: String,
        message: impl Into<String>,
    ) {
        self.add(Violation::new(
            table,
            Some(column),
            Some(row0 + 1),
            Some(value),
            message,
        ));
    }

    /// A type mismatch of a column.
    pub(crate) fn mismatch(&mut self, table: &str, column: &str, m: Mismatch) {
        self.add(Violation::new(
            table,
            Some(column),
            m.row.map(|r| r + 1),
            m.value,
            m.message,
        ));
    }

    /// Reports every NA cell of `cells` as breaking the rule `message`.
    pub(crate) fn na_cells<T>(
        &mut self,
        table: &str,
        column: &str,
        message: &str,
        cells: &[Option<T>],
    ) {
        let na = cells.iter().enumerate().filter(|(_, c)| c.is_none());
        self.rule(
            table,
            column,
            message,
            na.map(|(i, _)| (i, "NA".to_owned())),
        );
    }

    /// Reports every `(row0, value)` as breaking the rule `message`, the first
    /// [`MAX_ROWS_PER_RULE`] one by one and the rest as a count.
    pub(crate) fn rule(
        &mut self,
        table: &str,
        column: &str,
        message: &str,
        rows: impl IntoIterator<Item = (usize, String)>,
    ) {
        self.rule_with(
            table,
            column,
            rows.into_iter().map(|(r, v)| (r, v, message.to_owned())),
        );
    }

    /// As [`Report::rule`], with a message per row.
    pub(crate) fn rule_with(
        &mut self,
        table: &str,
        column: &str,
        rows: impl IntoIterator<Item = (usize, String, String)>,
    ) {
        let mut extra = 0usize;
        for (i, (row0, value, message)) in rows.into_iter().enumerate() {
            if i < MAX_ROWS_PER_RULE {
                self.cell(table, column, row0, value, message);
            } else {
                extra += 1;
            }
        }
        if extra > 0 {
            self.column(
                table,
                column,
                format!("{extra} more rows break the same rule (not listed)"),
            );
        }
    }
}
