//! The Rprof reader on real files: the model it builds, the docs/formats/rprof.md oracle values
//! (R 4.2.2 `summaryRprof()`), detection, and robustness sweeps (every prefix, seeded
//! mutations: never a panic, and whatever is read can be written).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use support::profile::assert_valid;

use support::rprof_gen::Lcg;

use proftab::analysis::functions::function_table;
use proftab::formats::{self, rprof, Format, ReadOptions, WriteOptions};
use proftab::model::{Profile, SampleIndex, ValueTypeIndex, INT_NA, SAMPLE_TIME};

fn read_path(path: &std::path::Path) -> formats::Parsed {
    let bytes = std::fs::read(path).unwrap();
    let parsed = rprof::read(&bytes, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_valid(&parsed.profile, &path.display().to_string());
    parsed
}

fn corpus(name: &str) -> Profile {
    read_path(&support::corpus::corpus().join(name)).profile
}

fn fixture(name: &str) -> Profile {
    read_path(&support::corpus::fixture("rprof").join(name)).profile
}

fn vt(p: &Profile, name: &str) -> ValueTypeIndex {
    p.value_type_index(name).unwrap()
}

/// (self seconds, total seconds) of function `name` by the `time` value type.
fn seconds(p: &Profile, name: &str) -> (f64, f64) {
    let t = function_table(p, vt(p, "time"), None);
    let row = t.rows.iter().find(|r| r.name == name).unwrap();
    (row.self_value / 1e9, row.total_value / 1e9)
}

fn total_seconds(p: &Profile) -> f64 {
    p.value_column(vt(p, "time")).unwrap().total() / 1e9
}

fn assert_close(got: (f64, f64), want: (f64, f64), what: &str) {
    assert!(
        (got.0 - want.0).abs() < 1e-9 && (got.1 - want.1).abs() < 1e-9,
        "{what}: got {got:?}, want {want:?}"
    );
}

#[test]
fn oracle_table_of_formats_md() {
    let p = corpus("rprof/profile-1.out");
    assert!((total_seconds(&p) - 0.44).abs() < 1e-9);
    assert_close(seconds(&p, ".Call"), (0.14, 0.14), ".Call");
    assert_close(seconds(&p, "$"), (0.04, 0.04), "$");
    assert_close(seconds(&p, "extends"), (0.02, 0.06), "extends");

    let p = corpus("rprof/aprof-testthat-foo.prof");
    assert!((total_seconds(&p) - 0.18).abs() < 1e-9);
    assert_close(seconds(&p, "sample.int"), (0.06, 0.06), "sample.int");
    assert_close(seconds(&p, "foo"), (0.04, 0.18), "foo");
    assert_close(seconds(&p, "sample"), (0.04, 0.12), "sample");

    let p = corpus("rprof/lineprof-read-delim.prof");
    assert!((total_seconds(&p) - 1.91).abs() < 1e-9);
    assert_close(seconds(&p, "<GC>"), (1.90, 1.90), "<GC>");
    assert_close(seconds(&p, "scan"), (0.01, 0.98), "scan");

    // summaryRprof says 0.05 s: it drops the memory-only sample line, proftab keeps it (a
    // sample without frames); and it splits "test space" at the space.
    let p = corpus("rprof/profvis-test-parse.prof");
    assert!((total_seconds(&p) - 0.06).abs() < 1e-9);
    assert_close(seconds(&p, "<GC>"), (0.02, 0.02), "<GC>");
    assert_close(seconds(&p, "test"), (0.01, 0.03), "test");
    assert_close(seconds(&p, ":"), (0.01, 0.01), ":");
    assert_close(seconds(&p, "test space"), (0.01, 0.01), "test space");

    // summaryRprof says 1.36 s: it keeps the cut last line, proftab drops it.
    let p = corpus("invalid/rprof-aprof-truncated-4096.out");
    assert!((total_seconds(&p) - 1.34).abs() < 1e-9);
    assert!((seconds(&p, "gsub").0 - 0.28).abs() < 1e-9);
}

#[test]
fn memory_matches_summary_rprof_mem_total() {
    // docs/formats/rprof.md: mem.total 21.1 MiB for "foo", 8.0 for "sample", 6.7 for "sample.int";
    // hand check: Σ over samples 2..9 of 8Δsmall + 8Δlarge + Δnodes = 22 079 136 bytes, and
    // "foo" is in every sample.
    let p = corpus("rprof/aprof-testthat-foo.prof");
    let t = function_table(&p, vt(&p, "memory_increase"), None);
    let mib = |name: &str| {
        let row = t.rows.iter().find(|r| r.name == name).unwrap();
        (row.total_value / 1_048_576.0 * 10.0).round() / 10.0
    };
    assert_eq!(t.total, 22_079_136.0);
    assert_eq!(mib("foo"), 21.1);
    assert_eq!(mib("sample"), 8.0);
    assert_eq!(mib("sample.int"), 6.7);
    // Raw totals of the first line `:319194:653668:23351664:3658:`.
    let first = |name: &str| p.value_column(vt(&p, name)).unwrap().get(0).unwrap();
    assert_eq!(first("vsize_small"), 319_194.0 * 8.0);
    assert_eq!(first("vsize_large"), 653_668.0 * 8.0);
    assert_eq!(first("nodes"), 23_351_664.0);
    assert_eq!(first("duplications"), 3658.0);
    assert_eq!(first("memory_increase"), 0.0);
}

#[test]
fn value_types_times_and_sources() {
    let parsed = read_path(&support::corpus::fixture("rprof").join("combined.out"));
    let p = &parsed.profile;
    let names: Vec<_> = (0..p.values.len())
        .map(|i| p.value_type_names(ValueTypeIndex(i as u32)))
        .collect();
    assert_eq!(
        names,
        vec![
            ("samples", "count"),
            ("time", "nanoseconds"),
            ("vsize_small", "bytes"),
            ("vsize_large", "bytes"),
            ("nodes", "bytes"),
            ("duplications", "count"),
            ("memory_increase", "bytes"),
            ("memory_freed", "bytes"),
        ]
    );
    assert_eq!(p.meta_value("default_sample_type"), Some("time"));
    let n = p.num_samples();
    // One sample per line that is neither the header nor a #File line.
    let text =
        std::fs::read_to_string(support::corpus::fixture("rprof").join("combined.out")).unwrap();
    let lines = text
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with("#File"))
        .count();
    assert_eq!(n, lines);
    let times = p.samples.ext.dbl(SAMPLE_TIME).unwrap();
    for (i, t) in times.iter().enumerate() {
        assert!((t - (i + 1) as f64 * 0.01).abs() < 1e-9);
    }
    assert_eq!(p.sources.source_type.len(), 1);
    assert_eq!(p.str(p.sources.source_type[0]), "rprof");
    assert!(p.sources.source_timestamp[0].is_nan());
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
}

