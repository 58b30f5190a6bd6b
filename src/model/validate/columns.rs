//! Rules 1 and 2: the tables are present once each, and each has its required columns first,
//! in order and of the required types, extension columns dotted, no name twice, and all
//! columns of one length. A table that passes is sound enough for the row rules.

use super::super::logical::{Table, Tables, Values};
use super::super::typing::{self, Mismatch};
use super::schema::ColType;
use super::Report;
use crate::hash::HashSet;

fn conforms(v: &Values, ty: ColType) -> Result<(), Mismatch> {
    match ty {
        ColType::Kind(k) => typing::conforms(v, k),
        ColType::List if matches!(v, Values::List(_)) || typing::all_na(v) => Ok(()),
        ColType::List => Err(Mismatch {
            row: None,
            value: None,
            message: format!("must be a list of tables, found {}", v.type_name()),
        }),
    }
}

/// Checks the column structure of one table against its required columns (rule 2) and says
/// whether the table is sound enough for row rules.
pub(crate) fn check_columns(
    r: &mut Report,
    name: &str,
    table: &Table,
    required: &[(&str, ColType)],
) -> bool {
    let mut sound = check_unique_columns(r, name, table, required);
    sound &= check_lengths(r, name, table);
    let names = table.names();
    let required_names: Vec<&str> = required.iter().map(|(c, _)| *c).collect();
    for issue in order_issues(&names, &required_names, "column") {
        sound &= !issue.breaks;
        r.column(name, &issue.name, issue.message);
    }
    for (col, ty) in required {
        if let Some(Err(m)) = table.column(col).map(|v| conforms(v, *ty)) {
            r.mismatch(name, col, m);
            sound = false;
        }
    }
    sound
}

/// A name out of place: `breaks` when a required name is missing or misplaced.
pub(crate) struct OrderIssue {
    pub(crate) name: String,
    pub(crate) message: String,
    pub(crate) breaks: bool,
}

/// Checks that `names` start with exactly `required` in order and that every other name
/// starts with a dot and comes after them (the v1 rule for columns and tables, docs/model.md).
pub(crate) fn order_issues(names: &[&str], required: &[&str], kind: &str) -> Vec<OrderIssue> {
    let mut issues = Vec::new();
    for (pos, name) in names.iter().enumerate() {
        if required.contains(name) {
            continue;
        }
        let message = if !name.starts_with('.') {
            format!("is not a required {kind}; extra {kind}s must start with a dot")
        } else if pos < required.len() {
            format!("extra {kind}s must come after the required {kind}s")
        } else {
            continue;
        };
        issues.push(OrderIssue {
            name: (*name).to_owned(),
            message,
            breaks: false,
        });
    }
    // A present required name is misplaced when it is not where it would be if the missing
    // ones were simply left out (so one missing name does not make all later ones misplaced).
    let present: Vec<&str> = required
        .iter()
        .copied()
        .filter(|r| names.contains(r))
        .collect();
    for req in required {
        let expected = present.iter().position(|p| p == req);
        let message = match (names.iter().position(|n| n == req), expected) {
            (Some(p), Some(e)) if p != e => {
                format!("must be {kind} {} (found as {kind} {})", e + 1, p + 1)
            }
            (Some(_), _) => continue,
            (None, _) => format!("required {kind} is missing"),
        };
        issues.push(OrderIssue {
            name: (*req).to_owned(),
            message,
            breaks: true,
        });
    }
    issues
}

/// No column name twice; false when a required column is duplicated.
pub(super) fn check_unique_columns(
    r: &mut Report,
    name: &str,
    table: &Table,
    required: &[(&str, ColType)],
) -> bool {
    let mut seen = HashSet::default();
    let mut sound = true;
    for (col, _) in &table.columns {
        if !seen.insert(col.as_str()) {
            r.column(name, col, "column appears more than once");
            sound &= !required.iter().any(|(c, _)| c == col);
        }
    }
    sound
}

pub(super) fn check_lengths(r: &mut Report, name: &str, table: &Table) -> bool {
    let Some((first, first_values)) = table.columns.first() else {
        return true;
    };
    let n = first_values.len();
    let mut sound = true;
    for (col, v) in &table.columns {
        if v.len() != n {
            r.column(
                name,
                col,
                format!("has {} rows but column {first} has {n}", v.len()),
            );
            sound = false;
        }
    }
    sound
}

/// Table names that appear more than once.
pub(crate) fn check_unique_tables(r: &mut Report, t: &Tables) {
    let mut seen = HashSet::default();
    for (name, _) in &t.tables {
        if !seen.insert(name.as_str()) {
            r.table(name, "table appears more than once");
        }
    }
}
