//! speedscope's evented profiles on write: a source whose sample times (`samples..time`) are not
//! the weights laid end to end is written as `O`/`C` events, and reading the file back gives
//! every sample's time, weight and stack again (totals equal).
//!
//! * Profiles built here: gaps, two samples of one stack in a row, sample order other than time
//!   order, absolute times (read back relative to the first sample), overlapping samples (a
//!   sampled profile and the times warning instead).
//! * Frames are compared by name (the writer's `line` is the function's start line where the
//!   location has none, a separate matter).
//! * Every cpuprofile of the corpus (times end the interval their weight measures): written
//!   evented with a warning; read back, each sample starts at its time minus its weight.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use proftab::formats::{speedscope, Format, ReadOptions, WriteOptions};
use proftab::model::{
    Cell, ColumnKind, Profile, ProfileBuilder, SampleIndex, ValueTypeIndex, SAMPLE_TIME,
};
use support::corpus::corpus_files;

use support::profile::{assert_valid, read_path};

/// `(time, weight, root-first frame names)` of every sample with a positive weight, by time.
fn intervals(p: &Profile, vt: ValueTypeIndex) -> Vec<(f64, f64, String)> {
    let times = p.samples.ext.dbl(SAMPLE_TIME).unwrap();
    let mut out: Vec<(f64, f64, String)> = (0..p.num_samples())
        .filter_map(|s| {
            let w = p.values[vt.idx()].get(s)?;
            let mut frames: Vec<String> = p
                .frames_leaf_first(p.sample_stack(SampleIndex(s as u32)))
                .map(|l| p.frame_display_name(l))
                .collect();
            frames.reverse();
            (w > 0.0).then(|| (times[s], w, frames.join(";")))
        })
        .collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn assert_same_intervals(want: &[(f64, f64, String)], got: &[(f64, f64, String)], what: &str) {
    assert_eq!(want.len(), got.len(), "{what}: samples");
    for (w, g) in want.iter().zip(got) {
        assert!(
            close(w.0, g.0) && close(w.1, g.1) && w.2 == g.2,
            "{what}: {w:?} vs {g:?}"
        );
    }
}

/// A profile of `(time s, weight ms, stack root first)` samples, in the given order.
fn built(samples: &[(f64, f64, &[&str])]) -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("manual", Some("built"), None);
    let vt = b.value_type("time", "milliseconds");
    b.declare_sample_column(SAMPLE_TIME, ColumnKind::Dbl);
    for &(t, w, names) in samples {
        let locs: Vec<_> = names
            .iter()
            .map(|n| {
                let f = b.function_named(n, None);
                b.location(Some(f), 0)
            })
            .collect();
        let stack = b.stack_root_first(&locs);
        let s = b.add_sample(src, stack);
        b.set_value(s, vt, w);
        b.set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(t));
    }
    b.build().unwrap()
}

/// Writes `p` as speedscope and reads it back: the text, the warnings and the profile.
fn round_trip(p: &Profile) -> (String, Vec<String>, Profile) {
    let out = speedscope::write(p, &WriteOptions::default()).unwrap();
    let warnings = out.warnings.iter().map(ToString::to_string).collect();
    let back = speedscope::read(&out.bytes, &ReadOptions::default())
        .unwrap()
        .profile;
    assert_valid(&back, "read back");
    (String::from_utf8(out.bytes).unwrap(), warnings, back)
}

fn total(p: &Profile) -> f64 {
    p.values[time_vt(p).idx()].total()
}

fn time_vt(p: &Profile) -> ValueTypeIndex {
    p.value_type_index("time").unwrap()
}

