//! One mutation test per rule of the v2 table model (docs/model.md): a valid document, one
//! change, the expected violations. Plus the physical `Profile::validate`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::model::validate::{MAX_ROWS_PER_RULE, V2_TABLES};
use proftab::model::{
    validate_v2, Cell, ColumnKind, FunctionIndex, FunctionKey, Profile, ProfileBuilder, StringId,
    Tables, Values, Violation, INT_NA,
};
use support::tables::*;

/// The violations of `t` as text.
fn check(t: &Tables) -> Vec<String> {
    texts(&validate_v2(t))
}

fn mutated(f: impl FnOnce(&mut Tables)) -> Vec<String> {
    let mut t = valid_v2();
    f(&mut t);
    check(&t)
}

#[test]
fn the_valid_document_is_valid() {
    assert_eq!(check(&valid_v2()), Vec::<String>::new());
}

#[test]
fn display_names_table_column_row_and_value() {
    let v = Violation::new(
        "functions",
        Some("name"),
        Some(3),
        Some("\"\"".into()),
        "must not be empty",
    );
    assert_eq!(
        v.to_string(),
        "functions.name row 3 (value \"\"): must not be empty"
    );
    let v = Violation::new("meta", None, None, None, "required table is missing");
    assert_eq!(v.to_string(), "meta: required table is missing");
}

// Rule 1: tables.

#[test]
fn each_required_table_must_be_present() {
    for name in V2_TABLES {
        let got = mutated(|t| drop_table(t, name));
        assert!(
            got.contains(&format!("{name}: required table is missing")),
            "{name}: {got:?}"
        );
    }
}

#[test]
fn a_table_must_not_appear_twice() {
    let got = mutated(|t| {
        let meta = t.table("meta").unwrap().clone();
        t.tables.push(("meta".into(), meta));
    });
    assert_eq!(got, ["meta: table appears more than once"]);
}

#[test]
fn extension_tables_are_allowed_in_any_order() {
    let got = mutated(|t| {
        t.tables.reverse();
        t.tables.push((
            "mappings".into(),
            table(vec![("mapping_id", int(&[1])), ("file", chr(&["libc.so"]))]),
        ));
    });
    assert_eq!(got, Vec::<String>::new());
}

#[test]
fn extension_table_columns_must_have_equal_lengths() {
    let got = mutated(|t| {
        t.tables.push((
            "mappings".into(),
            table(vec![
                ("mapping_id", int(&[1, 2])),
                ("file", chr(&["libc.so"])),
            ]),
        ));
    });
    assert_eq!(
        got,
        ["mappings.file: has 1 rows but column mapping_id has 2"]
    );
}

// Rule 2: columns.

#[test]
fn a_required_column_must_be_present() {
    let got = mutated(|t| drop_column(t, "sources", "source_uri"));
    assert_eq!(got, ["sources.source_uri: required column is missing"]);
}

#[test]
fn required_columns_must_be_in_order() {
    let got = mutated(|t| t.table_mut("sample_locations").unwrap().columns.swap(0, 1));
    assert_eq!(
        got,
        [
            "sample_locations.sample_id: must be column 1 (found as column 2)",
            "sample_locations.depth: must be column 2 (found as column 1)",
        ]
    );
}

#[test]
fn every_required_column_must_have_its_type() {
    let schema = proftab::model::validate::V2_SCHEMA;
    for (name, columns) in schema {
        for (column, ty) in columns {
            let rows = valid_v2().table(name).unwrap().nrow();
            let (wrong, found, wanted) = match ty {
                proftab::model::validate::ColType::Kind(ColumnKind::Chr) => {
                    (Values::Int(vec![Some(1); rows]), "int", "chr")
                }
                proftab::model::validate::ColType::Kind(ColumnKind::Int) => {
                    (Values::Chr(vec![Some("1".into()); rows]), "chr", "int")
                }
                _ => (Values::Chr(vec![Some("1".into()); rows]), "chr", "dbl"),
            };
            let got = mutated(|t| set(t, name, column, wrong));
            let want = format!("{name}.{column}: must be {wanted}, found {found}");
            assert!(got.contains(&want), "{want}: {got:?}");
        }
    }
}

