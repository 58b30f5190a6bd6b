//! The Rprof writer on profiles that did not come from Rprof: ticks, intervals, file lines,
//! and a warning or error for everything Rprof cannot say.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proftab::formats::{rprof, Format, ReadOptions, WriteOptions, Written};
use proftab::model::{Cell, Profile, ProfileBuilder, ValueTypeIndex};

/// A two-function profile: samples `main -> work` with the given (type, unit) values.
fn profile(types: &[(&str, &str)], samples: &[&[f64]]) -> Profile {
    profile_with_meta(types, samples, &[])
}

fn profile_with_meta(types: &[(&str, &str)], samples: &[&[f64]], meta: &[(&str, &str)]) -> Profile {
    let mut b = ProfileBuilder::new();
    for (k, v) in meta {
        b.set_meta(k, v);
    }
    let src = b.add_source("pprof", Some("cpu.pb.gz"), None);
    let vts: Vec<ValueTypeIndex> = types.iter().map(|(t, u)| b.value_type(t, u)).collect();
    let main = b.function_named("main", Some("main.go"));
    let work = b.function_named("work", Some("work.go"));
    let l_main = b.location(Some(main), 12);
    let l_work = b.location(Some(work), 40);
    let stack = b.stack_leaf_first(&[l_work, l_main]);
    for values in samples {
        let pairs: Vec<_> = vts.iter().copied().zip(values.iter().copied()).collect();
        b.add_sample_with_values(src, stack, &pairs);
    }
    b.build().unwrap()
}

fn write(p: &Profile) -> Written {
    rprof::write(p, &WriteOptions::default()).unwrap()
}

fn text(w: &Written) -> String {
    String::from_utf8(w.bytes.clone()).unwrap()
}

fn has_warning(w: &Written, needle: &str) -> bool {
    w.warnings.iter().any(|x| x.message.contains(needle))
}

const CPU: &[(&str, &str)] = &[("samples", "count"), ("cpu", "nanoseconds")];

#[test]
fn count_and_time_give_lines_and_interval() {
    let p = profile(CPU, &[&[1.0, 10e6], &[2.0, 20e6]]);
    let w = write(&p);
    assert_eq!(
        text(&w),
        "line profiling: sample.interval=10000\n\
         #File 1: work.go\n\
         #File 2: main.go\n\
         1#40 \"work\" 2#12 \"main\" \n\
         1#40 \"work\" 2#12 \"main\" \n\
         1#40 \"work\" 2#12 \"main\" \n"
    );
    assert!(has_warning(&w, "count 2"));
    // Start lines are unknown (0) here, so nothing is lost; a known one is reported.
    assert!(!has_warning(&w, "start_line"));
    let mut p = p;
    p.functions.start_line[1] = 38;
    assert!(has_warning(&write(&p), "start_line of 1 functions"));
}

#[test]
fn written_file_reads_back_with_the_same_function_table() {
    let p = profile(CPU, &[&[1.0, 10e6], &[3.0, 30e6]]);
    let w = write(&p);
    let back = rprof::read(&w.bytes, &ReadOptions::default())
        .unwrap()
        .profile;
    assert_eq!(back.num_samples(), 4);
    let t = |p: &Profile, vt: &str| {
        let vt = p.value_type_index(vt).unwrap();
        proftab::analysis::functions::function_table(p, vt, None)
            .rows
            .iter()
            .map(|r| (r.name.clone(), r.self_value, r.total_value))
            .collect::<Vec<_>>()
    };
    assert_eq!(t(&p, "samples"), t(&back, "samples"));
    assert_eq!(t(&p, "cpu"), t(&back, "time"));
}

#[test]
fn fractional_and_zero_counts_are_reported() {
    let p = profile(CPU, &[&[1.5, 15e6], &[0.0, 0.0], &[1.0, 10e6]]);
    let w = write(&p);
    assert!(has_warning(&w, "rounded"));
    assert!(has_warning(&w, "count 0"));
    // 1.5 rounds to 2 lines, 0 to none, 1 to one line.
    assert_eq!(
        text(&w).lines().filter(|l| l.contains("\"work\"")).count(),
        3
    );
}

