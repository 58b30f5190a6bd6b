//! Chrome / Node `.cpuprofile`, the old V8 format and Chrome traces.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;

use proftab::formats::{self, cpuprofile, Format, Limits, ReadOptions};
use proftab::hash::HashMap;
use proftab::model::{Profile, StackIndex, META_DEFAULT_TYPE, SAMPLE_TIME};
use serde_json::Value;
use support::corpus::*;
use support::profile::*;
use support::text::*;

fn corpus_file(name: &str) -> std::path::PathBuf {
    corpus().join("cpuprofile").join(name)
}

fn json(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn every_corpus_file_is_detected_and_read() {
    let files = corpus_files("cpuprofile");
    assert_eq!(files.len(), 5, "corpus missing: {}", corpus().display());
    for path in files
        .iter()
        .chain([&fixture("cpuprofile/node-cpu-prof.cpuprofile")])
    {
        assert_detected(Format::Cpuprofile, path);
        let p = read_path(Format::Cpuprofile, path).profile;
        assert!(p.num_samples() > 0, "{}", path.display());
        assert_eq!(p.meta_value(META_DEFAULT_TYPE), Some("time"));
    }
}

#[test]
fn other_formats_are_not_claimed() {
    assert_other_formats_not_claimed(cpuprofile::detect, "cpuprofile", &["invalid"]);
}

/// Key of a node path computed from the JSON alone: `url:line:col:name` per frame, root first,
/// without the `(root)` node.
fn json_frame_key(cf: &Value) -> String {
    format!(
        "{}:{}:{}:{}",
        cf["url"].as_str().unwrap_or(""),
        cf["lineNumber"].as_i64().unwrap_or(-1) + 1,
        cf["columnNumber"].as_i64().unwrap_or(-1) + 1,
        cf["functionName"].as_str().unwrap_or("")
    )
}

/// Per node path: sum of the `timeDeltas` of the samples of that node, from the JSON alone.
fn json_self_times(doc: &Value) -> BTreeMap<String, f64> {
    let nodes = doc["nodes"].as_array().unwrap();
    let mut parent: HashMap<i64, i64> = HashMap::default();
    let mut by_id: HashMap<i64, &Value> = HashMap::default();
    for n in nodes {
        let id = n["id"].as_i64().unwrap();
        by_id.insert(id, n);
        for c in n["children"].as_array().into_iter().flatten() {
            parent.insert(c.as_i64().unwrap(), id);
        }
    }
    let path_of = |mut id: i64| {
        let mut parts = Vec::new();
        loop {
            let cf = &by_id[&id]["callFrame"];
            let is_root = !parent.contains_key(&id) && cf["functionName"] == "(root)";
            if !is_root {
                parts.push(json_frame_key(cf));
            }
            match parent.get(&id) {
                Some(&p) => id = p,
                None => break,
            }
        }
        parts.reverse();
        parts.join(";")
    };
    let mut out = BTreeMap::new();
    let samples = doc["samples"].as_array().unwrap();
    let deltas = doc["timeDeltas"].as_array().unwrap();
    for (s, d) in samples.iter().zip(deltas) {
        *out.entry(path_of(s.as_i64().unwrap())).or_insert(0.0) += d.as_f64().unwrap();
    }
    out
}

/// The same key computed from the model: filename, start line, start column and the raw name
/// (`(anonymous …)` names stand for an empty `functionName`).
fn model_self_times(p: &Profile) -> BTreeMap<String, f64> {
    let vt = p.value_type_index("time").unwrap();
    let col = p.value_column(vt).unwrap();
    let cols = p.functions.ext.int(cpuprofile::FUNCTION_START_COLUMN);
    let mut out = BTreeMap::new();
    for s in 0..p.num_samples() {
        let stack = p.sample_stack(proftab::model::SampleIndex(s as u32));
        let mut parts: Vec<String> = p
            .frames_leaf_first(stack)
            .map(|loc| {
                let f = p.location_function(loc).unwrap().idx();
                let name = p.str(p.functions.name[f]);
                let raw = if name.starts_with("(anonymous") {
                    ""
                } else {
                    name
                };
                let column = cols.map_or(0, |c| c[f]).max(0);
                format!(
                    "{}:{}:{}:{raw}",
                    p.str(p.functions.filename[f]),
                    p.functions.start_line[f],
                    column
                )
            })
            .collect();
        parts.reverse();
        *out.entry(parts.join(";")).or_insert(0.0) += col.get(s).unwrap() / 1000.0;
    }
    out
}

fn assert_self_times_match(path: &std::path::Path) {
    let doc = json(path);
    let p = read_path(Format::Cpuprofile, path).profile;
    let expected = json_self_times(&doc);
    let got = model_self_times(&p);
    assert_eq!(
        expected.len(),
        got.len(),
        "{}: number of node paths",
        path.display()
    );
    for (k, v) in &expected {
        assert!(
            close(*v, got[k]),
            "{}: {k}: {v} vs {}",
            path.display(),
            got[k]
        );
    }
    let n = doc["samples"].as_array().unwrap().len();
    assert_eq!(p.num_samples(), n);
    assert_eq!(total(&p, "samples"), n as f64);
    let sum: f64 = doc["timeDeltas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_f64().unwrap())
        .sum();
    assert!(close(total(&p, "time"), sum * 1000.0));
    let times = p.samples.ext.dbl(SAMPLE_TIME).unwrap();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "time order");
    assert!(close(*times.last().unwrap(), sum / 1e6));
}

#[test]
fn self_time_per_node_equals_summed_time_deltas() {
    for path in [
        fixture("cpuprofile/node-cpu-prof.cpuprofile"),
        corpus_file("speedscope-chrome65-simple.cpuprofile"),
        corpus_file("speedscope-chrome65-sucrase.cpuprofile"),
        corpus_file("firefox-profiler-hello.cjs-20231120T211435.cpuprofile"),
    ] {
        assert_self_times_match(&path);
    }
}

#[test]
fn dropped_node_data_is_reported() {
    let parsed = read_path(
        Format::Cpuprofile,
        &corpus_file("speedscope-chrome65-simple.cpuprofile"),
    );
    let w: Vec<String> = parsed.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        w,
        ["cpuprofile: positionTicks (per-line hit counts of nodes) were not kept: proftab attributes samples to functions (2 times)"]
    );
}

