//! pprof read/write round trips inside proftab (no Go needed): detection, model contents,
//! deterministic and stable output, profiles that did not come from pprof, gzip wrapping.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::formats::{self, detect, gzip, pprof, read_any, Format, ReadOptions, WriteOptions};
use proftab::model::{Cell, ColumnData, Profile, ProfileBuilder};
use support::corpus::*;
use support::go::*;

fn write(p: &Profile) -> Vec<u8> {
    pprof::write(p, &WriteOptions::default()).unwrap().bytes
}

fn read(bytes: &[u8]) -> Profile {
    pprof::read(bytes, &ReadOptions::default()).unwrap().profile
}

#[test]
fn detects_every_pprof_file_and_nothing_else() {
    for path in corpus_files("pprof").into_iter().chain(fixture_files()) {
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(detect(&bytes), Some(Format::Pprof), "{}", path.display());
    }
    for folder in [
        "otlp",
        "collapsed",
        "rprof",
        "cpuprofile",
        "firefox",
        "speedscope",
    ] {
        for path in corpus_files(folder) {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !pprof::detect(&bytes),
                "{} detected as pprof",
                path.display()
            );
        }
    }
}

/// The model of a profile as comparable text: meta, value types, per-sample values and
/// frames (names, lines, extension cells), extension tables.
fn summary(p: &Profile) -> Vec<String> {
    let mut out: Vec<String> = p
        .meta
        .key
        .iter()
        .zip(&p.meta.value)
        .map(|(&k, &v)| format!("meta {}={}", p.str(k), p.str(v)))
        .collect();
    for s in 0..p.num_samples() {
        let values: Vec<String> = p
            .values
            .iter()
            .map(|c| format!("{}={:?}", p.str(c.value_type), c.get(s)))
            .collect();
        let frames: Vec<String> = p
            .frames_leaf_first(p.sample_stack(proftab::model::SampleIndex(s as u32)))
            .map(|l| {
                let f = p.location_function(l);
                let ext: Vec<String> = p
                    .locations
                    .ext
                    .columns
                    .iter()
                    .map(|c| format!("{}:{:?}", c.name, c.data.cell(l.idx())))
                    .collect();
                format!(
                    "{}:{} {}",
                    f.map_or("-", |f| p.str(p.functions.name[f.idx()])),
                    p.locations.line[l.idx()],
                    ext.join(",")
                )
            })
            .collect();
        out.push(format!(
            "sample {} | {}",
            values.join(" "),
            frames.join(" < ")
        ));
    }
    for t in &p.ext_tables {
        for c in &t.columns.columns {
            let cells: Vec<String> = (0..c.data.len())
                .map(|r| match c.data.cell(r) {
                    Some(Cell::Chr(id)) => p.str(id).to_owned(),
                    other => format!("{other:?}"),
                })
                .collect();
            out.push(format!("{}.{} = {}", t.name, c.name, cells.join("|")));
        }
    }
    out
}

#[test]
fn corpus_model_survives_write_and_read() {
    let mut merged_files = Vec::new();
    for path in corpus_files("pprof").into_iter().chain(fixture_files()) {
        let a = read_pprof(&path);
        let bytes = write(&a);
        let b = read(&bytes);
        if a.num_samples() != b.num_samples() {
            // The writer merged samples with equal stacks and labels: totals must agree.
            merged_files.push(path.display().to_string());
            for (ca, cb) in a.values.iter().zip(&b.values) {
                assert_eq!(ca.total(), cb.total(), "{}", path.display());
            }
            continue;
        }
        let (sa, sb) = (summary(&a), summary(&b));
        for (x, y) in sa.iter().zip(&sb) {
            assert_eq!(x, y, "{}", path.display());
        }
        assert_eq!(sa.len(), sb.len(), "{}", path.display());
        // And the output is stable: writing what was read back gives the same bytes.
        assert_eq!(write(&b), bytes, "{}: output not stable", path.display());
    }
    eprintln!("files whose samples were merged by the writer: {merged_files:?}");
}

#[test]
fn output_is_deterministic() {
    let path = fixture_files().into_iter().next().unwrap();
    let p = read_pprof(&path);
    assert_eq!(write(&p), write(&p));
}

