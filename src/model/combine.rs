//! [`combine`]: several profiles into one, as seed 000's `combine_profiles()` asks ("remap ids
//! to avoid conflicts, preserve provenance").
//!
//! What the combined profile holds, input by input in order:
//!
//! - `sources`: every input's sources, concatenated and renumbered (with their extension columns).
//! - `samples`: every sample, renumbered in input order; each keeps exactly the values it had
//!   (a type another input adds is absent for it, not zero) and its extension cells.
//! - value types: the union by type name, in order of first appearance. The same type name with
//!   two different units is an error, since adding such values would be wrong.
//! - `functions` and `locations`: a row of a later input that equals a row of an earlier input
//!   in content (function: name, system name, filename, start line and every extension cell;
//!   location: function, line and every extension cell) becomes that row, so the same function
//!   read from two files is one function. Rows of one input are never merged with each other, so
//!   combining one profile gives that profile back.
//! - extension columns: the union by name; a column an input lacks is NA for its rows. The same
//!   name with kinds `int` and `dbl` becomes `dbl`; any other kind clash becomes `chr` (cells
//!   written as text).
//! - extension tables: merged by name, every row kept, columns unioned as above.
//! - meta: see [`META_SOURCE_PREFIX`].
//!
//! **Id columns.** An extension column (of an extension table, or a dotted column of a v2 table)
//! whose name, without its leading dot, is `sample_id`, `location_id`, `function_id` or
//! `source_id` holds logical ids (row number + 1) of that table and is remapped to the combined
//! profile's ids; an id that names no row of its input is an error. An extension table `T…s`
//! with a column `T…_id` (e.g. `mappings` with `mapping_id`) defines its own id space: the
//! values of `T…_id` in every table, and of `.T…_id` columns anywhere, are shifted by the
//! largest id of that space in the earlier inputs, so ids of different inputs cannot collide.
//! Ids of an own id space should be positive integers; id columns of kind `chr` are copied as is.

use crate::hash::{HashMap, HashSet};

use super::builder::{FunctionKey, ModelError, ProfileBuilder};
use super::columns::{Cell, Column, ColumnData, ColumnKind, ExtColumns, ExtTable};
use super::ids::*;
use super::profile::{Profile, META_VERSION};
use super::strings::StringTable;

/// Meta rows keyed `source.<source_id>.<key>` belong to one source.
///
/// A key whose rows (its list of values, in order) are identical in every input stays one set
/// of plain rows. Otherwise each source gets the rows that applied to it, keyed
/// `source.<id>.<key>` with its combined source id: a plain row of an input applies to each of
/// its sources that has no `source.<id>.<key>` rows of its own. Inputs' `source.<id>.<key>` rows
/// are renumbered likewise. So no row is lost, and combining is associative. A conflicting
/// `default_sample_type` thus becomes per-source rows, and the combined default is the last
/// value type. An input without sources (and so without samples) keeps a conflicting key as
/// [`META_UNSOURCED_PREFIX`]`<key>`.
pub const META_SOURCE_PREFIX: &str = "source.";
/// Prefix of meta rows of an input without sources whose key conflicts with another input.
pub const META_UNSOURCED_PREFIX: &str = "unsourced.";

/// The logical tables an id column can refer to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IdSpace {
    Sample,
    Location,
    Function,
    Source,
    /// An extension table's own ids, by the index of its key column name in [`Plan::own_keys`].
    Own(usize),
}

/// Combines `profiles` into one profile; see the module documentation for the rules.
/// Combining no profiles gives an empty profile.
pub fn combine(profiles: &[Profile]) -> Result<Profile, ModelError> {
    let plan = Plan::new(profiles)?;
    let mut c = Combiner::new(&plan);
    for (input, p) in profiles.iter().enumerate() {
        c.add_input(input, p)?;
    }
    let mut out = c.finish()?;
    out.meta = super::profile::MetaTable::default();
    merge_meta(profiles, &mut out);
    Ok(out)
}

