//! Streaming parse of a tables-JSON document into logical [`Tables`]: every column array is
//! typed while it is read (no intermediate JSON tree), so memory stays near the size of the
//! typed columns.
//!
//! Column typing by content: only strings → `chr`; only booleans → `lgl`; numbers → `int` when
//! every number is an integer literal inside the `int` range (`i32::MIN`, R's NA, excluded),
//! `u64` when some integer exceeds 2^53 and none is negative, else `dbl`; only nulls or no
//! cells → an all-NA `lgl` (which [`crate::model::typing`] accepts as any type); objects →
//! a list of nested tables (one level only, as v1 `samples.locations`). `null` is NA
//! everywhere. Mixing strings, booleans, numbers and objects in one column is an error.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::model::typing::MAX_EXACT_DOUBLE_INT;
use crate::model::{Table, Tables, Values};

/// Cells of a column while it is read, in the narrowest type seen so far.
enum Acc {
    /// Only nulls so far (the count).
    Nulls(usize),
    Int(Vec<Option<i32>>),
    Wide(Vec<Option<i64>>),
    U64(Vec<Option<u64>>),
    Dbl(Vec<Option<f64>>),
    Chr(Vec<Option<String>>),
    Lgl(Vec<Option<bool>>),
    List(Vec<Option<Table>>),
}

/// One JSON scalar or nested table.
enum Cell {
    Null,
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    Str(String),
    Table(Table),
}

fn nulls<T>(n: usize) -> Vec<Option<T>> {
    std::iter::repeat_with(|| None).take(n).collect()
}

fn widen<T: Copy, U>(cells: &[Option<T>], f: impl Fn(T) -> U) -> Vec<Option<U>> {
    cells.iter().map(|c| c.map(&f)).collect()
}

#[allow(clippy::cast_precision_loss)]
fn i64_to_f64(x: i64) -> f64 {
    x as f64
}

#[allow(clippy::cast_precision_loss)]
fn u64_to_f64(x: u64) -> f64 {
    x as f64
}

impl Acc {
    fn len(&self) -> usize {
        match self {
            Acc::Nulls(n) => *n,
            Acc::Int(v) => v.len(),
            Acc::Wide(v) => v.len(),
            Acc::U64(v) => v.len(),
            Acc::Dbl(v) => v.len(),
            Acc::Chr(v) => v.len(),
            Acc::Lgl(v) => v.len(),
            Acc::List(v) => v.len(),
        }
    }

