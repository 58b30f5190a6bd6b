//! v1 ↔ v2: a v1 document becomes one source whose samples are the v1 samples repeated
//! `value` times (ids `1..=n`, one `samples`/`count` of 1 each), and a v2 profile becomes v1 by
//! summing its sample counts per stack (docs/model.md).
//!
//! Expansion is bounded ([`MAX_EXPANDED_SAMPLES`], [`MAX_EXPANDED_LOCATION_ROWS`]); the
//! conversion refuses a profile v1 cannot hold (no `samples`/`count` type, negative or
//! fractional counts, sums beyond the int range).

use std::borrow::Cow;

use super::super::convert::{functions_table, locations_table};
use super::super::ids::*;
use super::super::logical::{Table, Tables, Values};
use super::super::profile::Profile;
use super::super::typing;
use super::super::validate::{validate_v2, ColType, Violation};
use crate::hash::HashMap;

use super::*;

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
    let ids: Vec<Option<i32>> = (0..n).map(super::super::convert::row_id).collect();
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
            let id = super::super::convert::row_id(next);
            next += 1;
            for (d, loc) in stack.iter().enumerate() {
                ids.push(id);
                depths.push(super::super::convert::row_id(d));
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
                "sample {} has samples/count value {v}; v1 counts must be integers from 0 to \
                 2147483647 (R's integer range)",
                s + 1
            )),
        })
        .collect()
}

/// The `location_id`s of a stack, innermost first, as a one-column table.
fn stack_table(p: &Profile, stack: u32) -> Table {
    let ids = p
        .frames_leaf_first(decode_opt(stack).map(StackIndex))
        .map(|l| super::super::convert::row_id(l.idx()))
        .collect();
    Table::new(vec![int_col("location_id", ids)])
}
