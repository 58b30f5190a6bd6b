//! The viewer's Compare mode: a [`DiffTree`] with the view's transforms applied, laid out as a
//! differential flame graph, and its function table.
//!
//! The tree is the diff tree's call tree rewritten by [`apply_all`] (focus, hide, collapse
//! recursion), with each side's self values moved along to the node their call path became;
//! a node a transform drops takes its values with it. The boxes are sized by one side (the
//! comparison by default, or the baseline so that frames gone in the comparison show) and
//! carry both sides' totals, so colour and tooltip need no second query. Siblings are ordered
//! as the flame graph orders them, by the sized side. The scale of
//! [`crate::analysis::diff::Normalization::Scaled`] is that of the whole selections, before
//! transforms, as [`DiffTree`] computed it. The bottom-up (inverted) tree of both sides is
//! built on first use ([`DiffView::inverted_tree_source`]).

use std::cell::OnceCell;

use crate::analysis::calltree::TreeSource;
use crate::analysis::children::{Children, Order};
use crate::analysis::diff::{DiffSummary, DiffTree};
use crate::analysis::flame::{flame_boxes_carrying, Boxes, Viewport};
use crate::analysis::sandwich::{frame_totals, inverted_sides, tree_shape, FrameTotals};
use crate::analysis::transform::{apply_all, Transform};
use crate::analysis::tree::{moved_self, CallTree, Weights};

/// Which side gives the widths of a differential flame graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SizeBy {
    /// The comparison (default): frames gone in it have no width.
    #[default]
    New,
    /// The baseline: frames new in the comparison have no width.
    Base,
}

/// Boxes of a differential flame graph: [`Boxes`] (widths of the sized side) and both sides'
/// totals per box (for a merged box, the sums over its nodes). All three have one entry per box.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiffBoxes {
    /// The layout.
    pub boxes: Boxes,
    /// Baseline total of each box.
    pub base: Vec<f64>,
    /// Comparison total of each box (scaled).
    pub new: Vec<f64>,
}

/// Both sides' per-frame totals of a [`DiffView`], indexed by frame id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiffFrameTotals {
    /// The baseline's self and total per frame.
    pub base: FrameTotals,
    /// The comparison's (scaled).
    pub new: FrameTotals,
}

/// The bottom-up tree of both sides: invariants as [`DiffView`]'s.
#[derive(Clone, Debug)]
struct InvertedDiff {
    tree: CallTree,
    base: Weights,
    new: Weights,
    children: Children,
}

/// A comparison ready to draw. Invariants: `base` and `new` have one entry per node of
/// `tree`, `children` lists every node's children ordered by the sized side.
#[derive(Clone, Debug)]
pub struct DiffView {
    summary: DiffSummary,
    tree: CallTree,
    base: Weights,
    new: Weights,
    size_by: SizeBy,
    children: Children,
    frame_totals: DiffFrameTotals,
    /// Samples of each side the transforms keep: (baseline, comparison).
    shown_samples: (f64, f64),
    /// Sibling order and frame name ranks, for the inverted tree's child lists.
    order: Order,
    name_rank: Vec<u32>,
    inverted: OnceCell<InvertedDiff>,
}

impl DiffView {
    /// `diff` with `transforms` applied, siblings in `order` (`name_rank` as in
    /// [`crate::analysis::frames::Frames::name_rank`], one entry per frame id), widths from
    /// `size_by`.
    pub fn new(
        diff: &DiffTree,
        transforms: &[Transform],
        order: Order,
        name_rank: &[u32],
        size_by: SizeBy,
    ) -> DiffView {
        let (tree, map) = apply_all(&diff.tree, transforms);
        let base = Weights::from_self(&tree, moved_self(&diff.base_self, &map, tree.len()));
        let new = Weights::from_self(&tree, moved_self(&diff.new_self, &map, tree.len()));
        let kept = |counts: &[f64]| moved_self(counts, &map, tree.len()).iter().sum::<f64>();
        let shown_samples = (kept(&diff.base_samples), kept(&diff.new_samples));
        let sized = if size_by == SizeBy::New { &new } else { &base };
        let n_frames = name_rank.len();
        let (mut children, first, _) = tree_shape(&tree, n_frames);
        children.sort(&tree, sized, order, name_rank);
        let frame_totals = DiffFrameTotals {
            base: frame_totals(&tree, &base, &first, n_frames),
            new: frame_totals(&tree, &new, &first, n_frames),
        };
        DiffView {
            summary: diff.summary.clone(),
            tree,
            base,
            new,
            size_by,
            children,
            frame_totals,
            shown_samples,
            order,
            name_rank: name_rank.to_vec(),
            inverted: OnceCell::new(),
        }
    }

