//! The viewer's wasm API (`proftab::wasm_view`) as the page's worker calls it, run in Node by
//! wasm-bindgen-test-runner (`cargo test --target wasm32-unknown-unknown --test 'wasm*'`).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use js_sys::{Array, Float64Array, Object, Reflect, Uint32Array, Uint8Array};
use proftab::wasm_view::{LoadedFiles, Viewer};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

/// Collapsed stacks: main;work;leaf ×2, main;work ×1, main;other ×1 (4 samples).
const STACKS: &str = "main;work;leaf 2\nmain;work 1\nmain;other 1\n";

fn files(contents: &[&str]) -> (Array, Array) {
    let bytes: Array = contents
        .iter()
        .map(|c| JsValue::from(Uint8Array::from(c.as_bytes())))
        .collect();
    let names: Array = (0..contents.len())
        .map(|i| JsValue::from_str(&format!("file{i}.txt")))
        .collect();
    (bytes, names)
}

fn viewer(contents: &[&str]) -> Viewer {
    let (bytes, names) = files(contents);
    Viewer::analyse(LoadedFiles::read(&bytes, &names).expect("readable"))
}

fn get(o: &Object, key: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(key)).unwrap()
}

fn f64s(o: &Object, key: &str) -> Vec<f64> {
    get(o, key).dyn_into::<Float64Array>().unwrap().to_vec()
}

fn u32s(o: &Object, key: &str) -> Vec<u32> {
    get(o, key).dyn_into::<Uint32Array>().unwrap().to_vec()
}

fn frame_names(v: &Viewer) -> Vec<String> {
    let names: Array = get(&v.frames(), "names").dyn_into().unwrap();
    names.iter().map(|n| n.as_string().unwrap()).collect()
}

#[wasm_bindgen_test]
fn flame_columns_and_function_table() {
    let v = viewer(&[STACKS]);
    let names = frame_names(&v);
    let at = |n: &str| names.iter().position(|x| x == n).unwrap();
    let table = v.function_table();
    let (self_w, total) = (f64s(&table, "self"), f64s(&table, "total"));
    assert_eq!((self_w[at("leaf")], total[at("work")]), (2.0, 3.0));
    assert_eq!(total[at("main")], 4.0);
    assert_eq!(v.totals().to_vec(), vec![4.0, 4.0, 4.0]);
    let b = v.flame(f64::NEG_INFINITY, f64::INFINITY, 0.0, u32::MAX);
    // root, main, work, other, leaf: breadth first, widest first
    let frames: Vec<String> = u32s(&b, "frame")[1..]
        .iter()
        .map(|&f| names[f as usize].clone())
        .collect();
    assert_eq!(frames, ["main", "work", "other", "leaf"]);
    assert_eq!(f64s(&b, "width"), vec![4.0, 4.0, 3.0, 1.0, 2.0]);
    assert_eq!(f64s(&b, "x"), vec![0.0, 0.0, 0.0, 3.0, 0.0]);
    assert_eq!(u32s(&b, "depth"), vec![0, 1, 2, 2, 3]);
}

#[wasm_bindgen_test]
fn options_transforms_search_and_sandwich() {
    let mut v = viewer(&[STACKS]);
    let names = frame_names(&v);
    let work = names.iter().position(|x| x == "work").unwrap() as u32;
    let types: Array = get(&v.info(), "valueTypes").dyn_into().unwrap();
    let vt = types.length() - 1;
    // focus on work: 3 of 4 samples remain
    v.set_options(vt, 1, &[], f64::NAN, f64::NAN, &[0, work])
        .unwrap();
    assert_eq!(v.totals().to_vec(), vec![3.0, 4.0, 4.0]);
    // an unknown transform kind is an error, not a panic
    assert!(v
        .set_options(vt, 0, &[], f64::NAN, f64::NAN, &[9, 0])
        .is_err());
    v.set_options(vt, 0, &[], f64::NAN, f64::NAN, &[]).unwrap();
    let found = v.search("/^(LEAF|other)$/").unwrap();
    assert_eq!(get(&found, "matched").as_f64(), Some(3.0));
    assert!(v.search("/(/").is_err());
    let callers = v.sandwich(work, 0, f64::NEG_INFINITY, f64::INFINITY, 0.0, u32::MAX);
    assert_eq!(f64s(&callers, "width")[..2], [3.0, 3.0]);
    let path = v
        .path(u32s(&v.flame(0.0, 4.0, 0.0, u32::MAX), "node")[4])
        .to_vec();
    assert_eq!(path.len(), 3);
}

#[wasm_bindgen_test]
fn several_files_are_combined_with_one_source_each() {
    let mut v = viewer(&[STACKS, "main;other 5\n"]);
    let sources: Array = get(&v.info(), "sources").dyn_into().unwrap();
    assert_eq!(sources.length(), 2);
    assert_eq!(v.totals().to_vec()[0], 9.0);
    let types: Array = get(&v.info(), "valueTypes").dyn_into().unwrap();
    v.set_options(types.length() - 1, 0, &[0, 1], f64::NAN, f64::NAN, &[])
        .unwrap();
    assert_eq!(v.totals().to_vec(), vec![5.0, 5.0, 9.0]);
}

#[wasm_bindgen_test]
fn unreadable_bytes_name_the_file() {
    let (bytes, names) = files(&["\u{1}\u{2}binary"]);
    let err = LoadedFiles::read(&bytes, &names).err().expect("an error");
    let text = JsValue::from(err).dyn_into::<js_sys::Error>().unwrap();
    let message: String = text.message().into();
    assert!(message.starts_with("file0.txt: "), "{message}");
}

#[wasm_bindgen_test]
fn export_writes_a_readable_profile() {
    let v = viewer(&[STACKS]);
    let formats: Vec<String> = Viewer::writable_formats()
        .iter()
        .map(|f| f.as_string().unwrap())
        .collect();
    assert!(formats.iter().any(|f| f == "collapsed"));
    let bytes = v.export("collapsed").unwrap().to_vec();
    let again = viewer(&[std::str::from_utf8(&bytes).unwrap()]);
    assert_eq!(again.totals().to_vec(), v.totals().to_vec());
    assert!(v.export("no-such-format").is_err());
}
