//! Linux `perf.data` (`perf-data`), judged by `perf report` on the same recordings.
//!
//! * Every file of the shared corpus-new `perf-data/` folder (file and pipe mode, zstd
//!   compressed records, i686, LBR, DWARF) reads without error, validates, keeps its totals
//!   through tables-JSON and its function tables add up; the sample counts equal those perf
//!   (or the projects' own readers) report.
//! * The fixtures recorded here (tests/fixtures/perf-data, `record.sh` there): golden
//!   descriptions, totals per event equal to `perf report`'s `# Samples:` lines, and the
//!   mappings' build-ids equal to `perf buildid-list`'s (file mode and pipe mode).
//! * perf-data → pprof → `go tool pprof -top` equals proftab's function table (SKIP without Go).
//! * Invalid inputs (tests/fixtures/invalid/perf-data) give their exact messages; no other
//!   format's corpus is claimed; cut inputs never panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proftab::analysis::functions::function_table;
use proftab::formats::{self, perf_data, Format, ReadOptions};
use proftab::model::{ext, Cell, SampleIndex};
use support::cli::run_json;
use support::corpus::{corpus_new, file_name, files_in, fixture, scratch_dir};
use support::go::go_top;
use support::importers::assert_only_detector;
use support::perf_report::{self, report_rows};
use support::profile::{assert_valid, read_path};
use support::reliability::{assert_function_tables, assert_tables_json_round_trip};
use support::text::{
    assert_detected, assert_matches_go_top, assert_other_formats_not_claimed,
    assert_pprof_keeps_top, check_invalid_fixtures, total, truncation_sweep,
};

/// The perf.data fixtures recorded with `record.sh`.
fn fixtures() -> Vec<PathBuf> {
    files_in(&fixture("perf-data"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "data"))
        .collect()
}

/// `# Samples: N of event 'E'` lines of a `perf report` text: samples per event.
fn report_samples(text: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("# Samples: ") else {
            continue;
        };
        let n: f64 = rest.split_whitespace().next().unwrap().parse().unwrap();
        let event = rest.split('\'').nth(1).unwrap();
        out.insert(event.to_owned(), n);
    }
    out
}

/// A readable description of what the reader kept.
fn describe(parsed: &formats::Parsed) -> String {
    let p = &parsed.profile;
    let mut out = String::new();
    writeln!(out, "samples: {}", p.num_samples()).unwrap();
    for c in &p.values {
        let (t, u) = (p.str(c.value_type), p.str(c.unit));
        writeln!(out, "type {t}/{u}: total {}", total(p, t)).unwrap();
    }
    for (table, cols) in [("sample", &p.samples.ext), ("location", &p.locations.ext)] {
        let names: Vec<&str> = cols.columns.iter().map(|c| c.name.as_str()).collect();
        writeln!(out, "{table} columns: {}", names.join(" ")).unwrap();
    }
    for key in [
        perf_data::META_EVENT,
        perf_data::META_VERSION,
        perf_data::META_ARCH,
    ] {
        let values: Vec<&str> = p.meta_values(key).collect();
        writeln!(out, "meta {key}: {}", values.join(" | ")).unwrap();
    }
    let mappings = p.ext_table(ext::tables::MAPPINGS).map_or(0, |t| t.len());
    writeln!(out, "mappings: {mappings}").unwrap();
    for w in &parsed.warnings {
        writeln!(out, "warning: {w}").unwrap();
    }
    let vt = p.default_value_type().unwrap();
    for row in function_table(p, vt, None).rows.iter().take(8) {
        writeln!(
            out,
            "function {}: self {} total {}",
            row.name, row.self_value, row.total_value
        )
        .unwrap();
    }
    writeln!(out, "first sample:").unwrap();
    for c in &p.samples.ext.columns {
        if c.name == ext::samples::TIME {
            continue;
        }
        let cell = match p.samples.ext.cell(&c.name, 0).unwrap() {
            Cell::Chr(id) => format!("{:?}", p.strings.get(id)),
            other => format!("{other:?}"),
        };
        writeln!(out, "  {} = {cell}", c.name).unwrap();
    }
    for loc in p.frames_leaf_first(p.sample_stack(SampleIndex(0))) {
        writeln!(out, "  frame {}", p.frame_display_name(loc)).unwrap();
    }
    out
}

