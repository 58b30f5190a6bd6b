//! OTLP/JSON on write (`--to otlp-json`, `.otlp.json`): reading the JSON back gives exactly what
//! reading the binary encoding of the same profile gives (tables-JSON text equal), for the pprof
//! fixtures, the OTLP corpus and profiles with times, labels and links (Firefox, pprof with
//! labels); and the JSON follows the OTLP mapping (lowerCamelCase keys, 64-bit integers as
//! strings, hex ids), checked on a parsed document.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::PathBuf;

use proftab::formats::{self, otlp, tables_json, Format, ReadOptions, WriteOptions};
use proftab::model::Profile;
use support::corpus::{corpus_files, file_name};
use support::go::fixture_files;
use support::profile::{assert_valid, read_path};

fn inputs() -> Vec<(Format, PathBuf)> {
    let mut v: Vec<(Format, PathBuf)> = fixture_files()
        .into_iter()
        .map(|p| (Format::Pprof, p))
        .collect();
    v.extend(corpus_files("otlp").into_iter().map(|p| (Format::Otlp, p)));
    v.extend(
        corpus_files("firefox")
            .into_iter()
            .take(4)
            .map(|p| (Format::Firefox, p)),
    );
    v
}

fn tables(p: &Profile) -> String {
    String::from_utf8(
        tables_json::write(p, &WriteOptions::default())
            .unwrap()
            .bytes,
    )
    .unwrap()
}

fn read_back(bytes: &[u8]) -> Profile {
    let parsed = formats::read_any(bytes, &ReadOptions::default()).unwrap();
    assert_eq!(parsed.format, Format::Otlp);
    assert_valid(&parsed.profile, "read back");
    parsed.profile
}

#[test]
fn json_reads_back_as_the_binary_encoding_does() {
    let mut n = 0;
    for (format, path) in inputs() {
        let p = read_path(format, &path).profile;
        let what = file_name(&path);
        let binary = otlp::write(&p, &WriteOptions::default()).unwrap();
        let json = otlp::write_json(&p, &WriteOptions::default()).unwrap();
        let w = |x: &formats::Written| -> Vec<String> {
            x.warnings.iter().map(ToString::to_string).collect()
        };
        assert_eq!(w(&binary), w(&json), "{what}: warnings");
        assert_eq!(
            otlp::message_layouts(&json.bytes).unwrap(),
            ["OTLP/JSON"],
            "{what}"
        );
        let via_binary = tables(&read_back(&binary.bytes));
        let via_json = tables(&read_back(&json.bytes));
        assert!(via_binary == via_json, "{what}: tables differ");
        n += 1;
    }
    assert!(n >= 5, "inputs: {n}");
}

#[test]
fn json_follows_the_otlp_mapping() {
    let path = fixture_files().into_iter().next().unwrap();
    let p = read_path(Format::Pprof, &path).profile;
    let json = otlp::write_json(&p, &WriteOptions::default()).unwrap();
    assert_eq!(json.bytes.last(), Some(&b'\n'));
    let doc: serde_json::Value = serde_json::from_slice(&json.bytes).unwrap();
    let dict = &doc["dictionary"];
    assert!(dict["stringTable"].as_array().unwrap().len() > 1);
    assert_eq!(dict["stringTable"][0], "");
    let profile = &doc["resourceProfiles"][0]["scopeProfiles"][0]["profiles"][0];
    assert!(profile["sampleType"]["typeStrindex"].is_u64(), "{profile}");
    let values = &profile["samples"][0]["values"];
    assert!(values[0].is_string(), "int64 values are strings: {values}");
    // A location with an address writes it as a decimal string.
    let addressed = dict["locationTable"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l.get("address").is_some());
    if let Some(l) = addressed {
        let a = l["address"].as_str().unwrap();
        assert!(a.parse::<u64>().unwrap() > 0, "{l}");
    }
    // No snake_case keys anywhere.
    let text = String::from_utf8(json.bytes).unwrap();
    for key in ["_strindex\"", "_nano\"", "_indices\"", "_table\""] {
        assert!(!text.contains(key), "{key}");
    }
}

#[test]
fn otlp_json_is_named_and_chosen_by_extension() {
    assert_eq!(Format::from_name("otlp-json"), Some(Format::OtlpJson));
    assert_eq!(Format::from_path("x.otlp.json"), Some(Format::OtlpJson));
    assert_eq!(Format::from_path("x.json"), Some(Format::TablesJson));
    let spec = formats::registry()
        .iter()
        .find(|s| s.format == Format::OtlpJson)
        .unwrap();
    assert!(spec.detect.is_none() && spec.read.is_none() && spec.write.is_some());
}
