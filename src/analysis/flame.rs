//! Flame-graph layout as flat columns, computed for one viewport at a time.
//!
//! The x axis is in value units: the root spans `[0, total)` and each child starts where its
//! preceding siblings end. A query returns only the boxes that intersect the viewport's x range
//! and are at least `min_width` wide; adjacent siblings that are each narrower are merged into
//! boxes about `min_width` wide (node [`NO_INDEX`], coloured by the frame covering most of them) so that
//! widths stay true at every zoom while the number of boxes stays bounded by the number of
//! pixels. Boxes come row by row (breadth
//! first), left to right within a row, so JavaScript can bisect a row for hit-testing.

use crate::analysis::children::Children;
use crate::analysis::tree::{CallTree, Totals, Weights, ROOT};
use crate::model::NO_INDEX;

/// Frame id of a merged box with no dominant frame (and of the root box).
pub const MERGED: u32 = NO_INDEX;

/// The x range to lay out and the narrowest box shown on its own, in value units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Left edge.
    pub x0: f64,
    /// Right edge.
    pub x1: f64,
    /// Boxes narrower than this are merged with adjacent narrow siblings.
    pub min_width: f64,
    /// Deepest row returned (depth counts from the root at 0).
    pub max_depth: u32,
}

impl Viewport {
    /// Everything, with nothing merged.
    pub fn all() -> Viewport {
        Viewport {
            x0: f64::NEG_INFINITY,
            x1: f64::INFINITY,
            min_width: 0.0,
            max_depth: u32::MAX,
        }
    }
}

/// Laid-out boxes as columns (one entry per box).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Boxes {
    /// Call-tree node ([`NO_INDEX`] for a merged box).
    pub node: Vec<u32>,
    /// Frame id. For a merged box: the frame whose members cover more than half of the box
    /// (so a run of thin boxes keeps the colour that dominates it), else [`MERGED`].
    pub frame: Vec<u32>,
    /// Row: 0 for the root.
    pub depth: Vec<u32>,
    /// Left edge in value units.
    pub x: Vec<f64>,
    /// Width in value units (the node's total).
    pub width: Vec<f64>,
    /// Self weight (for a merged box: the sum of the merged nodes' totals).
    pub self_w: Vec<f64>,
    /// Number of nodes in the box: 1, or how many siblings were merged.
    pub count: Vec<u32>,
    /// A second value per box laid out beside the widths (e.g. a comparison's baseline): the
    /// node's value, for a merged box the sum over its nodes. Empty unless the layout was given
    /// one ([`flame_boxes_carrying`]); else one entry per box.
    pub carried: Vec<f64>,
}

impl Boxes {
    /// Number of boxes.
    pub fn len(&self) -> usize {
        self.node.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.node.is_empty()
    }

    /// Appends one box; `w` is `(width, self)`.
    pub(crate) fn push(
        &mut self,
        node: u32,
        frame: u32,
        depth: u32,
        x: f64,
        w: (f64, f64),
        count: u32,
    ) {
        self.node.push(node);
        self.frame.push(frame);
        self.depth.push(depth);
        self.x.push(x);
        self.width.push(w.0);
        self.self_w.push(w.1);
        self.count.push(count);
    }
}

/// Distinct frames a [`Run`] sums widths for when choosing its colour.
const RUN_FRAMES: usize = 4;

/// A run of narrow adjacent boxes waiting to be emitted as one merged box.
pub(crate) struct Run {
    x: f64,
    end: f64,
    sum: f64,
    count: u32,
    /// Width per frame for the first [`RUN_FRAMES`] distinct frames of the run.
    frames: [(u32, f64); RUN_FRAMES],
}

impl Run {
    /// A run starting at `x`.
    pub(crate) fn new(x: f64) -> Run {
        Run {
            x,
            end: x,
            sum: 0.0,
            count: 0,
            frames: [(MERGED, 0.0); RUN_FRAMES],
        }
    }

    /// Where the run ends so far.
    pub(crate) fn end(&self) -> f64 {
        self.end
    }

    /// Its width so far.
    pub(crate) fn width(&self) -> f64 {
        self.end - self.x
    }

    /// Adds the box `[x, x + width)` of `frame`.
    pub(crate) fn add(&mut self, frame: u32, x: f64, width: f64) {
        self.end = self.end.max(x + width);
        self.sum += width;
        self.count += 1;
        if frame == MERGED {
            return;
        }
        if let Some(slot) = self
            .frames
            .iter_mut()
            .find(|(f, _)| *f == frame || *f == MERGED)
        {
            *slot = (frame, slot.1 + width);
        }
    }