#[test]
fn an_int_column_may_arrive_as_integral_doubles() {
    let got = mutated(|t| set(t, "samples", "source_id", dbl(&[10.0, 10.0, 20.0])));
    assert_eq!(got, Vec::<String>::new());
}

#[test]
fn an_int_column_with_a_fraction_is_rejected() {
    let got = mutated(|t| set(t, "samples", "source_id", dbl(&[10.0, 10.5, 20.0])));
    assert_eq!(
        got,
        ["samples.source_id row 2 (value 10.5): must be int, found dbl with a value that is not an int"]
    );
}

#[test]
fn a_dbl_column_may_arrive_as_ints() {
    let got = mutated(|t| set(t, "sample_values", "value", int(&[1, 1, 2, 20000])));
    assert_eq!(got, Vec::<String>::new());
}

#[test]
fn an_all_na_logical_column_fits_any_type() {
    let got = mutated(|t| set(t, "sources", "source_uri", Values::Lgl(vec![None, None])));
    assert_eq!(got, Vec::<String>::new());
}

#[test]
fn a_logical_column_with_values_is_not_text() {
    let got = mutated(|t| {
        set(
            t,
            "sources",
            "source_uri",
            Values::Lgl(vec![Some(true), None]),
        )
    });
    assert_eq!(got, ["sources.source_uri: must be chr, found lgl"]);
}

#[test]
fn extra_columns_must_start_with_a_dot() {
    let got = mutated(|t| set(t, "functions", "extra", chr(&["a", "b"])));
    assert_eq!(
        got,
        ["functions.extra: is not a required column; extra columns must start with a dot"]
    );
}

#[test]
fn dotted_columns_after_the_required_ones_are_allowed() {
    let got = mutated(|t| {
        set(t, "functions", ".module", chr(&["a", "b"]));
        set(t, "samples", ".time", dbl(&[0.0, 0.5, 1.0]));
    });
    assert_eq!(got, Vec::<String>::new());
}

#[test]
fn dotted_columns_must_come_after_the_required_ones() {
    let got = mutated(|t| {
        t.table_mut("meta")
            .unwrap()
            .columns
            .insert(0, (".note".into(), chr(&["x", "y"])));
    });
    assert_eq!(
        got,
        [
            "meta..note: extra columns must come after the required columns",
            "meta.key: must be column 1 (found as column 2)",
            "meta.value: must be column 2 (found as column 3)",
        ]
    );
}

#[test]
fn a_column_must_not_appear_twice() {
    let got = mutated(|t| {
        let table = t.table_mut("functions").unwrap();
        table.columns.push((".x".into(), int(&[1, 2])));
        table.columns.push((".x".into(), int(&[1, 2])));
    });
    assert_eq!(got, ["functions..x: column appears more than once"]);
}

#[test]
fn columns_of_a_table_must_have_equal_lengths() {
    let got = mutated(|t| set(t, "samples", "source_id", int(&[10, 10])));
    assert_eq!(
        got,
        ["samples.source_id: has 2 rows but column sample_id has 3"]
    );
}

// Rule 3: meta version.

#[test]
fn meta_must_have_a_version_row() {
    let got = mutated(|t| {
        set(t, "meta", "key", chr(&["release", "pprof.period"]));
    });
    assert_eq!(got, ["meta.key: required row key = \"version\" is missing"]);
}

#[test]
fn meta_version_must_be_2_0() {
    let got = mutated(|t| set(t, "meta", "value", chr(&["1.0", "10"])));
    assert_eq!(
        got,
        ["meta.value row 1 (value \"1.0\"): version must be \"2.0\""]
    );
}

#[test]
fn meta_version_must_appear_once() {
    let got = mutated(|t| {
        set(t, "meta", "key", chr(&["version", "version"]));
        set(t, "meta", "value", chr(&["2.0", "2.0"]));
    });
    assert_eq!(
        got,
        ["meta.key row 2 (value \"version\"): key \"version\" appears more than once"]
    );
}

