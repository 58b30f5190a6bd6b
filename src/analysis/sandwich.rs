//! Per-frame totals of a call tree (the function table of a view) and the callers / callees
//! trees of one frame (speedscope's "sandwich").

use crate::analysis::bits::Bits;
use crate::analysis::children::Children;
use crate::analysis::transform::{apply, Transform};
use crate::analysis::tree::{CallTree, TreeBuilder, Weights, DROPPED, ROOT};
use crate::chunks::in_chunks;
use crate::hash::HashMap;
use crate::model::NO_INDEX;
use std::ops::Range;

/// Self and total per frame id, columns indexed by frame id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameTotals {
    /// Weight of samples whose innermost frame is this frame.
    pub self_w: Vec<f64>,
    /// Weight of samples with this frame anywhere on the stack (once per sample).
    pub total: Vec<f64>,
}

/// What a view needs of its tree's shape: the child lists in node order, the first
/// occurrences and the largest depth (as [`CallTree::max_depth`]).
///
/// The first occurrences: for every node, true when no ancestor has the same frame, so its
/// total counts towards its frame's total (recursion counted once). A property of the tree
/// alone, found by one depth-first walk keeping, per frame, how many nodes on the current path
/// have it. Frame ids are below `n_frames` (the view's frame count; an id at or past it counts
/// as no frame, as [`NO_INDEX`] does, and the walk skips such a node's subtree).
///
/// The child lists ([`Children::of_tree`]) first. When the node numbers are already a
/// depth-first preorder (a profile whose samples came in depth-first or sorted order), the
/// flags and the longest path come from one pass over the nodes in order; otherwise from the
/// depths and a walk through the child lists.
pub fn tree_shape(tree: &CallTree, n_frames: usize) -> (Children, Bits, u32) {
    let kids = Children::of_tree(tree);
    if let Some((first, depth)) = first_in_preorder(tree, n_frames) {
        return (kids, first, depth);
    }
    let depth = tree.max_depth();
    let first = first_by_walk(tree, &kids, n_frames);
    (kids, first, depth)
}

/// The first occurrences ([`tree_shape`]) and the largest depth by one pass in node order,
/// keeping the path to the last node; `None` as soon as a node's parent is not on that path
/// (the order is not a preorder).
fn first_in_preorder(tree: &CallTree, n_frames: usize) -> Option<(Bits, u32)> {
    let mut pass = PreorderPass {
        first: Bits::new(tree.len()),
        on_path: vec![0u32; n_frames],
        path: vec![(ROOT, NO_INDEX)],
        frameless: 0,
        longest: 1,
    };
    let preorder = in_chunks(1..tree.len(), |nodes| pass.run(tree, nodes));
    preorder.then(|| (pass.first, pass.longest as u32 - 1))
}

/// The state of [`first_in_preorder`] between chunks.
struct PreorderPass {
    /// The flags found so far.
    first: Bits,
    /// Per frame id, how many nodes on the path have it.
    on_path: Vec<u32>,
    /// The path from the root to the last node: (node, frame), so that leaving a node needs
    /// no lookup in the tree.
    path: Vec<(u32, u32)>,
    /// Nodes on the path whose frame is no frame id: the walk skips their subtrees, so every
    /// node below one stays `false` here too.
    frameless: usize,
    /// The most nodes the path has held, root included.
    longest: usize,
}

impl PreorderPass {
    /// Runs over `nodes`; false when one's parent is not on the path. The counters live in
    /// locals for the loop and go back into `self` at its end.
    fn run(&mut self, tree: &CallTree, nodes: Range<usize>) -> bool {
        let (first, on_path, path) = (&mut self.first, &mut self.on_path, &mut self.path);
        let (mut frameless, mut longest) = (self.frameless, self.longest);
        let (parents, frames) = (tree.parents(nodes.clone()), tree.frames(nodes.clone()));
        for ((n, parent), frame) in nodes.zip(parents).zip(frames) {
            while path.last().map(|&(node, _)| node) != Some(parent) {
                if path.len() <= 1 {
                    return false; // only the root is left: the parent is not on the path
                }
                let Some((_, left)) = path.pop() else {
                    return false;
                };
                match on_path.get_mut(left as usize) {
                    Some(c) => *c -= 1,
                    None => frameless -= 1,
                }
            }
            match on_path.get_mut(frame as usize) {
                Some(c) => {
                    if *c == 0 && frameless == 0 {
                        first.set(n, true);
                    }
                    *c += 1;
                }
                None => frameless += 1,
            }
            path.push((n as u32, frame));
            longest = longest.max(path.len());
        }
        (self.frameless, self.longest) = (frameless, longest);
        true
    }
}