    /// Appends the run as one merged box at `depth`.
    pub(crate) fn emit(self, depth: u32, out: &mut Boxes) {
        let width = self.end - self.x;
        let frame = self
            .frames
            .iter()
            .find(|(f, w)| *f != MERGED && *w * 2.0 > width)
            .map_or(MERGED, |&(f, _)| f);
        out.push(
            NO_INDEX,
            frame,
            depth,
            self.x,
            (width, self.sum),
            self.count,
        );
    }
}

/// Lays out the subtree of [`ROOT`] for `vp`. See the module docs.
pub fn flame_boxes(tree: &CallTree, w: &Weights, kids: &Children, vp: &Viewport) -> Boxes {
    flame_boxes_carrying(tree, w, kids, vp, &Totals::default())
}

/// As [`flame_boxes`], also filling [`Boxes::carried`] from `carry` (one value per node of
/// `tree`; missing entries count as 0). An empty `carry` leaves the column empty.
pub fn flame_boxes_carrying(
    tree: &CallTree,
    w: &Weights,
    kids: &Children,
    vp: &Viewport,
    carry: &Totals,
) -> Boxes {
    let mut out = Boxes::default();
    let root_w = w.total.at(0);
    if root_w <= 0.0 || vp.x1 <= 0.0 || vp.x0 >= root_w {
        return out;
    }
    let mut carry = Carry::new(carry);
    out.push(ROOT, MERGED, 0, 0.0, (root_w, w.self_of(ROOT)), 1);
    carry.push_node(ROOT, &mut out);
    // Breadth-first over emitted boxes: `next` indexes `out`, whose rows grow in order.
    let mut next = 0;
    while next < out.len() {
        let (node, depth, x) = (out.node[next], out.depth[next], out.x[next]);
        next += 1;
        if node == NO_INDEX || depth >= vp.max_depth {
            continue;
        }
        let row = Row {
            depth: depth + 1,
            vp,
        };
        lay_out_children(tree, w, &kids.of(node), x, &row, &mut carry, &mut out);
    }
    out
}

/// The values of [`Boxes::carried`] per node, and the sum over the run being merged.
struct Carry<'a> {
    values: &'a Totals,
    run_sum: f64,
}

impl<'a> Carry<'a> {
    fn new(values: &'a Totals) -> Carry<'a> {
        Carry {
            values,
            run_sum: 0.0,
        }
    }

    fn value(&self, node: u32) -> f64 {
        self.values.at(node as usize)
    }

    /// Records the value of a box just pushed for `node`.
    fn push_node(&self, node: u32, out: &mut Boxes) {
        if !self.values.is_empty() {
            out.carried.push(self.value(node));
        }
    }

    /// Records the summed value of a merged box just pushed, and starts a new run.
    fn push_run(&mut self, out: &mut Boxes) {
        if !self.values.is_empty() {
            out.carried.push(self.run_sum);
        }
        self.run_sum = 0.0;
    }
}

/// The row being laid out.
struct Row<'a> {
    depth: u32,
    vp: &'a Viewport,
}

fn lay_out_children(
    tree: &CallTree,
    w: &Weights,
    children: &[u32],
    mut x: f64,
    row: &Row,
    carry: &mut Carry,
    out: &mut Boxes,
) {
    let (depth, vp) = (row.depth, row.vp);
    let mut run: Option<Run> = None;
    for &c in children {
        let width = w.total.at(c as usize);
        if width <= 0.0 {
            continue;
        }
        let visible = x < vp.x1 && x + width > vp.x0;
        if !visible || width < vp.min_width {
            if visible {
                let frame = tree.frame(c as usize);
                let r = run.get_or_insert_with(|| Run::new(x));
                r.add(frame, x, width);
                carry.run_sum += carry.value(c);
                if r.width() >= vp.min_width {
                    flush(&mut run, depth, carry, out);
                }
            } else {
                flush(&mut run, depth, carry, out);
            }
        } else {
            flush(&mut run, depth, carry, out);
            let frame = tree.frame(c as usize);
            out.push(c, frame, depth, x, (width, w.self_of(c)), 1);
            carry.push_node(c, out);
        }
        x += width;
        if x >= vp.x1 {
            break;
        }
    }
    flush(&mut run, depth, carry, out);
}

