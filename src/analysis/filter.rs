//! Which samples a view counts (sources, time range) and their weights on a call tree.

use crate::analysis::narrow_counts::NarrowCountsBuilder;
use crate::analysis::tree::{CallTree, NodeMap, Weights, DROPPED};
use crate::analysis::weights::ExactUnit;
use crate::model::{Profile, ValueTypeIndex, SAMPLE_TIME};

/// Selects samples by source and by time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SampleFilter {
    /// `sources[i]` says whether samples of source row `i` are kept; `None` keeps all.
    pub sources: Option<Vec<bool>>,
    /// Keeps samples whose `samples..time` lies in `[from, to)`; samples without a time are
    /// kept. `None` keeps all.
    pub time_range: Option<(f64, f64)>,
    /// `samples[i]` says whether sample row `i` is kept (a facet's value, see
    /// [`crate::analysis::facets`]); rows beyond its end are not. `None` keeps all.
    pub samples: Option<Vec<bool>>,
    /// `chosen[i]` says whether sample row `i` is kept: the samples a query chose (the
    /// viewer's SQL tab), on top of `samples`; rows beyond its end are not. `None` keeps all.
    pub chosen: Option<Vec<bool>>,
}

/// The mask of the samples whose logical ids (row + 1) are `ids`, over `n` samples; fails,
/// naming it, on an id that is no sample's.
pub fn mask_of_ids(ids: &[u32], n: usize) -> Result<Vec<bool>, String> {
    let mut mask = vec![false; n];
    for &id in ids {
        let slot = (id as usize)
            .checked_sub(1)
            .and_then(|row| mask.get_mut(row))
            .ok_or_else(|| format!("sample_id {id} is not a sample of this profile (1 to {n})"))?;
        *slot = true;
    }
    Ok(mask)
}

impl SampleFilter {
    /// True when the filter keeps everything.
    pub fn is_all(&self) -> bool {
        self.time_range.is_none()
            && self.samples.is_none()
            && self.chosen.is_none()
            && self
                .sources
                .as_ref()
                .is_none_or(|s| s.iter().all(|&keep| keep))
    }

    /// A predicate over sample rows of `p`.
    pub fn predicate<'a>(&'a self, p: &'a Profile) -> impl Fn(usize) -> bool + 'a {
        let times = p.samples.ext.dbl(SAMPLE_TIME);
        move |s: usize| {
            let src_ok = match &self.sources {
                None => true,
                Some(keep) => p
                    .samples
                    .source
                    .get(s)
                    .is_some_and(|src| keep.get(src.idx()).copied().unwrap_or(false)),
            };
            let time_ok = match (self.time_range, times.and_then(|t| t.get(s))) {
                (Some((from, to)), Some(&t)) if !t.is_nan() => t >= from && t < to,
                _ => true,
            };
            let in_mask = |mask: &Option<Vec<bool>>| {
                mask.as_ref()
                    .is_none_or(|keep| keep.get(s).copied().unwrap_or(false))
            };
            src_ok && time_ok && in_mask(&self.samples) && in_mask(&self.chosen)
        }
    }
}

/// The result of weighing samples onto a tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Weighed {
    /// Self and total per node.
    pub weights: Weights,
    /// Weight of the samples the filter kept, including those a transform dropped.
    pub kept_total: f64,
    /// Weight of kept samples that a transform removed (e.g. not through a focused function).
    pub dropped: f64,
}

/// Sums the value `vt` of every sample kept by `filter` onto its node of `tree` (through `map`).
pub fn weigh(
    p: &Profile,
    vt: ValueTypeIndex,
    filter: &SampleFilter,
    tree: &CallTree,
    map: &NodeMap,
) -> Weighed {
    let Some(col) = p.value_column(vt) else {
        return Weighed {
            weights: Weights::from_self(tree, vec![0.0; tree.len()]),
            ..Weighed::default()
        };
    };
    let keep = filter.predicate(p);
    let all = filter.is_all();
    // The kept samples with a value, and the tree node each lands on.
    let kept = || {
        let stacks = p.samples.stack.iter().enumerate();
        stacks
            .filter(|&(s, _)| all || keep(s))
            .filter_map(|(s, &stack)| Some((col.get(s)?, map.node_of_stack(stack))))
    };
    let mut exact = ExactUnit::default();
    kept().for_each(|(v, _)| exact.add(v));
    let (weights, dropped) = match exact.unit() {
        // Each value is a whole multiple of `unit`, and their sum fits: exact.
        Some(unit) if exact.narrow() => {
            let mut counts = NarrowCountsBuilder::new(tree.len());
            let dropped = sum_onto(kept(), |n, v| counts.add(n, (v / unit) as u32));
            (Weights::from_narrow(tree, counts, unit), dropped)
        }
        Some(unit) => {
            let mut counts = vec![0u32; tree.len()];
            let dropped = sum_onto(kept(), |n, v| {
                if let Some(c) = counts.get_mut(n) {
                    *c = c.saturating_add((v / unit) as u32);
                }
            });
            (Weights::from_counts(tree, counts, unit), dropped)
        }
        None => {
            let mut self_w = vec![0.0; tree.len()];
            let dropped = sum_onto(kept(), |n, v| {
                if let Some(s) = self_w.get_mut(n) {
                    *s += v;
                }
            });
            (Weights::from_self(tree, self_w), dropped)
        }
    };
    Weighed {
        kept_total: weights.grand_total() + dropped,
        weights,
        dropped,
    }
}

