//! Time-order layout (a flame *chart*): samples left to right in recorded order, each drawn as
//! a column of its frames, with identical frames of adjacent samples merged into one box.
//!
//! x is time in seconds when the profile has `samples..time` (a sample lasts until the next
//! sample of its source; the last one lasts the median interval), sources one after another;
//! otherwise x is the running sum of the chosen value, so widths are values as in the flame
//! graph. Two adjacent samples share a box at depth `d` exactly when their call-tree nodes at
//! depth `d` are the same node, which (a node being a whole path) means identical frames from
//! the root down to `d`.

use crate::analysis::filter::SampleFilter;
use crate::analysis::flame::{Boxes, Run, Viewport};
use crate::analysis::tree::{CallTree, NodeMap, DROPPED, ROOT};
use crate::model::{Profile, ValueTypeIndex, NO_INDEX, SAMPLE_TIME};

/// The boxes of one row: a box covers the laid-out samples `first..=last` (indices into
/// [`TimeLayout`]'s span columns), 12 bytes a box however long the profile.
#[derive(Clone, Debug, Default, PartialEq)]
struct Row {
    node: Vec<u32>,
    first: Vec<u32>,
    last: Vec<u32>,
}

/// A complete time-order layout, queried by viewport with [`TimeLayout::boxes`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeLayout {
    /// `rows[d - 1]` holds the boxes at depth `d` (the root is not drawn), sorted by x.
    rows: Vec<Row>,
    /// Start of each laid-out sample, in layout order.
    span_x0: Vec<f64>,
    /// End of each laid-out sample.
    span_x1: Vec<f64>,
    /// Start of the first sample.
    pub x_min: f64,
    /// End of the last sample.
    pub x_max: f64,
    /// True when x is time in seconds, false when it is accumulated value.
    pub is_time: bool,
}

/// Builds the layout of the samples kept by `filter`, each at its node of `tree` via `map`.
pub fn time_layout(
    p: &Profile,
    vt: ValueTypeIndex,
    filter: &SampleFilter,
    tree: &CallTree,
    map: &NodeMap,
) -> TimeLayout {
    let spans = sample_spans(p, vt, filter);
    let mut b = LayoutBuilder {
        tree,
        depth: tree.depths(),
        open: Vec::new(),
        rows: Vec::new(),
        path: Vec::new(),
    };
    let (mut span_x0, mut span_x1): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    let mut last_end = f64::NEG_INFINITY;
    for (s, x0, x1) in spans.spans {
        let node = map.node_of_stack(p.samples.stack[s]);
        if node == DROPPED || x1 <= x0 {
            continue;
        }
        let k = span_x0.len() as u32;
        if x0 > last_end {
            b.close_to(0, k.wrapping_sub(1));
        }
        b.enter(node, k);
        span_x0.push(x0);
        span_x1.push(x1);
        last_end = x1;
    }
    b.close_to(0, (span_x0.len() as u32).wrapping_sub(1));
    TimeLayout {
        rows: b.rows,
        x_min: span_x0.first().copied().unwrap_or(0.0),
        x_max: span_x1
            .last()
            .map_or(0.0, |_| span_x1.iter().copied().fold(f64::MIN, f64::max)),
        span_x0,
        span_x1,
        is_time: spans.is_time,
    }
}

struct Spans {
    spans: Vec<(usize, f64, f64)>,
    is_time: bool,
}

/// `(sample, x0, x1)` of every kept sample, in sample order.
fn sample_spans(p: &Profile, vt: ValueTypeIndex, filter: &SampleFilter) -> Spans {
    let keep = filter.predicate(p);
    let n = p.num_samples();
    let Some(times) = sample_times(p) else {
        let mut x = 0.0;
        let col = p.value_column(vt);
        let spans = (0..n)
            .filter(|&s| keep(s))
            .filter_map(|s| {
                let v = col.and_then(|c| c.get(s)).unwrap_or(0.0);
                let start = x;
                x += v.max(0.0);
                (v > 0.0).then_some((s, start, x))
            })
            .collect();
        return Spans {
            spans,
            is_time: false,
        };
    };
    let ends = sample_ends(p, times);
    let mut offset = 0.0;
    let mut source_end = f64::NEG_INFINITY;
    let mut current_source = None;
    let mut spans = Vec::new();
    for s in (0..n).filter(|&s| keep(s)) {
        let t = times[s];
        if !t.is_finite() {
            continue;
        }
        let src = p.samples.source[s];
        if current_source != Some(src) {
            if current_source.is_some() {
                offset = source_end - t;
            }
            current_source = Some(src);
        }
        let x0 = t + offset;
        let x1 = ends[s] + offset;
        source_end = source_end.max(x1);
        spans.push((s, x0, x1));
    }
    Spans {
        spans,
        is_time: true,
    }
}

