//! speedscope JSON: detection, sampled and evented profiles, several profiles, writing, round
//! trips, bad input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::formats::{self, collapsed, speedscope, Format, ReadOptions, WriteOptions};
use proftab::model::{META_DEFAULT_TYPE, SAMPLE_TIME};
use support::corpus::*;
use support::profile::*;
use support::text::*;

fn corpus_file(name: &str) -> std::path::PathBuf {
    corpus().join("speedscope").join(name)
}

fn read_bytes(bytes: &[u8]) -> formats::Parsed {
    speedscope::read(bytes, &ReadOptions::default()).unwrap()
}

#[test]
fn every_corpus_file_is_detected_and_read() {
    let files = corpus_files("speedscope");
    assert_eq!(files.len(), 4, "corpus missing: {}", corpus().display());
    for path in &files {
        assert_detected(Format::Speedscope, path);
        assert!(read_path(Format::Speedscope, path).profile.num_samples() > 0);
    }
    for name in [
        "speedscope-incomplete-trace.json",
        "speedscope-out-of-order-events.json",
    ] {
        let bytes = std::fs::read(corpus().join("invalid").join(name)).unwrap();
        assert_eq!(formats::detect(&bytes), Some(Format::Speedscope), "{name}");
    }
}

#[test]
fn other_formats_are_not_claimed() {
    assert_other_formats_not_claimed(speedscope::detect, "speedscope", &[]);
}

/// The "simple" profile counted by hand: a;b;c 1+1+3, a;b;d 4, a;b 5.
fn simple_stacks() -> std::collections::BTreeMap<String, f64> {
    [("a;b", 5.0), ("a;b;c", 5.0), ("a;b;d", 4.0)]
        .into_iter()
        .map(|(s, v)| (s.to_owned(), v))
        .collect()
}

#[test]
fn evented_profile_reads_as_intervals() {
    for name in [
        "speedscope-0.0.1-simple.speedscope.json",
        "speedscope-0.0.1-simple-no-pretty-print.speedscope.json",
    ] {
        let parsed = read_path(Format::Speedscope, &corpus_file(name));
        let p = &parsed.profile;
        // Intervals [0,2) a;b;c, [2,6) a;b;d, [6,9) a;b;c, [9,14) a;b.
        assert_eq!(p.num_samples(), 4, "{name}");
        let s = summary(p);
        assert_eq!(s.keys().collect::<Vec<_>>(), ["samples/count"], "unit none");
        assert_eq!(s["samples/count"].0, 14.0);
        assert_eq!(s["samples/count"].1, simple_stacks());
        assert!(
            p.samples.ext.get(SAMPLE_TIME).is_none(),
            "no time for unit none"
        );
        assert_eq!(p.meta_value(speedscope::META_VERSION), Some("0.0.1"));
        let source_names = p.sources.ext.chr(speedscope::SOURCE_NAME).unwrap();
        assert_eq!(p.str(source_names[0]), "simple.txt");
        assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    }
}

#[test]
fn sampled_profile_with_time_unit() {
    let p = read_path(
        Format::Speedscope,
        &corpus_file("speedscope-0.1.2-simple-sampled.speedscope.json"),
    )
    .profile;
    assert_eq!(p.num_samples(), 5);
    assert_eq!(total(&p, "time"), 14.0);
    assert_eq!(total(&p, "samples"), 5.0);
    let vt = p.value_type_index("time").unwrap();
    assert_eq!(p.value_type_names(vt), ("time", "seconds"));
    assert_eq!(p.meta_value(META_DEFAULT_TYPE), Some("time"));
    // Weights 1, 1, 4, 3, 5 laid end to end.
    assert_eq!(
        p.samples.ext.dbl(SAMPLE_TIME).unwrap(),
        [0.0, 1.0, 2.0, 6.0, 9.0]
    );
    assert_eq!(summary(&p)["time/seconds"].1, simple_stacks());
}

#[test]
fn several_profiles_become_several_sources() {
    let parsed = read_path(
        Format::Speedscope,
        &corpus_file("speedscope-0.6.0-two-sampled.speedscope.json"),
    );
    let p = &parsed.profile;
    assert_eq!(p.sources.source_type.len(), 2);
    let names = p.sources.ext.chr(speedscope::SOURCE_NAME).unwrap();
    assert_eq!([p.str(names[0]), p.str(names[1])], ["one", "two"]);
    let per_source: Vec<usize> = (0..2)
        .map(|s| p.samples.source.iter().filter(|x| x.idx() == s).count())
        .collect();
    assert_eq!(per_source, [5, 5]);
    assert_eq!(total(p, "time"), 28.0);
    assert_eq!(
        p.meta_value(speedscope::META_EXPORTER),
        Some("speedscope@0.6.0")
    );
    assert_eq!(p.meta_value(speedscope::META_NAME), Some("Two Samples"));
    assert_eq!(p.meta_value(speedscope::META_ACTIVE_PROFILE), Some("1"));
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    // The sources survive writing.
    let out = speedscope::write(p, &WriteOptions::default()).unwrap();
    let again = read_bytes(&out.bytes).profile;
    assert_eq!(again.sources.source_type.len(), 2);
    assert_eq!(again.meta_value(speedscope::META_ACTIVE_PROFILE), Some("1"));
}

