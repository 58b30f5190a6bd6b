//! What a conversion loses (issue #13, "Say what a conversion loses"): the loss report that
//! `formats::write_as` appends for every writable format.
//!
//! * a profile that has everything (in-repo fixtures combined: a pprof with labels, lines,
//!   columns, addresses, inlined frames and meta, and a Node cpuprofile with sample times)
//!   written as every writable format: the warnings, golden (`fixtures/loss/everything.txt`);
//! * a plain profile (names, one value type, one source): no loss warning for any format;
//! * a property test: generated profiles round-trip through tables-json with no warning and
//!   the same bytes, and every format's loss report reads the same before and after;
//! * every writable format of the registry has a declaration;
//! * the CLI prints the warnings on stderr: `convert labels.pb.gz -o x.folded` says the labels
//!   were dropped, with counts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::formats::{self, loss, read_any, Format, ReadOptions, WriteOptions};
use proftab::model::combine::combine;
use proftab::model::{Cell, ColumnKind, Profile, ProfileBuilder};
use support::cli::{run, stderr};
use support::corpus::{fixture, scratch_dir};
use support::golden;
use support::rng::Rng;

/// Every format proftab writes, from the registry.
fn writable() -> Vec<Format> {
    formats::registry()
        .iter()
        .filter(|s| s.write.is_some())
        .map(|s| s.format)
        .collect()
}

fn read_fixture(rel: &str) -> Profile {
    let bytes = std::fs::read(fixture(rel)).unwrap();
    read_any(&bytes, &ReadOptions::default()).unwrap().profile
}

/// Labels, lines, columns, files, addresses, mappings, inlined frames, several value types and
/// meta keys (fields.pb.gz), sample times and a second source (the cpuprofile).
fn everything() -> Profile {
    combine(&[
        read_fixture("pprof/fields.pb.gz"),
        read_fixture("cpuprofile/node-cpu-prof.cpuprofile"),
    ])
    .unwrap()
}

/// The warnings of writing `p` as every writable format, one block per format.
fn warnings_by_format(p: &Profile) -> String {
    let mut out = String::new();
    for f in writable() {
        out.push_str(&format!("## {}\n", f.name()));
        match formats::write_as(f, p, &WriteOptions::default()) {
            Ok(w) => {
                for warning in &w.warnings {
                    let (f, m, n) = (warning.format, &warning.message, warning.count);
                    out.push_str(&format!("{f}: {m} [count {n}]\n"));
                }
            }
            Err(e) => out.push_str(&format!("error: {e}\n")),
        }
    }
    out
}

#[test]
fn every_writable_format_declares_what_it_holds() {
    let missing: Vec<&str> = writable()
        .into_iter()
        .filter(|&f| loss::holds(f).is_none())
        .map(Format::name)
        .collect();
    assert!(missing.is_empty(), "no loss declaration: {missing:?}");
}

#[test]
fn a_profile_with_everything_reports_its_losses_per_format() {
    let text = warnings_by_format(&everything());
    golden::check(&fixture("loss/everything.txt"), &text);
    // The Done-when line: collapsed names the dropped labels with their counts.
    assert!(
        text.contains("collapsed: cannot hold sample labels: dropped 4 labels on 3 samples"),
        "{text}"
    );
}

/// Names, one value type, one source, distinct stacks: nothing any format lacks.
fn plain() -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("manual", None, None);
    let n = b.value_type("samples", "count");
    let main = b.function_named("main", None);
    let work = b.function_named("work", None);
    let l_main = b.location(Some(main), 0);
    let l_work = b.location(Some(work), 0);
    let s1 = b.stack_leaf_first(&[l_main]);
    let s2 = b.stack_leaf_first(&[l_work, l_main]);
    b.add_sample_with_values(src, s1, &[(n, 2.0)]);
    b.add_sample_with_values(src, s2, &[(n, 3.0)]);
    b.build().unwrap()
}

#[test]
fn a_plain_profile_loses_nothing_anywhere() {
    let p = plain();
    for f in writable() {
        let lost = loss::report(f, &p, &WriteOptions::default());
        assert!(lost.is_empty(), "{}: {lost:?}", f.name());
    }
}