/// The samples' `samples..time` column, when at least one sample has a finite time (then the
/// time-order layout's x axis is time).
pub fn sample_times(p: &Profile) -> Option<&[f64]> {
    p.samples
        .ext
        .dbl(SAMPLE_TIME)
        .filter(|t| t.iter().any(|v| v.is_finite()))
}

/// When each sample ends, in its source's time: at the next sample of the same source (so
/// adjacent spans meet exactly, with no rounding gap); the last sample, and any sample followed
/// by an earlier time, lasts the median positive interval.
fn sample_ends(p: &Profile, times: &[f64]) -> Vec<f64> {
    let n = times.len();
    let next_time = |s: usize| -> Option<f64> {
        let next = s + 1;
        (next < n && p.samples.source[next] == p.samples.source[s])
            .then(|| times[next])
            .filter(|t| t.is_finite() && *t >= times[s])
    };
    let mut gaps: Vec<f64> = (0..n)
        .filter_map(|s| next_time(s).map(|t| t - times[s]))
        .filter(|g| *g > 0.0)
        .collect();
    let median = if gaps.is_empty() {
        1.0
    } else {
        let mid = gaps.len() / 2;
        *gaps.select_nth_unstable_by(mid, f64::total_cmp).1
    };
    (0..n)
        .map(|s| next_time(s).unwrap_or(times[s] + median))
        .collect()
}

struct LayoutBuilder<'a> {
    tree: &'a CallTree,
    /// The depth of each node of `tree`, held while the layout is built.
    depth: Vec<u32>,
    /// `open[d - 1]` = (node, first span) of the box open at depth `d`.
    open: Vec<(u32, u32)>,
    rows: Vec<Row>,
    path: Vec<u32>,
}

impl LayoutBuilder<'_> {
    /// Closes every open box deeper than `depth`, its last span being `last`.
    fn close_to(&mut self, depth: usize, last: u32) {
        while self.open.len() > depth {
            let d = self.open.len();
            let Some((node, first)) = self.open.pop() else {
                break;
            };
            if self.rows.len() < d {
                self.rows.resize_with(d, Row::default);
            }
            let row = &mut self.rows[d - 1];
            row.node.push(node);
            row.first.push(first);
            row.last.push(last);
        }
    }

    /// Extends the open boxes shared with `node`'s path and opens the rest at span `k`.
    fn enter(&mut self, node: u32, k: u32) {
        // Walk up from `node` until reaching a node that is already open at its depth.
        self.path.clear();
        let mut n = node;
        while n != ROOT && n != NO_INDEX {
            let d = self.depth[n as usize] as usize;
            if self.open.get(d - 1).is_some_and(|&(o, _)| o == n) {
                break;
            }
            self.path.push(n);
            n = self.tree.parent(n as usize);
        }
        let shared = if n == ROOT || n == NO_INDEX {
            0
        } else {
            self.depth[n as usize] as usize
        };
        self.close_to(shared, k.wrapping_sub(1));
        self.open.extend(self.path.iter().rev().map(|&p| (p, k)));
    }
}

impl TimeLayout {
    /// Number of boxes in all rows.
    pub fn len(&self) -> usize {
        self.rows.iter().map(|r| r.node.len()).sum()
    }

    /// True when there are no boxes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of rows (the deepest depth).
    pub fn depth(&self) -> usize {
        self.rows.len()
    }

    /// The boxes intersecting `vp`, row by row; adjacent boxes narrower than `min_width` that
    /// touch are merged into boxes about `min_width` wide, coloured by the frame covering most
    /// (see [`Run`]). `self_w` is left 0.
    pub fn boxes(&self, tree: &CallTree, vp: &Viewport) -> Boxes {
        let mut out = Boxes::default();
        for (i, row) in self.rows.iter().enumerate() {
            let depth = i as u32 + 1;
            if depth > vp.max_depth {
                break;
            }
            let end_of = |k: usize| self.span_x1[row.last[k] as usize];
            let first = partition_point(row.node.len(), |k| end_of(k) <= vp.x0);
            let mut run: Option<Run> = None;
            for k in first..row.node.len() {
                let (x0, x1) = (self.span_x0[row.first[k] as usize], end_of(k));
                if x0 >= vp.x1 {
                    break;
                }
                let node = row.node[k];
                // A node beyond the tree (none is) would read as merged: MERGED is NO_INDEX.
                let frame = tree.frame(node as usize);
                if x1 - x0 < vp.min_width {
                    if run.as_ref().is_some_and(|r| x0 - r.end() >= vp.min_width) {
                        emit_run(run.take(), depth, &mut out);
                    }
                    let r = run.get_or_insert_with(|| Run::new(x0));
                    r.add(frame, x0, x1 - x0);
                    if r.width() >= vp.min_width {
                        emit_run(run.take(), depth, &mut out);
                    }
                    continue;
                }
                emit_run(run.take(), depth, &mut out);
                out.push(node, frame, depth, x0, (x1 - x0, 0.0), 1);
            }
            emit_run(run, depth, &mut out);
        }
        out
    }
}

