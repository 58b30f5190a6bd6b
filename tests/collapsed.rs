//! Collapsed / folded stacks: detection, reading, writing, round trips, bad input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::formats::{self, collapsed, Format, ReadOptions, WriteOptions};
use proftab::model::META_DEFAULT_TYPE;
use support::corpus::*;
use support::profile::*;
use support::text::*;

fn read_corpus(name: &str) -> formats::Parsed {
    read_path(Format::Collapsed, &corpus().join("collapsed").join(name))
}

fn read_text(text: &[u8]) -> formats::Parsed {
    collapsed::read(text, &ReadOptions::default()).unwrap()
}

#[test]
fn every_corpus_file_is_detected_and_read() {
    let files = corpus_files("collapsed");
    assert!(files.len() >= 30, "corpus missing: {}", corpus().display());
    for path in &files {
        assert_detected(Format::Collapsed, path);
        let parsed = read_path(Format::Collapsed, path);
        assert!(parsed.profile.num_samples() > 0, "{}", path.display());
        assert_eq!(
            parsed.profile.meta_value(META_DEFAULT_TYPE),
            Some("samples")
        );
    }
}

#[test]
fn other_formats_are_not_claimed() {
    assert_other_formats_not_claimed(collapsed::detect, "collapsed", &[]);
    for name in [
        "rprof-aprof-truncated-4096.out",
        "rprof-profile-incomplete.out",
    ] {
        let bytes = std::fs::read(corpus().join("invalid").join(name)).unwrap();
        assert!(!collapsed::detect(&bytes), "{name} claimed");
    }
}

/// speedscope-simple.txt counted by hand: a;b;c 1+1+3, a;b;d 4, a;b 5.
fn expected_simple() -> Summary {
    let stacks = [("a;b", 5.0), ("a;b;c", 5.0), ("a;b;d", 4.0)]
        .into_iter()
        .map(|(s, v)| (s.to_owned(), v))
        .collect();
    [("samples/count".to_owned(), (14.0, stacks))]
        .into_iter()
        .collect()
}

#[test]
fn simple_file_and_its_encodings() {
    for name in [
        "speedscope-simple.txt",
        "speedscope-simple-crlf.txt",
        "speedscope-simple-utf16-le.txt",
        "speedscope-simple-utf16-be.txt",
        "speedscope-simple-with-invalids.txt",
    ] {
        let parsed = read_corpus(name);
        assert_eq!(parsed.profile.num_samples(), 5, "{name}: one row per line");
        assert_same_summary(&summary(&parsed.profile), &expected_simple(), name);
    }
}

#[test]
fn invalid_lines_are_counted_and_comments_kept() {
    let parsed = read_corpus("speedscope-simple-with-invalids.txt");
    let w: Vec<String> = parsed.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        w,
        ["collapsed: ignored lines that are not `stack count` (first at line 2: \"// some other comment\") (2 times)"]
    );
    let comments: Vec<&str> = parsed
        .profile
        .meta_values(collapsed::META_COMMENT)
        .collect();
    assert_eq!(
        comments,
        ["comment that gives extra info about the samples"]
    );

    let bad = read_path(
        Format::Collapsed,
        &corpus().join("invalid/collapsed-inferno-bad-lines.txt"),
    );
    assert_eq!(bad.warnings.len(), 1);
    assert_eq!(bad.warnings[0].count, 2);
    // 31 + 6 + 1 + 19 + 2 + 274 + 274, counted by hand.
    assert_eq!(total(&bad.profile, "samples"), 607.0);
    assert_eq!(bad.profile.num_samples(), 7);
}

#[test]
fn empty_corpus_file_is_an_error() {
    let bytes = std::fs::read(corpus().join("invalid/collapsed-inferno-empty.txt")).unwrap();
    let err = collapsed::read(&bytes, &ReadOptions::default()).unwrap_err();
    assert_eq!(err.to_string(), "collapsed: the file is empty");
    assert!(formats::read_any(&bytes, &ReadOptions::default()).is_err());
}

