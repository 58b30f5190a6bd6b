//! From logical tables to a physical [`Profile`]: [`profile_from_tables`] for v2 documents and
//! [`profile_from_v1`] for v1 documents (the same profile as
//! `profile_from_tables(&v2_from_v1(t)?)`, built without materializing the expanded tables).
//!
//! Ids may be any integers: they are mapped to rows. Rows keep their order (samples too), so
//! logical ids of the result are the row positions. Extension columns are restored with the
//! type [`COLUMN_TYPES_TABLE`] names, else the agreed type of a well-known column
//! (`samples..time` dbl, `locations..address` u64, `locations..frame_type` chr), else the type
//! the column arrived with. Dropped
//! (listed by [`unkept_parts`]): dotted columns of `meta`, `sample_values` and
//! `sample_locations`, which the physical model has no place for, and list columns.

use std::borrow::Cow;

use super::builder::{check_invariants, ProfileBuilder};
use super::columns::{Column, ColumnData, ColumnKind, ExtColumns};
use super::convert::{COLUMN_TYPES_TABLE, RESERVED_TABLES, VALUE_TYPES_TABLE};
use super::ext;
use super::ids::*;
use super::logical::{Table, Tables, Values};
use super::profile::*;
use super::typing::{self, chr_text, natural_kind};
use super::v1::{self, V1Samples};
use super::validate::{v2_required_columns, validate_v2, IdIndex, Violation, V2_TABLES};
use crate::hash::HashMap;

type Res<T> = Result<T, Vec<Violation>>;

fn one(
    table: &str,
    column: Option<&str>,
    row0: Option<usize>,
    message: impl Into<String>,
) -> Vec<Violation> {
    vec![Violation::new(
        table,
        column,
        row0.map(|r| r + 1),
        None,
        message,
    )]
}

fn table<'a>(t: &'a Tables, name: &str) -> Res<&'a Table> {
    t.table(name)
        .ok_or_else(|| one(name, None, None, "required table is missing"))
}

fn int<'a>(t: &'a Table, table: &str, col: &str) -> Res<Cow<'a, [Option<i32>]>> {
    typing::int_column(t, col).ok_or_else(|| one(table, Some(col), None, "must be an int column"))
}

fn dbl<'a>(t: &'a Table, table: &str, col: &str) -> Res<Cow<'a, [Option<f64>]>> {
    typing::dbl_column(t, col).ok_or_else(|| one(table, Some(col), None, "must be a dbl column"))
}

fn chr<'a>(t: &'a Table, table: &str, col: &str) -> Res<Cow<'a, [Option<String>]>> {
    typing::chr_column(t, col).ok_or_else(|| one(table, Some(col), None, "must be a chr column"))
}

fn to_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(NO_INDEX)
}

/// Builds a v2 profile from a v2 document. Validates it first ([`validate_v2`]); further
/// violations are a malformed [`COLUMN_TYPES_TABLE`] or [`VALUE_TYPES_TABLE`], an extension
/// column that does not hold the type `column_types` names, and a value type with two units
/// (the physical model keeps one unit per type).
pub fn profile_from_tables(t: &Tables) -> Res<Profile> {
    let errors = validate_v2(t);
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut l = Loader::new(ColumnKinds::read(t)?);
    l.load_meta(table(t, "meta")?)?;
    l.load_sources(table(t, "sources")?)?;
    l.load_functions(table(t, "functions")?)?;
    l.load_locations(table(t, "locations")?)?;
    l.load_samples(table(t, "samples")?, table(t, "sample_locations")?)?;
    l.load_values(table(t, "sample_values")?, t.table(VALUE_TYPES_TABLE))?;
    l.load_ext_tables(t)?;
    l.finish()
}

