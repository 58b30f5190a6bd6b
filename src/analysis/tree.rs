//! The call tree by frame along the call path, stored struct-of-arrays.
//!
//! Node [`ROOT`] is a virtual root standing for "all samples"; every other node is one frame id
//! (see [`crate::analysis::frames`]) called from its parent. Invariant: `parent[n] < n` for
//! every node but the root, so one forward pass visits parents before children and one
//! backward pass sums children into parents — no recursion anywhere.

use crate::analysis::frames::Frames;
use crate::analysis::tree_ranges::{FrameIds, Parents};
pub use crate::analysis::weights::{moved_self, SelfWeights, Totals, Weights};
use crate::chunks::{cut_to, in_chunks};
use crate::hash::RowIndex;
use crate::model::{decode_opt, Prefixes, Profile, StackLocations, StackTable, NO_INDEX};
use std::ops::Range;

/// The virtual root node.
pub const ROOT: u32 = 0;
/// Marks a node or sample that a transform removed (e.g. outside a focused function).
pub const DROPPED: u32 = NO_INDEX;

/// A call tree. See the module docs for the invariants.
///
/// The columns are either the tree's own or, when the tree mirrors a profile's stack table
/// (one frame per location: [`NodeMap::Offset`]), that table's columns, shared rather than
/// copied. Either way, [`CallTree::parent`] and [`CallTree::frame`] give the same answers.
#[derive(Clone, Debug)]
pub struct CallTree {
    columns: Columns,
}

/// Where a [`CallTree`]'s parents and frames are.
#[derive(Clone, Debug)]
enum Columns {
    /// Parent and frame id of each node ([`NO_INDEX`] for the root), equally long.
    Own { parent: Vec<u32>, frame: Vec<u32> },
    /// A stack table's columns and the frame id of each location: node `n ≥ 1` is stack node
    /// `n - 1`, its parent `prefix[n - 1] + 1` (wrapping, so that a root frame's
    /// [`NO_INDEX`] prefix gives [`ROOT`]) and its frame `of_location[location[n - 1]]`.
    Mirror {
        prefix: Prefixes,
        location: StackLocations,
        of_location: Vec<u32>,
    },
}

impl Default for CallTree {
    fn default() -> Self {
        CallTree::from_columns(vec![NO_INDEX], vec![NO_INDEX])
    }
}

impl PartialEq for CallTree {
    /// Trees are equal when their nodes have the same parents and frames, however held.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && (0..self.len())
                .all(|n| self.parent(n) == other.parent(n) && self.frame(n) == other.frame(n))
    }
}

impl CallTree {
    /// The tree of the given columns: `parent` and `frame` of each node, the root first (both
    /// [`NO_INDEX`]), and `parent[n] < n` for every other node. Columns of unequal length are
    /// cut to the shorter.
    pub fn from_columns(mut parent: Vec<u32>, mut frame: Vec<u32>) -> CallTree {
        let n = parent.len().min(frame.len());
        parent.truncate(n);
        frame.truncate(n);
        CallTree {
            columns: Columns::Own { parent, frame },
        }
    }

    /// The tree that mirrors `stacks` (node `s + 1` is stack node `s`) with frame id
    /// `of_location[l]` for location row `l`; it shares the stack table's columns (lends
    /// them: see [`Shared::share`]).
    pub fn mirror(stacks: &mut StackTable, of_location: &[u32]) -> CallTree {
        CallTree {
            columns: Columns::Mirror {
                prefix: stacks.prefix.share(),
                location: stacks.location.share(),
                of_location: of_location.to_vec(),
            },
        }
    }

    /// Number of nodes, the root included.
    pub fn len(&self) -> usize {
        match &self.columns {
            Columns::Own { parent, .. } => parent.len(),
            Columns::Mirror {
                prefix, location, ..
            } => prefix.len().min(location.len()) + 1,
        }
    }