/// What is decided before any row is copied: the unified schemas, the value types and the id
/// spaces of extension tables.
struct Plan {
    sources: Schema,
    samples: Schema,
    functions: Schema,
    locations: Schema,
    /// Extension tables by name, in order of first appearance.
    tables: Vec<(String, Schema)>,
    /// `(type, unit)` of every value type, in order of first appearance.
    value_types: Vec<(String, String)>,
    /// Key column names of extension tables with their own id space (`mapping_id`, …).
    own_keys: Vec<String>,
    /// Per input, per own key, the shift applied to its ids.
    own_shifts: Vec<Vec<i128>>,
}

impl Plan {
    fn new(profiles: &[Profile]) -> Result<Plan, ModelError> {
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
    fn id_space(&self, name: &str) -> Option<IdSpace> {
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
fn integer_of(cell: Cell) -> Option<i128> {
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
struct Schema {
    columns: Vec<(String, ColumnKind)>,
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
    fn empty_columns(&self) -> ExtColumns {
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

/// An extension cell as a hashable key (dbl by its bits, every NaN alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum CellKey {
    Int(i32),
    Dbl(u64),
    Chr(StringId),
    Lgl(Option<bool>),
    U64(Option<u64>),
}

impl From<Cell> for CellKey {
    fn from(c: Cell) -> Self {
        match c {
            Cell::Int(v) => CellKey::Int(v),
            Cell::Dbl(v) if v.is_nan() => CellKey::Dbl(f64::NAN.to_bits()),
            Cell::Dbl(v) => CellKey::Dbl(v.to_bits()),
            Cell::Chr(v) => CellKey::Chr(v),
            Cell::Lgl(v) => CellKey::Lgl(v),
            Cell::U64(v) => CellKey::U64(v),
        }
    }
}

/// The NA cell of a kind.
fn na_cell(kind: ColumnKind) -> Cell {
    match kind {
        ColumnKind::Int => Cell::Int(INT_NA),
        ColumnKind::Dbl => Cell::Dbl(f64::NAN),
        ColumnKind::Chr => Cell::Chr(StringId::NA),
        ColumnKind::Lgl => Cell::Lgl(None),
        ColumnKind::U64 => Cell::U64(None),
    }
}

/// How the rows of one input map onto the combined profile.
struct InputMap {
    input: usize,
    /// Input string id → combined string id (`None` until first seen).
    strings: Vec<Option<StringId>>,
    sources: Vec<SourceIndex>,
    functions: Vec<FunctionIndex>,
    locations: Vec<LocationIndex>,
    /// Input stack node → combined stack node.
    stacks: Vec<StackIndex>,
    /// Number of samples of the earlier inputs.
    sample_offset: usize,
    num_samples: usize,
}

/// Copies inputs into a [`ProfileBuilder`] one after another.
struct Combiner<'a> {
    plan: &'a Plan,
    b: ProfileBuilder,
    value_types: Vec<ValueTypeIndex>,
    function_ids: HashMap<(FunctionKey, Vec<CellKey>), FunctionIndex>,
    location_ids: HashMap<(u32, i32, Vec<CellKey>), LocationIndex>,
    sources_ext: ExtColumns,
    samples_ext: ExtColumns,
    functions_ext: ExtColumns,
    locations_ext: ExtColumns,
    tables: Vec<ExtTable>,
}

impl<'a> Combiner<'a> {
    fn new(plan: &'a Plan) -> Self {
        let mut b = ProfileBuilder::new();
        let value_types = plan
            .value_types
            .iter()
            .map(|(t, u)| b.value_type(t, u))
            .collect();
        Combiner {
            plan,
            b,
            value_types,
            function_ids: HashMap::default(),
            location_ids: HashMap::default(),
            sources_ext: plan.sources.empty_columns(),
            samples_ext: plan.samples.empty_columns(),
            functions_ext: plan.functions.empty_columns(),
            locations_ext: plan.locations.empty_columns(),
            tables: plan
                .tables
                .iter()
                .map(|(name, schema)| ExtTable {
                    name: name.clone(),
                    columns: schema.empty_columns(),
                })
                .collect(),
        }
    }

    fn add_input(&mut self, input: usize, p: &Profile) -> Result<(), ModelError> {
        let mut m = InputMap {
            input,
            strings: vec![None; p.strings.len()],
            sources: Vec::with_capacity(p.sources.source_type.len()),
            functions: Vec::with_capacity(p.functions.name.len()),
            locations: Vec::with_capacity(p.locations.line.len()),
            stacks: Vec::with_capacity(p.stacks.prefix.len()),
            sample_offset: self.b.num_samples(),
            num_samples: p.num_samples(),
        };
        self.add_sources(p, &mut m)?;
        self.add_functions(p, &mut m)?;
        self.add_locations(p, &mut m)?;
        self.add_stacks(p, &mut m);
        self.add_samples(p, &mut m)?;
        self.add_ext_tables(p, &mut m)
    }

    fn add_sources(&mut self, p: &Profile, m: &mut InputMap) -> Result<(), ModelError> {
        let s = &p.sources;
        for row in 0..s.source_type.len() {
            let t = p.str(s.source_type[row]);
            let uri = p.strings.get(s.source_uri[row]);
            let ts = s.source_timestamp[row];
            let out = self.b.add_source(t, uri, (!ts.is_nan()).then_some(ts));
            // Keep NA text cells NA (add_source takes text).
            let source_type = self.map_str(p, m, s.source_type[row]);
            self.b.sources_mut().source_type[out.idx()] = source_type;
            m.sources.push(out);
        }
        let plan = self.plan;
        let rows = 0..s.source_type.len();
        let cols = self.copy_ext_rows(p, m, &s.ext, &plan.sources, rows, "sources")?;
        append_columns(&mut self.sources_ext, cols);
        Ok(())
    }

    fn add_functions(&mut self, p: &Profile, m: &mut InputMap) -> Result<(), ModelError> {
        let f = &p.functions;
        let plan = self.plan;
        let first_new = self.b.profile().functions.name.len();
        for row in 0..f.name.len() {
            let key = FunctionKey {
                name: self.map_str(p, m, f.name[row]),
                system_name: self.map_str(p, m, f.system_name[row]),
                filename: self.map_str(p, m, f.filename[row]),
                start_line: f.start_line[row],
            };
            let cells = self.mapped_row(p, m, &f.ext, &plan.functions, row, "functions")?;
            let dedup_key = (key, cells.iter().map(|&c| CellKey::from(c)).collect());
            match self.function_ids.get(&dedup_key) {
                Some(&out) if out.idx() < first_new => m.functions.push(out),
                _ => {
                    let out = self.b.add_function(key);
                    push_row(&mut self.functions_ext, &cells);
                    self.function_ids.entry(dedup_key).or_insert(out);
                    m.functions.push(out);
                }
            }
        }
        Ok(())
    }

    fn add_locations(&mut self, p: &Profile, m: &mut InputMap) -> Result<(), ModelError> {
        let l = &p.locations;
        let plan = self.plan;
        let first_new = self.b.profile().locations.line.len();
        for row in 0..l.line.len() {
            let function =
                decode_opt(l.function[row]).and_then(|f| m.functions.get(f as usize).copied());
            let cells = self.mapped_row(p, m, &l.ext, &plan.locations, row, "locations")?;
            let dedup_key = (
                encode_opt(function.map(|f| f.0)),
                l.line[row],
                cells.iter().map(|&c| CellKey::from(c)).collect(),
            );
            match self.location_ids.get(&dedup_key) {
                Some(&out) if out.idx() < first_new => m.locations.push(out),
                _ => {
                    let out = self.b.add_location(function, l.line[row]);
                    push_row(&mut self.locations_ext, &cells);
                    self.location_ids.entry(dedup_key).or_insert(out);
                    m.locations.push(out);
                }
            }
        }
        Ok(())
    }

    /// Re-interns every stack node; `prefix < index` makes one forward pass enough.
    fn add_stacks(&mut self, p: &Profile, m: &mut InputMap) {
        for (prefix, loc) in p.stacks.prefix.iter().zip(&p.stacks.location) {
            let prefix = decode_opt(*prefix).and_then(|q| m.stacks.get(q as usize).copied());
            let loc = m.locations.get(loc.idx()).copied().unwrap_or(*loc);
            let node = self.b.stack_node(prefix, loc);
            m.stacks.push(node);
        }
    }

    fn add_samples(&mut self, p: &Profile, m: &mut InputMap) -> Result<(), ModelError> {
        let vts: Vec<ValueTypeIndex> = p
            .values
            .iter()
            .filter_map(|c| {
                let t = p.str(c.value_type);
                let pos = self.plan.value_types.iter().position(|(n, _)| n == t)?;
                self.value_types.get(pos).copied()
            })
            .collect();
        for s in 0..p.num_samples() {
            let source = m.sources[p.samples.source[s].idx()];
            let stack = decode_opt(p.samples.stack[s]).and_then(|n| m.stacks.get(n as usize));
            let out = self.b.add_sample(source, stack.copied());
            for (col, &vt) in p.values.iter().zip(&vts) {
                if let Some(v) = col.get(s) {
                    self.b.set_value(out, vt, v);
                }
            }
        }
        let plan = self.plan;
        let rows = 0..p.num_samples();
        let cols = self.copy_ext_rows(p, m, &p.samples.ext, &plan.samples, rows, "samples")?;
        append_columns(&mut self.samples_ext, cols);
        Ok(())
    }

    fn add_ext_tables(&mut self, p: &Profile, m: &mut InputMap) -> Result<(), ModelError> {
        let plan = self.plan;
        for t in &p.ext_tables {
            let Some(pos) = self.tables.iter().position(|o| o.name == t.name) else {
                continue;
            };
            let schema = &plan.tables[pos].1;
            let rows = 0..t.len();
            let columns = self.copy_ext_rows(p, m, &t.columns, schema, rows, &t.name)?;
            let out = &mut self.tables[pos];
            let base = out.len();
            append_columns(&mut out.columns, columns);
            out.columns.pad_to(base + t.len());
        }
        Ok(())
    }

    /// The cells of rows `rows` of `ext` (of table `table`) in `schema`.
    fn copy_ext_rows(
        &mut self,
        p: &Profile,
        m: &mut InputMap,
        ext: &ExtColumns,
        schema: &Schema,
        rows: std::ops::Range<usize>,
        table: &str,
    ) -> Result<ExtColumns, ModelError> {
        let mut out = schema.empty_columns();
        for row in rows {
            let cells = self.mapped_row(p, m, ext, schema, row, table)?;
            push_row(&mut out, &cells);
        }
        Ok(out)
    }

    /// One row of `ext` as cells of `schema`: NA where the input lacks a column, strings
    /// re-interned, ids remapped, kinds converted.
    fn mapped_row(
        &mut self,
        p: &Profile,
        m: &mut InputMap,
        ext: &ExtColumns,
        schema: &Schema,
        row: usize,
        table: &str,
    ) -> Result<Vec<Cell>, ModelError> {
        let mut cells = Vec::with_capacity(schema.columns.len());
        for (name, kind) in &schema.columns {
            let cell = match ext.cell(name, row) {
                None => na_cell(*kind),
                Some(c) => {
                    let c = match self.plan.id_space(name) {
                        Some(space) => self.remap_id(m, space, c, table, name, row)?,
                        None => c,
                    };
                    self.convert_cell(p, m, c, *kind)
                }
            };
            cells.push(cell);
        }
        Ok(cells)
    }

    /// The combined-profile id for an id cell of input `m`.
    fn remap_id(
        &self,
        m: &InputMap,
        space: IdSpace,
        cell: Cell,
        table: &str,
        column: &str,
        row: usize,
    ) -> Result<Cell, ModelError> {
        let Some(old) = integer_of(cell) else {
            return Ok(cell);
        };
        let logical = |v: Option<i32>| v.map(i128::from);
        let row_of = |old: i128| usize::try_from(old - 1).ok();
        let new = match space {
            IdSpace::Sample => row_of(old)
                .filter(|&r| r < m.num_samples)
                .map(|r| (m.sample_offset + r + 1) as i128),
            IdSpace::Source => logical(
                row_of(old)
                    .and_then(|r| m.sources.get(r))
                    .map(|s| s.logical_id()),
            ),
            IdSpace::Function => logical(
                row_of(old)
                    .and_then(|r| m.functions.get(r))
                    .map(|f| f.logical_id()),
            ),
            IdSpace::Location => logical(
                row_of(old)
                    .and_then(|r| m.locations.get(r))
                    .map(|l| l.logical_id()),
            ),
            IdSpace::Own(k) => Some(old + self.plan.own_shifts[m.input][k]),
        };
        new.and_then(|v| cell_with_integer(cell, v))
            .ok_or_else(|| ModelError {
                place: format!("{table}.{column}"),
                problem: format!(
                "row {} of profile {}: id {old} does not fit the combined profile or names no row",
                row + 1,
                m.input + 1
            ),
            })
    }

    /// `cell` converted to `kind`, with its string re-interned.
    fn convert_cell(
        &mut self,
        p: &Profile,
        m: &mut InputMap,
        cell: Cell,
        kind: ColumnKind,
    ) -> Cell {
        if let Cell::Chr(s) = cell {
            let s = self.map_str(p, m, s);
            return if kind == ColumnKind::Chr {
                Cell::Chr(s)
            } else {
                na_cell(kind)
            };
        }
        match (cell, kind) {
            (Cell::Int(v), ColumnKind::Dbl) => {
                Cell::Dbl(if v == INT_NA { f64::NAN } else { f64::from(v) })
            }
            (c, ColumnKind::Chr) => {
                let text = cell_text(c);
                Cell::Chr(self.b.strings().intern_opt(text.as_deref()))
            }
            (c, _) => c,
        }
    }

    /// The combined-profile id of input string `s`.
    fn map_str(&mut self, p: &Profile, m: &mut InputMap, s: StringId) -> StringId {
        if s.is_na() {
            return StringId::NA;
        }
        if let Some(Some(out)) = m.strings.get(s.idx()) {
            return *out;
        }
        let out = self.b.intern(p.str(s));
        if let Some(slot) = m.strings.get_mut(s.idx()) {
            *slot = Some(out);
        }
        out
    }

    fn finish(mut self) -> Result<Profile, ModelError> {
        self.b.sources_mut().ext = self.sources_ext;
        self.b.samples_mut().ext = self.samples_ext;
        self.b.functions_mut().ext = self.functions_ext;
        self.b.locations_mut().ext = self.locations_ext;
        for t in self.tables {
            let name = t.name.clone();
            *self.b.ext_table(&name) = t;
        }
        self.b.build()
    }
}

/// A numeric cell of the same kind holding `v`, when `v` fits.
fn cell_with_integer(cell: Cell, v: i128) -> Option<Cell> {
    Some(match cell {
        Cell::Int(_) => Cell::Int(i32::try_from(v).ok().filter(|&x| x != INT_NA)?),
        Cell::U64(_) => Cell::U64(Some(u64::try_from(v).ok()?)),
        Cell::Dbl(_) => Cell::Dbl(v as f64),
        other => other,
    })
}

/// The text of a non-chr cell (`None` for NA): numbers as Rust prints them, logicals as R does.
fn cell_text(c: Cell) -> Option<String> {
    match c {
        Cell::Int(v) => (v != INT_NA).then(|| v.to_string()),
        Cell::Dbl(v) => (!v.is_nan()).then(|| v.to_string()),
        Cell::Lgl(v) => v.map(|b| if b { "TRUE" } else { "FALSE" }.to_owned()),
        Cell::U64(v) => v.map(|x| x.to_string()),
        Cell::Chr(_) => None,
    }
}

/// Appends one row of cells (one per column, in order) to `out`.
fn push_row(out: &mut ExtColumns, cells: &[Cell]) {
    for (col, &cell) in out.columns.iter_mut().zip(cells) {
        let row = col.data.len();
        let _ = col.data.set(row, cell);
    }
}

/// Appends the cells of `more` (same schema, same column order) to `out`.
fn append_columns(out: &mut ExtColumns, more: ExtColumns) {
    for (col, add) in out.columns.iter_mut().zip(more.columns) {
        let _ = col.data.append_mapped(&add.data, &mut |s| s);
    }
}

/// Who a meta row belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Owner {
    /// The whole input.
    Plain,
    /// One source of the input (row index).
    Source(usize),
}

/// The meta rows of one input as `(owner, key, value)`.
fn meta_rows(p: &Profile) -> Vec<(Owner, &str, &str)> {
    let n_sources = p.sources.source_type.len();
    p.meta
        .key
        .iter()
        .zip(&p.meta.value)
        .map(|(&k, &v)| {
            let (owner, key) = split_source_key(p.str(k), n_sources);
            (owner, key, p.str(v))
        })
        .collect()
}

/// Splits `source.<id>.<key>` when `<id>` is a source of the input.
fn split_source_key(key: &str, n_sources: usize) -> (Owner, &str) {
    let split = key.strip_prefix(META_SOURCE_PREFIX).and_then(|rest| {
        let (id, inner) = rest.split_once('.')?;
        let id: usize = id.parse().ok()?;
        (id >= 1 && id <= n_sources && !inner.is_empty()).then_some((Owner::Source(id - 1), inner))
    });
    split.unwrap_or((Owner::Plain, key))
}

/// Writes the merged meta of `profiles` into `out` (see [`META_SOURCE_PREFIX`]).
fn merge_meta(profiles: &[Profile], out: &mut Profile) {
    let rows: Vec<Vec<(Owner, &str, &str)>> = profiles.iter().map(meta_rows).collect();
    let plain_lists: Vec<HashMap<&str, Vec<&str>>> = rows
        .iter()
        .map(|r| {
            let mut m: HashMap<&str, Vec<&str>> = HashMap::default();
            for &(o, k, v) in r {
                if o == Owner::Plain {
                    m.entry(k).or_default().push(v);
                }
            }
            m
        })
        .collect();
    let agrees = |key: &str| {
        let first = plain_lists.first().and_then(|m| m.get(key));
        plain_lists.iter().all(|m| m.get(key) == first)
    };
    let mut source_offset = 0;
    let mut emitted: Vec<(String, String)> = Vec::new();
    for (input, p) in profiles.iter().enumerate() {
        let own: HashSet<(usize, &str)> = rows[input]
            .iter()
            .filter_map(|&(o, k, _)| match o {
                Owner::Source(s) => Some((s, k)),
                Owner::Plain => None,
            })
            .collect();
        let n_sources = p.sources.source_type.len();
        for &(owner, key, value) in &rows[input] {
            let source_key =
                |s: usize| format!("{META_SOURCE_PREFIX}{}.{key}", source_offset + s + 1);
            match owner {
                Owner::Source(s) => emitted.push((source_key(s), value.to_owned())),
                Owner::Plain if agrees(key) => {
                    if input == 0 {
                        emitted.push((key.to_owned(), value.to_owned()));
                    }
                }
                Owner::Plain if n_sources == 0 => {
                    emitted.push((format!("{META_UNSOURCED_PREFIX}{key}"), value.to_owned()))
                }
                Owner::Plain => {
                    for s in (0..n_sources).filter(|&s| !own.contains(&(s, key))) {
                        emitted.push((source_key(s), value.to_owned()));
                    }
                }
            }
        }
        source_offset += n_sources;
    }
    if !emitted.iter().any(|(k, _)| k == META_VERSION) {
        emitted.insert(0, (META_VERSION.to_owned(), "2.0".to_owned()));
    }
    set_meta_rows(out, emitted);
}

fn set_meta_rows(out: &mut Profile, rows: Vec<(String, String)>) {
    let strings: &mut StringTable = &mut out.strings;
    for (k, v) in rows {
        let k = strings.intern(&k);
        let v = strings.intern(&v);
        out.meta.key.push(k);
        out.meta.value.push(v);
    }
}
