//! OTLP profiles: corpus reading (v1.8 layout, framed and plain), layout detection, round
//! trips, merging of per-type profiles, and pprof → OTLP → pprof through `go tool pprof`
//! (when the pprof format and Go are available). Invalid inputs: `otlp_invalid.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeSet;

use proftab::formats::otlp::proto::{self, Line, Location, ProfilesData, Sample, SampleV19};
use proftab::formats::{self, otlp, Format, ReadOptions, WriteOptions};
use proftab::model::{Cell, Profile, ProfileBuilder, SAMPLE_TIME};
use prost::Message;
use support::corpus::{corpus, corpus_bytes, file_name};
use support::go::{fixture_files, GoPprof};
use support::json::{sample_lines, totals};
use support::otlp::message_with_samples;
use support::profile::assert_valid;

fn read(bytes: &[u8]) -> Profile {
    otlp::read(bytes, &ReadOptions::default()).unwrap().profile
}

fn write(p: &Profile) -> Vec<u8> {
    otlp::write(p, &WriteOptions::default()).unwrap().bytes
}

#[test]
fn corpus_detection_ignores_the_file_name() {
    for (name, bytes) in corpus_bytes("otlp") {
        assert_eq!(formats::detect(&bytes), Some(Format::Otlp), "{name}");
        assert_eq!(Format::from_path(&name), Some(Format::Otlp), "{name}");
        let with_name = ReadOptions {
            source_uri: Some(name.clone()),
            ..Default::default()
        };
        assert_eq!(
            formats::read_any(&bytes, &with_name).unwrap().format,
            Format::Otlp
        );
        assert_eq!(
            formats::read_any(&bytes, &ReadOptions::default())
                .unwrap()
                .format,
            Format::Otlp
        );
    }
}

#[test]
fn corpus_files_are_v18_and_read_completely() {
    // Counts from `protoc --decode=...ExportProfilesServiceRequest` with the v1.8.0 protos
    // (no unknown fields): timestamps (one sample row each), Profile messages (one source
    // each), location_table entries minus the zero entry, `profile.frame.type` values.
    let expected = [
        (
            "sig-profiling-otlp-bench-profile.otlp",
            vec!["v1.8"],
            189,
            4,
            300,
            vec!["go", "jvm", "kernel", "native", "v8js"],
        ),
        (
            "sig-profiling-otlp-bench-k8s.otlp",
            vec!["v1.8", "v1.8"],
            165,
            13,
            637 + 997,
            vec!["go", "kernel", "native", "v8js"],
        ),
    ];
    for (name, layouts, samples, sources, locations, frame_types) in expected {
        let bytes = std::fs::read(corpus().join("otlp").join(name)).unwrap();
        assert_eq!(otlp::message_layouts(&bytes).unwrap(), layouts, "{name}");
        let parsed = otlp::read(&bytes, &ReadOptions::default()).unwrap();
        assert!(parsed.warnings.is_empty(), "{name}: {:?}", parsed.warnings);
        let p = parsed.profile;
        assert_eq!(p.num_samples(), samples, "{name}");
        assert_eq!(p.sources.source_type.len(), sources, "{name}");
        assert_eq!(p.locations.line.len(), locations, "{name}");
        assert_eq!(totals(&p), [format!("samples/count={samples}")], "{name}");
        let types: BTreeSet<&str> = p
            .locations
            .ext
            .chr(".frame_type")
            .unwrap()
            .iter()
            .filter(|s| !s.is_na())
            .map(|&s| p.str(s))
            .collect();
        assert_eq!(types.into_iter().collect::<Vec<_>>(), frame_types, "{name}");
        assert!(
            p.samples
                .ext
                .dbl(SAMPLE_TIME)
                .unwrap()
                .iter()
                .all(|t| t.is_finite()),
            "{name}"
        );
        let labels = p.ext_table("sample_labels").unwrap();
        let keys: BTreeSet<&str> = labels
            .columns
            .chr("key")
            .unwrap()
            .iter()
            .map(|&k| p.str(k))
            .collect();
        assert!(keys.contains("thread.name"), "{name}: {keys:?}");
    }
}