    /// Always false: a tree has its root.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The parent of node `n` ([`NO_INDEX`] for the root and for a node not in the tree).
    #[inline]
    pub fn parent(&self, n: usize) -> u32 {
        match &self.columns {
            Columns::Own { parent, .. } => parent.get(n).copied().unwrap_or(NO_INDEX),
            // Node 0 (the root) wraps to an index no column has.
            Columns::Mirror { prefix, .. } => prefix
                .get(n.wrapping_sub(1))
                .map_or(NO_INDEX, |q| q.wrapping_add(1)),
        }
    }

    /// The frame id of node `n` ([`NO_INDEX`] for the root and for a node not in the tree).
    #[inline]
    pub fn frame(&self, n: usize) -> u32 {
        match &self.columns {
            Columns::Own { frame, .. } => frame.get(n).copied().unwrap_or(NO_INDEX),
            Columns::Mirror {
                location,
                of_location,
                ..
            } => location
                .get(n.wrapping_sub(1))
                .and_then(|l| of_location.get(l.idx()))
                .copied()
                .unwrap_or(NO_INDEX),
        }
    }

    /// True when the tree reads the stack table's columns (see [`CallTree::mirror`]).
    pub fn shares_stacks(&self) -> bool {
        matches!(self.columns, Columns::Mirror { .. })
    }

    /// Whether the tree reads these stack columns themselves, not a copy (tests).
    #[cfg(test)]
    fn reads(&self, stacks: &StackTable) -> bool {
        match &self.columns {
            Columns::Mirror {
                prefix, location, ..
            } => prefix.same_rows(&stacks.prefix) && location.same_rows(&stacks.location),
            Columns::Own { .. } => false,
        }
    }

    /// The parents of `nodes` (cut to the tree), in order or from the last: what
    /// [`CallTree::parent`] gives each, with one look at how the columns are held for the
    /// whole range instead of one per node (a mirrored prefix column is read in order, not
    /// by rank).
    #[inline]
    pub fn parents(&self, nodes: Range<usize>) -> Parents<'_> {
        let Range { start, end } = cut_to(nodes, self.len());
        match &self.columns {
            Columns::Own { parent, .. } => Parents::Own(parent[start..end].iter()),
            Columns::Mirror { prefix, .. } => Parents::Mirror {
                root: start == 0 && end > 0,
                prefixes: prefix.range(start.saturating_sub(1)..end.saturating_sub(1)),
            },
        }
    }

    /// The frame ids of `nodes` (cut to the tree), in order: what [`CallTree::frame`] gives
    /// each, with one look at how the columns are held for the whole range.
    #[inline]
    pub fn frames(&self, nodes: Range<usize>) -> FrameIds<'_> {
        let Range { start, end } = cut_to(nodes, self.len());
        match &self.columns {
            Columns::Own { frame, .. } => FrameIds::Own(frame[start..end].iter()),
            Columns::Mirror {
                location,
                of_location,
                ..
            } => FrameIds::Mirror {
                root: start == 0 && end > 0,
                locations: location.range(start.saturating_sub(1)..end.saturating_sub(1)),
                of_location,
            },
        }
    }

    /// Every node's parent, as a column (a copy).
    pub fn parent_column(&self) -> Vec<u32> {
        (0..self.len()).map(|n| self.parent(n)).collect()
    }

    /// Every node's frame id, as a column (a copy).
    pub fn frame_column(&self) -> Vec<u32> {
        (0..self.len()).map(|n| self.frame(n)).collect()
    }

    /// Appends a node: `parent` must be a node of this tree. A tree sharing a stack table's
    /// columns takes its own copy first.
    pub fn push(&mut self, parent: u32, frame: u32) {
        if self.shares_stacks() {
            *self = CallTree::from_columns(self.parent_column(), self.frame_column());
        }
        if let Columns::Own {
            parent: p,
            frame: f,
        } = &mut self.columns
        {
            p.push(parent);
            f.push(frame);
        }
    }

    /// `node` and its ancestors, innermost first, the root left out (none for the root or a
    /// node not in the tree).
    pub fn up_from(&self, node: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(Some(node), |&n| Some(self.parent(n as usize)))
            .take_while(|&n| n != ROOT && (n as usize) < self.len())
    }

    /// The frames from the outermost to `node` (the root contributes none).
    pub fn path(&self, node: u32) -> Vec<u32> {
        let mut out: Vec<u32> = self.up_from(node).map(|n| self.frame(n as usize)).collect();
        out.reverse();
        out
    }

    /// The number of frames from the root to each node (the root has depth 0, its children
    /// 1), by one forward pass: the tree holds no depth column, since only some layouts need
    /// one (4 bytes a node the drawn view does without).
    pub fn depths(&self) -> Vec<u32> {
        let mut depth = Vec::with_capacity(self.len());
        depth.push(0);
        // Parents come first, so each parent's depth is known when its children are reached.
        in_chunks(1..self.len(), |rows| {
            for n in rows {
                let up = depth.get(self.parent(n) as usize).copied();
                depth.push(up.map_or(1, |d| d + 1));
            }
            true
        });
        depth
    }

    /// The depth of `node` (as [`Self::depths`]) by walking up to the root: for a few nodes.
    pub fn depth_of(&self, node: u32) -> u32 {
        self.up_from(node).count() as u32
    }

    /// The largest depth of any node.
    pub fn max_depth(&self) -> u32 {
        self.depths().into_iter().max().unwrap_or(0)
    }

    /// The tree of the nodes with `keep[n]`, their ancestors and the root, renumbered in the
    /// same order (so `parent[n] < n` still holds), and the new node of every old node
    /// ([`DROPPED`] for a node left out). Missing entries of `keep` count as false.
    pub fn retain(&self, keep: &[bool]) -> (CallTree, Vec<u32>) {
        let n = self.len();
        let mut kept: Vec<bool> = (0..n)
            .map(|i| keep.get(i).copied().unwrap_or(false))
            .collect();
        kept[ROOT as usize] = true;
        for i in (1..n).rev() {
            if kept[i] {
                kept[self.parent(i) as usize] = true;
            }
        }
        let mut renumber = vec![DROPPED; n];
        let (mut parent, mut frame) = (Vec::new(), Vec::new());
        for i in (0..n).filter(|&i| kept[i]) {
            renumber[i] = parent.len() as u32;
            let up = self.parent(i);
            parent.push(if up == NO_INDEX {
                NO_INDEX
            } else {
                renumber[up as usize]
            });
            frame.push(self.frame(i));
        }
        (CallTree::from_columns(parent, frame), renumber)
    }
}