#[test]
fn source_uri_is_the_name_given() {
    let bytes = std::fs::read(support::corpus::fixture("rprof").join("time.out")).unwrap();
    let options = ReadOptions {
        source_uri: Some("time.out".to_owned()),
        ..ReadOptions::default()
    };
    let p = rprof::read(&bytes, &options).unwrap().profile;
    assert_eq!(p.str(p.sources.source_uri[0]), "time.out");
}

#[test]
fn names_are_kept_exactly() {
    let p = fixture("combined.out");
    let names: Vec<&str> = p.functions.name.iter().map(|&s| p.str(s)).collect();
    for want in [
        "<GC>",
        "handlers[[\"a b\"]]",
        "handlers$plain",
        "obj$run",
        "summary.lm",
        "stats::model.frame",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    for f in 0..p.functions.name.len() {
        assert_eq!(p.functions.name[f], p.functions.system_name[f]);
    }
}

#[test]
fn source_references_give_file_line_and_start_line() {
    let p = fixture("combined.out");
    let main = (0..p.functions.name.len())
        .find(|&f| p.str(p.functions.name[f]) == "main")
        .unwrap();
    assert_eq!(p.str(p.functions.filename[main]), "workload.R");
    // main's body is lines 25..33 of workload.R; the profile sees calls on lines 26..31.
    let lines: Vec<i32> = (0..p.locations.line.len())
        .filter(|&l| p.locations.function[l] as usize == main)
        .map(|l| p.locations.line[l])
        .collect();
    assert!(lines.iter().all(|l| (26..=31).contains(l)), "{lines:?}");
    assert_eq!(p.functions.start_line[main], *lines.iter().min().unwrap());
    // A function without source references has no file and start line 0.
    let rnorm = (0..p.functions.name.len())
        .find(|&f| p.str(p.functions.name[f]) == "rnorm")
        .unwrap();
    assert!(p.functions.filename[rnorm].is_na());
    assert_eq!(p.functions.start_line[rnorm], 0);
}

#[test]
fn console_code_has_an_empty_file_name() {
    let p = fixture("console.out");
    assert_eq!(p.functions.name.len(), 1);
    assert!(!p.functions.filename[0].is_na());
    assert_eq!(p.str(p.functions.filename[0]), "");
}

#[test]
fn toplevel_source_reference_and_memory_only_line() {
    // profvis-test-parse.prof line 4: `:…:1#2 "test" 1#1 ` and line 8: `:…:` alone.
    let p = corpus("rprof/profvis-test-parse.prof");
    let lines = p.samples.ext.int(".rprof_toplevel_line").unwrap();
    assert_eq!(lines[0], 1);
    assert_eq!(lines[4], INT_NA);
    let last = SampleIndex(p.num_samples() as u32 - 1);
    assert_eq!(p.sample_stack(last), None);
    assert_eq!(
        p.value_column(vt(&p, "vsize_small"))
            .unwrap()
            .get(last.idx()),
        Some(2_097_152.0 * 8.0)
    );
}

#[test]
fn appended_runs_keep_their_headers_and_intervals() {
    let p = fixture("append.out");
    let headers: Vec<&str> = p.meta_values("rprof.header").collect();
    assert_eq!(
        headers,
        vec![
            "memory profiling: line profiling: sample.interval=10000",
            "memory profiling: line profiling: sample.interval=20000"
        ]
    );
    let runs = p.samples.ext.int(".rprof_run").unwrap();
    let time = p.value_column(vt(&p, "time")).unwrap();
    let first_of_second = runs.iter().position(|&r| r == 2).unwrap();
    assert!(runs[..first_of_second].iter().all(|&r| r == 1));
    assert!(runs[first_of_second..].iter().all(|&r| r == 2));
    assert_eq!(time.get(0), Some(10_000_000.0));
    assert_eq!(time.get(first_of_second), Some(20_000_000.0));
    // Memory increase restarts with the run.
    let inc = p.value_column(vt(&p, "memory_increase")).unwrap();
    assert_eq!(inc.get(first_of_second), Some(0.0));
}

#[test]
fn crlf_reads_like_lf() {
    let lf = std::fs::read(support::corpus::fixture("rprof").join("combined.out")).unwrap();
    let crlf = String::from_utf8(lf.clone()).unwrap().replace('\n', "\r\n");
    let a = rprof::read(&lf, &ReadOptions::default()).unwrap();
    let b = rprof::read(crlf.as_bytes(), &ReadOptions::default()).unwrap();
    assert!(b.warnings.is_empty());
    let wa = rprof::write(&a.profile, &WriteOptions::default()).unwrap();
    let wb = rprof::write(&b.profile, &WriteOptions::default()).unwrap();
    assert_eq!(wa.bytes, wb.bytes);
    assert_eq!(wa.bytes, lf);
}

#[test]
fn valid_files_read_without_warnings_and_are_detected() {
    let files = support::r::valid_files();
    assert!(files.len() >= 15, "{files:?}");
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            formats::detect(&bytes),
            Some(Format::Rprof),
            "{}",
            path.display()
        );
        let parsed = formats::read_any(&bytes, &ReadOptions::default()).unwrap();
        assert_valid(&parsed.profile, &path.display().to_string());
        assert!(
            parsed.warnings.is_empty(),
            "{}: {:?}",
            path.display(),
            parsed.warnings
        );
        assert!(parsed.profile.num_samples() > 0);
    }
}

