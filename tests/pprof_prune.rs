//! pprof's `drop_frames` / `keep_frames`: the reader keeps the raw stacks and the expressions
//! (the writer gives both back), and `proftab top` prunes as `go tool pprof` does on reading.
//!
//! The profile is built here with the prost types: stacks where a dropped frame sits below
//! user code (cut), at the root (kept: no user frame above), inside an inlined location (its
//! inner lines trimmed), under a kept name (`keep_frames`) and behind an argument list
//! (simplified name). `go tool pprof -top` of the file equals `proftab top` of it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::formats::pprof::prune::prune;
use proftab::formats::pprof::schema::{
    Function, Line, Location, Profile as PProfile, Sample, ValueType,
};
use proftab::formats::pprof::{self, META_DROP_FRAMES, META_KEEP_FRAMES};
use proftab::formats::{Format, ReadOptions, WriteOptions};
use prost::Message;
use support::cli::{run, stdout};
use support::go::{go_top, parse_top};
use support::json::sample_lines;
use support::profile::assert_valid;

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

fn build(drop: &str, keep: &str) -> Vec<u8> {
    let mut strings: Vec<String> = vec![String::new(), "samples".into(), "count".into()];
    let mut s = |t: &str| {
        strings.push(t.to_owned());
        strings.len() as i64 - 1
    };
    let functions: Vec<Function> = FUNCTIONS
        .iter()
        .enumerate()
        .map(|(i, name)| Function {
            id: i as u64 + 1,
            name: s(name),
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
        value: vec![v],
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

fn read(bytes: &[u8]) -> proftab::model::Profile {
    let p = pprof::read(bytes, &ReadOptions::default()).unwrap().profile;
    assert_valid(&p, "built");
    p
}

#[test]
fn reader_keeps_raw_stacks_and_writer_keeps_expressions() {
    let bytes = build(r"runtime\..*|bar", r"runtime\.keepme");
    let p = read(&bytes);
    assert_eq!(p.meta_value(META_DROP_FRAMES), Some(r"runtime\..*|bar"));
    assert_eq!(p.meta_value(META_KEEP_FRAMES), Some(r"runtime\.keepme"));
    let back = read(&pprof::write(&p, &WriteOptions::default()).unwrap().bytes);
    assert_eq!(
        back.meta_value(META_DROP_FRAMES),
        p.meta_value(META_DROP_FRAMES)
    );
    assert_eq!(
        back.meta_value(META_KEEP_FRAMES),
        p.meta_value(META_KEEP_FRAMES)
    );
    assert_eq!(sample_lines(&back), sample_lines(&p));
    assert!(sample_lines(&p)[0].contains("runtime.mallocgc"));
}

#[test]
fn pruned_stacks() {
    let p = read(&build(r"runtime\..*|bar", r"runtime\.keepme"));
    let pruned = prune(&p).unwrap().unwrap();
    assert_valid(&pruned, "pruned");
    let stacks: Vec<String> = sample_lines(&pruned)
        .iter()
        .map(|l| l.split_whitespace().nth(1).unwrap().to_owned())
        .collect();
    assert_eq!(
        stacks,
        [
            "main.main@:10#1000;main.foo@:20#2000",
            "main.main@:10#1000;main.foo@:20#2000",
            "main.main@:10#1000;main.foo@:20#a000",
            "runtime.goexit@:70#7000;main.main@:10#1000;main.leaf@:60#6000",
            "main.main@:10#1000",
            "runtime.goexit@:70#7000;runtime.gcBgMarkWorker@:90#9000",
            "main.main@:10#1000;runtime.keepme@:40#4000",
        ]
    );
    // Without drop_frames nothing is pruned; an invalid expression is an error.
    assert!(prune(&read(&build("", "x"))).unwrap().is_none());
    assert!(prune(&read(&build("(", "")))
        .unwrap_err()
        .contains("drop_frames"));
}

/// `proftab top` (the CLI) equals `go tool pprof -top` of the same file, pruned or not
/// (an invalid expression: go tool pprof ignores it).
#[test]
fn proftab_top_equals_go_tool_pprof_top() {
    let dir = support::corpus::scratch_dir("pprof-prune");
    for (name, drop, keep) in [
        ("pruned", r"runtime\..*|bar", r"runtime\.keepme"),
        ("no-keep", r"runtime\..*", ""),
        ("invalid", "(", ""),
    ] {
        let path = dir.join(format!("{name}.pb"));
        std::fs::write(&path, build(drop, keep)).unwrap();
        let Some(want) = go_top(&path, "samples", "count") else {
            return;
        };
        let out = run(
            env!("CARGO_BIN_EXE_proftab"),
            &["top", path.to_str().unwrap()],
            None,
        );
        let (_, mut got) = parse_top(&stdout(&out));
        let mut want = want;
        for rows in [&mut got, &mut want] {
            rows.sort_by(|a, b| a.name.cmp(&b.name));
        }
        assert_eq!(got, want, "{name}");
        assert_eq!(
            proftab::formats::detect(&std::fs::read(&path).unwrap()),
            Some(Format::Pprof)
        );
    }
}
