//! `analysis::diff` on hand-built profiles: known numbers for scaled and absolute comparisons,
//! a profile compared with itself, and the call-path tree checked against a naive per-sample
//! computation on random profiles.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};

mod support;
use support::rng::Rng;

use proftab::analysis::diff::{
    diff_functions, diff_summary, diff_tree, diff_tree_with_frames, Comparison, DiffError,
    DiffTree, FrameIds, Normalization, Side, ROOT,
};
use proftab::model::{
    LocationIndex, Profile, ProfileBuilder, SourceIndex, ValueTypeIndex, NO_INDEX,
};

fn sources(ids: &[u32]) -> Vec<SourceIndex> {
    ids.iter().map(|&i| SourceIndex(i)).collect()
}

fn comparison(base: &[u32], new: &[u32], normalization: Normalization) -> Comparison {
    Comparison {
        value_type: ValueTypeIndex(0),
        base: sources(base),
        new: sources(new),
        normalization,
    }
}

/// Baseline (sources 0 and 1, a group) and comparison (source 2), `cpu`/`nanoseconds`:
///
/// | stack (root first) | source 0 | source 1 | source 2 |
/// | --- | --- | --- | --- |
/// | main;parse        | 30 | 10 | 20 |
/// | main;parse;alloc  | 20 | 0  | 20 |
/// | main;render       | 20 | 20 | 100 |
/// | (no frames)       | 0  | 0  | 20 |
///
/// Baseline total 100, comparison total 160, so the scaled comparison is multiplied by 100/160.
fn grouped_profile() -> Profile {
    let mut b = ProfileBuilder::new();
    let cpu = b.value_type("cpu", "nanoseconds");
    let srcs = ["a.pb.gz", "b.pb.gz", "c.pb.gz"].map(|u| b.add_source("pprof", Some(u), None));
    let [main, parse, alloc, render] =
        ["main", "parse", "alloc", "render"].map(|n| b.function_named(n, Some("x.go")));
    let [lm, lp, la, lr] = [main, parse, alloc, render].map(|f| b.location(Some(f), 1));
    let parse_stack = b.stack_root_first(&[lm, lp]);
    let alloc_stack = b.stack_root_first(&[lm, lp, la]);
    let render_stack = b.stack_root_first(&[lm, lr]);
    let rows = [
        (0, parse_stack, 30.0),
        (1, parse_stack, 10.0),
        (2, parse_stack, 20.0),
        (0, alloc_stack, 20.0),
        (2, alloc_stack, 20.0),
        (0, render_stack, 20.0),
        (1, render_stack, 20.0),
        (2, render_stack, 100.0),
        (2, None, 20.0),
    ];
    for (src, stack, v) in rows {
        b.add_sample_with_values(srcs[src], stack, &[(cpu, v)]);
    }
    b.build().unwrap()
}

/// `(base_self, new_self, base_total, new_total)` of every function, by name.
fn function_values(p: &Profile, c: &Comparison) -> BTreeMap<String, (f64, f64, f64, f64)> {
    diff_functions(p, c)
        .unwrap()
        .rows
        .into_iter()
        .map(|r| (r.name, (r.base_self, r.new_self, r.base_total, r.new_total)))
        .collect()
}

#[test]
fn absolute_comparison_of_a_group_with_a_source() {
    let p = grouped_profile();
    let c = comparison(&[0, 1], &[2], Normalization::Absolute);
    let d = diff_functions(&p, &c).unwrap();
    assert_eq!(d.summary.base_total, 100.0);
    assert_eq!(d.summary.new_total_raw, 160.0);
    assert_eq!(d.summary.scale, 1.0);
    assert_eq!((d.summary.base_samples, d.summary.new_samples), (5, 4));
    let v = function_values(&p, &c);
    // Hand-counted from the table in `grouped_profile`.
    assert_eq!(v["main"], (0.0, 0.0, 100.0, 140.0));
    assert_eq!(v["parse"], (40.0, 20.0, 60.0, 40.0));
    assert_eq!(v["alloc"], (20.0, 20.0, 20.0, 20.0));
    assert_eq!(v["render"], (40.0, 100.0, 40.0, 100.0));
    let order: Vec<&str> = d.rows.iter().map(|r| r.name.as_str()).collect();
    // self deltas: render +60, main 0 (total +40), alloc 0 (total 0), parse -20.
    assert_eq!(order, ["render", "main", "alloc", "parse"]);
    assert_eq!(d.rows[0].self_relative(), Some(1.5));
    assert_eq!(d.rows[1].self_relative(), None);
    assert_eq!(d.rows[3].total_relative(), Some(-20.0 / 60.0));
}