/// The number of leading indices of `0..n` for which `pred` holds (`pred` must hold for a
/// prefix and fail after it).
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

fn emit_run(run: Option<Run>, depth: u32, out: &mut Boxes) {
    if let Some(r) = run {
        r.emit(depth, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fixtures::path_stack;
    use crate::analysis::flame::MERGED;
    use crate::analysis::frames::Frames;
    use crate::analysis::tree::tree_from_stacks;
    use crate::model::{Cell, ProfileBuilder};

    /// Samples (root-first frame names) with optional times.
    fn profile(stacks: &[&[&str]], times: Option<&[f64]>) -> Profile {
        let mut b = ProfileBuilder::new();
        let src = b.add_source("x", None, None);
        let vt = b.value_type("samples", "count");
        for (i, st) in stacks.iter().enumerate() {
            let stack = path_stack(&mut b, st);
            let s = b.add_sample_with_values(src, stack, &[(vt, 1.0)]);
            if let Some(t) = times {
                b.set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(t[i]));
            }
        }
        b.build().unwrap()
    }

    fn layout(p: &Profile) -> (CallTree, TimeLayout, Frames) {
        let frames = Frames::new(p);
        let (tree, map) = tree_from_stacks(&mut p.clone(), &frames);
        let l = time_layout(p, ValueTypeIndex(0), &SampleFilter::default(), &tree, &map);
        (tree, l, frames)
    }

    fn row_text(frames: &Frames, tree: &CallTree, b: &Boxes, depth: u32) -> Vec<String> {
        (0..b.len())
            .filter(|&i| b.depth[i] == depth)
            .map(|i| {
                let name = frames.name[tree.frame(b.node[i] as usize) as usize].clone();
                format!("{name}@{}+{}", b.x[i], b.width[i])
            })
            .collect()
    }

    #[test]
    fn adjacent_identical_frames_merge() {
        let p = profile(
            &[
                &["main", "a"],
                &["main", "a"],
                &["main", "b"],
                &["main", "a"],
            ],
            None,
        );
        let (tree, l, frames) = layout(&p);
        let b = l.boxes(&tree, &Viewport::all());
        assert_eq!(row_text(&frames, &tree, &b, 1), vec!["main@0+4"]);
        assert_eq!(
            row_text(&frames, &tree, &b, 2),
            vec!["a@0+2", "b@2+1", "a@3+1"]
        );
        assert!(!l.is_time);
    }

    #[test]
    fn timestamps_give_x_and_median_last_duration() {
        let p = profile(&[&["main"], &["main"], &["other"]], Some(&[0.0, 0.5, 1.5]));
        let (tree, l, frames) = layout(&p);
        assert!(l.is_time);
        let b = l.boxes(&tree, &Viewport::all());
        // gaps 0.5 and 1.0, median (upper) 1.0 for the last sample
        assert_eq!(
            row_text(&frames, &tree, &b, 1),
            vec!["main@0+1.5", "other@1.5+1"]
        );
        assert_eq!(l.x_max, 2.5);
    }

    #[test]
    fn adjacent_samples_meet_exactly_despite_rounding() {
        // 0.1 + (0.3562 - 0.1) < 0.3562 in floating point: a span computed as start plus
        // duration would leave a gap and split the box.
        let p = profile(
            &[&["main"], &["main"], &["main"]],
            Some(&[0.1, 0.3562, 0.5]),
        );
        let (tree, l, frames) = layout(&p);
        let b = l.boxes(&tree, &Viewport::all());
        assert_eq!(row_text(&frames, &tree, &b, 1).len(), 1);
    }

    #[test]
    fn narrow_boxes_merge_in_query() {
        let p = profile(&[&["a"], &["b"], &["a"], &["c", "d"]], None);
        let (tree, l, _) = layout(&p);
        let vp = Viewport {
            min_width: 1.5,
            ..Viewport::all()
        };
        let b = l.boxes(&tree, &vp);
        // row 1: a, b, a, c each 1 wide merge pairwise into boxes >= 1.5 wide, where no frame
        // covers more than half; row 2: d alone, merged, keeps its frame
        assert_eq!(b.frame[..2], [MERGED, MERGED]);
        assert_eq!((b.x[0], b.width[0], b.count[0]), (0.0, 2.0, 2));
        assert_eq!((b.x[1], b.width[1], b.count[1]), (2.0, 2.0, 2));
        assert_eq!((b.x[2], b.depth[2], b.node[2]), (3.0, 2, NO_INDEX));
        assert_eq!(tree.frame(tree.len() - 1), b.frame[2]);
    }
}
