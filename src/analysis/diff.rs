//! Compare two selections of one profile: a *baseline* and a *comparison*, each a set of
//! sources (usually of a profile made by [`crate::model::combine::combine`]).
//!
//! Both results are computed from the stack table: one pass over the samples sums each side's
//! value onto its innermost stack node, and everything else works on those per-node sums.
//!
//! - [`diff_functions`]: per function (rows keyed as in [`crate::analysis::functions`]), the
//!   baseline and comparison self and total, total counted once per sample under recursion.
//! - [`diff_tree`]: the call tree by frame along the call path as flat columns for a
//!   differential flame graph: per node its frame id, parent, depth, and both sides' self and
//!   total with the change of the total.
//!
//! **Normalization.** With [`Normalization::Scaled`] (the default) every comparison value is
//! multiplied by [`DiffSummary::scale`] = baseline total / comparison total, so both sides have
//! the same total and a change means a change of *share*. When either total is not positive
//! (or not finite) the scale is 1. With [`Normalization::Absolute`] the scale is always 1.
//! All comparison values reported (`new_*`) are scaled ones; [`DiffSummary::new_total_raw`]
//! keeps the unscaled total.

use std::fmt;
use std::ops::Deref;

use crate::analysis::functions::{
    function_table_from_weights, heaviest_first, FrameKey, FunctionRow,
};
use crate::analysis::tree::{tree_by_location, CallTree, Weights, DROPPED};
use crate::hash::HashMap;
use crate::model::{decode_opt, Profile, SourceIndex, ValueTypeIndex};

/// The virtual root node of a [`DiffTree`] (the same as a [`crate::analysis::tree::CallTree`]'s).
pub use crate::analysis::tree::ROOT;

/// How the comparison is put on the baseline's scale.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Normalization {
    /// Scale the comparison so that both selections have the same total.
    #[default]
    Scaled,
    /// Compare the values as recorded.
    Absolute,
}

/// What to compare: one value type over two sets of sources. A source may be in both sets
/// (comparing it with itself gives no change).
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The value type compared.
    pub value_type: ValueTypeIndex,
    /// Sources of the baseline.
    pub base: Vec<SourceIndex>,
    /// Sources of the comparison.
    pub new: Vec<SourceIndex>,
    /// Scaled (default) or absolute.
    pub normalization: Normalization,
}

/// Which selection of a [`Comparison`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The baseline.
    Base,
    /// The comparison.
    New,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Base => "baseline",
            Side::New => "comparison",
        }
    }
}

/// Why a comparison cannot be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiffError {
    /// The value type index names no value type of the profile.
    UnknownValueType(u32),
    /// A selection names a source row the profile does not have (0-based row).
    UnknownSource(u32),
    /// A selection has no sources.
    EmptySelection(Side),
    /// A selection has samples but none of them has a value of the type.
    MissingValueType {
        /// The selection.
        side: Side,
        /// The value type's name.
        value_type: String,
    },
    /// The frame-id column given to [`diff_tree_with_frames`] does not have one entry per
    /// location.
    FrameIdsLength {
        /// Entries given.
        given: usize,
        /// Locations of the profile.
        locations: usize,
    },
}

impl fmt::Display for DiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiffError::UnknownValueType(i) => write!(f, "diff: no value type number {i}"),
            DiffError::UnknownSource(i) => {
                write!(f, "diff: no source with source_id {}", u64::from(*i) + 1)
            }
            DiffError::EmptySelection(side) => {
                write!(f, "diff: the {} selection has no sources", side.name())
            }
            DiffError::MissingValueType { side, value_type } => write!(
                f,
                "diff: no sample of the {} selection has a value of type {value_type:?}",
                side.name()
            ),
            DiffError::FrameIdsLength { given, locations } => {
                write!(f, "diff: {given} frame ids given for {locations} locations")
            }
        }
    }
}

impl std::error::Error for DiffError {}

/// Totals of both selections and the scale applied to the comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffSummary {
    /// The value type compared.
    pub value_type: ValueTypeIndex,
    /// The normalization asked for.
    pub normalization: Normalization,
    /// Number of samples in the baseline selection.
    pub base_samples: usize,
    /// Number of samples in the comparison selection.
    pub new_samples: usize,
    /// Sum of the value over the baseline's samples.
    pub base_total: f64,
    /// Sum of the value over the comparison's samples, unscaled.
    pub new_total_raw: f64,
    /// Factor applied to every comparison value (1 when absolute or when scaling is
    /// impossible).
    pub scale: f64,
}

impl DiffSummary {
    /// The comparison's total after scaling.
    pub fn new_total(&self) -> f64 {
        self.new_total_raw * self.scale
    }
}