    fn kind_word(&self) -> &'static str {
        match self {
            Acc::Nulls(_) => "nulls",
            Acc::Int(_) | Acc::Wide(_) | Acc::U64(_) | Acc::Dbl(_) => "numbers",
            Acc::Chr(_) => "strings",
            Acc::Lgl(_) => "booleans",
            Acc::List(_) => "objects",
        }
    }

    /// Adds a cell, widening the type when needed; `Err` names the conflicting kinds.
    fn push(&mut self, cell: Cell) -> Result<(), String> {
        let word = cell_word(&cell);
        if let (Acc::Nulls(n), false) = (&*self, matches!(cell, Cell::Null)) {
            *self = Self::start(&cell, *n);
        }
        let ok = match (&mut *self, cell) {
            (Acc::Nulls(n), Cell::Null) => {
                *n += 1;
                true
            }
            (Acc::Int(v), Cell::Null) => push(v, None),
            (Acc::Wide(v), Cell::Null) => push(v, None),
            (Acc::U64(v), Cell::Null) => push(v, None),
            (Acc::Dbl(v), Cell::Null) => push(v, None),
            (Acc::Chr(v), Cell::Null) => push(v, None),
            (Acc::Lgl(v), Cell::Null) => push(v, None),
            (Acc::List(v), Cell::Null) => push(v, None),
            (Acc::Chr(v), Cell::Str(s)) => push(v, Some(s)),
            (Acc::Lgl(v), Cell::Bool(b)) => push(v, Some(b)),
            (Acc::List(v), Cell::Table(t)) => push(v, Some(t)),
            (acc, Cell::I64(x)) if acc.is_numeric() => acc.push_i64(x),
            (acc, Cell::U64(x)) if acc.is_numeric() => acc.push_u64(x),
            (acc, Cell::F64(x)) if acc.is_numeric() => acc.push_f64(x),
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(format!("a column of {} holds {word}", self.kind_word()))
        }
    }

    fn start(cell: &Cell, n: usize) -> Acc {
        match cell {
            Cell::Null | Cell::I64(_) | Cell::U64(_) => Acc::Int(nulls(n)),
            Cell::F64(_) => Acc::Dbl(nulls(n)),
            Cell::Bool(_) => Acc::Lgl(nulls(n)),
            Cell::Str(_) => Acc::Chr(nulls(n)),
            Cell::Table(_) => Acc::List(nulls(n)),
        }
    }

    fn is_numeric(&self) -> bool {
        matches!(self, Acc::Int(_) | Acc::Wide(_) | Acc::U64(_) | Acc::Dbl(_))
    }

    fn push_i64(&mut self, x: i64) -> bool {
        match self {
            Acc::Int(v) => match i32::try_from(x).ok().filter(|&x| x != i32::MIN) {
                Some(x) => v.push(Some(x)),
                None => {
                    let mut w = widen(v, i64::from);
                    w.push(Some(x));
                    *self = Acc::Wide(w);
                }
            },
            Acc::Wide(v) => v.push(Some(x)),
            Acc::U64(v) => match u64::try_from(x) {
                Ok(u) => v.push(Some(u)),
                Err(_) => {
                    let mut d = widen(v, u64_to_f64);
                    d.push(Some(i64_to_f64(x)));
                    *self = Acc::Dbl(d);
                }
            },
            Acc::Dbl(v) => v.push(Some(i64_to_f64(x))),
            _ => return false,
        }
        true
    }

    fn push_u64(&mut self, x: u64) -> bool {
        if let Ok(i) = i64::try_from(x) {
            return self.push_i64(i);
        }
        match self {
            Acc::Int(v) => {
                let mut u = widen(v, |x| u64::try_from(x).unwrap_or_default());
                let negative = v.iter().flatten().any(|&x| x < 0);
                u.push(Some(x));
                *self = if negative {
                    Acc::Dbl(widen(&u, u64_to_f64))
                } else {
                    Acc::U64(u)
                };
            }
            Acc::Wide(v) => {
                let negative = v.iter().flatten().any(|&x| x < 0);
                *self = if negative {
                    let mut d = widen(v, i64_to_f64);
                    d.push(Some(u64_to_f64(x)));
                    Acc::Dbl(d)
                } else {
                    let mut u = widen(v, |x| u64::try_from(x).unwrap_or_default());
                    u.push(Some(x));
                    Acc::U64(u)
                };
            }
            Acc::U64(v) => v.push(Some(x)),
            Acc::Dbl(v) => v.push(Some(u64_to_f64(x))),
            _ => return false,
        }
        true
    }

    fn push_f64(&mut self, x: f64) -> bool {
        let mut d = match std::mem::replace(self, Acc::Nulls(0)) {
            Acc::Int(v) => widen(&v, f64::from),
            Acc::Wide(v) => widen(&v, i64_to_f64),
            Acc::U64(v) => widen(&v, u64_to_f64),
            Acc::Dbl(v) => v,
            other => {
                *self = other;
                return false;
            }
        };
        d.push(Some(x));
        *self = Acc::Dbl(d);
        true
    }

    fn finish(self) -> Values {
        match self {
            Acc::Nulls(n) => Values::Lgl(nulls(n)),
            Acc::Int(v) => Values::Int(v),
            Acc::Wide(v) => wide_values(v),
            Acc::U64(v) => Values::U64(v),
            Acc::Dbl(v) => Values::Dbl(v),
            Acc::Chr(v) => Values::Chr(v),
            Acc::Lgl(v) => Values::Lgl(v),
            Acc::List(v) => Values::List(v),
        }
    }
}

fn push<T>(v: &mut Vec<Option<T>>, x: Option<T>) -> bool {
    v.push(x);
    true
}

/// Integers beyond the int range: `dbl` while exact, `u64` when larger and non-negative.
fn wide_values(v: Vec<Option<i64>>) -> Values {
    let exact = v
        .iter()
        .flatten()
        .all(|&x| i64_to_f64(x).abs() <= MAX_EXACT_DOUBLE_INT);
    let non_negative = v.iter().flatten().all(|&x| x >= 0);
    if !exact && non_negative {
        Values::U64(widen(&v, |x| u64::try_from(x).unwrap_or_default()))
    } else {
        Values::Dbl(widen(&v, i64_to_f64))
    }
}

fn cell_word(c: &Cell) -> &'static str {
    match c {
        Cell::Null => "a null",
        Cell::Bool(_) => "a boolean",
        Cell::I64(_) | Cell::U64(_) | Cell::F64(_) => "a number",
        Cell::Str(_) => "a string",
        Cell::Table(_) => "an object",
    }
}

/// A visitor used as a seed: every value of this parse is self-describing JSON, so each seed
/// is `deserialize_any` with its visitor.
struct Any<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Any<V> {
    type Value = V::Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        d.deserialize_any(self.0)
    }
}

