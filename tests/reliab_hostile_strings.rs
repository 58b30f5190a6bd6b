//! Hostile function names (C2 #11) through every writable format and back: where the format
//! can carry a name it comes back byte-identical; where it cannot, the writer or the reader
//! says so in a warning (or refuses with a clear error) — never a silently different profile.
//! JSON outputs are valid JSON.
//!
//! What each format cannot carry is recorded in [`CANNOT_CARRY`] and checked both ways: a
//! listed pair that starts to round-trip fails the test too, so the table stays true.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;

use proftab::formats::{read_any, registry, write_as, Format, ReadOptions, WriteOptions};
use proftab::model::{Profile, ProfileBuilder, SampleIndex};

/// One hostile name, with a label for messages and tables.
struct Hostile {
    label: &'static str,
    name: String,
}

/// Size of the long name: 1 MB.
const LONG_NAME_BYTES: usize = 1_000_000;

fn hostile_names() -> Vec<Hostile> {
    let h = |label, name: &str| Hostile {
        label,
        name: name.to_owned(),
    };
    vec![
        h("html", "<img src=x onerror=alert(1)>"),
        h("script", "</script><script>alert(1)</script>"),
        h("url", "javascript:alert(1)"),
        h("quotes", "say \"hi\" and 'bye'"),
        h("quote-space", "f\" \"g"),
        h("backslashes", r#"C:\path\to\f \" \\ \n \u0041"#),
        h("bidi", "abc\u{202E}fed.exe"),
        h(
            "zero-width",
            "a\u{200B}b\u{200C}c\u{200D}d\u{2060}e\u{FEFF}f",
        ),
        h("control", "ctl\u{1}\u{7}\u{1b}[31mred\u{1b}[0m\u{7f}"),
        h("tab", "a\tb"),
        h("nul", "a\u{0}b"),
        h("template", "${x} {{x}} #{x} %s %n"),
        h("emoji", "fn_\u{1F600}_\u{10FFFF}"),
        h("semicolon", "ns;fn"),
        h("newline", "line1\nline2"),
        h("crlf", "line1\r\nline2"),
        h("padded", "  padded  "),
        h("number-tail", "frame 12"),
        h("long", &"<a>\"\\".repeat(LONG_NAME_BYTES / 6)),
    ]
}

/// (format, label) pairs the format cannot carry: the name comes back changed (with a
/// warning) or the write fails with a clear error.
const CANNOT_CARRY: &[(&str, &str)] = &[
    // R writes names raw between double quotes: `" "` inside a name splits it into frames.
    ("rprof", "quote-space"),
    // A carriage return cannot be told from a CRLF line end.
    ("rprof", "crlf"),
    // One line per stack, `;` between frames, lines trimmed, control characters mean binary.
    ("collapsed", "control"),
    ("collapsed", "nul"),
    ("collapsed", "semicolon"),
    ("collapsed", "newline"),
    ("collapsed", "crlf"),
    ("collapsed", "padded"),
];

/// A profile where `name` is a leaf (called by `main`), a root (alone) and in the middle of a
/// stack, and `main` is alone too.
fn profile_with(name: &str) -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("hostile", None, None);
    let samples = b.value_type("samples", "count");
    let main = b.function_named("main", Some("main.c"));
    let hostile = b.function_named(name, Some("hostile.c"));
    let main_loc = b.location(Some(main), 1);
    let hostile_loc = b.location(Some(hostile), 2);
    for (frames, count) in [
        (vec![hostile_loc, main_loc], 3.0),
        (vec![main_loc], 1.0),
        (vec![hostile_loc], 2.0),
        (vec![main_loc, hostile_loc, main_loc], 1.0),
    ] {
        let stack = b.stack_leaf_first(&frames);
        b.add_sample_with_values(src, stack, &[(samples, count)]);
    }
    b.build().unwrap()
}

fn writable_formats() -> Vec<Format> {
    registry()
        .iter()
        .filter(|s| s.write.is_some())
        .map(|s| s.format)
        .collect()
}

/// The format a file written as `f` reads back as.
fn read_back_format(f: Format) -> Format {
    match f {
        Format::TablesJsonV1 => Format::TablesJson,
        Format::OtlpJson => Format::Otlp,
        other => other,
    }
}

fn is_json(f: Format) -> bool {
    matches!(
        f,
        Format::TablesJson
            | Format::TablesJsonV1
            | Format::Speedscope
            | Format::Firefox
            | Format::OtlpJson
    )
}