#[test]
fn scaled_comparison_puts_both_on_the_baseline_total() {
    let p = grouped_profile();
    let c = comparison(&[0, 1], &[2], Normalization::Scaled);
    let d = diff_functions(&p, &c).unwrap();
    assert_eq!(d.summary.scale, 100.0 / 160.0);
    assert_eq!(d.summary.new_total(), 100.0);
    let v = function_values(&p, &c);
    // Comparison values times 0.625: 20 -> 12.5, 100 -> 62.5, 140 -> 87.5, 40 -> 25.
    assert_eq!(v["render"], (40.0, 62.5, 40.0, 62.5));
    assert_eq!(v["parse"], (40.0, 12.5, 60.0, 25.0));
    assert_eq!(v["alloc"], (20.0, 12.5, 20.0, 12.5));
    assert_eq!(v["main"], (0.0, 0.0, 100.0, 87.5));
    let order: Vec<&str> = d.rows.iter().map(|r| r.name.as_str()).collect();
    // self deltas: render +22.5, main 0 (total -12.5), alloc -7.5, parse -27.5.
    assert_eq!(order, ["render", "main", "alloc", "parse"]);
}

#[test]
fn scaled_and_absolute_trees_differ_only_by_the_scale() {
    let p = grouped_profile();
    let (abs, frames) = diff_tree(&p, &comparison(&[0, 1], &[2], Normalization::Absolute)).unwrap();
    let (scaled, _) = diff_tree(&p, &comparison(&[0, 1], &[2], Normalization::Scaled)).unwrap();
    assert_eq!(abs.parent_column(), scaled.parent_column());
    assert_eq!(abs.base_total, scaled.base_total);
    for n in 0..abs.len() {
        assert_eq!(abs.new_total[n] * 0.625, scaled.new_total[n]);
        assert_eq!(abs.new_self[n] * 0.625, scaled.new_self[n]);
    }
    // The root's self is the sample without frames; main;parse;alloc is one node.
    assert_eq!((abs.base_self[0], abs.new_self[0]), (0.0, 20.0));
    let alloc = node_by_path(&abs, &frames, &["main", "parse", "alloc"]).unwrap();
    assert_eq!((abs.base_total[alloc], abs.new_total[alloc]), (20.0, 20.0));
    assert_eq!(abs.delta[alloc], 0.0);
    let render = node_by_path(&abs, &frames, &["main", "render"]).unwrap();
    assert_eq!(scaled.delta[render], 22.5);
}

fn node_by_path(t: &DiffTree, frames: &FrameIds, names: &[&str]) -> Option<usize> {
    (0..t.len()).find(|&n| {
        let path: Vec<&str> = t
            .path(n as u32)
            .iter()
            .map(|&f| frames.name[f as usize].as_str())
            .collect();
        n != ROOT as usize && path == names
    })
}

#[test]
fn a_selection_compared_with_itself_shows_no_change() {
    let p = grouped_profile();
    for normalization in [Normalization::Scaled, Normalization::Absolute] {
        let c = comparison(&[0, 2], &[0, 2], normalization);
        let d = diff_functions(&p, &c).unwrap();
        assert_eq!(d.summary.scale, 1.0);
        assert_eq!(d.rows.len(), 4);
        for r in &d.rows {
            assert_eq!((r.self_delta(), r.total_delta()), (0.0, 0.0), "{}", r.name);
        }
        let (t, _) = diff_tree(&p, &c).unwrap();
        assert!(t.delta.iter().all(|&d| d == 0.0));
        assert_eq!(t.base_total, t.new_total);
    }
}

#[test]
fn missing_value_type_is_an_error() {
    let mut b = ProfileBuilder::new();
    let a = b.value_type("alloc_space", "bytes");
    let cpu = b.value_type("cpu", "nanoseconds");
    let s0 = b.add_source("pprof", Some("heap.pb.gz"), None);
    let s1 = b.add_source("pprof", Some("cpu.pb.gz"), None);
    let f = b.function_named("f", None);
    let l = b.location(Some(f), 0);
    let st = b.stack_leaf_first(&[l]);
    b.add_sample_with_values(s0, st, &[(a, 10.0)]);
    b.add_sample_with_values(s1, st, &[(cpu, 10.0)]);
    let p = b.build().unwrap();
    let c = Comparison {
        value_type: cpu,
        ..comparison(&[0], &[1], Normalization::Scaled)
    };
    let err = diff_summary(&p, &c).unwrap_err();
    assert_eq!(
        err,
        DiffError::MissingValueType {
            side: Side::Base,
            value_type: "cpu".to_owned()
        }
    );
    assert_eq!(
        err.to_string(),
        "diff: no sample of the baseline selection has a value of type \"cpu\""
    );
    let wrong = diff_tree_with_frames(&p, &comparison(&[0], &[0], Normalization::Scaled), &[]);
    assert_eq!(
        wrong.unwrap_err().to_string(),
        "diff: 0 frame ids given for 1 locations"
    );
}

