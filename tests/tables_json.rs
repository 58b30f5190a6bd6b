//! tables-JSON: detection, round trips v2 → JSON → v2, deterministic bytes, v1 documents,
//! limits, invalid documents (tests/fixtures/invalid/tables-json) and R interoperability.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use proftab::formats::tables_json::{
    self, detect, parse_document, read, write, write_document, write_v1,
};
use proftab::formats::{self, Format, Limits, ReadOptions, WriteOptions};
use proftab::model::{
    profile_from_tables, tables_from_profile, v2_from_v1, Cell, ColumnKind, FunctionKey, Profile,
    ProfileBuilder, StringId, Values, INT_NA,
};
use support::tables::*;

/// A profile with every kind of cell: NA everywhere the model allows it, text that needs
/// escaping, doubles that only round-trip with 17 digits, u64 beyond 2^53, a value type without
/// any row, partial value presence, extension columns and an extension table.
fn rich_profile() -> Profile {
    let mut b = ProfileBuilder::new();
    b.set_meta("pprof.period", "10000000");
    b.add_meta(
        "pprof.profile.comment",
        "line 1\n\"quoted\" \\ tab\t é 🦀 \u{1}",
    );
    b.add_meta("pprof.profile.comment", "second");
    let s1 = b.add_source("pprof", Some("cpu.pb.gz"), Some(1_700_000_000.25));
    let s2 = b.add_source("rprof", None, None);
    let host = b.intern("host-a");
    b.sources_mut()
        .ext
        .set(".host", 0, Cell::Chr(host))
        .unwrap();
    b.sources_mut().ext.pad_to(2);
    let samples = b.value_type("samples", "count");
    let cpu = b.value_type("cpu", "nanoseconds");
    let _alloc = b.value_type("alloc_space", "bytes");
    let main = b.function_named("main", Some("main.c"));
    let name = b.intern("<anon> \"x\"");
    let anon = b.add_function(FunctionKey {
        name,
        system_name: name,
        filename: StringId::NA,
        start_line: INT_NA,
    });
    b.functions_mut()
        .ext
        .set(".inline", 1, Cell::Lgl(Some(true)))
        .unwrap();
    let l1 = b.location(Some(main), 12);
    let l2 = b.location(Some(anon), INT_NA);
    let l3 = b.add_location(None, 0);
    b.set_location_ext(l1, ".address", Cell::U64(Some(0xffff_ffff_8100_0000)));
    b.set_location_ext(l2, ".address", Cell::U64(Some(4096)));
    let native = b.intern("native");
    b.set_location_ext(l3, ".frame_type", Cell::Chr(native));
    let deep = b.stack_leaf_first(&[l3, l2, l1]);
    let shallow = b.stack_leaf_first(&[l1]);
    let times = [-0.0, 0.1, 1.0 / 3.0, 1e-300, f64::NAN];
    let stacks = [deep, shallow, None, deep, shallow];
    for (i, (&t, &stack)) in times.iter().zip(&stacks).enumerate() {
        let src = if i == 2 { s2 } else { s1 };
        let s = b.add_sample_with_values(src, stack, &[(samples, 1.0)]);
        if i != 1 {
            let v = if i == 4 {
                f64::NAN
            } else {
                1e7 * (i as f64 + 0.5)
            };
            b.set_value(s, cpu, v);
        }
        b.set_sample_ext(s, ".time", Cell::Dbl(t));
    }
    let t = b.ext_table("mappings");
    let file = StringId::NA;
    t.push_row(&[
        ("mapping_id", Cell::Int(1)),
        ("start", Cell::U64(Some(u64::MAX))),
        ("file", Cell::Chr(file)),
        ("has_functions", Cell::Lgl(None)),
    ])
    .unwrap();
    b.build().unwrap()
}

fn opts() -> ReadOptions {
    ReadOptions::default()
}

fn write_bytes(p: &Profile) -> Vec<u8> {
    write(p, &WriteOptions::default()).unwrap().bytes
}

#[test]
fn the_rich_profile_is_valid() {
    assert_eq!(texts(&rich_profile().validate()), Vec::<String>::new());
}

#[test]
fn round_trip_v2_json_v2_keeps_the_tables() {
    let p = rich_profile();
    let bytes = write_bytes(&p);
    let parsed = read(&bytes, &opts()).unwrap();
    assert_eq!(parsed.format, Format::TablesJson);
    assert_eq!(parsed.warnings, vec![]);
    assert_eq!(
        tables_from_profile(&parsed.profile),
        tables_from_profile(&p)
    );
    assert_eq!(write_bytes(&parsed.profile), bytes, "second write differs");
    assert_eq!(texts(&parsed.profile.validate()), Vec::<String>::new());
}

