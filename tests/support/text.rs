//! Helpers of the tests of the text-like formats (collapsed, cpuprofile, speedscope,
//! goroutine dumps, pprof-text): stack summaries, detection, round trips, truncation sweeps,
//! invalid inputs, and conversions of Go pprof files judged by `go tool pprof -top`.
//!
//! A [`Summary`] holds, per value type, the total and the summed value of every stack (as
//! `a;b;c`, outermost first): what a format keeps when it keeps a profile's meaning.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proftab::analysis::functions::function_table;
use proftab::formats::{self, Format, ReadOptions};
use proftab::model::{Profile, SampleIndex, ValueTypeIndex, META_DEFAULT_TYPE};

use super::corpus::{corpus, corpus_files, fixture};
use super::go::{go_top, TopRow};
use super::golden;
use super::profile::{assert_valid, read_path};

/// Asserts that detection by content gives `format`, and that `read_any` with and without a
/// file name picks the same format.
pub fn assert_detected(format: Format, path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(
        formats::detect(&bytes),
        Some(format),
        "{} should be detected as {}",
        path.display(),
        format.name()
    );
    let named = ReadOptions {
        source_uri: Some(path.file_name().unwrap().to_string_lossy().into_owned()),
        ..ReadOptions::default()
    };
    let a = formats::read_any(&bytes, &named).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let b = formats::read_any(&bytes, &ReadOptions::default()).unwrap();
    assert_eq!(a.format, format);
    assert_eq!(b.format, format);
}

/// Per value type: (type/unit → (total, {stack text root first → summed value})).
pub type Summary = BTreeMap<String, (f64, BTreeMap<String, f64>)>;

/// The stack of sample `s` as `a;b;c` (outermost first).
pub fn stack_text(p: &Profile, s: usize) -> String {
    let stack = p.sample_stack(SampleIndex(s as u32));
    let mut names: Vec<String> = p
        .frames_leaf_first(stack)
        .map(|loc| p.frame_display_name(loc))
        .collect();
    names.reverse();
    names.join(";")
}

/// Totals and per-stack sums of every value type.
pub fn summary(p: &Profile) -> Summary {
    let mut out = Summary::new();
    for (i, col) in p.values.iter().enumerate() {
        let (t, u) = p.value_type_names(ValueTypeIndex(i as u32));
        let mut stacks = BTreeMap::new();
        for s in 0..p.num_samples() {
            if let Some(v) = col.get(s) {
                *stacks.entry(stack_text(p, s)).or_insert(0.0) += v;
            }
        }
        out.insert(format!("{t}/{u}"), (col.total(), stacks));
    }
    out
}

/// Asserts two summaries are equal up to floating-point rounding of sums.
pub fn assert_same_summary(a: &Summary, b: &Summary, what: &str) {
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{what}: value types"
    );
    for (k, (ta, sa)) in a {
        let (tb, sb) = &b[k];
        assert!(close(*ta, *tb), "{what}: total of {k}: {ta} vs {tb}");
        assert_eq!(
            sa.keys().collect::<Vec<_>>(),
            sb.keys().collect::<Vec<_>>(),
            "{what}: stacks of {k}"
        );
        for (stack, va) in sa {
            assert!(
                close(*va, sb[stack]),
                "{what}: {k} of {stack}: {va} vs {}",
                sb[stack]
            );
        }
    }
}

/// Equal within a relative 1e-9.
pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Total of value type `name`.
pub fn total(p: &Profile, name: &str) -> f64 {
    let vt = p
        .value_type_index(name)
        .unwrap_or_else(|| panic!("no value type {name}"));
    p.value_column(vt).unwrap().total()
}

