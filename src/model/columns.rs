//! Typed extension columns and extension tables of the physical model.
//!
//! Seed 001's rule for extensions: extra columns start with a dot and come after the required
//! ones (`samples..time`, `locations..address`, `locations..frame_type`). Extra tables (e.g.
//! `mappings`, `sample_labels`) may stand beside the seven v2 tables; their columns need no dot.

use super::ids::{StringId, INT_NA};

/// The cells of one column. Missing values: [`INT_NA`] for ints, NaN for doubles,
/// [`StringId::NA`] for strings, `None` for logicals and unsigned 64-bit integers.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    /// 32-bit integers (R's `int`).
    Int(Vec<i32>),
    /// Doubles (R's `dbl`).
    Dbl(Vec<f64>),
    /// Strings, as ids into the profile's string table (R's `chr`).
    Chr(Vec<StringId>),
    /// Logicals (R's `lgl`).
    Lgl(Vec<Option<bool>>),
    /// Unsigned 64-bit integers (addresses, pprof ids); written to JSON as numbers.
    U64(Vec<Option<u64>>),
}

/// The kind of a [`ColumnData`], also used as the type name in the tables-JSON `column_types`
/// table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColumnKind {
    /// See [`ColumnData::Int`].
    Int,
    /// See [`ColumnData::Dbl`].
    Dbl,
    /// See [`ColumnData::Chr`].
    Chr,
    /// See [`ColumnData::Lgl`].
    Lgl,
    /// See [`ColumnData::U64`].
    U64,
}

impl ColumnKind {
    /// The R-style type name: `int`, `dbl`, `chr`, `lgl`, `u64`.
    pub fn name(self) -> &'static str {
        match self {
            ColumnKind::Int => "int",
            ColumnKind::Dbl => "dbl",
            ColumnKind::Chr => "chr",
            ColumnKind::Lgl => "lgl",
            ColumnKind::U64 => "u64",
        }
    }

    /// Parses a name written by [`ColumnKind::name`].
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "int" => ColumnKind::Int,
            "dbl" => ColumnKind::Dbl,
            "chr" => ColumnKind::Chr,
            "lgl" => ColumnKind::Lgl,
            "u64" => ColumnKind::U64,
            _ => return None,
        })
    }
}

/// One cell value, used to set cells of a column of any kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell {
    /// An int cell ([`INT_NA`] for NA).
    Int(i32),
    /// A dbl cell (NaN for NA).
    Dbl(f64),
    /// A chr cell.
    Chr(StringId),
    /// A lgl cell.
    Lgl(Option<bool>),
    /// A u64 cell.
    U64(Option<u64>),
}

impl Cell {
    fn kind(self) -> ColumnKind {
        match self {
            Cell::Int(_) => ColumnKind::Int,
            Cell::Dbl(_) => ColumnKind::Dbl,
            Cell::Chr(_) => ColumnKind::Chr,
            Cell::Lgl(_) => ColumnKind::Lgl,
            Cell::U64(_) => ColumnKind::U64,
        }
    }
}

impl ColumnData {
    /// An empty column of `kind`.
    pub fn empty(kind: ColumnKind) -> Self {
        match kind {
            ColumnKind::Int => ColumnData::Int(Vec::new()),
            ColumnKind::Dbl => ColumnData::Dbl(Vec::new()),
            ColumnKind::Chr => ColumnData::Chr(Vec::new()),
            ColumnKind::Lgl => ColumnData::Lgl(Vec::new()),
            ColumnKind::U64 => ColumnData::U64(Vec::new()),
        }
    }

    /// The column's kind.
    pub fn kind(&self) -> ColumnKind {
        match self {
            ColumnData::Int(_) => ColumnKind::Int,
            ColumnData::Dbl(_) => ColumnKind::Dbl,
            ColumnData::Chr(_) => ColumnKind::Chr,
            ColumnData::Lgl(_) => ColumnKind::Lgl,
            ColumnData::U64(_) => ColumnKind::U64,
        }
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        match self {
            ColumnData::Int(v) => v.len(),
            ColumnData::Dbl(v) => v.len(),
            ColumnData::Chr(v) => v.len(),
            ColumnData::Lgl(v) => v.len(),
            ColumnData::U64(v) => v.len(),
        }
    }

    /// True when the column has no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pads with NA cells up to `len` (never shortens).
    pub fn pad_to(&mut self, len: usize) {
        match self {
            ColumnData::Int(v) => v.resize(len.max(v.len()), INT_NA),
            ColumnData::Dbl(v) => v.resize(len.max(v.len()), f64::NAN),
            ColumnData::Chr(v) => v.resize(len.max(v.len()), StringId::NA),
            ColumnData::Lgl(v) => v.resize(len.max(v.len()), None),
            ColumnData::U64(v) => v.resize(len.max(v.len()), None),
        }
    }

    /// The cell at `row`, or `None` when out of range.
    pub fn cell(&self, row: usize) -> Option<Cell> {
        Some(match self {
            ColumnData::Int(v) => Cell::Int(*v.get(row)?),
            ColumnData::Dbl(v) => Cell::Dbl(*v.get(row)?),
            ColumnData::Chr(v) => Cell::Chr(*v.get(row)?),
            ColumnData::Lgl(v) => Cell::Lgl(*v.get(row)?),
            ColumnData::U64(v) => Cell::U64(*v.get(row)?),
        })
    }

