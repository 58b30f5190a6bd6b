//! The function table: self and total per function for one value type, like
//! `go tool pprof -top` and `summaryRprof()`.
//!
//! Rows are keyed by function *name*, as both judges do: `go tool pprof` aggregates at function
//! granularity without file names, and `summaryRprof` keys by the frame's name. A location without
//! a function is its own row, named by its address when it has one. Total counts a name once per
//! sample even when it recurs in the stack.

use std::cmp::Ordering;

use crate::hash::HashMap;
use crate::model::{decode_opt, LocationIndex, Profile, StackIndex, StringId, ValueTypeIndex};

/// What a row of the function table stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FrameKey {
    /// Every function with this name.
    Name(StringId),
    /// A location without a function.
    Location(LocationIndex),
}

/// One row.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionRow {
    /// What the row stands for.
    pub key: FrameKey,
    /// Display name.
    pub name: String,
    /// Value of samples whose innermost frame is this row.
    pub self_value: f64,
    /// Value of samples with this row anywhere in the stack (once per sample).
    pub total_value: f64,
}

/// The whole table for one value type.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionTable {
    /// The value type aggregated.
    pub value_type: ValueTypeIndex,
    /// Sum of the value over all samples.
    pub total: f64,
    /// Rows sorted by self descending, then total descending, then name.
    pub rows: Vec<FunctionRow>,
}

/// The row key of a location.
pub fn frame_key(p: &Profile, loc: LocationIndex) -> FrameKey {
    match p.location_function(loc) {
        Some(f) => FrameKey::Name(p.functions.name[f.idx()]),
        None => FrameKey::Location(loc),
    }
}

/// Sums the value of each sample onto its stack node; `leaf_weight[s]` is the value of
/// samples whose innermost node is `s`, and `empty` the value of samples without frames.
/// `keep` selects samples (all when `None`).
pub fn weights_by_stack(
    p: &Profile,
    vt: ValueTypeIndex,
    keep: Option<&dyn Fn(usize) -> bool>,
) -> (Vec<f64>, f64) {
    let mut leaf_weight = vec![0.0; p.stacks.prefix.len()];
    let mut empty = 0.0;
    let Some(col) = p.value_column(vt) else {
        return (leaf_weight, empty);
    };
    for (s, &stack) in p.samples.stack.iter().enumerate() {
        if keep.is_some_and(|k| !k(s)) {
            continue;
        }
        let Some(v) = col.get(s) else { continue };
        match decode_opt(stack) {
            Some(node) => leaf_weight[node as usize] += v,
            None => empty += v,
        }
    }
    (leaf_weight, empty)
}

/// Computes the function table of `vt` over the samples selected by `keep`.
pub fn function_table(
    p: &Profile,
    vt: ValueTypeIndex,
    keep: Option<&dyn Fn(usize) -> bool>,
) -> FunctionTable {
    let (leaf_weight, empty) = weights_by_stack(p, vt, keep);
    function_table_from_weights(p, vt, &leaf_weight, empty)
}

/// Computes the function table from weights already summed per stack node, as
/// [`weights_by_stack`] returns them: `leaf_weight[s]` is the value of samples whose innermost
/// node is `s` (missing entries count 0), `empty` the value of samples without frames. `vt` is
/// only recorded in the result.
pub fn function_table_from_weights(
    p: &Profile,
    vt: ValueTypeIndex,
    leaf_weight: &[f64],
    empty: f64,
) -> FunctionTable {
    let keys: Vec<FrameKey> = (0..p.locations.line.len())
        .map(|l| frame_key(p, LocationIndex(l as u32)))
        .collect();
    let mut index: HashMap<FrameKey, usize> = HashMap::default();
    let mut rows: Vec<FunctionRow> = Vec::new();
    let mut last_seen: Vec<usize> = Vec::new();
    for (node, &w) in leaf_weight.iter().enumerate() {
        if w == 0.0 {
            continue;
        }
        let frames = p.frames_leaf_first(Some(StackIndex(node as u32)));
        for (depth, loc) in frames.enumerate() {
            let key = keys[loc.idx()];
            let row = *index.entry(key).or_insert_with(|| {
                rows.push(FunctionRow {
                    key,
                    name: p.frame_display_name(loc),
                    self_value: 0.0,
                    total_value: 0.0,
                });
                last_seen.push(usize::MAX);
                rows.len() - 1
            });
            if depth == 0 {
                rows[row].self_value += w;
            }
            if last_seen[row] != node {
                last_seen[row] = node;
                rows[row].total_value += w;
            }
        }
    }
    let total = leaf_weight.iter().sum::<f64>() + empty;
    sort_rows(&mut rows);
    FunctionTable {
        value_type: vt,
        total,
        rows,
    }
}

fn sort_rows(rows: &mut [FunctionRow]) {
    rows.sort_by(|a, b| {
        heaviest_first((a.self_value, a.total_value), (b.self_value, b.total_value))
            .then_with(|| a.name.cmp(&b.name))
    });
}

/// The order of every table's rows before its own tie-breaks: by `(self, total)`, largest
/// self first, then largest total.
pub(crate) fn heaviest_first(a: (f64, f64), b: (f64, f64)) -> Ordering {
    b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fixtures::paths_profile;

    /// a -> b -> a (leaf a), weight 2; a -> b (leaf b), weight 3; no frames, weight 1.
    fn recursive_profile() -> Profile {
        paths_profile(
            &["run"],
            &[
                (0, &["a", "b", "a"], 2.0),
                (0, &["a", "b"], 3.0),
                (0, &[], 1.0),
            ],
        )
    }

    #[test]
    fn recursion_counts_once_in_total() {
        let p = recursive_profile();
        let t = function_table(&p, ValueTypeIndex(0), None);
        assert_eq!(t.total, 6.0);
        let a = t.rows.iter().find(|r| r.name == "a").unwrap();
        let b = t.rows.iter().find(|r| r.name == "b").unwrap();
        assert_eq!((a.self_value, a.total_value), (2.0, 5.0));
        assert_eq!((b.self_value, b.total_value), (3.0, 5.0));
        assert_eq!(t.rows[0].name, "b");
    }

    #[test]
    fn filter_selects_samples() {
        let p = recursive_profile();
        let t = function_table(&p, ValueTypeIndex(0), Some(&|s| s == 1));
        assert_eq!(t.total, 3.0);
        assert_eq!(t.rows.len(), 2);
    }
}
