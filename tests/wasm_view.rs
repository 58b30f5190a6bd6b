//! The viewer's wasm API (`proftab::wasm_view`) as the page's worker calls it, run in Node by
//! wasm-bindgen-test-runner (`cargo test --target wasm32-unknown-unknown --test 'wasm*'`).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod pprof_prune_fixture;
mod wasm_support;

use std::collections::BTreeMap;

use js_sys::{Array, Object, Uint8Array};
use proftab::analysis::functions::function_table;
use proftab::formats::pprof::prune::prune;
use proftab::formats::{read_any, ReadOptions};
use proftab::wasm_view::{LoadedFiles, Viewer};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;
use wasm_support::{f64s, files, get, u32s, viewer};

/// Collapsed stacks: main;work;leaf ×2, main;work ×1, main;other ×1 (4 samples).
const STACKS: &str = "main;work;leaf 2\nmain;work 1\nmain;other 1\n";

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
    v.set_options(vt, 1, &[], f64::NAN, f64::NAN, &[0, work], -1, "")
        .unwrap();
    assert_eq!(v.totals().to_vec(), vec![3.0, 4.0, 4.0]);
    // an unknown transform kind is an error, not a panic
    assert!(v
        .set_options(vt, 0, &[], f64::NAN, f64::NAN, &[9, 0], -1, "")
        .is_err());
    v.set_options(vt, 0, &[], f64::NAN, f64::NAN, &[], -1, "")
        .unwrap();
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
    v.set_options(
        types.length() - 1,
        0,
        &[0, 1],
        f64::NAN,
        f64::NAN,
        &[],
        -1,
        "",
    )
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
fn a_bad_file_among_good_ones_is_listed_and_the_others_read() {
    let (bytes, names) = files(&[STACKS, "\u{1}\u{2}binary", "a;b 3\n"]);
    let loaded = LoadedFiles::read(&bytes, &names).expect("two files are readable");
    let failed = loaded.failed();
    assert_eq!(failed.length(), 1);
    let f: Object = failed.get(0).dyn_into().unwrap();
    assert_eq!(get(&f, "index").as_f64(), Some(1.0));
    assert_eq!(get(&f, "name").as_string().unwrap(), "file1.txt");
    let message = get(&f, "message").as_string().unwrap();
    assert!(
        message.starts_with("input: unrecognized format"),
        "{message}"
    );
    let v = Viewer::analyse(loaded);
    assert_eq!(v.totals().to_vec(), vec![7.0, 7.0, 7.0]);
    let sources: Array = get(&v.info(), "sources").dyn_into().unwrap();
    assert_eq!(sources.length(), 2);
}

