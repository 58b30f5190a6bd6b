//! The pprof profile of tests/pprof_prune.rs and tests/wasm_view.rs, built with the prost
//! types: stacks where a dropped frame sits below user code (cut), at the root (kept: no user
//! frame above), inside an inlined location (its inner lines trimmed), under a kept name
//! (`keep_frames`) and behind an argument list (simplified name).

#![allow(dead_code)] // each test crate uses a part of it

use proftab::formats::pprof::schema::{
    Function, Line, Location, Profile as PProfile, Sample, ValueType,
};

use prost::Message;

const FUNCTIONS: [&str; 9] = [
    "main.main",
    "main.foo",
    "runtime.mallocgc",
    "runtime.keepme",
    "runtime.memmove",
    "main.leaf",
    "runtime.goexit",
    "bar(int)",
    "runtime.gcBgMarkWorker",
];

/// Location ids: 1..=9 one per function (id = function id); 10 = memmove inlined into foo.
const INLINED: u64 = 10;

pub fn build(drop: &str, keep: &str) -> Vec<u8> {
    build_with(drop, keep, "", 1)
}

/// [`build`] with every function in source file `file` and every value times `scale`.
pub fn build_with(drop: &str, keep: &str, file: &str, scale: i64) -> Vec<u8> {
    let mut strings: Vec<String> = vec![String::new(), "samples".into(), "count".into()];
    let mut s = |t: &str| {
        strings.push(t.to_owned());
        strings.len() as i64 - 1
    };
    let filename = if file.is_empty() { 0 } else { s(file) };
    let functions: Vec<Function> = FUNCTIONS
        .iter()
        .enumerate()
        .map(|(i, name)| Function {
            id: i as u64 + 1,
            name: s(name),
            filename,
            ..Function::default()
        })
        .collect();
    let line = |f: u64| Line {
        function_id: f,
        line: 10 * f as i64,
        column: 0,
    };
    let mut location: Vec<Location> = (1..=9)
        .map(|id| Location {
            id,
            address: 0x1000 * id,
            line: vec![line(id)],
            ..Location::default()
        })
        .collect();
    location.push(Location {
        id: INLINED,
        address: 0xa000,
        line: vec![line(5), line(2)],
        ..Location::default()
    });
    let sample = |ids: &[u64], v: i64| Sample {
        location_id: ids.to_vec(),
        value: vec![v * scale],
        label: Vec::new(),
    };
    let (drop_frames, keep_frames) = (s(drop), s(keep));
    let p = PProfile {
        sample_type: vec![ValueType { r#type: 1, unit: 2 }],
        sample: vec![
            sample(&[3, 2, 1], 1),       // mallocgc under foo: cut to foo;main
            sample(&[4, 3, 2, 1], 2),    // keepme above mallocgc: cut too
            sample(&[6, INLINED, 1], 4), // memmove inlined in foo: trimmed, leaf cut
            sample(&[6, 1, 7], 8),       // goexit at the root: kept
            sample(&[8, 1], 16),         // bar(int) under main: cut
            sample(&[9, 7], 32),         // no user frame: kept
            sample(&[4, 1], 64),         // keepme: kept
        ],
        location,
        function: functions,
        string_table: strings.into_iter().map(String::into_bytes).collect(),
        drop_frames,
        keep_frames,
        ..PProfile::default()
    };
    p.encode_to_vec()
}
