//! Java Flight Recorder recordings (`jfr`), judged by the JDK's own `jfr` tool.
//!
//! * `tests/fixtures/jfr/work.jfr` was recorded with OpenJDK 17 (`record.sh`, workload
//!   `Work.java`: CPU, allocation, a contended lock); it reads to its golden view, and
//!   `work.summary.txt` is `jfr summary` of it.
//! * Event counts: meta `jfr.events.<type>` equals `jfr summary` for every event type, and
//!   the weighed kinds have one sample per event.
//! * `jfr print --json --events jdk.ExecutionSample`: per method (class.method), the self and
//!   total sample counts and the samples per thread equal proftab's; allocation weights and
//!   monitor / park durations sum to proftab's totals.
//! * `proftab convert -o x.pb.gz` gives `go tool pprof -top` equal to `proftab top`; every
//!   file of corpus-new/jfr reads; invalid inputs give their messages; truncated and corrupted
//!   recordings never panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use proftab::formats::{jfr, read_as, Format, ReadOptions};
use proftab::model::{ColumnData, Profile};
use support::corpus::{corpus_new, fixture, scratch_dir};
use support::importers::{
    check_corpus_new, check_golden_fixtures, check_pprof_conversion_all_types, check_robustness,
    golden_text, top_rows,
};
use support::profile::{assert_valid, read_path};
use support::rng::Rng;
use support::text::check_invalid_fixtures;

/// Event types of the file structure that `jfr summary` lists (metadata, constant pools).
const STRUCTURE_EVENTS: [&str; 2] = ["jdk.Metadata", "jdk.CheckPoint"];

fn fixtures() -> Vec<PathBuf> {
    ["work.jfr", "small.jfr", "small-raw.jfr"]
        .iter()
        .map(|f| fixture("jfr").join(f))
        .collect()
}

/// The recordings the JVM wrote: the fixture and the corpus.
fn recorded() -> Vec<PathBuf> {
    let mut v = vec![fixture("jfr").join("work.jfr")];
    v.extend(corpus_new("jfr"));
    v
}

fn all_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(corpus_new("jfr"));
    v
}

/// Output of the JDK's `jfr` tool, or `None` after a SKIP note when it is missing.
fn jfr_tool(args: &[&str]) -> Option<String> {
    match Command::new("jfr").args(args).output() {
        Ok(out) if out.status.success() => Some(String::from_utf8(out.stdout).unwrap()),
        Ok(out) => panic!("jfr {args:?}: {}", String::from_utf8_lossy(&out.stderr)),
        Err(_) => {
            eprintln!("SKIP: the JDK's `jfr` tool is not installed");
            None
        }
    }
}

/// The event counts of a `jfr summary` report.
fn summary_counts(report: &str) -> BTreeMap<String, usize> {
    report
        .lines()
        .skip_while(|l| !l.starts_with("====="))
        .skip(1)
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((w.next()?.to_owned(), w.next()?.parse().ok()?))
        })
        .collect()
}

/// The samples with a value of type `name`.
fn present(p: &Profile, name: &str) -> usize {
    p.value_type_index(name).map_or(0, |vt| {
        let col = p.value_column(vt).unwrap();
        (0..p.num_samples())
            .filter(|&s| col.get(s).is_some())
            .count()
    })
}

fn check_counts(p: &Profile, counts: &BTreeMap<String, usize>, what: &str) {
    let meta: BTreeMap<String, usize> = p
        .meta
        .key
        .iter()
        .zip(&p.meta.value)
        .filter_map(|(k, v)| {
            let t = p.str(*k).strip_prefix("jfr.events.")?;
            Some((t.to_owned(), p.str(*v).parse().unwrap()))
        })
        .collect();
    let want: BTreeMap<String, usize> = counts
        .iter()
        .filter(|(t, n)| **n > 0 && !STRUCTURE_EVENTS.contains(&t.as_str()))
        .map(|(t, n)| (t.clone(), *n))
        .collect();
    assert_eq!(meta, want, "{what}: event counts");
    for (event, value_type) in [
        ("jdk.ExecutionSample", "samples"),
        ("jdk.NativeMethodSample", "native_samples"),
        ("jdk.ObjectAllocationSample", "allocation_sample"),
        ("jdk.JavaMonitorEnter", "monitor_enter"),
        ("jdk.ThreadPark", "thread_park"),
    ] {
        let n = counts.get(event).copied().unwrap_or(0);
        assert_eq!(present(p, value_type), n, "{what}: {event}");
    }
}

#[test]
fn recorded_fixture_reads_to_its_golden_view() {
    check_golden_fixtures(Format::Jfr, &fixtures(), "jfr", ".jfr");
}

