//! The legacy v1 format (docs/model.md): one mutation test per rule, the dispatch of
//! `validate_profile`, `v2_from_v1` (by hand and on a real Rprof file), `profile_from_v1` and
//! `v1_from_v2`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::hash::HashMap;

use proftab::model::convert::{profile_from_v1, tables_from_profile};
use proftab::model::v1::{is_package_version, v1_source_type};
use proftab::model::{
    profile_from_tables, v1_from_v2, v2_from_v1, validate_profile, validate_v1, Profile,
    ProfileBuilder, Table, Tables, Values,
};
use support::tables::*;

fn check(t: &Tables) -> Vec<String> {
    texts(&validate_v1(t))
}

fn mutated(f: impl FnOnce(&mut Tables)) -> Vec<String> {
    let mut t = valid_v1();
    f(&mut t);
    check(&t)
}

fn stacks(cells: Vec<Option<Table>>) -> Values {
    Values::List(cells)
}

fn ids(v: &[i32]) -> Option<Table> {
    Some(table(vec![("location_id", int(v))]))
}

#[test]
fn the_valid_document_is_valid() {
    assert_eq!(check(&valid_v1()), Vec::<String>::new());
}

// Rule 1: tables in order, dotted extras after them.

#[test]
fn tables_must_be_in_order() {
    let got = mutated(|t| t.tables.swap(2, 3));
    assert_eq!(
        got,
        [
            "samples: must be table 3 (found as table 4)",
            "locations: must be table 4 (found as table 3)",
        ]
    );
}

#[test]
fn each_table_must_be_present() {
    let got = mutated(|t| drop_table(t, "sample_types"));
    assert_eq!(got, ["sample_types: required table is missing"]);
}

#[test]
fn extra_tables_must_start_with_a_dot() {
    let got = mutated(|t| t.tables.push(("extra".into(), Table::default())));
    assert_eq!(
        got,
        ["extra: is not a required table; extra tables must start with a dot"]
    );
}

#[test]
fn dotted_tables_must_come_after_the_required_ones() {
    let got = mutated(|t| t.tables.insert(1, (".rprof".into(), Table::default())));
    assert_eq!(
        got,
        [
            ".rprof: extra tables must come after the required tables",
            "sample_types: must be table 2 (found as table 3)",
            "samples: must be table 3 (found as table 4)",
            "locations: must be table 4 (found as table 5)",
            "functions: must be table 5 (found as table 6)",
        ]
    );
}

#[test]
fn dotted_tables_after_the_required_ones_are_ignored() {
    let got = mutated(|t| {
        t.tables
            .push((".rprof".into(), table(vec![("x", int(&[1, 2, 3]))])));
        t.tables.push((".msg".into(), Table::default()));
    });
    assert_eq!(got, Vec::<String>::new());
}

// Rule 2: columns.

#[test]
fn columns_must_be_the_required_ones_in_order() {
    let got = mutated(|t| t.table_mut("functions").unwrap().columns.swap(1, 2));
    assert_eq!(
        got,
        [
            "functions.name: must be column 2 (found as column 3)",
            "functions.system_name: must be column 3 (found as column 2)",
        ]
    );
    let got = mutated(|t| drop_column(t, "locations", "line"));
    assert_eq!(got, ["locations.line: required column is missing"]);
}

#[test]
fn extra_columns_must_be_dotted_and_last() {
    let got = mutated(|t| set(t, "meta", "note", chr(&["x"])));
    assert_eq!(
        got,
        ["meta.note: is not a required column; extra columns must start with a dot"]
    );
    let got = mutated(|t| {
        set(t, "meta", ".note", chr(&["x"]));
        set(t, "samples", ".time", dbl(&[0.0, 0.1]));
        set(t, "locations", ".address", int(&[1, 2]));
    });
    assert_eq!(got, Vec::<String>::new());
}

#[test]
fn columns_must_have_their_types() {
    let cases: [(&str, &str, Values, &str); 5] = [
        ("meta", "value", int(&[1]), "meta.value: must be chr, found int"),
        ("sample_types", "unit", int(&[1]), "sample_types.unit: must be chr, found int"),
        ("samples", "value", chr(&["2", "1"]), "samples.value: must be int, found chr"),
        (
            "samples",
            "locations",
            int(&[1, 2]),
            "samples.locations: must be a list of tables, found int",
        ),
        (
            "functions",
            "start_line",
            dbl(&[0.5]),
            "functions.start_line row 1 (value 0.5): must be int, found dbl with a value that is not an int",
        ),
    ];
    for (name, column, values, want) in cases {
        let got = mutated(|t| set(t, name, column, values));
        assert_eq!(got, [want]);
    }
}