#[test]
fn bytes_without_counts_are_refused() {
    let p = profile(&[("alloc_space", "bytes")], &[&[4096.0]]);
    let e = rprof::write(&p, &WriteOptions::default()).unwrap_err();
    assert!(e.message.contains("neither sample counts nor times"), "{e}");
    assert!(e.message.contains("alloc_space/bytes"), "{e}");
    let named = WriteOptions {
        value_type: Some("alloc_space".to_owned()),
        ..WriteOptions::default()
    };
    let e = rprof::write(&p, &named).unwrap_err();
    assert!(e.message.contains("measured in bytes"), "{e}");
}

#[test]
fn a_named_count_type_gives_the_lines() {
    let p = profile(
        &[("alloc_objects", "count"), ("alloc_space", "bytes")],
        &[&[2.0, 4096.0]],
    );
    let options = WriteOptions {
        value_type: Some("alloc_objects".to_owned()),
        ..WriteOptions::default()
    };
    let w = rprof::write(&p, &options).unwrap();
    assert_eq!(
        text(&w).lines().filter(|l| l.contains("\"work\"")).count(),
        2
    );
    assert!(has_warning(&w, "alloc_space/bytes"));
    assert!(has_warning(&w, "sample.interval=10000"));
}

#[test]
fn time_only_profiles_use_the_period() {
    let samples: &[&[f64]] = &[&[20e6], &[10e6]];
    // Without any period: 10 ms default, with a warning.
    let w = write(&profile(&[("cpu", "nanoseconds")], samples));
    assert!(text(&w).starts_with("line profiling: sample.interval=10000\n"));
    assert!(has_warning(&w, "says nothing about its sampling interval"));
    assert_eq!(
        text(&w).lines().filter(|l| l.contains("\"work\"")).count(),
        3
    );
    // With pprof's period in meta: 5 ms, so 4 + 2 lines and no interval warning.
    let meta = [
        ("pprof.period", "5000000"),
        ("pprof.period_type", "cpu/nanoseconds"),
    ];
    let w = write(&profile_with_meta(
        &[("cpu", "nanoseconds")],
        samples,
        &meta,
    ));
    assert!(text(&w).starts_with("line profiling: sample.interval=5000\n"));
    assert!(!has_warning(&w, "sampling interval"));
    assert_eq!(
        text(&w).lines().filter(|l| l.contains("\"work\"")).count(),
        6
    );
}

#[test]
fn varying_times_use_their_mean_and_are_reported() {
    // One tick of 10 ms and one of 25 ms: the file's interval is their mean, 17.5 ms, so the
    // total, 35 ms, is kept; the spread is reported.
    let p = profile(CPU, &[&[1.0, 10e6], &[1.0, 25e6]]);
    let w = write(&p);
    assert!(text(&w).starts_with("line profiling: sample.interval=17500\n"));
    let warning = w
        .warnings
        .iter()
        .find(|x| x.message.contains("their mean, 17500 µs"))
        .unwrap();
    assert_eq!(warning.count, 2);
}

fn two_sources(second_interval_ns: f64) -> Profile {
    let mut b = ProfileBuilder::new();
    let a = b.add_source("rprof", Some("a.out"), None);
    let c = b.add_source("rprof", Some("b.out"), None);
    let n = b.value_type("samples", "count");
    let t = b.value_type("time", "nanoseconds");
    let f = b.function_named("f", None);
    let l = b.location(Some(f), 0);
    let s = b.stack_leaf_first(&[l]);
    b.add_sample_with_values(a, s, &[(n, 1.0), (t, 10e6)]);
    b.add_sample_with_values(c, s, &[(n, 1.0), (t, second_interval_ns)]);
    b.build().unwrap()
}