/// Builds a v2 profile from a v1 document exactly as [`v1::v2_from_v1`] converts it, without
/// materializing the expanded `samples`, `sample_values` and `sample_locations`. Fails on a
/// violation of the v1 rules (docs/model.md) or when expanding would give more than `max_samples` samples.
pub fn profile_from_v1(t: &Tables, max_samples: usize) -> Res<Profile> {
    let errors = v1::validate_v1(t);
    if !errors.is_empty() {
        return Err(errors);
    }
    let samples = v1::v1_samples(t)?;
    v1::check_expansion(&samples, max_samples, usize::MAX)?;
    let mut l = Loader::new(ColumnKinds::default());
    l.load_meta(&v1::meta_v2_from_v1(table(t, "meta")?))?;
    let source = l.b.add_source(v1::v1_source_type(t), None, None);
    l.load_functions(table(t, "functions")?)?;
    l.load_locations(table(t, "locations")?)?;
    l.load_v1_samples(&samples, source)?;
    l.finish()
}

/// What [`profile_from_tables`] / [`profile_from_v1`] do not keep of a document, as
/// `table.column` or `table` names: dotted columns of `meta`, `sample_values`,
/// `sample_locations` (v1: `meta`, `sample_types`), list-typed extension columns, and in v1
/// the dotted components (docs/model.md: "permitted … but will be ignored").
pub fn unkept_parts(t: &Tables) -> Vec<String> {
    let v2 = t.version() == Some("2.0");
    let unkept_tables: &[&str] = if v2 {
        &["meta", "sample_values", "sample_locations"]
    } else {
        &["meta", "sample_types"]
    };
    let mut out = Vec::new();
    for (name, table) in &t.tables {
        if !v2 && name.starts_with('.') {
            out.push(name.clone());
            continue;
        }
        let required = if v2 {
            v2_required_columns(name).len()
        } else {
            v1::v1_required_columns(name).len()
        };
        for (col, values) in table.columns.iter().skip(required) {
            if unkept_tables.contains(&name.as_str()) || matches!(values, Values::List(_)) {
                out.push(format!("{name}.{col}"));
            }
        }
    }
    out
}

/// The type of the extension columns proftab's readers agree on, for documents without a
/// [`COLUMN_TYPES_TABLE`] entry (e.g. written by R, where `.time = c(0, 1)` arrives as ints).
fn known_kind(table: &str, column: &str) -> Option<ColumnKind> {
    match (table, column) {
        ("samples", SAMPLE_TIME) => Some(ColumnKind::Dbl),
        ("locations", ext::locations::ADDRESS) => Some(ColumnKind::U64),
        ("locations", ext::locations::FRAME_TYPE) => Some(ColumnKind::Chr),
        _ => None,
    }
}

/// The types [`COLUMN_TYPES_TABLE`] names, by `(table, column)`.
#[derive(Default)]
struct ColumnKinds(HashMap<(String, String), ColumnKind>);

impl ColumnKinds {
    fn read(t: &Tables) -> Res<Self> {
        let Some(ct) = t.table(COLUMN_TYPES_TABLE) else {
            return Ok(Self::default());
        };
        let name = COLUMN_TYPES_TABLE;
        let (tables, columns, types) = (
            chr(ct, name, "table")?,
            chr(ct, name, "column")?,
            chr(ct, name, "type")?,
        );
        let mut map = HashMap::default();
        for (row, ((tb, c), ty)) in tables
            .iter()
            .zip(columns.iter())
            .zip(types.iter())
            .enumerate()
        {
            let kind = ty
                .as_deref()
                .and_then(ColumnKind::from_name)
                .ok_or_else(|| {
                    vec![Violation::new(
                        name,
                        Some("type"),
                        Some(row + 1),
                        Some(format!("{ty:?}")),
                        "must be one of int, dbl, chr, lgl, u64",
                    )]
                })?;
            if let (Some(tb), Some(c)) = (tb, c) {
                map.insert((tb.clone(), c.clone()), kind);
            }
        }
        Ok(ColumnKinds(map))
    }

    fn get(&self, table: &str, column: &str) -> Option<ColumnKind> {
        self.0.get(&(table.to_owned(), column.to_owned())).copied()
    }
}

struct Loader {
    b: ProfileBuilder,
    kinds: ColumnKinds,
    meta: MetaTable,
    sources: IdIndex,
    functions: IdIndex,
    locations: IdIndex,
    samples: IdIndex,
    na_units: Vec<ValueTypeIndex>,
}