    /// Totals and scale of the comparison.
    pub fn summary(&self) -> &DiffSummary {
        &self.summary
    }

    /// The (transformed) call tree.
    pub fn tree(&self) -> &CallTree {
        &self.tree
    }

    /// Baseline weights per node.
    pub fn base(&self) -> &Weights {
        &self.base
    }

    /// Comparison weights per node (scaled).
    pub fn new_weights(&self) -> &Weights {
        &self.new
    }

    /// The call tree as tree-grid rows: the comparison's weights, then the baseline's.
    pub fn tree_source(&self) -> TreeSource<'_> {
        TreeSource {
            tree: &self.tree,
            kids: &self.children,
            weights: vec![&self.new, &self.base],
            inverted: false,
        }
    }

    /// The bottom-up call tree of both sides as tree-grid rows (the comparison's weights, then
    /// the baseline's), siblings ordered by the sized side: under the root every frame that is
    /// innermost in some sample of either side, its callers below.
    pub fn inverted_tree_source(&self) -> TreeSource<'_> {
        let inv = self.inverted.get_or_init(|| {
            let (tree, mut sides) = inverted_sides(&self.tree, &[&self.base, &self.new]);
            let new = sides.pop().unwrap_or_default();
            let base = sides.pop().unwrap_or_default();
            let sized = if self.size_by == SizeBy::New {
                &new
            } else {
                &base
            };
            let children = Children::new(&tree, sized, self.order, &self.name_rank);
            InvertedDiff {
                tree,
                base,
                new,
                children,
            }
        });
        TreeSource {
            tree: &inv.tree,
            kids: &inv.children,
            weights: vec![&inv.new, &inv.base],
            inverted: true,
        }
    }

    /// Which side gives the widths.
    pub fn size_by(&self) -> SizeBy {
        self.size_by
    }

    /// Both sides' totals after the transforms (the comparison scaled): what a focus or a hide
    /// leaves of [`DiffSummary::base_total`] and [`DiffSummary::new_total`].
    pub fn shown_totals(&self) -> (f64, f64) {
        (self.base.grand_total(), self.new.grand_total())
    }

    /// How many samples of each side the transforms keep (a focus keeps those through its
    /// frame): what they leave of [`DiffSummary::base_samples`] and
    /// [`DiffSummary::new_samples`], as (baseline, comparison).
    pub fn shown_samples(&self) -> (f64, f64) {
        self.shown_samples
    }

    /// The width of the root box: the sized side's total after transforms.
    pub fn width(&self) -> f64 {
        self.sized().0.grand_total()
    }

    /// Self and total per frame id of both sides, recursion counted once.
    pub fn frame_totals(&self) -> &DiffFrameTotals {
        &self.frame_totals
    }

    /// Boxes for a viewport (x in units of the sized side, root at `[0, width)`).
    pub fn boxes(&self, vp: &Viewport) -> DiffBoxes {
        let (sized, other) = self.sized();
        let boxes = flame_boxes_carrying(&self.tree, sized, &self.children, vp, &other.total);
        let (base, new) = match self.size_by {
            SizeBy::New => (boxes.carried.clone(), boxes.width.clone()),
            SizeBy::Base => (boxes.width.clone(), boxes.carried.clone()),
        };
        DiffBoxes { boxes, base, new }
    }

    /// The frames from the outermost down to `node`.
    pub fn path(&self, node: u32) -> Vec<u32> {
        self.tree.path(node)
    }

    /// `(sized side, other side)`.
    fn sized(&self) -> (&Weights, &Weights) {
        match self.size_by {
            SizeBy::New => (&self.new, &self.base),
            SizeBy::Base => (&self.base, &self.new),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::diff::{diff_tree, Comparison, Normalization};
    use crate::analysis::fixtures::paths_profile;
    use crate::analysis::flame::MERGED;
    use crate::analysis::frames::Frames;
    use crate::model::{Profile, SourceIndex, ValueTypeIndex, NO_INDEX};

    /// Baseline: main->a 6, main->b 4, main->gone 2. Comparison: main->a 6, main->b 14,
    /// main->fresh 3, main->a->b 1 (a recursion-free path through b under a).
    fn two_sources() -> Profile {
        paths_profile(
            &["base", "new"],
            &[
                (0, &["main", "a"], 6.0),
                (0, &["main", "b"], 4.0),
                (0, &["main", "gone"], 2.0),
                (1, &["main", "a"], 6.0),
                (1, &["main", "b"], 14.0),
                (1, &["main", "fresh"], 3.0),
                (1, &["main", "a", "b"], 1.0),
            ],
        )
    }

    fn view(transforms: &[Transform], size_by: SizeBy) -> (DiffView, Frames) {
        let p = two_sources();
        let c = Comparison {
            value_type: ValueTypeIndex(0),
            base: vec![SourceIndex(0)],
            new: vec![SourceIndex(1)],
            normalization: Normalization::Absolute,
        };
        let (diff, frames) = diff_tree(&p, &c).unwrap();
        let v = DiffView::new(
            &diff,
            transforms,
            Order::WidestFirst,
            &frames.name_rank,
            size_by,
        );
        (v, frames)
    }

    fn names(frames: &Frames, b: &Boxes) -> Vec<String> {
        b.frame
            .iter()
            .map(|&f| match f {
                MERGED => "*".to_owned(),
                f => frames.name[f as usize].clone(),
            })
            .collect()
    }

    #[test]
    fn sized_by_the_comparison_widest_first_with_both_totals() {
        let (v, frames) = view(&[], SizeBy::New);
        let d = v.boxes(&Viewport::all());
        // comparison: main 24 = b 14, a 7 (a->b 1), fresh 3; gone has no width
        assert_eq!(
            names(&frames, &d.boxes),
            ["*", "main", "b", "a", "fresh", "b"]
        );
        assert_eq!(d.new, vec![24.0, 24.0, 14.0, 7.0, 3.0, 1.0]);
        assert_eq!(d.base, vec![12.0, 12.0, 4.0, 6.0, 0.0, 0.0]);
        assert_eq!(d.boxes.x, vec![0.0, 0.0, 0.0, 14.0, 21.0, 14.0]);
        assert_eq!(v.width(), 24.0);
    }

    #[test]
    fn sized_by_the_baseline_shows_gone_frames() {
        let (v, frames) = view(&[], SizeBy::Base);
        let d = v.boxes(&Viewport::all());
        // baseline: main 12 = a 6, b 4, gone 2; fresh and a->b have no width
        assert_eq!(names(&frames, &d.boxes), ["*", "main", "a", "b", "gone"]);
        assert_eq!(d.base, vec![12.0, 12.0, 6.0, 4.0, 2.0]);
        assert_eq!(d.new, vec![24.0, 24.0, 7.0, 14.0, 0.0]);
    }

    #[test]
    fn merged_boxes_sum_both_sides() {
        let (v, frames) = view(&[], SizeBy::New);
        let vp = Viewport {
            min_width: 8.0,
            ..Viewport::all()
        };
        let d = v.boxes(&vp);
        // a (7) and fresh (3) merge: 10 wide, a covers more than half; a->b (1) is alone
        assert_eq!(names(&frames, &d.boxes), ["*", "main", "b", "a"]);
        assert_eq!(d.boxes.node[3], NO_INDEX);
        assert_eq!((d.boxes.width[3], d.new[3], d.base[3]), (10.0, 10.0, 6.0));
    }

    #[test]
    fn transforms_move_both_sides() {
        let a = {
            let (_, frames) = view(&[], SizeBy::New);
            frames.find("a").unwrap()
        };
        let (v, frames) = view(&[Transform::Hide(a)], SizeBy::New);
        let d = v.boxes(&Viewport::all());
        // a hidden: main self 6 + 6, main->b merges 14 + 1 (base 4)
        assert_eq!(names(&frames, &d.boxes), ["*", "main", "b", "fresh"]);
        assert_eq!(d.new, vec![24.0, 24.0, 15.0, 3.0]);
        assert_eq!(d.base, vec![12.0, 12.0, 4.0, 0.0]);
        let (focused, _) = view(&[Transform::Focus(a)], SizeBy::New);
        assert_eq!(focused.width(), 7.0);
        assert_eq!(focused.base().grand_total(), 6.0);
        // The summary's totals stay those of the selections; the shown totals are the focus's.
        assert_eq!(focused.shown_totals(), (6.0, 7.0));
        assert_eq!(focused.summary().base_total, 12.0);
        assert_eq!(v.shown_totals(), (12.0, 24.0));
        // One sample per path: a focus on a keeps main->a (both) and main->a->b (comparison).
        assert_eq!(focused.shown_samples(), (1.0, 2.0));
        assert_eq!(v.shown_samples(), (3.0, 4.0), "a hide drops no sample");
    }

    #[test]
    fn frame_totals_count_each_side() {
        let (v, frames) = view(&[], SizeBy::New);
        let t = v.frame_totals();
        let b = frames.find("b").unwrap() as usize;
        // b: baseline self 4; comparison self 14 + 1, total 15
        assert_eq!((t.base.self_w[b], t.base.total[b]), (4.0, 4.0));
        assert_eq!((t.new.self_w[b], t.new.total[b]), (15.0, 15.0));
        let gone = frames.find("gone").unwrap() as usize;
        assert_eq!((t.base.total[gone], t.new.total[gone]), (2.0, 0.0));
    }

    #[test]
    fn inverted_tree_has_both_sides_self_at_the_top() {
        let (v, frames) = view(&[], SizeBy::New);
        let t = v.inverted_tree_source();
        let named = |rows: &crate::analysis::calltree::TreeRows| -> Vec<String> {
            rows.frame
                .iter()
                .map(|&f| frames.name[f as usize].clone())
                .collect()
        };
        let top = t.children_rows(&[crate::analysis::tree::ROOT]);
        // Each frame's self: b new 14 + 1, base 4; a 6 / 6; fresh 3 / 0; gone 0 / 2.
        assert_eq!(named(&top), ["b", "a", "fresh", "gone"]);
        assert_eq!(top.total[0], vec![15.0, 6.0, 3.0, 0.0]);
        assert_eq!(top.total[1], vec![4.0, 6.0, 0.0, 2.0]);
        assert_eq!(top.self_w, top.total);
        // b's callers: main (14 / 4) and a (1 / 0), no self.
        let callers = t.children_rows(&top.node[..1]);
        assert_eq!(named(&callers), ["main", "a"]);
        assert_eq!(callers.total, vec![vec![14.0, 1.0], vec![4.0, 0.0]]);
        assert_eq!(callers.self_w, vec![vec![0.0, 0.0], vec![0.0, 0.0]]);
        // Sized by the baseline, its heaviest frame comes first.
        let (by_base, _) = view(&[], SizeBy::Base);
        let top = by_base.inverted_tree_source().children_rows(&[0]);
        assert_eq!(top.total[1], vec![6.0, 4.0, 2.0, 0.0]);
    }
}