#[test]
fn integral_doubles_are_ints() {
    let got = mutated(|t| set(t, "samples", "value", dbl(&[2.0, 1.0])));
    assert_eq!(got, Vec::<String>::new());
}

// Rule 3: meta.

#[test]
fn meta_has_one_row() {
    let got = mutated(|t| {
        set(t, "meta", "key", chr(&["version", "version"]));
        set(t, "meta", "value", chr(&["1.0", "1.0"]));
    });
    assert_eq!(got, ["meta: must have exactly one row (found 2)"]);
}

#[test]
fn meta_key_is_version() {
    let got = mutated(|t| set(t, "meta", "key", chr(&["release"])));
    assert_eq!(
        got,
        ["meta.key row 1 (value \"release\"): must be \"version\""]
    );
}

#[test]
fn meta_value_is_a_package_version() {
    for bad in ["2", "a", " 1.0", "1..0", "1.0 "] {
        let got = mutated(|t| set(t, "meta", "value", chr(&[bad])));
        assert_eq!(
            got,
            [format!(
                "meta.value row 1 (value {bad:?}): must be a version package_version() accepts, such as \"1.0\""
            )]
        );
    }
}

#[test]
fn package_version_syntax_matches_r() {
    // Observed with R 4.2.2: package_version() accepts these and rejects the others.
    for ok in ["1.0", "1-2", "1.0.0.1", "01.2"] {
        assert!(is_package_version(ok), "{ok}");
    }
    for bad in ["2", " 1.0", "a", "1..0", "1.0 ", ""] {
        assert!(!is_package_version(bad), "{bad}");
    }
}

// Rule 4: sample_types.

#[test]
fn sample_types_is_one_row_samples_count() {
    let got = mutated(|t| {
        set(t, "sample_types", "type", chr(&["samples", "cpu"]));
        set(t, "sample_types", "unit", chr(&["count", "nanoseconds"]));
    });
    assert_eq!(
        got,
        [
            "sample_types: must have exactly one row (found 2)",
            "sample_types.type row 2 (value \"cpu\"): must be \"samples\"",
            "sample_types.unit row 2 (value \"nanoseconds\"): must be \"count\"",
        ]
    );
    let got = mutated(|t| set(t, "sample_types", "unit", chr(&["bytes"])));
    assert_eq!(
        got,
        ["sample_types.unit row 1 (value \"bytes\"): must be \"count\""]
    );
}

// Rule 5: samples.value.

#[test]
fn sample_values_are_positive() {
    let got = mutated(|t| set(t, "samples", "value", int_na(&[Some(0), None])));
    assert_eq!(
        got,
        [
            "samples.value row 1 (value 0): must be greater than zero",
            "samples.value row 2 (value NA): must be greater than zero",
        ]
    );
}

// Rule 6: samples.locations.

#[test]
fn sample_locations_are_tables_of_location_ids() {
    let got = mutated(|t| {
        set(
            t,
            "samples",
            "locations",
            stacks(vec![None, Some(table(vec![("id", int(&[1]))]))]),
        );
    });
    assert_eq!(
        got,
        [
            "samples.locations row 1 (value NA): must be a table with exactly one int column, location_id (found NULL)",
            "samples.locations row 2 (value <table of 1 rows>): must be a table with exactly one int column, location_id (found columns id)",
        ]
    );
    let got = mutated(|t| {
        let two = table(vec![("location_id", int(&[1])), (".x", int(&[1]))]);
        let text = table(vec![("location_id", chr(&["1"]))]);
        set(
            t,
            "samples",
            "locations",
            stacks(vec![Some(two), Some(text)]),
        );
    });
    assert_eq!(
        got,
        [
            "samples.locations row 1 (value <table of 1 rows>): must be a table with exactly one int column, location_id (found columns location_id, .x)",
            "samples.locations row 2 (value <table of 1 rows>): location_id must be int, found chr",
        ]
    );
}