#[test]
fn functions_keep_file_line_column_and_script() {
    let p = read_path(
        Format::Cpuprofile,
        &corpus_file("speedscope-chrome65-simple.cpuprofile"),
    )
    .profile;
    // Frames of the simple profile: "" (line 0), a (0), b (5), d (13), c (9); d twice in the
    // tree but one function. (root) is not a frame.
    let names: Vec<&str> = p.functions.name.iter().map(|&s| p.str(s)).collect();
    assert_eq!(names, ["(anonymous)", "a", "b", "d", "c"]);
    assert_eq!(p.functions.start_line, [1, 1, 6, 14, 10]);
    let cols = p
        .functions
        .ext
        .int(cpuprofile::FUNCTION_START_COLUMN)
        .unwrap();
    assert_eq!(cols, [1, 11, 11, 11, 11]);
    let scripts = p.functions.ext.chr(cpuprofile::FUNCTION_SCRIPT_ID).unwrap();
    assert!(scripts.iter().all(|&s| p.str(s) == "164"));
    assert!(p.sources.source_timestamp[0].is_nan());
    let start = p.sources.ext.dbl(cpuprofile::SOURCE_START_TIME).unwrap()[0];
    assert_eq!(start, 163_140.599_286);
}

#[test]
fn old_format_matches_the_same_recording_in_the_new_format() {
    let old = read_path(
        Format::Cpuprofile,
        &corpus_file("speedscope-node10-example-oldformat.cpuprofile"),
    );
    let new = read_path(
        Format::Cpuprofile,
        &corpus_file("speedscope-chrome65-simple.cpuprofile"),
    )
    .profile;
    assert_same_summary(&summary(&old.profile), &summary(&new), "old vs new");
    let w: Vec<String> = old.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        w,
        ["cpuprofile: callUID of nodes not kept (V8's internal function ids) (6 times)"]
    );
    let old = old.profile;
    assert_eq!(
        old.samples.ext.dbl(SAMPLE_TIME).unwrap(),
        new.samples.ext.dbl(SAMPLE_TIME).unwrap()
    );
}

