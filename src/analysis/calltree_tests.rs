use super::*;
use crate::analysis::children::Order;
use crate::analysis::diff::{diff_tree_with_frames, Comparison, Normalization};
use crate::analysis::diff_view::{DiffView, SizeBy};
use crate::analysis::fixtures::paths_profile;
use crate::analysis::transform::Transform;
use crate::analysis::view::{View, ViewOptions};
use crate::model::{SourceIndex, ValueTypeIndex};

type Sample = (usize, &'static [&'static str], f64);

const SAMPLES: &[Sample] = &[
    (0, &["main", "parse", "lex"], 5.0),
    (0, &["main", "parse"], 2.0),
    (0, &["main", "eval", "parse", "lex"], 3.0),
    (0, &["main", "eval"], 7.0),
    (1, &["main", "eval", "alloc"], 4.0),
    (1, &["init"], 1.0),
    (1, &[], 6.0),
];

fn view() -> View {
    View::new(paths_profile(&["a", "b"], SAMPLES))
}

fn names(v: &View, frames: &[u32]) -> Vec<String> {
    frames
        .iter()
        .map(|&f| v.frames().name[f as usize].clone())
        .collect()
}

/// Self and total of a root-first call path by a naive pass over the samples (`inverted`:
/// the path is innermost-first and matches reversed stacks).
fn recount(path: &[String], inverted: bool) -> (f64, f64) {
    let (mut self_w, mut total) = (0.0, 0.0);
    for &(_, stack, v) in SAMPLES {
        let mut s: Vec<&str> = stack.to_vec();
        if inverted {
            s.reverse();
        }
        if s.len() >= path.len() && s.iter().zip(path).all(|(a, b)| a == b) {
            total += v;
            if s.len() == path.len() {
                self_w += v;
            }
        }
    }
    (self_w, total)
}

/// Every shown row of a tree, depth first, as (root-first frame names, self, total).
fn all_rows(v: &mut View, inverted: bool) -> Vec<(Vec<String>, f64, f64)> {
    let src = v.tree_source(inverted);
    let rows = src.subtree_rows(ROOT, usize::MAX);
    assert!(!rows.truncated);
    let paths: Vec<Vec<u32>> = rows.node.iter().map(|&n| src.tree.path(n)).collect();
    paths
        .iter()
        .enumerate()
        .map(|(i, frames)| (names(v, frames), rows.self_w[0][i], rows.total[0][i]))
        .collect()
}

#[test]
fn top_down_rows_match_a_naive_recount() {
    let mut v = view();
    let rows = all_rows(&mut v, false);
    // main, parse, lex, eval, parse, lex, alloc, init: every call path of the samples.
    assert_eq!(rows.len(), 8);
    for (path, self_w, total) in &rows {
        assert_eq!((*self_w, *total), recount(path, false), "{path:?}");
    }
    // Heaviest first: main (21) before init (1); under main, eval (14) before parse (7).
    assert_eq!(rows[0].0, ["main"]);
    assert_eq!(rows[1].0, ["main", "eval"]);
    assert_eq!(rows.last().unwrap().0, ["init"]);
}

#[test]
fn inverted_rows_match_a_naive_recount() {
    let mut v = view();
    let rows = all_rows(&mut v, true);
    for (path, self_w, total) in &rows {
        let (s, t) = recount(path, true);
        assert_eq!(*total, t, "{path:?}");
        // A root row's self is the function's self value; deeper rows have none.
        let want_self = if path.len() == 1 { t } else { 0.0 };
        assert_eq!(*self_w, want_self, "{path:?} (naive self {s})");
    }
    let roots: Vec<(&str, f64)> = rows
        .iter()
        .filter(|r| r.0.len() == 1)
        .map(|r| (r.0[0].as_str(), r.2))
        .collect();
    assert_eq!(
        roots,
        [
            ("lex", 8.0),
            ("eval", 7.0),
            ("alloc", 4.0),
            ("parse", 2.0),
            ("init", 1.0)
        ]
    );
}

