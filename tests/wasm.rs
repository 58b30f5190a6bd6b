//! The wasm API as JavaScript sees it, run in Node by wasm-bindgen-test-runner
//! (`cargo test --target wasm32-unknown-unknown`).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use js_sys::{BigUint64Array, Float64Array, Int32Array, Int8Array, Uint32Array, Uint8Array};
use proftab::formats::{read_any, Format, Parsed, ReadOptions, Warning};
use proftab::model::{Cell, ColumnKind, ProfileBuilder, StringId, INT_NA, NO_INDEX, SAMPLE_TIME};
use proftab::wasm::Profile;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

/// A hand-made profile: main -> work -> leaf (2 samples) and main -> work (1 sample), values
/// samples/count 1, 1, 1 and time/nanoseconds 10, 20, (absent), sample times, a location
/// address, a mappings extension table. Returned wrapped as the wasm API wraps a reader's
/// result (labelled collapsed: only the wrapper is under test here, not a reader).
fn sample_profile() -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("collapsed", Some("hand.txt"), None);
    let samples = b.value_type("samples", "count");
    let time = b.value_type("time", "nanoseconds");
    let main = b.function_named("main", Some("main.c"));
    let work = b.function_named("work", None);
    let leaf = b.function_named("leaf", Some("leaf.c"));
    let l_main = b.location(Some(main), 3);
    let l_work = b.location(Some(work), 7);
    let l_leaf = b.location(Some(leaf), 0);
    b.set_location_ext(l_leaf, ".address", Cell::U64(Some(0xffff_ffff_ffff_f000)));
    let deep = b.stack_root_first(&[l_main, l_work, l_leaf]);
    let shallow = b.stack_root_first(&[l_main, l_work]);
    let s0 = b.add_sample_with_values(src, deep, &[(samples, 1.0), (time, 10.0)]);
    let s1 = b.add_sample_with_values(src, deep, &[(samples, 1.0), (time, 20.0)]);
    let s2 = b.add_sample_with_values(src, shallow, &[(samples, 1.0)]);
    for (s, t) in [(s0, 0.0), (s1, 0.5), (s2, 1.25)] {
        b.set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(t));
    }
    let build_id = b.intern("abc123");
    let table = b.ext_table("mappings");
    table
        .push_row(&[
            ("build_id", Cell::Chr(build_id)),
            ("has_functions", Cell::Lgl(Some(true))),
        ])
        .unwrap();
    table
        .push_row(&[("has_functions", Cell::Lgl(None))])
        .unwrap();
    b.functions_mut()
        .ext
        .get_or_create(".inline", ColumnKind::Int);
    let profile = b.build().unwrap();
    Profile::from_parsed(Parsed {
        format: Format::Collapsed,
        profile,
        warnings: vec![Warning::new("collapsed", "ignored 2 lines", 2)],
    })
}

fn u32s(a: Uint32Array) -> Vec<u32> {
    a.to_vec()
}

fn json(v: JsValue) -> serde_json::Value {
    serde_wasm_bindgen::from_value(v).unwrap()
}

fn error_message(e: wasm_bindgen::JsError) -> String {
    let v = JsValue::from(e);
    let err = v.dyn_into::<js_sys::Error>().expect("a JS Error");
    String::from(err.message())
}

#[wasm_bindgen_test]
fn parse_errors_are_thrown_as_errors_with_the_read_error_text() {
    for bytes in [&b""[..], &[1, 2, 3], b"{\"meta\":{\"key\":[1]}}"] {
        let expected = read_any(bytes, &ReadOptions::default())
            .unwrap_err()
            .to_string();
        let thrown = Profile::parse(bytes, Some("x.bin".into())).err().unwrap();
        assert_eq!(error_message(thrown), expected);
    }
}

#[wasm_bindgen_test]
fn strings_start_with_null_and_text_columns_index_them() {
    let p = sample_profile();
    let strings: Vec<JsValue> = p.strings().to_vec();
    assert!(strings[0].is_null());
    let text = |id: u32| strings[id as usize].as_string();
    let names: Vec<_> = u32s(p.function_name()).into_iter().map(text).collect();
    assert_eq!(
        names,
        [
            Some("main".into()),
            Some("work".into()),
            Some("leaf".into())
        ]
    );
    let files: Vec<_> = u32s(p.function_filename()).into_iter().map(text).collect();
    assert_eq!(files, [Some("main.c".into()), None, Some("leaf.c".into())]);
    assert_eq!(u32s(p.function_system_name()), u32s(p.function_name()));
    assert_eq!(p.function_start_line().to_vec(), [0, 0, 0]);
    let uri = u32s(p.source_uri());
    assert_eq!(text(uri[0]), Some("hand.txt".into()));
    assert_eq!(text(u32s(p.source_type())[0]), Some("collapsed".into()));
    assert!(p.source_timestamp().to_vec()[0].is_nan());
}