impl Loader {
    fn new(kinds: ColumnKinds) -> Self {
        Loader {
            b: ProfileBuilder::default(),
            kinds,
            meta: MetaTable::default(),
            sources: IdIndex::Dense(0),
            functions: IdIndex::Dense(0),
            locations: IdIndex::Dense(0),
            samples: IdIndex::Dense(0),
            na_units: Vec::new(),
        }
    }

    fn intern(&mut self, s: &Option<String>) -> StringId {
        self.b.strings().intern_opt(s.as_deref())
    }

    fn load_meta(&mut self, meta: &Table) -> Res<()> {
        for (k, v) in chr(meta, "meta", "key")?
            .iter()
            .zip(chr(meta, "meta", "value")?.iter())
        {
            let (k, v) = (self.intern(k), self.intern(v));
            self.meta.key.push(k);
            self.meta.value.push(v);
        }
        Ok(())
    }

    fn load_sources(&mut self, t: &Table) -> Res<()> {
        let name = "sources";
        let ids = int(t, name, "source_id")?;
        let types = chr(t, name, "source_type")?;
        let uris = chr(t, name, "source_uri")?;
        let stamps = dbl(t, name, "source_timestamp")?;
        for ((ty, uri), ts) in types.iter().zip(uris.iter()).zip(stamps.iter()) {
            let (ty, uri) = (self.intern(ty), self.intern(uri));
            let s = self.b.sources_mut();
            s.source_type.push(ty);
            s.source_uri.push(uri);
            s.source_timestamp.push(ts.unwrap_or(f64::NAN));
        }
        self.sources = IdIndex::new(&ids);
        self.b.sources_mut().ext = self.load_ext(name, t)?;
        Ok(())
    }

    fn load_functions(&mut self, t: &Table) -> Res<()> {
        let name = "functions";
        let ids = int(t, name, "function_id")?;
        let names = chr(t, name, "name")?;
        let system_names = chr(t, name, "system_name")?;
        let filenames = chr(t, name, "filename")?;
        let starts = int(t, name, "start_line")?;
        let rows = names
            .iter()
            .zip(system_names.iter())
            .zip(filenames.iter())
            .zip(starts.iter());
        for (((n, sn), f), start) in rows {
            let (n, sn, f) = (self.intern(n), self.intern(sn), self.intern(f));
            let ft = self.b.functions_mut();
            ft.name.push(n);
            ft.system_name.push(sn);
            ft.filename.push(f);
            ft.start_line.push(start.unwrap_or(INT_NA));
        }
        self.functions = IdIndex::new(&ids);
        self.b.functions_mut().ext = self.load_ext(name, t)?;
        Ok(())
    }

    fn load_locations(&mut self, t: &Table) -> Res<()> {
        let name = "locations";
        let ids = int(t, name, "location_id")?;
        let functions = int(t, name, "function_id")?;
        let lines = int(t, name, "line")?;
        for (f, line) in functions.iter().zip(lines.iter()) {
            let f = f
                .and_then(|f| self.functions.row(f))
                .map_or(NO_INDEX, to_u32);
            let lt = self.b.locations_mut();
            lt.function.push(f);
            lt.line.push(line.unwrap_or(INT_NA));
        }
        self.locations = IdIndex::new(&ids);
        self.b.locations_mut().ext = self.load_ext(name, t)?;
        Ok(())
    }

    fn location(&self, id: Option<i32>) -> Option<LocationIndex> {
        self.locations.row(id?).map(|r| LocationIndex(to_u32(r)))
    }

