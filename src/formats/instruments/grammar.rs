//! The grammar of a deep copy: which header column is what, and the weight cells
//! (`4273.0ms   99.9%`, `96.08 Gc  100.0%`, ` 429.93 MB     100.0%`, `0 s`, `-`).

/// Roles of the header's columns (0-based indices).
#[derive(Debug)]
pub(super) struct Columns {
    /// The total weight (`Weight`, `Running Time`, `Bytes Used`).
    pub total: usize,
    /// The allocations layout's `Count` (a total).
    pub count: Option<usize>,
    /// `Symbol Name` / `Symbol Names`.
    pub symbol: usize,
    /// `Source Path`.
    pub source: Option<usize>,
    /// Named columns not kept.
    pub unknown: Vec<String>,
}

impl Columns {
    /// The roles of `header`'s columns; `None` without a symbol or a total column.
    pub fn from_header(header: &str) -> Option<Columns> {
        let (mut total, mut symbol) = (None, None);
        let mut columns = Columns {
            total: 0,
            count: None,
            symbol: 0,
            source: None,
            unknown: Vec::new(),
        };
        for (i, name) in header.trim_end_matches('\r').split('\t').enumerate() {
            match name.trim() {
                "Weight" | "Running Time" | "Bytes Used" => total = Some(i),
                // Derived from the tree (total minus children), so not read: see mod.rs.
                "Self Weight" | "Self" | "Self (ms)" => {}
                "Count" => columns.count = Some(i),
                "Symbol Name" | "Symbol Names" => symbol = Some(i),
                "Source Path" => columns.source = Some(i),
                "" => {}
                other => columns.unknown.push(other.to_owned()),
            }
        }
        columns.total = total?;
        columns.symbol = symbol?;
        Some(columns)
    }
}

/// The kind of quantity a unit measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Time,
    Cycles,
    Bytes,
    Count,
}

impl Kind {
    /// The value type and unit of this kind.
    pub fn value_type(self) -> (&'static str, &'static str) {
        match self {
            Kind::Time => ("time", "nanoseconds"),
            Kind::Cycles => ("cycles", "count"),
            Kind::Bytes => ("bytes_used", "bytes"),
            Kind::Count => ("allocations", "count"),
        }
    }
}

/// The kind of `unit` and its factor to the value type's unit.
pub(super) fn unit(unit: &str) -> Option<(Kind, f64)> {
    Some(match unit {
        "ns" => (Kind::Time, 1.0),
        "µs" | "us" => (Kind::Time, 1e3),
        "ms" => (Kind::Time, 1e6),
        "s" => (Kind::Time, 1e9),
        "min" => (Kind::Time, 60e9),
        "c" | "cycles" => (Kind::Cycles, 1.0),
        "Kc" => (Kind::Cycles, 1e3),
        "Mc" => (Kind::Cycles, 1e6),
        "Gc" => (Kind::Cycles, 1e9),
        "Tc" => (Kind::Cycles, 1e12),
        "Bytes" | "B" => (Kind::Bytes, 1.0),
        "KB" => (Kind::Bytes, 1024.0),
        "MB" => (Kind::Bytes, 1024.0 * 1024.0),
        "GB" => (Kind::Bytes, 1024.0 * 1024.0 * 1024.0),
        _ => return None,
    })
}

/// A quantity: `12.00 ms`, `4273.0ms`, `693` (unit `None`), `-` (0, unit `None`).
pub(super) fn quantity(cell: &str) -> Option<(f64, Option<&str>)> {
    let cell = cell.trim();
    if cell == "-" {
        return Some((0.0, None));
    }
    let end = cell
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(cell.len());
    let (number, rest) = cell.split_at(end);
    let value: f64 = number.parse().ok().filter(|v: &f64| v.is_finite())?;
    let rest = rest.trim();
    if rest.is_empty() {
        return Some((value, None));
    }
    rest.chars()
        .all(|c| c.is_alphabetic())
        .then_some((value, Some(rest)))
}

/// A total cell: a quantity followed by its percentage (`4.93 s  100.0%`), or a plain
/// quantity; the percentage is dropped (it is the share of the root's total).
pub(super) fn total_cell(cell: &str) -> Option<(f64, Option<&str>)> {
    let cell = cell.trim();
    let body = match cell.strip_suffix('%') {
        Some(rest) => {
            let (q, pct) = rest.trim_end().rsplit_once(' ')?;
            pct.parse::<f64>().ok()?;
            q
        }
        None => cell,
    };
    quantity(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells() {
        assert_eq!(total_cell("4273.0ms   99.9%"), Some((4273.0, Some("ms"))));
        assert_eq!(total_cell("96.08 Gc  100.0%"), Some((96.08, Some("Gc"))));
        assert_eq!(
            total_cell(" 429.93 MB     100.0%"),
            Some((429.93, Some("MB")))
        );
        assert_eq!(quantity("0 s"), Some((0.0, Some("s"))));
        assert_eq!(quantity("-"), Some((0.0, None)));
        assert_eq!(quantity("693"), Some((693.0, None)));
        assert_eq!(quantity("1,2 ms"), None);
        assert_eq!(total_cell("start"), None);
    }
}