#[wasm_bindgen_test]
fn stack_and_sample_columns_are_the_prefix_tree() {
    let p = sample_profile();
    assert_eq!(p.format(), "collapsed");
    assert_eq!(p.num_samples(), 3);
    // Nodes: 0 main (root), 1 work, 2 leaf; samples 0 and 1 end in leaf, sample 2 in work.
    assert_eq!(u32s(p.stack_prefix()), [NO_INDEX, 0, 1]);
    assert_eq!(u32s(p.stack_location()), [0, 1, 2]);
    assert_eq!(u32s(p.stack_depth()), [1, 2, 3]);
    assert_eq!(u32s(p.sample_stack()), [2, 2, 1]);
    assert_eq!(u32s(p.sample_source()), [0, 0, 0]);
    assert_eq!(u32s(p.location_function()), [0, 1, 2]);
    assert_eq!(p.location_line().to_vec(), [3, 7, 0]);
}

#[wasm_bindgen_test]
fn values_have_nan_where_absent_and_value_types_total() {
    let p = sample_profile();
    assert_eq!(p.values("samples").unwrap().to_vec(), [1.0, 1.0, 1.0]);
    let time = p.values("time").unwrap().to_vec();
    assert_eq!(&time[..2], [10.0, 20.0]);
    assert!(time[2].is_nan());
    let missing = p.values("cpu").err().unwrap();
    assert_eq!(error_message(missing), "no value type called \"cpu\"");
    let types = json(p.value_types().unwrap());
    assert_eq!(
        types,
        serde_json::json!([
            { "type": "samples", "unit": "count", "total": 3, "rows": 3 },
            { "type": "time", "unit": "nanoseconds", "total": 30, "rows": 2 }
        ])
    );
}

#[wasm_bindgen_test]
fn ext_columns_cross_as_typed_arrays_by_kind() {
    let p = sample_profile();
    let get = |table: &str, name: &str| p.ext_column(table, name).unwrap();
    let field = |o: &JsValue, k: &str| js_sys::Reflect::get(o, &JsValue::from_str(k)).unwrap();

    let time = get("samples", SAMPLE_TIME);
    assert_eq!(field(&time, "kind").as_string().unwrap(), "dbl");
    let data: Float64Array = field(&time, "data").dyn_into().unwrap();
    assert_eq!(data.to_vec(), [0.0, 0.5, 1.25]);

    let address = get("locations", ".address");
    assert_eq!(field(&address, "kind").as_string().unwrap(), "u64");
    let data: BigUint64Array = field(&address, "data").dyn_into().unwrap();
    assert_eq!(data.to_vec(), [0, 0, 0xffff_ffff_ffff_f000]);
    let present: Uint8Array = field(&address, "present").dyn_into().unwrap();
    assert_eq!(present.to_vec(), [0, 0, 1]);

    let inline = get("functions", ".inline");
    let data: Int32Array = field(&inline, "data").dyn_into().unwrap();
    assert_eq!(data.to_vec(), [INT_NA, INT_NA, INT_NA]);

    let flags = get("mappings", "has_functions");
    assert_eq!(field(&flags, "kind").as_string().unwrap(), "lgl");
    let data: Int8Array = field(&flags, "data").dyn_into().unwrap();
    assert_eq!(data.to_vec(), [1, -1]);
    let build = get("mappings", "build_id");
    let ids: Uint32Array = field(&build, "data").dyn_into().unwrap();
    let strings = p.strings();
    assert_eq!(strings.get(ids.get_index(0)).as_string().unwrap(), "abc123");
    assert_eq!(ids.get_index(1), StringId::NA.0);

    assert!(get("samples", ".nope").is_undefined());
    assert!(get("nope", "x").is_undefined());
}