#[test]
fn writing_twice_gives_identical_bytes() {
    let p = rich_profile();
    assert_eq!(write_bytes(&p), write_bytes(&p));
    assert_eq!(write_bytes(&p), write_bytes(&p.clone()));
}

#[test]
fn the_streaming_writer_writes_the_logical_tables() {
    let p = rich_profile();
    assert_eq!(write_bytes(&p), write_document(&tables_from_profile(&p)));
}

#[test]
fn column_types_restore_exact_types() {
    let p = read(&write_bytes(&rich_profile()), &opts())
        .unwrap()
        .profile;
    let address = p.locations.ext.u64(".address").unwrap();
    assert_eq!(address, [Some(0xffff_ffff_8100_0000), Some(4096), None]);
    assert_eq!(p.functions.ext.lgl(".inline").unwrap(), [None, Some(true)]);
    let mappings = p.ext_table("mappings").unwrap();
    assert_eq!(mappings.columns.u64("start").unwrap(), [Some(u64::MAX)]);
    assert_eq!(
        mappings.columns.get("has_functions").unwrap().kind(),
        ColumnKind::Lgl
    );
    let time = p.samples.ext.dbl(".time").unwrap();
    assert_eq!(time[2], 1.0 / 3.0);
    assert!(time[0] == 0.0 && time[0].is_sign_negative());
    assert!(time[4].is_nan());
    let cpu = p.value_column(p.value_type_index("cpu").unwrap()).unwrap();
    assert_eq!(cpu.get(1), None, "absent value stays absent");
    assert!(cpu.get(4).unwrap().is_nan(), "NA value stays present");
    let alloc = p.value_type_index("alloc_space").unwrap();
    assert_eq!(p.value_type_names(alloc), ("alloc_space", "bytes"));
}

#[test]
fn doubles_and_text_are_written_as_json() {
    let text = String::from_utf8(write_bytes(&rich_profile())).unwrap();
    assert!(
        text.contains(
            r#""value":["2.0","10000000","line 1\n\"quoted\" \\ tab\t é 🦀 \u0001","second"]"#
        ),
        "{text}"
    );
    assert!(
        text.contains(r#"".time":[-0.0,0.1,0.3333333333333333,1e-300,null]"#),
        "{text}"
    );
    assert!(
        text.contains(r#"".address":[18446744071578845184,4096,null]"#),
        "{text}"
    );
    let v: serde_json::Value = serde_json::from_slice(text.as_bytes()).unwrap();
    assert!(v.is_object());
}

#[test]
fn arbitrary_ids_are_mapped_to_rows() {
    let p = profile_from_tables(&valid_v2()).unwrap();
    let t = tables_from_profile(&p);
    assert_eq!(
        t.table("locations").unwrap().column("function_id"),
        Some(&int_na(&[Some(1), Some(2), None]))
    );
    assert_eq!(
        t.table("samples").unwrap().column("source_id"),
        Some(&int(&[1, 1, 2]))
    );
    let again = read(&write_document(&valid_v2()), &opts()).unwrap().profile;
    assert_eq!(tables_from_profile(&again), t);
}

#[test]
fn well_known_extension_columns_get_their_type_without_column_types() {
    let mut t = valid_v2();
    set(&mut t, "samples", ".time", int(&[0, 1, 2]));
    set(&mut t, "locations", ".address", int(&[4096, 8192, 0]));
    set(&mut t, "locations", ".count", int(&[1, 2, 3]));
    let p = read(&write_document(&t), &opts()).unwrap().profile;
    assert_eq!(p.samples.ext.dbl(".time").unwrap(), [0.0, 1.0, 2.0]);
    assert_eq!(
        p.locations.ext.u64(".address").unwrap(),
        [Some(4096), Some(8192), Some(0)]
    );
    assert_eq!(p.locations.ext.int(".count").unwrap(), [1, 2, 3]);
}

// Detection.

#[test]
fn detect_accepts_tables_documents() {
    assert!(detect(&write_bytes(&rich_profile())));
    assert!(detect(&write_document(&valid_v1())));
    assert!(detect(
        b"\xef\xbb\xbf { \"functions\" : { \"function_id\": [] } }"
    ));
    assert_eq!(
        formats::detect(&write_document(&valid_v2())),
        Some(Format::TablesJson)
    );
}

#[test]
fn detect_rejects_other_json() {
    for other in [
        &br#"{"meta":{"interval":1,"version":24},"threads":[]}"#[..],
        br#"{"$schema":"https://www.speedscope.app/file-format-schema.json"}"#,
        br#"{"nodes":[],"startTime":0}"#,
        b"[]",
        b"",
        b"{",
        br#"{"meta":[]}"#,
    ] {
        assert!(!detect(other), "{}", String::from_utf8_lossy(other));
    }
}

// Parsing and column typing.

#[test]
fn columns_are_typed_by_content() {
    let doc = br#"{"t":{"i":[1,null,-2],"d":[1,2.5],"u":[1,18446744073709551615],
        "w":[3000000000,-1],"s":["a",null],"b":[true,null],"n":[null,null],"e":[],
        "l":[{"location_id":[1,2]},null]}}"#;
    let t = parse_document(doc).unwrap();
    let t = t.table("t").unwrap();
    assert_eq!(t.column("i"), Some(&int_na(&[Some(1), None, Some(-2)])));
    assert_eq!(t.column("d"), Some(&dbl(&[1.0, 2.5])));
    assert_eq!(
        t.column("u"),
        Some(&Values::U64(vec![Some(1), Some(u64::MAX)]))
    );
    assert_eq!(t.column("w"), Some(&dbl(&[3e9, -1.0])));
    assert_eq!(t.column("s"), Some(&chr_na(&[Some("a"), None])));
    assert_eq!(t.column("b"), Some(&Values::Lgl(vec![Some(true), None])));
    assert_eq!(t.column("n"), Some(&Values::Lgl(vec![None, None])));
    assert_eq!(t.column("e"), Some(&Values::Lgl(vec![])));
    assert_eq!(
        t.column("l"),
        Some(&Values::List(vec![
            Some(table(vec![("location_id", int(&[1, 2]))])),
            None
        ]))
    );
}

