//! The call tree as rows for a tree grid (the viewer's "Call tree" tab): the children of a
//! node on demand, the subtree below a node (bounded), the heaviest path, the node of a call
//! path and the nodes a search matches.
//!
//! Everything reads a [`TreeSource`]: a tree with its child lists (display order) and one or
//! two weight sets (one side, or the comparison and the baseline of Compare mode). Node ids are
//! the tree's own, so they stay valid as long as the tree does (one set of view options), and
//! they are those the flame graph of the same tree draws. A node is shown when some side gives
//! it a non-zero total; rows of nodes no side weighs are never produced.

use crate::analysis::children::Children;
use crate::analysis::tree::{CallTree, Weights, ROOT};

/// A tree to show as rows. `weights` holds one set, or two (Compare mode: the comparison, then
/// the baseline), each with one entry per node of `tree`.
#[derive(Clone, Debug)]
pub struct TreeSource<'a> {
    /// The tree.
    pub tree: &'a CallTree,
    /// Its child lists in display order.
    pub kids: &'a Children,
    /// Per side, self and total per node.
    pub weights: Vec<&'a Weights>,
    /// The tree is a bottom-up (inverted) one: a root row's self is its total (the function's
    /// self value), deeper rows have none (they are callers, not where time was spent).
    pub inverted: bool,
}

/// Rows of the tree grid, one entry per row in every column.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TreeRows {
    /// Tree node of the row.
    pub node: Vec<u32>,
    /// Its parent node ([`ROOT`] for a top-level row).
    pub parent: Vec<u32>,
    /// Its depth (1 for a top-level row).
    pub depth: Vec<u32>,
    /// Its frame id.
    pub frame: Vec<u32>,
    /// How many children the row would show when expanded.
    pub children: Vec<u32>,
    /// Per side (as [`TreeSource::weights`]), the self value of each row.
    pub self_w: Vec<Vec<f64>>,
    /// Per side, the total of each row.
    pub total: Vec<Vec<f64>>,
    /// True when a bound left rows out.
    pub truncated: bool,
}

impl TreeRows {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.node.len()
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.node.is_empty()
    }
}

impl<'a> TreeSource<'a> {
    /// True when `node` is in the tree and some side gives it a non-zero total.
    pub fn shown(&self, node: u32) -> bool {
        self.weights
            .iter()
            .any(|w| w.total.at(node as usize) != 0.0)
    }

    /// The shown children of `node`, in display order (none for a node not in the tree).
    pub fn shown_children(&self, node: u32) -> impl Iterator<Item = u32> + '_ {
        self.kids
            .of(node)
            .into_iter()
            .filter(move |&c| self.shown(c))
    }

    fn empty_rows(&self) -> TreeRows {
        TreeRows {
            self_w: vec![Vec::new(); self.weights.len()],
            total: vec![Vec::new(); self.weights.len()],
            ..TreeRows::default()
        }
    }

    /// Adds the row of `node`, at `depth` (the tree holds no depth column: callers know it
    /// from the row above or by [`CallTree::depth_of`]).
    fn push(&self, rows: &mut TreeRows, node: u32, depth: u32) {
        let n = node as usize;
        let parent = self.tree.parent(n);
        rows.node.push(node);
        rows.parent.push(parent);
        rows.depth.push(depth);
        rows.frame.push(self.tree.frame(n));
        rows.children.push(self.shown_children(node).count() as u32);
        for (k, w) in self.weights.iter().enumerate() {
            let total = w.total.at(n);
            let self_w = match (self.inverted, parent == ROOT) {
                (false, _) => w.self_of(node),
                (true, true) => total,
                (true, false) => 0.0,
            };
            rows.self_w[k].push(self_w);
            rows.total[k].push(total);
        }
    }

    /// The rows of the shown children of each of `nodes`, in turn (nodes not in the tree have
    /// none).
    pub fn children_rows(&self, nodes: &[u32]) -> TreeRows {
        let mut rows = self.empty_rows();
        for &p in nodes {
            let depth = self.tree.depth_of(p) + 1;
            for c in self.shown_children(p).collect::<Vec<_>>() {
                self.push(&mut rows, c, depth);
            }
        }
        rows
    }

    /// The shown nodes below `node` in display order (depth first, `node` itself left out), at
    /// most `cap` of them; `truncated` says when some were left out.
    pub fn subtree_rows(&self, node: u32, cap: usize) -> TreeRows {
        let mut rows = self.empty_rows();
        if node as usize >= self.tree.len() {
            return rows;
        }
        let below = self.tree.depth_of(node) + 1;
        let mut stack: Vec<(u32, u32)> = self.shown_children(node).map(|c| (c, below)).collect();
        stack.reverse();
        while let Some((n, depth)) = stack.pop() {
            if rows.len() == cap {
                rows.truncated = true;
                break;
            }
            self.push(&mut rows, n, depth);
            let at = stack.len();
            stack.extend(self.shown_children(n).map(|c| (c, depth + 1)));
            stack[at..].reverse();
        }
        rows
    }

    /// The heaviest path from the root: its first shown child, that child's first shown child
    /// and so on (the first child is the heaviest when siblings are ordered widest first).
    pub fn heaviest_path(&self) -> Vec<u32> {
        let mut out = Vec::new();
        let mut n = ROOT;
        while let Some(c) = self.shown_children(n).next() {
            out.push(c);
            n = c;
        }
        out
    }

    /// The node whose call path (frame ids from the top-level row down) is `path`, if shown.
    pub fn node_of_path(&self, path: &[u32]) -> Option<u32> {
        let mut n = ROOT;
        for &f in path {
            n = self
                .shown_children(n)
                .find(|&c| self.tree.frame(c as usize) == f)?;
        }
        (n != ROOT).then_some(n)
    }

    /// The ancestors of `node` from the top-level row down, `node` left out (none for the
    /// root or a node not in the tree).
    pub fn ancestors(&self, node: u32) -> Vec<u32> {
        let mut out: Vec<u32> = self.tree.up_from(node).skip(1).collect();
        out.reverse();
        out
    }

    /// The shown nodes whose frame `flags` marks (1), in display order, at most `cap`; true
    /// when more matched.
    pub fn matching(&self, flags: &[u8], cap: usize) -> (Vec<u32>, bool) {
        let mut out = Vec::new();
        let mut stack: Vec<u32> = self.shown_children(ROOT).collect();
        stack.reverse();
        while let Some(n) = stack.pop() {
            if flags.get(self.tree.frame(n as usize) as usize) == Some(&1) {
                if out.len() == cap {
                    return (out, true);
                }
                out.push(n);
            }
            let at = stack.len();
            stack.extend(self.shown_children(n));
            stack[at..].reverse();
        }
        (out, false)
    }
}

#[cfg(test)]
#[path = "calltree_tests.rs"]
mod tests;
