//! Validation of a v2 document (seed 000) in logical form: every rule of the seed, every
//! violation reported with its table, column, 1-based row and value.
//!
//! Rules checked by [`validate_v2`]:
//! 1. the seven tables `meta`, `sources`, `samples`, `sample_values`, `sample_locations`,
//!    `locations`, `functions` are present (in any order; extra tables are allowed), and no
//!    table name appears twice;
//! 2. each has exactly its required columns first, in order and of the required types (see
//!    [`crate::model::typing`] for how `int` and `dbl` arrive through JSON); further columns
//!    must start with a dot; no column name appears twice; all columns of a table (extension
//!    tables too) have the same length;
//! 3. `meta` has one row `version` = `"2.0"`;
//! 4. primary keys `sources.source_id`, `samples.sample_id`, `locations.location_id`,
//!    `functions.function_id` are unique and not NA;
//! 5. foreign keys `samples.source_id`, `sample_values.sample_id`, `sample_locations.sample_id`,
//!    `sample_locations.location_id` resolve and are not NA; `locations.function_id` resolves
//!    or is NA;
//! 6. compound keys `(sample_id, type)` of `sample_values` and `(sample_id, depth)` of
//!    `sample_locations` are unique and not NA;
//! 7. the depths of each sample run 1..n without gaps;
//! 8. `locations.line` and `functions.start_line` are non-negative or NA;
//! 9. `functions.name` and `functions.system_name` are neither NA nor empty.
//!
//! Row rules of a table are checked only when its structure (rule 2) is sound, and key rules
//! that need another table only when that table is sound too, so one broken column does not
//! bury the report under follow-up errors.

use crate::hash::{HashMap, HashSet};
use std::borrow::Cow;
use std::fmt;

use super::columns::ColumnKind;
use super::logical::{Table, Tables, Values};
use super::typing::{self, cell_text, Mismatch};

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

/// The names of the seven v2 tables, in document order.
pub const V2_TABLES: [&str; 7] = [
    "meta",
    "sources",
    "samples",
    "sample_values",
    "sample_locations",
    "locations",
    "functions",
];

/// The type a required column must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColType {
    /// A scalar column of this kind.
    Kind(ColumnKind),
    /// A list column of nested tables (v1 `samples.locations`).
    List,
}

pub(crate) const INT: ColType = ColType::Kind(ColumnKind::Int);
const DBL: ColType = ColType::Kind(ColumnKind::Dbl);
pub(crate) const CHR: ColType = ColType::Kind(ColumnKind::Chr);

/// The required columns of `meta` (v1 and v2).
pub const META_COLUMNS: &[(&str, ColType)] = &[("key", CHR), ("value", CHR)];
/// The required columns of `locations` (v1 and v2).
pub const LOCATIONS_COLUMNS: &[(&str, ColType)] =
    &[("location_id", INT), ("function_id", INT), ("line", INT)];
/// The required columns of `functions` (v1 and v2).
pub const FUNCTIONS_COLUMNS: &[(&str, ColType)] = &[
    ("function_id", INT),
    ("name", CHR),
    ("system_name", CHR),
    ("filename", CHR),
    ("start_line", INT),
];

/// The required columns of each v2 table, in order.
pub const V2_SCHEMA: [(&str, &[(&str, ColType)]); 7] = [
    ("meta", META_COLUMNS),
    (
        "sources",
        &[
            ("source_id", INT),
            ("source_type", CHR),
            ("source_uri", CHR),
            ("source_timestamp", DBL),
        ],
    ),
    ("samples", &[("sample_id", INT), ("source_id", INT)]),
    (
        "sample_values",
        &[
            ("sample_id", INT),
            ("type", CHR),
            ("unit", CHR),
            ("value", DBL),
        ],
    ),
    (
        "sample_locations",
        &[("sample_id", INT), ("depth", INT), ("location_id", INT)],
    ),
    ("locations", LOCATIONS_COLUMNS),
    ("functions", FUNCTIONS_COLUMNS),
];

/// The required columns of v2 table `name` (empty for an extension table).
pub fn v2_required_columns(name: &str) -> &'static [(&'static str, ColType)] {
    V2_SCHEMA
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[], |(_, c)| c)
}

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

/// Maps key values to 0-based rows: the identity when the keys are exactly `1..=n` in order
/// (what proftab writes), else a hash map. NA keys map nowhere; of duplicate keys the first
/// row wins.
#[derive(Clone, Debug)]
pub(crate) enum IdIndex {
    Dense(usize),
    Sparse(HashMap<i32, usize>),
}

