//! Helpers of the reliability suites (`corpus_all`, `reliab_*`): what a read gave as one
//! printable line, and the checks every successful read must pass whatever the input
//! (a tables-JSON round trip with bit-identical totals, function tables that add up).
//!
//! Outcome lines leave out what changes when a reader is added (the list of readable
//! formats), so recorded outcomes stay stable.

use proftab::analysis::functions::function_table;
use proftab::formats::{read_any, tables_json, Parsed, ReadError, ReadOptions, WriteOptions};
use proftab::model::{Profile, ValueTypeIndex};

/// Error names an error may carry: a format, or `input` (nothing recognized / empty input) or
/// `gzip` (the container around an unknown payload).
pub fn error_names_a_format(e: &ReadError) -> bool {
    let known = proftab::formats::ALL_FORMATS
        .iter()
        .any(|f| f.name() == e.format);
    let container = e.format == "input" || e.format == "gzip" || e.format == "zstd";
    (known || container) && !e.message.is_empty()
}

/// What a read gave, as one line: `ok FORMAT` plus the warnings, or `err MESSAGE`. The list
/// of readable formats that ends "unrecognized format" messages is left out, so recorded
/// outcomes do not change when a reader is added.
pub fn outcome_line(result: &Result<Parsed, ReadError>) -> String {
    match result {
        Err(e) => {
            let text = e.to_string();
            let kept = text
                .split_once("; proftab reads ")
                .map_or(&*text, |(head, _)| head);
            format!("err {kept}")
        }
        Ok(p) => {
            let warnings: Vec<String> = p.warnings.iter().map(ToString::to_string).collect();
            format!("ok {} [{}]", p.format.name(), warnings.join(" | "))
        }
    }
}

/// `(type, unit, total)` of every value type, in column order.
pub fn totals(p: &Profile) -> Vec<(String, String, f64)> {
    (0..p.values.len())
        .map(|i| {
            let vt = ValueTypeIndex(i as u32);
            let (t, u) = p.value_type_names(vt);
            (t.to_owned(), u.to_owned(), p.values[i].total())
        })
        .collect()
}

/// Writes `p` as tables-JSON and reads it back (through `read_any`, so detection is checked
/// too); the totals of every value type must be bit-identical.
pub fn assert_tables_json_round_trip(p: &Profile, what: &str) {
    let written = tables_json::write(p, &WriteOptions::default())
        .unwrap_or_else(|e| panic!("{what}: tables-JSON write failed: {e}"));
    let back = read_any(&written.bytes, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{what}: tables-JSON read back failed: {e}"));
    assert_eq!(
        back.format,
        proftab::formats::Format::TablesJson,
        "{what}: tables-JSON output detected as another format"
    );
    let (before, after) = (totals(p), totals(&back.profile));
    assert_eq!(before.len(), after.len(), "{what}: value types differ");
    for (b, a) in before.iter().zip(&after) {
        assert!(
            b.0 == a.0 && b.1 == a.1 && b.2.to_bits() == a.2.to_bits(),
            "{what}: totals differ after a tables-JSON round trip: {b:?} vs {a:?}"
        );
    }
    assert_eq!(
        p.num_samples(),
        back.profile.num_samples(),
        "{what}: samples"
    );
}

/// Runs the function table of every value type and checks what must hold whatever the data:
/// no row's self or total exceeds the type's total (values are non-negative in every reader),
/// and the self values sum to at most the total.
pub fn assert_function_tables(p: &Profile, what: &str) {
    for i in 0..p.values.len() {
        let vt = ValueTypeIndex(i as u32);
        let table = function_table(p, vt, None);
        let slack = 1e-9 * table.total.abs().max(1.0);
        let self_sum: f64 = table.rows.iter().map(|r| r.self_value).sum();
        if table.rows.iter().any(|r| r.self_value < 0.0) {
            continue; // negative values (differential data) make the bounds meaningless
        }
        assert!(
            self_sum <= table.total + slack,
            "{what}: self values sum to {self_sum} > total {}",
            table.total
        );
        for row in &table.rows {
            assert!(
                row.total_value <= table.total + slack && row.self_value <= row.total_value + slack,
                "{what}: row {:?} has self {} total {} (type total {})",
                row.name,
                row.self_value,
                row.total_value,
                table.total
            );
        }
    }
}