/// Root-first frame names of every stack, with the summed `samples` value of its samples:
/// what must survive a round trip whatever the format does with ids, files and sample rows.
fn named_stacks(p: &Profile) -> BTreeMap<Vec<String>, f64> {
    let vt = p.value_type_index("samples").expect("samples value type");
    let column = p.value_column(vt).expect("samples column");
    let mut out = BTreeMap::new();
    for s in 0..p.num_samples() {
        let stack = SampleIndex::from_usize(s).and_then(|i| p.sample_stack(i));
        let mut names: Vec<String> = p
            .frames_leaf_first(stack)
            .map(|loc| p.frame_display_name(loc))
            .collect();
        names.reverse();
        *out.entry(names).or_insert(0.0) += column.get(s).unwrap_or(0.0);
    }
    out
}

/// What happened to one name in one format.
#[derive(Debug, PartialEq)]
enum Fate {
    /// Came back byte-identical.
    Carried,
    /// Changed, and a warning said so.
    ChangedWithWarning(String),
    /// The writer refused with this error.
    Refused(String),
}

/// The warnings of writing a profile holding `name` as `f` and reading it back.
fn round_trip_warnings(f: Format, name: &str) -> Vec<String> {
    let Ok(written) = write_as(f, &profile_with(name), &WriteOptions::default()) else {
        return Vec::new();
    };
    let back = read_any(&written.bytes, &ReadOptions::default());
    written
        .warnings
        .iter()
        .chain(back.iter().flat_map(|p| &p.warnings))
        .map(ToString::to_string)
        .collect()
}

/// Writes a profile holding `h` as `f` and reads it back; `Err` is a contract violation. A
/// changed name needs a warning beyond those a harmless name gets (about intervals, counts
/// or file names).
fn fate(f: Format, h: &Hostile) -> Result<Fate, String> {
    let profile = profile_with(&h.name);
    let written = match write_as(f, &profile, &WriteOptions::default()) {
        Ok(w) => w,
        Err(e) if !e.message.is_empty() => return Ok(Fate::Refused(e.to_string())),
        Err(e) => return Err(format!("write error without a message: {e:?}")),
    };
    if is_json(f) {
        serde_json::from_slice::<serde_json::Value>(&written.bytes)
            .map_err(|e| format!("output is not valid JSON: {e}"))?;
    }
    let back = read_any(&written.bytes, &ReadOptions::default())
        .map_err(|e| format!("cannot read its own output: {e}"))?;
    if back.format != read_back_format(f) {
        return Err(format!("its output reads as {}", back.format.name()));
    }
    support::profile::assert_valid(&back.profile, h.label);
    if named_stacks(&back.profile) == named_stacks(&profile) {
        return Ok(Fate::Carried);
    }
    let baseline = round_trip_warnings(f, "harmless_name");
    let warnings: Vec<String> = round_trip_warnings(f, &h.name)
        .into_iter()
        .filter(|w| !baseline.contains(w))
        .collect();
    if warnings.is_empty() {
        return Err("the name came back changed without any warning".to_owned());
    }
    Ok(Fate::ChangedWithWarning(warnings.join(" | ")))
}

#[test]
fn hostile_names_survive_every_writable_format_or_are_reported() {
    let names = hostile_names();
    let (mut failures, mut lossy) = (Vec::new(), Vec::new());
    for f in writable_formats() {
        for h in &names {
            let listed = CANNOT_CARRY.contains(&(f.name(), h.label));
            match fate(f, h) {
                Err(e) => failures.push(format!("{} / {}: {e}", f.name(), h.label)),
                Ok(Fate::Carried) if listed => failures.push(format!(
                    "{} now carries {}: remove it from CANNOT_CARRY",
                    f.name(),
                    h.label
                )),
                Ok(Fate::Carried) => {}
                Ok(other) => {
                    let text = match &other {
                        Fate::ChangedWithWarning(w) => format!("warned: {w}"),
                        Fate::Refused(e) => format!("refused: {e}"),
                        Fate::Carried => unreachable!(),
                    };
                    let text: String = text.chars().take(300).collect();
                    eprintln!("{} / {}: {text}", f.name(), h.label);
                    if !listed {
                        lossy.push(format!("(\"{}\", \"{}\"),", f.name(), h.label));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        lossy.is_empty(),
        "not listed in CANNOT_CARRY:\n{}",
        lossy.join("\n")
    );
}

/// A profile whose every stack ends in a name ending in ` NUMBER` cannot be told from a
/// differential file in collapsed form: the writer says so.
#[test]
fn collapsed_warns_when_every_stack_ends_in_a_number() {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("hostile", None, None);
    let samples = b.value_type("samples", "count");
    let f = b.function_named("LazyCompile:foo node.js 387", None);
    let loc = b.location(Some(f), 0);
    let stack = b.stack_leaf_first(&[loc]);
    b.add_sample_with_values(src, stack, &[(samples, 2.0)]);
    let profile = b.build().unwrap();
    let written = write_as(Format::Collapsed, &profile, &WriteOptions::default()).unwrap();
    assert!(
        written.warnings.iter().any(|w| w
            .message
            .contains("readers take the file for a differential one")),
        "{:?}",
        written.warnings
    );
}
