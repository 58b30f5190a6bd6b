//! `combine`: property tests over generated profiles (a fixed-seed PRNG, no proptest) and the
//! individual merge rules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proftab::model::combine::combine;
use proftab::model::{
    decode_opt, Cell, ColumnData, ExtColumns, FunctionKey, Profile, ProfileBuilder, StackIndex,
    StringId, INT_NA, SAMPLE_TIME,
};
use proftab::model::{tables_from_profile, Tables};

/// Number of generated cases per property.
const CASES: usize = 200;

mod support;
use support::rng::Rng;

const NAMES: [&str; 6] = ["main", "run", "parse", "alloc", "gc", "loop"];
const FILES: [Option<&str>; 3] = [Some("a.go"), Some("b.R"), None];
const VALUE_TYPES: [(&str, &str); 3] = [
    ("samples", "count"),
    ("cpu", "nanoseconds"),
    ("alloc_space", "bytes"),
];
const META_KEYS: [&str; 4] = [
    "period",
    "pprof.profile.comment",
    "default_sample_type",
    "host",
];
const META_VALUES: [&str; 3] = ["x", "y", "samples"];

/// A random profile exercising every part `combine` merges: several sources, shared and
/// distinct functions, extension columns (with a kind that differs between profiles),
/// value types with gaps, `sample_labels` and `mappings` tables with id columns, and meta rows
/// that agree, conflict, repeat, or belong to one source.
fn gen_profile(rng: &mut Rng) -> Profile {
    let mut b = ProfileBuilder::new();
    let n_sources = 1 + rng.below(2);
    let sources: Vec<_> = (0..n_sources)
        .map(|i| {
            let uri = format!("file{}", rng.below(3));
            let ts = rng.chance(50).then_some(1.7e9 + i as f64);
            b.add_source(rng.pick(&["pprof", "rprof"]), Some(&uri), ts)
        })
        .collect();
    if rng.chance(50) {
        for s in &sources {
            let pid = rng.below(3) as i32;
            b.sources_mut()
                .ext
                .set(".pid", s.idx(), Cell::Int(pid))
                .unwrap();
        }
    }
    let mixed_kind = rng.below(4);
    let n_mappings = rng.below(3);
    for m in 0..n_mappings {
        let name = b.intern(&format!("lib{}.so", rng.below(2)));
        b.ext_table("mappings")
            .push_row(&[
                ("mapping_id", Cell::U64(Some(m as u64 + 1))),
                ("filename", Cell::Chr(name)),
            ])
            .unwrap();
    }
    let mut functions = Vec::new();
    for _ in 0..1 + rng.below(5) {
        let f = b.function_named(rng.pick(&NAMES), rng.pick(&FILES));
        if rng.chance(30) {
            let cell = mixed_cell(&mut b, mixed_kind, rng.below(2));
            b.functions_mut().ext.set(".mixed", f.idx(), cell).unwrap();
        }
        functions.push(f);
    }
    if rng.chance(30) {
        // A row equal in content to another of the same profile (as pprof may have).
        let f = rng.pick(&functions).idx();
        let t = &b.profile().functions;
        let key = FunctionKey {
            name: t.name[f],
            system_name: t.system_name[f],
            filename: t.filename[f],
            start_line: t.start_line[f],
        };
        functions.push(b.add_function(key));
    }
    let mut locations = Vec::new();
    for _ in 0..1 + rng.below(6) {
        let f = rng.chance(90).then(|| rng.pick(&functions));
        let line = rng.pick(&[0, 3, 7, INT_NA]);
        let loc = b.add_location(f, line);
        if rng.chance(40) {
            let addr = Cell::U64(Some(0x1000 + rng.below(2) as u64));
            b.set_location_ext(loc, ".address", addr);
        }
        if n_mappings > 0 && rng.chance(50) {
            let m = Cell::U64(Some(1 + rng.below(n_mappings) as u64));
            b.set_location_ext(loc, ".mapping_id", m);
        }
        locations.push(loc);
    }
    let vts: Vec<_> = VALUE_TYPES
        .iter()
        .filter(|_| rng.chance(60))
        .map(|(t, u)| b.value_type(t, u))
        .collect();
    let n_samples = rng.below(8);
    for i in 0..n_samples {
        let frames: Vec<_> = (0..rng.below(5)).map(|_| rng.pick(&locations)).collect();
        let stack = b.stack_leaf_first(&frames);
        let s = b.add_sample(rng.pick(&sources), stack);
        for &vt in &vts {
            if rng.chance(80) {
                b.set_value(s, vt, rng.below(100) as f64);
            }
        }
        if rng.chance(70) {
            b.set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(i as f64 * 0.01));
        }
        if rng.chance(30) {
            let k = b.intern("thread");
            let v = b.intern(rng.pick(&["t1", "t2"]));
            b.ext_table("sample_labels")
                .push_row(&[
                    ("sample_id", Cell::Int(s.logical_id())),
                    ("key", Cell::Chr(k)),
                    ("value", Cell::Chr(v)),
                ])
                .unwrap();
        }
    }
    for _ in 0..rng.below(4) {
        let key = rng.pick(&META_KEYS);
        let value = rng.pick(&META_VALUES);
        match rng.below(3) {
            0 => b.add_meta(key, value),
            1 => b.set_meta(key, value),
            _ => b.add_meta(&format!("source.{}.{key}", 1 + rng.below(n_sources)), value),
        }
    }
    b.build().unwrap()
}

