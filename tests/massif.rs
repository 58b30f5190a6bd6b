//! valgrind massif output (`massif`), judged by `ms_print` and msparser's goldens.
//!
//! * `ms_print --threshold=0` (every node printed) of each file (the `.bz2` one unpacked): every
//!   detailed snapshot's tree, per function, equals the `heap` samples of that `.snapshot`; its
//!   peak snapshot number and useful-heap bytes equal meta `massif.peak_snapshot` and the
//!   `peak_heap` total, and per function the bytes of the peak tree's allocation sites (self)
//!   and of the subtrees under its outermost nodes (total) equal `proftab top --type
//!   peak_heap`. The committed ms_print output
//!   of the recorded fixture is judged the same way without the tool.
//! * msparser's JSON goldens (corpus-new): every snapshot's time, heap, extra and stacks equal
//!   the snapshot samples, and the peak's number.
//! * The recorded fixture (`record.sh`) reads to its golden view; every file of corpus-new/massif
//!   reads (the `.bz2` one through `read_any`, equal to its unpacked text); `proftab convert -o
//!   x.pb.gz` gives `go tool pprof -top` equal to `proftab top`; invalid inputs give their
//!   messages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use proftab::formats::{bz2, massif, read_any, Format};
use proftab::model::{Profile, SampleIndex};
use support::corpus::{corpus_new, fixture, scratch_dir};
use support::importers::{
    assert_only_detector, check_golden_fixtures, check_pprof_conversion_all_types,
    check_robustness, golden_text, top_rows,
};
use support::profile::{assert_valid, options, read_path};
use support::reliability::{assert_function_tables, assert_tables_json_round_trip};
use support::text::{assert_detected, check_invalid_fixtures};

fn fixtures() -> Vec<PathBuf> {
    vec![fixture("massif/alloc.massif.out")]
}

/// The massif files of corpus-new (not their `.expected.txt`, not the `.bz2`).
fn corpus_files() -> Vec<PathBuf> {
    corpus_new("massif")
        .into_iter()
        .filter(|p| {
            let name = p.to_string_lossy();
            !name.ends_with(".expected.txt") && !name.ends_with(".bz2")
        })
        .collect()
}

fn all_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(corpus_files());
    v
}

/// [`all_inputs`] and the `.bz2` file of corpus-new unpacked (by proftab's bzip2 layer) into a
/// scratch folder, for the tools that read plain files.
fn judged_inputs() -> Vec<PathBuf> {
    let mut v = all_inputs();
    if let Some(path) = bz2_file() {
        let packed = std::fs::read(&path).unwrap();
        let text = bz2::bunzip2_capped(&packed, 1 << 30, "bzip2").unwrap();
        let out = scratch_dir("massif").join("duchainify.massif.out");
        std::fs::write(&out, text).unwrap();
        v.push(out);
    }
    v
}

fn bz2_file() -> Option<PathBuf> {
    corpus_new("massif")
        .into_iter()
        .find(|p| p.to_string_lossy().ends_with(".bz2"))
}

#[test]
fn fixtures_read_to_their_golden_views() {
    check_golden_fixtures(Format::Massif, &fixtures(), "massif", ".massif.out");
}

/// True when `ms_print` runs (its `--version` prints `ms_print-3.19.0` to stderr and exits
/// 255, so `support::cli::have_tool` would not see it); else a `SKIP:` note.
fn have_ms_print() -> bool {
    let ok = Command::new("ms_print")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stderr).starts_with("ms_print"));
    if !ok {
        eprintln!("SKIP: massif judge: `ms_print` is not installed");
    }
    ok
}

/// `ms_print --threshold=0 FILE` (every node printed).
fn ms_print(path: &Path) -> String {
    let out = Command::new("ms_print")
        .arg("--threshold=0")
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "ms_print {}", path.display());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What ms_print shows of the peak snapshot: its number, useful-heap bytes, and per function
/// (self, total) computed from its tree.
#[derive(Debug, PartialEq)]
struct Peak {
    number: i64,
    heap: f64,
    functions: BTreeMap<String, (f64, f64)>,
}

/// The function name proftab gives a node's text: `fn` of `0xADDR: fn (…)`, the address for
/// `???`, else the text itself.
fn function_of(details: &str) -> String {
    let Some((addr, rest)) = details.strip_prefix("0x").and_then(|d| d.split_once(": ")) else {
        return details.to_owned();
    };
    let name = match rest.rfind(" (") {
        Some(i) if rest.ends_with(')') => &rest[..i],
        _ => rest,
    };
    if name == "???" {
        format!("{:#x}", u64::from_str_radix(addr, 16).unwrap())
    } else {
        name.to_owned()
    }
}