#[test]
fn fractional_counts_are_kept_exactly() {
    let p = read_corpus("inferno-fractional.txt").profile;
    // 31.23 + 6.1 + 1.4 + 19.0 + 2.567 + 274.321
    assert!(close(total(&p, "samples"), 334.618));
    let z = read_corpus("inferno-zero-fractionals.txt").profile;
    // 31.0 + 6. + 1 + 19 + 2.0 + 274
    assert_eq!(total(&z, "samples"), 333.0);
}

#[test]
fn differential_file_has_two_value_types() {
    let p = read_corpus("inferno-differential-collapsed-all-diff.txt").profile;
    assert_eq!(p.values.len(), 2);
    // before: 31+6+1+19+2+274; after: 56+2+3+35+2+415
    assert_eq!(total(&p, "before"), 333.0);
    assert_eq!(total(&p, "samples"), 513.0);
    assert_eq!(p.meta_value(META_DEFAULT_TYPE), Some("samples"));
    // The plain file with the first counts has the same stacks.
    let plain = read_corpus("flamegraph-perf-cycles-instructions-01-collapsed-all.txt").profile;
    let a = summary(&plain)["samples/count"].1.clone();
    let b = summary(&p)["before/count"].1.clone();
    assert_eq!(a, b);
}

#[test]
fn one_number_before_the_count_is_part_of_the_name_unless_every_line_has_one() {
    let p = read_text(b"a;f 12 3\nb 4\n").profile;
    assert_eq!(p.values.len(), 1);
    assert_eq!(stack_text(&p, 0), "a;f 12");
    let d = read_text(b"a;f 12 3\nb 1 4\n").profile;
    assert_eq!(total(&d, "before"), 13.0);
    assert_eq!(stack_text(&d, 0), "a;f");
}

#[test]
fn austin_comments_and_kernel_frames() {
    let p = read_corpus("inferno-austin-flames.txt").profile;
    let comments: Vec<&str> = p.meta_values(collapsed::META_COMMENT).collect();
    assert_eq!(
        comments,
        [
            "austin: 3.3.0",
            "interval: 100",
            "mode: wall",
            "duration: 23873"
        ]
    );
    let k = read_corpus("flamegraph-perf-cycles-instructions-01-collapsed-all.txt").profile;
    let types = k.locations.ext.chr(".frame_type").unwrap();
    let kernel = types.iter().filter(|&&s| k.str(s) == "kernel").count();
    // sys_read_[k] … ext4_file_read_iter_[k]: 5 distinct kernel frames, counted by hand.
    assert_eq!(kernel, 5);
}

#[test]
fn names_with_spaces_and_brackets_survive() {
    let p = read_corpus("inferno-tricky-stack.txt").profile;
    assert_eq!(
        stack_text(&p, 0),
        "rustc;<alloc::vec::Vec<T> as alloc::vec::SpecExtend<T, I>>::from_iter;memcpy@GLIBC_2.2.5"
    );
    assert_eq!(total(&p, "samples"), 3.0);
}

#[test]
fn round_trip_every_corpus_file() {
    assert_round_trips(Format::Collapsed, "collapsed");
}

#[test]
fn writer_aggregates_sorts_and_escapes() {
    let p = read_text(b"b;c 1\na;b 2\nb;c 3\n").profile;
    let out = collapsed::write(&p, &WriteOptions::default()).unwrap();
    assert_eq!(String::from_utf8(out.bytes).unwrap(), "a;b 2\nb;c 4\n");
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);

    let d = read_corpus("inferno-differential-collapsed-all-diff.txt").profile;
    let out = collapsed::write(&d, &WriteOptions::default()).unwrap();
    let text = String::from_utf8(out.bytes).unwrap();
    assert!(text.contains("noploop;main 274 415\n"), "{text}");
    let before_only = WriteOptions {
        value_type: Some("before".to_owned()),
        ..Default::default()
    };
    // The loss report (run by write_as) names the value type left out.
    let out = proftab::formats::write_as(Format::Collapsed, &d, &before_only).unwrap();
    let text = String::from_utf8(out.bytes).unwrap();
    assert!(text.contains("noploop;main 274\n"), "{text}");
    let messages: Vec<&str> = out.warnings.iter().map(|w| w.message.as_str()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m
                .starts_with("holds one value type: wrote before/count, dropped samples/count")),
        "{messages:?}"
    );
}

