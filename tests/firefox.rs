//! Firefox Profiler processed JSON: corpus reading, detection, round trips, the writer's schema,
//! value-type handling and invalid inputs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::formats::{self, firefox, Format, ReadOptions, WriteOptions};
use proftab::model::{Profile, ProfileBuilder, SAMPLE_TIME};
use serde_json::Value;
use support::corpus::{corpus, corpus_bytes};
use support::json::{check_invalid_fixtures, frame_text, sample_lines, totals};
use support::profile::assert_valid;

fn is_gecko(name: &str) -> bool {
    name.starts_with("gecko-format-")
}

#[test]
fn corpus_detection_ignores_the_file_name() {
    for (name, bytes) in corpus_bytes("firefox") {
        assert_eq!(formats::detect(&bytes), Some(Format::Firefox), "{name}");
        let with_name = ReadOptions {
            source_uri: Some(name.clone()),
            ..Default::default()
        };
        let a = formats::read_any(&bytes, &with_name).map(|p| p.format);
        let b = formats::read_any(&bytes, &ReadOptions::default()).map(|p| p.format);
        assert_eq!(a, b, "{name}");
        assert_eq!(a, Ok(Format::Firefox), "{name}");
    }
}

/// Output of an oracle script in tests/fixtures/firefox, or `None` (with a SKIP note) when
/// python3 is missing.
fn oracle(script: &str, file: &str) -> Option<String> {
    let script = format!(
        "{}/tests/fixtures/firefox/{script}",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIP: python3 is not installed; the {script} oracle cannot run");
        return None;
    }
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(corpus().join("firefox").join(file))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

/// A frame as the Gecko location string it came from.
fn gecko_location(p: &Profile, l: proftab::model::LocationIndex) -> String {
    let f = p.location_function(l).unwrap().idx();
    let (n, file) = (p.str(p.functions.name[f]), p.str(p.functions.filename[f]));
    if file.is_empty() {
        n.to_owned()
    } else {
        format!("{n} ({file}:{})", p.functions.start_line[f])
    }
}

#[test]
fn gecko_profiles_match_an_independent_python_walk() {
    for (name, bytes) in corpus_bytes("firefox")
        .into_iter()
        .filter(|(n, _)| is_gecko(n))
    {
        let p = firefox::read(&bytes, &ReadOptions::default())
            .unwrap()
            .profile;
        assert!(p.meta_value("firefox.gecko_version").is_some(), "{name}");
        assert_valid(&p, &name);
        let Some(expected) = oracle("expected_gecko_stacks.py", &name) else {
            return;
        };
        let times = p.samples.ext.dbl(SAMPLE_TIME).unwrap();
        let mut got = String::new();
        for (s, t) in times.iter().enumerate() {
            let stack = p.sample_stack(proftab::model::SampleIndex(s as u32));
            let mut names: Vec<String> = p
                .frames_leaf_first(stack)
                .map(|l| gecko_location(&p, l))
                .collect();
            names.reverse();
            let ms = (t * 1e9).round() / 1e6;
            got += &format!("{}\t{ms}\n", names.join(";"));
        }
        assert_eq!(got, expected, "{name}");
    }
}

/// Stacks as `thread<TAB>root;…;leaf<TAB>weight`, the oracle's format.
fn stacks_like_oracle(p: &Profile) -> String {
    let count = p.value_type_index("samples").unwrap();
    let weight = p.default_value_type().unwrap();
    let mut out = String::new();
    for s in 0..p.num_samples() {
        let stack = p.sample_stack(proftab::model::SampleIndex(s as u32));
        let mut names: Vec<String> = p
            .frames_leaf_first(stack)
            .map(|l| {
                p.str(p.functions.name[p.location_function(l).unwrap().idx()])
                    .to_owned()
            })
            .collect();
        names.reverse();
        let col = if p.values[weight.idx()].get(s).is_some() {
            weight
        } else {
            count
        };
        let w = p.values[col.idx()].get(s).unwrap();
        out += &format!("{}\t{}\t{}\n", p.samples.source[s].0, names.join(";"), w);
    }
    out
}

#[test]
fn corpus_stacks_match_an_independent_python_walk() {
    let mut checked = 0;
    for (name, bytes) in corpus_bytes("firefox")
        .into_iter()
        .filter(|(n, _)| !is_gecko(n))
    {
        let Some(expected) = oracle("expected_stacks.py", &name) else {
            return;
        };
        let parsed = firefox::read(&bytes, &ReadOptions::default()).unwrap();
        // Bytes-weighted threads carry their weight in `bytes`; the oracle prints raw weights.
        let got = stacks_like_oracle(&parsed.profile).replace(".0\n", "\n");
        let normalize = |s: &str| {
            s.lines()
                .map(|l| l.trim_end_matches(".0").to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(normalize(&got), normalize(&expected), "{name}");
        checked += 1;
    }
    assert_eq!(checked, 13);
}

#[test]
fn corpus_sample_counts_and_weights() {
    // Counted with python3's json module: sum over threads of samples.stack length and of
    // the weights (1 where a thread has no weight column).
    let expected = [
        (
            "fxprof-processed-profile-v66-profile_without_js.json",
            4,
            4.0,
        ),
        ("processed-unannotated-v0-processed-1.json", 21, 21.0),
        ("processed-v24-processed-3.json", 21, 21.0),
        ("processed-v49-unsymbolicated.json", 42, 236.0),
        ("processed-v58-argument-values.json", 32, 32.0),
        ("processed-v68-sourcemap-two.json", 2, 2.0),
        ("processed-v7-limit-boundaries.json", 21, 21.0),
    ];
    for (name, n, weight) in expected {
        let bytes = std::fs::read(corpus().join("firefox").join(name)).unwrap();
        let p = firefox::read(&bytes, &ReadOptions::default())
            .unwrap()
            .profile;
        assert_eq!(p.num_samples(), n, "{name}");
        let samples = p.value_type_index("samples").unwrap();
        assert_eq!(p.values[samples.idx()].total(), weight, "{name}");
        assert_eq!(
            p.meta_value("default_sample_type"),
            Some("samples"),
            "{name}"
        );
    }
}

#[test]
fn corpus_round_trip_keeps_tables_and_writes_identical_bytes() {
    for (name, bytes) in corpus_bytes("firefox")
        .into_iter()
        .filter(|(n, _)| !is_gecko(n))
    {
        let first = firefox::read(&bytes, &ReadOptions::default())
            .unwrap()
            .profile;
        assert_valid(&first, &name);
        let written = firefox::write(&first, &WriteOptions::default()).unwrap();
        let second = firefox::read(&written.bytes, &ReadOptions::default())
            .unwrap()
            .profile;
        // Only the default type is written; the counts must survive.
        let keep = |p: &Profile| {
            let t = p.value_type_names(p.default_value_type().unwrap());
            (t.0.to_owned(), sample_lines(p).len())
        };
        assert_eq!(keep(&first), keep(&second), "{name}");
        let default = first.default_value_type().unwrap();
        let lines = |p: &Profile| -> Vec<String> {
            let col = p.value_type_index(p.value_type_names(default).0).unwrap();
            (0..p.num_samples())
                .map(|s| {
                    let stack = p.sample_stack(proftab::model::SampleIndex(s as u32));
                    let frames: Vec<String> = p
                        .frames_leaf_first(stack)
                        .map(|l| frame_text(p, l))
                        .collect();
                    format!(
                        "{} {:?} {:?}",
                        frames.join(";"),
                        p.values[col.idx()].get(s),
                        p.samples.ext.dbl(SAMPLE_TIME).map(|t| t[s])
                    )
                })
                .collect()
        };
        assert_eq!(lines(&first), lines(&second), "{name}");
        let again = firefox::write(&second, &WriteOptions::default()).unwrap();
        assert_eq!(written.bytes, again.bytes, "{name}: writing twice differs");
    }
}

#[test]
fn single_type_profiles_round_trip_exactly() {
    let bytes = std::fs::read(corpus().join("firefox/processed-v68-sourcemap-two.json")).unwrap();
    let first = firefox::read(&bytes, &ReadOptions::default())
        .unwrap()
        .profile;
    let w = firefox::write(&first, &WriteOptions::default()).unwrap();
    let second = firefox::read(&w.bytes, &ReadOptions::default())
        .unwrap()
        .profile;
    assert_eq!(sample_lines(&first), sample_lines(&second));
    assert_eq!(totals(&first), totals(&second));
}

/// A profile with time and memory types, an inlined frame, categories and timestamps.
fn rich_profile() -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("test", Some("a.out"), Some(1_700_000_000.0));
    let samples = b.value_type("samples", "count");
    let cpu = b.value_type("cpu", "nanoseconds");
    let alloc = b.value_type("alloc_space", "bytes");
    let main = b.function_named("main", Some("main.c"));
    let work = b.function_named("work", Some("work.c"));
    let inl = b.function_named("inlined_helper", Some("work.c"));
    let l_main = b.location(Some(main), 3);
    let l_work = b.location(Some(work), 10);
    let l_inl = b.location(Some(inl), 11);
    let frame_type = b.intern("native");
    b.set_location_ext(l_main, ".frame_type", proftab::model::Cell::Chr(frame_type));
    b.set_location_ext(l_inl, ".inlined", proftab::model::Cell::Lgl(Some(true)));
    let deep = b.stack_leaf_first(&[l_inl, l_work, l_main]);
    let shallow = b.stack_leaf_first(&[l_main]);
    for (i, (stack, ns, bytes)) in [
        (deep, 1_000_000.0, 64.0),
        (shallow, 3_000_000.0, 0.0),
        (deep, 2_000_000.0, 128.0),
    ]
    .into_iter()
    .enumerate()
    {
        let s = b.add_sample_with_values(src, stack, &[(samples, 1.0), (cpu, ns), (alloc, bytes)]);
        b.set_sample_ext(s, SAMPLE_TIME, proftab::model::Cell::Dbl(i as f64 * 0.01));
    }
    b.set_meta("default_sample_type", "cpu");
    b.build().unwrap()
}

fn weight_type_of(bytes: &[u8]) -> (String, Value) {
    let v: Value = serde_json::from_slice(bytes).unwrap();
    let s = &v["threads"][0]["samples"];
    (
        s["weightType"].as_str().unwrap().to_owned(),
        s["weight"].clone(),
    )
}

#[test]
fn value_type_choice_sets_weight_type_and_default_on_reread() {
    let p = rich_profile();
    for (chosen, weight_type, total) in [
        (None, "tracing-ms", 6_000_000.0),
        (Some("alloc_space"), "bytes", 192.0),
        (Some("samples"), "samples", 3.0),
    ] {
        let opts = WriteOptions {
            value_type: chosen.map(str::to_owned),
            ..Default::default()
        };
        let w = firefox::write(&p, &opts).unwrap();
        assert_eq!(weight_type_of(&w.bytes).0, weight_type);
        let back = firefox::read(&w.bytes, &ReadOptions::default())
            .unwrap()
            .profile;
        let name = chosen.unwrap_or("cpu");
        assert_eq!(back.meta_value("default_sample_type"), Some(name));
        let vt = back.default_value_type().unwrap();
        assert_eq!(back.value_type_names(vt).0, name);
        assert_eq!(back.values[vt.idx()].total(), total);
        let loss = formats::write_as(Format::Firefox, &p, &opts).unwrap();
        assert!(
            loss.warnings
                .iter()
                .any(|w| w.message.starts_with("holds one value type: wrote")),
            "the other types must be reported as not written: {:?}",
            loss.warnings
        );
    }
    let e = firefox::write(
        &p,
        &WriteOptions {
            value_type: Some("nope".into()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("no value type \"nope\""));
}

#[test]
fn rich_profile_keeps_stacks_inlining_categories_and_times() {
    let p = rich_profile();
    let w = firefox::write(&p, &WriteOptions::default()).unwrap();
    let back = firefox::read(&w.bytes, &ReadOptions::default())
        .unwrap()
        .profile;
    let frames = |p: &Profile| -> Vec<String> {
        (0..p.num_samples())
            .map(|s| {
                let stack = p.sample_stack(proftab::model::SampleIndex(s as u32));
                p.frames_leaf_first(stack)
                    .map(|l| frame_text(p, l))
                    .collect::<Vec<_>>()
                    .join(";")
            })
            .collect()
    };
    assert_eq!(frames(&p), frames(&back));
    let v: Value = serde_json::from_slice(&w.bytes).unwrap();
    assert_eq!(
        v["shared"]["frameTable"]["inlineDepth"],
        serde_json::json!([0, 0, 1])
    );
    let cats: Vec<&str> = v["meta"]["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(cats, ["Other", "native"]);
    let times = back.samples.ext.dbl(SAMPLE_TIME).unwrap();
    assert!((times[2] - 0.02).abs() < 1e-12);
    assert_eq!(back.sources.source_timestamp[0], 1_700_000_000.0);
}

/// Every array column of a table has `length` entries.
fn assert_columns(table: &Value, columns: &[&str], what: &str) {
    let len = table["length"]
        .as_u64()
        .unwrap_or_else(|| panic!("{what}.length")) as usize;
    for c in columns {
        let col = table[c]
            .as_array()
            .unwrap_or_else(|| panic!("{what}.{c} missing"));
        assert_eq!(col.len(), len, "{what}.{c}");
    }
}

#[test]
fn written_file_has_every_field_of_the_current_schema() {
    // Required fields of profile.ts at PROCESSED_PROFILE_VERSION 70 (docs/formats/firefox.md).
    let w = firefox::write(&rich_profile(), &WriteOptions::default()).unwrap();
    let v: Value = serde_json::from_slice(&w.bytes).unwrap();
    for k in ["meta", "libs", "shared", "threads"] {
        assert!(!v[k].is_null(), "{k}");
    }
    assert_meta_fields(&v["meta"]);
    assert_shared_table_columns(&v["shared"]);
    assert_shared_indices_in_range(&v["shared"]);
    for t in v["threads"].as_array().unwrap() {
        assert_thread_fields(t);
    }
}

/// `meta`: the required keys, the schema version and the category list.
fn assert_meta_fields(meta: &Value) {
    for k in [
        "interval",
        "startTime",
        "processType",
        "product",
        "stackwalk",
        "version",
        "preprocessedProfileVersion",
        "markerSchema",
    ] {
        assert!(!meta[k].is_null(), "meta.{k}");
    }
    assert_eq!(meta["preprocessedProfileVersion"], 70);
    let cats = meta["categories"].as_array().unwrap();
    assert_eq!(cats[0]["color"], "grey");
    for c in cats {
        assert!(!c["subcategories"].as_array().unwrap().is_empty());
    }
}

/// `shared`: every table has the columns of the v70 schema.
fn assert_shared_table_columns(sh: &Value) {
    assert_columns(&sh["stackTable"], &["frame", "prefixOffset"], "stackTable");
    assert_columns(
        &sh["frameTable"],
        &[
            "address",
            "lib",
            "inlineDepth",
            "category",
            "subcategory",
            "func",
            "nativeSymbol",
            "innerWindowID",
            "line",
            "column",
            "originalLocation",
        ],
        "frameTable",
    );
    assert_columns(
        &sh["funcTable"],
        &[
            "name",
            "isJS",
            "relevantForJS",
            "resource",
            "source",
            "lineNumber",
            "columnNumber",
            "originalLocation",
        ],
        "funcTable",
    );
    assert_columns(
        &sh["resourceTable"],
        &["name", "host", "type"],
        "resourceTable",
    );
    assert!(
        sh["resourceTable"].get("lib").is_none(),
        "v70 moved lib to frameTable"
    );
    assert_columns(
        &sh["nativeSymbols"],
        &["libIndex", "address", "name", "functionSize"],
        "nativeSymbols",
    );
    assert_columns(
        &sh["sources"],
        &[
            "id",
            "filename",
            "startLine",
            "startColumn",
            "sourceMapURL",
            "content",
        ],
        "sources",
    );
    assert_columns(
        &sh["sourceLocationTable"],
        &["source", "line", "column"],
        "sourceLocationTable",
    );
}

/// `shared`: the indices between tables (frame → func, func name → string, stack → frame and
/// prefix) point inside their target.
fn assert_shared_indices_in_range(sh: &Value) {
    let strings = sh["stringArray"].as_array().unwrap().len() as u64;
    let funcs = sh["funcTable"]["length"].as_u64().unwrap();
    let frames = sh["frameTable"]["length"].as_u64().unwrap();
    for f in sh["frameTable"]["func"].as_array().unwrap() {
        assert!(f.as_u64().unwrap() < funcs);
    }
    for n in sh["funcTable"]["name"].as_array().unwrap() {
        assert!(n.as_u64().unwrap() < strings);
    }
    for (i, (f, off)) in sh["stackTable"]["frame"]
        .as_array()
        .unwrap()
        .iter()
        .zip(sh["stackTable"]["prefixOffset"].as_array().unwrap())
        .enumerate()
    {
        assert!(f.as_u64().unwrap() < frames);
        assert!(off.as_u64().unwrap() as usize <= i);
    }
}

/// One entry of `threads`: the required keys, the samples and the markers table.
fn assert_thread_fields(t: &Value) {
    for k in [
        "processType",
        "processStartupTime",
        "processShutdownTime",
        "registerTime",
        "unregisterTime",
        "pausedRanges",
        "name",
        "isMainThread",
        "pid",
        "tid",
        "samples",
        "markers",
    ] {
        assert!(t.get(k).is_some(), "thread.{k}");
    }
    assert!(t["pid"].is_string());
    assert_columns(&t["samples"], &["stack", "time"], "samples");
    assert!(t["samples"]["weightType"].is_string());
    assert_columns(
        &t["markers"],
        &["data", "name", "startTime", "endTime", "phase", "category"],
        "markers",
    );
}

#[test]
fn invalid_inputs_fail_with_clear_messages() {
    let n = check_invalid_fixtures("firefox", firefox::read);
    assert!(n >= 15, "{n} fixtures");
}

#[test]
fn truncations_never_panic() {
    let bytes = std::fs::read(corpus().join("firefox/processed-v49-unsymbolicated.json")).unwrap();
    for cut in (0..bytes.len()).step_by(97) {
        let _ = firefox::read(&bytes[..cut], &ReadOptions::default());
    }
}