#[test]
fn corpus_round_trip_keeps_tables_and_writes_identical_bytes() {
    for (name, bytes) in corpus_bytes("otlp") {
        let first = read(&bytes);
        assert_valid(&first, &name);
        let written = write(&first);
        assert_eq!(
            otlp::message_layouts(&written).unwrap(),
            ["current (v1.10+)"],
            "{name}"
        );
        let second = read(&written);
        assert_eq!(sample_lines(&first), sample_lines(&second), "{name}");
        assert_eq!(totals(&first), totals(&second), "{name}");
        for t in ["sample_labels", "mappings", "source_attributes"] {
            let rows = |p: &Profile| p.ext_table(t).map(|x| x.len());
            assert_eq!(rows(&first), rows(&second), "{name}: {t}");
        }
        assert_eq!(written, write(&second), "{name}: writing twice differs");
    }
}

/// A profile with three value types, labels, an inline chain, a mapping, a link and times.
fn rich_profile(with_times: bool) -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("test", Some("x"), Some(1_700_000_000.5));
    let samples = b.value_type("samples", "count");
    let cpu = b.value_type("cpu", "nanoseconds");
    let alloc = b.value_type("alloc_space", "bytes");
    let main = b.function_named("main", Some("main.go"));
    let work = b.function_named("work", Some("work.go"));
    let inl = b.function_named("helper", Some("work.go"));
    let l_main = b.add_location(Some(main), 3);
    let l_inl = b.add_location(Some(inl), 11);
    let l_work = b.add_location(Some(work), 10);
    let raw = b.add_location(None, 0);
    for (l, a) in [
        (l_main, 0x1000u64),
        (l_inl, 0x2000),
        (l_work, 0x2000),
        (raw, 0x3000),
    ] {
        b.set_location_ext(l, ".address", Cell::U64(Some(a)));
        b.set_location_ext(l, ".mapping_id", Cell::U64(Some(1)));
    }
    // pprof's inline convention: consecutive rows, same location id, line index 0, 1.
    for (l, k) in [(l_inl, 0), (l_work, 1)] {
        b.set_location_ext(l, ".pprof_location_id", Cell::U64(Some(77)));
        b.set_location_ext(l, ".pprof_line_index", Cell::Int(k));
    }
    let native = b.intern("native");
    b.set_location_ext(raw, ".frame_type", Cell::Chr(native));
    let bin = b.intern("/bin/app");
    let build = b.intern("abc123");
    b.ext_table("mappings")
        .push_row(&[
            ("mapping_id", Cell::U64(Some(1))),
            ("memory_start", Cell::U64(Some(0x1000))),
            ("memory_limit", Cell::U64(Some(0x9000))),
            ("file_offset", Cell::U64(Some(0))),
            ("filename", Cell::Chr(bin)),
            ("build_id", Cell::Chr(build)),
            ("has_functions", Cell::Lgl(Some(true))),
        ])
        .unwrap();
    let deep = b.stack_leaf_first(&[raw, l_inl, l_work, l_main]);
    let shallow = b.stack_leaf_first(&[l_main]);
    let rows = [
        (deep, 2.0, 20.0, 64.0),
        (shallow, 1.0, 10.0, 0.0),
        (deep, 3.0, 30.0, 128.0),
    ];
    for (i, (stack, n, ns, bytes)) in rows.into_iter().enumerate() {
        let s = b.add_sample_with_values(src, stack, &[(samples, n), (cpu, ns), (alloc, bytes)]);
        if with_times {
            b.set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(i as f64 * 0.25));
        }
        let key = b.intern("thread");
        let val = b.intern(if i == 1 { "io" } else { "main" });
        let sample_id = s.logical_id();
        b.ext_table("sample_labels")
            .push_row(&[
                ("sample_id", Cell::Int(sample_id)),
                ("key", Cell::Chr(key)),
                ("str", Cell::Chr(val)),
            ])
            .unwrap();
        let bytes_key = b.intern("bytes");
        b.ext_table("sample_labels")
            .push_row(&[
                ("sample_id", Cell::Int(sample_id)),
                ("key", Cell::Chr(bytes_key)),
                ("num", Cell::Dbl(4096.0)),
            ])
            .unwrap();
    }
    let trace = b.intern("0102030405060708090a0b0c0d0e0f10");
    let span = b.intern("1112131415161718");
    b.set_sample_ext(
        proftab::model::SampleIndex(0),
        ".trace_id",
        Cell::Chr(trace),
    );
    b.set_sample_ext(proftab::model::SampleIndex(0), ".span_id", Cell::Chr(span));
    b.set_meta("default_sample_type", "cpu");
    b.add_meta("pprof.profile.comment", "first comment");
    b.add_meta("pprof.profile.comment", "second comment");
    b.build().unwrap()
}