    /// Sets the cell at `row`, padding with NA first. Fails when the kinds differ.
    pub fn set(&mut self, row: usize, cell: Cell) -> Result<(), ColumnKind> {
        if cell.kind() != self.kind() {
            return Err(self.kind());
        }
        self.pad_to(row + 1);
        match (self, cell) {
            (ColumnData::Int(v), Cell::Int(x)) => set_at(v, row, x),
            (ColumnData::Dbl(v), Cell::Dbl(x)) => set_at(v, row, x),
            (ColumnData::Chr(v), Cell::Chr(x)) => set_at(v, row, x),
            (ColumnData::Lgl(v), Cell::Lgl(x)) => set_at(v, row, x),
            (ColumnData::U64(v), Cell::U64(x)) => set_at(v, row, x),
            _ => {}
        }
        Ok(())
    }

    /// Appends the cells of `other` (same kind) after remapping string ids with `map_str`.
    /// Fails with the own kind when the kinds differ.
    pub fn append_mapped(
        &mut self,
        other: &ColumnData,
        map_str: &mut dyn FnMut(StringId) -> StringId,
    ) -> Result<(), ColumnKind> {
        match (self, other) {
            (ColumnData::Int(a), ColumnData::Int(b)) => a.extend_from_slice(b),
            (ColumnData::Dbl(a), ColumnData::Dbl(b)) => a.extend_from_slice(b),
            (ColumnData::Chr(a), ColumnData::Chr(b)) => a.extend(b.iter().map(|&s| map_str(s))),
            (ColumnData::Lgl(a), ColumnData::Lgl(b)) => a.extend_from_slice(b),
            (ColumnData::U64(a), ColumnData::U64(b)) => a.extend_from_slice(b),
            (a, _) => return Err(a.kind()),
        }
        Ok(())
    }
}

fn set_at<T>(v: &mut [T], row: usize, x: T) {
    if let Some(slot) = v.get_mut(row) {
        *slot = x;
    }
}

/// A named column.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Column name (with its leading dot for extension columns of the v2 tables).
    pub name: String,
    /// The cells.
    pub data: ColumnData,
}

/// Extension columns attached to one of the v2 tables. Invariant after
/// [`crate::model::ProfileBuilder::build`]: every column has as many cells as the table has rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtColumns {
    /// The columns in the order they were first set.
    pub columns: Vec<Column>,
}

impl ExtColumns {
    /// The column called `name`.
    pub fn get(&self, name: &str) -> Option<&ColumnData> {
        self.columns
            .iter()
            .find(|c| c.name == name)
            .map(|c| &c.data)
    }

    /// The column called `name`, created empty with `kind` when missing.
    pub fn get_or_create(&mut self, name: &str, kind: ColumnKind) -> &mut ColumnData {
        let pos = match self.columns.iter().position(|c| c.name == name) {
            Some(p) => p,
            None => {
                self.columns.push(Column {
                    name: name.to_owned(),
                    data: ColumnData::empty(kind),
                });
                self.columns.len() - 1
            }
        };
        &mut self.columns[pos].data
    }

    /// Sets one cell, creating the column when missing. Fails when an existing column of that
    /// name has another kind (returns that kind).
    pub fn set(&mut self, name: &str, row: usize, cell: Cell) -> Result<(), ColumnKind> {
        self.get_or_create(name, cell.kind()).set(row, cell)
    }

    /// The cell of column `name` at `row`.
    pub fn cell(&self, name: &str, row: usize) -> Option<Cell> {
        self.get(name)?.cell(row)
    }

    /// A dbl column's cells.
    pub fn dbl(&self, name: &str) -> Option<&[f64]> {
        match self.get(name)? {
            ColumnData::Dbl(v) => Some(v),
            _ => None,
        }
    }

    /// An int column's cells.
    pub fn int(&self, name: &str) -> Option<&[i32]> {
        match self.get(name)? {
            ColumnData::Int(v) => Some(v),
            _ => None,
        }
    }

    /// A chr column's cells.
    pub fn chr(&self, name: &str) -> Option<&[StringId]> {
        match self.get(name)? {
            ColumnData::Chr(v) => Some(v),
            _ => None,
        }
    }

    /// A u64 column's cells.
    pub fn u64(&self, name: &str) -> Option<&[Option<u64>]> {
        match self.get(name)? {
            ColumnData::U64(v) => Some(v),
            _ => None,
        }
    }

    /// A lgl column's cells.
    pub fn lgl(&self, name: &str) -> Option<&[Option<bool>]> {
        match self.get(name)? {
            ColumnData::Lgl(v) => Some(v),
            _ => None,
        }
    }

    /// Pads every column with NA up to `len` rows.
    pub fn pad_to(&mut self, len: usize) {
        for c in &mut self.columns {
            c.data.pad_to(len);
        }
    }

    /// True when there are no extension columns.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }
}

/// An extension table beside the seven v2 tables (e.g. `mappings`, `sample_labels`).
/// Invariant after build: all columns have the same number of cells.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtTable {
    /// Table name (no leading dot).
    pub name: String,
    /// The columns, in order.
    pub columns: ExtColumns,
}

impl ExtTable {
    /// A table with no columns.
    pub fn new(name: &str) -> Self {
        ExtTable {
            name: name.to_owned(),
            columns: ExtColumns::default(),
        }
    }

    /// Number of rows (the longest column).
    pub fn len(&self) -> usize {
        self.columns
            .columns
            .iter()
            .map(|c| c.data.len())
            .max()
            .unwrap_or(0)
    }

    /// True when the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends one row given as `(column, cell)` pairs; columns not named get NA.
    pub fn push_row(&mut self, cells: &[(&str, Cell)]) -> Result<(), ColumnKind> {
        let row = self.len();
        for (name, cell) in cells {
            self.columns.set(name, row, *cell)?;
        }
        self.columns.pad_to(row + 1);
        Ok(())
    }
}
