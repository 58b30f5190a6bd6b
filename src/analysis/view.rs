//! The viewer's analysis state: one profile, the options the user chose, and everything
//! derived from them, recomputed only as far as an option change requires.
//!
//! | option changed | recomputed |
//! | --- | --- |
//! | transforms | transformed tree, stack → node map, child lists, first occurrences, then as below |
//! | value type, sample filter | weights, child order, frame totals |
//! | order | child order |
//!
//! Queries ([`View::flame`], [`View::time_order`], [`View::sandwich`]) read that state and
//! return flat [`Boxes`] columns.

use crate::analysis::bits::Bits;
use crate::analysis::calltree::TreeSource;
use crate::analysis::children::{Children, Order};
use crate::analysis::filter::{weigh, SampleFilter};
use crate::analysis::flame::{flame_boxes, Boxes, Viewport};
use crate::analysis::frames::Frames;
use crate::analysis::lines::{line_table_kept, KeptFrames, LineTable};
use crate::analysis::sandwich::{
    callees, callers, frame_totals, inverted, tree_shape, FrameTotals, WeighedTree,
};
use crate::analysis::search::{matched_total, Matcher};
use crate::analysis::source_files::{source_files, SourceFiles};
use crate::analysis::timeorder::{time_layout, TimeLayout};
use crate::analysis::transform::{apply_all, Transform};
use crate::analysis::tree::{tree_from_stacks, CallTree, NodeMap, Weights, DROPPED, ROOT};
use crate::model::{decode_opt, Profile, ValueTypeIndex};

/// What the user chose.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewOptions {
    /// The value type that gives widths.
    pub value_type: ValueTypeIndex,
    /// Which samples count.
    pub filter: SampleFilter,
    /// Transforms, applied in order.
    pub transforms: Vec<Transform>,
    /// Sibling order in the flame graph.
    pub order: Order,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            value_type: ValueTypeIndex(0),
            filter: SampleFilter::default(),
            transforms: Vec::new(),
            order: Order::default(),
        }
    }
}

/// Totals of the current view, in units of the value type.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ViewTotals {
    /// Weight in the (transformed) tree.
    pub shown: f64,
    /// Weight of the samples the filter kept (before transforms drop any).
    pub kept: f64,
    /// Weight of every sample of the profile.
    pub all: f64,
}

/// Which of the two sandwich trees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SandwichSide {
    /// Inverted tree of callers.
    Callers,
    /// Tree of callees.
    Callees,
}

/// Analysis state over one profile. See the module docs.
pub struct View {
    profile: Profile,
    frames: Frames,
    base_tree: CallTree,
    base_map: NodeMap,
    options: ViewOptions,
    /// The transformed tree and map, when there are transforms.
    transformed: Option<(CallTree, NodeMap)>,
    weights: Weights,
    kept_total: f64,
    all_total: f64,
    children: Children,
    /// The largest depth of the current tree (it holds no depth column).
    max_depth: u32,
    /// Per node of the current tree: no ancestor has the same frame.
    first: Bits,
    totals: FrameTotals,
    time: Option<TimeLayout>,
    sandwich: Option<(u32, WeighedTree, Children, WeighedTree, Children)>,
    /// The bottom-up tree of the current weights, built on first use.
    inverted: Option<(WeighedTree, Children)>,
}

impl View {
    /// Builds the base call tree of `profile` and the view of its default value type.
    pub fn new(mut profile: Profile) -> View {
        let frames = Frames::new(&profile);
        let (base_tree, base_map) = tree_from_stacks(&mut profile, &frames);
        let options = ViewOptions {
            value_type: profile.default_value_type().unwrap_or(ValueTypeIndex(0)),
            ..ViewOptions::default()
        };
        let mut v = View {
            transformed: None,
            profile,
            frames,
            base_tree,
            base_map,
            options: options.clone(),
            weights: Weights::default(),
            kept_total: 0.0,
            all_total: 0.0,
            children: Children::default(),
            max_depth: 0,
            first: Bits::default(),
            totals: FrameTotals::default(),
            time: None,
            sandwich: None,
            inverted: None,
        };
        v.retree();
        v
    }