fn label_rows(p: &Profile) -> Vec<String> {
    let t = p.ext_table("sample_labels").unwrap();
    (0..t.len())
        .map(|r| {
            let cells: Vec<String> = t
                .columns
                .columns
                .iter()
                .map(|c| match c.data.cell(r).unwrap() {
                    Cell::Chr(s) => p.str(s).to_owned(),
                    other => format!("{other:?}"),
                })
                .collect();
            cells.join("|")
        })
        .collect()
}

#[test]
fn every_value_type_labels_inlines_mappings_and_links_round_trip() {
    for with_times in [false, true] {
        let p = rich_profile(with_times);
        let bytes = write(&p);
        let data = ProfilesData::decode(bytes.as_slice()).unwrap();
        let scope = &data.resource_profiles[0].scope_profiles[0];
        assert_eq!(
            scope.profiles.len(),
            3,
            "one Profile message per value type"
        );
        let back = read(&bytes);
        assert_valid(&back, "rich profile");
        assert_eq!(sample_lines(&p), sample_lines(&back), "times {with_times}");
        assert_eq!(totals(&p), totals(&back));
        assert_eq!(back.meta_value("default_sample_type"), Some("cpu"));
        let comments: Vec<&str> = back.meta_values("pprof.profile.comment").collect();
        assert_eq!(comments, ["first comment", "second comment"]);
        assert_eq!(label_rows(&p), label_rows(&back));
        let m = back.ext_table("mappings").unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(
            m.columns.cell("build_id", 0),
            Some(Cell::Chr(back.strings.find("abc123").unwrap()))
        );
        assert_eq!(
            m.columns.cell("has_functions", 0),
            Some(Cell::Lgl(Some(true)))
        );
        let trace = back.samples.ext.cell(".trace_id", 0).unwrap();
        assert_eq!(
            trace,
            Cell::Chr(
                back.strings
                    .find("0102030405060708090a0b0c0d0e0f10")
                    .unwrap()
            )
        );
        // The inline chain is one Location with two lines, innermost first.
        let dict = data.dictionary.unwrap();
        let two_lines: Vec<&Location> = dict
            .location_table
            .iter()
            .filter(|l| l.lines.len() == 2)
            .collect();
        assert_eq!(two_lines.len(), 1);
        let name = |l: &Line| {
            &dict.string_table
                [dict.function_table[l.function_index as usize].name_strindex as usize]
        };
        assert_eq!(
            (
                name(&two_lines[0].lines[0]).as_str(),
                name(&two_lines[0].lines[1]).as_str()
            ),
            ("helper", "work")
        );
        let again = write(&back);
        assert_eq!(
            again,
            write(&read(&again)),
            "a written file is a fixed point"
        );
        assert_eq!(again, write(&back), "writing twice gives the same bytes");
    }
}

