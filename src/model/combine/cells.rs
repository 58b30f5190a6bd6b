//! Extension cells of one input copied into the combined profile: strings re-interned, id
//! columns remapped to the combined ids (or shifted, for an extension table's own ids), kinds
//! converted to the unified schema, NA where the input lacks a column.
//!
//! An id that names no row of its input is an error; ids of kind `chr` are copied as they are.

use super::super::builder::ModelError;
use super::super::columns::{Cell, ColumnKind, ExtColumns};
use super::super::ids::*;
use super::super::profile::Profile;
use super::plan::{integer_of, IdSpace, Schema};
use super::{Combiner, InputMap};

/// An extension cell as a hashable key (dbl by its bits, every NaN alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum CellKey {
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
pub(super) fn na_cell(kind: ColumnKind) -> Cell {
    match kind {
        ColumnKind::Int => Cell::Int(INT_NA),
        ColumnKind::Dbl => Cell::Dbl(f64::NAN),
        ColumnKind::Chr => Cell::Chr(StringId::NA),
        ColumnKind::Lgl => Cell::Lgl(None),
        ColumnKind::U64 => Cell::U64(None),
    }
}

impl Combiner<'_> {
    pub(super) fn add_ext_tables(
        &mut self,
        p: &Profile,
        m: &mut InputMap,
    ) -> Result<(), ModelError> {
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
    pub(super) fn copy_ext_rows(
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
    pub(super) fn mapped_row(
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
    pub(super) fn remap_id(
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
    pub(super) fn convert_cell(
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
    pub(super) fn map_str(&mut self, p: &Profile, m: &mut InputMap, s: StringId) -> StringId {
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
}

/// A numeric cell of the same kind holding `v`, when `v` fits.
pub(super) fn cell_with_integer(cell: Cell, v: i128) -> Option<Cell> {
    Some(match cell {
        Cell::Int(_) => Cell::Int(i32::try_from(v).ok().filter(|&x| x != INT_NA)?),
        Cell::U64(_) => Cell::U64(Some(u64::try_from(v).ok()?)),
        Cell::Dbl(_) => Cell::Dbl(v as f64),
        other => other,
    })
}

/// The text of a non-chr cell (`None` for NA): numbers as Rust prints them, logicals as R does.
pub(super) fn cell_text(c: Cell) -> Option<String> {
    match c {
        Cell::Int(v) => (v != INT_NA).then(|| v.to_string()),
        Cell::Dbl(v) => (!v.is_nan()).then(|| v.to_string()),
        Cell::Lgl(v) => v.map(|b| if b { "TRUE" } else { "FALSE" }.to_owned()),
        Cell::U64(v) => v.map(|x| x.to_string()),
        Cell::Chr(_) => None,
    }
}

/// Appends one row of cells (one per column, in order) to `out`.
pub(super) fn push_row(out: &mut ExtColumns, cells: &[Cell]) {
    for (col, &cell) in out.columns.iter_mut().zip(cells) {
        let row = col.data.len();
        let _ = col.data.set(row, cell);
    }
}

/// Appends the cells of `more` (same schema, same column order) to `out`.
pub(super) fn append_columns(out: &mut ExtColumns, more: ExtColumns) {
    for (col, add) in out.columns.iter_mut().zip(more.columns) {
        let _ = col.data.append_mapped(&add.data, &mut |s| s);
    }
}