/// Builds a [`CallTree`] by interning `(parent, frame)` pairs, so parents precede children.
///
/// A node made while its parent was the last node is its parent's first child, `parent + 1`:
/// such a node is not put in the index, since a lookup looks at `parent + 1` first. Stacks
/// read one sample at a time make most new nodes so (each new path is a chain below the last
/// node), and a lookup under a node just made is then answered without hashing.
pub struct TreeBuilder {
    tree: CallTree,
    /// By `(parent, frame)`, every node but those at `parent + 1`, the key read back from the
    /// tree (9 bytes a bucket).
    index: RowIndex,
}

impl Default for TreeBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl TreeBuilder {
    /// A tree holding only the root.
    pub fn new() -> Self {
        TreeBuilder {
            tree: CallTree::default(),
            index: RowIndex::default(),
        }
    }

    /// The child of `parent` for `frame`, added when new. `parent` must be a node of this tree.
    pub fn child(&mut self, parent: u32, frame: u32) -> u32 {
        let t = &self.tree;
        let next = parent as usize + 1;
        if next == t.len() {
            // The parent is the last node: it has no children yet.
            self.tree.push(parent, frame);
            return next as u32;
        }
        if next < t.len() && t.parent(next) == parent && t.frame(next) == frame {
            return next as u32;
        }
        let key_of = |n: u32| (t.parent(n as usize), t.frame(n as usize));
        if let Some(node) = self.index.find((parent, frame), key_of) {
            return node;
        }
        self.tree.push(parent, frame);
        let node = (self.tree.len() - 1) as u32;
        self.index.insert(node, (parent, frame));
        node
    }

    /// The frame of a node already added.
    pub fn frame_of(&self, node: u32) -> u32 {
        self.tree.frame(node as usize)
    }

