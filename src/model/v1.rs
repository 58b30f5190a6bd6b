//! The legacy v1 format (docs/model.md; `r-prof/profile`'s `profile_data`): validation, and the
//! conversions to and from v2.
//!
//! Rules checked by [`validate_v1`], in the order of docs/model.md (and of `validate_profile()` in
//! `r-prof/profile:R/api.R`, whose `stopifnot` semantics decide the NA cases):
//! 1. the tables are `meta`, `sample_types`, `samples`, `locations`, `functions` in this order;
//!    further components must start with a dot and come after them (they are ignored);
//! 2. each table has exactly its required columns first, in order and of the required types;
//!    further columns must start with a dot and come after them (they are ignored);
//! 3. `meta` has exactly one row, with key `version` and a value `package_version()` accepts
//!    (two or more numbers separated by `.` or `-`);
//! 4. `sample_types` has exactly one row, `samples` / `count`;
//! 5. `samples.value` is greater than zero (not NA);
//! 6. each `samples.locations` cell is a table with exactly one int column `location_id`, and
//!    each of its ids is a `locations.location_id` (NA only matches an NA id, as R's `%in%`);
//! 7. `locations.location_id` is unique (two NAs are duplicates, as R's `anyDuplicated`);
//!    `locations.function_id` is NA or a `functions.function_id`; `locations.line` is NA or
//!    non-negative;
//! 8. `functions.function_id` is unique; `name` and `system_name` are neither empty nor NA;
//!    `start_line` is non-negative (not NA).

use std::borrow::Cow;

use super::convert::{functions_table, locations_table};
use super::ids::*;
use super::logical::{Table, Tables, Values};
use super::profile::Profile;
use super::typing::{self, cell_text, chr_text};
use super::validate::{
    check_columns, check_foreign_key, check_non_empty, check_unique_ints, order_issues,
    validate_v2, ColType, IdIndex, Report, Violation, CHR, FUNCTIONS_COLUMNS, INT,
    LOCATIONS_COLUMNS, META_COLUMNS,
};
use crate::hash::HashMap;

/// The five v1 tables, in their required order.
pub const V1_TABLES: [&str; 5] = ["meta", "sample_types", "samples", "locations", "functions"];

/// The required columns of each v1 table, in order.
pub const V1_SCHEMA: [(&str, &[(&str, ColType)]); 5] = [
    ("meta", META_COLUMNS),
    ("sample_types", &[("type", CHR), ("unit", CHR)]),
    ("samples", &[("value", INT), ("locations", ColType::List)]),
    ("locations", LOCATIONS_COLUMNS),
    ("functions", FUNCTIONS_COLUMNS),
];

/// Most samples [`v2_from_v1`] expands a document to.
pub const MAX_EXPANDED_SAMPLES: usize = 50_000_000;
/// Most `sample_locations` rows [`v2_from_v1`] materializes.
pub const MAX_EXPANDED_LOCATION_ROWS: usize = 100_000_000;

/// The required columns of v1 table `name` (empty for a dotted component).
pub fn v1_required_columns(name: &str) -> &'static [(&'static str, ColType)] {
    V1_SCHEMA
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(&[], |(_, c)| c)
}

/// Validates a document by the rules of its `meta` version: `"2.0"` → [`validate_v2`], anything
/// else (or no version) → [`validate_v1`].
pub fn validate_profile(t: &Tables) -> Vec<Violation> {
    if t.version() == Some("2.0") {
        validate_v2(t)
    } else {
        validate_v1(t)
    }
}