/// The detailed snapshots `ms_print` lists and the peak among them.
fn ms_print_detailed(text: &str) -> (Vec<i64>, i64) {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("Detailed snapshots:"))
        .unwrap();
    let list = line.split_once('[').unwrap().1.trim_end_matches(']');
    let mut peak = None;
    let numbers = list
        .split(',')
        .map(|f| {
            let f = f.trim();
            let n = f.trim_end_matches(" (peak)").parse().unwrap();
            if f.ends_with(" (peak)") {
                peak = Some(n);
            }
            n
        })
        .collect();
    (numbers, peak.unwrap())
}

fn ms_print_number(s: &str) -> f64 {
    s.replace(',', "").parse().unwrap()
}

/// Snapshot `number` as `ms_print --threshold=0` prints it: its useful-heap bytes and per
/// function (self, total) from its tree: self = the bytes of the allocation sites (the root's
/// children) naming the function, total = the bytes of the nodes naming it that have no
/// ancestor naming it.
fn ms_print_tree(text: &str, number: i64) -> (f64, BTreeMap<String, (f64, f64)>) {
    let lines: Vec<&str> = text.lines().collect();
    let row = lines
        .iter()
        .position(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.len() == 6 && f[0].parse::<i64>() == Ok(number)
        })
        .unwrap();
    let heap = ms_print_number(lines[row].split_whitespace().nth(3).unwrap());
    // The tree: from the root line (no arrow) to the next ruler.
    let mut path: Vec<String> = Vec::new();
    let mut functions: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for line in &lines[row + 2..] {
        if line.starts_with("----") {
            break;
        }
        let Some(arrow) = line.find("->") else {
            continue;
        };
        let depth = arrow / 2 + 1;
        let rest = &line[arrow + 2..];
        let (_, rest) = rest.split_once("% (").unwrap();
        let (bytes, details) = rest.split_once("B) ").unwrap();
        let (bytes, name) = (ms_print_number(bytes), function_of(details));
        path.truncate(depth - 1);
        let e = functions.entry(name.clone()).or_default();
        if depth == 1 {
            e.0 += bytes;
        }
        if !path.contains(&name) {
            e.1 += bytes;
        }
        path.push(name);
    }
    functions.retain(|_, v| *v != (0.0, 0.0));
    (heap, functions)
}

/// The peak as `ms_print --threshold=0` shows it.
fn ms_print_peak(text: &str) -> Peak {
    let (_, number) = ms_print_detailed(text);
    let (heap, functions) = ms_print_tree(text, number);
    Peak {
        number,
        heap,
        functions,
    }
}

/// Per function (self, total) of the `heap` samples of snapshot `number`, from the stacks.
fn snapshot_functions(p: &Profile, number: i64) -> BTreeMap<String, (f64, f64)> {
    let snap = p.samples.ext.int(massif::SAMPLE_SNAPSHOT).unwrap();
    let heap = p
        .value_column(p.value_type_index(massif::HEAP).unwrap())
        .unwrap();
    let mut out: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for s in (0..p.num_samples()).filter(|&s| i64::from(snap[s]) == number) {
        let v = heap.get(s).unwrap();
        let names: Vec<String> = p
            .frames_leaf_first(p.sample_stack(SampleIndex(s as u32)))
            .map(|l| p.frame_display_name(l))
            .collect();
        if v == 0.0 {
            continue;
        }
        out.entry(names[0].clone()).or_default().0 += v;
        for (i, name) in names.iter().enumerate() {
            if !names[..i].contains(name) {
                out.entry(name.clone()).or_default().1 += v;
            }
        }
    }
    out
}

/// The same as proftab gives it: meta, the `peak_heap` total and `proftab top`.
fn proftab_peak(path: &Path) -> Peak {
    let p = read_path(Format::Massif, path).profile;
    let meta = |key: &str| {
        let k = p.strings.find(key).unwrap();
        let row = p.meta.key.iter().position(|&x| x == k).unwrap();
        p.str(p.meta.value[row]).to_owned()
    };
    let (total, mut functions) = top_rows(path, Some(massif::PEAK_HEAP));
    functions.retain(|_, v| *v != (0.0, 0.0));
    Peak {
        number: meta("massif.peak_snapshot").parse().unwrap(),
        heap: total,
        functions,
    }
}

