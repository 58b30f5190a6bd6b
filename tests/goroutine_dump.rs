//! Go goroutine stack dumps (`goroutine-dump`), judged by Go's own profile of the same moment.
//!
//! * Every fixture has one sample per `goroutine N [` header (counted by a line filter).
//! * `goroutines.txt` (debug=2) and its protobuf twin `goroutines.pb.gz` (debug=0), written one
//!   after the other by `gen/main.go`, hold the same goroutines: the multiset of stacks of
//!   function names equals what `go tool pprof -traces` prints for the twin, once the frames
//!   each form hides are accounted for (see [`normalize_pprof_stack`]).
//! * Dump → proftab → pprof (proftab's writer) → `go tool pprof -top` gives, per function, the
//!   flat and cum goroutine counts of proftab's function table.
//! * The hand-written Go ≥ 1.21 fixture reads to hand-counted columns and meta.
//! * Invalid inputs (tests/fixtures/invalid/goroutine-dump) give their exact messages.
//!
//! Tests that need Go print `SKIP:` on stderr when `go` is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use proftab::analysis::functions::function_table;
use proftab::formats::goroutine_dump::{
    self, LOC_PC_OFFSET, META_EXIT_STATUS, META_PANIC, SAMPLE_CREATED_BY,
    SAMPLE_CREATED_BY_LOCATION, SAMPLE_CREATOR_ID, SAMPLE_GOROUTINE_ID, SAMPLE_LOCKED, SAMPLE_M,
    SAMPLE_STATE, SAMPLE_WAIT_MINUTES,
};
use proftab::formats::{inline::INLINED, pprof, Format, WriteOptions};
use proftab::model::{Cell, Profile, SampleIndex, ValueTypeIndex, INT_NA};
use support::corpus::{files_in, fixture};
use support::go::{go_output, go_top};
use support::profile::{assert_valid, read_path};
use support::text::{assert_other_formats_not_claimed, check_invalid_fixtures, truncation_sweep};