/// Runs every input of `tests/fixtures/invalid/<dir>/` through `read_as(format)`: its
/// `.expected` file holds the error's text, or the reader's warnings as `warning: TEXT` lines
/// when the read succeeds. Returns the number of inputs.
pub fn check_invalid_fixtures(format: Format, dir: &str) -> usize {
    let dir = fixture("invalid").join(dir);
    golden::check_cases(&dir, golden::check, |_, bytes| {
        match formats::read_as(format, bytes, &ReadOptions::default()) {
            Ok(parsed) => parsed
                .warnings
                .iter()
                .map(|w| format!("warning: {w}\n"))
                .collect(),
            Err(e) => format!("{e}\n"),
        }
    })
}

/// Every prefix (inputs up to 4 KiB), 256 evenly spaced cut points (up to 64 KiB) or 48 (larger
/// inputs) of `bytes` must read without a panic.
pub fn truncation_sweep(format: Format, bytes: &[u8]) {
    let n = bytes.len();
    let cuts: Vec<usize> = if n <= 4096 {
        (0..n).collect()
    } else {
        let points = if n <= 65_536 { 256 } else { 48 };
        (0..points).map(|i| i * n / points).collect()
    };
    for cut in cuts {
        let _ = formats::read_as(format, &bytes[..cut], &ReadOptions::default());
    }
}

/// [`truncation_sweep`] over every file of corpus folder `dir`.
pub fn truncation_sweep_corpus(format: Format, dir: &str) {
    for path in corpus_files(dir) {
        truncation_sweep(format, &std::fs::read(path).unwrap());
    }
}

/// The corpus folders of the formats these tests meet, one per format.
pub const FORMAT_DIRS: [&str; 7] = [
    "rprof",
    "pprof",
    "otlp",
    "firefox",
    "collapsed",
    "cpuprofile",
    "speedscope",
];

/// Asserts that `detect` claims no file of the corpus folders of [`FORMAT_DIRS`] other than
/// `own`, nor of the folders `extra`.
pub fn assert_other_formats_not_claimed(detect: fn(&[u8]) -> bool, own: &str, extra: &[&str]) {
    let others: Vec<&str> = FORMAT_DIRS
        .into_iter()
        .filter(|&d| d != own)
        .chain(extra.iter().copied())
        .collect();
    assert_not_claimed(detect, &others);
}

/// Writes `profile` as pprof to `out` and checks `go tool pprof -top` of that file for value
/// type `vt_name` (in `unit`) against proftab's function table of `profile`
/// ([`assert_matches_go_top`]). False, after a `SKIP:` line, when Go is missing.
pub fn assert_pprof_keeps_top(
    profile: &Profile,
    out: &Path,
    vt_name: &str,
    unit: &str,
    what: &str,
) -> bool {
    let written = formats::pprof::write(profile, &formats::WriteOptions::default()).unwrap();
    std::fs::write(out, &written.bytes).unwrap();
    let Some(rows) = go_top(out, vt_name, unit) else {
        return false;
    };
    assert_matches_go_top(profile, vt_name, &rows, what);
    let _ = std::fs::remove_file(out);
    true
}

/// Checks proftab's function table of `profile` for value type `vt_name` against `go tool
/// pprof -top` rows: every Go row has a proftab row of the same name with equal self/total.
pub fn assert_matches_go_top(profile: &Profile, vt_name: &str, rows: &[TopRow], what: &str) {
    let vt = profile.value_type_index(vt_name).unwrap();
    let table = function_table(profile, vt, None);
    assert!(!rows.is_empty(), "{what}: go printed no rows");
    for row in rows {
        let mine = table
            .rows
            .iter()
            .find(|r| r.name == row.name)
            .unwrap_or_else(|| panic!("{what}: no row for {}", row.name));
        for (column, got, want) in [
            ("flat", mine.self_value, row.flat),
            ("cum", mine.total_value, row.cum),
        ] {
            assert!(
                close(got, want),
                "{what}: {column} of {}: {got} vs {want}",
                row.name
            );
        }
    }
    let named = table
        .rows
        .iter()
        .filter(|r| r.self_value != 0.0 || r.total_value != 0.0)
        .count();
    assert_eq!(named, rows.len(), "{what}: number of functions");
}