/// From the trace JSON alone: samples of profile `0x7b` whose node is defined, and their
/// summed deltas.
fn trace_expectation(doc: &Value) -> (usize, f64) {
    let events = doc["traceEvents"].as_array().unwrap();
    let chunks: Vec<&Value> = events
        .iter()
        .filter(|e| e["name"] == "ProfileChunk" && e["id"] == "0x7b")
        .filter_map(|e| e["args"].get("data"))
        .collect();
    let defined: std::collections::HashSet<i64> = chunks
        .iter()
        .flat_map(|c| c["cpuProfile"]["nodes"].as_array().into_iter().flatten())
        .map(|n| n["id"].as_i64().unwrap())
        .collect();
    let mut kept = 0;
    let mut time = 0.0;
    for c in chunks {
        let samples = c["cpuProfile"]["samples"].as_array().unwrap();
        let deltas = c["timeDeltas"].as_array().unwrap();
        for (s, d) in samples.iter().zip(deltas) {
            if defined.contains(&s.as_i64().unwrap()) {
                kept += 1;
                time += d.as_f64().unwrap();
            }
        }
    }
    (kept, time)
}

#[test]
fn chrome_trace_profiles_become_sources() {
    let path = corpus_file("speedscope-chrome141-trace-no-arg-data.json");
    let parsed = read_path(Format::Cpuprofile, &path);
    let p = &parsed.profile;
    assert_eq!(p.sources.source_type.len(), 2, "profiles 0x7b and 0x7d");
    let names = p.sources.ext.chr(cpuprofile::SOURCE_NAME).unwrap();
    assert_eq!(p.str(names[0]), "CrRendererMain");
    let (kept, time) = trace_expectation(&json(&path));
    assert_eq!(p.num_samples(), kept);
    assert!(close(total(p, "time"), time * 1000.0));
    assert!(p.samples.source.iter().all(|s| s.0 == 0));
    let w: Vec<String> = parsed.warnings.iter().map(ToString::to_string).collect();
    assert!(
        w.iter()
            .any(|m| m.contains("samples of nodes that are not in the profile were skipped")),
        "{w:?}"
    );
    assert!(
        w.iter().any(|m| m.starts_with(
            "cpuprofile: trace events other than CPU profiles were not kept: process_name ×3"
        )),
        "{w:?}"
    );
    // Per-sample lines/columns of the innermost frame are kept: the first sample of the
    // fourth chunk is at line 93, column 644598.
    let cols = p.locations.ext.int(cpuprofile::LOCATION_COLUMN).unwrap();
    let found =
        (0..p.locations.line.len()).any(|l| p.locations.line[l] == 93 && cols[l] == 644_598);
    assert!(found);
}

#[test]
fn hit_count_only_profiles_give_one_row_per_node() {
    let parsed = read_path(
        Format::Cpuprofile,
        &fixture("cpuprofile/hitcount-only.cpuprofile"),
    );
    let p = &parsed.profile;
    assert_eq!(p.num_samples(), 2);
    assert_eq!(p.values.len(), 1);
    assert_eq!(total(p, "samples"), 5.0);
    assert_eq!(p.meta_value(META_DEFAULT_TYPE), Some("samples"));
    assert_eq!(stack_text(p, 0), "main");
    assert_eq!(stack_text(p, 1), "main;(anonymous main.js:10)");
}

#[test]
fn invalid_fixtures_give_their_messages() {
    assert!(check_invalid_fixtures(Format::Cpuprofile, "cpuprofile") >= 14);
}

fn chain(n: usize, ring: bool) -> Vec<u8> {
    let mut s = String::from("{\"nodes\":[");
    for i in 1..=n {
        if i > 1 {
            s.push(',');
        }
        let parent = if i > 1 {
            format!(",\"parent\":{}", i - 1)
        } else if ring {
            format!(",\"parent\":{n}")
        } else {
            String::new()
        };
        s.push_str(&format!(
            "{{\"id\":{i},\"callFrame\":{{\"functionName\":\"f{}\",\"scriptId\":\"1\",\"url\":\"\",\"lineNumber\":0,\"columnNumber\":0}}{parent}}}",
            i % 7
        ));
    }
    s.push_str(&format!(
        "],\"startTime\":0,\"endTime\":10,\"samples\":[{n}],\"timeDeltas\":[10]}}"
    ));
    s.into_bytes()
}

