//! The call tree tab's wasm API (`Viewer::tree_*`, src/wasm_tree.rs) as the worker calls it,
//! run in Node by wasm-bindgen-test-runner (`cargo test --target wasm32-unknown-unknown --test
//! wasm_tree`).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use js_sys::{Array, Uint8Array};
use proftab::wasm_view::Viewer;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;
use wasm_support::{f64s, get, u32s};

mod wasm_support;

/// main;work;leaf ×3, main;work ×1, main;other ×2, init ×1 (7 samples).
const STACKS: &str = "main;work;leaf 3\nmain;work 1\nmain;other 2\ninit 1\n";
const NEW_STACKS: &str = "main;work;leaf 6\nmain;fresh 2\n";

fn viewer(contents: &[&str]) -> Viewer {
    let mut v = wasm_support::viewer(contents);
    v.set_options(0, 0, &[], f64::NAN, f64::NAN, &[], -1, "")
        .unwrap();
    v
}

fn names(v: &Viewer, frames: &[u32]) -> Vec<String> {
    let all: Array = get(&v.frames(), "names").dyn_into().unwrap();
    frames
        .iter()
        .map(|&f| all.get(f).as_string().unwrap())
        .collect()
}

#[wasm_bindgen_test]
fn top_level_rows_heaviest_first() {
    let mut v = viewer(&[STACKS]);
    let rows = v.tree_children(0, &[0]).unwrap();
    assert_eq!(names(&v, &u32s(&rows, "frame")), ["main", "init"]);
    assert_eq!(f64s(&rows, "total"), [6.0, 1.0]);
    assert_eq!(f64s(&rows, "self"), [0.0, 1.0]);
    assert_eq!(u32s(&rows, "children"), [2, 0]);
    assert_eq!(u32s(&rows, "depth"), [1, 1]);
    let main = u32s(&rows, "node")[0];
    let kids = v.tree_children(0, &[main]).unwrap();
    assert_eq!(names(&v, &u32s(&kids, "frame")), ["work", "other"]);
    assert_eq!(u32s(&kids, "parent"), [main, main]);
    assert!(get(&kids, "baseTotal").is_undefined());
}

#[wasm_bindgen_test]
fn heaviest_path_paths_and_ancestors_agree() {
    let mut v = viewer(&[STACKS]);
    let heavy = v.tree_heaviest_path(0).unwrap().to_vec();
    let leaf = *heavy.last().unwrap();
    let path = v.tree_path(0, leaf).unwrap().to_vec();
    assert_eq!(names(&v, &path), ["main", "work", "leaf"]);
    assert_eq!(v.tree_node_of_path(0, &path).unwrap(), leaf as i32);
    assert_eq!(v.tree_ancestors(0, leaf).unwrap().to_vec(), heavy[..2]);
    assert_eq!(v.tree_node_of_path(0, &[path[2]]).unwrap(), -1);
    // The tree's nodes are the flame graph's.
    let boxes = v.flame(f64::NEG_INFINITY, f64::INFINITY, 0.0, u32::MAX);
    assert!(u32s(&boxes, "node").contains(&leaf));
}

#[wasm_bindgen_test]
fn inverted_roots_carry_self_values() {
    let mut v = viewer(&[STACKS]);
    let rows = v.tree_children(1, &[0]).unwrap();
    assert_eq!(
        names(&v, &u32s(&rows, "frame")),
        ["leaf", "other", "init", "work"]
    );
    assert_eq!(f64s(&rows, "total"), [3.0, 2.0, 1.0, 1.0]);
    assert_eq!(f64s(&rows, "self"), f64s(&rows, "total"));
    let leaf = u32s(&rows, "node")[0];
    let callers = v.tree_children(1, &[leaf]).unwrap();
    assert_eq!(names(&v, &u32s(&callers, "frame")), ["work"]);
    assert_eq!(f64s(&callers, "self"), [0.0]);
    let path = v.tree_path(1, u32s(&callers, "node")[0]).unwrap().to_vec();
    assert_eq!(names(&v, &path), ["leaf", "work"]);
}

#[wasm_bindgen_test]
fn expand_all_is_capped() {
    let mut v = viewer(&[STACKS]);
    let all = v.tree_expand_all(0, 0, 100).unwrap();
    assert_eq!(
        names(&v, &u32s(&all, "frame")),
        ["main", "work", "leaf", "other", "init"]
    );
    assert_eq!(get(&all, "truncated").as_bool(), Some(false));
    let some = v.tree_expand_all(0, 0, 2).unwrap();
    assert_eq!(u32s(&some, "node").len(), 2);
    assert_eq!(get(&some, "truncated").as_bool(), Some(true));
}