/// Validates a v1 document (see the module doc for the rules). Returns every violation.
pub fn validate_v1(t: &Tables) -> Vec<Violation> {
    let mut r = Report::default();
    let names = t.names();
    for issue in order_issues(&names, &V1_TABLES, "table") {
        r.table(&issue.name, issue.message);
    }
    let mut sound: HashMap<&str, &Table> = HashMap::default();
    for (name, required) in V1_SCHEMA {
        if let Some(table) = t.table(name) {
            if check_columns(&mut r, name, table, required) {
                sound.insert(name, table);
            }
        }
    }
    if let Some(meta) = sound.get("meta") {
        check_v1_meta(&mut r, meta);
    }
    if let Some(st) = sound.get("sample_types") {
        check_v1_sample_types(&mut r, st);
    }
    let locations = sound
        .get("locations")
        .map(|l| check_v1_locations(&mut r, l, sound.get("functions").copied()));
    if let Some(samples) = sound.get("samples") {
        check_v1_samples(&mut r, samples, locations.as_ref());
    }
    if let Some(functions) = sound.get("functions") {
        check_v1_functions(&mut r, functions);
    }
    r.out
}

fn check_one_row(r: &mut Report, name: &str, t: &Table) {
    if t.nrow() != 1 {
        r.table(
            name,
            format!("must have exactly one row (found {})", t.nrow()),
        );
    }
}

/// Each cell of `col` must equal `expected`.
fn check_equals(r: &mut Report, name: &str, t: &Table, col: &str, expected: &str) {
    let Some(cells) = typing::chr_column(t, col) else {
        return;
    };
    let bad = cells
        .iter()
        .enumerate()
        .filter(|(_, c)| c.as_deref() != Some(expected))
        .map(|(i, c)| (i, chr_text(c.as_deref())));
    r.rule(name, col, &format!("must be \"{expected}\""), bad);
}

/// `package_version()`'s syntax: `[0-9]+([.-][0-9]+)+`.
pub fn is_package_version(s: &str) -> bool {
    let parts: Vec<&str> = s.split(['.', '-']).collect();
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

fn check_v1_meta(r: &mut Report, meta: &Table) {
    check_one_row(r, "meta", meta);
    check_equals(r, "meta", meta, "key", "version");
    let Some(values) = typing::chr_column(meta, "value") else {
        return;
    };
    let bad = values
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.as_deref().is_some_and(is_package_version))
        .map(|(i, v)| (i, chr_text(v.as_deref())));
    r.rule(
        "meta",
        "value",
        "must be a version package_version() accepts, such as \"1.0\"",
        bad,
    );
}

fn check_v1_sample_types(r: &mut Report, st: &Table) {
    check_one_row(r, "sample_types", st);
    check_equals(r, "sample_types", st, "type", "samples");
    check_equals(r, "sample_types", st, "unit", "count");
}

/// Rule 7; returns the index of `location_id` for rule 6.
fn check_v1_locations(r: &mut Report, l: &Table, functions: Option<&Table>) -> LocationIds {
    let name = "locations";
    let ids = typing::int_column(l, "location_id").unwrap_or_default();
    check_unique_ints(r, name, "location_id", &ids, true);
    if let (Some(fids), Some(target)) = (
        typing::int_column(l, "function_id"),
        functions.and_then(|f| typing::int_column(f, "function_id")),
    ) {
        check_foreign_key(r, name, "function_id", &fids, &IdIndex::new(&target), true);
    }
    if let Some(lines) = typing::int_column(l, "line") {
        let bad = lines.iter().enumerate().filter_map(|(i, x)| match x {
            Some(x) if *x < 0 => Some((i, x.to_string())),
            _ => None,
        });
        r.rule(name, "line", "must be non-negative or NA", bad);
    }
    LocationIds {
        has_na: ids.iter().any(Option::is_none),
        index: IdIndex::new(&ids),
    }
}

struct LocationIds {
    index: IdIndex,
    has_na: bool,
}

impl LocationIds {
    fn contains(&self, id: Option<i32>) -> bool {
        id.map_or(self.has_na, |id| self.index.row(id).is_some())
    }
}