/// Each side's value summed per stack node, the basis of every result here.
struct SideWeights {
    summary: DiffSummary,
    /// `base_leaf[s]`: baseline value of samples whose innermost stack node is `s`.
    base_leaf: Vec<f64>,
    /// As `base_leaf`, for the comparison (unscaled).
    new_leaf: Vec<f64>,
    /// Baseline value of samples without frames.
    base_empty: f64,
    /// Comparison value of samples without frames (unscaled).
    new_empty: f64,
    /// Baseline samples per stack node (whatever their value), samples without frames last.
    base_count: Vec<f64>,
    /// As `base_count`, for the comparison.
    new_count: Vec<f64>,
}

/// Per-source membership of both selections.
fn source_masks(p: &Profile, c: &Comparison) -> Result<(Vec<bool>, Vec<bool>), DiffError> {
    let n = p.sources.source_type.len();
    let mask = |side: Side, sources: &[SourceIndex]| {
        if sources.is_empty() {
            return Err(DiffError::EmptySelection(side));
        }
        let mut m = vec![false; n];
        for s in sources {
            *m.get_mut(s.idx()).ok_or(DiffError::UnknownSource(s.0))? = true;
        }
        Ok(m)
    };
    Ok((mask(Side::Base, &c.base)?, mask(Side::New, &c.new)?))
}

/// One pass over the samples: both sides' values per stack node, with the checks of
/// [`DiffError`].
fn side_weights(p: &Profile, c: &Comparison) -> Result<SideWeights, DiffError> {
    let col = p
        .value_column(c.value_type)
        .ok_or(DiffError::UnknownValueType(c.value_type.0))?;
    let (in_base, in_new) = source_masks(p, c)?;
    let n_stacks = p.stacks.prefix.len();
    let mut w = SideWeights {
        summary: DiffSummary {
            value_type: c.value_type,
            normalization: c.normalization,
            base_samples: 0,
            new_samples: 0,
            base_total: 0.0,
            new_total_raw: 0.0,
            scale: 1.0,
        },
        base_leaf: vec![0.0; n_stacks],
        new_leaf: vec![0.0; n_stacks],
        base_empty: 0.0,
        new_empty: 0.0,
        base_count: vec![0.0; n_stacks + 1],
        new_count: vec![0.0; n_stacks + 1],
    };
    let (mut base_valued, mut new_valued) = (0usize, 0usize);
    for (s, (src, &stack)) in p.samples.source.iter().zip(&p.samples.stack).enumerate() {
        let base = in_base.get(src.idx()).copied().unwrap_or(false);
        let new = in_new.get(src.idx()).copied().unwrap_or(false);
        w.summary.base_samples += usize::from(base);
        w.summary.new_samples += usize::from(new);
        let node = decode_opt(stack).map(|n| n as usize);
        let at = node.unwrap_or(n_stacks).min(n_stacks);
        w.base_count[at] += f64::from(u8::from(base));
        w.new_count[at] += f64::from(u8::from(new));
        let Some(v) = col.get(s) else { continue };
        if base {
            base_valued += 1;
            add_at(&mut w.base_leaf, &mut w.base_empty, node, v);
        }
        if new {
            new_valued += 1;
            add_at(&mut w.new_leaf, &mut w.new_empty, node, v);
        }
    }
    let type_name = || p.value_type_names(c.value_type).0.to_owned();
    for (side, samples, valued) in [
        (Side::Base, w.summary.base_samples, base_valued),
        (Side::New, w.summary.new_samples, new_valued),
    ] {
        if samples > 0 && valued == 0 {
            return Err(DiffError::MissingValueType {
                side,
                value_type: type_name(),
            });
        }
    }
    w.summary.base_total = w.base_leaf.iter().sum::<f64>() + w.base_empty;
    w.summary.new_total_raw = w.new_leaf.iter().sum::<f64>() + w.new_empty;
    w.summary.scale = scale_factor(
        c.normalization,
        w.summary.base_total,
        w.summary.new_total_raw,
    );
    Ok(w)
}

/// Adds `v` at stack node `node`, or to `empty` for a sample without frames.
fn add_at(leaf: &mut [f64], empty: &mut f64, node: Option<usize>, v: f64) {
    match node.and_then(|n| leaf.get_mut(n)) {
        Some(slot) => *slot += v,
        None => *empty += v,
    }
}

/// The factor that puts the comparison on the baseline's total (see the module docs).
pub fn scale_factor(normalization: Normalization, base_total: f64, new_total: f64) -> f64 {
    let ratio = base_total / new_total;
    let usable = base_total > 0.0 && new_total > 0.0 && ratio.is_finite() && ratio > 0.0;
    match normalization {
        Normalization::Scaled if usable => ratio,
        _ => 1.0,
    }
}

/// Totals of both selections and the scale, without per-function or per-node results.
pub fn diff_summary(p: &Profile, c: &Comparison) -> Result<DiffSummary, DiffError> {
    Ok(side_weights(p, c)?.summary)
}

