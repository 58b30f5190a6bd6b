//! Linux `perf script` output (`perf-script`), judged by `perf report` on the same recording.
//!
//! * Golden descriptions of every fixture recorded with perf (tests/fixtures/perf-script,
//!   README.md there has the commands): value types and totals, columns, meta, warnings, the
//!   function table and the first sample.
//! * Self samples per symbol and the total equal `perf report --stdio --no-children --sort sym
//!   -n` (committed beside the fixtures). perf report names a frame without symbol by its
//!   address, perf script prints `[unknown]`: those rows are added up under `[unknown]`.
//! * Every file of the shared corpus-new `perf-script/` folder reads without error, validates
//!   and keeps its totals through tables-JSON.
//! * perf-script → pprof (proftab's writer) → `go tool pprof -top` equals proftab's function
//!   table (SKIP when Go is missing).
//! * Invalid inputs (tests/fixtures/invalid/perf-script) give their exact messages; no other
//!   format's corpus is claimed; cut inputs never panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proftab::analysis::functions::function_table;
use proftab::formats::{self, perf_script, tables_json, Format, ReadOptions, WriteOptions};
use proftab::model::{ext, Cell, Profile, SampleIndex};
use support::corpus::{corpus_new, file_name, files_in, fixture, scratch_dir};
use support::profile::{assert_valid, read_path};
use support::text::{
    assert_detected, assert_other_formats_not_claimed, assert_pprof_keeps_top,
    check_invalid_fixtures, summary, total, truncation_sweep,
};