// v1 documents.

const V1_DOC: &str = r#"{"meta":{"key":["version"],"value":["1.0"]},
"sample_types":{"type":["samples"],"unit":["count"]},
"samples":{"value":[2,1],"locations":[{"location_id":[1,2]},{"location_id":[2]}],".time":[0.5,1.5]},
"locations":{"location_id":[1,2],"function_id":[1,null],"line":[10,0]},
"functions":{"function_id":[1],"name":["f"],"system_name":["f"],"filename":["a.R"],"start_line":[0]},
".rprof":{"traces":["\"f\" "],"files":[],"memory":null}}"#;

#[test]
fn a_v1_document_reads_as_v2() {
    let options = ReadOptions {
        source_uri: Some("old.json".into()),
        ..ReadOptions::default()
    };
    let parsed = read(V1_DOC.as_bytes(), &options).unwrap();
    let p = &parsed.profile;
    assert_eq!(p.num_samples(), 3);
    assert_eq!(p.meta_value("version"), Some("2.0"));
    let t = tables_from_profile(p);
    let sources = t.table("sources").unwrap();
    assert_eq!(sources.column("source_type"), Some(&chr(&["rprof"])));
    assert_eq!(sources.column("source_uri"), Some(&chr(&["old.json"])));
    assert_eq!(
        t.table("sample_locations").unwrap().column("location_id"),
        Some(&int(&[1, 2, 1, 2, 2]))
    );
    assert_eq!(
        t.table("samples").unwrap().column(".time"),
        Some(&dbl(&[0.5, 0.5, 1.5]))
    );
    let warnings: Vec<String> = parsed.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "tables-json: component .rprof is not a table of columns; only its name was kept",
            "tables-json: not kept (no place in the profile model): .rprof",
        ]
    );
    // The same as the materialized conversion, but for the source_uri the reader fills in.
    let doc = parse_document(V1_DOC.as_bytes()).unwrap();
    let mut via = tables_from_profile(&profile_from_tables(&v2_from_v1(&doc).unwrap()).unwrap());
    set(&mut via, "sources", "source_uri", chr(&["old.json"]));
    assert_eq!(t, via);
}

