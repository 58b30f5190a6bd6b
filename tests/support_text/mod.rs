//! Helpers shared by the collapsed, cpuprofile and speedscope tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proftab::formats::{self, Format, Parsed, ReadOptions};
use proftab::model::{Profile, SampleIndex, ValueTypeIndex};

/// The shared corpus: `$PROFTAB_CORPUS` or `../shared/corpus`.
pub fn corpus() -> PathBuf {
    std::env::var_os("PROFTAB_CORPUS").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")),
        PathBuf::from,
    )
}

/// Files of a corpus folder, sorted.
pub fn corpus_files(dir: &str) -> Vec<PathBuf> {
    files_in(&corpus().join(dir))
}

/// Files of a folder, sorted (empty when the folder is missing).
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = rd
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// A fixture under `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures")).join(rel)
}

/// Reads a file as `format` with its name as source URI.
pub fn read_path(format: Format, path: &Path) -> Parsed {
    let bytes = std::fs::read(path).unwrap();
    let opts = ReadOptions {
        source_uri: Some(path.display().to_string()),
        ..ReadOptions::default()
    };
    formats::read_as(format, &bytes, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

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
        .map(|loc| proftab::analysis::functions::frame_display_name(p, loc))
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

/// Runs every `<case>.<ext>` in `tests/fixtures/invalid/<dir>/` that has a `<case>.expected`
/// through `read_as(format)` and checks the error's text (first line of `.expected`) or, when
/// the expected text starts with `warning: `, that reading succeeds with such a warning.
pub fn check_invalid_fixtures(format: Format, dir: &str) -> usize {
    let mut checked = 0;
    for path in files_in(&fixture(&format!("invalid/{dir}"))) {
        if path.extension().is_some_and(|e| e == "expected") {
            continue;
        }
        let expected_path = path.with_extension("expected");
        let expected = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|_| panic!("missing {}", expected_path.display()));
        let expected = expected.trim_end_matches('\n');
        let bytes = std::fs::read(&path).unwrap();
        let result = formats::read_as(format, &bytes, &ReadOptions::default());
        if let Some(w) = expected.strip_prefix("warning: ") {
            let parsed = result.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(
                parsed.warnings.iter().any(|x| x.to_string() == w),
                "{}: no warning {w:?} in {:?}",
                path.display(),
                parsed
                    .warnings
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
            );
        } else {
            match result {
                Ok(_) => panic!("{}: read succeeded, expected {expected:?}", path.display()),
                Err(e) => assert_eq!(e.to_string(), expected, "{}", path.display()),
            }
        }
        checked += 1;
    }
    checked
}

/// Every prefix (up to 4 KiB inputs) or 256 evenly spaced cut points of `bytes` must read
/// without a panic.
pub fn truncation_sweep(format: Format, bytes: &[u8]) {
    let n = bytes.len();
    let cuts: Vec<usize> = if n <= 4096 {
        (0..n).collect()
    } else {
        (0..256).map(|i| i * n / 256).collect()
    };
    for cut in cuts {
        let _ = formats::read_as(format, &bytes[..cut], &ReadOptions::default());
    }
}