/// A cell of the `.mixed` column, whose kind varies between profiles.
fn mixed_cell(b: &mut ProfileBuilder, kind: usize, v: usize) -> Cell {
    match kind {
        0 => Cell::Int(v as i32),
        1 => Cell::Dbl(v as f64),
        2 => Cell::Chr(b.intern(&v.to_string())),
        _ => Cell::U64(Some(v as u64)),
    }
}

/// The logical tables of a profile as text rows, with ids as the model assigns them (row + 1):
/// what a data-frame library would see. Extension columns come with their kinds.
fn logical(p: &Profile) -> Vec<(String, Vec<String>)> {
    let mut t = Vec::new();
    let meta = p
        .meta
        .key
        .iter()
        .zip(&p.meta.value)
        .map(|(k, v)| format!("{}={}", text(p, *k), text(p, *v)))
        .collect();
    t.push(("meta".to_owned(), meta));
    let sources = (0..p.sources.source_type.len())
        .map(|i| {
            let s = &p.sources;
            let ts = s.source_timestamp[i];
            let uri = text(p, s.source_uri[i]);
            let ty = text(p, s.source_type[i]);
            format!("{} {ty} {uri} {ts:?} {}", i + 1, ext_row(p, &s.ext, i))
        })
        .collect();
    t.push(("sources".to_owned(), sources));
    let samples = (0..p.num_samples())
        .map(|i| {
            let src = p.samples.source[i].logical_id();
            format!("{} {src} {}", i + 1, ext_row(p, &p.samples.ext, i))
        })
        .collect();
    t.push(("samples".to_owned(), samples));
    let mut values = Vec::new();
    for s in 0..p.num_samples() {
        for c in &p.values {
            if let Some(v) = c.get(s) {
                let (ty, unit) = (p.str(c.value_type), p.str(c.unit));
                values.push(format!("{} {ty} {unit} {v:?}", s + 1));
            }
        }
    }
    t.push(("sample_values".to_owned(), values));
    let mut frames = Vec::new();
    for s in 0..p.num_samples() {
        let stack = decode_opt(p.samples.stack[s]).map(StackIndex);
        for (d, loc) in p.frames_leaf_first(stack).enumerate() {
            frames.push(format!("{} {} {}", s + 1, d + 1, loc.logical_id()));
        }
    }
    t.push(("sample_locations".to_owned(), frames));
    let locations = (0..p.locations.line.len())
        .map(|i| {
            let f = decode_opt(p.locations.function[i]).map(|f| f + 1);
            let line = p.locations.line[i];
            format!("{} {f:?} {line} {}", i + 1, ext_row(p, &p.locations.ext, i))
        })
        .collect();
    t.push(("locations".to_owned(), locations));
    let functions = (0..p.functions.name.len())
        .map(|i| {
            let f = &p.functions;
            format!(
                "{} {} {} {} {} {}",
                i + 1,
                text(p, f.name[i]),
                text(p, f.system_name[i]),
                text(p, f.filename[i]),
                f.start_line[i],
                ext_row(p, &f.ext, i)
            )
        })
        .collect();
    t.push(("functions".to_owned(), functions));
    for table in &p.ext_tables {
        let rows = (0..table.len())
            .map(|i| ext_row(p, &table.columns, i))
            .collect();
        t.push((table.name.clone(), rows));
    }
    let schema = [
        ("sources", &p.sources.ext),
        ("samples", &p.samples.ext),
        ("locations", &p.locations.ext),
        ("functions", &p.functions.ext),
    ]
    .iter()
    .map(|(n, e)| format!("{n}: {}", columns_of(e)))
    .chain(
        p.ext_tables
            .iter()
            .map(|t| format!("{}: {}", t.name, columns_of(&t.columns))),
    )
    .collect();
    t.push(("schema".to_owned(), schema));
    t
}