#[test]
fn sources_with_different_intervals_need_a_choice() {
    let w = write(&two_sources(10e6));
    assert_eq!(text(&w), "sample.interval=10000\n\"f\" \n\"f\" \n");
    let e = rprof::write(&two_sources(20e6), &WriteOptions::default()).unwrap_err();
    assert!(e.message.contains("source 1 every 10000 µs"), "{e}");
    assert!(e.message.contains("source 2 every 20000 µs"), "{e}");
    let second = WriteOptions {
        source_id: Some(2),
        ..WriteOptions::default()
    };
    let w = rprof::write(&two_sources(20e6), &second).unwrap();
    assert_eq!(text(&w), "sample.interval=20000\n\"f\" \n");
    let missing = WriteOptions {
        source_id: Some(3),
        ..WriteOptions::default()
    };
    assert!(rprof::write(&two_sources(20e6), &missing).is_err());
}

#[test]
fn what_rprof_cannot_say_is_reported() {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("manual", None, None);
    let n = b.value_type("samples", "count");
    let bytes = b.value_type("alloc_space", "bytes");
    let odd = b.function_named("two\n1 lines", None);
    let amb = b.function_named("a\" \"b", None);
    let l1 = b.location(Some(odd), 0);
    let l2 = b.location(Some(amb), 0);
    let s1 = b.stack_leaf_first(&[l1]);
    let s2 = b.stack_leaf_first(&[l2]);
    let s = b.add_sample_with_values(src, s1, &[(n, 1.0), (bytes, 10.0)]);
    b.add_sample_with_values(src, s2, &[(n, 1.0)]);
    b.add_sample_with_values(src, None, &[(n, 1.0)]);
    b.set_sample_ext(s, ".thread", Cell::Int(7));
    b.set_meta("pprof.drop_frames", "runtime\\..*");
    let p = b.build().unwrap();
    // write_as: the writer's warnings, then the shared loss report.
    let w = proftab::formats::write_as(Format::Rprof, &p, &WriteOptions::default()).unwrap();
    assert_eq!(
        text(&w),
        "sample.interval=10000\n\"two 1 lines\" \n\"a' 'b\" \n"
    );
    for needle in [
        "line breaks were replaced",
        "double quotes were written as single quotes",
        "no frames and no memory values",
        "alloc_space/bytes",
        "samples columns: dropped .thread (1 sample)",
        "meta keys: dropped pprof.drop_frames",
        "sample.interval=10000 (10 ms",
    ] {
        assert!(has_warning(&w, needle), "{needle}: {:?}", w.warnings);
    }
}

/// A name holding what reads as a frame boundary and a source reference (`" 2#21 "`, found by
/// the round_trip fuzz target in a pmcstat file) reads back as one frame, quotes changed, with
/// no `#File 2` needed.
#[test]
fn names_with_quote_space_read_back_as_one_frame() {
    let name = "m_delim\" \"force\" 2#21 \"line_profile";
    let mut b = ProfileBuilder::new();
    let src = b.add_source("pmcstat", None, None);
    let n = b.value_type("samples", "count");
    let f = b.function_named(name, None);
    let main = b.function_named("main", None);
    let l = b.location(Some(f), 0);
    let m = b.location(Some(main), 0);
    let stack = b.stack_leaf_first(&[l, m]);
    b.add_sample_with_values(src, stack, &[(n, 2.0)]);
    let w = write(&b.build().unwrap());
    assert!(
        has_warning(&w, "written as single quotes"),
        "{:?}",
        w.warnings
    );
    let back = rprof::read(&w.bytes, &ReadOptions::default())
        .unwrap()
        .profile;
    assert_eq!(back.num_samples(), 2);
    let names: Vec<&str> = back
        .functions
        .name
        .iter()
        .map(|&id| back.strings.text(id))
        .collect();
    assert_eq!(names, ["m_delim' 'force' 2#21 'line_profile", "main"]);
}