#[test]
fn deep_trees_and_long_cycles_neither_overflow_nor_hang() {
    let deep = chain(100_000, false);
    let p = cpuprofile::read(&deep, &ReadOptions::default())
        .unwrap()
        .profile;
    assert_eq!(
        p.stack_depth(p.sample_stack(proftab::model::SampleIndex(0))),
        100_000
    );
    let small = ReadOptions {
        limits: Limits {
            max_stack_depth: 1000,
            ..Limits::default()
        },
        ..ReadOptions::default()
    };
    let err = cpuprofile::read(&deep, &small).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("the stack is deeper than 1000 frames (the stack depth limit)"),
        "{err}"
    );
    let ring = chain(50_000, true);
    let err = cpuprofile::read(&ring, &ReadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("form a cycle"), "{err}");
}

#[test]
fn deep_old_format_trees_are_read_without_recursion() {
    let depth = 5_000;
    let mut head = String::new();
    for i in 1..=depth {
        head.push_str(&format!(
            "{{\"functionName\":\"f{i}\",\"url\":\"\",\"lineNumber\":1,\"id\":{i},\"hitCount\":0,\"children\":["
        ));
    }
    head.push_str(&"]}".repeat(depth));
    let doc = format!(
        "{{\"head\":{head},\"startTime\":1,\"endTime\":2,\"samples\":[{depth}],\"timestamps\":[1000000,1000010]}}"
    );
    let parsed = cpuprofile::read(doc.as_bytes(), &ReadOptions::default()).unwrap();
    let p = &parsed.profile;
    assert_eq!(
        p.stack_depth(p.sample_stack(proftab::model::SampleIndex(0))),
        depth
    );
    assert_eq!(total(p, "time"), 10_000.0);
}

#[test]
fn stacks_leave_out_the_root_node() {
    let p = read_path(
        Format::Cpuprofile,
        &corpus_file("firefox-profiler-hello.cjs-20231120T211435.cpuprofile"),
    )
    .profile;
    let root_frames = (0..p.stacks.prefix.len())
        .filter(|&s| p.stacks.prefix.at(s) == u32::MAX)
        .map(|s| p_ref(&p).frame_display_name(p.stacks.location.at(s)))
        .collect::<Vec<_>>();
    assert!(
        !root_frames.iter().any(|n| n == "(root)"),
        "{root_frames:?}"
    );
    assert!(root_frames.iter().any(|n| n == "(program)"));
    let _ = StackIndex(0);
}

fn p_ref(p: &Profile) -> &Profile {
    p
}

#[test]
fn truncated_inputs_never_panic() {
    truncation_sweep_corpus(Format::Cpuprofile, "cpuprofile");
    let _ = formats::detect(b"[");
}

#[test]
fn trace_event_arrays_with_cpu_profile_events() {
    let path = fixture("cpuprofile/trace-array.json");
    assert_detected(Format::Cpuprofile, &path);
    let p = read_path(Format::Cpuprofile, &path).profile;
    assert_eq!(p.num_samples(), 3);
    // Deltas 100 + 50 + 25 µs; the third sample is the root itself, so it has no frames.
    assert_eq!(total(&p, "time"), 175_000.0);
    assert_eq!(
        [stack_text(&p, 0), stack_text(&p, 1), stack_text(&p, 2)],
        ["work", "work", ""]
    );
    let names = p.sources.ext.chr(cpuprofile::SOURCE_NAME).unwrap();
    assert_eq!(p.str(names[0]), "Main");
    let times = p.samples.ext.dbl(SAMPLE_TIME).unwrap();
    assert!(close(times[0], 100e-6) && close(times[1], 150e-6) && close(times[2], 175e-6));
    assert_eq!(
        p.sources.ext.dbl(cpuprofile::SOURCE_START_TIME).unwrap(),
        [0.001]
    );
}