#[test]
fn sample_location_ids_resolve() {
    let got = mutated(|t| {
        set(
            t,
            "samples",
            "locations",
            stacks(vec![ids(&[1, 7]), ids(&[2])]),
        )
    });
    assert_eq!(
        got,
        ["samples.locations row 1 (value 7): location_id does not match any locations.location_id"]
    );
    let na = Some(table(vec![("location_id", int_na(&[None]))]));
    let got = mutated(|t| set(t, "samples", "locations", stacks(vec![ids(&[1]), na])));
    assert_eq!(
        got,
        ["samples.locations row 2 (value NA): location_id does not match any locations.location_id"]
    );
}

#[test]
fn an_empty_stack_is_allowed() {
    let empty = Some(table(vec![("location_id", Values::Lgl(vec![]))]));
    let got = mutated(|t| set(t, "samples", "locations", stacks(vec![ids(&[1]), empty])));
    assert_eq!(got, Vec::<String>::new());
}

// Rule 7: locations.

#[test]
fn location_ids_are_unique() {
    let got = mutated(|t| set(t, "locations", "location_id", int(&[2, 2])));
    assert_eq!(
        got,
        [
            "locations.location_id row 2 (value 2): must be unique (primary key)",
            "samples.locations row 1 (value 1): location_id does not match any locations.location_id",
        ]
    );
}

#[test]
fn location_function_ids_resolve_or_are_na() {
    let got = mutated(|t| set(t, "locations", "function_id", int_na(&[Some(9), None])));
    assert_eq!(
        got,
        ["locations.function_id row 1 (value 9): does not match any functions.function_id"]
    );
}

#[test]
fn location_lines_are_non_negative_or_na() {
    let got = mutated(|t| set(t, "locations", "line", int_na(&[Some(-1), None])));
    assert_eq!(
        got,
        ["locations.line row 1 (value -1): must be non-negative or NA"]
    );
}

// Rule 8: functions.

#[test]
fn function_ids_are_unique() {
    let got = mutated(|t| {
        set(t, "functions", "function_id", int(&[1, 1]));
        set(t, "functions", "name", chr(&["f", "g"]));
        set(t, "functions", "system_name", chr(&["f", "g"]));
        set(t, "functions", "filename", chr(&["a.R", "a.R"]));
        set(t, "functions", "start_line", int(&[0, 0]));
    });
    assert_eq!(
        got,
        ["functions.function_id row 2 (value 1): must be unique (primary key)"]
    );
}

#[test]
fn function_names_are_not_empty() {
    for column in ["name", "system_name"] {
        let got = mutated(|t| set(t, "functions", column, chr(&[""])));
        assert_eq!(
            got,
            [format!(
                "functions.{column} row 1 (value \"\"): must not be empty"
            )]
        );
        let got = mutated(|t| set(t, "functions", column, chr_na(&[None])));
        assert_eq!(
            got,
            [format!(
                "functions.{column} row 1 (value NA): must not be NA"
            )]
        );
    }
}

#[test]
fn start_line_is_non_negative_and_not_na() {
    let got = mutated(|t| set(t, "functions", "start_line", int(&[-1])));
    assert_eq!(
        got,
        ["functions.start_line row 1 (value -1): must be non-negative"]
    );
    let got = mutated(|t| set(t, "functions", "start_line", int_na(&[None])));
    assert_eq!(
        got,
        ["functions.start_line row 1 (value NA): must be non-negative"]
    );
}

// validate_profile dispatches on meta.version.

#[test]
fn validate_profile_dispatches_on_version() {
    assert_eq!(texts(&validate_profile(&valid_v1())), Vec::<String>::new());
    assert_eq!(texts(&validate_profile(&valid_v2())), Vec::<String>::new());
    let mut v1_as_v2 = valid_v1();
    set(&mut v1_as_v2, "meta", "value", chr(&["2.0"]));
    let got = texts(&validate_profile(&v1_as_v2));
    assert!(
        got.contains(&"sources: required table is missing".to_owned()),
        "{got:?}"
    );
    let mut v2_as_v1 = valid_v2();
    set(&mut v2_as_v1, "meta", "value", chr(&["1.0", "10"]));
    let got = texts(&validate_profile(&v2_as_v1));
    assert!(
        got.contains(&"sample_types: required table is missing".to_owned()),
        "{got:?}"
    );
}

// v2_from_v1.

