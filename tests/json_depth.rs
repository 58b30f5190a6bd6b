//! JSON nesting depth (docs/limits.md): every JSON reader refuses arrays and objects nested
//! deeper than `MAX_JSON_DEPTH` with a message that names its format and the limit — the
//! `deep-nesting` files of `tests/fixtures/invalid/<format>/` (1,000 levels; their exact
//! messages are checked by each format's invalid-fixture test) — and the same files nested a
//! million levels deep are refused the same way on a small stack, never a stack overflow.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::formats::{read_as, Format, ReadOptions, MAX_JSON_DEPTH};
use support::corpus::fixture;

/// `(folder under invalid/, file, format)` of each JSON reader's deep-nesting file.
const FILES: &[(&str, &str, Format)] = &[
    ("cpuprofile", "deep-nesting.cpuprofile", Format::Cpuprofile),
    ("dhat", "deep-nesting.json", Format::Dhat),
    ("firefox", "deep-nesting.json", Format::Firefox),
    ("ghc-prof", "deep-nesting.prof", Format::GhcProf),
    (
        "heapprofile",
        "deep-nesting.heapprofile",
        Format::Heapprofile,
    ),
    ("otlp", "json-deep-nesting.json", Format::Otlp),
    ("speedscope", "deep-nesting.json", Format::Speedscope),
    ("stackprof", "deep-nesting.json", Format::Stackprof),
    ("tables-json", "deep-nesting.json", Format::TablesJson),
    ("trace-event", "deep-nesting.json", Format::TraceEvent),
    ("v8-prof", "deep-nesting.json", Format::V8Prof),
];

/// The limit's text in every message.
fn limit_text() -> String {
    format!("nest deeper than {MAX_JSON_DEPTH} levels (the JSON nesting limit, MAX_JSON_DEPTH)")
}

/// The error reading `bytes` as `format` (`accepted` when it was read).
fn refusal(format: Format, bytes: &[u8]) -> String {
    match read_as(format, bytes, &ReadOptions::default()) {
        Ok(_) => "accepted".to_owned(),
        Err(e) => e.to_string(),
    }
}

/// The files whose message lacks the format's name or the limit's text, with the message.
fn unnamed(times: usize) -> Vec<String> {
    FILES
        .iter()
        .filter_map(|(dir, file, format)| {
            let bytes = deeper(&input(dir, file), times);
            let message = refusal(*format, &bytes);
            let named = message.starts_with(&format!("{}: ", format.name()))
                && message.contains(&limit_text());
            (!named).then(|| format!("{dir}/{file}: {message}"))
        })
        .collect()
}

fn input(dir: &str, file: &str) -> Vec<u8> {
    std::fs::read(fixture("invalid").join(dir).join(file)).unwrap()
}

/// A GHC `-pj` cost-centre node opened (its children follow), and closed: the ghc-prof file
/// nests a chain of 1,000 of them (GHC's tree is a nested JSON object, parsed by recursion).
const GHC_NODE: (&str, &str) = (r#"{"id":1,"entries":1,"ticks":1,"children":["#, "]}");

/// `bytes` with its run of 1,000 nestings (`[`…`]`, or GHC nodes) `times` times longer.
fn deeper(bytes: &[u8], times: usize) -> Vec<u8> {
    let text = std::str::from_utf8(bytes).unwrap();
    for (open, close) in [("[", "]"), GHC_NODE] {
        let (open, close) = (open.repeat(1000), close.repeat(1000));
        if text.contains(&open) && text.contains(&close) {
            let text = text.replacen(&open, &open.repeat(times), 1);
            return text.replacen(&close, &close.repeat(times), 1).into_bytes();
        }
    }
    panic!("no run of 1,000 nestings")
}

#[test]
fn every_json_reader_names_the_nesting_limit() {
    let bad = unnamed(1);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn a_million_levels_are_refused_without_a_stack_overflow() {
    // 1 MiB of stack, what a wasm instance has (rustc's default for wasm32): a reader
    // recursing once per level would overflow long before a million levels.
    let worker = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| unnamed(1000));
    let bad = worker.unwrap().join().expect("no panic");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn a_heapprofile_tree_deeper_than_the_limit_is_read() {
    // heapprofile nests two JSON levels per frame, and walks its tree with an explicit stack:
    // 1,000 frames (2,000 levels) are read, not refused.
    let node = |id: usize| {
        format!(
            r#"{{"callFrame":{{"functionName":"f{id}","scriptId":"1","url":"","lineNumber":0,"columnNumber":0}},"selfSize":1,"id":{id},"children":["#
        )
    };
    let mut text = String::from(r#"{"head":"#);
    text.extend((1..=1000).map(node));
    text.push_str(&"]}".repeat(1000));
    text.push_str(r#","samples":[]}"#);
    let parsed = read_as(
        Format::Heapprofile,
        text.as_bytes(),
        &ReadOptions::default(),
    )
    .unwrap();
    let p = &parsed.profile;
    let deepest = p.stack_depths().into_iter().max().unwrap_or(0);
    // 1,000 frames, or 999 when the outermost node is V8's root and not a frame.
    assert!(deepest >= 999, "the deepest stack has {deepest} frames");
}
