//! Call-tree transforms, applied as a sequence: each maps every node of one tree to a node of a
//! new tree (or [`DROPPED`]) in one forward pass, so a transform costs O(nodes), not
//! O(samples × depth). Because a node stands for a whole call path, transforming the tree is
//! the same as transforming every sample's stack.
//!
//! Semantics (after the Firefox Profiler's transforms of the same names):
//! - [`Transform::Focus`]: keep only samples whose stack passes through the frame, re-rooted at
//!   its outermost occurrence (deeper recursive occurrences stay).
//! - [`Transform::Hide`]: remove the frame from every stack; its self weight goes to its caller
//!   ("merge function").
//! - [`Transform::CollapseRecursion`]: when the frame calls itself, directly or through other
//!   frames, the inner call and everything between it and the outer call are dropped, so its
//!   callees hang under the outermost occurrence: `a → b → a → c` becomes `a → c`.
//! - [`Transform::CollapseDirectRecursion`]: only immediate self-calls merge: `a → a → c`
//!   becomes `a → c`, while `a → b → a` stays.

use crate::analysis::tree::{CallTree, TreeBuilder, DROPPED, ROOT};
use crate::model::NO_INDEX;

/// One transform; the `u32` is a frame id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transform {
    /// Only stacks through the frame, re-rooted at it.
    Focus(u32),
    /// Merge the frame into its caller.
    Hide(u32),
    /// Collapse direct and indirect recursion of the frame.
    CollapseRecursion(u32),
    /// Collapse only direct recursion of the frame.
    CollapseDirectRecursion(u32),
}

/// Applies one transform: the new tree, and the new node of every old node.
pub fn apply(tree: &CallTree, t: Transform) -> (CallTree, Vec<u32>) {
    match t {
        Transform::Focus(f) => focus(tree, f),
        Transform::Hide(f) => map_nodes(tree, |b, parent, frame| {
            if frame == f {
                parent
            } else {
                b.child(parent, frame)
            }
        }),
        Transform::CollapseDirectRecursion(f) => map_nodes(tree, |b, parent, frame| {
            if frame == f && b.frame_of(parent) == f {
                parent
            } else {
                b.child(parent, frame)
            }
        }),
        Transform::CollapseRecursion(f) => collapse_recursion(tree, f),
    }
}

/// Applies transforms in order; returns the final tree and each original node's final node.
/// A run of consecutive [`Transform::Hide`]s (as hiding every function that matches a pattern
/// gives) is applied in one pass: hiding commutes, so the result is the same as one by one.
pub fn apply_all(tree: &CallTree, transforms: &[Transform]) -> (CallTree, Vec<u32>) {
    let mut current = tree.clone();
    let mut map: Vec<u32> = (0..tree.len() as u32).collect();
    let mut rest = transforms;
    while let Some(&first) = rest.first() {
        let hides = rest
            .iter()
            .take_while(|t| matches!(t, Transform::Hide(_)))
            .count();
        let (next, step) = if hides > 1 {
            hide_all(&current, &rest[..hides])
        } else {
            apply(&current, first)
        };
        rest = &rest[hides.max(1)..];
        for m in map.iter_mut() {
            if *m != DROPPED {
                *m = step.get(*m as usize).copied().unwrap_or(DROPPED);
            }
        }
        current = next;
    }
    (current, map)
}

/// Hides every frame of `hides` (all [`Transform::Hide`]) in one pass.
fn hide_all(tree: &CallTree, hides: &[Transform]) -> (CallTree, Vec<u32>) {
    let mut hidden: Vec<bool> = Vec::new();
    for &t in hides {
        if let Transform::Hide(f) = t {
            let f = f as usize;
            if f >= hidden.len() {
                hidden.resize(f + 1, false);
            }
            hidden[f] = true;
        }
    }
    map_nodes(tree, |b, parent, frame| {
        if hidden.get(frame as usize).copied().unwrap_or(false) {
            parent
        } else {
            b.child(parent, frame)
        }
    })
}

/// Rebuilds `tree` choosing each node's new node from its parent's new node and its frame.
fn map_nodes(
    tree: &CallTree,
    mut place: impl FnMut(&mut TreeBuilder, u32, u32) -> u32,
) -> (CallTree, Vec<u32>) {
    let mut b = TreeBuilder::new();
    let mut map = Vec::with_capacity(tree.len());
    map.push(ROOT);
    for n in 1..tree.len() {
        let parent = map[tree.parent(n) as usize];
        map.push(if parent == DROPPED {
            DROPPED
        } else {
            place(&mut b, parent, tree.frame(n))
        });
    }
    (b.finish(), map)
}

fn focus(tree: &CallTree, f: u32) -> (CallTree, Vec<u32>) {
    // `OUTSIDE` marks nodes not (yet) under `f`; they map to DROPPED at the end.
    const OUTSIDE: u32 = NO_INDEX - 1;
    let mut b = TreeBuilder::new();
    let mut map = Vec::with_capacity(tree.len());
    map.push(OUTSIDE);
    for n in 1..tree.len() {
        let parent = map[tree.parent(n) as usize];
        let frame = tree.frame(n);
        map.push(match parent {
            OUTSIDE if frame == f => b.child(ROOT, frame),
            OUTSIDE => OUTSIDE,
            p => b.child(p, frame),
        });
    }
    for m in map.iter_mut() {
        if *m == OUTSIDE {
            *m = DROPPED;
        }
    }
    (b.finish(), map)
}