/// The `perf script` fixtures (every `.txt` but the `perf report` judges).
fn fixtures() -> Vec<PathBuf> {
    files_in(&fixture("perf-script"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .filter(|p| !file_name(p).contains(".report-"))
        .collect()
}

/// The `perf report --sort sym` file of the recording a fixture was printed from.
fn judge(path: &Path) -> PathBuf {
    let name = file_name(path);
    let recording = match name.as_str() {
        "srcline.txt" => "simple",
        n if n.starts_with("multi") => "multi",
        n => n.trim_end_matches(".txt"),
    };
    fixture(&format!("perf-script/{recording}.report-sym.txt"))
}

/// Total samples (`# Samples: N`, summed over events) and samples per symbol of a `perf report
/// --sort sym -n` text; rows of symbol-less addresses count as `[unknown]`.
fn parse_report(text: &str) -> (f64, BTreeMap<String, f64>) {
    let mut total = 0.0;
    let mut rows = BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# Samples: ") {
            total += rest
                .split_whitespace()
                .next()
                .unwrap()
                .parse::<f64>()
                .unwrap();
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if line.starts_with('#') || words.len() < 4 || !words[0].ends_with('%') {
            continue;
        }
        let name = line.split_once("] ").unwrap().1.trim();
        let name = if name.starts_with("0x") {
            "[unknown]"
        } else {
            name
        };
        *rows.entry(name.to_owned()).or_insert(0.0) += words[1].parse::<f64>().unwrap();
    }
    (total, rows)
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
    let columns: Vec<&str> = p
        .samples
        .ext
        .columns
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    writeln!(out, "sample columns: {}", columns.join(" ")).unwrap();
    let columns: Vec<&str> = p
        .locations
        .ext
        .columns
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    writeln!(out, "location columns: {}", columns.join(" ")).unwrap();
    let header: Vec<&str> = p.meta_values(perf_script::META_HEADER).collect();
    writeln!(
        out,
        "meta {}: {} rows",
        perf_script::META_HEADER,
        header.len()
    )
    .unwrap();
    for w in &parsed.warnings {
        writeln!(out, "warning: {w}").unwrap();
    }
    let vt = p.default_value_type().unwrap();
    for row in function_table(p, vt, None).rows.iter().take(12) {
        writeln!(
            out,
            "function {}: self {} total {}",
            row.name, row.self_value, row.total_value
        )
        .unwrap();
    }
    writeln!(out, "first sample:").unwrap();
    for c in &p.samples.ext.columns {
        let cell = match p.samples.ext.cell(&c.name, 0).unwrap() {
            Cell::Chr(id) => format!("{:?}", p.strings.get(id)),
            other => format!("{other:?}"),
        };
        writeln!(out, "  {} = {cell}", c.name).unwrap();
    }
    for loc in p.frames_leaf_first(p.sample_stack(SampleIndex(0))) {
        let f = p.location_function(loc).unwrap();
        let file = p.strings.get(p.functions.filename[f.idx()]).unwrap_or("NA");
        let line = p.locations.line[loc.idx()];
        writeln!(
            out,
            "  frame {} ({file}) line {line}",
            p.str(p.functions.name[f.idx()])
        )
        .unwrap();
    }
    out
}

#[test]
fn fixtures_match_golden_descriptions() {
    let files = fixtures();
    assert!(files.len() >= 6, "fixtures missing");
    for path in files {
        assert_detected(Format::PerfScript, &path);
        let parsed = read_path(Format::PerfScript, &path);
        assert_valid(&parsed.profile, &path.display().to_string());
        let golden = fixture("perf-script/golden").join(file_name(&path));
        support::golden::check(&golden, &describe(&parsed));
    }
}

#[test]
fn self_samples_per_symbol_equal_perf_report() {
    for path in fixtures() {
        let what = path.display().to_string();
        let (want_total, want) = parse_report(&std::fs::read_to_string(judge(&path)).unwrap());
        let p = read_path(Format::PerfScript, &path).profile;
        let vt = p.value_type_index("samples").unwrap();
        let mut got = BTreeMap::new();
        for row in function_table(&p, vt, None).rows {
            if row.self_value != 0.0 {
                *got.entry(row.name).or_insert(0.0) += row.self_value;
            }
        }
        assert_eq!(total(&p, "samples"), want_total, "{what}: total");
        assert_eq!(
            self_by_host_symbol(&p),
            want,
            "{what}: self samples per symbol"
        );
        if !has_inlined_frames(&p) {
            // Without inlining, proftab top's self column is perf report's.
            assert_eq!(got, want, "{what}: self samples per function");
        }
    }
}

fn is_inlined(p: &Profile, loc: proftab::model::LocationIndex) -> bool {
    matches!(
        p.locations.ext.cell(ext::locations::INLINED, loc.idx()),
        Some(Cell::Lgl(Some(true)))
    )
}

fn has_inlined_frames(p: &Profile) -> bool {
    (0..p.locations.line.len()).any(|i| is_inlined(p, proftab::model::LocationIndex(i as u32)))
}

/// Samples per symbol as perf report counts them: each sample charged to the symbol its
/// address is in, its innermost frame that is not inlined.
fn self_by_host_symbol(p: &Profile) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for s in 0..p.num_samples() {
        let stack = p.sample_stack(SampleIndex(s as u32));
        if let Some(loc) = p.frames_leaf_first(stack).find(|&l| !is_inlined(p, l)) {
            let f = p.location_function(loc).unwrap();
            *out.entry(p.str(p.functions.name[f.idx()]).to_owned())
                .or_insert(0.0) += 1.0;
        }
    }
    out
}

