//! Every node's children in a call tree, in display order, stored for what big trees are
//! made of: long chains. A profile of 500k samples has a tree of about 8 M nodes whose
//! branches are mostly single paths, and a tree numbered as it was built (the stack table, a
//! [`crate::analysis::tree::TreeBuilder`]'s tree) numbers the nodes of a chain one after
//! another, each right after its parent.
//! A node with no child, or with `n + 1` as its only child, costs two bits; only the others
//! (a node with a child elsewhere) have their children listed. Full child lists (an offset
//! and an entry a node) took 8 bytes a node: 62 MiB for synth-500k's 8.1 M nodes, where
//! these take 5.6 MiB (199,907 nodes listed, 637,453 entries); the Go heap profile of
//! `bench/go_heap.sh` (1.65 M nodes, 600,005 listed) 7.4 MiB instead of 12.6.

use crate::analysis::bits::{Bits, Ranked};
use crate::analysis::tree::{CallTree, Weights};
use crate::chunks::in_chunks;
use std::ops::Deref;

/// How siblings are ordered in a flame graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Order {
    /// Largest total first ("left heavy"), ties alphabetical.
    #[default]
    WidestFirst,
    /// By name, as flamegraph.pl does, so two profiles line up.
    Alphabetical,
}

/// Each node's children, in the display order last chosen by [`Children::sort`]. Every child
/// is there, zero totals included (layouts skip them), so which children a node has depends
/// on the tree alone and only their order on the weights.
///
/// Invariant: a node not in `listed` has no child, or one, `n + 1` (then `next_is_child`
/// says so); a listed node's children are `list[start[r]..start[r + 1]]` with `r` its rank
/// among the listed nodes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Children {
    /// Per node: node `n + 1` is its child.
    next_is_child: Bits,
    /// Per node: it has a child other than `n + 1`, so its children are listed.
    listed: Ranked,
    /// Offsets into `list`, one per listed node (in node order) plus one.
    start: Vec<u32>,
    /// The children of the listed nodes.
    list: Vec<u32>,
}

/// The children of one node, as a slice (see [`Children::of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kids<'a> {
    /// A listed node's children.
    Listed(&'a [u32]),
    /// The only child of a node not listed: the next node.
    Next([u32; 1]),
}

impl Deref for Kids<'_> {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match self {
            Kids::Listed(kids) => kids,
            Kids::Next(kid) => kid,
        }
    }
}

impl<'a> IntoIterator for Kids<'a> {
    type Item = u32;
    type IntoIter =
        std::iter::Chain<std::iter::Copied<std::slice::Iter<'a, u32>>, std::option::IntoIter<u32>>;

    /// The children by value, without borrowing the `Kids` (an iterator can outlive it).
    fn into_iter(self) -> Self::IntoIter {
        match self {
            Kids::Listed(kids) => kids.iter().copied().chain(None),
            Kids::Next([kid]) => [].iter().copied().chain(Some(kid)),
        }
    }
}

impl Children {
    /// Every node's children, in node order. Nodes whose parent is not an earlier node (no
    /// parent: the root) are nobody's child.
    pub fn of_tree(tree: &CallTree) -> Children {
        let n = tree.len();
        let (mut next_is_child, mut listed) = (Bits::new(n), Bits::new(n));
        for_each_child(tree, |parent, child| {
            if parent + 1 == child {
                next_is_child.set(parent, true);
            } else {
                listed.set(parent, true);
            }
        });
        let listed = Ranked::new(listed);
        // count[r + 1]: children of the listed node of rank r; summed, count[r] is where its
        // children start, and filling advances it to where they end, count[r + 1]: one shift
        // then gives the starts back, without a copy.
        let mut count = vec![0u32; listed.ones() + 1];
        for_each_child(tree, |parent, _| {
            if listed.get(parent) {
                count[listed.rank(parent) + 1] += 1;
            }
        });
        for r in 1..count.len() {
            count[r] += count[r - 1];
        }
        let mut list = vec![0u32; count.last().copied().unwrap_or(0) as usize];
        for_each_child(tree, |parent, child| {
            if listed.get(parent) {
                let slot = &mut count[listed.rank(parent)];
                list[*slot as usize] = child as u32;
                *slot += 1;
            }
        });
        let rows = count.len() - 1;
        count.copy_within(0..rows, 1);
        count[0] = 0;
        Children {
            next_is_child,
            listed,
            start: count,
            list,
        }
    }

    /// The children of `tree`, sorted by `order` under `w`.
    pub fn new(tree: &CallTree, w: &Weights, order: Order, name_rank: &[u32]) -> Children {
        let mut kids = Children::of_tree(tree);
        kids.sort(tree, w, order, name_rank);
        kids
    }