#[test]
fn r_written_files_round_trip_byte_for_byte() {
    for path in support::r::valid_files() {
        let bytes = std::fs::read(&path).unwrap();
        let parsed = rprof::read(&bytes, &ReadOptions::default()).unwrap();
        let written = rprof::write(&parsed.profile, &WriteOptions::default()).unwrap();
        assert!(
            written.warnings.is_empty(),
            "{}: {:?}",
            path.display(),
            written.warnings
        );
        assert!(written.bytes == bytes, "{} differs", path.display());
    }
}

/// Reading must never panic; what reads is valid and writes.
fn read_and_write(bytes: &[u8]) {
    if let Ok(parsed) = rprof::read(bytes, &ReadOptions::default()) {
        assert_valid(&parsed.profile, &String::from_utf8_lossy(bytes));
        rprof::write(&parsed.profile, &WriteOptions::default()).unwrap();
    }
}

/// Cut points per file of the prefix sweep (every prefix for files up to this many bytes).
const PREFIX_CUTS_PER_FILE: usize = 96;

#[test]
fn prefixes_read_or_fail_cleanly() {
    for path in support::r::valid_files()
        .into_iter()
        .chain(support::r::damaged_corpus_files())
    {
        let bytes = std::fs::read(&path).unwrap();
        let step = (bytes.len() / PREFIX_CUTS_PER_FILE).max(1);
        for cut in (0..=bytes.len()).step_by(step) {
            read_and_write(&bytes[..cut]);
        }
    }
}