/// Stack 1, attribute 1, values 5 and 6 at 1.0 s and 1.5 s.
fn two_timestamp_sample() -> Sample {
    Sample {
        stack_index: 1,
        values: vec![5, 6],
        attribute_indices: vec![1],
        timestamps_unix_nano: vec![1_000_000_000, 1_500_000_000],
        ..Default::default()
    }
}

#[test]
fn v19_and_current_sample_layouts_read_the_same() {
    let sample = two_timestamp_sample();
    let new = message_with_samples(vec![sample.encode_to_vec()], &["a"]);
    let old = message_with_samples(vec![SampleV19::from(sample).encode_to_vec()], &["a"]);
    assert_eq!(otlp::message_layouts(&old).unwrap(), ["v1.9"]);
    assert_eq!(otlp::message_layouts(&new).unwrap(), ["current (v1.10+)"]);
    let (a, b) = (read(&old), read(&new));
    assert_eq!(sample_lines(&a), sample_lines(&b));
    assert_eq!(
        sample_lines(&a),
        [
            "src0 main@:7 [samples=5] t=0.000000000",
            "src0 main@:7 [samples=6] t=0.500000000"
        ]
    );
    assert_eq!(label_rows(&a), label_rows(&b));
}

#[test]
fn per_type_profiles_merge_back_into_one_sample_each() {
    let p = rich_profile(false);
    let back = read(&write(&p));
    assert_eq!(back.num_samples(), p.num_samples());
    assert_eq!(back.sources.source_type.len(), 1);
}

#[test]
fn what_a_writer_cannot_hold_is_reported() {
    let bytes = std::fs::read(corpus().join("otlp/sig-profiling-otlp-bench-profile.otlp")).unwrap();
    let p = read(&bytes);
    let as_firefox = formats::write_as(Format::Firefox, &p, &WriteOptions::default()).unwrap();
    let text: Vec<String> = as_firefox
        .warnings
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        text.iter().any(|w| w.contains("cannot hold sample labels"))
            && text
                .iter()
                .any(|w| w.contains("tables: dropped mappings (10 rows)")),
        "{text:?}"
    );
    assert!(
        formats::write_as(Format::Otlp, &p, &WriteOptions::default())
            .unwrap()
            .warnings
            .is_empty()
    );
    let ff = std::fs::read(corpus().join("firefox/processed-v58-argument-values.json")).unwrap();
    let from_firefox = formats::firefox::read(&ff, &ReadOptions::default())
        .unwrap()
        .profile;
    let as_otlp = formats::write_as(Format::Otlp, &from_firefox, &WriteOptions::default()).unwrap();
    let text: Vec<String> = as_otlp.warnings.iter().map(ToString::to_string).collect();
    assert!(
        text.iter()
            .any(|w| w.contains("locations columns: dropped .category"))
            && text
                .iter()
                .any(|w| w.contains("sources columns: dropped .thread_name")),
        "{text:?}"
    );
}

/// OTLP values are int64: a value beyond that range is clamped to it, with a warning, in the
/// binary and the JSON encodings (found by the round_trip fuzz target: a folded-stacks count
/// of 10^49 came back as 2^63 - 1 with no word said).
#[test]
fn values_beyond_int64_are_clamped_with_a_warning() {
    let text = format!("a;b {}\na;c 3\n", "9".repeat(49));
    let p = formats::read_as(Format::Collapsed, text.as_bytes(), &ReadOptions::default())
        .unwrap()
        .profile;
    for format in [Format::Otlp, Format::OtlpJson] {
        let written = formats::write_as(format, &p, &WriteOptions::default()).unwrap();
        let warnings: Vec<String> = written.warnings.iter().map(ToString::to_string).collect();
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("beyond the int64 range clamped")
                    && w.contains(&format!("first: 1{}", "0".repeat(49)))),
            "{format:?}: {warnings:?}"
        );
        let back = read(&written.bytes);
        let vt = back.default_value_type().unwrap();
        let total = back.value_column(vt).unwrap().total();
        assert_eq!(total, i64::MAX as f64 + 3.0, "{format:?}");
    }
}

