//! OTLP profiles that are not valid: the invalid fixtures and their messages (and the cases
//! that generate them), cut and bit-flipped corpus files, and binary files cut short through
//! `read_any`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::formats::otlp::proto::{
    AnyValue, ArrayValue, KeyValueAndUnit, ProfilesData, Sample, SampleV19, Value,
};
use proftab::formats::{self, otlp, ReadOptions};
use prost::Message;
use support::corpus::{corpus, corpus_bytes, fixture};
use support::json::check_invalid_fixtures;
use support::otlp::message_with_samples;

#[test]
fn invalid_inputs_fail_with_clear_messages() {
    let n = check_invalid_fixtures("otlp", otlp::read);
    assert!(n >= 12, "{n} fixtures");
}

#[test]
fn truncations_and_bit_flips_never_panic() {
    let bytes = std::fs::read(corpus().join("otlp/sig-profiling-otlp-bench-profile.otlp")).unwrap();
    for cut in (0..bytes.len()).step_by(61) {
        let _ = otlp::read(&bytes[..cut], &ReadOptions::default());
    }
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..300 {
        let mut m = bytes.clone();
        for _ in 0..4 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let i = (seed as usize) % m.len();
            m[i] ^= 1 << (seed >> 60 & 7);
        }
        let _ = otlp::read(&m, &ReadOptions::default());
    }
}

/// Binary OTLP has no magic number: `read_any` claims it only when every top-level field is
/// whole. A file cut short, framed or not, must still get the OTLP reader's error, which says
/// where it is cut, not "unrecognized format".
#[test]
fn read_any_names_where_a_cut_binary_file_ends() {
    let files = corpus_bytes("otlp");
    assert!(files.len() >= 2, "{} otlp corpus files", files.len());
    for (name, bytes) in files {
        for cut in [bytes.len() / 3, bytes.len() * 9 / 10] {
            let err = formats::read_any(&bytes[..cut], &ReadOptions::default())
                .map(|p| p.format)
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("otlp: at byte "),
                "{name} cut at {cut}: {err}"
            );
            assert!(err.ends_with(" remain"), "{name} cut at {cut}: {err}");
        }
    }
    // Text that happens to begin like a cut message (a newline is field 1's key) is not OTLP.
    let text = formats::read_any(b"\nmain;work\n", &ReadOptions::default());
    let err = text.map(|p| p.format).unwrap_err().to_string();
    assert!(err.starts_with("input: unrecognized format"), "{err}");
}

/// One invalid input: file name, contents, and the text the read error must contain.
type InvalidCase = (&'static str, Vec<u8>, &'static str);

/// Regenerates tests/fixtures/invalid/otlp (run with `--ignored` after changing a case).
#[test]
#[ignore]
fn generate_invalid_fixtures() {
    let dir = &fixture("invalid/otlp");
    std::fs::create_dir_all(dir).unwrap();
    let valid = message_with_samples(
        vec![Sample {
            stack_index: 1,
            values: vec![1],
            ..Default::default()
        }
        .encode_to_vec()],
        &[],
    );
    let cases = [
        invalid_wire_cases(&valid),
        invalid_dictionary_index_cases(&valid),
        invalid_sample_cases(),
        invalid_json_cases(),
    ]
    .concat();
    for (name, bytes, expected) in cases {
        std::fs::write(dir.join(name), bytes).unwrap();
        let stem = name.rsplit_once('.').unwrap().0;
        std::fs::write(
            dir.join(format!("{stem}.expected")),
            format!("{expected}\n"),
        )
        .unwrap();
    }
}

/// `valid` decoded, changed by `change` and encoded again.
fn mutated(valid: &[u8], change: impl FnOnce(&mut ProfilesData)) -> Vec<u8> {
    let mut d = ProfilesData::decode(valid).unwrap();
    change(&mut d);
    d.encode_to_vec()
}

/// A message whose only sample is `s` (attribute 1 is "a").
fn with_sample(s: Sample) -> Vec<u8> {
    message_with_samples(vec![s.encode_to_vec()], &["a"])
}

/// An integer wrapped in `depth` nested array values.
fn nested_value(depth: usize) -> AnyValue {
    let mut v = AnyValue {
        value: Some(Value::IntValue(1)),
    };
    for _ in 0..depth {
        v = AnyValue {
            value: Some(Value::ArrayValue(ArrayValue { values: vec![v] })),
        };
    }
    v
}