#[test]
fn generated_file_reads_and_writes_back_identically() {
    let bytes = support::rprof_gen::generate(300_000, 7);
    let parsed = rprof::read(&bytes, &ReadOptions::default()).unwrap();
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert_valid(&parsed.profile, "generated");
    let lines = bytes
        .split(|&b| b == b'\n')
        .filter(|l| l.first() == Some(&b':'))
        .count();
    assert_eq!(parsed.profile.num_samples(), lines);
    let written = rprof::write(&parsed.profile, &WriteOptions::default()).unwrap();
    assert!(written.bytes == bytes);
}

#[test]
fn seeded_mutations_never_panic() {
    const MUTATIONS_PER_FILE: usize = 120;
    const MAX_FILE_BYTES: usize = 16 * 1024;
    const INTERESTING: &[u8] = b"\"#: \n\r0123456789\x00\xff";
    let mut rng = Lcg(0x5eed);
    for path in support::r::valid_files() {
        let original = std::fs::read(&path).unwrap();
        if original.len() > MAX_FILE_BYTES {
            continue;
        }
        for _ in 0..MUTATIONS_PER_FILE {
            let mut bytes = original.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len());
                let byte = INTERESTING[rng.below(INTERESTING.len())];
                match rng.below(3) {
                    0 => bytes[at] = byte,
                    1 => bytes.insert(at, byte),
                    _ => {
                        bytes.remove(at);
                    }
                }
            }
            read_and_write(&bytes);
        }
    }
}

#[test]
fn names_with_line_breaks_span_lines() {
    // R wrote `odd<newline>name` raw: every sample takes two lines of the file.
    let p = fixture("newline-names.out");
    let text = std::fs::read(support::corpus::fixture("rprof").join("newline-names.out")).unwrap();
    let physical_lines = text.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(p.num_samples(), (physical_lines - 1) / 2);
    let names: Vec<&str> = p.functions.name.iter().map(|&s| p.str(s)).collect();
    assert_eq!(names, vec!["odd\nname", "tab\tname"]);
}