impl IdIndex {
    pub(crate) fn new(ids: &[Option<i32>]) -> Self {
        let dense = ids
            .iter()
            .enumerate()
            .all(|(i, id)| id.and_then(|x| usize::try_from(x).ok()) == Some(i + 1));
        if dense {
            return IdIndex::Dense(ids.len());
        }
        let mut map = HashMap::default();
        for (row, id) in ids.iter().enumerate() {
            if let Some(id) = id {
                map.entry(*id).or_insert(row);
            }
        }
        IdIndex::Sparse(map)
    }

    /// The 0-based row of key `id`.
    pub(crate) fn row(&self, id: i32) -> Option<usize> {
        match self {
            IdIndex::Dense(n) => usize::try_from(id)
                .ok()
                .and_then(|x| x.checked_sub(1))
                .filter(|r| r < n),
            IdIndex::Sparse(m) => m.get(&id).copied(),
        }
    }
}

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
/// starts with a dot and comes after them (seed 001's rule for columns and v1 tables).
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
fn check_unique_columns(
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

fn check_lengths(r: &mut Report, name: &str, table: &Table) -> bool {
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

/// Validates a v2 document. Returns every violation (an empty list for a valid document).
pub fn validate_v2(t: &Tables) -> Vec<Violation> {
    let mut r = Report::default();
    check_unique_tables(&mut r, t);
    let mut sound: HashMap<&str, &Table> = HashMap::default();
    for (name, required) in V2_SCHEMA {
        match t.table(name) {
            None => r.table(name, "required table is missing"),
            Some(table) => {
                if check_columns(&mut r, name, table, required) {
                    sound.insert(name, table);
                }
            }
        }
    }
    for (name, table) in &t.tables {
        if !V2_TABLES.contains(&name.as_str()) {
            check_unique_columns(&mut r, name, table, &[]);
            check_lengths(&mut r, name, table);
        }
    }
    V2Rules { r: &mut r, sound }.check();
    r.out
}

struct V2Rules<'a, 'r> {
    r: &'r mut Report,
    sound: HashMap<&'a str, &'a Table>,
}

impl<'a> V2Rules<'a, '_> {
    fn int(&self, table: &str, col: &str) -> Option<Cow<'a, [Option<i32>]>> {
        typing::int_column(self.sound.get(table)?, col)
    }

    fn chr(&self, table: &str, col: &str) -> Option<Cow<'a, [Option<String>]>> {
        typing::chr_column(self.sound.get(table)?, col)
    }

    fn check(mut self) {
        if let Some(meta) = self.sound.get("meta").copied() {
            check_meta_version(self.r, meta, "2.0");
        }
        let sources = self.primary_key("sources", "source_id");
        let samples = self.primary_key("samples", "sample_id");
        let locations = self.primary_key("locations", "location_id");
        let functions = self.primary_key("functions", "function_id");
        self.foreign_key("samples", "source_id", sources.as_ref(), false);
        self.foreign_key("sample_values", "sample_id", samples.as_ref(), false);
        self.foreign_key("sample_locations", "sample_id", samples.as_ref(), false);
        self.foreign_key("sample_locations", "location_id", locations.as_ref(), false);
        self.foreign_key("locations", "function_id", functions.as_ref(), true);
        if let Some(samples) = &samples {
            self.value_key(samples);
            self.depth_key(samples);
        }
        self.non_negative("locations", "line");
        self.non_negative("functions", "start_line");
        self.non_empty("functions", "name");
        self.non_empty("functions", "system_name");
    }

    /// Rule 4: unique, not NA. Returns the key index of a sound table.
    fn primary_key(&mut self, table: &str, col: &str) -> Option<IdIndex> {
        let ids = self.int(table, col)?;
        check_unique_ints(self.r, table, col, &ids, false);
        Some(IdIndex::new(&ids))
    }

    /// Rule 5.
    fn foreign_key(&mut self, table: &str, col: &str, target: Option<&IdIndex>, na_ok: bool) {
        let (Some(ids), Some(target)) = (self.int(table, col), target) else {
            return;
        };
        check_foreign_key(self.r, table, col, &ids, target, na_ok);
    }

    /// Rule 6 for `sample_values`: `(sample_id, type)` unique, `type` not NA.
    fn value_key(&mut self, samples: &IdIndex) {
        let (Some(ids), Some(types)) = (
            self.int("sample_values", "sample_id"),
            self.chr("sample_values", "type"),
        ) else {
            return;
        };
        self.r.na_cells(
            "sample_values",
            "type",
            "must not be NA (it is part of the key (sample_id, type))",
            &types,
        );
        let mut type_index: HashMap<&str, u64> = HashMap::default();
        let mut seen: HashSet<(usize, u64)> = HashSet::default();
        let mut dups = Vec::new();
        for (row, (id, ty)) in ids.iter().zip(types.iter()).enumerate() {
            let (Some(sample), Some(ty)) = (id.and_then(|id| samples.row(id)), ty) else {
                continue;
            };
            let next = u64::try_from(type_index.len()).unwrap_or(u64::MAX);
            let ty_idx = *type_index.entry(ty.as_str()).or_insert(next);
            if !seen.insert((sample, ty_idx)) {
                dups.push((row, format!("({}, {ty:?})", id.unwrap_or_default())));
            }
        }
        self.r.rule(
            "sample_values",
            "type",
            "(sample_id, type) appears more than once",
            dups,
        );
    }

    /// Rules 6 and 7 for `sample_locations`: depth not NA, `(sample_id, depth)` unique, and the
    /// depths of each sample exactly `1..=n`. Checked per sample with one bit per row.
    fn depth_key(&mut self, samples: &IdIndex) {
        let (Some(ids), Some(depths)) = (
            self.int("sample_locations", "sample_id"),
            self.int("sample_locations", "depth"),
        ) else {
            return;
        };
        let sample_of = |row: usize| {
            ids.get(row)
                .copied()
                .flatten()
                .and_then(|id| samples.row(id))
        };
        let n_samples = (0..ids.len())
            .filter_map(sample_of)
            .max()
            .map_or(0, |m| m + 1);
        let mut count = vec![0usize; n_samples];
        for s in (0..ids.len()).filter_map(sample_of) {
            if let Some(c) = count.get_mut(s) {
                *c += 1;
            }
        }
        let mut offset = Vec::with_capacity(n_samples);
        let mut acc = 0usize;
        for c in &count {
            offset.push(acc);
            acc += c;
        }
        let mut taken = vec![false; acc];
        let mut issues = Vec::new();
        for (row, depth) in depths.iter().enumerate() {
            let Some(s) = sample_of(row) else { continue };
            let id = ids.get(row).copied().flatten().unwrap_or_default();
            let n = count.get(s).copied().unwrap_or(0);
            let Some(d) = *depth else {
                issues.push((row, "NA".to_owned(), "must not be NA".to_owned()));
                continue;
            };
            let slot = usize::try_from(d)
                .ok()
                .filter(|d| (1..=n).contains(d))
                .and_then(|d| taken.get_mut(offset.get(s)? + d - 1));
            match slot.map(|seen| std::mem::replace(seen, true)) {
                None => issues.push((
                    row,
                    d.to_string(),
                    format!(
                        "sample_id {id} has {n} rows, so its depths must run 1..{n} without gaps"
                    ),
                )),
                Some(true) => issues.push((
                    row,
                    d.to_string(),
                    format!("(sample_id, depth) = ({id}, {d}) appears more than once"),
                )),
                Some(false) => {}
            }
        }
        self.r.rule_with("sample_locations", "depth", issues);
    }

    /// Rule 8.
    fn non_negative(&mut self, table: &str, col: &str) {
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
    fn non_empty(&mut self, table: &str, col: &str) {
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

/// Duplicates (and NA, unless `na_ok`) in a key column. With `na_ok`, two NAs still count as
/// duplicates (R's `anyDuplicated`).
pub(crate) fn check_unique_ints(
    r: &mut Report,
    table: &str,
    col: &str,
    ids: &[Option<i32>],
    na_ok: bool,
) {
    if !na_ok {
        r.na_cells(table, col, "must not be NA", ids);
    }
    let mut seen = HashSet::default();
    let dups = ids
        .iter()
        .enumerate()
        .filter(|(_, id)| (na_ok || id.is_some()) && !seen.insert(**id))
        .map(|(i, id)| (i, id.map_or_else(|| "NA".to_owned(), |x| x.to_string())));
    let dups: Vec<_> = dups.collect();
    r.rule(table, col, "must be unique (primary key)", dups);
}

/// Rows of `ids` that do not resolve in `target` (NA allowed when `na_ok`).
pub(crate) fn check_foreign_key(
    r: &mut Report,
    table: &str,
    col: &str,
    ids: &[Option<i32>],
    target: &IdIndex,
    na_ok: bool,
) {
    let target_name = foreign_target(table, col);
    if !na_ok {
        r.na_cells(table, col, "must not be NA", ids);
    }
    let missing = ids
        .iter()
        .enumerate()
        .filter_map(|(i, id)| id.filter(|x| target.row(*x).is_none()).map(|x| (i, x)));
    r.rule(
        table,
        col,
        &format!("does not match any {target_name}"),
        missing.map(|(i, x)| (i, x.to_string())),
    );
}

fn foreign_target(table: &str, col: &str) -> String {
    match (table, col) {
        (_, "source_id") => "sources.source_id".to_owned(),
        (_, "sample_id") => "samples.sample_id".to_owned(),
        (_, "location_id") => "locations.location_id".to_owned(),
        (_, "function_id") => "functions.function_id".to_owned(),
        _ => format!("{table}.{col}"),
    }
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