fn text(p: &Profile, s: StringId) -> String {
    p.strings
        .get(s)
        .map_or_else(|| "<NA>".to_owned(), |s| format!("{s:?}"))
}

fn columns_of(e: &ExtColumns) -> String {
    let cols: Vec<_> = e
        .columns
        .iter()
        .map(|c| format!("{}:{}", c.name, c.data.kind().name()))
        .collect();
    cols.join(",")
}

fn ext_row(p: &Profile, e: &ExtColumns, row: usize) -> String {
    let cells: Vec<String> = e
        .columns
        .iter()
        .map(|c| match c.data.cell(row) {
            Some(Cell::Chr(s)) => text(p, s),
            Some(Cell::Dbl(v)) if v.is_nan() => "<NA>".to_owned(),
            Some(Cell::Int(INT_NA)) | Some(Cell::Lgl(None)) | Some(Cell::U64(None)) => {
                "<NA>".to_owned()
            }
            Some(cell) => format!("{cell:?}"),
            None => "<missing>".to_owned(),
        })
        .collect();
    cells.join("|")
}

/// The logical tables but `meta`, whose row order may differ between association orders.
fn without_meta(mut t: Tables) -> Tables {
    t.tables.retain(|(name, _)| name != "meta");
    t
}

fn with_sorted_meta(mut t: Vec<(String, Vec<String>)>) -> Vec<(String, Vec<String>)> {
    t[0].1.sort();
    t
}

#[test]
fn combine_of_one_profile_is_that_profile() {
    let mut rng = Rng(1);
    for case in 0..CASES {
        let p = gen_profile(&mut rng);
        let c = combine(std::slice::from_ref(&p)).unwrap();
        assert_eq!(logical(&c), logical(&p), "case {case}");
        assert_eq!(
            tables_from_profile(&c),
            tables_from_profile(&p),
            "case {case}"
        );
        assert_eq!(c.validate(), [], "case {case}");
    }
}

#[test]
fn combine_is_associative() {
    let mut rng = Rng(2);
    let mut merged_functions = 0;
    for case in 0..CASES {
        let (a, b, c) = (
            gen_profile(&mut rng),
            gen_profile(&mut rng),
            gen_profile(&mut rng),
        );
        let flat = combine(&[a.clone(), b.clone(), c.clone()]);
        let nested = combine(&[a.clone(), b.clone()]).and_then(|ab| combine(&[ab, c.clone()]));
        let (flat, nested) = match (flat, nested) {
            (Ok(f), Ok(n)) => (f, n),
            (Err(e1), Err(e2)) => {
                assert_eq!(e1.place, e2.place, "case {case}");
                continue;
            }
            (f, n) => panic!("case {case}: one order failed: {f:?} vs {n:?}"),
        };
        assert_eq!(
            with_sorted_meta(logical(&nested)),
            with_sorted_meta(logical(&flat)),
            "case {case}"
        );
        assert_eq!(
            without_meta(tables_from_profile(&nested)),
            without_meta(tables_from_profile(&flat)),
            "case {case}"
        );
        assert_eq!(flat.validate(), [], "case {case}");
        let total = a.functions.name.len() + b.functions.name.len() + c.functions.name.len();
        merged_functions += total - flat.functions.name.len();
        assert_eq!(
            flat.num_samples(),
            a.num_samples() + b.num_samples() + c.num_samples()
        );
    }
    assert!(
        merged_functions > 0,
        "the generator never shares a function"
    );
}