/// Parses a document; also returns the names of dotted components that are not tables of
/// columns (kept as tables without columns, so their presence still counts).
pub(super) fn parse(bytes: &[u8]) -> Result<(Tables, Vec<String>), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed = Any(DocumentVisitor).deserialize(&mut de)?;
    de.end()?;
    Ok(parsed)
}

struct DocumentVisitor;

impl<'de> Visitor<'de> for DocumentVisitor {
    type Value = (Tables, Vec<String>);

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object whose keys are table names")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut tables = Tables::default();
        let mut not_tables = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            let table = if name.starts_with('.') {
                let value: Value = map.next_value()?;
                table_from_value(&value).unwrap_or_else(|| {
                    not_tables.push(name.clone());
                    Table::default()
                })
            } else {
                map.next_value_seed(Any(TableVisitor {
                    name: &name,
                    nested: false,
                }))?
            };
            tables.tables.push((name, table));
        }
        Ok((tables, not_tables))
    }
}

/// One table: an object of column arrays. `nested` tables (cells of a list column) may not
/// hold list columns themselves.
struct TableVisitor<'a> {
    name: &'a str,
    nested: bool,
}

impl<'de> Visitor<'de> for TableVisitor<'_> {
    type Value = Table;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "table {} as an object of column arrays", self.name)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Table, A::Error> {
        let mut table = Table::default();
        while let Some(column) = map.next_key::<String>()? {
            let values = map.next_value_seed(Any(ColumnVisitor {
                table: self.name,
                column: &column,
                nested: self.nested,
            }))?;
            table.columns.push((column, values));
        }
        Ok(table)
    }
}

struct ColumnVisitor<'a> {
    table: &'a str,
    column: &'a str,
    nested: bool,
}

impl<'de> Visitor<'de> for ColumnVisitor<'_> {
    type Value = Values;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "column {}.{} as an array", self.table, self.column)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Values, A::Error> {
        let mut acc = Acc::Nulls(0);
        let place = format!("{}.{}", self.table, self.column);
        loop {
            let row = acc.len();
            let seed = CellVisitor {
                place: &place,
                row,
                nested: self.nested,
            };
            let Some(cell) = seq.next_element_seed(Any(seed))? else {
                break;
            };
            acc.push(cell)
                .map_err(|e| de::Error::custom(format!("{place}[{row}]: {e}")))?;
        }
        Ok(acc.finish())
    }
}

struct CellVisitor<'a> {
    place: &'a str,
    row: usize,
    nested: bool,
}

impl<'de> Visitor<'de> for CellVisitor<'_> {
    type Value = Cell;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}[{}] to be null, a boolean, a number, a string or a table object",
            self.place, self.row
        )
    }

    fn visit_unit<E: de::Error>(self) -> Result<Cell, E> {
        Ok(Cell::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Cell, E> {
        Ok(Cell::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Cell, E> {
        Ok(Cell::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Cell, E> {
        Ok(Cell::I64(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Cell, E> {
        Ok(Cell::U64(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Cell, E> {
        Ok(Cell::F64(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cell, E> {
        Ok(Cell::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Cell, E> {
        Ok(Cell::Str(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Cell, A::Error> {
        if self.nested {
            return Err(de::Error::custom(format!(
                "{}[{}]: a table nested in a table nested in a table",
                self.place, self.row
            )));
        }
        let name = format!("{}[{}]", self.place, self.row);
        TableVisitor {
            name: &name,
            nested: true,
        }
        .visit_map(map)
        .map(Cell::Table)
    }
}

/// A dotted component as a table when it has that shape (an object of arrays of scalars, or
/// of objects of such arrays).
fn table_from_value(v: &Value) -> Option<Table> {
    table_from_object(v, false)
}

fn table_from_object(v: &Value, nested: bool) -> Option<Table> {
    let Value::Object(map) = v else {
        return None;
    };
    let mut table = Table::default();
    for (name, column) in map {
        let Value::Array(cells) = column else {
            return None;
        };
        let mut acc = Acc::Nulls(0);
        for cell in cells {
            acc.push(cell_from_value(cell, nested)?).ok()?;
        }
        table.columns.push((name.clone(), acc.finish()));
    }
    Some(table)
}

fn cell_from_value(v: &Value, nested: bool) -> Option<Cell> {
    Some(match v {
        Value::Null => Cell::Null,
        Value::Bool(b) => Cell::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Cell::U64(u),
            (_, Some(i), _) => Cell::I64(i),
            (_, _, Some(f)) => Cell::F64(f),
            _ => return None,
        },
        Value::String(s) => Cell::Str(s.clone()),
        Value::Object(_) if !nested => Cell::Table(table_from_object(v, true)?),
        _ => return None,
    })
}