#[test]
fn sources_with_their_own_start_share_one_firefox_timeline() {
    let bytes = std::fs::read(corpus().join("otlp/sig-profiling-otlp-bench-k8s.otlp")).unwrap();
    let p = read(&bytes);
    let absolute = |p: &Profile| -> Vec<f64> {
        let t = p.samples.ext.dbl(SAMPLE_TIME).unwrap();
        (0..p.num_samples())
            .map(|s| p.sources.source_timestamp[p.samples.source[s].idx()] + t[s])
            .collect()
    };
    let ff = formats::firefox::write(&p, &WriteOptions::default()).unwrap();
    let back = formats::firefox::read(&ff.bytes, &ReadOptions::default())
        .unwrap()
        .profile;
    assert_eq!(back.sources.source_type.len(), p.sources.source_type.len());
    for (a, b) in absolute(&p).iter().zip(absolute(&back)) {
        assert!((a - b).abs() < 1e-5, "{a} vs {b}");
    }
}

#[test]
fn otlp_json_reads_like_the_binary_encoding() {
    let json = br#"{"resourceProfiles": [{"scopeProfiles": [{"profiles": [{
        "sampleType": {"typeStrindex": 1, "unitStrindex": 2},
        "timeUnixNano": "1000000000",
        "samples": [{"stackIndex": 1, "values": ["5", 6], "attributeIndices": [1],
                     "timestampsUnixNano": ["1000000000", "1500000000"]}]}]}]}],
      "dictionary": {
        "mappingTable": [{}], "linkTable": [{}],
        "locationTable": [{}, {"lines": [{"functionIndex": 1, "line": "7"}]}],
        "functionTable": [{}, {"nameStrindex": 3}],
        "stringTable": ["", "samples", "count", "main", "key", "unused"],
        "attributeTable": [{}, {"keyStrindex": 4, "value": {"stringValue": "a"}}],
        "stackTable": [{}, {"locationIndices": [1]}]}}"#;
    assert_eq!(formats::detect(json), Some(Format::Otlp));
    assert_eq!(otlp::message_layouts(json).unwrap(), ["OTLP/JSON"]);
    let sample = two_timestamp_sample();
    let binary = message_with_samples(vec![sample.encode_to_vec()], &["a"]);
    let (a, b) = (read(json), read(&binary));
    assert_eq!(sample_lines(&a), sample_lines(&b));
    assert_eq!(label_rows(&a), label_rows(&b));
    // Two objects, one per line, as the collector's file exporter writes them.
    let mut lines = json.to_vec();
    lines.push(b'\n');
    lines.extend_from_slice(json);
    assert_eq!(read(&lines).num_samples(), 2 * a.num_samples());
}

#[test]
fn no_other_corpus_file_is_taken_for_otlp_or_firefox() {
    for dir in [
        "pprof",
        "rprof",
        "collapsed",
        "cpuprofile",
        "speedscope",
        "invalid",
    ] {
        for (name, bytes) in corpus_bytes(dir) {
            assert!(!otlp::detect(&bytes), "{dir}/{name} sniffed as OTLP");
            assert!(
                !formats::firefox::detect(&bytes),
                "{dir}/{name} sniffed as Firefox"
            );
        }
    }
}

#[test]
fn sources_without_samples_survive() {
    let ff = std::fs::read(
        corpus().join("firefox/fxprof-processed-profile-v66-flow_marker_fields.json"),
    )
    .unwrap();
    let p = formats::firefox::read(&ff, &ReadOptions::default())
        .unwrap()
        .profile;
    assert_eq!((p.sources.source_type.len(), p.num_samples()), (1, 0));
    let back = read(&write(&p));
    assert_eq!((back.sources.source_type.len(), back.num_samples()), (1, 0));
}