#[test]
fn v2_from_v1_follows_seed_000() {
    let mut v1 = valid_v1();
    set(&mut v1, "samples", ".note", chr(&["a", "b"]));
    let got = v2_from_v1(&v1).unwrap();
    let want = tables(vec![
        (
            "meta",
            table(vec![("key", chr(&["version"])), ("value", chr(&["2.0"]))]),
        ),
        (
            "sources",
            table(vec![
                ("source_id", int(&[1])),
                ("source_type", chr(&["manual"])),
                ("source_uri", chr_na(&[None])),
                ("source_timestamp", dbl_na(&[None])),
            ]),
        ),
        (
            "samples",
            table(vec![
                ("sample_id", int(&[1, 2, 3])),
                ("source_id", int(&[1, 1, 1])),
                (".note", chr(&["a", "a", "b"])),
            ]),
        ),
        (
            "sample_values",
            table(vec![
                ("sample_id", int(&[1, 2, 3])),
                ("type", chr(&["samples"; 3])),
                ("unit", chr(&["count"; 3])),
                ("value", dbl(&[1.0; 3])),
            ]),
        ),
        (
            "sample_locations",
            table(vec![
                ("sample_id", int(&[1, 1, 2, 2, 3])),
                ("depth", int(&[1, 2, 1, 2, 1])),
                ("location_id", int(&[1, 2, 1, 2, 2])),
            ]),
        ),
        ("locations", valid_v1().table("locations").unwrap().clone()),
        ("functions", valid_v1().table("functions").unwrap().clone()),
    ]);
    assert_eq!(got, want);
}

#[test]
fn source_type_comes_from_the_hidden_component() {
    let mut t = valid_v1();
    assert_eq!(v1_source_type(&t), "manual");
    t.tables.push((".rprof".into(), Table::default()));
    assert_eq!(v1_source_type(&t), "rprof");
    let mut t = valid_v1();
    t.tables.push((".msg".into(), Table::default()));
    assert_eq!(v1_source_type(&t), "pprof");
    let v2 = v2_from_v1(&t).unwrap();
    assert_eq!(
        v2.table("sources").unwrap().column("source_type"),
        Some(&chr(&["pprof"]))
    );
    assert!(v2.table(".msg").is_none(), "dotted components are dropped");
}

#[test]
fn v2_from_v1_refuses_invalid_input() {
    let mut t = valid_v1();
    set(&mut t, "samples", "value", int(&[0, 1]));
    let err = v2_from_v1(&t).unwrap_err();
    assert_eq!(
        texts(&err),
        ["samples.value row 1 (value 0): must be greater than zero"]
    );
}