// ---------------------------------------------------------------------------------------------
// Functions

/// One function's change. `new_*` values are scaled (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDiffRow {
    /// What the row stands for.
    pub key: FrameKey,
    /// Display name.
    pub name: String,
    /// Baseline value of samples whose innermost frame is this function.
    pub base_self: f64,
    /// Comparison value of samples whose innermost frame is this function.
    pub new_self: f64,
    /// Baseline value of samples with this function anywhere on the stack (once per sample).
    pub base_total: f64,
    /// Comparison value of samples with this function anywhere on the stack.
    pub new_total: f64,
}

impl FunctionDiffRow {
    /// Change of the self value: `new_self - base_self`.
    pub fn self_delta(&self) -> f64 {
        self.new_self - self.base_self
    }

    /// Change of the total value: `new_total - base_total`.
    pub fn total_delta(&self) -> f64 {
        self.new_total - self.base_total
    }

    /// [`Self::self_delta`] relative to the baseline self value; `None` when that is 0.
    pub fn self_relative(&self) -> Option<f64> {
        relative(self.self_delta(), self.base_self)
    }

    /// [`Self::total_delta`] relative to the baseline total value; `None` when that is 0.
    pub fn total_relative(&self) -> Option<f64> {
        relative(self.total_delta(), self.base_total)
    }
}

/// `delta / base`, `None` when `base` is 0.
pub fn relative(delta: f64, base: f64) -> Option<f64> {
    (base != 0.0).then(|| delta / base)
}

/// The function table of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDiff {
    /// Totals and scale.
    pub summary: DiffSummary,
    /// One row per function present in either selection, sorted by self change descending
    /// (largest regression first), then total change descending, then name.
    pub rows: Vec<FunctionDiffRow>,
}

/// Per function: both sides' self and total, for [`Comparison`] `c`.
pub fn diff_functions(p: &Profile, c: &Comparison) -> Result<FunctionDiff, DiffError> {
    let w = side_weights(p, c)?;
    let vt = c.value_type;
    let base = function_table_from_weights(p, vt, &w.base_leaf, w.base_empty);
    let new = function_table_from_weights(p, vt, &w.new_leaf, w.new_empty);
    let mut rows: Vec<FunctionDiffRow> = Vec::with_capacity(base.rows.len());
    let mut index: HashMap<FrameKey, usize> = HashMap::default();
    let blank = |r: &FunctionRow| FunctionDiffRow {
        key: r.key,
        name: r.name.clone(),
        base_self: 0.0,
        new_self: 0.0,
        base_total: 0.0,
        new_total: 0.0,
    };
    for r in &base.rows {
        index.insert(r.key, rows.len());
        rows.push(FunctionDiffRow {
            base_self: r.self_value,
            base_total: r.total_value,
            ..blank(r)
        });
    }
    let scale = w.summary.scale;
    for r in &new.rows {
        let i = *index.entry(r.key).or_insert_with(|| {
            rows.push(blank(r));
            rows.len() - 1
        });
        rows[i].new_self = r.self_value * scale;
        rows[i].new_total = r.total_value * scale;
    }
    sort_by_regression(&mut rows);
    Ok(FunctionDiff {
        summary: w.summary,
        rows,
    })
}

fn sort_by_regression(rows: &mut [FunctionDiffRow]) {
    rows.sort_by(|a, b| {
        heaviest_first(
            (a.self_delta(), a.total_delta()),
            (b.self_delta(), b.total_delta()),
        )
        .then_with(|| a.name.cmp(&b.name))
    });
}

// ---------------------------------------------------------------------------------------------
// Call tree

/// Frame ids of the diff tree: the viewer's own numbering ([`crate::analysis::frames::Frames`]).
pub use crate::analysis::frames::Frames as FrameIds;

/// The call tree of a comparison, struct-of-arrays: the input of a differential flame graph.
///
/// [`DiffTree::tree`] is a [`CallTree`] (reached through `Deref`: `t.parent`, `t.len()`,
/// `t.path(n)`) whose node [`ROOT`] stands for all samples of both selections: its self values
/// are the samples without frames. Every other node is a frame id called from its parent; two
/// call paths with the same frames are one node. Invariants: the call tree's (`parent[n] < n`);
/// every node but the root has a non-zero total on some side, or a descendant that has;
/// `base_total[n] = base_self[n] +` the sum of `base_total` over its children, and likewise for
/// `new_*`; every value column has one entry per node. `new_*` values are scaled.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffTree {
    /// Totals and scale.
    pub summary: DiffSummary,
    /// Parent, frame id and depth of every node.
    pub tree: CallTree,
    /// Baseline value of samples whose innermost frame is this node.
    pub base_self: Vec<f64>,
    /// Baseline value of the node's subtree.
    pub base_total: Vec<f64>,
    /// Comparison value of samples whose innermost frame is this node.
    pub new_self: Vec<f64>,
    /// Comparison value of the node's subtree.
    pub new_total: Vec<f64>,
    /// `new_total - base_total`.
    pub delta: Vec<f64>,
    /// Baseline samples whose innermost frame is this node, whatever their value (unscaled);
    /// a sample whose path no value reaches on either side counts at the nearest ancestor
    /// kept. The sum is [`DiffSummary::base_samples`].
    pub base_samples: Vec<f64>,
    /// As `base_samples`, for the comparison.
    pub new_samples: Vec<f64>,
}

