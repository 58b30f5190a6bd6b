//! pprof's legacy text formats (`pprof-text`), judged by `go tool pprof`.
//!
//! * Every fixture of tests/fixtures/pprof-text (Go `debug=1` profiles recorded by `gen/main.go`
//!   and hand-written C++/Java variants) reads to the same sample types, values, address stacks,
//!   location ids, mappings and `bytes` labels that `go tool pprof -raw` prints for the file.
//! * Each Go text profile agrees with its protobuf twin written by the runtime at the same
//!   moment: the same values per stack of function names (the names runtime/pprof shows).
//! * Text → proftab → pprof (proftab's writer) → `go tool pprof -top -addresses` equals
//!   `go tool pprof -top -addresses` of the text, per address (flat and cum); names differ, since
//!   proftab reads the `#` frame lines that pprof ignores.
//! * Invalid inputs (tests/fixtures/invalid/pprof-text) give their exact messages.
//!
//! Tests that need Go print `SKIP:` on stderr when `go` is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proftab::formats::pprof::{
    LABELS_TABLE, LOC_ADDRESS, LOC_LINE_INDEX, LOC_MAPPING_ID, LOC_PPROF_ID, MAPPINGS_TABLE,
};
use proftab::formats::{self, pprof_text, Format, Parsed, ReadOptions};
use proftab::model::{Cell, LocationIndex, Profile, SampleIndex, StringId, ValueTypeIndex};
use support::corpus::{corpus, file_name, files_in, fixture};
use support::go::{parse_top, GoPprof};
use support::golden;

fn fixture_dir() -> PathBuf {
    fixture("pprof-text")
}