    /// The profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The frames (names, files, lines) every view refers to by id.
    pub fn frames(&self) -> &Frames {
        &self.frames
    }

    /// The options in force.
    pub fn options(&self) -> &ViewOptions {
        &self.options
    }

    /// The current (transformed) call tree.
    pub fn tree(&self) -> &CallTree {
        self.transformed.as_ref().map_or(&self.base_tree, |t| &t.0)
    }

    /// Where each stack node lands in the current tree.
    fn map(&self) -> &NodeMap {
        self.transformed.as_ref().map_or(&self.base_map, |t| &t.1)
    }

    /// The largest depth of the current tree (the root has depth 0, its children 1).
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }

    /// Node weights of the current tree.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// Self and total per frame id under the current options.
    pub fn frame_totals(&self) -> &FrameTotals {
        &self.totals
    }

    /// The source-line table of the chosen value type over the samples the filter keeps, of
    /// the stacks as the transforms leave them (see [`View::kept_frames`]).
    pub fn line_table(&self) -> LineTable {
        let keep = self.sample_predicate();
        let kept = self.kept_frames();
        line_table_kept(
            &self.profile,
            self.options.value_type,
            Some(&keep),
            kept.as_ref(),
        )
    }

    /// Every file's lines with self and total of every value type, as [`View::line_table`]
    /// counts them (filter and transforms apply); files heaviest first in the chosen type.
    pub fn source_files(&self) -> SourceFiles {
        let keep = self.sample_predicate();
        let kept = self.kept_frames();
        source_files(
            &self.profile,
            Some(&keep),
            kept.as_ref(),
            self.options.value_type,
        )
    }

    /// The samples the view counts: those the filter keeps whose stack the transforms do not
    /// drop (a focus drops the samples outside the focused function).
    pub fn sample_predicate(&self) -> impl Fn(usize) -> bool + '_ {
        let filter = self.options.filter.predicate(&self.profile);
        let (map, stacks) = (self.map(), &self.profile.samples.stack);
        move |s| {
            filter(s)
                && stacks
                    .get(s)
                    .is_some_and(|&st| map.node_of_stack(st) != DROPPED)
        }
    }

    /// The frames the transforms keep, `None` without transforms. Every transform keeps a
    /// subsequence of a stack's frames: a stack node's frame stays when it lands on a node of
    /// its own in the transformed tree, not on its caller's node (hidden, collapsed) nor
    /// dropped (outside a focus).
    pub fn kept_frames(&self) -> Option<KeptFrames> {
        self.transformed.as_ref()?;
        let (map, st) = (self.map(), &self.profile.stacks);
        let stack = (0u32..)
            .zip(&st.prefix)
            .map(|(s, prefix)| {
                let node = map.node_of_stack(s);
                let caller = decode_opt(prefix).map_or(ROOT, |q| map.node_of_stack(q));
                node != DROPPED && node != caller
            })
            .collect();
        let focus = self
            .options
            .transforms
            .iter()
            .any(|t| matches!(t, Transform::Focus(_)));
        Some(KeptFrames {
            stack,
            toplevel: !focus,
        })
    }

    /// Totals of the current view.
    pub fn totals(&self) -> ViewTotals {
        ViewTotals {
            shown: self.weights.grand_total(),
            kept: self.kept_total,
            all: self.all_total,
        }
    }

    /// Applies new options, recomputing only what they affect.
    pub fn set_options(&mut self, options: ViewOptions) {
        let old = std::mem::replace(&mut self.options, options);
        if old.transforms != self.options.transforms {
            self.release_derived();
            self.transformed = (!self.options.transforms.is_empty()).then(|| {
                let (tree, step) = apply_all(&self.base_tree, &self.options.transforms);
                let map = self.base_map.then(&step, self.profile.stacks.prefix.len());
                (tree, map)
            });
            self.retree();
        } else if old.value_type != self.options.value_type || old.filter != self.options.filter {
            self.reweigh();
        } else if old.order != self.options.order {
            self.reorder();
        }
    }

    /// Drops everything derived from the current tree, the transformed tree itself included,
    /// before a new one is made: wasm memory only grows, so the old and the new state held at
    /// once would set its size (the totals alone are 4 or 8 bytes a node).
    fn release_derived(&mut self) {
        self.transformed = None;
        self.children = Children::default();
        self.first = Bits::default();
        self.weights = Weights::default();
        self.time = None;
        self.sandwich = None;
        self.inverted = None;
    }

    /// After the tree changed: its child lists and first occurrences, then the weights.
    fn retree(&mut self) {
        // The old lists go before the new are made: the two are never held at once.
        self.children = Children::default();
        (self.children, self.first, self.max_depth) = tree_shape(self.tree(), self.frames.len());
        self.reweigh();
    }

    fn reweigh(&mut self) {
        // The old weights go before the new are summed: the two are never held at once.
        self.weights = Weights::default();
        let o = &self.options;
        let w = weigh(
            &self.profile,
            o.value_type,
            &o.filter,
            self.tree(),
            self.map(),
        );
        self.weights = w.weights;
        self.kept_total = w.kept_total;
        self.all_total = self
            .profile
            .value_column(o.value_type)
            .map_or(0.0, |c| c.total());
        self.time = None;
        self.reorder();
        self.totals = frame_totals(self.tree(), &self.weights, &self.first, self.frames.len());
    }

    fn reorder(&mut self) {
        let (tree, ranks) = (
            self.transformed.as_ref().map_or(&self.base_tree, |t| &t.0),
            &self.frames.name_rank,
        );
        self.children
            .sort(tree, &self.weights, self.options.order, ranks);
        self.sandwich = None;
        self.inverted = None;
    }

    /// The bottom-up tree of the current weights and its child lists, built on first use
    /// after an option change.
    fn inverted_tree(&mut self) -> &(WeighedTree, Children) {
        if self.inverted.is_none() {
            let inv = inverted(self.tree(), &self.weights);
            let order = self.options.order;
            let kids = Children::new(&inv.tree, &inv.weights, order, &self.frames.name_rank);
            self.inverted = Some((inv, kids));
        }
        self.inverted.get_or_insert_with(Default::default)
    }

    /// Boxes of the bottom-up (inverted) flame graph for a viewport: innermost frames at the
    /// root, their callers above; same total as [`View::flame`].
    pub fn inverted_flame(&mut self, vp: &Viewport) -> Boxes {
        let (inv, kids) = self.inverted_tree();
        flame_boxes(&inv.tree, &inv.weights, kids, vp)
    }

    /// The call tree as tree-grid rows: the current tree, or with `inverted` its bottom-up
    /// tree (whose node ids are those of [`View::inverted_flame`]).
    pub fn tree_source(&mut self, inverted: bool) -> TreeSource<'_> {
        if inverted {
            let (inv, kids) = self.inverted_tree();
            return TreeSource {
                tree: &inv.tree,
                kids,
                weights: vec![&inv.weights],
                inverted: true,
            };
        }
        TreeSource {
            tree: self.transformed.as_ref().map_or(&self.base_tree, |t| &t.0),
            kids: &self.children,
            weights: vec![&self.weights],
            inverted: false,
        }
    }

    /// Flame-graph boxes for a viewport (x in value units, root at `[0, shown)`).
    pub fn flame(&self, vp: &Viewport) -> Boxes {
        flame_boxes(self.tree(), &self.weights, &self.children, vp)
    }

    /// The time-order layout, built on first use after an option change.
    pub fn time_layout(&mut self) -> &TimeLayout {
        if self.time.is_none() {
            let o = &self.options;
            let layout = time_layout(
                &self.profile,
                o.value_type,
                &o.filter,
                self.tree(),
                self.map(),
            );
            self.time = Some(layout);
        }
        self.time.get_or_insert_with(TimeLayout::default)
    }

    /// Time-order boxes for a viewport (x in seconds or accumulated value).
    pub fn time_order(&mut self, vp: &Viewport) -> Boxes {
        self.time_layout();
        match &self.time {
            Some(t) => t.boxes(self.tree(), vp),
            None => Boxes::default(),
        }
    }

    /// Boxes of one side of the sandwich of `frame` for a viewport.
    pub fn sandwich(&mut self, frame: u32, side: SandwichSide, vp: &Viewport) -> Boxes {
        if self.sandwich.as_ref().is_none_or(|s| s.0 != frame) {
            let order = self.options.order;
            let ranks = &self.frames.name_rank;
            let up = callers(self.tree(), &self.weights, frame);
            let down = callees(self.tree(), &self.weights, frame);
            let up_kids = Children::new(&up.tree, &up.weights, order, ranks);
            let down_kids = Children::new(&down.tree, &down.weights, order, ranks);
            self.sandwich = Some((frame, up, up_kids, down, down_kids));
        }
        match (&self.sandwich, side) {
            (Some((_, t, k, _, _)), SandwichSide::Callers)
            | (Some((_, _, _, t, k)), SandwichSide::Callees) => {
                flame_boxes(&t.tree, &t.weights, k, vp)
            }
            (None, _) => Boxes::default(),
        }
    }

    /// Search: one flag per frame id and the weight of samples through a matching frame.
    pub fn search(&self, query: &str) -> Result<(Vec<u8>, f64), String> {
        let m = Matcher::parse(query)?;
        let flags = m.frame_flags(&self.frames.name);
        let matched = matched_total(self.tree(), &self.weights, &flags);
        Ok((flags, matched))
    }

    /// The frames from the outermost down to `node` of the current tree.
    pub fn path(&self, node: u32) -> Vec<u32> {
        self.tree().path(node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fixtures::path_stack;
    use crate::analysis::functions::function_table;
    use crate::model::ProfileBuilder;

    fn profile() -> Profile {
        let mut b = ProfileBuilder::new();
        let src = b.add_source("manual", None, None);
        let cpu = b.value_type("cpu", "nanoseconds");
        let n = b.value_type("samples", "count");
        let stacks: [&[&str]; 3] = [
            &["main", "parse", "eval", "parse"],
            &["main", "eval", "alloc"],
            &["main", "parse"],
        ];
        for (i, st) in stacks.iter().enumerate() {
            let s = path_stack(&mut b, st);
            b.add_sample_with_values(src, s, &[(cpu, 10.0 * (i + 1) as f64), (n, 1.0)]);
        }
        b.build().unwrap()
    }

    #[test]
    fn frame_totals_equal_function_table() {
        let p = profile();
        for vt in [ValueTypeIndex(0), ValueTypeIndex(1)] {
            let expect = function_table(&p, vt, None);
            let mut v = View::new(p.clone());
            v.set_options(ViewOptions {
                value_type: vt,
                ..ViewOptions::default()
            });
            let t = v.frame_totals();
            for row in &expect.rows {
                let f = v.frames().find(&row.name).unwrap() as usize;
                assert_eq!((t.self_w[f], t.total[f]), (row.self_value, row.total_value));
            }
            assert_eq!(v.totals().shown, expect.total);
        }
    }

    #[test]
    fn focus_drops_samples_without_frames() {
        let mut b = ProfileBuilder::new();
        let src = b.add_source("manual", None, None);
        let n = b.value_type("samples", "count");
        let f = b.function_named("f", None);
        let l = b.location(Some(f), 0);
        let s = b.stack_leaf_first(&[l]);
        b.add_sample_with_values(src, s, &[(n, 2.0)]);
        b.add_sample_with_values(src, None, &[(n, 5.0)]);
        let mut v = View::new(b.build().unwrap());
        assert_eq!(v.totals().shown, 7.0);
        v.set_options(ViewOptions {
            transforms: vec![Transform::Focus(0)],
            ..ViewOptions::default()
        });
        assert_eq!((v.totals().shown, v.totals().kept), (2.0, 7.0));
    }

    /// Options changed and changed back give what a new view gives: the state an option
    /// change drops first is all made again.
    #[test]
    fn options_changed_and_back_equal_a_new_view() {
        let p = profile();
        let fresh = View::new(p.clone());
        let mut v = View::new(p);
        let parse = v.frames().find("parse").unwrap();
        for options in [
            ViewOptions {
                transforms: vec![Transform::Focus(parse)],
                ..ViewOptions::default()
            },
            ViewOptions {
                value_type: ValueTypeIndex(1),
                transforms: vec![Transform::Focus(parse)],
                ..ViewOptions::default()
            },
            ViewOptions {
                value_type: ValueTypeIndex(1),
                ..ViewOptions::default()
            },
            fresh.options().clone(),
        ] {
            v.set_options(options);
        }
        assert_eq!(v.tree(), fresh.tree());
        assert_eq!(v.weights(), fresh.weights());
        assert_eq!(v.frame_totals(), fresh.frame_totals());
        assert_eq!((v.max_depth(), v.totals()), (4, fresh.totals()));
        assert_eq!(v.flame(&Viewport::all()), fresh.flame(&Viewport::all()));
    }

    #[test]
    fn focus_then_value_switch() {
        let p = profile();
        let mut v = View::new(p);
        let parse = v.frames().find("parse").unwrap();
        v.set_options(ViewOptions {
            value_type: ValueTypeIndex(0),
            transforms: vec![Transform::Focus(parse)],
            ..ViewOptions::default()
        });
        // samples 1 (10) and 3 (30) pass through parse
        assert_eq!(v.totals().shown, 40.0);
        assert_eq!(v.totals().kept, 60.0);
        let b = v.flame(&Viewport::all());
        assert_eq!(b.frame[1], parse);
        let (flags, matched) = v.search("EVAL").unwrap();
        assert_eq!(flags.iter().filter(|&&f| f == 1).count(), 1);
        assert_eq!(matched, 10.0);
        let callers = v.sandwich(parse, SandwichSide::Callers, &Viewport::all());
        assert_eq!(callers.width[1], 40.0);
        let t = v.time_order(&Viewport::all());
        assert!(!t.is_empty());
    }

    /// Counted by hand: hiding `sim` charges its lines to `main`'s calling line; a focus on
    /// `sim` drops the sample outside it and the frames above it.
    #[test]
    fn line_table_follows_transforms() {
        let text = concat!(
            "line profiling: sample.interval=10000\n",
            "#File 1: w.R\n",
            "\"rnorm\" 1#5 \"sim\" 1#26 \"main\" \n",
            "\"c\" 1#6 \"sim\" 1#26 \"main\" \n",
            "1#9 \"f\" 1#27 \"main\" \n",
        );
        let p = crate::analysis::fixtures::rprof_profile(text);
        let vt = p.value_type_index("samples").unwrap();
        let mut v = View::new(p);
        let rows = |v: &View| {
            let mut r: Vec<(String, f64, f64)> = v
                .line_table()
                .rows
                .iter()
                .map(|r| (r.label(), r.self_value, r.total_value))
                .collect();
            r.sort_by(|a, b| a.0.cmp(&b.0));
            r
        };
        let row = |l: &str, s: f64, t: f64| (l.to_owned(), s, t);
        let sim = v.frames().find("sim").unwrap();
        let options = |transforms| ViewOptions {
            value_type: vt,
            transforms,
            ..ViewOptions::default()
        };
        v.set_options(options(vec![]));
        assert_eq!(rows(&v).len(), 5);
        v.set_options(options(vec![Transform::Hide(sim)]));
        let expect = [
            row("w.R:26", 2.0, 2.0),
            row("w.R:27", 0.0, 1.0),
            row("w.R:9", 1.0, 1.0),
        ];
        assert_eq!(rows(&v), expect);
        v.set_options(options(vec![Transform::Focus(sim)]));
        assert_eq!(rows(&v), [row("w.R:5", 1.0, 1.0), row("w.R:6", 1.0, 1.0)]);
        assert_eq!(v.line_table().total, v.totals().shown);
    }
}