#[test]
fn peak_tree_matches_the_committed_ms_print_output() {
    let path = fixture("massif/alloc.massif.out");
    let text = std::fs::read_to_string(fixture("massif/alloc.ms_print.txt")).unwrap();
    let want = ms_print_peak(&text);
    assert!(want.functions.len() >= 5, "{want:?}");
    assert_eq!(proftab_peak(&path), want);
}

/// Every detailed snapshot, selected by `samples..snapshot`, holds ms_print's tree in `heap`.
#[test]
fn every_detailed_tree_matches_ms_print() {
    if !have_ms_print() {
        return;
    }
    let mut trees = 0;
    for path in judged_inputs() {
        let text = ms_print(&path);
        let p = read_path(Format::Massif, &path).profile;
        for n in ms_print_detailed(&text).0 {
            let (heap, want) = ms_print_tree(&text, n);
            let got = snapshot_functions(&p, n);
            assert_eq!(got, want, "{} snapshot {n}", path.display());
            let sum: f64 = got.values().map(|v| v.0).sum();
            assert_eq!(sum, heap, "{} snapshot {n}", path.display());
            trees += 1;
        }
    }
    assert!(trees > 100, "{trees} trees");
}

#[test]
fn peak_tree_matches_ms_print() {
    if !have_ms_print() {
        return;
    }
    for path in judged_inputs() {
        let text = std::fs::read_to_string(&path).unwrap();
        if !text.contains("heap_tree=peak") {
            continue;
        }
        let want = ms_print_peak(&ms_print(&path));
        assert_eq!(proftab_peak(&path), want, "{}", path.display());
    }
}

/// Per snapshot number: (time, mem_heap, mem_heap_extra, mem_stacks) of its totals sample.
fn snapshot_totals(p: &Profile) -> BTreeMap<i64, [f64; 4]> {
    let snap = p.samples.ext.int(massif::SAMPLE_SNAPSHOT).unwrap();
    let time = p.samples.ext.dbl(massif::SAMPLE_SNAPSHOT_TIME).unwrap();
    let value = |name: &str, s: usize| {
        let vt = p.value_type_index(name).unwrap();
        p.value_column(vt).unwrap().get(s).unwrap()
    };
    let mut out = BTreeMap::new();
    for s in 0..p.num_samples() {
        let stack = p.sample_stack(SampleIndex(s as u32));
        let top: Vec<String> = p
            .frames_leaf_first(stack)
            .map(|l| p.frame_display_name(l))
            .collect();
        if top.len() == 1 && top[0] == format!("snapshot {}", snap[s]) {
            let v = [
                time[s],
                value(massif::MEM_HEAP, s),
                value(massif::MEM_HEAP_EXTRA, s),
                value(massif::MEM_STACKS, s),
            ];
            assert!(out.insert(i64::from(snap[s]), v).is_none());
        }
    }
    out
}

#[test]
fn snapshots_match_msparser_goldens() {
    let mut n = 0;
    for path in corpus_files() {
        let golden = PathBuf::from(format!("{}.expected.txt", path.display()));
        let Ok(json) = std::fs::read_to_string(&golden) else {
            continue;
        };
        if !json.trim_start().starts_with('{') {
            continue;
        }
        let j: serde_json::Value = serde_json::from_str(&json).unwrap();
        let p = read_path(Format::Massif, &path).profile;
        let got = snapshot_totals(&p);
        let snaps = j["snapshots"].as_array().unwrap();
        assert_eq!(got.len(), snaps.len(), "{}", path.display());
        for s in snaps {
            let id = s["id"].as_i64().unwrap();
            let want =
                ["time", "mem_heap", "mem_heap_extra", "mem_stack"].map(|k| s[k].as_f64().unwrap());
            assert_eq!(got[&id], want, "{} snapshot {id}", path.display());
        }
        let peak = j["peak_snapshot_index"].as_i64().unwrap();
        assert_eq!(proftab_peak(&path).number, peak, "{}", path.display());
        n += 1;
    }
    assert!(n == 3 || corpus_files().is_empty(), "{n} msparser goldens");
}

#[test]
fn corpus_new_reads() {
    for path in corpus_files() {
        let what = path.display().to_string();
        assert_detected(Format::Massif, &path);
        assert_only_detector(Format::Massif, &std::fs::read(&path).unwrap(), &what);
        let p = read_path(Format::Massif, &path).profile;
        assert!(p.num_samples() > 0, "{what}: no samples");
        assert_tables_json_round_trip(&p, &what);
        assert_function_tables(&p, &what);
    }
}