    /// Samples in row order, each with the stack its `sample_locations` rows describe. The rows
    /// are grouped per sample (counting sort), placed by depth, then interned leaf first.
    fn load_samples(&mut self, samples: &Table, locations: &Table) -> Res<()> {
        let ids = int(samples, "samples", "sample_id")?;
        let sources = int(samples, "samples", "source_id")?;
        let index = IdIndex::new(&ids);
        let sl = "sample_locations";
        let (sl_ids, depths, locs) = (
            int(locations, sl, "sample_id")?,
            int(locations, sl, "depth")?,
            int(locations, sl, "location_id")?,
        );
        let sample_of = |id: &Option<i32>| index.row((*id)?);
        let mut offset = vec![0usize; ids.len() + 1];
        for s in sl_ids.iter().filter_map(sample_of) {
            if let Some(o) = offset.get_mut(s + 1) {
                *o += 1;
            }
        }
        for i in 1..offset.len() {
            offset[i] += offset[i - 1];
        }
        let mut frames = vec![LocationIndex(0); offset.last().copied().unwrap_or(0)];
        for (row, s) in sl_ids.iter().map(sample_of).enumerate() {
            let slot = s.and_then(|s| {
                let d = usize::try_from(depths.get(row).copied().flatten()?).ok()?;
                frames.get_mut(offset.get(s)? + d.checked_sub(1)?)
            });
            let loc = self.location(locs.get(row).copied().flatten());
            match (slot, loc) {
                (Some(slot), Some(loc)) => *slot = loc,
                _ => return Err(one(sl, None, Some(row), "row does not fit its sample")),
            }
        }
        for (s, source) in sources.iter().enumerate() {
            let source = source
                .and_then(|id| self.sources.row(id))
                .map(|r| SourceIndex(to_u32(r)));
            let range =
                offset.get(s).copied().unwrap_or(0)..offset.get(s + 1).copied().unwrap_or(0);
            let (Some(source), Some(stack_frames)) = (source, frames.get(range)) else {
                return Err(one(
                    "samples",
                    Some("source_id"),
                    Some(s),
                    "does not resolve",
                ));
            };
            let stack = self.b.stack_leaf_first(stack_frames);
            self.b.add_sample(source, stack);
        }
        self.b.samples_mut().ext = self.load_ext("samples", samples)?;
        self.samples = index;
        Ok(())
    }

    /// Declares the value types of [`VALUE_TYPES_TABLE`] in order, then sets one value per
    /// `sample_values` row, declaring further types on first sight.
    fn load_values(&mut self, values: &Table, value_types: Option<&Table>) -> Res<()> {
        let mut types: HashMap<String, (ValueTypeIndex, Option<String>)> = HashMap::default();
        if let Some(vt) = value_types {
            let name = VALUE_TYPES_TABLE;
            for (ty, unit) in chr(vt, name, "type")?
                .iter()
                .zip(chr(vt, name, "unit")?.iter())
            {
                let Some(ty) = ty else {
                    return Err(one(name, Some("type"), None, "must not be NA"));
                };
                self.declare(&mut types, ty, unit);
            }
        }
        let name = "sample_values";
        let ids = int(values, name, "sample_id")?;
        let (tys, units) = (chr(values, name, "type")?, chr(values, name, "unit")?);
        let cells = dbl(values, name, "value")?;
        for (row, (((id, ty), unit), v)) in ids
            .iter()
            .zip(tys.iter())
            .zip(units.iter())
            .zip(cells.iter())
            .enumerate()
        {
            let (Some(s), Some(ty)) = (id.and_then(|id| self.samples.row(id)), ty) else {
                return Err(one(name, None, Some(row), "row does not resolve"));
            };
            let (vt, first_unit) = self.declare(&mut types, ty, unit);
            if first_unit != *unit {
                return Err(vec![Violation::new(
                    name,
                    Some("unit"),
                    Some(row + 1),
                    Some(chr_text(unit.as_deref())),
                    format!(
                        "type {ty:?} has unit {} elsewhere; proftab keeps one unit per type",
                        chr_text(first_unit.as_deref())
                    ),
                )]);
            }
            self.b
                .set_value(SampleIndex(to_u32(s)), vt, v.unwrap_or(f64::NAN));
        }
        Ok(())
    }

    fn declare(
        &mut self,
        types: &mut HashMap<String, (ValueTypeIndex, Option<String>)>,
        ty: &str,
        unit: &Option<String>,
    ) -> (ValueTypeIndex, Option<String>) {
        if let Some(known) = types.get(ty) {
            return known.clone();
        }
        let vt = self.b.value_type(ty, unit.as_deref().unwrap_or(""));
        if unit.is_none() {
            self.na_units.push(vt);
        }
        types.insert(ty.to_owned(), (vt, unit.clone()));
        (vt, unit.clone())
    }