// Rule 4: primary keys.

const PRIMARY_KEYS: [(&str, &str); 4] = [
    ("sources", "source_id"),
    ("samples", "sample_id"),
    ("locations", "location_id"),
    ("functions", "function_id"),
];

fn with_cell(t: &Tables, name: &str, column: &str, row: usize, x: Option<i32>) -> Values {
    let Some(Values::Int(mut cells)) = t.table(name).unwrap().column(column).cloned() else {
        panic!("int column");
    };
    cells[row] = x;
    Values::Int(cells)
}

#[test]
fn primary_keys_must_be_unique() {
    for (name, column) in PRIMARY_KEYS {
        let got = mutated(|t| {
            let first = t.table(name).unwrap().column(column).cloned();
            let Some(Values::Int(cells)) = first else {
                panic!()
            };
            let v = with_cell(t, name, column, 1, cells[0]);
            set(t, name, column, v);
        });
        let first = valid_v2();
        let Some(Values::Int(cells)) = first.table(name).unwrap().column(column) else {
            panic!()
        };
        let want = format!(
            "{name}.{column} row 2 (value {}): must be unique (primary key)",
            cells[0].unwrap()
        );
        assert!(got.contains(&want), "{want}: {got:?}");
    }
}

#[test]
fn primary_keys_must_not_be_na() {
    for (name, column) in PRIMARY_KEYS {
        let got = mutated(|t| {
            let v = with_cell(t, name, column, 1, None);
            set(t, name, column, v);
        });
        let want = format!("{name}.{column} row 2 (value NA): must not be NA");
        assert!(got.contains(&want), "{want}: {got:?}");
    }
}

// Rule 5: foreign keys.

const FOREIGN_KEYS: [(&str, &str, &str); 5] = [
    ("samples", "source_id", "sources.source_id"),
    ("sample_values", "sample_id", "samples.sample_id"),
    ("sample_locations", "sample_id", "samples.sample_id"),
    ("sample_locations", "location_id", "locations.location_id"),
    ("locations", "function_id", "functions.function_id"),
];

#[test]
fn foreign_keys_must_resolve() {
    for (name, column, target) in FOREIGN_KEYS {
        let got = mutated(|t| {
            let v = with_cell(t, name, column, 0, Some(999));
            set(t, name, column, v);
        });
        let want = format!("{name}.{column} row 1 (value 999): does not match any {target}");
        assert!(got.contains(&want), "{want}: {got:?}");
    }
}

#[test]
fn foreign_keys_must_not_be_na_except_function_id() {
    for (name, column, _) in FOREIGN_KEYS {
        let got = mutated(|t| {
            let v = with_cell(t, name, column, 0, None);
            set(t, name, column, v);
        });
        let want = format!("{name}.{column} row 1 (value NA): must not be NA");
        if column == "function_id" {
            assert_eq!(got, Vec::<String>::new());
        } else {
            assert!(got.contains(&want), "{want}: {got:?}");
        }
    }
}

// Rule 6: compound keys.

#[test]
fn sample_id_and_type_must_be_unique() {
    let got = mutated(|t| {
        set(
            t,
            "sample_values",
            "type",
            chr(&["samples", "samples", "samples", "samples"]),
        )
    });
    assert_eq!(
        got,
        ["sample_values.type row 4 (value (1, \"samples\")): (sample_id, type) appears more than once"]
    );
}

#[test]
fn value_type_must_not_be_na() {
    let got = mutated(|t| {
        set(
            t,
            "sample_values",
            "type",
            chr_na(&[Some("samples"), Some("samples"), Some("samples"), None]),
        );
    });
    assert_eq!(
        got,
        ["sample_values.type row 4 (value NA): must not be NA (it is part of the key (sample_id, type))"]
    );
}