/// A profile as another format's reader would build it: no pprof ids, a location without a
/// function, a sample without a value for one type, fractional values, a timestamp column.
fn foreign_profile() -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("collapsed", Some("x.txt"), Some(1_700_000_000.5));
    let samples = b.value_type("samples", "count");
    let time = b.value_type("time", "nanoseconds");
    let main = b.function_named("main", Some("main.c"));
    let work = b.function_named("work", None);
    let l_main = b.location(Some(main), 3);
    let l_work = b.location(Some(work), 0);
    let l_addr = b.add_location(None, 0);
    b.set_location_ext(l_addr, ".address", Cell::U64(Some(0x1234)));
    let s1 = b.stack_leaf_first(&[l_work, l_main]);
    let s2 = b.stack_leaf_first(&[l_addr, l_work, l_main]);
    let a = b.add_sample_with_values(src, s1, &[(samples, 1.0), (time, 2.6)]);
    b.add_sample_with_values(src, s1, &[(samples, 2.0), (time, 3.0)]);
    b.add_sample_with_values(src, s2, &[(samples, 4.0)]);
    b.set_sample_ext(a, ".time", Cell::Dbl(0.5));
    b.build().unwrap()
}

#[test]
fn foreign_profiles_are_written_with_fresh_ids_and_merged_samples() {
    let p = foreign_profile();
    let written = formats::write_as(Format::Pprof, &p, &WriteOptions::default()).unwrap();
    let text: Vec<String> = written.warnings.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|w| w.contains("1 values rounded")),
        "{text:?}"
    );
    assert!(
        text.iter().any(|w| w.contains("timestamps of 1 sample")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|w| w.contains("sums samples by stack and labels: 3 samples became 2 entries")),
        "{text:?}"
    );
    let back = read(&written.bytes);
    // Samples 1 and 2 share a stack and (no) labels: merged into one.
    assert_eq!(back.num_samples(), 2);
    let v = |t: usize, s: usize| back.values[t].get(s).unwrap();
    assert_eq!((v(0, 0), v(1, 0)), (3.0, 6.0)); // 1+2, round(2.6)+3
    assert_eq!((v(0, 1), v(1, 1)), (4.0, 0.0)); // the missing time is 0
    let frames = summary(&back);
    let sample2 = frames
        .iter()
        .find(|l| l.starts_with("sample samples=Some(4.0)"))
        .unwrap();
    assert!(
        sample2.contains("-:0 .address:Some(U64(Some(4660)))"),
        "{sample2}"
    );
    assert_eq!(
        back.meta_value(pprof::META_TIME_NANOS),
        Some("1700000000500000000")
    );
    assert_eq!(back.sources.source_timestamp[0], 1_700_000_000.5);
}

#[test]
fn labels_and_inline_frames_survive() {
    let path = fixture_files()
        .into_iter()
        .find(|p| p.ends_with("cpu.pb.gz"))
        .unwrap();
    let p = read_pprof(&path);
    let labels = p.ext_table(pprof::LABELS_TABLE).expect("pprof.Do labels");
    let Some(ColumnData::Chr(keys)) = labels.columns.get("key") else {
        panic!("no key column")
    };
    assert!(keys.iter().all(|&k| p.str(k) == "stage"));
    let index = p.locations.ext.int(pprof::LOC_LINE_INDEX).unwrap();
    assert!(index.iter().any(|&i| i > 0), "no inlined frames");
    let back = read(&write(&p));
    assert_eq!(summary(&p), summary(&back));
}

#[test]
fn read_any_opens_gzip_inside_gzip() {
    let path = corpus_files("pprof").into_iter().next().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let twice = gzip::gzip(&bytes);
    let parsed = read_any(&twice, &ReadOptions::default()).unwrap();
    assert_eq!(parsed.format, Format::Pprof);
    assert_eq!(parsed.profile.num_samples(), read(&bytes).num_samples());
    let e = read_any(&gzip::gzip(b"hello"), &ReadOptions::default()).unwrap_err();
    assert!(
        e.message
            .contains("gzip-compressed data starts with bytes 68 65"),
        "{e}"
    );
}