    /// The finished tree, without the spare room its columns grew.
    pub fn finish(self) -> CallTree {
        let mut tree = self.tree;
        if let Columns::Own { parent, frame } = &mut tree.columns {
            parent.shrink_to_fit();
            frame.shrink_to_fit();
        }
        tree
    }
}

/// Where each stack node of a profile lands in a call tree.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeMap {
    /// Stack node `s` is tree node `s + 1` (the tree mirrors the stack table).
    Offset,
    /// Stack node `s` is tree node `stacks[s]`, or [`DROPPED`]; a sample without frames is
    /// node `root` (the root, or [`DROPPED`] when a transform such as focus removes it).
    Table {
        /// Node of each stack node.
        stacks: Vec<u32>,
        /// Node of the empty stack.
        root: u32,
    },
}

impl NodeMap {
    /// The tree node of a sample's stack cell (`NO_INDEX` = no frames = the root).
    #[inline]
    pub fn node_of_stack(&self, stack: u32) -> u32 {
        match (decode_opt(stack), self) {
            (None, NodeMap::Offset) => ROOT,
            (None, NodeMap::Table { root, .. }) => *root,
            (Some(s), NodeMap::Offset) => s + 1,
            (Some(s), NodeMap::Table { stacks, .. }) => {
                stacks.get(s as usize).copied().unwrap_or(DROPPED)
            }
        }
    }

    /// This map followed by `next` (a map from this map's tree to another tree).
    pub fn then(&self, next: &[u32], n_stacks: usize) -> NodeMap {
        let step = |n: u32| {
            if n == DROPPED {
                DROPPED
            } else {
                next.get(n as usize).copied().unwrap_or(DROPPED)
            }
        };
        match self {
            NodeMap::Offset => NodeMap::Table {
                stacks: (0..n_stacks as u32).map(|s| step(s + 1)).collect(),
                root: step(ROOT),
            },
            NodeMap::Table { stacks, root } => NodeMap::Table {
                stacks: stacks.iter().map(|&n| step(n)).collect(),
                root: step(*root),
            },
        }
    }
}

/// The call tree of a profile's stack table, and where each stack node landed. A tree that
/// mirrors the stack table lends its columns ([`CallTree::mirror`]): hence `&mut`.
pub fn tree_from_stacks(p: &mut Profile, frames: &Frames) -> (CallTree, NodeMap) {
    if !frames.one_location_each {
        let (tree, stacks) = tree_by_location(p, &frames.of_location);
        return (tree, NodeMap::Table { stacks, root: ROOT });
    }
    let tree = CallTree::mirror(&mut p.stacks, &frames.of_location);
    (tree, NodeMap::Offset)
}