/// The first occurrences ([`tree_shape`]) by a depth-first walk through the child lists.
fn first_by_walk(tree: &CallTree, kids: &Children, n_frames: usize) -> Bits {
    let mut first = Bits::new(tree.len());
    let mut on_path = vec![0u32; n_frames];
    // The path from the root: per node its frame, its children and how many of them were
    // entered, so that leaving a node needs no lookup.
    let mut path = vec![(NO_INDEX, kids.of(ROOT), 0usize)];
    while let Some(top) = path.last_mut() {
        let (frame, children, next) = *top;
        let Some(&child) = children.get(next) else {
            path.pop();
            if let Some(count) = on_path.get_mut(frame as usize) {
                *count -= 1;
            }
            continue;
        };
        top.2 += 1;
        let frame = tree.frame(child as usize);
        // A node without a frame id is skipped with its subtree, as the pass in order does.
        let Some(count) = on_path.get_mut(frame as usize) else {
            continue;
        };
        first.set(child as usize, *count == 0);
        *count += 1;
        path.push((frame, kids.of(child), 0));
    }
    first
}

/// Sums node weights per frame id in one pass; `first` is the tree's first occurrences
/// ([`tree_shape`]).
pub fn frame_totals(tree: &CallTree, w: &Weights, first: &Bits, n_frames: usize) -> FrameTotals {
    let mut t = FrameTotals {
        self_w: vec![0.0; n_frames],
        total: vec![0.0; n_frames],
    };
    let len = [tree.len(), first.len(), w.total.len()];
    in_chunks(1..len.into_iter().min().unwrap_or(0), |nodes| {
        for (n, frame) in nodes.clone().zip(tree.frames(nodes)) {
            if let Some(slot) = t.total.get_mut(frame as usize).filter(|_| first.get(n)) {
                *slot += w.total.at(n);
            }
        }
        true
    });
    for (n, v) in w.self_w.iter().filter(|&(n, _)| n != ROOT) {
        let f = tree.frame(n as usize);
        if let Some(slot) = t.self_w.get_mut(f as usize) {
            *slot += v;
        }
    }
    t
}

/// A tree with its weights, as the sandwich views draw them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WeighedTree {
    /// The tree.
    pub tree: CallTree,
    /// Its weights.
    pub weights: Weights,
}

/// The callees of `frame`: every call path below it merged under one root node `frame`
/// (the outermost occurrence on each path, so recursion is not counted twice).
pub fn callees(tree: &CallTree, w: &Weights, frame: u32) -> WeighedTree {
    let (new, map) = apply(tree, Transform::Focus(frame));
    let self_w = w.self_w.moved(&map, new.len());
    WeighedTree {
        weights: Weights::from_self(&new, self_w),
        tree: new,
    }
}

/// The callers of `frame` as an inverted tree: a root node `frame`, its children the frames
/// that called it, theirs the callers' callers, and so on to the outermost frame. Each sample
/// through `frame` counts once, along the path from its innermost occurrence of `frame`.
pub fn callers(tree: &CallTree, w: &Weights, frame: u32) -> WeighedTree {
    let n = tree.len();
    // weight[n] for a node of `frame`: its total minus that of its nearest `frame` descendants.
    let mut weight = vec![0.0; n];
    // nearest[n]: the nearest strict ancestor of n whose frame is `frame`, if any.
    let mut nearest = vec![DROPPED; n];
    for node in 1..n {
        let p = tree.parent(node) as usize;
        nearest[node] = if p != ROOT as usize && tree.frame(p) == frame {
            p as u32
        } else {
            nearest[p]
        };
        if tree.frame(node) == frame {
            weight[node] += w.total.at(node);
            if nearest[node] != DROPPED {
                weight[nearest[node] as usize] -= w.total.at(node);
            }
        }
    }
    let mut b = TreeBuilder::new();
    let mut self_w: HashMap<u32, f64> = HashMap::default();
    let top = b.child(ROOT, frame);
    for node in (1..n).filter(|&x| tree.frame(x) == frame && weight[x] != 0.0) {
        let mut inv = top;
        let mut up = tree.parent(node);
        while up != ROOT {
            inv = b.child(inv, tree.frame(up as usize));
            up = tree.parent(up as usize);
        }
        *self_w.entry(inv).or_insert(0.0) += weight[node];
    }
    finish_weighed(b, self_w)
}