impl Deref for DiffTree {
    type Target = CallTree;

    fn deref(&self) -> &CallTree {
        &self.tree
    }
}

/// The diff call tree of `c`, with frame ids of [`FrameIds::new`] (also returned, for names).
pub fn diff_tree(p: &Profile, c: &Comparison) -> Result<(DiffTree, FrameIds), DiffError> {
    let frames = FrameIds::new(p);
    let tree = diff_tree_with_frames(p, c, &frames.of_location)?;
    Ok((tree, frames))
}

/// The diff call tree of `c` with the caller's frame ids: `of_location[l]` is the frame id of
/// location row `l` (e.g. the viewer's `Frames::of_location`).
pub fn diff_tree_with_frames(
    p: &Profile,
    c: &Comparison,
    of_location: &[u32],
) -> Result<DiffTree, DiffError> {
    let locations = p.locations.line.len();
    if of_location.len() != locations {
        return Err(DiffError::FrameIdsLength {
            given: of_location.len(),
            locations,
        });
    }
    let w = side_weights(p, c)?;
    let (full, node_of_stack) = tree_by_location(p, of_location);
    let scale = w.summary.scale;
    let self_of = |leaf: &[f64], empty: f64, factor: f64| {
        let mut out = vec![0.0; full.len()];
        out[ROOT as usize] = empty * factor;
        for (s, &node) in node_of_stack.iter().enumerate() {
            out[node as usize] += leaf[s] * factor;
        }
        out
    };
    let base = Weights::from_self(&full, self_of(&w.base_leaf, w.base_empty, 1.0));
    let new = Weights::from_self(&full, self_of(&w.new_leaf, w.new_empty, scale));
    let n_stacks = node_of_stack.len();
    let count_of = |count: &[f64]| self_of(&count[..n_stacks], count[n_stacks], 1.0);
    let counts = [count_of(&w.base_count), count_of(&w.new_count)];
    Ok(prune(&full, &base, &new, w.summary, counts))
}

/// Per-node sample counts of the full tree moved to the pruned one: a dropped node's to its
/// nearest kept ancestor (`renumber` as [`CallTree::retain`] gives it; the root is kept).
fn kept_counts(full: &CallTree, renumber: &[u32], counts: &[f64], len: usize) -> Vec<f64> {
    let mut to = vec![0u32; renumber.len()];
    let mut out = vec![0.0; len];
    for n in 0..renumber.len() {
        to[n] = match renumber[n] {
            DROPPED => to[full.parent(n) as usize],
            r => r,
        };
        out[to[n] as usize] += counts[n];
    }
    out
}

/// The tree without nodes that carry nothing on either side (and have no descendant that
/// does), renumbered in the same order so `parent[n] < n` still holds.
fn prune(
    full: &CallTree,
    base: &Weights,
    new: &Weights,
    summary: DiffSummary,
    [base_count, new_count]: [Vec<f64>; 2],
) -> DiffTree {
    let nodes = base.total.len().min(new.total.len());
    let carries: Vec<bool> = (0..nodes)
        .map(|n| base.total.at(n) != 0.0 || new.total.at(n) != 0.0)
        .collect();
    let (tree, renumber) = full.retain(&carries);
    let base_samples = kept_counts(full, &renumber, &base_count, tree.len());
    let new_samples = kept_counts(full, &renumber, &new_count, tree.len());
    let kept = |column: &[f64]| -> Vec<f64> {
        column
            .iter()
            .zip(&renumber)
            .filter(|&(_, &to)| to != DROPPED)
            .map(|(&v, _)| v)
            .collect()
    };
    let (base_total, new_total) = (kept(&base.total.to_vec()), kept(&new.total.to_vec()));
    let delta = new_total
        .iter()
        .zip(&base_total)
        .map(|(n, b)| n - b)
        .collect();
    DiffTree {
        summary,
        tree,
        base_self: kept(&base.self_w.to_dense(full.len())),
        base_total,
        new_self: kept(&new.self_w.to_dense(full.len())),
        new_total,
        delta,
        base_samples,
        new_samples,
    }
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