#[test]
fn event_counts_equal_jfr_summary() {
    let committed = std::fs::read_to_string(fixture("jfr").join("work.summary.txt")).unwrap();
    let p = read_path(Format::Jfr, &fixtures()[0]).profile;
    check_counts(
        &p,
        &summary_counts(&committed),
        "work.jfr (committed summary)",
    );
    // `jfr summary` reads the hand-built small.jfr too (not small-raw.jfr: the JDK reads
    // compressed integers only).
    let mut inputs = recorded();
    inputs.push(fixture("jfr").join("small.jfr"));
    for path in inputs {
        let Some(report) = jfr_tool(&["summary", path.to_str().unwrap()]) else {
            return;
        };
        let p = read_path(Format::Jfr, &path).profile;
        check_counts(&p, &summary_counts(&report), &path.display().to_string());
    }
}

#[test]
fn fixed_size_integers_read_as_compressed_ones() {
    let small = read_path(Format::Jfr, &fixture("jfr").join("small.jfr")).profile;
    let raw = read_path(Format::Jfr, &fixture("jfr").join("small-raw.jfr")).profile;
    let mut a = golden_text(&small);
    let b = golden_text(&raw);
    // Only the header's minor version differs (2.0 and 2.1).
    a = a.replace("meta jfr.version=2.0", "meta jfr.version=2.1");
    assert_eq!(a, b);
}

#[test]
fn chunks_are_read_one_after_another() {
    // A recording is a sequence of self-contained chunks: two copies of the fixture make a
    // two-chunk recording, which `jfr summary` reads too.
    let bytes = std::fs::read(&fixtures()[0]).unwrap();
    let path = scratch_dir("jfr").join("two-chunks.jfr");
    std::fs::write(&path, [bytes.as_slice(), bytes.as_slice()].concat()).unwrap();
    let one = read_path(Format::Jfr, &fixtures()[0]).profile;
    let two = read_path(Format::Jfr, &path).profile;
    assert_eq!(two.num_samples(), 2 * one.num_samples());
    let chunks = two
        .meta
        .key
        .iter()
        .position(|k| two.str(*k) == "jfr.chunks");
    assert_eq!(two.str(two.meta.value[chunks.unwrap()]), "2");
    if let Some(report) = jfr_tool(&["summary", path.to_str().unwrap()]) {
        check_counts(&two, &summary_counts(&report), "two chunks");
    }
}

/// The events of `jfr print --json --events TYPE FILE`.
fn jfr_events(path: &Path, event: &str) -> Option<Vec<serde_json::Value>> {
    let file = path.to_str().unwrap();
    let out = jfr_tool(&[
        "print",
        "--json",
        "--stack-depth",
        "4096",
        "--events",
        event,
        file,
    ])?;
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    Some(doc["recording"]["events"].as_array().unwrap().clone())
}

fn method_name(frame: &serde_json::Value) -> String {
    let m = &frame["method"];
    let class = m["type"]["name"].as_str().unwrap().replace('/', ".");
    format!("{class}.{}", m["name"].as_str().unwrap())
}

#[test]
fn execution_samples_equal_jfr_print_per_method_and_thread() {
    for path in recorded() {
        let Some(events) = jfr_events(&path, "jdk.ExecutionSample") else {
            return;
        };
        let mut want: BTreeMap<String, (f64, f64)> = BTreeMap::new();
        let mut threads: BTreeMap<String, usize> = BTreeMap::new();
        for e in &events {
            let frames = e["values"]["stackTrace"]["frames"].as_array().unwrap();
            want.entry(method_name(&frames[0])).or_default().0 += 1.0;
            let names: BTreeSet<String> = frames.iter().map(method_name).collect();
            for n in names {
                want.entry(n).or_default().1 += 1.0;
            }
            let t = &e["values"]["sampledThread"];
            let name = t["javaName"].as_str().or(t["osName"].as_str()).unwrap();
            *threads.entry(name.to_owned()).or_default() += 1;
        }
        let (total, got) = top_rows(&path, Some("samples"));
        assert_eq!(total, events.len() as f64, "{}", path.display());
        let got: BTreeMap<String, (f64, f64)> =
            got.into_iter().filter(|(_, v)| v.1 != 0.0).collect();
        assert_eq!(got, want, "{}", path.display());
        assert_eq!(sample_threads(&path), threads, "{}", path.display());
    }
}

/// Execution samples per thread name, as proftab reads them.
fn sample_threads(path: &Path) -> BTreeMap<String, usize> {
    let p = read_path(Format::Jfr, path).profile;
    let vt = p.value_type_index("samples").unwrap();
    let col = p.value_column(vt).unwrap();
    let Some(ColumnData::Chr(names)) = p.samples.ext.get(".thread_name") else {
        panic!("no thread names");
    };
    let mut out = BTreeMap::new();
    for (s, name) in names.iter().enumerate() {
        if col.get(s).is_some() {
            *out.entry(p.str(*name).to_owned()).or_default() += 1;
        }
    }
    out
}