#[wasm_bindgen_test]
fn info_summarizes_tables_values_and_warnings() {
    let p = sample_profile();
    let info = json(p.info().unwrap());
    assert_eq!(info["format"], "collapsed");
    assert_eq!(info["samples"], 3);
    assert_eq!(
        info["sources"],
        serde_json::json!([{ "type": "collapsed", "uri": "hand.txt", "timestamp": null }])
    );
    assert_eq!(info["defaultValueType"], "time");
    assert_eq!(info["valueTypes"][1]["total"], 30);
    let rows: Vec<(String, u64)> = info["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["rows"].as_u64().unwrap(),
            )
        })
        .collect();
    // sample_values: 3 samples + 2 times; sample_locations: depths 3 + 3 + 2.
    let expected = [
        ("meta", 1),
        ("sources", 1),
        ("samples", 3),
        ("sample_values", 5),
        ("sample_locations", 8),
        ("locations", 3),
        ("functions", 3),
        ("mappings", 2),
    ];
    let expected: Vec<(String, u64)> = expected.iter().map(|(n, r)| (n.to_string(), *r)).collect();
    assert_eq!(rows, expected);
    assert_eq!(
        info["tables"][2]["extColumns"],
        serde_json::json!([{ "name": ".time", "kind": "dbl" }])
    );
    assert_eq!(info["meta"], serde_json::json!([["version", "2.0"]]));
    assert_eq!(
        info["warnings"],
        serde_json::json!([{ "format": "collapsed", "message": "ignored 2 lines", "count": 2 }])
    );
    assert_eq!(json(p.warnings().unwrap()), info["warnings"]);
    assert_eq!(json(p.meta().unwrap()), info["meta"]);
}

/// The hand-written tables-JSON of tests/fixtures/tables-json/wasm-api-tiny.json: the same
/// call tree as [`sample_profile`] (main -> work -> leaf twice, main -> work once).
const TINY: &[u8] = include_bytes!("fixtures/tables-json/wasm-api-tiny.json");

fn assert_tiny_columns(p: &Profile) {
    assert_eq!(p.num_samples(), 3);
    assert_eq!(u32s(p.stack_prefix()), [NO_INDEX, 0, 1]);
    assert_eq!(u32s(p.sample_stack()), [2, 2, 1]);
    assert_eq!(p.location_line().to_vec(), [3, 7, 0]);
    let time = p.values("time").unwrap().to_vec();
    assert_eq!(&time[..2], [10.0, 20.0]);
    assert!(time[2].is_nan());
    let strings = p.strings();
    let leaf = strings.get(p.function_name().get_index(2));
    assert_eq!(leaf.as_string().unwrap(), "leaf");
}

#[wasm_bindgen_test]
fn parse_reads_a_tables_json_document() {
    let p = Profile::parse(TINY, Some("tiny.json".into())).unwrap();
    assert_eq!(p.format(), "tables-json");
    assert_tiny_columns(&p);
    assert!(p.validate().is_empty());
}

#[wasm_bindgen_test]
fn written_tables_json_reads_back_to_the_same_columns() {
    let p = Profile::parse(TINY, None).unwrap();
    let bytes = p.write("tables-json", None, None).unwrap().to_vec();
    let again = Profile::parse(&bytes, None).unwrap();
    assert_tiny_columns(&again);
    assert_eq!(json(again.info().unwrap()), json(p.info().unwrap()));
    let both = p.write_with_warnings("tables-json", None, None).unwrap();
    let field = |k: &str| js_sys::Reflect::get(&both, &JsValue::from_str(k)).unwrap();
    let same: Uint8Array = field("bytes").dyn_into().unwrap();
    assert_eq!(same.to_vec(), bytes);
    assert_eq!(json(field("warnings")), serde_json::json!([]));
}

#[wasm_bindgen_test]
fn validate_reports_broken_rules_as_strings() {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("manual", None, None);
    let samples = b.value_type("samples", "count");
    let nameless = b.function_named("", None);
    let loc = b.location(Some(nameless), 1);
    let stack = b.stack_leaf_first(&[loc]);
    b.add_sample_with_values(src, stack, &[(samples, 1.0)]);
    let p = Profile::from_parsed(Parsed {
        format: Format::TablesJson,
        profile: b.build().unwrap(),
        warnings: Vec::new(),
    });
    let violations = p.validate();
    assert!(
        violations
            .iter()
            .any(|v| v.starts_with("functions.name row 1")),
        "{violations:?}"
    );
}

#[wasm_bindgen_test]
fn write_rejects_unknown_formats_by_name() {
    let p = sample_profile();
    let message = error_message(p.write("svg", None, None).err().unwrap());
    assert!(
        message.starts_with("unknown format \"svg\"; proftab writes"),
        "{message}"
    );
}

#[wasm_bindgen_test]
fn formats_lists_every_format_with_its_extensions() {
    let list = json(Profile::formats().unwrap());
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    let all: Vec<&str> = proftab::formats::ALL_FORMATS
        .iter()
        .map(|f| f.name())
        .collect();
    assert_eq!(names, all);
    let pprof = list
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "pprof")
        .unwrap();
    assert_eq!(
        pprof["extensions"],
        serde_json::json!([".pb.gz", ".pb", ".pprof"])
    );
    assert_eq!(
        pprof["read"].as_bool().unwrap(),
        Format::Pprof.can_read(),
        "read flag follows the registry"
    );
    assert_eq!(json(proftab::wasm::formats().unwrap()), list);
}