/// A generated profile: 1–3 sources, 1–3 value types, functions with and without files,
/// lines, optional sample times, addresses, columns, labels and meta keys.
fn generated(rng: &mut Rng) -> Profile {
    let mut b = ProfileBuilder::new();
    let sources: Vec<_> = (0..1 + rng.below(3))
        .map(|i| b.add_source("gen", Some(&format!("s{i}")), None))
        .collect();
    let types: Vec<_> = ["samples", "cpu", "alloc"][..1 + rng.below(3)]
        .iter()
        .map(|t| b.value_type(t, "count"))
        .collect();
    let mut locs = Vec::new();
    for i in 0..1 + rng.below(6) {
        let file = rng.chance(50).then(|| format!("f{i}.c"));
        let f = b.function_named(&format!("fn{i}"), file.as_deref());
        let line = if rng.chance(50) { 1 + i as i32 } else { 0 };
        let l = b.add_location(Some(f), line);
        if rng.chance(30) {
            b.set_location_ext(l, ".address", Cell::U64(Some(0x1000 + i as u64)));
        }
        if rng.chance(30) {
            b.set_location_ext(l, ".column", Cell::Int(1 + i as i32));
        }
        locs.push(l);
    }
    let timed = rng.chance(50);
    for s in 0..1 + rng.below(8) {
        let depth = 1 + rng.below(locs.len());
        let frames: Vec<_> = (0..depth).map(|_| rng.pick(&locs)).collect();
        let stack = b.stack_leaf_first(&frames);
        let values: Vec<_> = types.iter().map(|&t| (t, rng.below(10) as f64)).collect();
        let sample = b.add_sample_with_values(rng.pick(&sources), stack, &values);
        if timed {
            b.set_sample_ext(sample, ".time", Cell::Dbl(s as f64 * 0.01));
        }
        if rng.chance(30) {
            b.set_sample_ext(sample, ".tid", Cell::Int(7));
        }
        if rng.chance(30) {
            let id = i32::try_from(sample.0 + 1).unwrap();
            let label = [
                ("sample_id", Cell::Int(id)),
                ("key", Cell::Chr(b.intern("k"))),
                ("str", Cell::Chr(b.intern("v"))),
            ];
            b.ext_table("sample_labels").push_row(&label).unwrap();
        }
    }
    if rng.chance(50) {
        b.set_meta("gen.note", "x");
    }
    b.declare_sample_column(".time", ColumnKind::Dbl);
    b.build().unwrap()
}

#[test]
fn a_tables_json_round_trip_loses_nothing_and_reports_nothing() {
    let mut rng = Rng(13);
    for case in 0..200 {
        let p = generated(&mut rng);
        let written = formats::write_as(Format::TablesJson, &p, &WriteOptions::default()).unwrap();
        assert!(
            written.warnings.is_empty(),
            "case {case}: {:?}",
            written.warnings
        );
        let back = read_any(&written.bytes, &ReadOptions::default())
            .unwrap()
            .profile;
        let again = formats::write_as(Format::TablesJson, &back, &WriteOptions::default()).unwrap();
        assert_eq!(
            written.bytes, again.bytes,
            "case {case}: the document changed"
        );
        for f in writable() {
            let options = WriteOptions::default();
            assert_eq!(
                loss::report(f, &p, &options),
                loss::report(f, &back, &options),
                "case {case}, {}",
                f.name()
            );
        }
    }
}

/// Runs `proftab convert INPUT -o x.folded` (in scratch folder `scratch`), which must succeed;
/// returns its stderr.
fn convert_to_folded(input: &std::path::Path, scratch: &str) -> String {
    let out = scratch_dir(scratch).join("x.folded");
    let o = run(
        env!("CARGO_BIN_EXE_proftab"),
        &[
            "convert",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    stderr(&o)
}

#[test]
fn the_cli_prints_what_collapsed_drops() {
    let err = convert_to_folded(&fixture("pprof/fields.pb.gz"), "loss-cli");
    assert!(
        err.contains(
            "collapsed: cannot hold sample labels: dropped 4 labels on 3 samples of 4 \
             (keys: bytes, request, size, thread)"
        ),
        "{err}"
    );
    assert!(
        err.contains("collapsed: holds one value type: wrote alloc/bytes"),
        "{err}"
    );
}

/// The Done-when line itself, on the corpus file `labels.pb.gz` names (parca's).
#[test]
fn the_cli_says_the_labels_of_parca_labels_are_dropped() {
    let input = support::corpus::corpus().join("pprof/parca-labels.pb.gz");
    if !input.exists() {
        eprintln!("SKIP: {} is missing", input.display());
        return;
    }
    let err = convert_to_folded(&input, "loss-cli-parca");
    assert!(
        err.contains("collapsed: cannot hold sample labels: dropped 11 labels on 11 samples of 121 (keys: api)"),
        "{err}"
    );
}