/// Seconds of an ISO-8601 duration as `jfr print --json` writes them (`PT1M2.5S`).
fn iso_seconds(d: &str) -> f64 {
    let mut rest = d.strip_prefix("PT").unwrap();
    let mut secs = 0.0;
    for (unit, factor) in [('H', 3600.0), ('M', 60.0), ('S', 1.0)] {
        if let Some(i) = rest.find(unit) {
            secs += rest[..i].parse::<f64>().unwrap() * factor;
            rest = &rest[i + 1..];
        }
    }
    secs
}

#[test]
fn weights_and_durations_equal_jfr_print() {
    for path in recorded() {
        let p = read_path(Format::Jfr, &path).profile;
        let total = |t: &str| {
            p.value_type_index(t)
                .map_or(0.0, |vt| p.value_column(vt).unwrap().total())
        };
        let Some(alloc) = jfr_events(&path, "jdk.ObjectAllocationSample") else {
            return;
        };
        let want: f64 = alloc
            .iter()
            .map(|e| e["values"]["weight"].as_f64().unwrap())
            .sum();
        assert_eq!(total("allocation_sample"), want, "{}", path.display());
        for (event, value_type) in [
            ("jdk.JavaMonitorEnter", "monitor_enter"),
            ("jdk.ThreadPark", "thread_park"),
        ] {
            let events = jfr_events(&path, event).unwrap();
            let want: f64 = events
                .iter()
                .map(|e| iso_seconds(e["values"]["duration"].as_str().unwrap()) * 1e9)
                .sum();
            // Ticks to nanoseconds: jfr rounds each event to whole nanoseconds.
            let got = total(value_type);
            assert!(
                (got - want).abs() <= events.len() as f64,
                "{}: {event}: proftab {got}, jfr {want}",
                path.display()
            );
        }
    }
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    check_pprof_conversion_all_types(Format::Jfr, &all_inputs());
}

#[test]
fn corpus_new_reads() {
    let n = check_corpus_new(Format::Jfr, "jfr");
    assert_eq!(n, corpus_new("jfr").len());
}

#[test]
fn invalid_inputs() {
    assert_eq!(check_invalid_fixtures(Format::Jfr, "jfr"), 7);
}

#[test]
fn detection_refuses_other_formats_and_prefixes_never_panic() {
    check_robustness(Format::Jfr, jfr::detect, &all_inputs());
}

#[test]
fn corrupted_bytes_give_errors_or_profiles_never_panics() {
    let mut rng = Rng(0x1f2);
    let options = ReadOptions::default();
    for path in fixtures() {
        let bytes = std::fs::read(&path).unwrap();
        for i in 0..120 {
            let mut b = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(b.len());
                b[at] = rng.next() as u8;
            }
            let what = format!("{} corruption {i}", path.display());
            match read_as(Format::Jfr, &b, &options) {
                Ok(parsed) => assert_valid(&parsed.profile, &what),
                Err(e) => assert_eq!(e.format, "jfr", "{what}: {e}"),
            }
        }
    }
}

#[test]
fn small_recording_keeps_threads_frame_types_and_bytecode_indices() {
    for name in ["small.jfr", "small-raw.jfr"] {
        let p = read_path(Format::Jfr, &fixture("jfr").join(name)).profile;
        let Some(ColumnData::Chr(threads)) = p.samples.ext.get(".thread_name") else {
            panic!("{name}: no thread names");
        };
        let threads: Vec<&str> = threads.iter().map(|t| p.str(*t)).collect();
        // The second thread has an empty Java name: its OS name, from the string pool.
        assert_eq!(
            threads,
            ["main", "main", "worker-os", "worker-os", "worker-os"],
            "{name}"
        );
        let Some(ColumnData::Int(tids)) = p.samples.ext.get(".tid") else {
            panic!("{name}: no tids");
        };
        assert_eq!(tids, &[11, 11, 12, 12, 12], "{name}");
        let Some(ColumnData::Chr(kinds)) = p.locations.ext.get(".frame_type") else {
            panic!("{name}: no frame types");
        };
        let kinds: Vec<&str> = kinds.iter().map(|k| p.str(*k)).collect();
        assert_eq!(kinds, ["JIT compiled", "Interpreted", "Inlined"], "{name}");
        let Some(ColumnData::Lgl(inlined)) = p.locations.ext.get(".inlined") else {
            panic!("{name}: no inlined column");
        };
        assert_eq!(inlined, &[Some(false), Some(false), Some(true)], "{name}");
        let Some(ColumnData::Int(bci)) = p.locations.ext.get(".bytecode_index") else {
            panic!("{name}: no bytecode indices");
        };
        assert_eq!(bci, &[3, 0, 4], "{name}");
        let systems: Vec<&str> = p.functions.system_name.iter().map(|s| p.str(*s)).collect();
        assert_eq!(
            systems,
            [
                "com.example.App.work(I)J",
                "com.example.App.main([Ljava/lang/String;)V"
            ],
            "{name}"
        );
    }
}