/// A v1 document built from an Rprof file by a small parse of its own: one sample per line,
/// a `F#L ` token gives the file and line of the frame after it, locations are keyed by
/// (name, file, line) and functions by (name, file), stacks inner-first, and consecutive
/// identical lines are run-length encoded into `value` (v1's "consecutive samples").
fn v1_from_rprof(text: &str) -> (Tables, Vec<Vec<i32>>) {
    let mut functions: HashMap<(String, i32), i32> = HashMap::default();
    let mut function_rows: Vec<(String, i32)> = Vec::new();
    let mut locations: HashMap<(String, i32, i32), i32> = HashMap::default();
    let mut location_rows: Vec<(i32, i32)> = Vec::new();
    let mut files: HashMap<i32, String> = HashMap::default();
    let mut lines: Vec<Vec<i32>> = Vec::new();
    for line in text.lines().skip(1) {
        if let Some(rest) = line.strip_prefix("#File ") {
            let (n, path) = rest.split_once(": ").unwrap();
            files.insert(n.parse().unwrap(), path.to_owned());
            continue;
        }
        let mut stack = Vec::new();
        let (mut file, mut at) = (0, 0);
        let mut rest = line.trim_end();
        while !rest.is_empty() {
            if let Some(q) = rest.strip_prefix('"') {
                let end = q.find('"').unwrap();
                let name = q[..end].to_owned();
                let fid = *functions.entry((name.clone(), file)).or_insert_with(|| {
                    function_rows.push((name.clone(), file));
                    i32::try_from(function_rows.len()).unwrap()
                });
                let lid = *locations.entry((name, file, at)).or_insert_with(|| {
                    location_rows.push((fid, at));
                    i32::try_from(location_rows.len()).unwrap()
                });
                stack.push(lid);
                (file, at) = (0, 0);
                rest = q[end + 1..].trim_start();
            } else {
                let (tok, tail) = rest.split_once(' ').unwrap_or((rest, ""));
                let (f, l) = tok.split_once('#').unwrap();
                (file, at) = (f.parse().unwrap(), l.parse().unwrap());
                rest = tail.trim_start();
            }
        }
        lines.push(stack);
    }
    let mut values = Vec::new();
    let mut runs: Vec<Vec<i32>> = Vec::new();
    for stack in &lines {
        if runs.last() == Some(stack) {
            *values.last_mut().unwrap() += 1;
        } else {
            runs.push(stack.clone());
            values.push(1);
        }
    }
    let n_loc = i32::try_from(location_rows.len()).unwrap();
    let n_fun = i32::try_from(function_rows.len()).unwrap();
    let mut doc = v1_header();
    doc.extend(vec![
        (
            "samples",
            table(vec![
                ("value", int(&values)),
                (
                    "locations",
                    Values::List(runs.iter().map(|s| ids(s)).collect()),
                ),
            ]),
        ),
        (
            "locations",
            table(vec![
                ("location_id", int(&(1..=n_loc).collect::<Vec<_>>())),
                (
                    "function_id",
                    int(&location_rows.iter().map(|l| l.0).collect::<Vec<_>>()),
                ),
                (
                    "line",
                    int(&location_rows.iter().map(|l| l.1).collect::<Vec<_>>()),
                ),
            ]),
        ),
        (
            "functions",
            table(vec![
                ("function_id", int(&(1..=n_fun).collect::<Vec<_>>())),
                (
                    "name",
                    Values::Chr(function_rows.iter().map(|f| Some(f.0.clone())).collect()),
                ),
                (
                    "system_name",
                    Values::Chr(function_rows.iter().map(|f| Some(f.0.clone())).collect()),
                ),
                (
                    "filename",
                    Values::Chr(
                        function_rows
                            .iter()
                            .map(|f| files.get(&f.1).cloned().or(Some(String::new())))
                            .collect(),
                    ),
                ),
                ("start_line", int(&vec![0; function_rows.len()])),
            ]),
        ),
        (".rprof", Table::default()),
    ]);
    (tables(doc), lines)
}

fn rprof_profile_1() -> (Tables, Vec<Vec<i32>>) {
    let path = support::corpus::corpus().join("rprof/profile-1.out");
    let text = std::fs::read_to_string(&path).expect("corpus file rprof/profile-1.out");
    v1_from_rprof(&text)
}

#[test]
fn v2_from_v1_on_rprof_profile_1() {
    let (v1, lines) = rprof_profile_1();
    assert_eq!(check(&v1), Vec::<String>::new());
    let Some(Values::Int(values)) = v1.table("samples").unwrap().column("value").cloned() else {
        panic!()
    };
    // 19 runs of consecutive identical lines, three of them of two lines.
    assert_eq!(values.len(), 19);
    let total: i32 = values.iter().flatten().sum();
    // summaryRprof: sampling.time 0.44 s at 0.02 s per sample = 22 samples
    // (docs/formats/rprof.md).
    assert_eq!(total, 22);
    assert_eq!(lines.len(), 22);

    let v2 = v2_from_v1(&v1).unwrap();
    assert_eq!(v2.table("samples").unwrap().nrow(), 22);
    assert_eq!(v2.table("sample_values").unwrap().nrow(), 22);
    assert_eq!(
        v2.table("sources").unwrap().column("source_type"),
        Some(&chr(&["rprof"]))
    );
    // Depth from position: each expanded sample lists its line's frames in order, 1..n.
    let sl = v2.table("sample_locations").unwrap();
    let (Some(Values::Int(sid)), Some(Values::Int(depth)), Some(Values::Int(loc))) = (
        sl.column("sample_id"),
        sl.column("depth"),
        sl.column("location_id"),
    ) else {
        panic!()
    };
    let mut per_sample: Vec<Vec<(i32, i32)>> = vec![Vec::new(); 22];
    for ((s, d), l) in sid.iter().zip(depth).zip(loc) {
        per_sample[usize::try_from(s.unwrap() - 1).unwrap()].push((d.unwrap(), l.unwrap()));
    }
    for (s, frames) in per_sample.iter().enumerate() {
        let want: Vec<(i32, i32)> = lines[s]
            .iter()
            .enumerate()
            .map(|(d, l)| (i32::try_from(d + 1).unwrap(), *l))
            .collect();
        assert_eq!(frames, &want, "sample {}", s + 1);
    }
    assert_eq!(sl.nrow(), lines.iter().map(Vec::len).sum::<usize>());
    assert_eq!(v2.table("locations"), v1.table("locations"));
    assert_eq!(v2.table("functions"), v1.table("functions"));
}