#[test]
fn bzip2_file_reads_as_its_unpacked_text() {
    let Some(path) = bz2_file() else {
        return;
    };
    let packed = std::fs::read(&path).unwrap();
    let parsed = read_any(&packed, &options(None)).unwrap();
    assert_eq!(parsed.format, Format::Massif);
    assert_valid(&parsed.profile, "bz2");
    let text = bz2::bunzip2_capped(&packed, 1 << 30, "bzip2").unwrap();
    assert_eq!(text.len(), 581_063);
    let plain = read_any(&text, &options(None)).unwrap();
    assert_eq!(golden_text(&parsed.profile), golden_text(&plain.profile));
    assert_tables_json_round_trip(&parsed.profile, "bz2");
    // Cut or damaged, it fails with the bzip2 layer's message.
    let e = read_any(&packed[..packed.len() / 2], &options(None)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "bzip2: at byte 0: the bzip2 stream is truncated"
    );
    let mut bad = packed.clone();
    bad[1000] ^= 0x55;
    let e = read_any(&bad, &options(None)).unwrap_err();
    assert!(e.to_string().contains("corrupt bzip2 data"), "{e}");
    let small = proftab::formats::ReadOptions {
        limits: proftab::formats::Limits {
            max_decompressed_bytes: 100_000,
            ..Default::default()
        },
        ..Default::default()
    };
    let e = read_any(&packed, &small).unwrap_err();
    assert!(e.to_string().contains("exceeds the limit of 100000"), "{e}");
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    let inputs: Vec<PathBuf> = all_inputs()
        .into_iter()
        .filter(|p| !p.to_string_lossy().ends_with(".kate"))
        .collect();
    check_pprof_conversion_all_types(Format::Massif, &inputs);
}

#[test]
fn invalid_inputs() {
    assert_eq!(check_invalid_fixtures(Format::Massif, "massif"), 7);
}

#[test]
fn detection_refuses_other_formats_and_prefixes_never_panic() {
    check_robustness(Format::Massif, massif::detect, &all_inputs());
}

/// The time-order view (`analysis::timeorder`) of the recorded fixture: with `mem_heap` it lays
/// the snapshots out in order, one box each as wide as the snapshot's heap (x is accumulated
/// bytes: the file's times are not seconds, so there is no `samples..time`); the `.snapshot`
/// facet selects one snapshot, whose `heap` boxes then add up to its `mem_heap_B`.
#[test]
fn time_order_view_draws_the_snapshot_series() {
    use proftab::analysis::facets::{facet_mask, facets, FacetSource};
    use proftab::analysis::filter::SampleFilter;
    use proftab::analysis::flame::Viewport;
    use proftab::analysis::frames::Frames;
    use proftab::analysis::timeorder::time_layout;
    use proftab::analysis::tree::tree_from_stacks;

    let mut p = read_path(Format::Massif, &fixture("massif/alloc.massif.out")).profile;
    let frames = Frames::new(&p);
    let (tree, map) = tree_from_stacks(&mut p, &frames);
    let depth1 = |vt: &str, filter: &SampleFilter| -> Vec<(String, f64)> {
        let vt = p.value_type_index(vt).unwrap();
        let l = time_layout(&p, vt, filter, &tree, &map);
        assert!(!l.is_time);
        let b = l.boxes(&tree, &Viewport::all());
        (0..b.node.len())
            .filter(|&i| b.depth[i] == 1)
            .map(|i| {
                let frame = tree.frame(b.node[i] as usize) as usize;
                (frames.name[frame].clone(), b.width[i])
            })
            .collect()
    };
    let want: Vec<(String, f64)> = snapshot_totals(&p)
        .into_iter()
        .filter(|(_, v)| v[1] > 0.0)
        .map(|(n, v)| (format!("snapshot {n}"), v[1]))
        .collect();
    assert_eq!(depth1(massif::MEM_HEAP, &SampleFilter::default()), want);

    let facet = facets(&p)
        .into_iter()
        .find(|f| f.source == FacetSource::Column(massif::SAMPLE_SNAPSHOT.to_owned()))
        .unwrap();
    assert_eq!(facet.name, "snapshot");
    let peak = proftab_peak(&fixture("massif/alloc.massif.out"));
    let only_peak = SampleFilter {
        samples: Some(facet_mask(&p, &facet.source, &peak.number.to_string())),
        ..SampleFilter::default()
    };
    let heap: f64 = depth1(massif::HEAP, &only_peak).iter().map(|b| b.1).sum();
    assert_eq!(heap, peak.heap);
    let peak_heap: f64 = depth1(massif::PEAK_HEAP, &SampleFilter::default())
        .iter()
        .map(|b| b.1)
        .sum();
    assert_eq!(peak_heap, peak.heap);
}