/// The text fixtures, sorted.
fn text_fixtures() -> Vec<PathBuf> {
    let v: Vec<PathBuf> = files_in(&fixture_dir())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    assert!(v.len() >= 14, "fixtures missing: {v:?}");
    v
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// Reads a fixture through `read_any` (so detection is checked too) and validates it.
fn read_text(path: &Path) -> Parsed {
    let bytes = std::fs::read(path).unwrap();
    let options = ReadOptions {
        source_uri: Some(name(path)),
        ..ReadOptions::default()
    };
    let parsed = formats::read_any(&bytes, &options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.format, Format::PprofText, "{}", path.display());
    let violations = parsed.profile.validate();
    assert!(violations.is_empty(), "{}: {violations:?}", path.display());
    parsed
}

/// The parts of `go tool pprof -raw` compared: header, samples (values, location ids, numeric
/// labels), locations (address, mapping) and mappings.
#[derive(Debug, Default, PartialEq)]
struct Raw {
    period_type: String,
    period: i64,
    types: Vec<String>,
    samples: Vec<RawSample>,
    /// id → (address, mapping id).
    locations: BTreeMap<u64, (u64, Option<u64>)>,
    /// (start, limit, offset, file).
    mappings: Vec<(u64, u64, u64, String)>,
}

#[derive(Debug, Default, PartialEq)]
struct RawSample {
    values: Vec<i64>,
    locations: Vec<u64>,
    labels: Vec<String>,
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

/// Parses `go tool pprof -raw` output.
fn parse_raw(text: &str) -> Raw {
    let mut raw = Raw::default();
    let mut section = "";
    for line in text.lines() {
        match line {
            "Samples:" | "Locations" | "Mappings" => {
                section = line;
                continue;
            }
            _ => {}
        }
        match section {
            "" => {
                if let Some(pt) = line.strip_prefix("PeriodType:") {
                    raw.period_type = pt.trim().to_owned();
                } else if let Some(p) = line.strip_prefix("Period: ") {
                    raw.period = p.parse().unwrap();
                }
            }
            "Samples:" if raw.types.is_empty() => {
                raw.types = line.split_whitespace().map(str::to_owned).collect();
            }
            "Samples:" => {
                if let Some((values, ids)) = line
                    .split_once(':')
                    .filter(|(v, _)| v.split_whitespace().all(|w| w.parse::<i64>().is_ok()))
                {
                    raw.samples.push(RawSample {
                        values: values
                            .split_whitespace()
                            .map(|v| v.parse().unwrap())
                            .collect(),
                        locations: ids.split_whitespace().map(|v| v.parse().unwrap()).collect(),
                        labels: Vec::new(),
                    });
                } else {
                    raw.samples
                        .last_mut()
                        .unwrap()
                        .labels
                        .push(line.trim().to_owned());
                }
            }
            "Locations" => {
                let (id, rest) = line.split_once(':').unwrap();
                let Ok(id) = id.trim().parse::<u64>() else {
                    continue; // an inline line of the previous location
                };
                let mut words = rest.split_whitespace();
                let address = hex(words.next().unwrap());
                let mapping = words
                    .next()
                    .and_then(|w| w.strip_prefix("M="))
                    .map(|m| m.parse().unwrap());
                raw.locations.insert(id, (address, mapping));
            }
            "Mappings" => {
                let (_, rest) = line.split_once(": ").unwrap();
                let mut words = rest.split_whitespace();
                let range: Vec<u64> = words.next().unwrap().split('/').map(hex).collect();
                let file = words.next().unwrap_or("").to_owned();
                raw.mappings.push((range[0], range[1], range[2], file));
            }
            _ => {}
        }
    }
    raw
}

fn loc_u64(p: &Profile, column: &str, row: usize) -> Option<u64> {
    match p.locations.ext.cell(column, row) {
        Some(Cell::U64(v)) => v,
        _ => None,
    }
}

/// The pprof location ids of a sample's stack, leaf first (consecutive rows of one
/// `.pprof_location_id` are one location).
fn pprof_ids(p: &Profile, s: usize) -> Vec<u64> {
    let mut ids: Vec<u64> = Vec::new();
    let mut last_row: Option<u32> = None;
    for loc in p.frames_leaf_first(p.sample_stack(SampleIndex(s as u32))) {
        let id = loc_u64(p, LOC_PPROF_ID, loc.idx()).unwrap();
        let continues = last_row.is_some_and(|r| r + 1 == loc.0) && ids.last() == Some(&id);
        if !continues {
            ids.push(id);
        }
        last_row = Some(loc.0);
    }
    ids
}

/// The numeric labels of every sample as pprof prints them (`bytes:[65536]`).
fn numeric_labels(p: &Profile) -> BTreeMap<i32, Vec<String>> {
    let mut out: BTreeMap<i32, Vec<String>> = BTreeMap::new();
    let Some(t) = p.ext_table(LABELS_TABLE) else {
        return out;
    };
    let c = &t.columns;
    let (ids, keys, strs, nums) = (
        c.int("sample_id").unwrap(),
        c.chr("key").unwrap(),
        c.chr("str").unwrap(),
        c.dbl("num").unwrap(),
    );
    for i in 0..ids.len() {
        if strs[i] == StringId::NA {
            out.entry(ids[i])
                .or_default()
                .push(format!("{}:[{}]", p.str(keys[i]), nums[i] as i64));
        }
    }
    out
}

/// proftab's reading in the shape of [`Raw`].
fn ours_as_raw(p: &Profile) -> Raw {
    let mut raw = Raw {
        period_type: match (
            p.meta_value("pprof.period_type"),
            p.meta_value("pprof.period_unit"),
        ) {
            (Some(t), Some(u)) => format!("{t} {u}"),
            _ => String::new(),
        },
        period: p
            .meta_value("pprof.period")
            .map_or(0, |v| v.parse().unwrap()),
        ..Raw::default()
    };
    raw.types = (0..p.values.len())
        .map(|v| {
            let (t, u) = p.value_type_names(ValueTypeIndex(v as u32));
            format!("{t}/{u}")
        })
        .collect();
    // go tool pprof's driver merges its one source (`profile.Merge`): samples whose values
    // are all zero are dropped, samples with the same locations and labels summed, and
    // locations renumbered in order of first use.
    let labels = numeric_labels(p);
    let mut renumbered: BTreeMap<u64, u64> = BTreeMap::new();
    let mut merged: BTreeMap<(Vec<u64>, Vec<String>), usize> = BTreeMap::new();
    for s in 0..p.num_samples() {
        let values: Vec<i64> = p.values.iter().map(|c| c.values[s] as i64).collect();
        if values.iter().all(|&v| v == 0) || p.sample_stack(SampleIndex(s as u32)).is_none() {
            continue; // nor does it show samples without a stack
        }
        let ids: Vec<u64> = pprof_ids(p, s)
            .into_iter()
            .map(|id| {
                let next = renumbered.len() as u64 + 1;
                *renumbered.entry(id).or_insert(next)
            })
            .collect();
        let labels = labels.get(&(s as i32 + 1)).cloned().unwrap_or_default();
        match merged.get(&(ids.clone(), labels.clone())) {
            Some(&i) => {
                for (a, v) in raw.samples[i].values.iter_mut().zip(values) {
                    *a += v;
                }
            }
            None => {
                merged.insert((ids.clone(), labels.clone()), raw.samples.len());
                raw.samples.push(RawSample {
                    values,
                    locations: ids,
                    labels,
                });
            }
        }
    }
    for row in 0..p.locations.line.len() {
        let id = loc_u64(p, LOC_PPROF_ID, row).unwrap();
        let Some(&id) = renumbered.get(&id) else {
            continue;
        };
        let address = loc_u64(p, LOC_ADDRESS, row).unwrap_or(0);
        raw.locations
            .insert(id, (address, loc_u64(p, LOC_MAPPING_ID, row)));
    }
    if let Some(t) = p.ext_table(MAPPINGS_TABLE) {
        let c = &t.columns;
        for i in 0..t.len() {
            let at = |n: &str| c.u64(n).unwrap()[i].unwrap();
            let file = c.chr("filename").unwrap()[i];
            raw.mappings.push((
                at("memory_start"),
                at("memory_limit"),
                at("file_offset"),
                p.str(file).to_owned(),
            ));
        }
    }
    // Merge keeps the mappings the kept locations use, numbered in order of first use.
    let all = std::mem::take(&mut raw.mappings);
    let mut mapping_ids: BTreeMap<u64, u64> = BTreeMap::new();
    if !all.is_empty() {
        // The main binary's mapping is always kept, first.
        mapping_ids.insert(1, 1);
        raw.mappings.push(all[0].clone());
    }
    for (_, mapping) in raw.locations.values_mut() {
        if let Some(m) = mapping {
            let next = mapping_ids.len() as u64 + 1;
            let id = *mapping_ids.entry(*m).or_insert(next);
            if id == next {
                raw.mappings.push(all[*m as usize - 1].clone());
            }
            *m = id;
        }
    }
    if raw.mappings.is_empty() {
        // The driver gives a profile without mappings one empty mapping for all locations
        // (`internal/driver/fetch.go`: "add a fake mapping to attempt symbolization").
        raw.mappings.push((0, 0, 0, String::new()));
        for (_, mapping) in raw.locations.values_mut() {
            *mapping = Some(1);
        }
    }
    raw
}

/// Every fixture reads as `go tool pprof` reads it (threadcreate excepted: pprof refuses a
/// record without addresses, which Go writes for it; proftab reads it as an empty stack).
#[test]
fn fixtures_read_as_go_tool_pprof_reads_them() {
    let go = GoPprof::find();
    let mut compared = 0;
    for path in text_fixtures() {
        let parsed = read_text(&path);
        let Some(go) = &go else { continue };
        let report = go.run(&["-raw"], &path);
        if name(&path) == "threadcreate.txt" {
            assert!(report.unwrap_err().contains("malformed profile format"));
            assert_eq!(parsed.profile.num_samples(), 1);
            assert_eq!(parsed.profile.sample_stack(SampleIndex(0)), None);
            continue;
        }
        let want = parse_raw(&report.unwrap());
        assert!(!want.samples.is_empty(), "{}", path.display());
        let got = ours_as_raw(&parsed.profile);
        assert_eq!(got, want, "{}", path.display());
        compared += 1;
    }
    if go.is_some() {
        assert_eq!(compared, text_fixtures().len() - 1);
    }
}

/// What runtime/pprof's `printStackRecord` shows of a stack of function names (leaf first):
/// never `runtime.goexit`, and for heap and count profiles not the leading `runtime.` frames
/// (unless that leaves nothing).
fn shown_by_runtime(names: &[String], all_frames: bool) -> Vec<String> {
    let visible = |all: bool| {
        let mut show = all;
        names
            .iter()
            .filter(|n| {
                if n.as_str() != "runtime.goexit" && (show || !n.starts_with("runtime.")) {
                    show = true;
                    return true;
                }
                false
            })
            .cloned()
            .collect::<Vec<_>>()
    };
    let v = visible(all_frames);
    if v.is_empty() {
        visible(true)
    } else {
        v
    }
}

/// Function names of a sample's stack, leaf first (frames without a function left out).
fn stack_names(p: &Profile, s: usize) -> Vec<String> {
    p.frames_leaf_first(p.sample_stack(SampleIndex(s as u32)))
        .filter_map(|l: LocationIndex| p.location_function(l))
        .map(|f| p.str(p.functions.name[f.idx()]).to_owned())
        .collect()
}

/// Values per stack (summed), leaving out stacks whose values are all zero.
fn values_by_stack(
    p: &Profile,
    all_frames: bool,
    from_proto: bool,
) -> BTreeMap<Vec<String>, Vec<i64>> {
    let mut out: BTreeMap<Vec<String>, Vec<i64>> = BTreeMap::new();
    for s in 0..p.num_samples() {
        let names = stack_names(p, s);
        let key = if from_proto {
            shown_by_runtime(&names, all_frames)
        } else {
            names
        };
        let values: Vec<i64> = p.values.iter().map(|c| c.values[s] as i64).collect();
        let sum = out.entry(key).or_insert_with(|| vec![0; values.len()]);
        for (a, v) in sum.iter_mut().zip(values) {
            *a += v;
        }
    }
    out.retain(|_, v| v.iter().any(|&x| x != 0));
    out
}

/// Each Go text profile agrees with the protobuf runtime/pprof wrote at the same moment.
#[test]
fn go_text_agrees_with_its_protobuf_twin() {
    for stem in [
        "heap",
        "allocs",
        "goroutine",
        "threadcreate",
        "mutex",
        "block",
    ] {
        let text = read_text(&fixture_dir().join(format!("{stem}.txt"))).profile;
        let bytes = std::fs::read(fixture_dir().join(format!("{stem}.pb.gz"))).unwrap();
        let proto = formats::pprof::read(&bytes, &ReadOptions::default())
            .unwrap()
            .profile;
        let types = |p: &Profile| -> Vec<(String, String)> {
            (0..p.values.len())
                .map(|v| {
                    let (t, u) = p.value_type_names(ValueTypeIndex(v as u32));
                    (t.to_owned(), u.to_owned())
                })
                .collect()
        };
        assert_eq!(types(&text), types(&proto), "{stem}");
        let all_frames = matches!(stem, "mutex" | "block");
        let t = values_by_stack(&text, all_frames, false);
        let p = values_by_stack(&proto, all_frames, true);
        assert!(!t.is_empty(), "{stem}");
        assert_eq!(t, p, "{stem}");
    }
}

/// The goroutine profile's `# labels:` line becomes a string label, as in the protobuf.
#[test]
fn goroutine_labels_are_kept() {
    let p = read_text(&fixture_dir().join("goroutine.txt")).profile;
    let t = p.ext_table(LABELS_TABLE).unwrap();
    let c = &t.columns;
    assert_eq!(t.len(), 1);
    let sample = c.int("sample_id").unwrap()[0];
    assert_eq!(p.str(c.chr("key").unwrap()[0]), "worker");
    assert_eq!(p.str(c.chr("str").unwrap()[0]), "b");
    // The labelled record is the one with 2 goroutines (hand-read from goroutine.txt).
    assert_eq!(p.values[0].values[sample as usize - 1], 2.0);
}

/// Several `#` lines with one PC are one address's inline chain, innermost first.
#[test]
fn one_pc_with_several_frame_lines_is_an_inline_chain() {
    let p = read_text(&fixture_dir().join("go-heap-inline.txt")).profile;
    let names: Vec<String> = stack_names(&p, 0);
    assert_eq!(names, ["main.inner", "main.allocSmall", "runtime.main"]);
    let rows: Vec<(Option<u64>, Option<u64>, Option<Cell>)> = (0..2)
        .map(|r| {
            (
                loc_u64(&p, LOC_ADDRESS, r),
                loc_u64(&p, LOC_PPROF_ID, r),
                p.locations.ext.cell(LOC_LINE_INDEX, r),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (Some(0x4b_6ea4), Some(1), Some(Cell::Int(0))),
            (Some(0x4b_6ea4), Some(1), Some(Cell::Int(1)))
        ]
    );
    assert_eq!(p.locations.line[..2], [30, 34]);
    // Written as pprof, the chain is one location with two lines.
    let written = formats::pprof::write(&p, &Default::default()).unwrap();
    let back = formats::pprof::read(&written.bytes, &ReadOptions::default())
        .unwrap()
        .profile;
    assert_eq!(stack_names(&back, 0), names);
    assert_eq!(
        loc_u64(&back, LOC_PPROF_ID, 0),
        loc_u64(&back, LOC_PPROF_ID, 1)
    );
}

/// Text → proftab → pprof: `go tool pprof -top -addresses` gives the same flat and cum per
/// address as for the text, for every sample type.
#[test]
fn pprof_written_from_text_tops_like_the_text() {
    let Some(go) = GoPprof::find() else { return };
    let mut compared = 0;
    for path in text_fixtures() {
        if name(&path) == "threadcreate.txt" {
            continue; // go tool pprof refuses the text
        }
        let p = read_text(&path).profile;
        let written = go.write_profile(&p, &format!("{}.pb.gz", name(&path)));
        for vt in 0..p.values.len() {
            let (_, unit) = p.value_type_names(ValueTypeIndex(vt as u32));
            let args = [
                "-top".to_owned(),
                "-addresses".to_owned(),
                "-nodefraction=0".to_owned(),
                "-nodecount=100000".to_owned(),
                format!("-sample_index={vt}"),
                format!("-unit={unit}"),
            ];
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let by_address = |report: &str| {
                let (total, rows) = parse_top(report);
                // One row per function at an address: an inline chain's rows share it, the
                // innermost with the flat value, all with the same cum.
                let mut by: BTreeMap<String, (f64, f64)> = BTreeMap::new();
                for r in rows {
                    let address = r.name.split_whitespace().next().unwrap().to_owned();
                    let e = by.entry(address).or_insert((0.0, 0.0));
                    *e = (e.0 + r.flat, e.1.max(r.cum));
                }
                let rows = by;
                (total, rows)
            };
            let want = by_address(&go.run(&args, &path).unwrap());
            let got = by_address(&go.run(&args, &written).unwrap());
            assert_eq!(got, want, "{} type {vt}", path.display());
            compared += 1;
        }
    }
    assert!(compared >= 25, "{compared}");
}

/// Values hand-computed from the fixtures' text (formulas of legacy_profile.go).
#[test]
fn values_follow_pprof_formulas() {
    let read = |n: &str| read_text(&fixture_dir().join(n)).profile;
    // C++ contentionz: 19490304 cycles, 27 events, period 100, 3.201 GHz.
    let p = read("cpp-contentionz.txt");
    assert_eq!(p.values[0].values[0], 2700.0);
    assert_eq!(
        p.values[1].values[0],
        (19_490_304.0 * 100.0 / 3.201f64).trunc()
    );
    assert_eq!(p.meta_value("pprof.duration_nanos"), Some("16502830000000"));
    assert_eq!(
        p.meta_values("pprof-text.attribute").collect::<Vec<_>>(),
        ["cycles/second=3201000000", "discarded samples=0"]
    );
    // Java heap: 7048 bytes in 1 object, unsampled at 512 KiB: 1 / (1 - e^(-7048/524288)).
    let p = read("java-heap.txt");
    let scale = 1.0 / (1.0 - (-7048.0f64 / 524_288.0).exp());
    assert_eq!(p.values[0].values[0], scale.trunc());
    assert_eq!(p.values[1].values[0], (7048.0 * scale).trunc());
    assert!(p.locations.ext.get(LOC_ADDRESS).is_none());
    // Go heap: heap/8192 means MemProfileRate 4096; the MemStats trailer is kept.
    let p = read("heap.txt");
    assert_eq!(p.meta_value("pprof.period"), Some("4096"));
    assert!(p
        .meta_values("go.memstats")
        .any(|v| v.starts_with("NumGC = ")));
}

/// Every file of tests/fixtures/invalid/pprof-text is detected and gives the message on its
/// line of `expected.txt` (a golden file: one `file<TAB>message` line per file, sorted).
#[test]
fn invalid_inputs_give_their_messages() {
    let dir = fixture("invalid/pprof-text");
    let mut actual =
        String::from("# file<TAB>what proftab's pprof-text reader says (reviewed by hand)\n");
    for path in files_in(&dir) {
        let file = file_name(&path);
        if file == "expected.txt" {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        assert!(pprof_text::detect(&bytes), "{file} not detected");
        let e = pprof_text::read(&bytes, &ReadOptions::default()).unwrap_err();
        let any = formats::read_any(&bytes, &ReadOptions::default()).unwrap_err();
        assert_eq!(any.to_string(), e.to_string(), "{file} through read_any");
        actual.push_str(&format!("{file}\t{e}\n"));
    }
    golden::check(&dir.join("expected.txt"), &actual);
}

/// The corpus's Java heapz fuzz crasher is refused with the line and the problem.
#[test]
fn heapz_fuzz_crasher_is_refused() {
    let path = corpus().join("invalid/pprof-fuzz-legacy-heapz-crasher");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("SKIP: {} not found", path.display());
        return;
    };
    let e = formats::read_any(&bytes, &ReadOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "pprof-text: line 2: Java heap record: the second value (the object count) must be \
         non-zero"
    );
}

/// The detector claims the fixtures and no corpus file of another format.
#[test]
fn detection() {
    for path in text_fixtures() {
        assert!(pprof_text::detect(&std::fs::read(&path).unwrap()));
    }
    // No corpus file of another format (every format folder) is claimed.
    support::text::assert_other_formats_not_claimed(pprof_text::detect, "", &[]);
}
