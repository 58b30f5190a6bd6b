//! Small hand-made tables documents for the model and tables-JSON tests: column and table
//! builders, a valid v2 and a valid v1 document (docs/model.md), and the edits the mutation
//! tests make to them. Every builder keeps the column order it is given.

use proftab::model::{Table, Tables, Values, Violation};

pub fn int(v: &[i32]) -> Values {
    Values::Int(v.iter().map(|&x| Some(x)).collect())
}

pub fn int_na(v: &[Option<i32>]) -> Values {
    Values::Int(v.to_vec())
}

pub fn dbl(v: &[f64]) -> Values {
    Values::Dbl(v.iter().map(|&x| Some(x)).collect())
}

pub fn dbl_na(v: &[Option<f64>]) -> Values {
    Values::Dbl(v.to_vec())
}

pub fn chr(v: &[&str]) -> Values {
    Values::Chr(v.iter().map(|s| Some((*s).to_owned())).collect())
}

pub fn chr_na(v: &[Option<&str>]) -> Values {
    Values::Chr(v.iter().map(|s| s.map(str::to_owned)).collect())
}

pub fn table(cols: Vec<(&str, Values)>) -> Table {
    Table::new(cols.into_iter().map(|(n, v)| (n.to_owned(), v)).collect())
}

pub fn tables(ts: Vec<(&str, Table)>) -> Tables {
    Tables {
        tables: ts.into_iter().map(|(n, t)| (n.to_owned(), t)).collect(),
    }
}

/// A valid v2 document with arbitrary (non-dense) ids, NA where the seed allows it, two
/// sources, two value types (one only on sample 1) and stacks of depth 2, 1 and 3.
pub fn valid_v2() -> Tables {
    tables(vec![
        (
            "meta",
            table(vec![
                ("key", chr(&["version", "pprof.period"])),
                ("value", chr(&["2.0", "10"])),
            ]),
        ),
        (
            "sources",
            table(vec![
                ("source_id", int(&[10, 20])),
                ("source_type", chr(&["rprof", "pprof"])),
                ("source_uri", chr_na(&[Some("a.out"), None])),
                ("source_timestamp", dbl_na(&[Some(1.5e9), None])),
            ]),
        ),
        (
            "samples",
            table(vec![
                ("sample_id", int(&[1, 2, 3])),
                ("source_id", int(&[10, 10, 20])),
            ]),
        ),
        (
            "sample_values",
            table(vec![
                ("sample_id", int(&[1, 2, 3, 1])),
                ("type", chr(&["samples", "samples", "samples", "time"])),
                ("unit", chr(&["count", "count", "count", "nanoseconds"])),
                ("value", dbl(&[1.0, 1.0, 2.0, 20000.0])),
            ]),
        ),
        (
            "sample_locations",
            table(vec![
                ("sample_id", int(&[1, 1, 2, 3, 3, 3])),
                ("depth", int(&[1, 2, 1, 1, 2, 3])),
                ("location_id", int(&[5, 6, 6, 5, 6, 7])),
            ]),
        ),
        (
            "locations",
            table(vec![
                ("location_id", int(&[5, 6, 7])),
                ("function_id", int_na(&[Some(100), Some(101), None])),
                ("line", int_na(&[Some(3), Some(0), None])),
            ]),
        ),
        (
            "functions",
            table(vec![
                ("function_id", int(&[100, 101])),
                ("name", chr(&["f", "g"])),
                ("system_name", chr(&["f", "g"])),
                ("filename", chr(&["a.R", ""])),
                ("start_line", int_na(&[Some(1), None])),
            ]),
        ),
    ])
}

/// The `meta` and `sample_types` tables every v1 document starts with.
pub fn v1_header() -> Vec<(&'static str, Table)> {
    vec![
        (
            "meta",
            table(vec![("key", chr(&["version"])), ("value", chr(&["1.0"]))]),
        ),
        (
            "sample_types",
            table(vec![("type", chr(&["samples"])), ("unit", chr(&["count"]))]),
        ),
    ]
}

/// A valid v1 document: two samples (values 2 and 1) over two locations.
pub fn valid_v1() -> Tables {
    let mut t = v1_header();
    t.extend(vec![
        (
            "samples",
            table(vec![
                ("value", int(&[2, 1])),
                (
                    "locations",
                    Values::List(vec![
                        Some(table(vec![("location_id", int(&[1, 2]))])),
                        Some(table(vec![("location_id", int(&[2]))])),
                    ]),
                ),
            ]),
        ),
        (
            "locations",
            table(vec![
                ("location_id", int(&[1, 2])),
                ("function_id", int_na(&[Some(1), None])),
                ("line", int(&[10, 0])),
            ]),
        ),
        (
            "functions",
            table(vec![
                ("function_id", int(&[1])),
                ("name", chr(&["f"])),
                ("system_name", chr(&["f"])),
                ("filename", chr(&["a.R"])),
                ("start_line", int(&[0])),
            ]),
        ),
    ]);
    tables(t)
}

/// Replaces (or appends) column `column` of table `name`.
pub fn set(t: &mut Tables, name: &str, column: &str, v: Values) {
    let table = t.table_mut(name).expect("table");
    match table.column_mut(column) {
        Some(c) => *c = v,
        None => table.columns.push((column.to_owned(), v)),
    }
}

/// Removes table `name`.
pub fn drop_table(t: &mut Tables, name: &str) {
    t.tables.retain(|(n, _)| n != name);
}

/// Removes column `column` of table `name`.
pub fn drop_column(t: &mut Tables, name: &str, column: &str) {
    t.table_mut(name)
        .expect("table")
        .columns
        .retain(|(n, _)| n != column);
}

pub fn texts(v: &[Violation]) -> Vec<String> {
    v.iter().map(ToString::to_string).collect()
}