/// The tree built in `b`, with the self weight of each of its nodes in `self_w`.
fn finish_weighed(b: TreeBuilder, self_w: HashMap<u32, f64>) -> WeighedTree {
    let new = b.finish();
    let mut sw = vec![0.0; new.len()];
    for (k, v) in self_w {
        sw[k as usize] += v;
    }
    WeighedTree {
        weights: Weights::from_self(&new, sw),
        tree: new,
    }
}

/// The whole tree inverted ("bottom-up"): under the root, every frame that is innermost in
/// some sample, above it its callers, theirs above them, and so on to the outermost frame.
/// A node's self weight is that of the original nodes whose reversed path it is, so the
/// first row holds each frame's self value and the total stays the tree's total.
pub fn inverted(tree: &CallTree, w: &Weights) -> WeighedTree {
    let (tree, mut sides) = inverted_sides(tree, &[w]);
    WeighedTree {
        tree,
        weights: sides.pop().unwrap_or_default(),
    }
}

/// [`inverted`] of one tree with several weight sets (Compare mode's baseline and
/// comparison): one inverted tree holding the reversed path of every node some side gives a
/// self weight, and per side its weights on that tree, in the order of `sides`.
pub fn inverted_sides(tree: &CallTree, sides: &[&Weights]) -> (CallTree, Vec<Weights>) {
    let mut b = TreeBuilder::new();
    let mut self_w: Vec<HashMap<u32, f64>> = vec![HashMap::default(); sides.len()];
    // The nodes some side weighs, ascending, each once.
    let mut weighed: Vec<u32> = sides
        .iter()
        .flat_map(|w| w.self_w.nodes())
        .copied()
        .collect();
    weighed.sort_unstable();
    weighed.dedup();
    if weighed.first() == Some(&ROOT) {
        for (k, w) in sides.iter().enumerate() {
            self_w[k].insert(ROOT, w.self_of(ROOT));
        }
    }
    for node in weighed
        .into_iter()
        .filter(|&n| n != ROOT && (n as usize) < tree.len())
    {
        let mut inv = ROOT;
        let mut up = node;
        while up != ROOT {
            inv = b.child(inv, tree.frame(up as usize));
            up = tree.parent(up as usize);
        }
        for (k, w) in sides.iter().enumerate() {
            *self_w[k].entry(inv).or_insert(0.0) += w.self_of(node);
        }
    }
    let new = b.finish();
    let weights = self_w
        .into_iter()
        .map(|side| {
            let mut sw = vec![0.0; new.len()];
            for (k, v) in side {
                sw[k as usize] += v;
            }
            Weights::from_self(&new, sw)
        })
        .collect();
    (new, weights)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::children::Order;

    const MAIN: u32 = 0;
    const A: u32 = 1;
    const B: u32 = 2;

    /// main -> a -> b (3); main -> b (2); main -> a -> b -> a (1)
    fn tree() -> (CallTree, Weights) {
        let mut b = TreeBuilder::new();
        let m = b.child(ROOT, MAIN);
        let ma = b.child(m, A);
        let mab = b.child(ma, B);
        let mb = b.child(m, B);
        let maba = b.child(mab, A);
        let tree = b.finish();
        let mut self_w = vec![0.0; tree.len()];
        self_w[mab as usize] = 3.0;
        self_w[mb as usize] = 2.0;
        self_w[maba as usize] = 1.0;
        let w = Weights::from_self(&tree, self_w);
        (tree, w)
    }

    /// Random trees with recursion and frameless nodes, numbered in preorder or not: the pass
    /// in node order gives the walk's flags whenever it applies, and applies to a preorder.
    #[test]
    fn first_occurrences_in_preorder_match_the_walk() {
        let mut next = crate::analysis::tree::tests::below(0x2545_f491_4f6c_dd1d);
        for case in 0..200 {
            // Preorder: each node's parent is on the path to the last node.
            let preorder = case % 2 == 0;
            let mut tree = CallTree::default();
            let mut path = vec![ROOT];
            for n in 1..(2 + next(60) as u32) {
                let parent = if preorder {
                    path.truncate(1 + next(path.len() as u64) as usize);
                    *path.last().unwrap()
                } else {
                    next(u64::from(n)) as u32
                };
                let frame = if next(10) == 0 {
                    NO_INDEX
                } else {
                    next(4) as u32
                };
                tree.push(parent, frame);
                path.push(n);
            }
            let w = Weights::from_self(&tree, vec![1.0; tree.len()]);
            let kids = Children::new(&tree, &w, Order::WidestFirst, &[0, 1, 2, 3]);
            let walk = first_by_walk(&tree, &kids, 4);
            // By definition: a frame id, and no ancestor with it or without a frame id.
            for n in 1..tree.len() {
                let frame = tree.frame(n);
                let mut above = tree
                    .up_from(n as u32)
                    .skip(1)
                    .map(|a| tree.frame(a as usize));
                let want = frame < 4 && above.all(|f| f != frame && f < 4);
                assert_eq!(walk.get(n), want, "case {case} node {n}");
            }
            match first_in_preorder(&tree, 4) {
                Some(pass) => assert_eq!(pass, (walk.clone(), tree.max_depth()), "case {case}"),
                None => assert!(!preorder, "case {case}: a preorder was refused"),
            }
            let shape = (Children::of_tree(&tree), walk, tree.max_depth());
            assert_eq!(tree_shape(&tree, 4), shape, "case {case}");
        }
    }

    #[test]
    fn totals_count_recursion_once() {
        let (tree, w) = tree();
        let (_, first, _) = tree_shape(&tree, 3);
        let t = frame_totals(&tree, &w, &first, 3);
        assert_eq!(t.total, vec![6.0, 4.0, 6.0]);
        assert_eq!(t.self_w, vec![0.0, 1.0, 5.0]);
    }

    #[test]
    fn callees_merge_every_occurrence() {
        let (tree, w) = tree();
        let c = callees(&tree, &w, B);
        // root -> b(6) -> a(1)
        assert_eq!(c.tree.frame_column(), vec![NO_INDEX, B, A]);
        assert_eq!(c.weights.total.to_vec(), vec![6.0, 6.0, 1.0]);
    }

    #[test]
    fn inverted_puts_innermost_frames_first() {
        let (tree, w) = tree();
        let inv = inverted(&tree, &w);
        let paths: Vec<(Vec<u32>, f64)> = (1..inv.tree.len() as u32)
            .filter(|&n| inv.weights.self_of(n) != 0.0)
            .map(|n| (inv.tree.path(n), inv.weights.self_of(n)))
            .collect();
        // b <- a <- main (3), b <- main (2), a <- b <- a <- main (1)
        assert_eq!(paths.len(), 3);
        assert!(paths.contains(&(vec![B, A, MAIN], 3.0)));
        assert!(paths.contains(&(vec![B, MAIN], 2.0)));
        assert!(paths.contains(&(vec![A, B, A, MAIN], 1.0)));
        // The first row: self per frame; the total is kept.
        let first_row: Vec<(u32, f64)> = (1..inv.tree.len())
            .filter(|&n| inv.tree.parent(n) == ROOT)
            .map(|n| (inv.tree.frame(n), inv.weights.total.at(n)))
            .collect();
        assert_eq!(first_row, vec![(B, 5.0), (A, 1.0)]);
        assert_eq!(
            inv.weights.total.at(ROOT as usize),
            w.total.at(ROOT as usize)
        );
    }

    #[test]
    fn callers_follow_innermost_occurrence() {
        let (tree, w) = tree();
        let c = callers(&tree, &w, A);
        // a(4) <- main(3) [via main->a], a(4) <- b <- a <- main (1)
        let paths: Vec<(Vec<u32>, f64)> = (1..c.tree.len() as u32)
            .filter(|&n| c.weights.self_of(n) != 0.0)
            .map(|n| (c.tree.path(n), c.weights.self_of(n)))
            .collect();
        assert_eq!(c.weights.total.at(1), 4.0);
        assert!(paths.contains(&(vec![A, MAIN], 3.0)));
        assert!(paths.contains(&(vec![A, B, A, MAIN], 1.0)));
    }
}