fn flush(run: &mut Option<Run>, depth: u32, carry: &mut Carry, out: &mut Boxes) {
    if let Some(r) = run.take() {
        r.emit(depth, out);
        carry.push_run(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::children::Order;
    use crate::analysis::tree::TreeBuilder;

    fn sample_tree() -> (CallTree, Weights, Children) {
        // root -> a(6) -> {b(3), c(1), d(1)}; root -> e(2)
        let mut b = TreeBuilder::new();
        let a = b.child(ROOT, 0);
        let _bb = b.child(a, 1);
        let _c = b.child(a, 2);
        let _d = b.child(a, 3);
        let _e = b.child(ROOT, 4);
        let tree = b.finish();
        let w = Weights::from_self(&tree, vec![0.0, 1.0, 3.0, 1.0, 1.0, 2.0]);
        let kids = Children::new(&tree, &w, Order::WidestFirst, &[0, 1, 2, 3, 4]);
        (tree, w, kids)
    }

    #[test]
    fn full_layout_places_children_after_siblings() {
        let (tree, w, kids) = sample_tree();
        let b = flame_boxes(&tree, &w, &kids, &Viewport::all());
        assert_eq!(b.frame, vec![MERGED, 0, 4, 1, 2, 3]);
        assert_eq!(b.depth, vec![0, 1, 1, 2, 2, 2]);
        assert_eq!(b.x, vec![0.0, 0.0, 6.0, 0.0, 3.0, 4.0]);
        assert_eq!(b.width, vec![8.0, 6.0, 2.0, 3.0, 1.0, 1.0]);
        assert_eq!(b.self_w[1], 1.0);
    }

    #[test]
    fn narrow_siblings_merge_and_keep_width() {
        let (tree, w, kids) = sample_tree();
        let vp = Viewport {
            min_width: 1.5,
            ..Viewport::all()
        };
        let b = flame_boxes(&tree, &w, &kids, &vp);
        // c and d (1 each) merge; neither covers more than half, so no dominant frame
        assert_eq!(b.frame, vec![MERGED, 0, 4, 1, MERGED]);
        assert_eq!((b.x[4], b.width[4], b.count[4]), (3.0, 2.0, 2));
        assert_eq!(b.node[4], NO_INDEX);
    }

    #[test]
    fn merged_run_takes_the_frame_covering_most_of_it() {
        let mut out = Boxes::default();
        let mut r = Run::new(0.0);
        r.add(7, 0.0, 0.4);
        r.add(8, 0.4, 0.1);
        r.add(7, 0.5, 0.4);
        r.emit(3, &mut out);
        let mut even = Run::new(1.0);
        even.add(7, 1.0, 0.5);
        even.add(8, 1.5, 0.5);
        even.emit(3, &mut out);
        assert_eq!(out.frame, vec![7, MERGED]);
        assert_eq!(out.count, vec![3, 2]);
        assert_eq!(out.node, vec![NO_INDEX, NO_INDEX]);
    }

    #[test]
    fn carried_values_follow_boxes_and_sum_when_merged() {
        let (tree, w, kids) = sample_tree();
        // nodes: root, a, b, c, d, e; carry 10 * node id
        let carry = Totals::Exact(vec![0.0, 10.0, 20.0, 30.0, 40.0, 50.0]);
        let all = flame_boxes_carrying(&tree, &w, &kids, &Viewport::all(), &carry);
        // boxes: root, a, e, b, c, d
        assert_eq!(all.carried, vec![0.0, 10.0, 50.0, 20.0, 30.0, 40.0]);
        let vp = Viewport {
            min_width: 1.5,
            ..Viewport::all()
        };
        let merged = flame_boxes_carrying(&tree, &w, &kids, &vp, &carry);
        // c and d merge into one box carrying 30 + 40
        assert_eq!(merged.carried, vec![0.0, 10.0, 50.0, 20.0, 70.0]);
        assert!(flame_boxes(&tree, &w, &kids, &vp).carried.is_empty());
    }

    #[test]
    fn viewport_clips_x_and_depth() {
        let (tree, w, kids) = sample_tree();
        let vp = Viewport {
            x0: 6.5,
            x1: 8.0,
            min_width: 0.0,
            max_depth: 1,
        };
        let b = flame_boxes(&tree, &w, &kids, &vp);
        assert_eq!(b.frame, vec![MERGED, 4]);
    }
}
