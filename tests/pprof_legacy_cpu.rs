//! pprof's legacy binary CPU profile (`pprof-legacy-cpu`), judged by `go tool pprof`.
//!
//! * google/pprof's own test files (tests/fixtures/pprof-legacy-cpu) read to a golden summary.
//! * proftab's reading written as pprof gives the same `go tool pprof -raw`, `-traces` and
//!   `-top -addresses` reports as the original file read by `go tool pprof`.
//! * proftab's function table (one row per unsymbolized address) equals `go tool pprof -top
//!   -addresses` per address, flat and cum; for Java (named frames) `go tool pprof -top`.
//! * Word sizes and byte orders, pprof's clean-ups (signal handler frame, duplicated leaf) on
//!   a profile built here; invalid inputs (tests/fixtures/invalid/pprof-legacy-cpu).
//!
//! Tests that need Go print `SKIP:` on stderr when `go` is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::PathBuf;

use proftab::analysis::functions::function_table;
use proftab::formats::pprof::{LOC_MAPPING_ID, MAPPINGS_TABLE};
use proftab::formats::{self, pprof_text::legacy_cpu, Format, ReadOptions};
use support::corpus::{file_name, files_in, fixture};
use support::go::{comparable, first_difference, go_top, parse_top, GoPprof};
use support::golden;
use support::json::{sample_lines, totals};
use support::profile::{assert_valid, read_path};
use support::reliability::assert_tables_json_round_trip;
use support::text::{
    assert_matches_go_top, assert_other_formats_not_claimed, check_invalid_fixtures,
    truncation_sweep,
};

fn fixtures() -> Vec<PathBuf> {
    let v: Vec<PathBuf> = files_in(&fixture("pprof-legacy-cpu"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "cpu"))
        .collect();
    assert_eq!(v.len(), 3, "fixtures missing: {v:?}");
    v
}

#[test]
fn golden_readings() {
    for path in fixtures() {
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(formats::detect(&bytes), Some(Format::PprofLegacyCpu));
        let parsed = read_path(Format::PprofLegacyCpu, &path);
        let p = &parsed.profile;
        assert_valid(p, &file_name(&path));
        assert_tables_json_round_trip(p, &file_name(&path));
        let mut out = String::new();
        for w in &parsed.warnings {
            out.push_str(&format!("warning: {w}\n"));
        }
        for key in ["pprof.period_type", "pprof.period_unit", "pprof.period"] {
            out.push_str(&format!("{key}: {:?}\n", p.meta_value(key)));
        }
        out.push_str(&format!("totals: {}\n", totals(p).join(" ")));
        out.push_str(&format!(
            "samples: {}, locations: {}\n",
            p.num_samples(),
            p.locations.line.len()
        ));
        for line in sample_lines(p).iter().take(20) {
            out.push_str(line);
            out.push('\n');
        }
        golden::check(&path.with_extension("expected"), &out);
    }
}

/// Reports of `go tool pprof` on the original and on proftab's pprof are equal.
#[test]
fn go_tool_pprof_reports_equal_after_conversion() {
    let Some(go) = GoPprof::find() else { return };
    for path in fixtures() {
        let p = read_path(Format::PprofLegacyCpu, &path).profile;
        let converted = go.write_profile(&p, &format!("{}.pb.gz", file_name(&path)));
        for args in [
            &["-raw"][..],
            &["-traces"],
            &[
                "-top",
                "-addresses",
                "-nodecount=1000000",
                "-sample_index=samples",
            ],
            &[
                "-top",
                "-addresses",
                "-nodecount=1000000",
                "-sample_index=cpu",
            ],
        ] {
            let want = comparable(&go.run(args, &path).unwrap());
            let got = comparable(&go.run(args, &converted).unwrap());
            assert!(
                want == got,
                "{}: {args:?}\n{}",
                path.display(),
                first_difference(&want, &got)
            );
        }
    }
}

/// proftab's table per address equals `go tool pprof -top -addresses` of the original file
/// (per function for Java, whose frames are named).
#[test]
fn proftab_top_equals_go_tool_pprof_top() {
    let Some(go) = GoPprof::find() else { return };
    for path in fixtures() {
        if file_name(&path) == "java.cpu" {
            let p = read_path(Format::PprofLegacyCpu, &path).profile;
            let rows = go_top(&path, "cpu", "nanoseconds").unwrap();
            assert!(rows.len() > 5, "{rows:?}");
            assert_matches_go_top(&p, "cpu", &rows, "java.cpu");
            continue;
        }
        let p = read_path(Format::PprofLegacyCpu, &path).profile;
        let args = [
            "-top",
            "-addresses",
            "-nodecount=1000000",
            "-nodefraction=0",
            "-edgefraction=0",
            "-sample_index=cpu",
            "-unit=ns",
        ];
        let (total, rows) = parse_top(&go.run(&args, &path).unwrap());
        let vt = p.value_type_index("cpu").unwrap();
        let table = function_table(&p, vt, None);
        assert_eq!(p.values[vt.idx()].total(), total, "{}", path.display());
        assert!(rows.len() > 10, "{}: {rows:?}", path.display());
        for row in &rows {
            // `000000000042ed43 [cppbench_server_main]`
            let hex = row.name.split_whitespace().next().unwrap();
            let name = format!("{:#x}", u64::from_str_radix(hex, 16).unwrap());
            let mine = table
                .rows
                .iter()
                .find(|r| r.name == name)
                .unwrap_or_else(|| panic!("{}: no row {name}", path.display()));
            assert_eq!(
                (mine.self_value, mine.total_value),
                (row.flat, row.cum),
                "{name}"
            );
        }
        assert_eq!(table.rows.len(), rows.len(), "{}", path.display());
    }
}