/// Go's runtime writes a repeated scalar unpacked when it has ≤ 2 elements and packed
/// otherwise; both encodings of `Sample.location_id`/`value` must decode alike.
#[test]
fn packed_and_unpacked_repeated_fields_decode_alike() {
    use proftab::formats::pprof::schema;
    use prost::Message;
    let function = schema::Function {
        id: 1,
        name: 3,
        ..Default::default()
    };
    let location = |id| schema::Location {
        id,
        line: vec![schema::Line {
            function_id: 1,
            line: id as i64,
            column: 0,
        }],
        ..Default::default()
    };
    let profile = schema::Profile {
        sample_type: vec![schema::ValueType { r#type: 1, unit: 2 }],
        location: vec![location(1), location(2)],
        function: vec![function],
        string_table: ["", "samples", "count", "main"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect(),
        ..Default::default()
    };
    let base = profile.encode_to_vec();
    // Sample{location_id: [2, 1], value: [7]}: packed (prost's way) and unpacked by hand.
    let packed = [0x12, 0x06, 0x0a, 0x02, 0x02, 0x01, 0x10, 0x07];
    let unpacked = [0x12, 0x06, 0x08, 0x02, 0x08, 0x01, 0x10, 0x07];
    let a = read(&[&base[..], &packed].concat());
    let b = read(&[&base[..], &unpacked].concat());
    assert_eq!(summary(&a), summary(&b));
    assert_eq!(a.num_samples(), 1);
    assert_eq!(
        a.stack_depth(a.sample_stack(proftab::model::SampleIndex(0))),
        2
    );
}

/// A profile that uses every pprof field no corpus file has (comment, doc_url, keep_frames,
/// is_folded, Line.column, num_unit) plus inline frames, two mappings, an address-only
/// location and string and numeric labels. Committed as tests/fixtures/pprof/fields.pb.gz, so
/// the go tool pprof fidelity test covers it too.
mod fields_pb {
    use proftab::formats::gzip;
    use proftab::formats::pprof::schema::*;
    use prost::Message;

    /// The string table; "memcpy" and "work" repeat at 21 and 22 for drop_frames and
    /// keep_frames (lookups by text find the first).
    const STRINGS: [&str; 24] = [
        "",
        "samples",
        "count",
        "alloc",
        "bytes",
        "/usr/bin/app",
        "abc123",
        "libc.so.6",
        "main",
        "_main",
        "main.c",
        "work",
        "helper",
        "memcpy",
        "thread",
        "worker",
        "request",
        "size",
        "kilobytes",
        "first comment",
        "second comment",
        "memcpy",
        "work",
        "https://example.com/doc",
    ];

    /// Index of the first `text` in [`STRINGS`].
    fn s(text: &str) -> i64 {
        STRINGS.iter().position(|&x| x == text).unwrap() as i64
    }

    /// The whole profile, gzipped.
    pub fn profile() -> Vec<u8> {
        let profile = Profile {
            sample_type: vec![value_type("samples", "count"), value_type("alloc", "bytes")],
            sample: samples(),
            mapping: mappings(),
            location: locations(),
            function: functions(),
            string_table: STRINGS.iter().map(|x| x.as_bytes().to_vec()).collect(),
            drop_frames: 21,
            keep_frames: 22,
            time_nanos: 1_700_000_000_123_456_789,
            duration_nanos: 2_500_000_000,
            period_type: Some(value_type("alloc", "bytes")),
            period: 1,
            comment: vec![s("first comment"), s("second comment")],
            default_sample_type: s("alloc"),
            doc_url: s("https://example.com/doc"),
        };
        gzip::gzip(&profile.encode_to_vec())
    }

    fn value_type(r#type: &str, unit: &str) -> ValueType {
        ValueType {
            r#type: s(r#type),
            unit: s(unit),
        }
    }

    fn str_label(k: &str, v: &str) -> Label {
        Label {
            key: s(k),
            str: s(v),
            ..Default::default()
        }
    }

    fn num_label(k: &str, n: i64, unit: &str) -> Label {
        Label {
            key: s(k),
            num: n,
            num_unit: s(unit),
            ..Default::default()
        }
    }

    fn sample(ids: &[u64], v: [i64; 2], label: Vec<Label>) -> Sample {
        Sample {
            location_id: ids.to_vec(),
            value: v.to_vec(),
            label,
        }
    }

    /// Four samples: string and numeric labels (with and without a unit), and none.
    fn samples() -> Vec<Sample> {
        vec![
            sample(
                &[1, 2],
                [3, 300],
                vec![
                    str_label("thread", "worker"),
                    num_label("bytes", 1024, "bytes"),
                ],
            ),
            sample(&[3, 1, 2], [1, 64], vec![num_label("request", 5, "")]),
            sample(&[4, 2], [2, 0], vec![num_label("size", 7, "kilobytes")]),
            sample(&[2], [1, 10], vec![]),
        ]
    }

    /// The program with every has_* flag and build id, and a library with a file offset.
    fn mappings() -> Vec<Mapping> {
        vec![
            Mapping {
                id: 1,
                memory_start: 0x1000,
                memory_limit: 0x3000,
                filename: s("/usr/bin/app"),
                build_id: s("abc123"),
                has_functions: true,
                has_filenames: true,
                has_line_numbers: true,
                has_inline_frames: true,
                ..Default::default()
            },
            Mapping {
                id: 2,
                memory_start: 0x3000,
                memory_limit: 0x5000,
                file_offset: 0x100,
                filename: s("libc.so.6"),
                ..Default::default()
            },
        ]
    }

    fn line(f: u64, line: i64, column: i64) -> Line {
        Line {
            function_id: f,
            line,
            column,
        }
    }

    /// Locations: one with an inline frame, a plain one, a folded one, an address-only one.
    fn locations() -> Vec<Location> {
        vec![
            Location {
                id: 1,
                mapping_id: 1,
                address: 0x1010,
                line: vec![line(3, 5, 3), line(2, 20, 7)],
                is_folded: false,
            },
            Location {
                id: 2,
                mapping_id: 1,
                address: 0x2020,
                line: vec![line(1, 12, 1)],
                is_folded: false,
            },
            Location {
                id: 3,
                mapping_id: 2,
                address: 0x3030,
                line: vec![line(4, 0, 0)],
                is_folded: true,
            },
            Location {
                id: 4,
                mapping_id: 2,
                address: 0x4040,
                line: vec![],
                is_folded: false,
            },
        ]
    }

    fn func(id: u64, name: &str, file: &str, start: i64) -> Function {
        Function {
            id,
            name: s(name),
            system_name: s(if name == "main" { "_main" } else { name }),
            filename: s(file),
            start_line: start,
        }
    }

    /// Functions: `main` has a different system name; `memcpy` has no file or start line.
    fn functions() -> Vec<Function> {
        vec![
            func(1, "main", "main.c", 10),
            func(2, "work", "main.c", 18),
            func(3, "helper", "main.c", 4),
            func(4, "memcpy", "", 0),
        ]
    }
}

fn fields_fixture() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pprof/fields.pb.gz")
}

#[test]
#[ignore = "writes tests/fixtures/pprof/fields.pb.gz; run by hand after changing it"]
fn write_fields_fixture() {
    std::fs::write(fields_fixture(), fields_pb::profile()).unwrap();
}

#[test]
fn fields_fixture_matches_its_generator_and_keeps_every_field() {
    assert_eq!(
        std::fs::read(fields_fixture()).unwrap(),
        fields_pb::profile()
    );
    let p = read_pprof(&fields_fixture());
    let meta: Vec<(&str, &str)> = p
        .meta
        .key
        .iter()
        .zip(&p.meta.value)
        .map(|(&k, &v)| (p.str(k), p.str(v)))
        .collect();
    for want in [
        (pprof::META_COMMENT, "first comment"),
        (pprof::META_COMMENT, "second comment"),
        (pprof::META_DOC_URL, "https://example.com/doc"),
        (pprof::META_KEEP_FRAMES, "work"),
        (pprof::META_DROP_FRAMES, "memcpy"),
        (pprof::META_DEFAULT_TYPE, "alloc"),
        (pprof::META_PERIOD_TYPE, "alloc"),
        (pprof::META_DURATION_NANOS, "2500000000"),
    ] {
        assert!(meta.contains(&want), "{want:?} not in {meta:?}");
    }
    assert_eq!(
        p.locations.ext.int(pprof::LOC_COLUMN).unwrap(),
        &[3, 7, 1, i32::MIN, i32::MIN]
    );
    assert_eq!(
        p.locations.ext.lgl(pprof::LOC_IS_FOLDED).unwrap(),
        &[
            Some(false),
            Some(false),
            Some(false),
            Some(true),
            Some(false)
        ]
    );
    let labels = p.ext_table(pprof::LABELS_TABLE).unwrap();
    let units: Vec<&str> = labels
        .columns
        .chr("num_unit")
        .unwrap()
        .iter()
        .map(|&u| p.str(u))
        .collect();
    assert_eq!(units, ["", "bytes", "", "kilobytes"]);
    // And everything comes back from a write.
    let again = pprof::read(&write(&p), &ReadOptions::default())
        .unwrap()
        .profile;
    assert_eq!(summary(&p), summary(&again));
}