/// The structural rules of open-telemetry/sig-profiling `profcheck` (docs/formats/otlp.md) that a
/// writer controls; returns the first broken one.
fn profcheck(bytes: &[u8]) -> Result<(), String> {
    let data = ProfilesData::decode(bytes).map_err(|e| e.to_string())?;
    let d = data.dictionary.ok_or("no dictionary")?;
    let strings = &d.string_table;
    if strings.first().map(String::as_str) != Some("") {
        return Err("string_table[0] must be empty".into());
    }
    if strings.iter().collect::<BTreeSet<_>>().len() != strings.len() {
        return Err("duplicate strings".into());
    }
    let zero_first = d.mapping_table.first() == Some(&Default::default())
        && d.location_table.first() == Some(&Default::default())
        && d.function_table.first() == Some(&Default::default())
        && d.attribute_table.first() == Some(&Default::default())
        && d.stack_table.first() == Some(&Default::default());
    if !zero_first {
        return Err("element 0 of a table is not the zero value".into());
    }
    let within = |i: i32, n: usize| usize::try_from(i).is_ok_and(|i| i < n);
    let s_ok = |i: i32| within(i, strings.len());
    for l in &d.link_table {
        if l.trace_id.len() != 16 || l.span_id.len() != 8 {
            return Err("link ids must be 16 and 8 bytes".into());
        }
    }
    for f in &d.function_table {
        if ![f.name_strindex, f.system_name_strindex, f.filename_strindex]
            .into_iter()
            .all(s_ok)
            || f.start_line < 0
        {
            return Err(format!("bad function {f:?}"));
        }
    }
    for m in &d.mapping_table {
        let ranged =
            m.memory_start < m.memory_limit || (m.memory_start == 0 && m.memory_limit == 0);
        if !s_ok(m.filename_strindex)
            || !ranged
            || !m
                .attribute_indices
                .iter()
                .all(|&a| within(a, d.attribute_table.len()))
        {
            return Err(format!("bad mapping {m:?}"));
        }
    }
    for l in &d.location_table {
        let lines_ok = l
            .lines
            .iter()
            .all(|x| within(x.function_index, d.function_table.len()) && x.line >= 0);
        if !within(l.mapping_index, d.mapping_table.len()) || !lines_ok {
            return Err(format!("bad location {l:?}"));
        }
    }
    for s in &d.stack_table {
        if !s
            .location_indices
            .iter()
            .all(|&i| within(i, d.location_table.len()))
        {
            return Err("stack refers to a missing location".into());
        }
    }
    let profiles = data
        .resource_profiles
        .iter()
        .flat_map(|r| &r.scope_profiles)
        .flat_map(|s| &s.profiles);
    for p in profiles {
        let p = proto::Profile::decode(p.as_slice()).map_err(|e| e.to_string())?;
        let mut shapes = BTreeSet::new();
        for s in &p.samples {
            let s = Sample::decode(s.as_slice()).map_err(|e| e.to_string())?;
            let (nv, nt) = (s.values.len(), s.timestamps_unix_nano.len());
            let shape = match (nv, nt) {
                (0, 0) => return Err("sample without values or timestamps".into()),
                (1, 0) => "aggregated",
                (_, 0) => return Err("several values without timestamps".into()),
                (0, _) => "timestamps",
                (a, b) if a == b => "paired",
                _ => return Err("values and timestamps differ in length".into()),
            };
            shapes.insert(shape);
            let refs_ok = within(s.stack_index, d.stack_table.len())
                && within(s.link_index, d.link_table.len())
                && s.attribute_indices
                    .iter()
                    .all(|&a| within(a, d.attribute_table.len()));
            if !refs_ok {
                return Err("sample refers to a missing stack, link or attribute".into());
            }
        }
        if shapes.len() > 1 {
            return Err(format!("one profile mixes sample shapes {shapes:?}"));
        }
    }
    Ok(())
}

