//! Apple Instruments "deep copy" text: the call tree of a Time Profiler, Counters (cycles) or
//! Allocations view copied with Edit › Deep Copy (Instruments 7 to 16). Tab-separated, a header
//! line naming the columns, then one row per call-tree node, its depth given by the spaces
//! before the symbol name.
//!
//! Reading:
//! * One sample per row, its stack the path from the outermost row to it (so nothing of the
//!   tree is lost, a row without self weight gives a sample of value 0). The sample's value is
//!   the node's **self** weight: its total (`Weight`, `Running Time`, `Bytes Used`) minus the
//!   totals of its children, as speedscope computes it, so every node's subtree sums to its
//!   total cell. The `Self Weight` / `Self (ms)` column is not read: it is derived data, and
//!   where Instruments left rows out of the copy it disagrees with the totals.
//! * Value type by the unit of the weights: times (`ns` … `min`) → `time`/`nanoseconds`,
//!   cycles (`c`, `Kc`, `Mc`, `Gc`) → `cycles`/`count`, sizes (`Bytes`, `KB`, `MB`, `GB`; 1024
//!   based, as Instruments) → `bytes_used`/`bytes`; the allocations layout's `Count` (a total
//!   column too) → `allocations`/`count`. Values are rounded to whole units: the text holds
//!   what Instruments displays (2 decimals of a scaled unit), so sums agree with the file to
//!   that precision.
//! * Symbol names are kept verbatim (`example_app (40414)` is a process row); `Source Path`,
//!   when present, is the function's file.
//! * Warnings: columns not kept, rows whose children weigh more than the row (rounding; their
//!   self weight is 0). Errors: a row deeper than one below its parent or shallower than the
//!   first, a weight that does not parse, units of two kinds in one column.

mod grammar;
mod read;

use super::sniff::Sniff;
pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "instruments";

/// Bytes [`detect`] examines.
const DETECT_PREFIX_BYTES: usize = 4096;

/// True when the text fits Instruments' deep copy: see [`sniff`].
pub fn detect(bytes: &[u8]) -> bool {
    matches!(sniff(bytes), Sniff::Fits)
}

/// The text fits when the first line is a tab-separated header with a symbol-name column and a
/// known weight column, and the next line's weight cell is a quantity with its percentage
/// (`12.00 ms   50.0%`).
pub fn sniff(bytes: &[u8]) -> Sniff {
    let text = super::read_common::text_prefix(bytes, DETECT_PREFIX_BYTES);
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return Sniff::Foreign;
    };
    let Some(columns) = grammar::Columns::from_header(header) else {
        return match header.contains('\t') && header.contains("Weight") {
            true => Sniff::near(
                1,
                "line 1 names no symbol column and no known weight column",
            ),
            false => Sniff::Foreign,
        };
    };
    let Some(row) = lines.next() else {
        return Sniff::near(2, "the header is followed by no row");
    };
    let cells: Vec<&str> = row.split('\t').collect();
    match cells
        .get(columns.total)
        .and_then(|c| grammar::total_cell(c))
    {
        Some(_) => Sniff::Fits,
        None => Sniff::near(
            2,
            "line 2 has no weight with its share (`12.00 ms   50.0%`)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_needs_header_and_weight() {
        assert!(detect(
            b"Weight\tSelf Weight\tSymbol Names\n4.93 s  100.0%\t0 s\t   start\n"
        ));
        assert!(!detect(
            b"Weight\tSelf Weight\tSymbol Names\nx\t0 s\tstart\n"
        ));
        assert!(!detect(b"a;b 1\n"));
        assert!(!detect(b"Weight Symbol Name\n1 ms 1%\n"));
    }
}