fn collapse_recursion(tree: &CallTree, f: u32) -> (CallTree, Vec<u32>) {
    let mut b = TreeBuilder::new();
    // outer[new] = the nearest new node at or above `new` whose frame is `f`.
    let mut outer: Vec<u32> = vec![NO_INDEX];
    let mut map = Vec::with_capacity(tree.len());
    map.push(ROOT);
    for n in 1..tree.len() {
        let parent = map[tree.parent(n) as usize];
        let frame = tree.frame(n);
        let above = outer[parent as usize];
        let node = if frame == f && above != NO_INDEX {
            above
        } else {
            b.child(parent, frame)
        };
        if node as usize == outer.len() {
            outer.push(if frame == f { node } else { above });
        }
        map.push(node);
    }
    (b.finish(), map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tree::Weights;

    /// Builds a tree from root-first paths (frame ids) and returns it with each path's node.
    fn tree_of(paths: &[&[u32]]) -> (CallTree, Vec<u32>) {
        let mut b = TreeBuilder::new();
        let leaves = paths
            .iter()
            .map(|p| p.iter().fold(ROOT, |n, &f| b.child(n, f)))
            .collect();
        (b.finish(), leaves)
    }

    /// The root-first paths of the mapped leaves, `None` for dropped ones.
    fn mapped_paths(paths: &[&[u32]], transforms: &[Transform]) -> Vec<Option<Vec<u32>>> {
        let (tree, leaves) = tree_of(paths);
        let (new, map) = apply_all(&tree, transforms);
        leaves
            .iter()
            .map(|&l| match map[l as usize] {
                DROPPED => None,
                n => Some(new.path(n)),
            })
            .collect()
    }

    const A: u32 = 0;
    const B: u32 = 1;
    const C: u32 = 2;

    #[test]
    fn focus_reroots_at_outermost() {
        let got = mapped_paths(&[&[A, B, C, B], &[A, C]], &[Transform::Focus(B)]);
        assert_eq!(got, vec![Some(vec![B, C, B]), None]);
    }

    #[test]
    fn hide_merges_into_caller() {
        let got = mapped_paths(&[&[A, B, C], &[A, B]], &[Transform::Hide(B)]);
        assert_eq!(got, vec![Some(vec![A, C]), Some(vec![A])]);
    }

    #[test]
    fn collapse_recursion_drops_frames_between() {
        let got = mapped_paths(
            &[&[A, B, A, C], &[A, A, B]],
            &[Transform::CollapseRecursion(A)],
        );
        assert_eq!(got, vec![Some(vec![A, C]), Some(vec![A, B])]);
    }

    #[test]
    fn collapse_direct_recursion_keeps_indirect() {
        let got = mapped_paths(
            &[&[A, A, A, C], &[A, B, A]],
            &[Transform::CollapseDirectRecursion(A)],
        );
        assert_eq!(got, vec![Some(vec![A, C]), Some(vec![A, B, A])]);
    }

    #[test]
    fn transforms_compose_in_order() {
        let paths: &[&[u32]] = &[&[A, B, C], &[C, B]];
        let got = mapped_paths(paths, &[Transform::Hide(B), Transform::Focus(C)]);
        assert_eq!(got, vec![Some(vec![C]), Some(vec![C])]);
        let got = mapped_paths(paths, &[Transform::Focus(B), Transform::Hide(B)]);
        assert_eq!(got, vec![Some(vec![C]), Some(vec![])]);
    }

    #[test]
    fn hiding_several_at_once_equals_one_by_one() {
        const D: u32 = 3;
        let paths: &[&[u32]] = &[&[A, B, C, D], &[B, B, A], &[D, C], &[C], &[A, D, B, C, A]];
        let hides = [Transform::Hide(B), Transform::Hide(D), Transform::Hide(A)];
        let batched = mapped_paths(paths, &hides);
        let mut one_by_one: Vec<Option<Vec<u32>>> =
            paths.iter().map(|p| Some(p.to_vec())).collect();
        for &t in &hides {
            let step: Vec<&[u32]> = one_by_one
                .iter()
                .map(|p| p.as_deref().unwrap_or(&[]))
                .collect();
            one_by_one = mapped_paths(&step, &[t]);
        }
        assert_eq!(batched, one_by_one);
        assert_eq!(
            batched,
            vec![
                Some(vec![C]),
                Some(vec![]),
                Some(vec![C]),
                Some(vec![C]),
                Some(vec![C])
            ]
        );
        // A run of hides followed by another transform still applies both, in order.
        let got = mapped_paths(
            paths,
            &[Transform::Hide(B), Transform::Hide(D), Transform::Focus(C)],
        );
        assert_eq!(got[1], None);
        assert_eq!(got[4], Some(vec![C, A]));
    }

    #[test]
    fn weights_survive_hide() {
        let (tree, leaves) = tree_of(&[&[A, B], &[A]]);
        let (new, map) = apply(&tree, Transform::Hide(B));
        let mut self_w = vec![0.0; new.len()];
        self_w[map[leaves[0] as usize] as usize] += 2.0;
        self_w[map[leaves[1] as usize] as usize] += 3.0;
        let w = Weights::from_self(&new, self_w);
        assert_eq!(w.total.to_vec(), vec![5.0, 5.0]);
    }
}