#[test]
fn sample_id_and_depth_must_be_unique() {
    let got = mutated(|t| set(t, "sample_locations", "depth", int(&[1, 1, 1, 1, 2, 3])));
    assert_eq!(
        got,
        ["sample_locations.depth row 2 (value 1): (sample_id, depth) = (1, 1) appears more than once"]
    );
}

// Rule 7: depths 1..n.

#[test]
fn depths_must_run_without_gaps() {
    let got = mutated(|t| set(t, "sample_locations", "depth", int(&[1, 2, 1, 1, 2, 4])));
    assert_eq!(
        got,
        ["sample_locations.depth row 6 (value 4): sample_id 3 has 3 rows, so its depths must run 1..3 without gaps"]
    );
}

#[test]
fn depths_start_at_one() {
    let got = mutated(|t| set(t, "sample_locations", "depth", int(&[0, 1, 1, 1, 2, 3])));
    assert_eq!(
        got,
        ["sample_locations.depth row 1 (value 0): sample_id 1 has 2 rows, so its depths must run 1..2 without gaps"]
    );
}

#[test]
fn depth_must_not_be_na() {
    let got = mutated(|t| {
        set(
            t,
            "sample_locations",
            "depth",
            int_na(&[Some(1), Some(2), None, Some(1), Some(2), Some(3)]),
        );
    });
    assert_eq!(
        got,
        ["sample_locations.depth row 3 (value NA): must not be NA"]
    );
}

// Rule 8: line numbers.

#[test]
fn line_must_be_non_negative() {
    let got = mutated(|t| set(t, "locations", "line", int_na(&[Some(-1), Some(0), None])));
    assert_eq!(
        got,
        ["locations.line row 1 (value -1): must be non-negative or NA"]
    );
}

#[test]
fn start_line_must_be_non_negative() {
    let got = mutated(|t| set(t, "functions", "start_line", int_na(&[Some(1), Some(-5)])));
    assert_eq!(
        got,
        ["functions.start_line row 2 (value -5): must be non-negative or NA"]
    );
}

// Rule 9: names.

#[test]
fn names_must_not_be_empty() {
    for column in ["name", "system_name"] {
        let got = mutated(|t| set(t, "functions", column, chr(&["f", ""])));
        assert_eq!(
            got,
            [format!(
                "functions.{column} row 2 (value \"\"): must not be empty"
            )]
        );
        let got = mutated(|t| set(t, "functions", column, chr_na(&[None, Some("g")])));
        assert_eq!(
            got,
            [format!(
                "functions.{column} row 1 (value NA): must not be NA"
            )]
        );
    }
}

// Reporting.

#[test]
fn every_violation_is_reported() {
    let got = mutated(|t| {
        set(t, "functions", "name", chr(&["", ""]));
        set(t, "locations", "line", int_na(&[Some(-1), Some(-2), None]));
        set(t, "meta", "value", chr(&["3", "10"]));
        drop_table(t, "sources");
    });
    assert_eq!(
        got,
        [
            "sources: required table is missing",
            "meta.value row 1 (value \"3\"): version must be \"2.0\"",
            "locations.line row 1 (value -1): must be non-negative or NA",
            "locations.line row 2 (value -2): must be non-negative or NA",
            "functions.name row 1 (value \"\"): must not be empty",
            "functions.name row 2 (value \"\"): must not be empty",
        ]
    );
}

#[test]
fn rows_beyond_the_cap_are_counted() {
    let n = MAX_ROWS_PER_RULE + 5;
    let mut t = valid_v2();
    let ids: Vec<i32> = (1..=i32::try_from(n).unwrap()).collect();
    set(&mut t, "functions", "function_id", int(&ids));
    set(
        &mut t,
        "functions",
        "name",
        Values::Chr(vec![Some(String::new()); n]),
    );
    set(
        &mut t,
        "functions",
        "system_name",
        Values::Chr(vec![Some("f".into()); n]),
    );
    set(&mut t, "functions", "filename", Values::Chr(vec![None; n]));
    set(
        &mut t,
        "functions",
        "start_line",
        Values::Int(vec![Some(0); n]),
    );
    set(
        &mut t,
        "locations",
        "function_id",
        int_na(&[Some(1), Some(2), None]),
    );
    let got = check(&t);
    assert_eq!(got.len(), MAX_ROWS_PER_RULE + 1);
    assert_eq!(
        got.last().unwrap(),
        "functions.name: 5 more rows break the same rule (not listed)"
    );
}

