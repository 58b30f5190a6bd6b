//! What the wasm tests of the viewer (tests/wasm_view.rs, tests/wasm_tree.rs) share: files
//! handed over as the worker hands them, and reading the typed-array columns of an answer.
#![allow(dead_code)]

use js_sys::{Array, Float64Array, Object, Reflect, Uint32Array, Uint8Array};
use proftab::wasm_view::{LoadedFiles, Viewer};
use wasm_bindgen::{JsCast, JsValue};

/// `contents` as the worker passes files: their bytes and names `file0.txt`, `file1.txt`…
pub fn files(contents: &[&str]) -> (Array, Array) {
    let bytes: Array = contents
        .iter()
        .map(|c| JsValue::from(Uint8Array::from(c.as_bytes())))
        .collect();
    let names: Array = (0..contents.len())
        .map(|i| JsValue::from_str(&format!("file{i}.txt")))
        .collect();
    (bytes, names)
}

/// A viewer of `contents` (one source each).
pub fn viewer(contents: &[&str]) -> Viewer {
    let (bytes, names) = files(contents);
    Viewer::analyse(LoadedFiles::read(&bytes, &names).expect("readable"))
}

pub fn get(o: &Object, key: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(key)).unwrap()
}

pub fn f64s(o: &Object, key: &str) -> Vec<f64> {
    get(o, key).dyn_into::<Float64Array>().unwrap().to_vec()
}

pub fn u32s(o: &Object, key: &str) -> Vec<u32> {
    get(o, key).dyn_into::<Uint32Array>().unwrap().to_vec()
}