/// Go pprof files used for the cross-format checks: (path, sample type).
pub fn go_pprof_inputs() -> Vec<(PathBuf, &'static str)> {
    let mut v = vec![
        (corpus().join("pprof/speedscope-simple.prof"), "cpu"),
        (corpus().join("pprof/speedscope-simple.prof"), "samples"),
        (corpus().join("pprof/parca-fib.pb.gz"), "cpu"),
        (corpus().join("pprof/parca-fgprof.pb.gz"), "time"),
    ];
    let own = fixture("pprof/cpu.pb.gz");
    if own.exists() {
        v.push((own, "cpu"));
    }
    v
}

/// The pprof profile at `path`, or `None` (after printing `SKIP:`) while proftab cannot read
/// pprof (the pprof reader lands from another branch).
pub fn read_go_pprof(path: &Path) -> Option<Profile> {
    if !Format::Pprof.can_read() {
        eprintln!("SKIP: proftab has no pprof reader yet; cross-format check not run");
        return None;
    }
    Some(read_path(Format::Pprof, path).profile)
}

/// Asserts that `detect` claims no file of the corpus folders `dirs`.
pub fn assert_not_claimed(detect: fn(&[u8]) -> bool, dirs: &[&str]) {
    for dir in dirs {
        for path in corpus_files(dir) {
            let bytes = std::fs::read(&path).unwrap();
            assert!(!detect(&bytes), "{} claimed", path.display());
        }
    }
}

/// For every file of corpus folder `dir`: read → write → read gives the same totals and
/// stacks per value type and the same default type; writing twice, and writing the re-read
/// profile, give identical bytes.
pub fn assert_round_trips(format: Format, dir: &str) {
    let write = |p: &Profile| {
        formats::write_as(format, p, &formats::WriteOptions::default())
            .unwrap()
            .bytes
    };
    for path in corpus_files(dir) {
        let what = path.display().to_string();
        let first = read_path(format, &path).profile;
        let written = write(&first);
        assert_eq!(written, write(&first), "{what}: not deterministic");
        let second = formats::read_as(format, &written, &ReadOptions::default())
            .unwrap()
            .profile;
        assert_valid(&second, &what);
        assert_same_summary(&summary(&first), &summary(&second), &what);
        assert_eq!(
            first.meta_value(META_DEFAULT_TYPE),
            second.meta_value(META_DEFAULT_TYPE),
            "{what}: default type"
        );
        assert_eq!(write(&second), written, "{what}: rewriting changes bytes");
    }
}

/// Converts every Go pprof input to `format` (writing its sample type) and reads it back:
/// proftab's function table of the result must equal `go tool pprof -top` of the original.
pub fn assert_go_pprof_conversion(format: Format) {
    for (path, index) in go_pprof_inputs() {
        let Some(profile) = read_go_pprof(&path) else {
            return;
        };
        let vt = profile.value_type_index(index).unwrap();
        let unit = profile.value_type_names(vt).1.to_owned();
        let Some(rows) = go_top(&path, index, &unit) else {
            return;
        };
        let options = formats::WriteOptions {
            value_type: Some(index.to_owned()),
            ..Default::default()
        };
        let written = formats::write_as(format, &profile, &options).unwrap();
        let back = formats::read_as(format, &written.bytes, &ReadOptions::default())
            .unwrap()
            .profile;
        let back_type = back.meta_value(META_DEFAULT_TYPE).unwrap().to_owned();
        let what = format!("{} ({index}) via {}", path.display(), format.name());
        assert_matches_go_top(&back, &back_type, &rows, &what);
    }
}

/// Writes `p` as tables-JSON, reads it back and asserts the same totals and stacks per value
/// type; `what` names the input.
pub fn assert_kept_through_tables_json(p: &Profile, what: &str) {
    let written = formats::write_as(Format::TablesJson, p, &formats::WriteOptions::default())
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let back = formats::read_as(Format::TablesJson, &written.bytes, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{what}: {e}"))
        .profile;
    assert_same_summary(&summary(p), &summary(&back), what);
}