fn one_function_profile(uri: &str, name: &str, vt: (&str, &str), value: f64) -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("collapsed", Some(uri), None);
    let vt = b.value_type(vt.0, vt.1);
    let f = b.function_named(name, Some("main.go"));
    let loc = b.location(Some(f), 12);
    let stack = b.stack_leaf_first(&[loc]);
    b.add_sample_with_values(src, stack, &[(vt, value)]);
    b.build().unwrap()
}

#[test]
fn same_function_from_two_files_is_one_function() {
    let a = one_function_profile("a.txt", "main", ("samples", "count"), 1.0);
    let b = one_function_profile("b.txt", "main", ("samples", "count"), 2.0);
    let c = combine(&[a, b]).unwrap();
    assert_eq!(c.functions.name.len(), 1);
    assert_eq!(c.locations.line.len(), 1);
    assert_eq!(c.sources.source_type.len(), 2);
    assert_eq!(c.samples.source[1].logical_id(), 2);
    assert_eq!(c.values[0].total(), 3.0);
}

#[test]
fn values_keep_their_presence() {
    let a = one_function_profile("a", "main", ("samples", "count"), 1.0);
    let b = one_function_profile("b", "main", ("cpu", "nanoseconds"), 10.0);
    let c = combine(&[a, b]).unwrap();
    let samples = &c.values[0];
    let cpu = &c.values[1];
    assert_eq!((samples.get(0), samples.get(1)), (Some(1.0), None));
    assert_eq!((cpu.get(0), cpu.get(1)), (None, Some(10.0)));
    assert_eq!(c.sample_value_rows(), 2);
}

#[test]
fn unit_conflict_is_an_error() {
    let a = one_function_profile("a", "main", ("time", "nanoseconds"), 1.0);
    let b = one_function_profile("b", "main", ("time", "microseconds"), 1.0);
    let err = combine(&[a, b]).unwrap_err();
    assert!(err.to_string().contains("\"nanoseconds\""), "{err}");
    assert!(err.to_string().contains("\"microseconds\""), "{err}");
}

#[test]
fn meta_conflicts_become_per_source_rows() {
    let mut a = ProfileBuilder::new();
    a.add_source("pprof", None, None);
    a.set_meta("period", "10");
    a.set_meta("host", "h");
    let mut b = ProfileBuilder::new();
    b.add_source("pprof", None, None);
    b.add_source("pprof", None, None);
    b.set_meta("period", "20");
    b.set_meta("host", "h");
    b.add_meta("source.2.period", "30");
    let c = combine(&[a.build().unwrap(), b.build().unwrap()]).unwrap();
    let rows: Vec<_> = c
        .meta
        .key
        .iter()
        .zip(&c.meta.value)
        .map(|(k, v)| format!("{}={}", c.str(*k), c.str(*v)))
        .collect();
    assert_eq!(
        rows,
        [
            "version=2.0",
            "source.1.period=10",
            "host=h",
            "source.2.period=20",
            "source.3.period=30"
        ]
    );
}