/// A profile of `words` (native words of `size` bytes, `big` endian) and a memory map.
fn encode(words: &[u64], size: usize, big: bool, map: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for &w in words {
        let bytes = if big {
            w.to_be_bytes()
        } else {
            w.to_le_bytes()
        };
        let bytes = if big {
            &bytes[8 - size..]
        } else {
            &bytes[..size]
        };
        out.extend_from_slice(bytes);
    }
    out.extend_from_slice(map.as_bytes());
    out
}

/// Every layout; the handler frame (0x500 under all samples) and a duplicated leaf removed;
/// addresses but the leaf minus one; values count and count × period; mappings attached.
#[test]
fn layouts_and_clean_ups() {
    let words = [
        0, 3, 0, 2500, 0, // header, 2.5 ms
        4, 3, 0x1010, 0x501, 0x2001, // 4 × leaf 0x1010, caller 0x2000
        1, 3, 0x1020, 0x501, 0x1020, // leaf 0x1020 duplicated below (0x1020 - 1 + 1)
        2, 2, 0x3000, 0x501, // handler frame removed: a stack of one
        0, 1, 0,
    ];
    let map = "00001000-00004000 r-xp 00000000 08:01 42 /usr/bin/app\n";
    for (size, big) in [(4, false), (4, true), (8, false), (8, true)] {
        let bytes = encode(&words, size, big, map);
        assert_eq!(formats::detect(&bytes), Some(Format::PprofLegacyCpu));
        let parsed = legacy_cpu::read(&bytes, &ReadOptions::default()).unwrap();
        let p = &parsed.profile;
        assert_valid(p, "built");
        assert_eq!(
            sample_lines(p),
            [
                "src0 ?@:0#2000;?@:0#1010 [samples=4,cpu=10000000] t=",
                "src0 ?@:0#1020 [samples=1,cpu=2500000] t=",
                "src0 ?@:0#3000 [samples=2,cpu=5000000] t=",
            ],
            "{size} {big}"
        );
        let warnings: Vec<String> = parsed.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("0x500"), "{warnings:?}");
        assert!(
            warnings[1].contains("1 samples repeat their leaf"),
            "{warnings:?}"
        );
        let mapping = p.locations.ext.cell(LOC_MAPPING_ID, 0);
        assert_eq!(format!("{mapping:?}"), "Some(U64(Some(1)))");
    }
}

/// The `$name` substitutions of a memory map cost each line its length, not its length times
/// the number of names: 20,000 definitions and a line of 200,000 `$` (4 * 10^9 comparisons
/// when every name was tried at every `$`) read, and a mapping line written with names
/// defined after them gets its substitutions.
#[test]
fn many_substitutions_on_a_long_line() {
    let words = [0, 3, 0, 2500, 0, 4, 2, 0x1010, 0x2001, 0, 1, 0];
    let mut map = String::new();
    for i in 0..20_000 {
        map.push_str(&format!("k{i}=v{i}\n"));
    }
    map.push_str(&"$".repeat(200_000));
    map.push_str("\nlo=00001000\nhi=00004000\napp=/usr/bin/app\n$lo-$hi: $app\n");
    let bytes = encode(&words, 4, false, &map);
    let parsed = legacy_cpu::read(&bytes, &ReadOptions::default()).unwrap();
    let p = &parsed.profile;
    assert_valid(p, "substitutions");
    let mapping = p.locations.ext.cell(LOC_MAPPING_ID, 0);
    assert_eq!(format!("{mapping:?}"), "Some(U64(Some(1)))");
    let files = p
        .ext_table(MAPPINGS_TABLE)
        .unwrap()
        .columns
        .chr("filename")
        .unwrap();
    assert_eq!(p.str(files[0]), "/usr/bin/app");
}

#[test]
fn invalid_inputs() {
    assert_eq!(
        check_invalid_fixtures(Format::PprofLegacyCpu, "pprof-legacy-cpu"),
        4
    );
}

#[test]
fn detection_claims_no_other_format() {
    assert_other_formats_not_claimed(legacy_cpu::detect, "", &["pprof-text"]);
    for path in fixtures() {
        truncation_sweep(Format::PprofLegacyCpu, &std::fs::read(path).unwrap());
    }
}