/// Calls `add(node, value)` for each kept `(value, node)`; returns the sum of the values of
/// samples a transform dropped (node [`DROPPED`]).
fn sum_onto(kept: impl Iterator<Item = (f64, u32)>, mut add: impl FnMut(usize, f64)) -> f64 {
    let mut dropped = 0.0;
    for (v, node) in kept {
        match node {
            DROPPED => dropped += v,
            n => add(n as usize, v),
        }
    }
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::frames::Frames;
    use crate::analysis::tree::{tree_from_stacks, Totals};
    use crate::model::{Cell, ProfileBuilder};

    #[test]
    fn filters_by_source_and_time() {
        let mut b = ProfileBuilder::new();
        let a = b.add_source("x", Some("a"), None);
        let c = b.add_source("x", Some("b"), None);
        let vt = b.value_type("samples", "count");
        let f = b.function_named("f", None);
        let l = b.location(Some(f), 0);
        let st = b.stack_leaf_first(&[l]);
        for (i, src) in [a, a, c].into_iter().enumerate() {
            let s = b.add_sample_with_values(src, st, &[(vt, 1.0 + i as f64)]);
            b.set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(i as f64));
        }
        let mut p = b.build().unwrap();
        let frames = Frames::new(&p);
        let (tree, map) = tree_from_stacks(&mut p, &frames);
        let vt = ValueTypeIndex(0);
        let all = weigh(&p, vt, &SampleFilter::default(), &tree, &map);
        assert_eq!(all.weights.grand_total(), 6.0);
        let only_b = SampleFilter {
            sources: Some(vec![false, true]),
            ..SampleFilter::default()
        };
        assert_eq!(weigh(&p, vt, &only_b, &tree, &map).kept_total, 3.0);
        let early = SampleFilter {
            time_range: Some((0.5, 2.0)),
            ..SampleFilter::default()
        };
        assert_eq!(weigh(&p, vt, &early, &tree, &map).kept_total, 2.0);
        let first_two = SampleFilter {
            samples: Some(vec![true, true]),
            ..SampleFilter::default()
        };
        let by_hand: f64 = (0..2).filter_map(|s| p.values[0].get(s)).sum();
        assert_eq!(weigh(&p, vt, &first_two, &tree, &map).kept_total, by_hand);
        // Chosen by id (samples 1 and 3), and by facet mask (the first two): sample 1 only.
        let chosen = SampleFilter {
            chosen: Some(mask_of_ids(&[3, 1], 3).unwrap()),
            ..first_two
        };
        assert_eq!(weigh(&p, vt, &chosen, &tree, &map).kept_total, 1.0);
        assert!(mask_of_ids(&[4], 3).unwrap_err().contains("sample_id 4"));
        assert!(mask_of_ids(&[0], 3).is_err());
    }

    /// Weighs samples with `values` on one stack each of two leaves under `main`; the
    /// totals of root, main and the two leaves.
    fn weighed(values: &[f64]) -> (Totals, f64) {
        let mut b = ProfileBuilder::new();
        let src = b.add_source("x", None, None);
        let vt = b.value_type("cpu", "nanoseconds");
        let [main, f, g] = ["main", "f", "g"].map(|n| b.function_named(n, None));
        let [lm, lf, lg] = [main, f, g].map(|fun| b.location(Some(fun), 0));
        let stacks = [b.stack_leaf_first(&[lf, lm]), b.stack_leaf_first(&[lg, lm])];
        for (i, &v) in values.iter().enumerate() {
            b.add_sample_with_values(src, stacks[i % 2], &[(vt, v)]);
        }
        let mut p = b.build().unwrap();
        let frames = Frames::new(&p);
        let (tree, map) = tree_from_stacks(&mut p, &frames);
        let w = weigh(&p, ValueTypeIndex(0), &SampleFilter::default(), &tree, &map);
        (w.weights.total, w.kept_total)
    }

    #[test]
    fn whole_multiples_of_a_period_weigh_as_counts_with_the_same_totals() {
        // Sampling periods of 10 ms in ns: counts of 1e7; 2.5e7 is not a multiple of
        // 2e7, so the unit is their divisor 5e6.
        // A few units a sample: two bytes a node.
        let (counts, kept) = weighed(&[1e7, 2e7, 2.5e7, 1e7]);
        assert!(matches!(counts, Totals::Narrow { unit, .. } if unit == 5e6));
        assert_eq!(
            (counts.to_vec(), kept),
            (vec![6.5e7, 6.5e7, 3.5e7, 3e7], 6.5e7)
        );
        // 301 units over two samples, more than 16 each on average: four bytes a node.
        let (counts, kept) = weighed(&[1e7, 3e9]);
        assert!(matches!(counts, Totals::Counts { unit, .. } if unit == 1e7));
        assert_eq!(
            (counts.to_vec(), kept),
            (vec![3.01e9, 3.01e9, 1e7, 3e9], 3.01e9)
        );
        // A fraction keeps the f64 column; the same sums either way.
        let (exact, _) = weighed(&[1e7, 2e7, 2.5e7, 1e7, 0.5]);
        assert!(matches!(exact, Totals::Exact(_)));
        assert_eq!(
            exact.to_vec(),
            vec![6.5e7 + 0.5, 6.5e7 + 0.5, 3.5e7 + 0.5, 3e7]
        );
    }
}
