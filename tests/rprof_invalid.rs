//! Bad Rprof input: every file in `tests/fixtures/invalid/rprof/` gives exactly the error or
//! the warnings (with the kept sample count) written in its `.expected` file, and every Rprof
//! file of the shared corpus's `invalid/` reads with warnings, never an error or a panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::formats::{rprof, ReadOptions};
use support::corpus::{corpus, fixture};
use support::golden;

/// The outcome of reading `bytes`, in the `.expected` format.
fn outcome(bytes: &[u8]) -> String {
    match rprof::read(bytes, &ReadOptions::default()) {
        Ok(parsed) => {
            let violations = parsed.profile.validate();
            assert!(violations.is_empty(), "{violations:?}");
            let mut s: String = parsed
                .warnings
                .iter()
                .map(|w| format!("warning: {w}\n"))
                .collect();
            s.push_str(&format!("samples: {}\n", parsed.profile.num_samples()));
            s
        }
        Err(e) => format!("error: {e}\n"),
    }
}

#[test]
fn invalid_fixtures_give_the_expected_messages() {
    let dir = fixture("invalid/rprof");
    let n = golden::check_cases(&dir, golden::check, |_, bytes| outcome(bytes));
    assert!(n >= 20, "only {n} fixtures");
}

#[test]
fn damaged_corpus_files_read_with_warnings() {
    let files = support::r::damaged_corpus_files();
    assert!(!files.is_empty(), "no corpus at {}", corpus().display());
    for path in files {
        let parsed = rprof::read(&std::fs::read(&path).unwrap(), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            !parsed.warnings.is_empty(),
            "{}: no warning",
            path.display()
        );
        assert!(parsed.profile.num_samples() > 0);
    }
}

#[test]
fn truncated_corpus_file_drops_only_its_last_line() {
    // rprof-aprof-truncated-4096.out: a header and 68 sample lines, the last without line end.
    // R's summaryRprof counts 1.36 s at 20 ms (68 samples, the cut line included); proftab
    // drops the cut line.
    let path = corpus().join("invalid/rprof-aprof-truncated-4096.out");
    let parsed = rprof::read(&std::fs::read(path).unwrap(), &ReadOptions::default()).unwrap();
    assert_eq!(parsed.profile.num_samples(), 67);
    assert_eq!(parsed.warnings.len(), 1);
    assert!(parsed.warnings[0].message.contains("no line end"));
}

#[test]
fn incomplete_corpus_file_keeps_cut_samples() {
    // rprof-profile-incomplete.out: the same sample 18 times, each one character shorter (by
    // hand: 10 copies end inside a name, 2 inside a source reference). Those keep their
    // complete frames, with one counted warning per kind of cut.
    let path = corpus().join("invalid/rprof-profile-incomplete.out");
    let text = std::fs::read(&path).unwrap();
    let parsed = rprof::read(&text, &ReadOptions::default()).unwrap();
    let sample_lines = text
        .split(|&b| b == b'\n')
        .filter(|l| l.first() == Some(&b'"'))
        .count();
    assert_eq!(parsed.profile.num_samples(), sample_lines);
    let count = |needle: &str| {
        parsed
            .warnings
            .iter()
            .find(|w| w.message.contains(needle))
            .map_or(0, |w| w.count)
    };
    assert_eq!(count("without its closing quote"), 10);
    assert_eq!(count("without its line number"), 2);
}

#[test]
fn limits_are_errors_not_exhaustion() {
    use proftab::formats::Limits;
    // A stack deeper than max_stack_depth.
    let mut deep = b"sample.interval=10000\n".to_vec();
    deep.extend(b"\"f\" ".repeat(2_000));
    deep.push(b'\n');
    let small = ReadOptions {
        limits: Limits {
            max_stack_depth: 1_000,
            max_samples: 3,
            ..Limits::default()
        },
        ..ReadOptions::default()
    };
    let e = rprof::read(&deep, &small).unwrap_err();
    assert_eq!(
        e.to_string(),
        "rprof: line 2: the sample has more than 1000 frames (limit max_stack_depth)"
    );
    // More samples than max_samples.
    let many = b"sample.interval=10000\n\"f\" \n\"f\" \n\"f\" \n\"f\" \n";
    let e = rprof::read(many, &small).unwrap_err();
    assert_eq!(
        e.to_string(),
        "rprof: line 5: more than 3 samples (limit max_samples)"
    );
}

#[test]
fn huge_names_and_lines_stay_linear() {
    // A 4 MB name, and a 4 MB line cut inside a name: read in one pass, no quadratic rescans.
    let mut text = b"sample.interval=10000\n\"".to_vec();
    text.extend(std::iter::repeat_n(b'x', 4 << 20));
    text.extend(b"\" \n\"");
    text.extend(b"a\"b".repeat(1 << 20));
    text.push(b'\n');
    let started = std::time::Instant::now();
    let parsed = rprof::read(&text, &ReadOptions::default()).unwrap();
    assert!(
        started.elapsed().as_secs() < 60,
        "a quadratic rescan would take hours"
    );
    assert_eq!(parsed.profile.num_samples(), 1);
    assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
}