#[test]
fn empty_profile_writes_a_header() {
    let mut b = ProfileBuilder::new();
    b.add_source("rprof", None, None);
    b.value_type("samples", "count");
    let w = write(&b.build().unwrap());
    assert_eq!(text(&w), "sample.interval=10000\n");
}

#[test]
fn absurd_counts_are_refused_not_truncated() {
    let p = profile(CPU, &[&[1e12, 1e19]]);
    let e = rprof::write(&p, &WriteOptions::default()).unwrap_err();
    assert!(e.message.contains("stands for 1000000000000 ticks"), "{e}");
    assert!(e.message.contains("larger than 512 MiB"), "{e}");
}

/// `WriteOptions::max_output_bytes` bounds the expansion into lines: 1,000 ticks of a
/// two-frame stack fit 64 KiB and not 4,000 bytes.
#[test]
fn the_output_bound_can_be_lowered() {
    let p = profile(CPU, &[&[1000.0, 1e10]]);
    let bounded = |n: usize| WriteOptions {
        max_output_bytes: Some(n),
        ..WriteOptions::default()
    };
    let w = rprof::write(&p, &bounded(64 << 10)).unwrap();
    let stack_lines = text(&w).lines().filter(|l| l.contains("\"work\"")).count();
    assert_eq!(stack_lines, 1000, "one line per tick");
    let e = rprof::write(&p, &bounded(4000)).unwrap_err();
    assert!(
        e.message
            .contains("one line per tick would make the Rprof file larger than 4000 bytes"),
        "{e}"
    );
}

#[test]
fn v1_profiles_write_through_the_tables_json_conversion() {
    use proftab::analysis::functions::function_table;
    use proftab::formats::tables_json;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rprof/line.out");
    let original = rprof::read(&std::fs::read(path).unwrap(), &ReadOptions::default())
        .unwrap()
        .profile;
    // v1 aggregates identical stacks and keeps one value type (samples/count), no interval.
    let v1 = tables_json::write_v1(&original, &WriteOptions::default()).unwrap();
    assert!(String::from_utf8_lossy(&v1.bytes).contains("\"version\"],\"value\":[\"1.0\"]"));
    let from_v1 = tables_json::read(&v1.bytes, &ReadOptions::default())
        .unwrap()
        .profile;
    let w = write(&from_v1);
    assert!(text(&w).starts_with("line profiling: sample.interval=10000\n"));
    assert!(has_warning(&w, "says nothing about its sampling interval"));
    let back = rprof::read(&w.bytes, &ReadOptions::default())
        .unwrap()
        .profile;
    let table = |p: &Profile| {
        let t = function_table(p, p.value_type_index("samples").unwrap(), None);
        let mut rows: Vec<_> = t
            .rows
            .into_iter()
            .map(|r| (r.name, r.self_value, r.total_value))
            .collect();
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        rows
    };
    assert_eq!(table(&back), table(&original));
    assert_eq!(back.num_samples(), original.num_samples());
}

#[test]
fn names_with_line_breaks_are_written_raw_as_r_does() {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("manual", None, None);
    let n = b.value_type("samples", "count");
    let odd = b.function_named("odd\nname", None);
    let main = b.function_named("main", None);
    let (l1, l2) = (b.location(Some(odd), 0), b.location(Some(main), 0));
    let stack = b.stack_leaf_first(&[l1, l2]);
    b.add_sample_with_values(src, stack, &[(n, 2.0)]);
    let w = write(&b.build().unwrap());
    assert_eq!(
        text(&w),
        "sample.interval=10000\n\"odd\nname\" \"main\" \n\"odd\nname\" \"main\" \n"
    );
    assert!(!has_warning(&w, "line breaks"));
    let back = rprof::read(&w.bytes, &ReadOptions::default()).unwrap();
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    let p = back.profile;
    assert_eq!(p.num_samples(), 2);
    let names: Vec<&str> = p.functions.name.iter().map(|&s| p.str(s)).collect();
    assert_eq!(names, vec!["odd\nname", "main"]);
}