#[test]
fn unknown_value_type_is_a_write_error() {
    let p = read_text(b"a 1\n").profile;
    let err = collapsed::write(
        &p,
        &WriteOptions {
            value_type: Some("cpu".to_owned()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot write collapsed: the profile has no value type \"cpu\" (it has samples/count)"
    );
}

#[test]
fn invalid_fixtures_give_their_messages() {
    assert!(check_invalid_fixtures(Format::Collapsed, "collapsed") >= 8);
}

#[test]
fn limits_are_errors() {
    let opts = ReadOptions {
        limits: proftab::formats::Limits {
            max_samples: 2,
            max_stack_depth: 3,
            ..Default::default()
        },
        ..Default::default()
    };
    let err = collapsed::read(b"a 1\nb 1\nc 1\n", &opts).unwrap_err();
    assert_eq!(
        err.to_string(),
        "collapsed: line 3: more than 2 stack lines (the sample limit)"
    );
    let err = collapsed::read(b"a;b;c;d 1\n", &opts).unwrap_err();
    assert_eq!(
        err.to_string(),
        "collapsed: line 1: the stack is deeper than 3 frames (the stack depth limit)"
    );
}

#[test]
fn truncated_inputs_never_panic() {
    truncation_sweep_corpus(Format::Collapsed, "collapsed");
}

#[test]
fn go_pprof_to_collapsed_keeps_go_tool_pprof_function_totals() {
    assert_go_pprof_conversion(Format::Collapsed);
}

/// py-spy `--format raw` writes ` 108` for samples without Python frames: flamegraph.pl and
/// inferno count them, so proftab keeps them as samples of the root alone (issue #13), and
/// writes them back the same way; differential files keep both counts.
#[test]
fn a_blank_then_a_count_is_a_sample_of_the_root() {
    let parsed = read_text(b"main;work 5\n 108\nmain 2\n");
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let p = &parsed.profile;
    assert_eq!(p.num_samples(), 3);
    let col = p
        .value_column(p.value_type_index("samples").unwrap())
        .unwrap();
    assert_eq!((0..3).map(|s| col.get(s).unwrap()).sum::<f64>(), 115.0);
    let out = collapsed::write(p, &WriteOptions::default()).unwrap();
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    assert_eq!(
        String::from_utf8(out.bytes).unwrap(),
        " 108\nmain 2\nmain;work 5\n"
    );
    let diff = read_text(b"a;b 1 2\n 3 4\n");
    let p = &diff.profile;
    let before = p
        .value_column(p.value_type_index("before").unwrap())
        .unwrap();
    assert_eq!((before.get(1), p.num_samples()), (Some(3.0), 2));
    let out = collapsed::write(p, &WriteOptions::default()).unwrap();
    assert_eq!(String::from_utf8(out.bytes).unwrap(), " 3 4\na;b 1 2\n");
}

/// Found by the collapsed fuzz target: a root frame named U+FEFF `#` was written as
/// `\u{feff}# 0`, which reads back as a byte-order mark and a comment: no stacks. Such root
/// names are written so that the stack reads back, with warnings.
#[test]
fn root_frames_that_read_as_a_bom_or_a_comment_still_read_back() {
    let first = read_text("main;work 2\n".as_bytes());
    let mut p = first.profile;
    let main = p.functions.name[0];
    assert_eq!(p.strings.text(main), "main");
    p.functions.name[0] = p.strings.intern("\u{feff}#main");
    let w = collapsed::write(&p, &WriteOptions::default()).unwrap();
    let text = String::from_utf8(w.bytes.clone()).unwrap();
    assert_eq!(text, "\u{ff03}main;work 2\n");
    for needle in ["leading U+FEFF", "starting with `#`"] {
        assert!(
            w.warnings.iter().any(|x| x.message.contains(needle)),
            "{needle}: {:?}",
            w.warnings
        );
    }
    let back = read_text(&w.bytes);
    assert_eq!(back.profile.num_samples(), p.num_samples());
}