#[wasm_bindgen_test]
fn matches_follow_the_search_flags() {
    let mut v = viewer(&[STACKS]);
    let flags = v.search("/^(leaf|init)$/").unwrap();
    let flags = get(&flags, "flags")
        .dyn_into::<Uint8Array>()
        .unwrap()
        .to_vec();
    let m = v.tree_matches(0, &flags, 10).unwrap();
    let nodes = u32s(&m, "nodes");
    let frames: Vec<u32> = nodes
        .iter()
        .map(|&n| *v.tree_path(0, n).unwrap().to_vec().last().unwrap())
        .collect();
    assert_eq!(names(&v, &frames), ["leaf", "init"]);
    assert_eq!(get(&m, "more").as_bool(), Some(false));
}

#[wasm_bindgen_test]
fn transforms_apply_to_the_tree() {
    let mut v = viewer(&[STACKS]);
    let second = v.tree_heaviest_path(0).unwrap().to_vec()[1];
    let work = v.tree_path(0, second).unwrap().to_vec()[1];
    // Focus on work: one top-level row, work (4), with leaf (3) below.
    v.set_options(0, 0, &[], f64::NAN, f64::NAN, &[0, work], -1, "")
        .unwrap();
    let rows = v.tree_expand_all(0, 0, 100).unwrap();
    assert_eq!(names(&v, &u32s(&rows, "frame")), ["work", "leaf"]);
    assert_eq!(f64s(&rows, "total"), [4.0, 3.0]);
}

#[wasm_bindgen_test]
fn compare_rows_have_both_sides() {
    let mut v = viewer(&[STACKS, NEW_STACKS]);
    assert!(v.tree_children(2, &[0]).is_err());
    v.compare(&[0], &[1], false, false).unwrap();
    let rows = v.tree_expand_all(2, 0, 100).unwrap();
    let frames = names(&v, &u32s(&rows, "frame"));
    let at = |n: &str| frames.iter().position(|x| x == n).unwrap();
    let (new, base) = (f64s(&rows, "total"), f64s(&rows, "baseTotal"));
    assert_eq!((base[at("main")], new[at("main")]), (6.0, 8.0));
    assert_eq!((base[at("other")], new[at("other")]), (2.0, 0.0));
    assert_eq!((base[at("fresh")], new[at("fresh")]), (0.0, 2.0));
    assert_eq!(f64s(&rows, "baseSelf")[at("leaf")], 3.0);
    assert!(v.tree_children(4, &[0]).is_err());
}

#[wasm_bindgen_test]
fn compare_inverted_rows_have_both_sides_self() {
    let mut v = viewer(&[STACKS, NEW_STACKS]);
    assert!(v.tree_children(3, &[0]).is_err(), "no comparison yet");
    v.compare(&[0], &[1], false, false).unwrap();
    let top = v.tree_children(3, &[0]).unwrap();
    let frames = names(&v, &u32s(&top, "frame"));
    // Every top-level row is a function's self on each side, and the sides' totals hold.
    let (new, base) = (f64s(&top, "total"), f64s(&top, "baseTotal"));
    assert_eq!(f64s(&top, "self"), new);
    assert_eq!(f64s(&top, "baseSelf"), base);
    assert_eq!(
        (base.iter().sum::<f64>(), new.iter().sum::<f64>()),
        (7.0, 8.0)
    );
    let table = v.compare_table().unwrap();
    let (base_self, new_self) = (f64s(&table, "baseSelf"), f64s(&table, "newSelf"));
    for (i, &f) in u32s(&top, "frame").iter().enumerate() {
        let f = f as usize;
        assert_eq!(
            (base[i], new[i]),
            (base_self[f], new_self[f]),
            "{}",
            frames[i]
        );
    }
    // Below a function, its callers, innermost first: the path ends at the outermost frame.
    let heaviest = v.tree_heaviest_path(3).unwrap().to_vec();
    let path = v.tree_path(3, *heaviest.last().unwrap()).unwrap().to_vec();
    assert_eq!(names(&v, &path[path.len() - 1..]), ["main"]);
    assert_eq!(
        v.tree_node_of_path(3, &path).unwrap(),
        *heaviest.last().unwrap() as i32
    );
}