#[test]
fn write_v1_then_read_gives_the_counts_back() {
    let p = rich_profile();
    let written = write_v1(&p, &WriteOptions::default()).unwrap();
    let warnings: Vec<String> = written.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            "tables-json-v1: not written: 3 meta rows besides version",
            "tables-json-v1: not written: the sources table (2 rows)",
            "tables-json-v1: not written: value type cpu/nanoseconds",
            "tables-json-v1: not written: value type alloc_space/bytes",
            "tables-json-v1: not written: NA start_line of 1 functions (written as 0, v1's unknown)",
            "tables-json-v1: not written: samples..time",
            "tables-json-v1: not written: extension table mappings",
            "tables-json-v1: not written: the identity and order of single samples (v1 aggregates stacks)",
        ]
    );
    let doc = parse_document(&written.bytes).unwrap();
    assert_eq!(
        texts(&proftab::model::validate_v1(&doc)),
        Vec::<String>::new()
    );
    // Stacks deep, shallow, none, deep, shallow → values 2, 2, 1 in order of first appearance.
    assert_eq!(
        doc.table("samples").unwrap().column("value"),
        Some(&int(&[2, 2, 1]))
    );
    let back = read(&written.bytes, &opts()).unwrap().profile;
    assert_eq!(back.num_samples(), p.num_samples());
    assert_eq!(back.sample_location_rows(), p.sample_location_rows());
    assert_eq!(
        formats::write_as(Format::TablesJsonV1, &p, &WriteOptions::default())
            .unwrap()
            .bytes,
        written.bytes
    );
}

// Limits.

fn limited(max_samples: usize, max_stack_depth: usize) -> ReadOptions {
    ReadOptions {
        limits: Limits {
            max_samples,
            max_stack_depth,
            ..Limits::default()
        },
        ..ReadOptions::default()
    }
}

#[test]
fn limits_are_enforced() {
    let bytes = write_bytes(&rich_profile());
    let error = |bytes: &[u8], options| read(bytes, &options).unwrap_err().to_string();
    assert_eq!(
        error(&bytes, limited(4, 100)),
        "tables-json: samples: 5 samples, more than the limit of 4"
    );
    assert_eq!(
        error(&bytes, limited(100, 2)),
        "tables-json: sample_locations.depth: a stack of 3 frames, more than the limit of 2"
    );
    assert_eq!(
        error(V1_DOC.as_bytes(), limited(2, 100)),
        "tables-json: the document breaks 1 rule of the v1 tables:\n  samples.value: expanding gives 3 samples, more than the limit of 2"
    );
}

// Invalid documents: each tests/fixtures/invalid/tables-json/NAME.json has the expected error
// in NAME.expected.

fn fixtures() -> PathBuf {
    support::corpus::fixture("invalid/tables-json")
}

#[test]
fn invalid_documents_give_their_errors() {
    let cases = support::golden::check_cases(&fixtures(), support::golden::check, |path, bytes| {
        let err = read(bytes, &opts()).expect_err(&path.display().to_string());
        format!("{err}\n")
    });
    assert!(cases >= 10, "only {cases} invalid fixtures");
}

#[test]
fn truncated_documents_never_panic() {
    let bytes = write_bytes(&rich_profile());
    for cut in 0..bytes.len() {
        let prefix = bytes.get(..cut).unwrap();
        if let Ok(parsed) = read(prefix, &opts()) {
            assert_eq!(texts(&parsed.profile.validate()), Vec::<String>::new());
        }
    }
}

// R interoperability (skipped when R or jsonlite is missing).

fn rscript(code: &str) -> Option<String> {
    let out = Command::new("Rscript").arg("-e").arg(code).output().ok()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("there is no package called") {
            return None;
        }
        panic!("Rscript failed: {err}");
    }
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn r_available() -> bool {
    let ok = rscript("library(jsonlite); cat('ok')").is_some_and(|s| s == "ok");
    if !ok {
        eprintln!("SKIP: Rscript with jsonlite is not available");
    }
    ok
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-tables-json");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn r_reads_what_proftab_writes() {
    if !r_available() {
        return;
    }
    let path = temp_file("rich.json", &write_bytes(&rich_profile()));
    let code = format!(
        r#"library(jsonlite); x <- fromJSON("{}");
        for (t in names(x)) cat(t, nrow(as.data.frame(x[[t]])), paste(names(x[[t]]), sapply(x[[t]], typeof), sep = ":"), "\n");
        cat("time", identical(x$samples$.time[2:4], c(0.1, 1/3, 1e-300)), 1/x$samples$.time[1], is.na(x$samples$.time[5]), "\n");
        cat("comment", x$meta$value[3] == paste0("line 1\n\"quoted\" \\ tab\t \u00e9 \U0001F980 ", intToUtf8(1)), "\n")"#,
        path.display()
    );
    let out = rscript(&code).unwrap();
    let want = [
        "meta 4 key:character value:character ",
        "sources 2 source_id:integer source_type:character source_uri:character source_timestamp:double .host:character ",
        "samples 5 sample_id:integer source_id:integer .time:double ",
        "sample_values 9 sample_id:integer type:character unit:character value:double ",
        "sample_locations 8 sample_id:integer depth:integer location_id:integer ",
        "locations 3 location_id:integer function_id:integer line:integer .address:double .frame_type:character ",
        "functions 2 function_id:integer name:character system_name:character filename:character start_line:integer .inline:logical ",
        "mappings 1 mapping_id:integer start:double file:logical has_functions:logical ",
        "column_types 9 table:character column:character type:character ",
        "value_types 3 type:character unit:character ",
        "time TRUE -Inf TRUE ",
        "comment TRUE ",
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), want);
}