#[test]
fn profile_from_v1_equals_the_materialized_conversion() {
    let (v1, _) = rprof_profile_1();
    let direct = profile_from_v1(&v1, usize::MAX).unwrap();
    let via = profile_from_tables(&v2_from_v1(&v1).unwrap()).unwrap();
    assert_eq!(tables_from_profile(&direct), tables_from_profile(&via));
    assert_eq!(direct.num_samples(), 22);
    assert_eq!(texts(&direct.validate()), Vec::<String>::new());
}

#[test]
fn profile_from_v1_keeps_to_the_sample_limit() {
    let err = profile_from_v1(&valid_v1(), 2).unwrap_err();
    assert_eq!(
        texts(&err),
        ["samples.value: expanding gives 3 samples, more than the limit of 2"]
    );
}

// v1_from_v2.

fn profile_with(types: &[(&str, &str)], samples: &[(&[usize], &[f64])]) -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("manual", None, None);
    let vts: Vec<_> = types.iter().map(|(t, u)| b.value_type(t, u)).collect();
    let locs: Vec<_> = ["a", "b", "c"]
        .iter()
        .map(|n| {
            let f = b.function_named(n, None);
            b.location(Some(f), 1)
        })
        .collect();
    for (frames, values) in samples {
        let frames: Vec<_> = frames.iter().map(|&i| locs[i]).collect();
        let stack = b.stack_leaf_first(&frames);
        let vals: Vec<_> = vts.iter().copied().zip(values.iter().copied()).collect();
        b.add_sample_with_values(src, stack, &vals);
    }
    b.build().unwrap()
}

#[test]
fn v1_from_v2_aggregates_identical_stacks() {
    let p = profile_with(
        &[("samples", "count"), ("cpu", "nanoseconds")],
        &[
            (&[0, 1], &[1.0, 10.0]),
            (&[2], &[1.0, 10.0]),
            (&[0, 1], &[2.0, 20.0]),
            (&[0, 1], &[1.0, 10.0]),
        ],
    );
    let v1 = v1_from_v2(&p).unwrap();
    assert_eq!(check(&v1), Vec::<String>::new());
    let samples = v1.table("samples").unwrap();
    assert_eq!(samples.column("value"), Some(&int(&[4, 1])));
    assert_eq!(
        samples.column("locations"),
        Some(&stacks(vec![ids(&[1, 2]), ids(&[3])]))
    );
    assert_eq!(v1.version(), Some("1.0"));
}

#[test]
fn v1_from_v2_needs_samples_count() {
    let p = profile_with(&[("cpu", "nanoseconds")], &[(&[0], &[5.0])]);
    assert_eq!(
        v1_from_v2(&p).unwrap_err(),
        "v1 holds only the value type samples/count; this profile has cpu/nanoseconds"
    );
}

#[test]
fn v1_from_v2_needs_integer_counts() {
    let p = profile_with(&[("samples", "count")], &[(&[0], &[1.5])]);
    assert_eq!(
        v1_from_v2(&p).unwrap_err(),
        "sample 1 has samples/count value 1.5; v1 counts must be integers from 0 to \
         2147483647 (R's integer range)"
    );
    // Found by the round_trip fuzz target: a count past R's integer range was refused as if
    // it were not a non-negative integer.
    let p = profile_with(&[("samples", "count")], &[(&[0], &[4_143_972_353.0])]);
    assert!(v1_from_v2(&p)
        .unwrap_err()
        .starts_with("sample 1 has samples/count value 4143972353; v1 counts must be integers"));
}

#[test]
fn v1_from_v2_refuses_to_write_an_invalid_document() {
    let mut p = profile_with(&[("samples", "count")], &[(&[0], &[1.0])]);
    p.functions.name[0] = p.strings.intern("");
    assert_eq!(
        v1_from_v2(&p).unwrap_err(),
        "the profile breaks a v1 rule: functions.name row 1 (value \"\"): must not be empty"
    );
}

#[test]
fn v1_round_trip_through_v2() {
    let v1 = valid_v1();
    let p = profile_from_v1(&v1, usize::MAX).unwrap();
    assert_eq!(v1_from_v2(&p).unwrap(), v1);
}