#[wasm_bindgen_test]
fn when_no_file_is_readable_the_error_names_each() {
    let (bytes, names) = files(&["\u{1}\u{2}binary", "\u{3}also not"]);
    let err = LoadedFiles::read(&bytes, &names).err().expect("an error");
    let text = JsValue::from(err).dyn_into::<js_sys::Error>().unwrap();
    let message: String = text.message().into();
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(lines.len(), 2, "{message}");
    assert!(
        lines[0].starts_with("file0.txt: input: unrecognized format"),
        "{message}"
    );
    assert!(
        lines[1].starts_with("file1.txt: input: unrecognized format"),
        "{message}"
    );
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

/// The export the viewer shows before downloading: the bytes and the loss warnings, counted.
#[wasm_bindgen_test]
fn export_with_warnings_lists_what_the_format_loses() {
    let v = viewer(&["main;work 1\nmain;work 2\nmain 4\n"]);
    let out = v.export_with_warnings("collapsed").unwrap();
    let bytes: Uint8Array = get(&out, "bytes").dyn_into().unwrap();
    assert_eq!(
        String::from_utf8(bytes.to_vec()).unwrap(),
        "main 4\nmain;work 3\n"
    );
    let warnings: Array = get(&out, "warnings").dyn_into().unwrap();
    assert_eq!(warnings.length(), 1);
    let w: Object = warnings.get(0).dyn_into().unwrap();
    assert_eq!(get(&w, "format").as_string().unwrap(), "collapsed");
    assert_eq!(
        get(&w, "message").as_string().unwrap(),
        "sums samples by stack: 3 samples became 2 entries (sample order and identity are lost)"
    );
    assert_eq!(get(&w, "count").as_f64(), Some(1.0));
    let none = v.export_with_warnings("tables-json").unwrap();
    let none: Array = get(&none, "warnings").dyn_into().unwrap();
    assert_eq!(none.length(), 0);
}

/// Compare mode's baseline: main;work;leaf 2, main;work 1, main;other 1 (4 samples).
/// Its comparison: main;work;leaf 6, main;fresh 2 (8 samples).
const NEW_STACKS: &str = "main;work;leaf 6\nmain;fresh 2\n";

fn error_text(e: wasm_bindgen::JsError) -> String {
    let e = JsValue::from(e).dyn_into::<js_sys::Error>().unwrap();
    e.message().into()
}

fn value_type(v: &Viewer, name: &str) -> u32 {
    let types: Array = get(&v.info(), "valueTypes").dyn_into().unwrap();
    let at = types
        .iter()
        .position(|t| get(t.unchecked_ref(), "type").as_string().unwrap() == name)
        .unwrap();
    at as u32
}

/// Sets the value type called `name` and `transforms` (pairs of kind and frame id), every
/// other option at its default.
fn choose(v: &mut Viewer, name: &str, transforms: &[u32]) {
    let vt = value_type(v, name);
    v.set_options(vt, 0, &[], f64::NAN, f64::NAN, transforms, -1, "")
        .unwrap();
}

#[wasm_bindgen_test]
fn compare_table_counts_both_sides_absolute_and_scaled() {
    let mut v = viewer(&[STACKS, NEW_STACKS]);
    let names = frame_names(&v);
    let at = |n: &str| names.iter().position(|x| x == n).unwrap();
    choose(&mut v, "samples", &[]);
    let summary = v.compare(&[0], &[1], false, false).unwrap();
    assert_eq!(get(&summary, "scale").as_f64(), Some(1.0));
    assert_eq!(get(&summary, "newTotal").as_f64(), Some(8.0));
    let t = v.compare_table().unwrap();
    let (bs, bt) = (f64s(&t, "baseSelf"), f64s(&t, "baseTotal"));
    let (ns, nt) = (f64s(&t, "newSelf"), f64s(&t, "newTotal"));
    assert_eq!((bs[at("leaf")], ns[at("leaf")]), (2.0, 6.0));
    assert_eq!((bt[at("work")], nt[at("work")]), (3.0, 6.0));
    assert_eq!((bt[at("other")], nt[at("other")]), (1.0, 0.0));
    assert_eq!((bt[at("fresh")], nt[at("fresh")]), (0.0, 2.0));
    // scaled: the comparison is halved to the baseline's total of 4
    let summary = v.compare(&[0], &[1], true, false).unwrap();
    assert_eq!(get(&summary, "scale").as_f64(), Some(0.5));
    assert_eq!(get(&summary, "newTotalRaw").as_f64(), Some(8.0));
    let nt = f64s(&v.compare_table().unwrap(), "newTotal");
    assert_eq!(
        (nt[at("leaf")], nt[at("fresh")], nt[at("main")]),
        (3.0, 1.0, 4.0)
    );
}

/// Every box of the differential flame graph, and the frame names of all boxes but the root.
fn whole_compare_flame(v: &mut Viewer, names: &[String]) -> (Object, Vec<String>) {
    let b = v
        .compare_flame(f64::NEG_INFINITY, f64::INFINITY, 0.0, u32::MAX)
        .unwrap();
    let frames = u32s(&b, "frame")[1..]
        .iter()
        .map(|&f| names[f as usize].clone())
        .collect();
    (b, frames)
}

#[wasm_bindgen_test]
fn compare_flame_boxes_carry_both_totals() {
    let mut v = viewer(&[STACKS, NEW_STACKS]);
    let names = frame_names(&v);
    choose(&mut v, "samples", &[]);
    v.compare(&[0], &[1], true, false).unwrap();
    let (b, frames) = whole_compare_flame(&mut v, &names);
    // widths = scaled comparison: main 4 = work 3 + fresh 1; leaf 3; "other" is gone
    assert_eq!(frames, ["main", "work", "fresh", "leaf"]);
    assert_eq!(f64s(&b, "width"), vec![4.0, 4.0, 3.0, 1.0, 3.0]);
    assert_eq!(f64s(&b, "new"), f64s(&b, "width"));
    assert_eq!(f64s(&b, "base"), vec![4.0, 4.0, 3.0, 0.0, 2.0]);
    // sized by the baseline, the gone frame shows and the new one does not
    let summary = v.compare(&[0], &[1], true, true).unwrap();
    assert_eq!(get(&summary, "width").as_f64(), Some(4.0));
    let (b, frames) = whole_compare_flame(&mut v, &names);
    assert_eq!(frames, ["main", "work", "other", "leaf"]);
    assert_eq!(f64s(&b, "new"), vec![4.0, 4.0, 3.0, 0.0, 3.0]);
}

#[wasm_bindgen_test]
fn compare_follows_the_transforms() {
    let mut v = viewer(&[STACKS, NEW_STACKS]);
    let names = frame_names(&v);
    let work = names.iter().position(|x| x == "work").unwrap() as u32;
    choose(&mut v, "samples", &[0, work]);
    let summary = v.compare(&[0], &[1], false, false).unwrap();
    // focused on work: baseline 3, comparison 6
    assert_eq!(get(&summary, "width").as_f64(), Some(6.0));
    let b = v.compare_flame(0.0, 6.0, 0.0, u32::MAX).unwrap();
    assert_eq!(f64s(&b, "base")[..2], [3.0, 3.0]);
    // without the focus the same comparison answers for the whole tree (main 8, base 4)
    choose(&mut v, "samples", &[]);
    let b = v.compare_flame(0.0, 8.0, 0.0, u32::MAX).unwrap();
    assert_eq!(f64s(&b, "width")[..2], [8.0, 8.0]);
    assert_eq!(f64s(&b, "base")[..2], [4.0, 4.0]);
}

#[wasm_bindgen_test]
fn compare_errors_are_clear() {
    let mut v = viewer(&[STACKS, NEW_STACKS]);
    let message = |r: Result<Object, wasm_bindgen::JsError>| error_text(r.err().unwrap());
    assert_eq!(
        message(v.compare(&[], &[1], true, false)),
        "the baseline has no sources: choose at least one"
    );
    assert_eq!(
        message(v.compare(&[1, 0], &[0, 1, 1], true, false)),
        "the baseline and the comparison are the same sources: choose different ones"
    );
    assert_eq!(
        message(v.compare(&[0], &[7], true, false)),
        "diff: no source with source_id 8"
    );
    assert!(message(v.compare_table()).starts_with("no comparison"));
    v.compare(&[0], &[1], true, false).unwrap();
    assert!(v.compare_table().is_ok());
    // a failed request leaves no comparison behind
    assert!(v.compare(&[0], &[], true, false).is_err());
    assert!(message(v.compare_table()).starts_with("no comparison"));
}

#[wasm_bindgen_test]
fn compare_needs_the_value_type_on_both_sides() {
    // Rprof has a time value type; collapsed stacks have only sample counts.
    let rprof = "sample.interval=20000\n\"f\" \"main\" \n\"f\" \"main\" \n";
    let mut v = viewer(&[rprof, STACKS]);
    choose(&mut v, "time", &[]);
    let err = error_text(v.compare(&[0], &[1], true, false).err().unwrap());
    assert_eq!(
        err,
        "diff: no sample of the comparison selection has a value of type \"time\""
    );
}

/// An Rprof with line profiling: two ticks at w.R:5 (in `sim`, calling builtins without a
/// line), one at w.R:9 (in `f`), and one sample without any line.
const LINES: &str = concat!(
    "line profiling: sample.interval=10000\n",
    "#File 1: w.R\n",
    "\"rnorm\" 1#5 \"sim\" \n",
    "\"c\" 1#5 \"sim\" \n",
    "\"g\" 1#9 \"f\" \n",
    "\"h\" \n",
);

#[wasm_bindgen_test]
fn line_table_rows_point_at_their_functions() {
    let v = viewer(&[LINES]);
    let t = v.line_table();
    let labels: Vec<String> = get(&t, "labels")
        .dyn_into::<Array>()
        .unwrap()
        .iter()
        .map(|l| l.as_string().unwrap())
        .collect();
    assert_eq!(labels, ["w.R:5  sim", "w.R:9  f", "<no location>"]);
    // Ticks of 10 ms, in nanoseconds (the default value type is time).
    assert_eq!(f64s(&t, "self"), [2e7, 1e7, 1e7]);
    assert_eq!(f64s(&t, "total"), [2e7, 1e7, 1e7]);
    let names = frame_names(&v);
    let frames = u32s(&t, "frame");
    assert_eq!(names[frames[0] as usize], "sim");
    assert_eq!(names[frames[1] as usize], "f");
    assert_eq!(frames[2], u32::MAX);
}

/// Collapsed stacks of two Rprof runs (`Rprof(append = TRUE)`): the run is a facet.
const TWO_RUNS: &str = concat!(
    "sample.interval=10000\n\"leaf\" \"main\" \n\"leaf\" \"main\" \n",
    "sample.interval=10000\n\"other\" \"main\" \n",
);

#[wasm_bindgen_test]
fn a_facet_value_filters_the_samples() {
    let mut v = viewer(&[TWO_RUNS]);
    let facets = v.facets();
    assert_eq!(facets.length(), 1);
    let f: Object = facets.get(0).dyn_into().unwrap();
    assert_eq!(get(&f, "name").as_string().unwrap(), "rprof_run");
    assert_eq!(u32s(&f, "samples"), [2, 1]);
    let samples = value_type(&v, "samples");
    v.set_options(samples, 0, &[], f64::NAN, f64::NAN, &[], 0, "2")
        .unwrap();
    assert_eq!(v.totals().to_vec(), vec![1.0, 1.0, 3.0]);
    let names = frame_names(&v);
    let table = v.function_table();
    let other = names.iter().position(|n| n == "other").unwrap();
    assert_eq!(f64s(&table, "self")[other], 1.0);
    // Another value type with the same facet value keeps the same samples (the mask reused).
    let time = value_type(&v, "time");
    v.set_options(time, 0, &[], f64::NAN, f64::NAN, &[], 0, "2")
        .unwrap();
    assert_eq!(v.totals().to_vec(), vec![1e7, 1e7, 3e7]);
    v.set_options(time, 0, &[], f64::NAN, f64::NAN, &[], 0, "1")
        .unwrap();
    assert_eq!(v.totals().to_vec(), vec![2e7, 2e7, 3e7]);
    let err = v
        .set_options(samples, 0, &[], f64::NAN, f64::NAN, &[], 5, "x")
        .unwrap_err();
    assert_eq!(error_text(err), "no facet 5");
}

/// `(self, total)` by name, rows with both zero left out.
fn nonzero(rows: impl IntoIterator<Item = (String, f64, f64)>) -> BTreeMap<String, (f64, f64)> {
    rows.into_iter()
        .filter(|(_, s, t)| *s != 0.0 || *t != 0.0)
        .map(|(n, s, t)| (n, (s, t)))
        .collect()
}

/// A pprof profile with drop_frames/keep_frames is shown as `go tool pprof` and `proftab top`
/// show it: the viewer's function table is `top`'s table of the pruned profile.
#[wasm_bindgen_test]
fn pruned_pprof_function_table_equals_top() {
    let bytes = pprof_prune_fixture::build(r"runtime\..*|bar", r"runtime\.keepme");
    let files = Array::of1(&Uint8Array::from(&bytes[..]));
    let v = Viewer::analyse(LoadedFiles::read(&files, &Array::of1(&"p.pb".into())).unwrap());
    let names = frame_names(&v);
    let table = v.function_table();
    let (self_w, total) = (f64s(&table, "self"), f64s(&table, "total"));
    let got = nonzero((0..names.len()).map(|i| (names[i].clone(), self_w[i], total[i])));
    // What `proftab top` computes (tests/pprof_prune.rs judges it by `go tool pprof -top`).
    let raw = read_any(&bytes, &ReadOptions::default()).unwrap().profile;
    let pruned = prune(&raw).unwrap().unwrap();
    let vt = pruned.default_value_type().unwrap();
    let top = function_table(&pruned, vt, None).rows;
    let want = nonzero(
        top.into_iter()
            .map(|r| (r.name, r.self_value, r.total_value)),
    );
    assert_eq!(got, want);
    assert_eq!(got["main.main"], (16.0, 95.0));
    assert_eq!(got["main.foo"], (7.0, 7.0));
    assert!(!got.contains_key("runtime.mallocgc") && !got.contains_key("bar(int)"));
    assert_eq!(v.totals().to_vec(), vec![127.0; 3]);
}

/// The Source tab's query: files, lines, every value type (type t of line i at t * lines + i),
/// the frames at each line; a transform applies (hiding `sim` removes its line).
#[wasm_bindgen_test]
fn source_lists_a_file_s_lines_in_every_value_type() {
    let mut v = viewer(&[LINES]);
    let s = v.source("");
    let files: Vec<String> = get(&s, "files")
        .dyn_into::<Array>()
        .unwrap()
        .iter()
        .map(|f| f.as_string().unwrap())
        .collect();
    assert_eq!(files, ["w.R"]);
    assert_eq!(get(&s, "file").as_f64(), Some(0.0));
    let lines = get(&s, "lines")
        .dyn_into::<js_sys::Int32Array>()
        .unwrap()
        .to_vec();
    assert_eq!(lines, [5, 9]);
    let types: Array = get(&v.info(), "valueTypes").dyn_into().unwrap();
    let time = types
        .iter()
        .position(|t| get(t.unchecked_ref(), "type").as_string().as_deref() == Some("time"))
        .unwrap();
    let self_w = f64s(&s, "self");
    assert_eq!(self_w.len(), 2 * types.length() as usize);
    // Ticks of 10 ms in nanoseconds: two samples at line 5, one at line 9.
    assert_eq!(&self_w[2 * time..2 * time + 2], [2e7, 1e7]);
    assert_eq!(f64s(&s, "totals")[time], 4e7);
    let names = frame_names(&v);
    let at: Vec<&str> = u32s(&s, "frames")
        .iter()
        .map(|&f| names[f as usize].as_str())
        .collect();
    assert_eq!(at, ["sim", "f"]);
    assert_eq!(u32s(&s, "frameStart"), [0, 1, 2]);
    let sim = names.iter().position(|n| n == "sim").unwrap() as u32;
    v.set_options(time as u32, 0, &[], f64::NAN, f64::NAN, &[1, sim], -1, "")
        .unwrap();
    let hidden = v.source("w.R");
    let lines = get(&hidden, "lines")
        .dyn_into::<js_sys::Int32Array>()
        .unwrap()
        .to_vec();
    assert_eq!(lines, [9]);
}

#[wasm_bindgen_test]
fn is_profile_tells_source_text_from_profiles() {
    use proftab::wasm_source::is_profile;
    assert!(is_profile(STACKS.as_bytes()));
    assert!(is_profile(LINES.as_bytes()));
    assert!(!is_profile(b"x <- c(1, 2)\nprint(sum(x))\n"));
    assert!(!is_profile(b"package main\n\nfunc main() {}\n"));
}

/// The files of `texts` fed to a parse session in pieces of `size` bytes (again when it asks),
/// then parsed in steps of 5,000 samples (the worker's way): the session and the steps each file took.
fn session_of(texts: &[&[u8]], size: usize) -> proftab::wasm_stream::ParseSession {
    stepped_session_of(texts, size).0
}

fn stepped_session_of(
    texts: &[&[u8]],
    size: usize,
) -> (proftab::wasm_stream::ParseSession, Vec<usize>) {
    let mut steps = Vec::new();
    let mut s = proftab::wasm_stream::ParseSession::new();
    for (i, t) in texts.iter().enumerate() {
        let tail = t
            .len()
            .checked_sub(4)
            .map(|at| u32::from_le_bytes(t[at..].try_into().unwrap()));
        s.begin(format!("file{i}.txt"), t.len() as f64, tail, Some(true));
        for piece in t.chunks(size) {
            s.feed(piece);
        }
        if s.wants_again() {
            for piece in t.chunks(size) {
                s.feed(piece);
            }
        }
        let mut calls = 1;
        while !s.step(5000) {
            assert_eq!(s.samples_read(), (calls * 5000) as f64);
            assert!(s.samples_read() < s.samples_total());
            calls += 1;
        }
        steps.push(calls);
        s.end();
    }
    (s, steps)
}

#[wasm_bindgen_test]
fn a_pprof_file_is_parsed_in_steps_and_reads_as_the_whole() {
    let big: String = (0..80_000)
        .map(|i| format!("main;w{};l{i} {}\n", i % 17, 1 + i % 3))
        .collect();
    let collapsed = read_any(big.as_bytes(), &ReadOptions::default()).unwrap();
    let pprof = proftab::formats::pprof::write(&collapsed.profile, &Default::default())
        .unwrap()
        .bytes;
    let (session, steps) = stepped_session_of(&[big.as_bytes(), &pprof], 65536);
    // Folded stacks in one step; pprof's 80,000 samples (distinct stacks: one per line) in 16.
    assert_eq!(steps, [1, 80_000 / 5000]);
    let streamed =
        Viewer::analyse(LoadedFiles::read_session(session, &JsValue::UNDEFINED).unwrap());
    let (bytes, names) = files(&[&big]);
    bytes.push(&Uint8Array::from(&pprof[..]));
    names.push(&"file1.txt".into());
    let whole = Viewer::analyse(LoadedFiles::read(&bytes, &names).unwrap());
    assert_eq!(streamed.totals().to_vec(), whole.totals().to_vec());
    assert_eq!(frame_names(&streamed), frame_names(&whole));
}

#[wasm_bindgen_test]
fn a_parse_session_reads_as_the_whole_and_lists_failures() {
    let big: String = (0..80_000)
        .map(|i| format!("main;w{};l{} {}\n", i % 17, i * 7 % 101, 1 + i % 3))
        .collect();
    let gz = proftab::formats::gzip::gzip(big.as_bytes());
    let texts: [&[u8]; 4] = [STACKS.as_bytes(), b"\x01\x02binary", big.as_bytes(), &gz];
    let streamed =
        LoadedFiles::read_session(session_of(&texts, 65536), &JsValue::UNDEFINED).unwrap();
    let failed = streamed.failed();
    assert_eq!(failed.length(), 1);
    let f: Object = failed.get(0).dyn_into().unwrap();
    assert_eq!(get(&f, "index").as_f64(), Some(1.0));
    assert_eq!(get(&f, "name").as_string().unwrap(), "file1.txt");
    let (bytes, names) = files(&[STACKS, "\u{1}\u{2}binary", &big]);
    bytes.push(&Uint8Array::from(&gz[..]));
    names.push(&"file3.txt".into());
    let whole = Viewer::analyse(LoadedFiles::read(&bytes, &names).unwrap());
    let v = Viewer::analyse(streamed);
    assert_eq!(v.totals().to_vec(), whole.totals().to_vec());
    assert_eq!(frame_names(&v), frame_names(&whole));
    let info = |v: &Viewer, k: &str| get(&v.info(), k).as_f64();
    for k in ["samples", "frames", "nodes", "maxDepth"] {
        assert_eq!(info(&v, k), info(&whole, k), "{k}");
    }
}