    /// Every table beside the seven and the reserved ones becomes an extension table.
    fn load_ext_tables(&mut self, t: &Tables) -> Res<()> {
        for (name, table) in &t.tables {
            let name = name.as_str();
            if V2_TABLES.contains(&name) || RESERVED_TABLES.contains(&name) {
                continue;
            }
            let columns = self.load_ext(name, table)?;
            self.b.ext_table(name).columns = columns;
        }
        Ok(())
    }

    /// The columns of `t` after its required ones (all columns of an extension table), typed
    /// as `column_types` says or as they came; list columns are left out.
    fn load_ext(&mut self, name: &str, t: &Table) -> Res<ExtColumns> {
        let skip = v2_required_columns(name).len();
        let mut ext = ExtColumns::default();
        for (col, values) in t.columns.iter().skip(skip) {
            let kind = self.kinds.get(name, col).or_else(|| known_kind(name, col));
            let Some(kind) = kind.or_else(|| natural_kind(values)) else {
                continue;
            };
            let typed = typing::coerce(values, kind).map_err(|m| {
                vec![Violation::new(
                    name,
                    Some(col),
                    m.row.map(|r| r + 1),
                    m.value,
                    format!("{} (as {COLUMN_TYPES_TABLE} says)", m.message),
                )]
            })?;
            let data = self.column_data(typed);
            ext.columns.push(Column {
                name: col.clone(),
                data,
            });
        }
        Ok(ext)
    }

    fn column_data(&mut self, v: Values) -> ColumnData {
        match v {
            Values::Int(c) => ColumnData::Int(c.into_iter().map(|x| x.unwrap_or(INT_NA)).collect()),
            Values::Dbl(c) => {
                ColumnData::Dbl(c.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect())
            }
            Values::Chr(c) => ColumnData::Chr(c.iter().map(|s| self.intern(s)).collect()),
            Values::Lgl(c) => ColumnData::Lgl(c),
            Values::U64(c) => ColumnData::U64(c),
            Values::List(c) => ColumnData::Lgl(vec![None; c.len()]),
        }
    }

    /// v1 samples: each row's stack once, then `value` samples with `samples`/`count` 1 and
    /// the row's dotted cells repeated.
    fn load_v1_samples(&mut self, v1s: &V1Samples<'_>, source: SourceIndex) -> Res<()> {
        let count_type = self.b.value_type("samples", "count");
        for (row, (count, ids)) in v1s.counts.iter().zip(&v1s.stacks).enumerate() {
            let frames: Option<Vec<LocationIndex>> =
                ids.iter().map(|id| self.location(*id)).collect();
            let Some(frames) = frames else {
                return Err(one(
                    "samples",
                    Some("locations"),
                    Some(row),
                    "a location_id does not resolve",
                ));
            };
            let stack = self.b.stack_leaf_first(&frames);
            for _ in 0..*count {
                self.b
                    .add_sample_with_values(source, stack, &[(count_type, 1.0)]);
            }
        }
        let mut ext = ExtColumns::default();
        for (col, values) in &v1s.ext {
            let Some(kind) = natural_kind(values) else {
                continue;
            };
            let typed = typing::coerce(values, kind)
                .map_err(|m| one("samples", Some(col), m.row, m.message))?;
            let data = self.column_data(v1::repeat_values(&typed, &v1s.counts));
            ext.columns.push(Column {
                name: (*col).to_owned(),
                data,
            });
        }
        self.b.samples_mut().ext = ext;
        Ok(())
    }

    fn finish(self) -> Res<Profile> {
        let mut p = self
            .b
            .build()
            .map_err(|e| one(&e.place, None, None, e.problem))?;
        p.meta = self.meta;
        for vt in self.na_units {
            if let Some(c) = p.values.get_mut(vt.idx()) {
                c.unit = StringId::NA;
            }
        }
        check_invariants(&p).map_err(|e| one(&e.place, None, None, e.problem))?;
        Ok(p)
    }
}