#[test]
fn sample_ids_in_extension_tables_are_remapped() {
    let make = |label: &str| {
        let mut b = ProfileBuilder::new();
        let src = b.add_source("pprof", None, None);
        let s1 = b.add_sample(src, None);
        let s2 = b.add_sample(src, None);
        let v = b.intern(label);
        for s in [s1, s2] {
            b.ext_table("sample_labels")
                .push_row(&[
                    ("sample_id", Cell::Int(s.logical_id())),
                    ("value", Cell::Chr(v)),
                ])
                .unwrap();
        }
        b.build().unwrap()
    };
    let c = combine(&[make("a"), make("b")]).unwrap();
    let t = c.ext_table("sample_labels").unwrap();
    assert_eq!(t.columns.int("sample_id").unwrap(), [1, 2, 3, 4]);
    let labels: Vec<_> = t
        .columns
        .chr("value")
        .unwrap()
        .iter()
        .map(|&s| c.str(s))
        .collect();
    assert_eq!(labels, ["a", "a", "b", "b"]);
}

#[test]
fn dangling_sample_id_is_an_error() {
    let mut b = ProfileBuilder::new();
    b.add_source("pprof", None, None);
    b.ext_table("sample_labels")
        .push_row(&[("sample_id", Cell::Int(5))])
        .unwrap();
    let err = combine(&[b.build().unwrap()]).unwrap_err();
    assert_eq!(err.place, "sample_labels.sample_id");
}

#[test]
fn own_id_spaces_are_shifted() {
    let make = || {
        let mut b = ProfileBuilder::new();
        let src = b.add_source("pprof", None, None);
        b.ext_table("mappings")
            .push_row(&[("mapping_id", Cell::U64(Some(1)))])
            .unwrap();
        b.ext_table("mappings")
            .push_row(&[("mapping_id", Cell::U64(Some(2)))])
            .unwrap();
        let f = b.function_named("f", None);
        let loc = b.add_location(Some(f), 1);
        b.set_location_ext(loc, ".mapping_id", Cell::U64(Some(2)));
        let stack = b.stack_leaf_first(&[loc]);
        b.add_sample(src, stack);
        b.build().unwrap()
    };
    let c = combine(&[make(), make()]).unwrap();
    let ids = c
        .ext_table("mappings")
        .unwrap()
        .columns
        .u64("mapping_id")
        .unwrap();
    assert_eq!(ids, [Some(1), Some(2), Some(3), Some(4)]);
    // The locations differ in their mapping, so they stay two rows.
    assert_eq!(
        c.locations.ext.u64(".mapping_id").unwrap(),
        [Some(2), Some(4)]
    );
    assert_eq!(c.functions.name.len(), 1);
}

#[test]
fn clashing_column_kinds_are_unified() {
    let make = |cell: fn(&mut ProfileBuilder) -> Cell| {
        let mut b = ProfileBuilder::new();
        let src = b.add_source("x", None, None);
        let s = b.add_sample(src, None);
        let c = cell(&mut b);
        b.set_sample_ext(s, ".tag", c);
        b.build().unwrap()
    };
    let int = make(|_| Cell::Int(2));
    let dbl = make(|_| Cell::Dbl(2.5));
    let chr = make(|b| Cell::Chr(b.intern("two")));
    let c = combine(&[int.clone(), dbl.clone()]).unwrap();
    assert_eq!(c.samples.ext.dbl(".tag").unwrap(), [2.0, 2.5]);
    let c = combine(&[int, dbl, chr]).unwrap();
    let tags: Vec<_> = c
        .samples
        .ext
        .chr(".tag")
        .unwrap()
        .iter()
        .map(|&s| c.str(s))
        .collect();
    assert_eq!(tags, ["2", "2.5", "two"]);
}

#[test]
fn missing_columns_become_na() {
    let mut a = ProfileBuilder::new();
    let src = a.add_source("x", None, None);
    let s = a.add_sample(src, None);
    a.set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(0.5));
    let mut b = ProfileBuilder::new();
    let src = b.add_source("x", None, None);
    b.add_sample(src, None);
    let c = combine(&[a.build().unwrap(), b.build().unwrap()]).unwrap();
    let time = c.samples.ext.get(SAMPLE_TIME).unwrap();
    match time {
        ColumnData::Dbl(v) => assert!(v[0] == 0.5 && v[1].is_nan()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn combine_of_nothing_is_an_empty_profile() {
    let c = combine(&[]).unwrap();
    assert_eq!(c.num_samples(), 0);
    assert_eq!(c.meta_value("version"), Some("2.0"));
}