#[test]
fn invalid_corpus_files_give_speedscope_errors() {
    let read = |name: &str| {
        let bytes = std::fs::read(corpus().join("invalid").join(name)).unwrap();
        speedscope::read(&bytes, &ReadOptions::default())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        read("speedscope-incomplete-trace.json"),
        "speedscope: profiles[0]: the profile ends with 1 frames still open (every \"O\" event needs a matching \"C\")"
    );
    assert_eq!(
        read("speedscope-out-of-order-events.json"),
        "speedscope: profiles[0].events[6]: tried to leave frame 1 while frame 0 was at the top"
    );
}

#[test]
fn invalid_fixtures_give_their_messages() {
    assert!(check_invalid_fixtures(Format::Speedscope, "speedscope") >= 14);
}

#[test]
fn round_trip_every_corpus_file() {
    assert_round_trips(Format::Speedscope, "speedscope");
}

#[test]
fn writer_output_is_exact() {
    let p = collapsed::read(b"a;b 2\na 1\na;b 3\n", &ReadOptions::default())
        .unwrap()
        .profile;
    let out = speedscope::write(&p, &WriteOptions::default()).unwrap();
    let expected = concat!(
        r#"{"$schema":"https://www.speedscope.app/file-format-schema.json","#,
        r#""exporter":"proftab@"#,
        env!("CARGO_PKG_VERSION"),
        r#"","activeProfileIndex":0,"shared":{"frames":[{"name":"a"},{"name":"b"}]},"#,
        r#""profiles":[{"type":"sampled","name":"profile 1","unit":"none","startValue":0,"#,
        r#""endValue":6,"samples":[[0,1],[0],[0,1]],"weights":[2,1,3]}]}"#,
        "\n"
    );
    assert_eq!(String::from_utf8(out.bytes).unwrap(), expected);
    assert!(out.warnings.is_empty());
}

#[test]
fn written_value_type_becomes_the_default_when_read_back() {
    let p = read_path(
        Format::Speedscope,
        &corpus_file("speedscope-0.1.2-simple-sampled.speedscope.json"),
    )
    .profile;
    let counts = WriteOptions {
        value_type: Some("samples".to_owned()),
        ..Default::default()
    };
    let out = formats::write_as(Format::Speedscope, &p, &counts).unwrap();
    let w: Vec<String> = out.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        w,
        [
            "speedscope: sample times (.time) were not written: speedscope sampled profiles lay samples end to end",
            "speedscope: holds one value type: wrote samples/count, dropped time/seconds (5 values) (5 times)"
        ]
    );
    let back = read_bytes(&out.bytes).profile;
    assert_eq!(back.meta_value(META_DEFAULT_TYPE), Some("samples"));
    assert_eq!(total(&back, "samples"), 5.0);
}

#[test]
fn different_time_units_are_converted_to_the_first() {
    let doc = br#"{"$schema":"https://www.speedscope.app/file-format-schema.json",
      "shared":{"frames":[{"name":"f","file":"x.js","line":3,"col":7}]},
      "profiles":[
        {"type":"sampled","name":"ms","unit":"milliseconds","startValue":0,"endValue":3,"samples":[[0]],"weights":[3]},
        {"type":"sampled","name":"s","unit":"seconds","startValue":0,"endValue":2,"samples":[[0]],"weights":[2]}]}"#;
    let p = read_bytes(doc).profile;
    let vt = p.value_type_index("time").unwrap();
    assert_eq!(p.value_type_names(vt), ("time", "milliseconds"));
    assert_eq!(total(&p, "time"), 2003.0);
    assert_eq!(p.locations.line, [3]);
    assert_eq!(
        p.locations.ext.int(speedscope::LOCATION_COLUMN).unwrap(),
        [7]
    );
    let out = speedscope::write(&p, &WriteOptions::default()).unwrap();
    let text = String::from_utf8(out.bytes).unwrap();
    assert!(
        text.contains(r#"{"name":"f","file":"x.js","line":3,"col":7}"#),
        "{text}"
    );
}

#[test]
fn collapsed_to_speedscope_and_back_keeps_the_tables() {
    for path in corpus_files("collapsed") {
        let folded = read_path(Format::Collapsed, &path).profile;
        let json = speedscope::write(&folded, &WriteOptions::default()).unwrap();
        let via = read_bytes(&json.bytes).profile;
        let s_folded = summary(&folded);
        let s_via = summary(&via);
        // Differential files keep only the default type in speedscope.
        assert_same_summary(
            &[(
                "samples/count".to_owned(),
                s_folded["samples/count"].clone(),
            )]
            .into(),
            &s_via,
            &path.display().to_string(),
        );
    }
}

#[test]
fn truncated_inputs_never_panic() {
    truncation_sweep_corpus(Format::Speedscope, "speedscope");
}

#[test]
fn go_pprof_to_speedscope_keeps_go_tool_pprof_function_totals() {
    assert_go_pprof_conversion(Format::Speedscope);
}
