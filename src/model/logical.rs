//! Logical tables: the relational form of v2 and v1 documents (docs/model.md), exactly as
//! a data frame library sees them — named tables of named, equal-length columns, NA as `None`.
//!
//! This is the form that tables-JSON reads and writes and that the validators check, because
//! only here can a document break the rules (duplicate keys, dangling references, …). The
//! physical [`crate::model::Profile`] is derived from it after validation and back.

/// The cells of one logical column.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// R `int`.
    Int(Vec<Option<i32>>),
    /// R `dbl`.
    Dbl(Vec<Option<f64>>),
    /// R `chr`.
    Chr(Vec<Option<String>>),
    /// R `lgl`.
    Lgl(Vec<Option<bool>>),
    /// Unsigned 64-bit integers (addresses); no R equivalent, read back as `dbl` by R.
    U64(Vec<Option<u64>>),
    /// A list column of nested tables (v1 `samples.locations`); `None` is a NULL cell.
    List(Vec<Option<Table>>),
}

impl Values {
    /// Number of cells.
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Dbl(v) => v.len(),
            Values::Chr(v) => v.len(),
            Values::Lgl(v) => v.len(),
            Values::U64(v) => v.len(),
            Values::List(v) => v.len(),
        }
    }

    /// True when there are no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// R-style type name: `int`, `dbl`, `chr`, `lgl`, `u64`, `list`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Values::Int(_) => "int",
            Values::Dbl(_) => "dbl",
            Values::Chr(_) => "chr",
            Values::Lgl(_) => "lgl",
            Values::U64(_) => "u64",
            Values::List(_) => "list",
        }
    }
}

/// A logical table: columns in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// `(name, cells)` pairs in column order.
    pub columns: Vec<(String, Values)>,
}

impl Table {
    /// A table from columns.
    pub fn new(columns: Vec<(String, Values)>) -> Self {
        Table { columns }
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&Values> {
        named(&self.columns, name)
    }

    /// Mutable access to the column called `name`.
    pub fn column_mut(&mut self, name: &str) -> Option<&mut Values> {
        named_mut(&mut self.columns, name)
    }

    /// Column names in order.
    pub fn names(&self) -> Vec<&str> {
        names_of(&self.columns)
    }

    /// Number of rows (the first column's length; 0 without columns).
    pub fn nrow(&self) -> usize {
        self.columns.first().map_or(0, |(_, v)| v.len())
    }
}

/// The item called `name` of a list of named items (columns of a table, tables of a document).
fn named<'a, T>(items: &'a [(String, T)], name: &str) -> Option<&'a T> {
    items.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

/// Mutable access to the item called `name`.
fn named_mut<'a, T>(items: &'a mut [(String, T)], name: &str) -> Option<&'a mut T> {
    items.iter_mut().find(|(n, _)| n == name).map(|(_, v)| v)
}

/// The names of a list of named items, in order.
fn names_of<T>(items: &[(String, T)]) -> Vec<&str> {
    items.iter().map(|(n, _)| n.as_str()).collect()
}

/// A whole logical document: tables in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tables {
    /// `(name, table)` pairs in document order.
    pub tables: Vec<(String, Table)>,
}

impl Tables {
    /// The table called `name`.
    pub fn table(&self, name: &str) -> Option<&Table> {
        named(&self.tables, name)
    }

    /// Mutable access to the table called `name`.
    pub fn table_mut(&mut self, name: &str) -> Option<&mut Table> {
        named_mut(&mut self.tables, name)
    }

    /// Table names in order.
    pub fn names(&self) -> Vec<&str> {
        names_of(&self.tables)
    }

    /// The value of `meta.version`, if the document has one.
    pub fn version(&self) -> Option<&str> {
        let meta = self.table("meta")?;
        let (Values::Chr(keys), Values::Chr(values)) = (meta.column("key")?, meta.column("value")?)
        else {
            return None;
        };
        keys.iter()
            .zip(values)
            .find(|(k, _)| k.as_deref() == Some("version"))
            .and_then(|(_, v)| v.as_deref())
    }
}