#[test]
fn children_heaviest_path_and_paths() {
    let mut v = view();
    let src = v.tree_source(false);
    let top = src.children_rows(&[ROOT]);
    assert_eq!(top.len(), 2);
    assert_eq!(top.children, [2, 0]);
    assert_eq!(top.depth, [1, 1]);
    let heavy = src.heaviest_path();
    let frames: Vec<u32> = heavy.iter().map(|&n| src.tree.frame(n as usize)).collect();
    let hp = names(&v, &frames);
    // eval's children: alloc (4) before parse (3).
    assert_eq!(hp, ["main", "eval", "alloc"]);
    let src = v.tree_source(false);
    let last = *heavy.last().unwrap();
    assert_eq!(src.node_of_path(&frames), Some(last));
    assert_eq!(src.ancestors(last), heavy[..heavy.len() - 1]);
    assert_eq!(src.node_of_path(&[frames[0], frames[2]]), None);
    assert_eq!(src.node_of_path(&[]), None);
    // Children of several nodes at once, in turn.
    let both = src.children_rows(&[ROOT, heavy[0]]);
    assert_eq!(both.parent, [ROOT, ROOT, heavy[0], heavy[0]]);
}

#[test]
fn subtree_rows_are_bounded() {
    let mut v = view();
    let src = v.tree_source(false);
    let rows = src.subtree_rows(ROOT, 3);
    assert_eq!(rows.len(), 3);
    assert!(rows.truncated);
    let all = src.subtree_rows(ROOT, 8);
    assert!(!all.truncated);
    assert_eq!(src.subtree_rows(u32::MAX, 8).len(), 0);
}

#[test]
fn search_finds_every_occurrence_in_display_order() {
    let mut v = view();
    let lex = v.frames().find("lex").unwrap();
    let mut flags = vec![0u8; v.frames().len()];
    flags[lex as usize] = 1;
    let src = v.tree_source(false);
    let (found, more) = src.matching(&flags, 10);
    assert!(!more);
    assert_eq!(found.len(), 2);
    let depth: Vec<u32> = found.iter().map(|&n| src.tree.depth_of(n)).collect();
    // main > eval > parse > lex (3) comes before main > parse > lex (5): eval is heavier.
    assert_eq!(depth, [4, 3]);
    assert_eq!(src.matching(&flags, 1), (vec![found[0]], true));
}

#[test]
fn transforms_and_filters_apply() {
    let mut v = view();
    let parse = v.frames().find("parse").unwrap();
    v.set_options(ViewOptions {
        transforms: vec![Transform::Focus(parse)],
        filter: crate::analysis::filter::SampleFilter {
            sources: Some(vec![true, false]),
            ..Default::default()
        },
        ..ViewOptions::default()
    });
    let mut rows = all_rows(&mut v, false);
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let s = |p: &[&str]| p.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        rows,
        [(s(&["parse"]), 2.0, 10.0), (s(&["parse", "lex"]), 8.0, 8.0)]
    );
}

#[test]
fn compare_rows_carry_both_sides() {
    let p = paths_profile(&["a", "b"], SAMPLES);
    let v = View::new(p.clone());
    let c = Comparison {
        value_type: ValueTypeIndex(0),
        base: vec![SourceIndex(0)],
        new: vec![SourceIndex(1)],
        normalization: Normalization::Absolute,
    };
    let diff = diff_tree_with_frames(&p, &c, &v.frames().of_location).unwrap();
    let dv = DiffView::new(
        &diff,
        &[],
        Order::WidestFirst,
        &v.frames().name_rank,
        SizeBy::New,
    );
    let src = dv.tree_source();
    let rows = src.subtree_rows(ROOT, 100);
    let main = v.frames().find("main").unwrap();
    let i = rows.frame.iter().position(|&f| f == main).unwrap();
    // main: 4 in the comparison (b), 17 in the baseline (a).
    assert_eq!((rows.total[0][i], rows.total[1][i]), (4.0, 17.0));
    // Nodes of one side only are shown: parse (baseline only) and init (comparison only).
    let shown: Vec<String> = rows
        .frame
        .iter()
        .map(|&f| v.frames().name[f as usize].clone())
        .collect();
    assert!(shown.contains(&"init".to_owned()) && shown.contains(&"lex".to_owned()));
}