/// The call tree of a profile's stack table with frame ids `of_location[l]` for location row
/// `l` (two call paths with the same frames are one node), and the tree node of every stack
/// node. A location beyond `of_location` has frame [`NO_INDEX`].
pub fn tree_by_location(p: &Profile, of_location: &[u32]) -> (CallTree, Vec<u32>) {
    let st = &p.stacks;
    // Not sized for the stack nodes: the tree has fewer nodes when locations share frames.
    let mut b = TreeBuilder::new();
    let mut node_of_stack: Vec<u32> = Vec::with_capacity(st.prefix.len());
    for (prefix, loc) in st.prefix.iter().zip(&st.location) {
        // prefix < s (a model invariant), so node_of_stack already holds the parent.
        let parent = decode_opt(prefix)
            .and_then(|q| node_of_stack.get(q as usize).copied())
            .unwrap_or(ROOT);
        let frame = of_location.get(loc.idx()).copied().unwrap_or(NO_INDEX);
        node_of_stack.push(b.child(parent, frame));
    }
    (b.finish(), node_of_stack)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::ProfileBuilder;

    /// xorshift64 from `seed` (not 0): each call gives a number below its argument.
    pub(crate) fn below(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut state = seed;
        move |m| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        }
    }

    /// Random lookups (a parent among the nodes, chains below the last node, few frames)
    /// give the nodes a map of every `(parent, frame)` gives, first children included.
    #[test]
    fn builder_finds_every_child_as_a_full_map_does() {
        let mut next = below(0x9e37_79b9_7f4a_7c15);
        let mut b = TreeBuilder::new();
        let mut map: std::collections::HashMap<(u32, u32), u32> = Default::default();
        let mut nodes = 1u32;
        for _ in 0..20_000 {
            let last = nodes - 1;
            let parent = if next(2) == 0 {
                last
            } else {
                next(u64::from(nodes)) as u32
            };
            let frame = next(5) as u32;
            let want = *map.entry((parent, frame)).or_insert_with(|| {
                nodes += 1;
                nodes - 1
            });
            assert_eq!(b.child(parent, frame), want);
        }
        let tree = b.finish();
        assert_eq!(tree.len(), nodes as usize);
        assert!(map
            .iter()
            .all(|(&(p, f), &n)| (tree.parent(n as usize), tree.frame(n as usize)) == (p, f)));
    }

    pub(crate) fn two_file_profile() -> Profile {
        // main -> work (two locations, same function name in two files) -> leaf
        let mut b = ProfileBuilder::new();
        let src = b.add_source("manual", None, None);
        let vt = b.value_type("samples", "count");
        let main = b.function_named("main", None);
        let w1 = b.function_named("work", Some("a.go"));
        let w2 = b.function_named("work", Some("b.go"));
        let leaf = b.function_named("leaf", None);
        let (lm, l1, l2, ll) = (
            b.location(Some(main), 1),
            b.location(Some(w1), 1),
            b.location(Some(w2), 1),
            b.location(Some(leaf), 1),
        );
        let s1 = b.stack_leaf_first(&[ll, l1, lm]);
        let s2 = b.stack_leaf_first(&[ll, l2, lm]);
        let s3 = b.stack_leaf_first(&[lm]);
        b.add_sample_with_values(src, s1, &[(vt, 2.0)]);
        b.add_sample_with_values(src, s2, &[(vt, 3.0)]);
        b.add_sample_with_values(src, s3, &[(vt, 1.0)]);
        b.add_sample_with_values(src, None, &[(vt, 4.0)]);
        b.build().unwrap()
    }

    /// `parents` and `frames` of every range, in order and (parents) from the last, give what
    /// `parent` and `frame` give node by node: for a mirroring tree (chains, branches, several
    /// roots) and for the same tree with its own columns.
    #[test]
    fn ranges_read_as_nodes_do() {
        let mut b = ProfileBuilder::new();
        let src = b.add_source("manual", None, None);
        let vt = b.value_type("samples", "count");
        let locs: Vec<_> = (0..5)
            .map(|i| {
                let f = b.function_named(&format!("f{i}"), None);
                b.location(Some(f), 0)
            })
            .collect();
        let mut rng = 0x9e37_79b9_u64;
        for _ in 0..60 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let depth = 1 + (rng % 7) as usize;
            let stack: Vec<_> = (0..depth)
                .map(|k| locs[((rng >> (3 * k)) % 5) as usize])
                .collect();
            let s = b.stack_leaf_first(&stack);
            b.add_sample_with_values(src, s, &[(vt, 1.0)]);
        }
        let mut p = b.build().unwrap();
        let frames = Frames::new(&p);
        let mirror = CallTree::mirror(&mut p.stacks, &frames.of_location);
        let own = CallTree::from_columns(mirror.parent_column(), mirror.frame_column());
        let n = mirror.len();
        assert!(n > 40 && p.stacks.prefix.listed_len() > 1, "{n} nodes");
        for tree in [&mirror, &own] {
            for (a, z) in [
                (0, n),
                (0, 1),
                (1, n),
                (5, 33),
                (n - 1, n + 4),
                (n, n),
                (7, 3),
            ] {
                let want: Vec<u32> = (a..z.min(n)).map(|k| tree.parent(k)).collect();
                assert_eq!(tree.parents(a..z).collect::<Vec<_>>(), want, "{a}..{z}");
                let back: Vec<u32> = tree.parents(a..z).rev().collect();
                assert_eq!(back, want.iter().rev().copied().collect::<Vec<_>>());
                let want: Vec<u32> = (a..z.min(n)).map(|k| tree.frame(k)).collect();
                assert_eq!(tree.frames(a..z).collect::<Vec<_>>(), want, "{a}..{z}");
            }
        }
    }

    #[test]
    fn stacks_through_same_function_merge() {
        let mut p = two_file_profile();
        let frames = Frames::new(&p);
        let (tree, map) = tree_from_stacks(&mut p, &frames);
        // root, main, work, leaf
        assert_eq!(tree.len(), 4);
        assert_eq!(tree.depths(), vec![0, 1, 2, 3]);
        assert_eq!(
            (tree.depth_of(3), tree.depth_of(ROOT), tree.max_depth()),
            (3, 0, 3)
        );
        let mut self_w = vec![0.0; tree.len()];
        for s in 0..p.num_samples() {
            let node = map.node_of_stack(p.samples.stack[s]);
            self_w[node as usize] += p.values[0].values[s];
        }
        let w = Weights::from_self(&tree, self_w);
        assert_eq!(w.total.to_vec(), vec![10.0, 6.0, 5.0, 5.0]);
        assert_eq!(w.self_w.to_dense(4), vec![4.0, 1.0, 0.0, 5.0]);
        assert_eq!(
            (w.self_of(2), w.self_of(3), w.self_w.nodes()),
            (0.0, 5.0, &[0, 1, 3][..])
        );
        assert_eq!(tree.path(3).len(), 3);
    }

    #[test]
    fn sparse_self_weights_read_and_move() {
        let s = SelfWeights::from_dense(&[0.0, 2.0, 0.0, f64::NAN, -1.5]);
        assert_eq!(s.nodes(), &[1, 3, 4]);
        assert_eq!(
            (s.get(0), s.get(1), s.get(4), s.get(9)),
            (0.0, 2.0, -1.5, 0.0)
        );
        assert!(s.get(3).is_nan());
        // Node 1 -> 0, node 3 dropped, node 4 beyond the map: left out.
        assert_eq!(s.moved(&[0, 0, 1, DROPPED], 2), vec![2.0, 0.0]);
        assert_eq!(s.to_dense(2), vec![0.0, 2.0]);
    }

    #[test]
    fn injective_frames_mirror_stacks() {
        let mut b = ProfileBuilder::new();
        let src = b.add_source("manual", None, None);
        let vt = b.value_type("samples", "count");
        let fa = b.function_named("a", None);
        let fb = b.function_named("b", None);
        let la = b.location(Some(fa), 0);
        let lb = b.location(Some(fb), 0);
        let s = b.stack_leaf_first(&[lb, la]);
        b.add_sample_with_values(src, s, &[(vt, 1.0)]);
        let mut p = b.build().unwrap();
        let frames = Frames::new(&p);
        let (tree, map) = tree_from_stacks(&mut p, &frames);
        assert_eq!(map, NodeMap::Offset);
        assert_eq!(tree.parent_column(), vec![NO_INDEX, 0, 1]);
        assert_eq!(map.node_of_stack(1), 2);
        // The tree reads the stack table's columns, and answers as a tree of its own would.
        assert!(tree.shares_stacks());
        assert!(tree.reads(&p.stacks));
        let own = CallTree::from_columns(tree.parent_column(), tree.frame_column());
        assert_eq!((own.clone(), own.len(), tree.len()), (tree.clone(), 3, 3));
        assert_eq!(
            (tree.parent(3), tree.frame(3), tree.frame(ROOT as usize)),
            (NO_INDEX, NO_INDEX, NO_INDEX)
        );
        assert_eq!(
            (tree.path(2), tree.depth_of(2), tree.depth_of(7)),
            (vec![0, 1], 2, 0)
        );
        // A node added to a mirroring tree goes to its own copy; the stack table is unchanged.
        let mut grown = tree.clone();
        grown.push(2, 0);
        assert_eq!(
            (grown.len(), grown.parent(3), p.stacks.prefix.len()),
            (4, 2, 2)
        );
        assert!(!grown.shares_stacks());
    }
}