// Profile::validate on the physical form.

fn small_profile() -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("manual", None, None);
    let vt = b.value_type("samples", "count");
    let f = b.function_named("main", Some("main.c"));
    let g = b.function_named("work", Some("main.c"));
    let l1 = b.location(Some(f), 3);
    let l2 = b.location(Some(g), 7);
    let stack = b.stack_leaf_first(&[l2, l1]);
    b.add_sample_with_values(src, stack, &[(vt, 1.0)]);
    b.add_sample_with_values(src, None, &[(vt, 2.0)]);
    b.build().unwrap()
}

fn physical(f: impl FnOnce(&mut Profile)) -> Vec<String> {
    let mut p = small_profile();
    f(&mut p);
    texts(&p.validate())
}

#[test]
fn a_built_profile_is_valid() {
    assert_eq!(physical(|_| {}), Vec::<String>::new());
}

#[test]
fn physical_meta_version_must_be_2_0() {
    let got = physical(|p| {
        let one = p.strings.intern("1.0");
        p.meta.value[0] = one;
    });
    assert_eq!(
        got,
        ["meta.value row 1 (value \"1.0\"): version must be \"2.0\""]
    );
}

#[test]
fn physical_names_and_lines() {
    let got = physical(|p| {
        let empty = p.strings.intern("");
        p.functions.name[1] = empty;
        p.functions.system_name[0] = StringId::NA;
        p.locations.line[0] = -3;
        p.functions.start_line[0] = INT_NA;
    });
    assert_eq!(
        got,
        [
            "locations.line row 1 (value -3): must be non-negative or NA",
            "functions.name row 2 (value \"\"): must not be empty",
            "functions.system_name row 1 (value NA): must not be NA",
        ]
    );
}

#[test]
fn physical_value_types_must_be_unique() {
    let got = physical(|p| {
        let dup = p.values[0].clone();
        p.values.push(dup);
    });
    assert_eq!(
        got,
        ["sample_values.type: value type \"samples\" appears twice, breaking the key (sample_id, type)"]
    );
}

#[test]
fn physical_broken_references_are_reported() {
    let got = physical(|p| p.locations.function[0] = 99);
    assert_eq!(
        got,
        ["locations.function_id: row 1 refers to a missing function"]
    );
}

#[test]
fn physical_extensions() {
    let got = physical(|p| {
        let _ = p.functions.ext.set("module", 0, Cell::Int(1));
        let _ = p.samples.ext.set(".time", 0, Cell::Dbl(0.5));
        p.ext_tables
            .push(proftab::model::ExtTable::new("column_types"));
        p.ext_tables
            .push(proftab::model::ExtTable::new("functions"));
    });
    assert_eq!(
        got,
        [
            "samples..time: has 1 cells but the table has 2 rows",
            "functions.module: extension columns must start with a dot",
            "functions.module: has 1 cells but the table has 2 rows",
            "column_types: an extension table must not take the name of a v2 table or a reserved one",
            "functions: an extension table must not take the name of a v2 table or a reserved one",
        ]
    );
}

#[test]
fn physical_function_keys_are_not_validated_twice() {
    // A function added twice with the same content is two rows, which v2 allows.
    let mut b = ProfileBuilder::new();
    let name = b.intern("f");
    let key = FunctionKey {
        name,
        system_name: name,
        filename: StringId::NA,
        start_line: 0,
    };
    let a = b.add_function(key);
    let c = b.add_function(key);
    assert_ne!(a, c);
    assert_eq!(a, FunctionIndex(0));
    let p = b.build().unwrap();
    assert_eq!(texts(&p.validate()), Vec::<String>::new());
}