#[test]
fn gaps_repeats_and_order_are_kept() {
    let p = built(&[
        (0.010, 5.0, &["main", "b"]), // after a 10 ms gap (from 0)
        (0.000, 2.0, &["main", "a"]),
        (0.015, 3.0, &["main", "b"]), // same stack, right after
        (0.018, 1.0, &["main"]),      // the caller alone
        (0.030, 4.0, &["other"]),     // after a gap, another root
    ]);
    let (text, warnings, back) = round_trip(&p);
    assert!(text.contains(r#""type":"evented""#), "{text}");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_same_intervals(
        &intervals(&p, time_vt(&p)),
        &intervals(&back, time_vt(&back)),
        "built",
    );
    assert_eq!(total(&p), total(&back));
    assert_eq!(back.num_samples(), 5);
}

#[test]
fn absolute_times_are_read_back_from_the_first_sample() {
    let t0 = 1_700_000_000.0;
    let p = built(&[
        (t0, 1.0, &["a"]),
        (t0 + 0.5, 2.0, &["a", "b"]),
        (t0 + 0.502, 1.0, &["a", "b"]),
    ]);
    let (text, warnings, back) = round_trip(&p);
    assert!(text.contains(r#""type":"evented""#), "{text}");
    assert!(warnings.is_empty(), "{warnings:?}");
    let want: Vec<_> = intervals(&p, time_vt(&p))
        .into_iter()
        .map(|(t, w, s)| (t - t0, w, s))
        .collect();
    let got = intervals(&back, time_vt(&back));
    for (w, g) in want.iter().zip(&got) {
        // Absolute seconds near 1.7e9 hold about 0.2 µs: times and ms weights within 1 µs.
        let near = (w.0 - g.0).abs() < 1e-6 && (w.1 - g.1).abs() < 1e-3;
        assert!(near && w.2 == g.2, "{w:?} {g:?}");
    }
    assert_eq!(got.len(), 3);
}

#[test]
fn overlapping_samples_stay_sampled_with_the_times_warning() {
    let p = built(&[
        (0.0, 5.0, &["a"]),
        (0.001, 5.0, &["b"]),
        (0.02, 1.0, &["a"]),
    ]);
    let (text, warnings, back) = round_trip(&p);
    assert!(text.contains(r#""type":"sampled""#), "{text}");
    assert_eq!(
        warnings,
        ["speedscope: sample times (.time) were not written: speedscope sampled profiles lay samples end to end"]
    );
    assert_eq!(total(&p), total(&back));
}

#[test]
fn contiguous_times_stay_sampled() {
    let p = built(&[
        (0.0, 2.0, &["a"]),
        (0.002, 3.0, &["b"]),
        (0.005, 1.0, &["a"]),
    ]);
    let (text, warnings, back) = round_trip(&p);
    assert!(text.contains(r#""type":"sampled""#), "{text}");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_same_intervals(
        &intervals(&p, time_vt(&p)),
        &intervals(&back, time_vt(&back)),
        "contiguous",
    );
}

#[test]
fn cpuprofiles_are_written_evented() {
    let (mut evented, mut compared) = (0, 0);
    for path in corpus_files("cpuprofile") {
        let p = read_path(Format::Cpuprofile, &path).profile;
        let what = path.display().to_string();
        let (text, warnings, back) = round_trip(&p);
        if !text.contains(r#""type":"evented""#) {
            continue;
        }
        evented += 1;
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("ends of their intervals")),
            "{what}: {warnings:?}"
        );
        let sources = p.sources.source_type.len();
        if sources != 1 || text.contains(r#""type":"sampled""#) {
            continue; // per-source comparison below needs one evented source
        }
        let want: Vec<_> = intervals(&p, time_vt(&p))
            .into_iter()
            .map(|(t, w, s)| (t - w * 1e-9, w, s))
            .collect();
        let got = intervals(&back, time_vt(&back));
        // Read back in the profile's unit (nanoseconds) and relative to the first start.
        let first = want.first().map_or(0.0, |w| w.0);
        let shifted: Vec<_> = if got.first().is_some_and(|g| close(g.0, first)) {
            want
        } else {
            want.into_iter()
                .map(|(t, w, s)| (t - first, w, s))
                .collect()
        };
        assert_same_intervals(&shifted, &got, &what);
        compared += 1;
        assert_eq!(
            p.values[time_vt(&p).idx()].total(),
            back.values[time_vt(&back).idx()].total(),
            "{what}"
        );
    }
    if !corpus_files("cpuprofile").is_empty() {
        assert!(
            evented >= 3 && compared >= 3,
            "evented {evented}, compared {compared}"
        );
    }
}
