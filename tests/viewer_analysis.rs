//! The viewer's analysis on real corpus profiles: the function table of a view equals
//! `analysis::functions::function_table` for every value type, flame-graph layouts keep
//! widths true (children within their parent, merged boxes included), and the time-order
//! layout covers every sample's value.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use proftab::analysis::facets::{facet_mask, facets, FacetSource};
use proftab::analysis::flame::Viewport;
use proftab::analysis::functions::function_table;
use proftab::analysis::transform::Transform;
use proftab::analysis::view::{SandwichSide, View, ViewOptions};
use proftab::formats::{read_any, Format, ReadOptions};
use proftab::model::{Profile, ValueTypeIndex};
use support::corpus::{corpus, files_in, fixture};

/// Every readable corpus file of `dir` whose format proftab can read, parsed.
fn profiles(dir: &str, format: Format) -> Vec<(String, Profile)> {
    profiles_in(&corpus().join(dir), format)
}

/// Every readable file of `dir`, parsed (at least one must be of `format`).
fn profiles_in(dir: &std::path::Path, format: Format) -> Vec<(String, Profile)> {
    if !format.can_read() {
        eprintln!("SKIP: {} is not registered yet", format.name());
        return Vec::new();
    }
    let mut out = Vec::new();
    for path in files_in(dir) {
        let bytes = std::fs::read(&path).unwrap();
        if let Ok(parsed) = read_any(&bytes, &ReadOptions::default()) {
            out.push((path.display().to_string(), parsed.profile));
        }
    }
    assert!(
        !out.is_empty(),
        "no {} file of the corpus could be read",
        format.name()
    );
    out
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn check_function_tables(name: &str, p: &Profile) {
    let mut view = View::new(p.clone());
    for vt in 0..p.values.len() {
        let vt = ValueTypeIndex(vt as u32);
        view.set_options(ViewOptions {
            value_type: vt,
            ..ViewOptions::default()
        });
        let expect = function_table(p, vt, None);
        let got = view.frame_totals();
        assert!(close(view.totals().shown, expect.total), "{name}: total");
        for row in &expect.rows {
            let f = view
                .frames()
                .key
                .iter()
                .position(|k| *k == row.key)
                .unwrap();
            assert!(
                close(got.self_w[f], row.self_value),
                "{name}: self of {}",
                row.name
            );
            assert!(
                close(got.total[f], row.total_value),
                "{name}: total of {}",
                row.name
            );
        }
    }
}

/// Every box lies within the box of its parent row at the same x, and each row's widths sum
/// to at most the root's width.
fn check_flame_layout(name: &str, view: &View) {
    let total = view.totals().shown;
    if total <= 0.0 {
        return;
    }
    let vp = Viewport {
        min_width: total / 2000.0,
        ..Viewport::all()
    };
    let b = view.flame(&vp);
    let max_depth = b.depth.iter().copied().max().unwrap_or(0);
    for d in 1..=max_depth {
        let row: Vec<usize> = (0..b.len()).filter(|&i| b.depth[i] == d).collect();
        let sum: f64 = row.iter().map(|&i| b.width[i]).sum();
        assert!(
            sum <= total * (1.0 + 1e-9),
            "{name}: row {d} wider than the root"
        );
        for w in row.windows(2) {
            assert!(b.x[w[0]] + b.width[w[0]] <= b.x[w[1]] * (1.0 + 1e-12) + 1e-9);
        }
        for &i in &row {
            let parent = (0..b.len()).find(|&k| {
                b.depth[k] == d - 1
                    && b.node[k] != u32::MAX
                    && b.x[k] <= b.x[i] + 1e-9 * total
                    && b.x[i] + b.width[i] <= b.x[k] + b.width[k] + 1e-9 * total
            });
            assert!(
                parent.is_some(),
                "{name}: box {i} at depth {d} has no parent box"
            );
        }
    }
}

#[test]
fn pprof_views_agree_with_function_table() {
    let mut label_facets = 0;
    for (name, p) in profiles("pprof", Format::Pprof) {
        label_facets += check_facets(&name, &p);
        check_function_tables(&name, &p);
        check_flame_layout(&name, &View::new(p));
    }
    assert!(
        label_facets >= 2,
        "pprof labels give facets ({label_facets})"
    );
}

#[test]
fn rprof_views_agree_with_function_table() {
    for (name, p) in profiles("rprof", Format::Rprof) {
        check_function_tables(&name, &p);
        let mut view = View::new(p);
        check_flame_layout(&name, &view);
        let t = view.time_order(&Viewport::all());
        let first_row: f64 = (0..t.len())
            .filter(|&i| t.depth[i] == 1)
            .map(|i| t.width[i])
            .sum();
        assert!(first_row > 0.0, "{name}: empty time order");
    }
}

#[test]
fn transforms_and_sandwich_keep_totals_on_real_profiles() {
    for (name, p) in profiles("rprof", Format::Rprof) {
        let mut view = View::new(p);
        let totals = view.frame_totals().clone();
        let Some(top) = (0..totals.total.len())
            .filter(|&f| totals.self_w[f] > 0.0)
            .max_by(|&a, &b| totals.total[a].total_cmp(&totals.total[b]))
        else {
            continue;
        };
        let f = top as u32;
        let callers = view.sandwich(f, SandwichSide::Callers, &Viewport::all());
        let callees = view.sandwich(f, SandwichSide::Callees, &Viewport::all());
        assert!(
            close(callers.width[1], totals.total[top]),
            "{name}: callers root"
        );
        assert!(
            close(callees.width[1], totals.total[top]),
            "{name}: callees root"
        );
        let mut opts = view.options().clone();
        opts.transforms = vec![Transform::Focus(f)];
        view.set_options(opts.clone());
        assert!(
            close(view.totals().shown, totals.total[top]),
            "{name}: focus total"
        );
        opts.transforms = vec![Transform::Hide(f)];
        view.set_options(opts);
        let hidden = view.frame_totals();
        assert_eq!(hidden.total[top], 0.0, "{name}: hidden frame still counted");
        assert!(
            close(view.totals().shown, view.totals().kept),
            "{name}: hide lost weight"
        );
    }
}

/// The remaining formats: every view the viewer offers works on every readable corpus file
/// (and on the recorded fixtures of the two formats the corpus lacks)
/// (function tables for every value type, flame layout, time order, sandwich and transforms of
/// the heaviest function, search, and the line table, whose total is the view's).
#[test]
fn every_format_in_every_view() {
    let dirs = [
        ("collapsed", Format::Collapsed),
        ("cpuprofile", Format::Cpuprofile),
        ("firefox", Format::Firefox),
        ("otlp", Format::Otlp),
        ("speedscope", Format::Speedscope),
    ];
    let recorded = [
        (fixture("pprof-text"), Format::PprofText),
        (fixture("goroutine-dump"), Format::GoroutineDump),
    ];
    let corpus_dirs = dirs.into_iter().map(|(d, f)| (corpus().join(d), f));
    for (dir, format) in corpus_dirs.chain(recorded) {
        for (name, p) in profiles_in(&dir, format) {
            check_function_tables(&name, &p);
            let mut view = View::new(p);
            check_flame_layout(&name, &view);
            check_other_views(&name, &mut view);
        }
    }
}

/// Each facet value's sample count is the number of samples its mask keeps.
fn check_facets(name: &str, p: &Profile) -> usize {
    let all = facets(p);
    for f in &all {
        for (value, n) in f.values.iter().take(3) {
            let kept = facet_mask(p, &f.source, value)
                .iter()
                .filter(|&&k| k)
                .count();
            assert_eq!(kept, *n, "{name}: facet {} = {value}", f.name);
        }
    }
    all.iter()
        .filter(|f| matches!(f.source, FacetSource::Label(_)))
        .count()
}

fn check_other_views(name: &str, view: &mut View) {
    check_facets(name, view.profile());
    let time = view.time_order(&Viewport::all());
    let has_frames = !view.profile().stacks.prefix.is_empty();
    assert!(!has_frames || !time.is_empty(), "{name}: empty time order");
    let shown = view.totals().shown;
    let bottom_up = view.inverted_flame(&Viewport::all());
    assert!(
        shown == 0.0 || close(bottom_up.width[0], shown),
        "{name}: bottom-up total"
    );
    let first_row: f64 = (0..bottom_up.len())
        .filter(|&i| bottom_up.depth[i] == 1)
        .map(|i| bottom_up.width[i])
        .sum();
    let self_sum: f64 = view.frame_totals().self_w.iter().sum();
    assert!(close(first_row, self_sum), "{name}: bottom-up first row");
    let lines = view.line_table();
    assert!(
        close(lines.total, view.totals().kept),
        "{name}: line table total"
    );
    let (flags, matched) = view.search("/^[a-m]/").unwrap();
    assert_eq!(
        flags.len(),
        view.frames().len(),
        "{name}: one search flag per frame"
    );
    assert!(
        matched <= shown * (1.0 + 1e-9),
        "{name}: matched share above 100%"
    );
    let totals = view.frame_totals().clone();
    let Some(top) =
        (0..totals.total.len()).max_by(|&a, &b| totals.total[a].total_cmp(&totals.total[b]))
    else {
        return;
    };
    let f = top as u32;
    let callers = view.sandwich(f, SandwichSide::Callers, &Viewport::all());
    assert!(
        totals.total[top] == 0.0 || close(callers.width[1], totals.total[top]),
        "{name}: callers root"
    );
    let mut opts = view.options().clone();
    opts.transforms = vec![Transform::Focus(f), Transform::CollapseRecursion(f)];
    view.set_options(opts);
    assert!(
        close(view.totals().shown, totals.total[top]),
        "{name}: focus total"
    );
    // The lines follow the transforms: their total is the focused view's.
    assert!(
        close(view.line_table().total, view.totals().shown),
        "{name}: line table total under a focus"
    );
}