/// `perf script --inline` of an -O2 build (tests/fixtures/perf-script/README.md): the inlined
/// functions are frames of their own, marked `.inlined`, between the function they are
/// inlined into and their callees; `proftab top` charges them their own self samples, which
/// with their host's add up to perf report's count for the host symbol.
#[test]
fn inlined_frames_are_frames_of_their_own() {
    let path = fixture("perf-script/inline.txt");
    let p = read_path(Format::PerfScript, &path).profile;
    let vt = p.value_type_index("samples").unwrap();
    let rows: BTreeMap<String, f64> = function_table(&p, vt, None)
        .rows
        .into_iter()
        .map(|r| (r.name, r.self_value))
        .collect();
    let inlined: std::collections::BTreeSet<String> = (0..p.locations.line.len())
        .map(|i| proftab::model::LocationIndex(i as u32))
        .filter(|&l| is_inlined(&p, l))
        .map(|l| {
            p.str(p.functions.name[p.location_function(l).unwrap().idx()])
                .to_owned()
        })
        .collect();
    assert!(
        inlined.contains("mix") && inlined.contains("step"),
        "{inlined:?}"
    );
    assert!(!inlined.contains("churn") && !inlined.contains("walk"));
    let (_, want) = parse_report(&std::fs::read_to_string(judge(&path)).unwrap());
    let self_of = |n: &str| rows.get(n).copied().unwrap_or(0.0);
    assert!(self_of("mix") > 0.0, "mix has no self samples of its own");
    // Every sample whose leaf is inlined is charged, by perf report, to churn or walk.
    let user = ["mix", "step", "churn", "walk"]
        .map(self_of)
        .iter()
        .sum::<f64>();
    assert_eq!(user, want["churn"] + want["walk"]);
    // In every sample, an inlined frame sits right above (is a callee of) a frame at its
    // address, the function it is inlined into. perf's `__libc_start_main_impl (inlined)`
    // has none (it is `__libc_start_main` under its debug-info name): not inlined, no DSO.
    let address =
        |l: proftab::model::LocationIndex| p.locations.ext.cell(ext::locations::ADDRESS, l.idx());
    for s in 0..p.num_samples() {
        let frames: Vec<_> = p
            .frames_leaf_first(p.sample_stack(SampleIndex(s as u32)))
            .collect();
        for w in frames.windows(2) {
            if is_inlined(&p, w[0]) {
                assert_eq!(
                    address(w[0]),
                    address(w[1]),
                    "inlined frame away from its host"
                );
            }
        }
    }
    assert!(!inlined.contains("__libc_start_main_impl"));
}

#[test]
fn two_events_are_two_value_types() {
    let p = read_path(Format::PerfScript, &fixture("perf-script/two-events.txt")).profile;
    let (total_samples, _) = parse_report(
        &std::fs::read_to_string(fixture("perf-script/two-events.report-sym.txt")).unwrap(),
    );
    // Each event has its own samples; each carries its period (1001001 ns at -F 999).
    let clock = total(&p, "cpu-clock");
    let task = total(&p, "task-clock");
    assert!(clock > 0.0 && task > 0.0);
    assert_eq!((clock + task) / 1_001_001.0, total_samples);
}

/// Found by fuzzing: an event named `samples` (perf allows it for a tracepoint or PMU alias)
/// added its periods to the one-per-sample `samples` count; it is `samples-event` now.
#[test]
fn an_event_named_samples_does_not_add_to_the_sample_count() {
    let text = "work 16890  2870.007911:    1001001 samples: \n\
                \t            115e alpha+0x15 (/tmp/perfrec/work)\n\n\
                work 16890  2870.008911:    1001001 cpu-clock: \n\
                \t            115e alpha+0x15 (/tmp/perfrec/work)\n\n";
    let p = formats::read_as(Format::PerfScript, text.as_bytes(), &ReadOptions::default())
        .unwrap()
        .profile;
    assert_eq!(total(&p, "samples"), 2.0);
    assert_eq!(total(&p, "samples-event"), 1_001_001.0);
    assert_eq!(total(&p, "cpu-clock"), 1_001_001.0);
}