    /// Sorts every sibling list: widest first (ties by name) or by name. Only listed nodes
    /// have more than one child.
    pub fn sort(&mut self, tree: &CallTree, w: &Weights, order: Order, name_rank: &[u32]) {
        let rank = |c: u32| {
            name_rank
                .get(tree.frame(c as usize) as usize)
                .copied()
                .unwrap_or(u32::MAX)
        };
        let (start, list) = (&self.start, &mut self.list);
        in_chunks(0..start.len().saturating_sub(1), |rows| {
            for r in rows {
                let kids = &mut list[start[r] as usize..start[r + 1] as usize];
                if kids.len() < 2 {
                    continue; // a listed node whose one child is not the next node
                }
                match order {
                    Order::WidestFirst => kids.sort_unstable_by(|&a, &b| {
                        w.total
                            .at(b as usize)
                            .total_cmp(&w.total.at(a as usize))
                            .then(rank(a).cmp(&rank(b)))
                    }),
                    Order::Alphabetical => kids.sort_unstable_by_key(|&c| rank(c)),
                }
            }
            true
        });
    }

    /// The children of `node` (none for a node not in the tree).
    #[inline]
    pub fn of(&self, node: u32) -> Kids<'_> {
        let n = node as usize;
        if self.listed.get(n) {
            let r = self.listed.rank(n);
            return match (self.start.get(r), self.start.get(r + 1)) {
                (Some(&a), Some(&b)) => Kids::Listed(&self.list[a as usize..b as usize]),
                _ => Kids::Listed(&[]),
            };
        }
        if self.next_is_child.get(n) {
            return Kids::Next([node + 1]);
        }
        Kids::Listed(&[])
    }

    /// The number of nodes whose children are listed (the rest have at most one child).
    #[cfg(test)]
    fn listed(&self) -> usize {
        self.listed.ones()
    }
}

/// Calls `f(parent, child)` for every node with an earlier node as its parent, in node order.
fn for_each_child(tree: &CallTree, mut f: impl FnMut(usize, usize)) {
    in_chunks(1..tree.len(), |nodes| {
        for (c, p) in nodes.clone().zip(tree.parents(nodes)) {
            if (p as usize) < c {
                f(p as usize, c);
            }
        }
        true
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tree::tests::below;
    use crate::analysis::tree::{TreeBuilder, ROOT};
    use crate::model::NO_INDEX;

    #[test]
    fn children_sorted_both_ways() {
        let mut b = TreeBuilder::new();
        let z = b.child(ROOT, 0);
        let a = b.child(ROOT, 1);
        let empty = b.child(ROOT, 2);
        let tree = b.finish();
        let w = Weights::from_self(&tree, vec![0.0, 5.0, 2.0, 0.0]);
        let ranks = [1, 0, 2];
        let wide = Children::new(&tree, &w, Order::WidestFirst, &ranks);
        assert_eq!(*wide.of(ROOT), [z, a, empty]);
        let abc = Children::new(&tree, &w, Order::Alphabetical, &ranks);
        assert_eq!(*abc.of(ROOT), [a, z, empty]);
        assert!(abc.of(empty).is_empty());
    }

    /// Random trees (chains, a parent anywhere earlier, a node without a parent) give every
    /// node the children a scan of the parent column gives, in node order, listing only the
    /// nodes with a child other than the next node; sorted, the same children in order.
    #[test]
    fn every_node_has_the_children_of_its_parent_column() {
        let mut next = below(0x2545_f491_4f6c_dd1d);
        for case in 0..200 {
            let mut tree = CallTree::from_columns(vec![NO_INDEX], vec![NO_INDEX]);
            let size = 1 + next(300) as u32;
            for n in 1..size {
                let parent = match next(8) {
                    0..=4 => n - 1,
                    5 if case % 7 == 0 => NO_INDEX,
                    _ => next(u64::from(n)) as u32,
                };
                tree.push(parent, next(6) as u32);
            }
            let kids = Children::of_tree(&tree);
            let mut want: Vec<Vec<u32>> = vec![Vec::new(); size as usize + 3];
            for c in 1..size {
                if let Some(list) = want.get_mut(tree.parent(c as usize) as usize) {
                    list.push(c);
                }
            }
            let listed = want
                .iter()
                .enumerate()
                .filter(|(p, list)| list.iter().any(|&c| c as usize != p + 1))
                .count();
            assert_eq!(kids.listed(), listed, "case {case}");
            for (node, list) in want.iter().enumerate() {
                let got = kids.of(node as u32);
                assert_eq!(&*got, &list[..], "case {case} node {node}");
                assert_eq!(got.into_iter().collect::<Vec<_>>(), *list);
            }
            let w = Weights::from_self(&tree, (0..size).map(|_| next(4) as f64).collect());
            let ranks = [3, 1, 4, 0, 5, 2];
            let wide = Children::new(&tree, &w, Order::WidestFirst, &ranks);
            let abc = Children::new(&tree, &w, Order::Alphabetical, &ranks);
            let rank = |c: u32| ranks[tree.frame(c as usize) as usize];
            for (node, list) in want.iter().enumerate() {
                let (by_width, by_name) = (wide.of(node as u32), abc.of(node as u32));
                let mut sorted = by_width.to_vec();
                sorted.sort_unstable();
                assert_eq!(&sorted, list, "case {case} node {node}");
                assert!(by_width.windows(2).all(|p| {
                    let (a, b) = (w.total.at(p[0] as usize), w.total.at(p[1] as usize));
                    a > b || (a == b && rank(p[0]) <= rank(p[1]))
                }));
                assert!(by_name.windows(2).all(|p| rank(p[0]) <= rank(p[1])));
            }
        }
    }
}