#[test]
fn proftab_reads_what_r_writes() {
    if !r_available() {
        return;
    }
    let code = r#"library(jsonlite);
    x <- list(
      meta = data.frame(key = c("version", "pprof.period"), value = c("2.0", "10")),
      sources = data.frame(source_id = c(10L, 20L), source_type = c("rprof", "pprof"),
                           source_uri = c("a.out", NA), source_timestamp = c(1.5e9, NA)),
      samples = data.frame(sample_id = 1:3, source_id = c(10L, 10L, 20L)),
      sample_values = data.frame(sample_id = c(1L, 2L, 3L, 1L), type = c("samples", "samples", "samples", "time"),
                                 unit = c("count", "count", "count", "nanoseconds"), value = c(1, 1, 2, 20000)),
      sample_locations = data.frame(sample_id = c(1L, 1L, 2L, 3L, 3L, 3L), depth = c(1L, 2L, 1L, 1L, 2L, 3L),
                                    location_id = c(5L, 6L, 6L, 5L, 6L, 7L)),
      locations = data.frame(location_id = 5:7, function_id = c(100L, 101L, NA), line = c(3L, 0L, NA)),
      functions = data.frame(function_id = 100:101, name = c("f", "g"), system_name = c("f", "g"),
                             filename = c("a.R", ""), start_line = c(1L, NA)))
    cat(toJSON(x, dataframe = "columns", na = "null", digits = NA))"#;
    let json = rscript(code).unwrap();
    let from_r = read(json.as_bytes(), &opts()).unwrap().profile;
    let ours = profile_from_tables(&valid_v2()).unwrap();
    assert_eq!(tables_from_profile(&from_r), tables_from_profile(&ours));

    let code = r#"library(jsonlite);
    s <- data.frame(value = c(2L, 1L));
    s$locations <- list(data.frame(location_id = c(1L, 2L)), data.frame(location_id = 2L));
    x <- list(meta = data.frame(key = "version", value = "1.0"),
              sample_types = data.frame(type = "samples", unit = "count"), samples = s,
              locations = data.frame(location_id = 1:2, function_id = c(1L, NA), line = c(10L, 0L)),
              functions = data.frame(function_id = 1L, name = "f", system_name = "f", filename = "a.R", start_line = 0L))
    cat(toJSON(x, dataframe = "columns", na = "null", digits = NA))"#;
    let json = rscript(code).unwrap();
    assert_eq!(parse_document(json.as_bytes()).unwrap(), valid_v1());
    assert_eq!(
        read(json.as_bytes(), &opts())
            .unwrap()
            .profile
            .num_samples(),
        3
    );
}

/// The writer on a large profile (1M samples of depth 50): run with
/// `cargo test --release --test tables_json -- --ignored --nocapture`.
#[test]
#[ignore = "large; run in release"]
fn large_profile_write_and_read() {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("manual", None, None);
    let vt = b.value_type("samples", "count");
    let locs: Vec<_> = (0..200)
        .map(|i| {
            let f = b.function_named(&format!("f{i}"), Some("x.c"));
            b.location(Some(f), i)
        })
        .collect();
    let mut frames = Vec::with_capacity(50);
    for s in 0..1_000_000usize {
        frames.clear();
        frames.extend((0..50).map(|d| locs[(s * 7 + d * 13) % 200]));
        let stack = b.stack_leaf_first(&frames);
        b.add_sample_with_values(src, stack, &[(vt, 1.0)]);
    }
    let p = b.build().unwrap();
    let start = std::time::Instant::now();
    let bytes = write_bytes(&p);
    let wrote = start.elapsed();
    let start = std::time::Instant::now();
    let back = read(&bytes, &opts()).unwrap().profile;
    let read_time = start.elapsed();
    eprintln!(
        "1M samples x 50 frames: {} MB written in {wrote:?}, read in {read_time:?}",
        bytes.len() / 1_000_000
    );
    assert_eq!(back.num_samples(), 1_000_000);
    assert_eq!(back.sample_location_rows(), 50_000_000);
    let _ = tables_json::FORMAT;
}
