//! The plan of a combination, decided before any row is copied: the union schema of every
//! extension column and table, the union of the value types, and the id spaces of extension
//! tables with the shift each input's ids get.
//!
//! Schemas keep columns in order of first appearance; two kinds of one column unify to `dbl`
//! (int and dbl) or `chr` (any other clash).

use super::super::builder::ModelError;
use super::super::columns::{Cell, Column, ColumnData, ColumnKind, ExtColumns};
use super::super::ids::INT_NA;
use super::super::profile::Profile;

/// The logical tables an id column can refer to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IdSpace {
    Sample,
    Location,
    Function,
    Source,
    /// An extension table's own ids, by the index of its key column name in [`Plan::own_keys`].
    Own(usize),
}

/// What is decided before any row is copied: the unified schemas, the value types and the id
/// spaces of extension tables.
pub(super) struct Plan {
    pub(super) sources: Schema,
    pub(super) samples: Schema,
    pub(super) functions: Schema,
    pub(super) locations: Schema,
    /// Extension tables by name, in order of first appearance.
    pub(super) tables: Vec<(String, Schema)>,
    /// `(type, unit)` of every value type, in order of first appearance.
    pub(super) value_types: Vec<(String, String)>,
    /// Key column names of extension tables with their own id space (`mapping_id`, …).
    pub(super) own_keys: Vec<String>,
    /// Per input, per own key, the shift applied to its ids.
    pub(super) own_shifts: Vec<Vec<i128>>,
}

impl Plan {
    pub(super) fn new(profiles: &[Profile]) -> Result<Plan, ModelError> {
        let mut tables: Vec<(String, Schema)> = Vec::new();
        for p in profiles {
            for t in &p.ext_tables {
                match tables.iter_mut().find(|(n, _)| *n == t.name) {
                    Some((_, s)) => s.add(&t.columns),
                    None => tables.push((t.name.clone(), Schema::of(&t.columns))),
                }
            }
        }
        let own_keys = own_key_columns(&tables);
        let own_shifts = own_id_shifts(profiles, &own_keys);
        Ok(Plan {
            sources: Schema::union(profiles.iter().map(|p| &p.sources.ext)),
            samples: Schema::union(profiles.iter().map(|p| &p.samples.ext)),
            functions: Schema::union(profiles.iter().map(|p| &p.functions.ext)),
            locations: Schema::union(profiles.iter().map(|p| &p.locations.ext)),
            tables,
            value_types: union_value_types(profiles)?,
            own_keys,
            own_shifts,
        })
    }

    /// The id space of a column called `name` (a leading dot is ignored).
    pub(super) fn id_space(&self, name: &str) -> Option<IdSpace> {
        let bare = name.strip_prefix('.').unwrap_or(name);
        Some(match bare {
            "sample_id" => IdSpace::Sample,
            "location_id" => IdSpace::Location,
            "function_id" => IdSpace::Function,
            "source_id" => IdSpace::Source,
            _ => IdSpace::Own(self.own_keys.iter().position(|k| k == bare)?),
        })
    }
}

/// Key columns of extension tables that define their own ids: table `xs` with column `x_id`.
fn own_key_columns(tables: &[(String, Schema)]) -> Vec<String> {
    let logical = ["sample_id", "location_id", "function_id", "source_id"];
    tables
        .iter()
        .filter_map(|(name, schema)| {
            let key = format!("{}_id", name.strip_suffix('s')?);
            let has = schema.columns.iter().any(|(c, _)| *c == key);
            (has && !logical.contains(&key.as_str())).then_some(key)
        })
        .collect()
}

/// For every input and own key, the largest id of that space in the earlier inputs (after their
/// own shifts), so that shifted ids never collide.
fn own_id_shifts(profiles: &[Profile], own_keys: &[String]) -> Vec<Vec<i128>> {
    let mut running = vec![0i128; own_keys.len()];
    let mut shifts = Vec::with_capacity(profiles.len());
    for p in profiles {
        shifts.push(running.clone());
        for (k, key) in own_keys.iter().enumerate() {
            let table = format!("{}s", key.strip_suffix("_id").unwrap_or(key));
            let max = p
                .ext_table(&table)
                .and_then(|t| t.columns.get(key))
                .and_then(max_integer);
            if let Some(m) = max {
                running[k] = running[k].max(m + shifts.last().map_or(0, |s| s[k]));
            }
        }
    }
    shifts
}

/// The largest integer value of a numeric column.
fn max_integer(col: &ColumnData) -> Option<i128> {
    (0..col.len())
        .filter_map(|r| col.cell(r).and_then(integer_of))
        .max()
}

/// The integer value of a numeric cell (`None` for NA, text or a fraction).
pub(super) fn integer_of(cell: Cell) -> Option<i128> {
    match cell {
        Cell::Int(v) if v != INT_NA => Some(i128::from(v)),
        Cell::U64(Some(v)) => Some(i128::from(v)),
        Cell::Dbl(v) if v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15 => Some(v as i128),
        _ => None,
    }
}

fn union_value_types(profiles: &[Profile]) -> Result<Vec<(String, String)>, ModelError> {
    let mut types: Vec<(String, String)> = Vec::new();
    for p in profiles {
        for c in &p.values {
            let (t, u) = (p.str(c.value_type), p.str(c.unit));
            match types.iter().find(|(known, _)| known == t) {
                Some((_, unit)) if unit != u => {
                    return Err(ModelError {
                        place: "sample_values.unit".to_owned(),
                        problem: format!(
                            "value type {t:?} has unit {unit:?} in one profile and {u:?} in \
                             another; convert one of them first"
                        ),
                    })
                }
                Some(_) => {}
                None => types.push((t.to_owned(), u.to_owned())),
            }
        }
    }
    Ok(types)
}

/// The unified extension columns of one table: names in order of first appearance, kinds
/// reconciled by [`unify_kinds`].
#[derive(Default)]
pub(super) struct Schema {
    pub(super) columns: Vec<(String, ColumnKind)>,
}

impl Schema {
    fn of(ext: &ExtColumns) -> Schema {
        let mut s = Schema::default();
        s.add(ext);
        s
    }

    fn union<'a>(exts: impl Iterator<Item = &'a ExtColumns>) -> Schema {
        let mut s = Schema::default();
        for e in exts {
            s.add(e);
        }
        s
    }

    fn add(&mut self, ext: &ExtColumns) {
        for c in &ext.columns {
            let kind = c.data.kind();
            match self.columns.iter_mut().find(|(n, _)| *n == c.name) {
                Some((_, k)) => *k = unify_kinds(*k, kind),
                None => self.columns.push((c.name.clone(), kind)),
            }
        }
    }

    /// Empty output columns of this schema.
    pub(super) fn empty_columns(&self) -> ExtColumns {
        ExtColumns {
            columns: self
                .columns
                .iter()
                .map(|(name, kind)| Column {
                    name: name.clone(),
                    data: ColumnData::empty(*kind),
                })
                .collect(),
        }
    }
}

/// The kind that holds cells of both kinds: the same kind, `dbl` for `int` with `dbl`, else `chr`.
fn unify_kinds(a: ColumnKind, b: ColumnKind) -> ColumnKind {
    use ColumnKind::*;
    match (a, b) {
        _ if a == b => a,
        (Int, Dbl) | (Dbl, Int) => Dbl,
        _ => Chr,
    }
}