#[test]
fn corpus_new_files_read_validate_and_keep_totals() {
    let files = corpus_new("perf-script");
    for path in &files {
        let what = path.display().to_string();
        let bytes = std::fs::read(path).unwrap();
        assert_eq!(formats::detect(&bytes), Some(Format::PerfScript), "{what}");
        let parsed = formats::read_any(&bytes, &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_valid(&parsed.profile, &what);
        let json = tables_json::write(&parsed.profile, &WriteOptions::default()).unwrap();
        let back = tables_json::read(&json.bytes, &ReadOptions::default()).unwrap();
        assert_eq!(summary(&parsed.profile), summary(&back.profile), "{what}");
        truncation_sweep(Format::PerfScript, &bytes);
    }
}

#[test]
fn pprof_conversion_keeps_go_tool_pprof_top() {
    let dir = scratch_dir("perf-script");
    let mut inputs = fixtures();
    inputs.extend(corpus_new("perf-script"));
    for path in inputs {
        let p = read_path(Format::PerfScript, &path).profile;
        let out = dir.join(format!("{}.pb.gz", file_name(&path)));
        if !assert_pprof_keeps_top(&p, &out, "samples", "count", &path.display().to_string()) {
            return;
        }
    }
}

#[test]
fn invalid_inputs_give_their_messages() {
    assert!(check_invalid_fixtures(Format::PerfScript, "perf-script") >= 3);
}

#[test]
fn no_other_format_is_claimed() {
    assert_other_formats_not_claimed(perf_script::detect, "perf-script", &["pprof-text"]);
}

#[test]
fn fixtures_survive_truncation() {
    for path in fixtures().iter().take(2) {
        truncation_sweep(Format::PerfScript, &std::fs::read(path).unwrap());
    }
}

#[test]
fn profile_value_types_in_order() {
    let p: Profile = read_path(Format::PerfScript, &fixture("perf-script/simple.txt")).profile;
    let names: Vec<&str> = p.values.iter().map(|c| p.str(c.value_type)).collect();
    assert_eq!(names, ["samples", "cpu-clock"]);
    assert_eq!(p.str(p.values[1].unit), "nanoseconds");
}

/// `--inline` frames, `(deleted)` DSOs, C++ signatures and kernel frames, in the layout perf's
/// `sample__fprintf_callchain` prints them (perf 6.1 here printed no inline chains to record).
#[test]
fn inline_deleted_and_kernel_frames() {
    let text = "prog 7/8 [001] 10.500000:    250000 cycles:u: \n\
                \tffffffff8100 do_syscall_64+0x3e ([kernel.kallsyms])\n\
                \t        11c3 gamma_inl (inlined)\n\
                \t        11c3 delta+0x1f (/tmp/prog (deleted))\n\
                \t        2000 ns::f(int, char)+0x8 (/tmp/prog (deleted))\n\n\
                prog 7/8 [001] 10.750000:    250000 cycles:u: \n\
                \t        2000 [unknown] ([unknown])\n";
    let parsed = formats::read_any(text.as_bytes(), &ReadOptions::default()).unwrap();
    assert_eq!(parsed.format, Format::PerfScript);
    let p = &parsed.profile;
    assert_valid(p, "inline");
    let frames: Vec<String> = p
        .frames_leaf_first(p.sample_stack(SampleIndex(0)))
        .map(|loc| {
            let f = p.location_function(loc).unwrap();
            let cell = |c| p.locations.ext.cell(c, loc.idx()).unwrap();
            let file = p.strings.get(p.functions.filename[f.idx()]).unwrap_or("NA");
            let kind = match cell(ext::locations::FRAME_TYPE) {
                Cell::Chr(id) => p.strings.get(id).unwrap_or("NA").to_owned(),
                other => format!("{other:?}"),
            };
            format!(
                "{} {file} {kind} {:?} {:?}",
                p.str(p.functions.name[f.idx()]),
                cell(ext::locations::ADDRESS),
                cell(ext::locations::INLINED)
            )
        })
        .collect();
    assert_eq!(
        frames,
        [
            "do_syscall_64 [kernel.kallsyms] kernel U64(Some(281474976678144)) Lgl(Some(false))",
            "gamma_inl /tmp/prog (deleted) native U64(Some(4547)) Lgl(Some(true))",
            "delta /tmp/prog (deleted) native U64(Some(4547)) Lgl(Some(false))",
            "ns::f(int, char) /tmp/prog (deleted) native U64(Some(8192)) Lgl(Some(false))",
        ]
    );
    assert_eq!(total(p, "cycles"), 500000.0);
    let time = p.samples.ext.cell(ext::samples::TIME, 1).unwrap();
    assert_eq!(time, Cell::Dbl(0.25));
    assert_eq!(
        p.samples.ext.cell(perf_script::SAMPLE_CPU, 1).unwrap(),
        Cell::Int(1)
    );
    assert_eq!(
        p.samples.ext.cell(ext::samples::TID, 1).unwrap(),
        Cell::Int(8)
    );
}