#[test]
fn written_files_follow_the_profcheck_rules() {
    let mut profiles: Vec<(String, Profile)> = corpus_bytes("otlp")
        .into_iter()
        .map(|(n, b)| (n, read(&b)))
        .collect();
    profiles.push(("rich".into(), rich_profile(true)));
    profiles.push(("rich without times".into(), rich_profile(false)));
    for (n, b) in corpus_bytes("firefox")
        .into_iter()
        .filter(|(n, _)| !n.starts_with("gecko"))
    {
        profiles.push((
            n,
            formats::firefox::read(&b, &ReadOptions::default())
                .unwrap()
                .profile,
        ));
    }
    for (name, p) in profiles {
        profcheck(&write(&p)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn lookalike_profiles_of_different_sources_stay_apart() {
    let mut b = ProfileBuilder::new();
    let cpu = b.value_type("cpu", "nanoseconds");
    let alloc = b.value_type("alloc_space", "bytes");
    let f = b.function_named("main", None);
    let l = b.location(Some(f), 1);
    let stack = b.stack_leaf_first(&[l]);
    for vt in [cpu, alloc] {
        let src = b.add_source("otlp", None, None);
        b.add_sample_with_values(src, stack, &[(vt, 5.0)]);
    }
    let p = b.build().unwrap();
    let back = read(&write(&p));
    assert_eq!(back.sources.source_type.len(), 2);
    assert_eq!(sample_lines(&p), sample_lines(&back));
}

#[test]
fn pprof_to_otlp_to_pprof_keeps_go_tool_pprof_output() {
    use proftab::formats::pprof;
    let Some(go) = GoPprof::find() else {
        return;
    };
    let scratch = go.scratch();
    let mut failures = Vec::new();
    let mut checked = 0;
    // The corpus plus the Go runtime/pprof fixtures (inlining, labels, several types).
    let mut files = corpus_bytes("pprof");
    for path in fixture_files() {
        let name = format!("fixture-{}", file_name(&path));
        files.push((name, std::fs::read(&path).unwrap()));
    }
    for (name, bytes) in files {
        let original = pprof::read(&bytes, &ReadOptions::default())
            .unwrap()
            .profile;
        let otlp_bytes = write(&original);
        let via_otlp = read(&otlp_bytes);
        let back = pprof::write(&via_otlp, &WriteOptions::default())
            .unwrap()
            .bytes;
        let (a, b) = (
            scratch.join(&name),
            scratch.join(format!("{name}.via-otlp.pb.gz")),
        );
        std::fs::write(&a, &bytes).unwrap();
        std::fs::write(&b, &back).unwrap();
        let mut views: Vec<Vec<String>> = (0..original.values.len())
            .map(|i| vec!["-top".to_owned(), format!("-sample_index={i}")])
            .collect();
        views.push(vec!["-traces".to_owned()]);
        for view in views {
            let args: Vec<&str> = view.iter().map(String::as_str).collect();
            let run = |file: &std::path::Path| {
                go.run(&args, file)
                    .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
            };
            let (want, got) = (run(&a), run(&b));
            if want != got {
                let line = want
                    .lines()
                    .zip(got.lines())
                    .position(|(x, y)| x != y)
                    .unwrap_or(0);
                failures.push(format!(
                    "{name} {args:?} line {line}: {:?} vs {:?}",
                    want.lines().nth(line),
                    got.lines().nth(line)
                ));
            }
        }
        checked += 1;
    }
    std::fs::remove_dir_all(scratch).ok();
    assert!(checked >= 23, "{checked} files");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gzipped_files_are_read_too() {
    use proftab::formats::gzip::gzip;
    for (name, bytes) in corpus_bytes("otlp") {
        let packed = gzip(&bytes);
        assert_eq!(formats::detect(&packed), Some(Format::Otlp), "{name}");
        assert_eq!(
            sample_lines(&read(&packed)),
            sample_lines(&read(&bytes)),
            "{name}"
        );
    }
    let e = otlp::read(&gzip(&gzip(b"x")), &ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("gzip inside gzip"), "{e}");
}