/// The dump fixtures (`*.txt` but the debug=1 twin, which is pprof-text).
fn dumps() -> Vec<PathBuf> {
    files_in(&fixture("goroutine-dump"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .filter(|p| !p.to_string_lossy().ends_with(".debug1.txt"))
        .collect()
}

/// Innermost-first function names of sample `s`.
fn stack_names(p: &Profile, s: usize) -> Vec<String> {
    p.frames_leaf_first(p.sample_stack(SampleIndex(s as u32)))
        .map(|loc| {
            let f = p.location_function(loc).unwrap();
            p.str(p.functions.name[f.idx()]).to_owned()
        })
        .collect()
}

fn sample_cell(p: &Profile, column: &str, s: usize) -> Cell {
    p.samples.ext.cell(column, s).unwrap()
}

fn chr(p: &Profile, column: &str, s: usize) -> Option<String> {
    match sample_cell(p, column, s) {
        Cell::Chr(id) => p.strings.get(id).map(str::to_owned),
        other => panic!("{column}: {other:?}"),
    }
}

#[test]
fn one_sample_per_goroutine_header() {
    let dumps = dumps();
    assert_eq!(dumps.len(), 5);
    for path in dumps {
        let text = std::fs::read_to_string(&path).unwrap();
        let headers = text
            .lines()
            .filter(|l| l.starts_with("goroutine ") && l.contains(" ["))
            .count();
        let parsed = read_path(Format::GoroutineDump, &path);
        assert_eq!(parsed.format, Format::GoroutineDump);
        let p = &parsed.profile;
        assert_valid(p, &path.display().to_string());
        assert_eq!(p.num_samples(), headers, "{}", path.display());
        assert_eq!(support::text::total(p, "goroutine"), headers as f64);
        support::text::assert_detected(Format::GoroutineDump, &path);
    }
}

/// Goroutine ids and states read back as the headers print them (the header lines parsed here
/// with a split, independently of the reader).
#[test]
fn headers_become_columns() {
    let path = fixture("goroutine-dump/goroutines.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let want: Vec<(u64, String)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("goroutine "))
        .map(|rest| {
            let (id, status) = rest.split_once(" [").unwrap();
            let state = status.trim_end_matches("]:").split(", ").next().unwrap();
            (id.parse().unwrap(), state.to_owned())
        })
        .collect();
    let p = read_path(Format::GoroutineDump, &path).profile;
    let got: Vec<(u64, String)> = (0..p.num_samples())
        .map(|s| {
            let Cell::U64(Some(id)) = sample_cell(&p, SAMPLE_GOROUTINE_ID, s) else {
                panic!("no id")
            };
            (id, chr(&p, SAMPLE_STATE, s).unwrap())
        })
        .collect();
    assert_eq!(got, want);
    let states: Vec<&str> = want.iter().map(|(_, s)| s.as_str()).collect();
    for state in [
        "chan receive",
        "select",
        "semacquire",
        "sleep",
        "IO wait",
        "syscall",
    ] {
        assert!(states.contains(&state), "{state} missing: {states:?}");
    }
    // `[chan receive, locked to thread]` is the only locked goroutine.
    let locked: Vec<usize> = (0..p.num_samples())
        .filter(|&s| sample_cell(&p, SAMPLE_LOCKED, s) == Cell::Lgl(Some(true)))
        .collect();
    assert_eq!(locked.len(), 1);
    assert_eq!(stack_names(&p, locked[0]), ["main.pinned"]);
    // main.wait is printed as `main.wait(...)`, inlined into main.chanReceiver.
    let wait = (0..p.locations.line.len())
        .find(|&l| {
            p.location_function(proftab::model::LocationIndex(l as u32))
                .is_some_and(|f| p.str(p.functions.name[f.idx()]) == "main.wait")
        })
        .unwrap();
    assert_eq!(
        p.locations.ext.cell(INLINED, wait),
        Some(Cell::Lgl(Some(true)))
    );
    assert_eq!(
        p.locations.ext.cell(LOC_PC_OFFSET, wait),
        Some(Cell::U64(None))
    );
}

/// `go tool pprof -traces` of `file`: the stacks (innermost first) with their counts.
fn go_traces(file: &std::path::Path) -> Option<Vec<(u64, Vec<String>)>> {
    let args = ["tool", "pprof", "-symbolize=none", "-traces"].map(str::to_owned);
    let file = file.display().to_string();
    let text = go_output(&[&args[..], &[file]].concat())?;
    let mut traces = Vec::new();
    for block in text.split("-----------+").skip(1) {
        let mut stack: Option<(u64, Vec<String>)> = None;
        for line in block.lines().skip(1) {
            let t = line.trim();
            if t.is_empty() {
                continue;
            }
            match stack.as_mut() {
                Some((_, frames)) => frames.push(t.trim_end_matches(" (inline)").to_owned()),
                None => {
                    // Label lines (`worker:  labelled`) come before the count line.
                    let (count, frame) = t.split_once(char::is_whitespace).unwrap();
                    if let Ok(count) = count.parse() {
                        let frame = frame.trim().trim_end_matches(" (inline)").to_owned();
                        stack = Some((count, vec![frame]));
                    }
                }
            }
        }
        traces.extend(stack);
    }
    Some(traces)
}

/// Frames compared: the innermost ones, since the two forms cut deep stacks at different
/// depths (the profile keeps 32 pcs, the dump 100 frames).
const COMPARED_DEPTH: usize = 20;

/// A profile stack as the dump shows it: the dump (GOTRACEBACK=single, runtime.Stack) hides
/// unexported `runtime.` functions (`runtime.gopark`, `runtime.chanrecv1`, `runtime.selectgo`,
/// `runtime.main`, `runtime.goexit`, …) and keeps exported ones (`runtime.Gosched`), as
/// `showfuncinfo` in runtime/traceback.go decides.
fn normalize_pprof_stack(frames: &[String]) -> Vec<String> {
    frames
        .iter()
        .filter(|f| {
            f.strip_prefix("runtime.")
                .is_none_or(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
        })
        .take(COMPARED_DEPTH)
        .cloned()
        .collect()
}

/// The goroutine that wrote the dump: its stack differs between the two writes
/// (`runtime/pprof.writeGoroutineStacks` vs `runtime/pprof.writeRuntimeProfile`).
fn is_writer(frames: &[String]) -> bool {
    frames.iter().any(|f| f.starts_with("runtime/pprof."))
}

#[test]
fn stacks_match_the_protobuf_twin() {
    let Some(traces) = go_traces(&fixture("goroutine-dump/goroutines.pb.gz")) else {
        return;
    };
    let total: u64 = traces.iter().map(|(c, _)| c).sum();
    let p = read_path(
        Format::GoroutineDump,
        &fixture("goroutine-dump/goroutines.txt"),
    )
    .profile;
    assert_eq!(p.num_samples() as u64, total, "goroutine count");
    let mut want: BTreeMap<Vec<String>, u64> = BTreeMap::new();
    for (count, frames) in &traces {
        if !is_writer(frames) {
            *want.entry(normalize_pprof_stack(frames)).or_default() += count;
        }
    }
    let mut got: BTreeMap<Vec<String>, u64> = BTreeMap::new();
    for s in 0..p.num_samples() {
        let frames = stack_names(&p, s);
        if !is_writer(&frames) {
            let cut = frames.into_iter().take(COMPARED_DEPTH).collect();
            *got.entry(cut).or_default() += 1;
        }
    }
    assert_eq!(got, want);
    assert_eq!(
        got.values().sum::<u64>(),
        total - 1,
        "all but the writer compared"
    );
}

#[test]
fn pprof_round_trip_keeps_function_counts() {
    for path in dumps() {
        let p = read_path(Format::GoroutineDump, &path).profile;
        let written = pprof::write(&p, &WriteOptions::default()).unwrap();
        let out = std::env::temp_dir().join(format!(
            "proftab-goroutine-dump-{}-{}.pb.gz",
            std::process::id(),
            path.file_stem().unwrap().to_string_lossy()
        ));
        std::fs::write(&out, written.bytes).unwrap();
        let Some(rows) = go_top(&out, "goroutine", "count") else {
            return;
        };
        let _ = std::fs::remove_file(&out);
        let table = function_table(&p, ValueTypeIndex(0), None);
        let ours: BTreeMap<String, (f64, f64)> = table
            .rows
            .iter()
            .map(|r| (r.name.clone(), (r.self_value, r.total_value)))
            .collect();
        let theirs: BTreeMap<String, (f64, f64)> = rows
            .iter()
            .map(|r| (r.name.clone(), (r.flat, r.cum)))
            .collect();
        assert_eq!(ours, theirs, "{}", path.display());
    }
}

/// The hand-written Go ≥ 1.21 dump, every value counted by hand from the file.
#[test]
fn go121_synthetic() {
    let parsed = read_path(
        Format::GoroutineDump,
        &fixture("goroutine-dump/go121-synthetic.txt"),
    );
    let p = &parsed.profile;
    assert_valid(p, "go121-synthetic");
    assert_eq!(p.num_samples(), 4);
    let ids: Vec<Cell> = (0..4)
        .map(|s| sample_cell(p, SAMPLE_GOROUTINE_ID, s))
        .collect();
    assert_eq!(
        ids,
        [1, 7, 9, 12].map(|i| Cell::U64(Some(i))).to_vec(),
        "ids"
    );
    let states: Vec<Option<String>> = (0..4).map(|s| chr(p, SAMPLE_STATE, s)).collect();
    let want = ["chan receive", "select", "sync.Mutex.Lock", "running"];
    assert_eq!(states, want.map(|s| Some(s.to_owned())).to_vec());
    let minutes: Vec<Cell> = (0..4)
        .map(|s| sample_cell(p, SAMPLE_WAIT_MINUTES, s))
        .collect();
    assert_eq!(minutes, [12, 3, INT_NA, INT_NA].map(Cell::Int).to_vec());
    let locked: Vec<Cell> = (0..4).map(|s| sample_cell(p, SAMPLE_LOCKED, s)).collect();
    assert_eq!(
        locked,
        [false, true, false, false]
            .map(|b| Cell::Lgl(Some(b)))
            .to_vec()
    );
    let m: Vec<Option<String>> = (0..4).map(|s| chr(p, SAMPLE_M, s)).collect();
    assert_eq!(m, [Some("0".into()), Some("nil".into()), None, None]);
    let created: Vec<Option<String>> = (0..4).map(|s| chr(p, SAMPLE_CREATED_BY, s)).collect();
    assert_eq!(
        created,
        [
            None,
            Some("main.(*Server).Start".into()),
            Some("main.main".into()),
            Some("main.main".into())
        ]
    );
    let creators: Vec<Cell> = (0..4)
        .map(|s| sample_cell(p, SAMPLE_CREATOR_ID, s))
        .collect();
    assert_eq!(
        creators,
        [None, Some(1), Some(1), Some(1)].map(Cell::U64).to_vec()
    );
    // The creator location of goroutine 9 is main.go:33 (+0x66), outside every stack.
    let Cell::Int(loc) = sample_cell(p, SAMPLE_CREATED_BY_LOCATION, 2) else {
        panic!()
    };
    let loc = (loc - 1) as usize;
    assert_eq!(p.locations.line[loc], 33);
    assert_eq!(
        p.locations.ext.cell(LOC_PC_OFFSET, loc),
        Some(Cell::U64(Some(0x66)))
    );
    // Stacks: generics keep `[...]`, the ancestor block adds nothing, the unavailable stack is
    // empty.
    assert_eq!(stack_names(p, 0), ["main.main"]);
    assert_eq!(
        stack_names(p, 1),
        ["main.(*Server).loop", "main.(*Server).Start.gowrap1"]
    );
    assert_eq!(
        stack_names(p, 2),
        ["sync.(*Mutex).Lock", "main.work[...]", "main.run"]
    );
    assert!(stack_names(p, 3).is_empty());
    assert_eq!(
        p.meta_values(META_PANIC).collect::<Vec<_>>(),
        ["SIGQUIT: quit\nPC=0x46f1e1 m=0 sigcode=0"]
    );
    assert_eq!(p.meta_values(META_EXIT_STATUS).collect::<Vec<_>>(), ["2"]);
    let warnings: Vec<String> = parsed.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings.len(), 6, "{warnings:#?}");
    assert!(warnings[3].contains("Go left 3 frames of goroutine 9"));
}

#[test]
fn panic_messages_go_to_meta() {
    let p = read_path(
        Format::GoroutineDump,
        &fixture("goroutine-dump/repanic-single.txt"),
    )
    .profile;
    assert_eq!(
        p.meta_values(META_PANIC).collect::<Vec<_>>(),
        ["panic: first [recovered]\n\tpanic: again after first"]
    );
    assert_eq!(
        stack_names(&p, 0),
        ["main.child.func1", "panic", "main.child", "main.main"]
    );
    let p = read_path(
        Format::GoroutineDump,
        &fixture("goroutine-dump/panic-all.txt"),
    )
    .profile;
    assert_eq!(
        p.meta_values(META_PANIC).collect::<Vec<_>>(),
        ["panic: boom"]
    );
}

#[test]
fn invalid_inputs_give_their_messages() {
    assert_eq!(
        check_invalid_fixtures(Format::GoroutineDump, "goroutine-dump"),
        9
    );
}

#[test]
fn detection_claims_no_other_format() {
    assert_other_formats_not_claimed(goroutine_dump::detect, "", &[]);
    let debug1 = std::fs::read(fixture("goroutine-dump/goroutines.debug1.txt")).unwrap();
    assert!(!goroutine_dump::detect(&debug1));
}

#[test]
fn truncations_do_not_panic() {
    for path in dumps() {
        truncation_sweep(Format::GoroutineDump, &std::fs::read(path).unwrap());
    }
}