/// Rules 5 and 6.
fn check_v1_samples(r: &mut Report, s: &Table, locations: Option<&LocationIds>) {
    if let Some(values) = typing::int_column(s, "value") {
        let bad = values
            .iter()
            .enumerate()
            .filter(|(_, v)| !v.is_some_and(|v| v > 0))
            .map(|(i, v)| (i, v.map_or_else(|| "NA".to_owned(), |v| v.to_string())));
        r.rule("samples", "value", "must be greater than zero", bad);
    }
    let Some(Values::List(cells)) = s.column("locations") else {
        return;
    };
    let mut shape = Vec::new();
    let mut unresolved = Vec::new();
    for (row, cell) in cells.iter().enumerate() {
        match stack_ids(cell.as_ref()) {
            Err(message) => shape.push((
                row,
                cell_text(&Values::List(vec![cell.clone()]), 0),
                message,
            )),
            Ok(ids) => {
                let missing = ids
                    .iter()
                    .find(|id| !locations.is_some_and(|l| l.contains(**id)));
                if let (Some(id), Some(_)) = (missing, locations) {
                    let text = id.map_or_else(|| "NA".to_owned(), |x| x.to_string());
                    unresolved.push((row, text));
                }
            }
        }
    }
    r.rule_with("samples", "locations", shape);
    r.rule(
        "samples",
        "locations",
        "location_id does not match any locations.location_id",
        unresolved,
    );
}

/// The location ids of one `samples.locations` cell, or why the cell is not a table with
/// exactly one int column `location_id`.
fn stack_ids(cell: Option<&Table>) -> Result<Cow<'_, [Option<i32>]>, String> {
    let shape = "must be a table with exactly one int column, location_id";
    let Some(t) = cell else {
        return Err(format!("{shape} (found NULL)"));
    };
    match t.columns.as_slice() {
        [(name, v)] if name == "location_id" => {
            typing::int_cells(v).map_err(|m| format!("location_id {}", m.message))
        }
        _ => Err(format!("{shape} (found columns {})", t.names().join(", "))),
    }
}

/// Rule 8.
fn check_v1_functions(r: &mut Report, f: &Table) {
    let name = "functions";
    if let Some(ids) = typing::int_column(f, "function_id") {
        check_unique_ints(r, name, "function_id", &ids, true);
    }
    for col in ["name", "system_name"] {
        if let Some(cells) = typing::chr_column(f, col) {
            check_non_empty(r, name, col, &cells);
        }
    }
    if let Some(starts) = typing::int_column(f, "start_line") {
        let bad = starts
            .iter()
            .enumerate()
            .filter(|(_, x)| !x.is_some_and(|x| x >= 0))
            .map(|(i, x)| (i, x.map_or_else(|| "NA".to_owned(), |x| x.to_string())));
        r.rule(name, "start_line", "must be non-negative", bad);
    }
}

/// The `source_type` of a converted v1 document (docs/model.md: "inferred from the hidden `.rprof`
/// or `.msg` component"): `rprof` with a `.rprof` component, `pprof` with a `.msg` component
/// (the pprof message `read_pprof()` keeps), whichever comes first; `manual` without either.
pub fn v1_source_type(t: &Tables) -> &'static str {
    t.names()
        .iter()
        .find_map(|n| match *n {
            ".rprof" => Some("rprof"),
            ".msg" => Some("pprof"),
            _ => None,
        })
        .unwrap_or("manual")
}

/// The samples of a valid v1 document: counts, stacks (inner-first ids) and dotted columns.
pub(crate) struct V1Samples<'a> {
    pub(crate) counts: Vec<usize>,
    pub(crate) stacks: Vec<Cow<'a, [Option<i32>]>>,
    pub(crate) ext: Vec<(&'a str, &'a Values)>,
}

/// The samples of a document that passed [`validate_v1`].
pub(crate) fn v1_samples(t: &Tables) -> Result<V1Samples<'_>, Vec<Violation>> {
    let broken = |what: &str| {
        vec![Violation::new(
            "samples",
            Some(what),
            None,
            None,
            "is malformed",
        )]
    };
    let s = t.table("samples").ok_or_else(|| broken("value"))?;
    let values = typing::int_column(s, "value").ok_or_else(|| broken("value"))?;
    let counts = values
        .iter()
        .map(|v| v.and_then(|v| usize::try_from(v).ok()).unwrap_or(0))
        .collect();
    let Some(Values::List(cells)) = s.column("locations") else {
        return Err(broken("locations"));
    };
    let stacks = cells
        .iter()
        .map(|c| stack_ids(c.as_ref()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| broken("locations"))?;
    let ext = s
        .columns
        .iter()
        .skip(2)
        .map(|(n, v)| (n.as_str(), v))
        .collect();
    Ok(V1Samples {
        counts,
        stacks,
        ext,
    })
}