// ---------------------------------------------------------------------------------------------
// Random profiles against a naive computation

/// Three sources; five function names, some in two files (so two locations share a frame),
/// recursion, samples without frames, and samples without a value.
fn random_profile(seed: u64) -> Profile {
    let mut rng = Rng(seed);
    let mut b = ProfileBuilder::new();
    let vt = b.value_type("samples", "count");
    let other = b.value_type("bytes", "bytes");
    let srcs: Vec<SourceIndex> = (0..3)
        .map(|i| b.add_source("manual", Some(&format!("s{i}")), None))
        .collect();
    let mut locs: Vec<LocationIndex> = Vec::new();
    for (i, name) in ["a", "b", "c", "d", "e", "a", "c"].iter().enumerate() {
        let f = b.function_named(name, Some(if i < 5 { "x.go" } else { "y.go" }));
        locs.push(b.location(Some(f), i as i32));
    }
    locs.push(b.location(None, 0));
    for _ in 0..200 {
        let depth = rng.below(7);
        let frames: Vec<LocationIndex> = (0..depth).map(|_| locs[rng.below(locs.len())]).collect();
        let stack = b.stack_root_first(&frames);
        let src = srcs[rng.below(3)];
        let v = (rng.below(9) + 1) as f64;
        if rng.below(10) == 0 {
            b.add_sample_with_values(src, stack, &[(other, v)]);
        } else {
            b.add_sample_with_values(src, stack, &[(vt, v)]);
        }
    }
    b.build().unwrap()
}

/// The frame names of sample `s`'s call path, root first.
fn path_names(p: &Profile, frames: &FrameIds, s: usize) -> Vec<String> {
    let stack = p.sample_stack(proftab::model::SampleIndex(s as u32));
    let mut names: Vec<String> = p
        .frames_leaf_first(stack)
        .map(|l| frames.name[frames.of_location[l.idx()] as usize].clone())
        .collect();
    names.reverse();
    names
}

/// Per call path (frame names, root first): baseline and comparison totals summed sample by
/// sample, without the stack table's sharing.
fn naive_path_totals(p: &Profile, c: &Comparison) -> BTreeMap<Vec<String>, (f64, f64)> {
    let frames = FrameIds::new(p);
    let mut out: BTreeMap<Vec<String>, (f64, f64)> = BTreeMap::new();
    let col = &p.values[c.value_type.0 as usize];
    for s in 0..p.num_samples() {
        let Some(v) = col.get(s) else { continue };
        let src = p.samples.source[s];
        let names = path_names(p, &frames, s);
        for len in 0..=names.len() {
            let e = out.entry(names[..len].to_vec()).or_default();
            if c.base.contains(&src) {
                e.0 += v;
            }
            if c.new.contains(&src) {
                e.1 += v;
            }
        }
    }
    out.retain(|_, (b, n)| *b != 0.0 || *n != 0.0);
    out
}

fn tree_path_totals(t: &DiffTree, frames: &FrameIds) -> BTreeMap<Vec<String>, (f64, f64)> {
    (0..t.len())
        .map(|n| {
            let path = t
                .path(n as u32)
                .iter()
                .map(|&f| frames.name[f as usize].clone())
                .collect();
            (path, (t.base_total[n], t.new_total[n]))
        })
        .collect()
}

fn check_tree_sums(t: &DiffTree) {
    let depth = t.depths();
    let mut base_children = vec![0.0; t.len()];
    let mut new_children = vec![0.0; t.len()];
    for n in 1..t.len() {
        let up = t.parent(n) as usize;
        assert!(up < n, "parent before child");
        assert_eq!(depth[n], depth[up] + 1);
        base_children[up] += t.base_total[n];
        new_children[up] += t.new_total[n];
        assert!(
            t.base_total[n] != 0.0 || t.new_total[n] != 0.0,
            "empty node kept"
        );
    }
    for n in 0..t.len() {
        assert_eq!(
            t.base_total[n],
            t.base_self[n] + base_children[n],
            "node {n}"
        );
        assert!((t.new_total[n] - (t.new_self[n] + new_children[n])).abs() < 1e-9);
        assert_eq!(t.delta[n], t.new_total[n] - t.base_total[n]);
    }
    assert_eq!((t.parent(0), t.frame(0), depth[0]), (NO_INDEX, NO_INDEX, 0));
    assert_eq!(t.base_total[0], t.summary.base_total);
    assert!((t.new_total[0] - t.summary.new_total()).abs() < 1e-9);
}