#[test]
fn corpus_new_files_read_validate_and_keep_totals() {
    let files: Vec<PathBuf> = corpus_new("perf-data")
        .into_iter()
        .filter(|p| !file_name(p).ends_with(".txt") && !file_name(p).ends_with(".md"))
        .collect();
    for path in &files {
        let what = path.display().to_string();
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(formats::detect(&bytes), Some(Format::PerfData), "{what}");
        assert_only_detector(Format::PerfData, &bytes, &what);
        let parsed = formats::read_any(&bytes, &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_valid(&parsed.profile, &what);
        assert_tables_json_round_trip(&parsed.profile, &what);
        assert_function_tables(&parsed.profile, &what);
    }
}

/// Sample counts as perf 6.1's `perf report` (and, for the file perf 6.1 cannot open, the
/// linux-perf-data crate's own test) give them; PROVENANCE.md of corpus-new lists them.
#[test]
fn corpus_new_sample_counts_equal_the_tools() {
    for (name, samples) in [
        ("linux-perf-data-sleep.data", 7.0),
        ("linux-perf-data-sleep.compressed.pipe.data", 8.0),
        ("perf_data_converter-perf.data.i686-3.4", 703.0),
        ("perf_data_converter-perf.data.callgraph-3.8", 1768.0),
        ("perfparser-perf.data.zstd", 34.0),
        ("perfparser-perf.lbr.data", 29.0),
    ] {
        let Some(path) = corpus_new("perf-data")
            .into_iter()
            .find(|p| file_name(p) == name)
        else {
            continue;
        };
        let p = read_path(Format::PerfData, &path).profile;
        assert_eq!(total(&p, "samples"), samples, "{name}");
    }
}

#[test]
fn fixtures_match_golden_descriptions() {
    let files = fixtures();
    assert!(files.len() >= 3, "fixtures missing");
    for path in files {
        assert_detected(Format::PerfData, &path);
        let parsed = read_path(Format::PerfData, &path);
        assert_valid(&parsed.profile, &path.display().to_string());
        let golden = fixture("perf-data/golden").join(format!("{}.txt", file_name(&path)));
        support::golden::check(&golden, &describe(&parsed));
    }
}

#[test]
fn totals_per_event_equal_perf_report() {
    for path in fixtures() {
        let what = path.display().to_string();
        let report = path.with_extension("report.txt");
        let want = report_samples(&std::fs::read_to_string(&report).unwrap());
        let p = read_path(Format::PerfData, &path).profile;
        let mut got = BTreeMap::new();
        for s in 0..p.num_samples() {
            let Cell::Chr(id) = p.samples.ext.cell(ext::samples::EVENT, s).unwrap() else {
                panic!("{what}: no event column");
            };
            *got.entry(p.strings.get(id).unwrap().to_owned())
                .or_insert(0.0) += 1.0;
        }
        assert_eq!(got, want, "{what}: samples per event");
        assert_eq!(total(&p, "samples"), want.values().sum::<f64>(), "{what}");
    }
}

/// The build-ids `perf buildid-list` lists for a fixture (`X.buildids.txt`: `ID PATH` lines,
/// no id for a DSO without one) are those of the `mappings` rows of that path: from the
/// build-id header feature in file mode, from PERF_RECORD_HEADER_BUILD_ID records (which can
/// come after the mappings they name) in pipe mode.
#[test]
fn mapping_build_ids_equal_perf_buildid_list() {
    let mut checked = 0;
    for path in fixtures() {
        let list = path.with_extension("buildids.txt");
        let Ok(text) = std::fs::read_to_string(&list) else {
            continue;
        };
        let p = read_path(Format::PerfData, &path).profile;
        let t = &p.ext_table(ext::tables::MAPPINGS).unwrap().columns;
        let (files, ids) = (t.chr("filename").unwrap(), t.chr("build_id").unwrap());
        for line in text.lines() {
            // A DSO without a build-id is listed after blanks.
            let (id, dso) = match line.strip_prefix(' ') {
                Some(_) => ("", line.trim()),
                None => line.split_once(' ').unwrap(),
            };
            let rows: Vec<usize> = (0..files.len())
                .filter(|&i| p.str(files[i]) == dso)
                .collect();
            assert!(!rows.is_empty(), "{}: no mapping of {dso}", path.display());
            for i in rows {
                let got = p.strings.get(ids[i]).unwrap_or("");
                assert_eq!(got, id, "{}: build-id of {dso}", path.display());
            }
            checked += 1;
        }
    }
    assert!(checked >= 6, "build-id lists missing");
}

/// `proftab top --json FILE --symbols DIR ARGS…` (symbolised as the CLI does): self per name.
fn cli_top(path: &Path, args: &[&str]) -> BTreeMap<String, f64> {
    let dir = fixture("perf-data");
    let mut all = vec!["top", path.to_str().unwrap(), "--json", "--symbols"];
    all.push(dir.to_str().unwrap());
    all.extend_from_slice(args);
    let json = run_json(env!("CARGO_BIN_EXE_proftab"), &all);
    json["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["self"].as_f64().unwrap() != 0.0)
        .map(|r| {
            let name = r["name"].as_str().unwrap().to_owned();
            (name, r["self"].as_f64().unwrap())
        })
        .collect()
}

/// `proftab top` of the symbolised recording equals `perf report`: every symbol both name has
/// the same self samples, the `work` binary's symbols (given with `--symbols`) are all named,
/// and what proftab leaves unsymbolised (binaries or kernel of another machine) adds up to
/// perf's rows that proftab does not name.
#[test]
fn symbolised_self_samples_equal_perf_report() {
    for path in fixtures() {
        let what = path.display().to_string();
        let want =
            report_rows(&std::fs::read_to_string(path.with_extension("report.txt")).unwrap());
        perf_report::assert_matches(&want, cli_top(&path, &[]), &["work"], &what);
    }
}

#[test]
fn pprof_conversion_keeps_go_tool_pprof_top() {
    let dir = scratch_dir("perf-data");
    let mut inputs = fixtures();
    inputs.extend(
        corpus_new("perf-data")
            .into_iter()
            .filter(|p| !file_name(p).ends_with(".txt") && !file_name(p).ends_with(".md")),
    );
    for path in inputs {
        let p = read_path(Format::PerfData, &path).profile;
        let out = dir.join(format!("{}.pb.gz", file_name(&path)));
        if !assert_pprof_keeps_top(&p, &out, "samples", "count", &path.display().to_string()) {
            return;
        }
    }
}

/// The symbolised conversion (`proftab convert FILE -o x.pb.gz --symbols DIR`): `go tool pprof
/// -top` equals proftab's function table of that pprof, and its self samples proftab's `top`
/// of the recording.
#[test]
fn symbolised_pprof_conversion_keeps_top() {
    let dir = scratch_dir("perf-data-symbolised");
    for path in fixtures() {
        let what = path.display().to_string();
        let out = dir.join(format!("{}.pb.gz", file_name(&path)));
        let symbols = fixture("perf-data");
        let args = [
            "convert",
            path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--symbols",
            symbols.to_str().unwrap(),
        ];
        let o = support::cli::run(env!("CARGO_BIN_EXE_proftab"), &args, None);
        assert!(o.status.success(), "{what}: {}", support::cli::stderr(&o));
        let p = read_path(Format::Pprof, &out).profile;
        let vt = p.value_type_index("samples").unwrap();
        let from_pprof: BTreeMap<String, f64> = function_table(&p, vt, None)
            .rows
            .into_iter()
            .filter(|r| r.self_value != 0.0)
            .map(|r| (r.name, r.self_value))
            .collect();
        assert_eq!(from_pprof, cli_top(&path, &[]), "{what}");
        let Some(rows) = go_top(&out, "samples", "count") else {
            return;
        };
        assert_matches_go_top(&p, "samples", &rows, &what);
    }
}

#[test]
fn invalid_inputs_give_their_messages() {
    assert!(check_invalid_fixtures(Format::PerfData, "perf-data") >= 4);
}

#[test]
fn no_other_format_is_claimed() {
    assert_other_formats_not_claimed(perf_data::detect, "perf-data", &["perf-script"]);
}

#[test]
fn cut_inputs_never_panic() {
    for path in fixtures().iter().take(1) {
        truncation_sweep(Format::PerfData, &std::fs::read(path).unwrap());
    }
    for path in corpus_new("perf-data")
        .iter()
        .filter(|p| file_name(p).contains("compressed"))
    {
        truncation_sweep(Format::PerfData, &std::fs::read(path).unwrap());
    }
}