/// Fails when expanding gives more than `max_samples` samples or `max_rows` `sample_locations`
/// rows.
pub(crate) fn check_expansion(
    s: &V1Samples<'_>,
    max_samples: usize,
    max_rows: usize,
) -> Result<(), Vec<Violation>> {
    let samples: u128 = s.counts.iter().map(|&c| c as u128).sum();
    let rows: u128 = s
        .counts
        .iter()
        .zip(&s.stacks)
        .map(|(&c, st)| c as u128 * st.len() as u128)
        .sum();
    let over = |n: u128, max: usize, what: &str| {
        vec![Violation::new(
            "samples",
            Some("value"),
            None,
            None,
            format!("expanding gives {n} {what}, more than the limit of {max}"),
        )]
    };
    if samples > max_samples as u128 {
        return Err(over(samples, max_samples, "samples"));
    }
    if rows > max_rows as u128 {
        return Err(over(rows, max_rows, "sample_locations rows"));
    }
    Ok(())
}

/// Each cell repeated `counts[row]` times.
pub(crate) fn repeat_values(v: &Values, counts: &[usize]) -> Values {
    fn rep<T: Clone>(cells: &[T], counts: &[usize]) -> Vec<T> {
        cells
            .iter()
            .zip(counts)
            .flat_map(|(c, &n)| std::iter::repeat_n(c, n).cloned())
            .collect()
    }
    match v {
        Values::Int(c) => Values::Int(rep(c, counts)),
        Values::Dbl(c) => Values::Dbl(rep(c, counts)),
        Values::Chr(c) => Values::Chr(rep(c, counts)),
        Values::Lgl(c) => Values::Lgl(rep(c, counts)),
        Values::U64(c) => Values::U64(rep(c, counts)),
        Values::List(c) => Values::List(rep(c, counts)),
    }
}

/// The v1 `meta` table with the version set to `"2.0"` (docs/model.md, v1 to v2 step 6); other columns kept.
pub(crate) fn meta_v2_from_v1(meta: &Table) -> Table {
    let mut out = meta.clone();
    let keys: Vec<bool> = typing::chr_column(meta, "key")
        .map(|k| k.iter().map(|k| k.as_deref() == Some("version")).collect())
        .unwrap_or_default();
    if let Some(Values::Chr(values)) = out.column_mut("value") {
        for (v, is_version) in values.iter_mut().zip(keys) {
            if is_version {
                *v = Some("2.0".to_owned());
            }
        }
    }
    out
}

/// A table with its required columns converted to their exact types and its dotted columns
/// as they are.
fn typed_copy(t: &Table, required: &[(&str, ColType)]) -> Table {
    let columns = t
        .columns
        .iter()
        .map(|(name, v)| {
            let kind = required
                .iter()
                .find(|(c, _)| c == name)
                .and_then(|(_, ty)| match ty {
                    ColType::Kind(k) => Some(*k),
                    ColType::List => None,
                });
            let v = kind
                .and_then(|k| typing::coerce(v, k).ok())
                .unwrap_or_else(|| v.clone());
            (name.clone(), v)
        })
        .collect();
    Table::new(columns)
}

fn int_col(name: &str, cells: Vec<Option<i32>>) -> (String, Values) {
    (name.to_owned(), Values::Int(cells))
}