#[test]
fn tree_node_totals_match_a_naive_sum_per_sample() {
    for seed in 1..40u64 {
        let p = random_profile(seed * 7919);
        let base = &[0];
        let new: &[u32] = if seed % 2 == 0 { &[1, 2] } else { &[2] };
        let c = comparison(base, new, Normalization::Absolute);
        let (t, frames) = diff_tree(&p, &c).unwrap();
        check_tree_sums(&t);
        assert_eq!(
            tree_path_totals(&t, &frames),
            naive_path_totals(&p, &c),
            "seed {seed}"
        );
        let scaled = diff_tree(&p, &comparison(base, new, Normalization::Scaled))
            .unwrap()
            .0;
        check_tree_sums(&scaled);
        assert!((scaled.new_total[0] - scaled.base_total[0]).abs() < 1e-9);
    }
}

#[test]
fn function_totals_match_a_naive_sum_per_sample() {
    for seed in 1..20u64 {
        let p = random_profile(seed * 104_729);
        let c = comparison(&[0, 1], &[2], Normalization::Absolute);
        let frames = FrameIds::new(&p);
        let mut expected: BTreeMap<String, [f64; 4]> = BTreeMap::new();
        let col = &p.values[0];
        for s in 0..p.num_samples() {
            let Some(v) = col.get(s) else { continue };
            let side = usize::from(p.samples.source[s] == SourceIndex(2));
            let stack = p.sample_stack(proftab::model::SampleIndex(s as u32));
            let names: Vec<String> = p
                .frames_leaf_first(stack)
                .map(|l| frames.name[frames.of_location[l.idx()] as usize].clone())
                .collect();
            if let Some(leaf) = names.first() {
                expected.entry(leaf.clone()).or_default()[side] += v;
            }
            for name in names.iter().collect::<BTreeSet<_>>() {
                expected.entry(name.clone()).or_default()[2 + side] += v;
            }
        }
        let got: BTreeMap<String, [f64; 4]> = function_values(&p, &c)
            .into_iter()
            .map(|(k, (bs, ns, bt, nt))| (k, [bs, ns, bt, nt]))
            .collect();
        assert_eq!(got, expected, "seed {seed}");
    }
}

/// Samples of each side through `frame`, counted per sample: a sample's path is cut to its
/// longest prefix the tree kept (`kept`), as [`DiffTree::base_samples`] documents.
fn naive_focused_counts(
    p: &Profile,
    c: &Comparison,
    frames: &FrameIds,
    kept: &BTreeSet<Vec<String>>,
    frame: &str,
) -> (f64, f64) {
    let mut out = (0.0, 0.0);
    for s in 0..p.num_samples() {
        let names = path_names(p, frames, s);
        let len = (0..=names.len())
            .rev()
            .find(|&l| kept.contains(&names[..l]))
            .unwrap();
        if !names[..len].iter().any(|n| n == frame) {
            continue;
        }
        let src = p.samples.source[s];
        out.0 += f64::from(u8::from(c.base.contains(&src)));
        out.1 += f64::from(u8::from(c.new.contains(&src)));
    }
    out
}

#[test]
fn focused_sample_counts_match_a_naive_count() {
    use proftab::analysis::children::Order;
    use proftab::analysis::diff_view::{DiffView, SizeBy};
    use proftab::analysis::transform::Transform;
    for seed in 1..20u64 {
        let p = random_profile(seed * 15_485_863);
        let c = comparison(&[0], &[1, 2], Normalization::Scaled);
        let (t, frames) = diff_tree(&p, &c).unwrap();
        let kept: BTreeSet<Vec<String>> = tree_path_totals(&t, &frames).into_keys().collect();
        let all = DiffView::new(&t, &[], Order::WidestFirst, &frames.name_rank, SizeBy::New);
        let selections = (t.summary.base_samples as f64, t.summary.new_samples as f64);
        assert_eq!(all.shown_samples(), selections, "seed {seed}");
        for (f, name) in frames.name.iter().enumerate() {
            let focus = [Transform::Focus(f as u32)];
            let v = DiffView::new(
                &t,
                &focus,
                Order::WidestFirst,
                &frames.name_rank,
                SizeBy::New,
            );
            let want = naive_focused_counts(&p, &c, &frames, &kept, name);
            assert_eq!(v.shown_samples(), want, "seed {seed}, focus on {name}");
        }
    }
}