/// Broken encoding: empty, cut or badly framed bytes, a wrong wire type, too deep nesting.
fn invalid_wire_cases(valid: &[u8]) -> Vec<InvalidCase> {
    vec![
        ("empty.otlp", vec![], "the file is empty"),
        (
            "truncated.otlp",
            valid[..valid.len() - 3].to_vec(),
            "is 66 bytes long but only 63 bytes remain",
        ),
        (
            "deep-value.otlp",
            mutated(valid, |d| {
                d.dictionary
                    .as_mut()
                    .unwrap()
                    .attribute_table
                    .push(KeyValueAndUnit {
                        key_strindex: 4,
                        value: Some(nested_value(200)),
                        unit_strindex: 0,
                    })
            }),
            "recursion limit",
        ),
        (
            "profile-wire-type.otlp",
            mutated(valid, |d| {
                let sp = &mut d.resource_profiles[0].scope_profiles[0];
                sp.profiles[0].extend([0x18, 0x01]);
            }),
            "Profile.time_unix_nano has the wrong wire type",
        ),
        (
            "bad-frame.otlp",
            [0u8, 0, 0, 9, 0x0a, 0x02, 0x00].to_vec(),
            "the frame holds 9 bytes but only 3 remain",
        ),
    ]
}

/// Dictionary tables pointing outside the string, location, function or mapping table.
fn invalid_dictionary_index_cases(valid: &[u8]) -> Vec<InvalidCase> {
    vec![
        (
            "string-out-of-range.otlp",
            mutated(valid, |d| {
                d.dictionary.as_mut().unwrap().function_table[1].name_strindex = 50
            }),
            "dictionary.function_table[1].name_strindex: string index 50 out of range",
        ),
        (
            "location-negative.otlp",
            mutated(valid, |d| {
                d.dictionary.as_mut().unwrap().stack_table[1].location_indices = vec![-1]
            }),
            "location_indices[0]: location index -1 out of range",
        ),
        (
            "function-out-of-range.otlp",
            mutated(valid, |d| {
                d.dictionary.as_mut().unwrap().location_table[1].lines[0].function_index = 9
            }),
            "function index 9 out of range",
        ),
        (
            "mapping-out-of-range.otlp",
            mutated(valid, |d| {
                d.dictionary.as_mut().unwrap().location_table[1].mapping_index = 4
            }),
            "mapping index 4 out of range",
        ),
    ]
}

/// Samples with a bad stack, attribute or link index, values not matching the timestamps, or
/// both sample layouts in one message.
fn invalid_sample_cases() -> Vec<InvalidCase> {
    vec![
        (
            "stack-out-of-range.otlp",
            with_sample(Sample {
                stack_index: 7,
                values: vec![1],
                ..Default::default()
            }),
            "stack index 7 out of range (table has 2)",
        ),
        (
            "attribute-out-of-range.otlp",
            with_sample(Sample {
                stack_index: 1,
                values: vec![1],
                attribute_indices: vec![1, 3],
                ..Default::default()
            }),
            "attribute_indices[1]: attribute index 3 out of range",
        ),
        (
            "link-out-of-range.otlp",
            with_sample(Sample {
                stack_index: 1,
                values: vec![1],
                link_index: 2,
                ..Default::default()
            }),
            "link index 2 out of range",
        ),
        (
            "values-timestamps.otlp",
            with_sample(Sample {
                stack_index: 1,
                values: vec![1, 2],
                timestamps_unix_nano: vec![1, 2, 3],
                ..Default::default()
            }),
            "2 values but 3 timestamps",
        ),
        (
            "mixed-layouts.otlp",
            message_with_samples(
                vec![
                    SampleV19 {
                        stack_index: 1,
                        attribute_indices: vec![1],
                        timestamps_unix_nano: vec![1],
                        ..Default::default()
                    }
                    .encode_to_vec(),
                    Sample {
                        stack_index: 1,
                        values: vec![1, 2],
                        ..Default::default()
                    }
                    .encode_to_vec(),
                ],
                &["a"],
            ),
            "the samples mix the v1.9 layout",
        ),
    ]
}

/// OTLP/JSON: a non-hex profile id, cut text, a non-integer index.
fn invalid_json_cases() -> Vec<InvalidCase> {
    vec![
        (
            "json-profile-id.json",
            br#"{"resourceProfiles": [{"scopeProfiles": [{"profiles": [{"profileId": "zz"}]}]}]}"#.to_vec(),
            "profileId is not hex",
        ),
        (
            "json-truncated.json",
            br#"{"resourceProfiles": [{"scopeProfiles": ["#.to_vec(),
            "invalid OTLP/JSON (object 0)",
        ),
        (
            "json-bad-int.json",
            br#"{"resourceProfiles": [], "dictionary": {"stackTable": [{"locationIndices": ["x"]}]}}"#.to_vec(),
            "\"x\" is not an integer",
        ),
    ]
}