/// Converts a v1 document to v2 exactly as docs/model.md prescribes: one `sources` row whose
/// `source_type` is [`v1_source_type`] and whose `source_uri` and `source_timestamp` are NA;
/// each sample repeated `value` times with ids `1..=n`; one `samples`/`count` value of 1 per
/// sample; `sample_locations` from each sample's `locations` with depth = row position;
/// `locations` and `functions` copied unchanged; `meta` version set to `"2.0"`. Dotted columns
/// of `samples` are repeated with their sample; dotted components are dropped. Fails when the
/// input breaks a v1 rule, when expanding exceeds [`MAX_EXPANDED_SAMPLES`] or
/// [`MAX_EXPANDED_LOCATION_ROWS`], or when the result breaks a v2 rule (an NA key v1 allows).
pub fn v2_from_v1(t: &Tables) -> Result<Tables, Vec<Violation>> {
    let errors = validate_v1(t);
    if !errors.is_empty() {
        return Err(errors);
    }
    let s = v1_samples(t)?;
    check_expansion(&s, MAX_EXPANDED_SAMPLES, MAX_EXPANDED_LOCATION_ROWS)?;
    let get = |name: &str| t.table(name).cloned().unwrap_or_default();
    let n: usize = s.counts.iter().sum();
    let ids: Vec<Option<i32>> = (0..n).map(super::convert::row_id).collect();
    let mut samples = vec![
        int_col("sample_id", ids.clone()),
        int_col("source_id", vec![Some(1); n]),
    ];
    samples.extend(
        s.ext
            .iter()
            .map(|(c, v)| ((*c).to_owned(), repeat_values(v, &s.counts))),
    );
    let tables = vec![
        ("meta".to_owned(), meta_v2_from_v1(&get("meta"))),
        ("sources".to_owned(), one_source(v1_source_type(t))),
        ("samples".to_owned(), Table::new(samples)),
        ("sample_values".to_owned(), count_values(ids)),
        ("sample_locations".to_owned(), expanded_locations(&s)),
        (
            "locations".to_owned(),
            typed_copy(&get("locations"), v1_required_columns("locations")),
        ),
        (
            "functions".to_owned(),
            typed_copy(&get("functions"), v1_required_columns("functions")),
        ),
    ];
    let out = Tables { tables };
    let errors = validate_v2(&out);
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn one_source(source_type: &str) -> Table {
    Table::new(vec![
        int_col("source_id", vec![Some(1)]),
        (
            "source_type".to_owned(),
            Values::Chr(vec![Some(source_type.to_owned())]),
        ),
        ("source_uri".to_owned(), Values::Chr(vec![None])),
        ("source_timestamp".to_owned(), Values::Dbl(vec![None])),
    ])
}

fn count_values(ids: Vec<Option<i32>>) -> Table {
    let n = ids.len();
    Table::new(vec![
        int_col("sample_id", ids),
        (
            "type".to_owned(),
            Values::Chr(vec![Some("samples".to_owned()); n]),
        ),
        (
            "unit".to_owned(),
            Values::Chr(vec![Some("count".to_owned()); n]),
        ),
        ("value".to_owned(), Values::Dbl(vec![Some(1.0); n])),
    ])
}

fn expanded_locations(s: &V1Samples<'_>) -> Table {
    let (mut ids, mut depths, mut locs) = (Vec::new(), Vec::new(), Vec::new());
    let mut next = 0usize;
    for (&count, stack) in s.counts.iter().zip(&s.stacks) {
        for _ in 0..count {
            let id = super::convert::row_id(next);
            next += 1;
            for (d, loc) in stack.iter().enumerate() {
                ids.push(id);
                depths.push(super::convert::row_id(d));
                locs.push(*loc);
            }
        }
    }
    Table::new(vec![
        int_col("sample_id", ids),
        int_col("depth", depths),
        int_col("location_id", locs),
    ])
}

/// Converts a profile to v1: one `samples` row per distinct stack (in order of first
/// appearance) whose `value` sums the `samples` values of its samples; `locations` and
/// `functions` with their dotted columns (an NA `start_line` becomes 0, v1's "unknown");
/// `meta` version `"1.0"`; `sample_types` `samples`/`count`. Samples without a `samples`
/// value count 0, and stacks whose sum is 0 are left out (v1 values are > 0). Fails when the result would break a v1 rule (only for a
/// profile that is itself invalid), when the profile has samples but no value type
/// `samples` with unit `count` (v1 holds only that one), or when a value is negative, not an
/// integer, or a sum exceeds the int range.
pub fn v1_from_v2(p: &Profile) -> Result<Tables, String> {
    let counts = v1_counts(p)?;
    let mut order: Vec<u32> = Vec::new();
    let mut sums: HashMap<u32, i64> = HashMap::default();
    for (s, &stack) in p.samples.stack.iter().enumerate() {
        let c = counts.get(s).copied().unwrap_or(0);
        if c == 0 {
            continue;
        }
        let sum = sums.entry(stack).or_insert_with(|| {
            order.push(stack);
            0
        });
        *sum += c;
        if *sum > i64::from(i32::MAX) {
            return Err(format!(
                "the samples of one stack sum to more than {}, beyond v1's int values",
                i32::MAX
            ));
        }
    }
    let values = order
        .iter()
        .map(|s| sums.get(s).and_then(|&v| i32::try_from(v).ok()))
        .collect();
    let stacks = order.iter().map(|&s| Some(stack_table(p, s))).collect();
    let chr1 = |s: &str| Values::Chr(vec![Some(s.to_owned())]);
    let t = Tables {
        tables: vec![
            (
                "meta".to_owned(),
                Table::new(vec![
                    ("key".to_owned(), chr1("version")),
                    ("value".to_owned(), chr1("1.0")),
                ]),
            ),
            (
                "sample_types".to_owned(),
                Table::new(vec![
                    ("type".to_owned(), chr1("samples")),
                    ("unit".to_owned(), chr1("count")),
                ]),
            ),
            (
                "samples".to_owned(),
                Table::new(vec![
                    ("value".to_owned(), Values::Int(values)),
                    ("locations".to_owned(), Values::List(stacks)),
                ]),
            ),
            ("locations".to_owned(), locations_table(p)),
            ("functions".to_owned(), v1_functions(p)),
        ],
    };
    // A valid v2 profile always gives a valid v1 document; an invalid one (e.g. an empty
    // function name) is refused rather than written broken.
    match validate_v1(&t).first() {
        None => Ok(t),
        Some(v) => Err(format!("the profile breaks a v1 rule: {v}")),
    }
}

/// `functions` with NA `start_line` written as 0, v1's "unknown" (v1 allows no NA there).
fn v1_functions(p: &Profile) -> Table {
    let mut t = functions_table(p);
    if let Some(Values::Int(starts)) = t.column_mut("start_line") {
        starts.iter_mut().for_each(|s| *s = Some(s.unwrap_or(0)));
    }
    t
}

/// The `samples` count of each sample as an integer (0 when absent).
fn v1_counts(p: &Profile) -> Result<Vec<i64>, String> {
    if p.num_samples() == 0 {
        return Ok(Vec::new());
    }
    let types: Vec<String> = (0..p.values.len())
        .map(|i| {
            let (t, u) = p.value_type_names(ValueTypeIndex(u32::try_from(i).unwrap_or(u32::MAX)));
            format!("{t}/{u}")
        })
        .collect();
    let vt = p
        .value_type_index("samples")
        .filter(|&vt| p.value_type_names(vt).1 == "count");
    let column = vt.and_then(|vt| p.value_column(vt)).ok_or_else(|| {
        format!(
            "v1 holds only the value type samples/count; this profile has {}",
            if types.is_empty() {
                "no value types".to_owned()
            } else {
                types.join(", ")
            }
        )
    })?;
    (0..p.num_samples())
        .map(|s| match column.get(s) {
            None => Ok(0),
            Some(v) if v.fract() == 0.0 && (0.0..=f64::from(i32::MAX)).contains(&v) =>
            {
                #[allow(clippy::cast_possible_truncation)]
                Ok(v as i64)
            }
            Some(v) => Err(format!(
                "sample {} has samples/count value {v}; v1 counts must be non-negative integers",
                s + 1
            )),
        })
        .collect()
}

/// The `location_id`s of a stack, innermost first, as a one-column table.
fn stack_table(p: &Profile, stack: u32) -> Table {
    let ids = p
        .frames_leaf_first(decode_opt(stack).map(StackIndex))
        .map(|l| super::convert::row_id(l.idx()))
        .collect();
    Table::new(vec![int_col("location_id", ids)])
}
