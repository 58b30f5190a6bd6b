//! Weights of a call tree's nodes: self weights held sparsely, totals in the narrowest
//! column that holds them exactly.

use crate::analysis::narrow_counts::{NarrowCounts, NarrowCountsBuilder};
use crate::analysis::tree::{CallTree, DROPPED};
use crate::chunks::{in_chunks, in_chunks_rev};

/// Self weights of a tree's nodes, held sparsely: at most one node in a few has samples of its
/// own (synth-500k: 500k samples over 8 M nodes), so a dense column would be mostly zeros.
/// Invariant: `nodes` is strictly ascending and every value is non-zero (or NaN).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfWeights {
    nodes: Vec<u32>,
    values: Vec<f64>,
}

impl SelfWeights {
    /// The non-zero entries of a dense column (entry `n` is node `n`'s self weight).
    pub fn from_dense(dense: &[f64]) -> SelfWeights {
        SelfWeights::from_column(dense.len(), |n| dense[n])
    }

    /// The non-zero entries of a column of `len` nodes whose entry `n` is `value(n)`.
    fn from_column(len: usize, value: impl Fn(usize) -> f64) -> SelfWeights {
        let mut out = SelfWeights::default();
        in_chunks(0..len, |rows| {
            for n in rows {
                let v = value(n);
                if v != 0.0 {
                    out.nodes.push(n as u32);
                    out.values.push(v);
                }
            }
            true
        });
        out
    }

    /// The self weight of `node` (0 for a node without samples of its own).
    pub fn get(&self, node: u32) -> f64 {
        self.nodes
            .binary_search(&node)
            .map_or(0.0, |i| self.values[i])
    }

    /// The nodes with a self weight and their weights, in node order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.nodes.iter().copied().zip(self.values.iter().copied())
    }

    /// The nodes with a self weight, ascending.
    pub fn nodes(&self) -> &[u32] {
        &self.nodes
    }

    /// The weights as a dense column of `len` nodes (nodes at or past `len` left out).
    pub fn to_dense(&self, len: usize) -> Vec<f64> {
        let mut out = vec![0.0; len];
        for (n, v) in self.iter() {
            if let Some(slot) = out.get_mut(n as usize) {
                *slot = v;
            }
        }
        out
    }

    /// The weights moved to a transformed tree of `len` nodes, as [`moved_self`] does.
    pub fn moved(&self, map: &[u32], len: usize) -> Vec<f64> {
        add_moved(self.iter().map(|(n, v)| (n as usize, v)), map, len)
    }
}

/// Total weight per node of a tree, in the narrowest column that holds every total exactly.
#[derive(Clone, Debug)]
pub enum Totals {
    /// One `f64` a node.
    Exact(Vec<f64>),
    /// Node `n`'s total is `counts[n] × unit`: 4 bytes a node. Chosen by [`ExactUnit`] when
    /// every self weight is a non-negative whole multiple of `unit` whose sum fits a `u32`
    /// (a CPU profile's values are whole sampling periods), so that every total, as every
    /// partial sum of the `f64` column, is a whole number below 2⁵³: the two forms give the
    /// same `f64` for every node.
    Counts {
        /// The value one count stands for.
        unit: f64,
        /// Total of each node, in units.
        counts: Vec<u32>,
    },
    /// As `Counts`, in about 2 bytes a node ([`NarrowCounts`]): chosen when the samples
    /// weigh few units each ([`ExactUnit::narrow`]), so that few nodes count past two bytes.
    Narrow {
        /// The value one count stands for.
        unit: f64,
        /// Total of each node, in units.
        counts: NarrowCounts,
    },
}

impl Default for Totals {
    fn default() -> Self {
        Totals::Exact(Vec::new())
    }
}

impl PartialEq for Totals {
    /// Equal when every node has the same total, however held.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && (0..self.len()).all(|n| self.at(n) == other.at(n))
    }
}

impl Totals {
    /// The total of node `n` (0 for a node not in the tree).
    #[inline]
    pub fn at(&self, n: usize) -> f64 {
        match self {
            Totals::Exact(v) => v.get(n).copied().unwrap_or(0.0),
            Totals::Counts { unit, counts } => counts.get(n).map_or(0.0, |&c| f64::from(c) * unit),
            Totals::Narrow { unit, counts } => counts.get(n).map_or(0.0, |c| f64::from(c) * unit),
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        match self {
            Totals::Exact(v) => v.len(),
            Totals::Counts { counts, .. } => counts.len(),
            Totals::Narrow { counts, .. } => counts.len(),
        }
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every node's total as `f64` (a copy).
    pub fn to_vec(&self) -> Vec<f64> {
        (0..self.len()).map(|n| self.at(n)).collect()
    }
}

/// Finds whether the values summed onto a tree can be held as whole counts of one unit
/// ([`Totals::Counts`]): feed every value with [`ExactUnit::add`], then ask [`ExactUnit::unit`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ExactUnit {
    /// Greatest common divisor of the non-zero values so far (0 before the first).
    gcd: u64,
    /// Their sum (whole, and at most 2⁵³ unless `failed`).
    sum: u64,
    /// True once a value is negative, fractional or not finite, or the sum passes 2⁵³.
    failed: bool,
    /// Non-zero values added.
    values: u64,
}

/// Samples may weigh this many units on average for [`Totals::Narrow`]: a node's count is the
/// units of the samples through it, so on such a profile few nodes (those near the root)
/// count past two bytes.
const NARROW_UNITS_PER_VALUE: u64 = 16;

/// 2⁵³: whole numbers up to it are exact in `f64`.
const EXACT_INTEGERS: u64 = 1 << 53;

impl ExactUnit {
    /// Takes one value into account.
    #[inline]
    pub fn add(&mut self, v: f64) {
        if v == 0.0 || self.failed {
            return;
        }
        if !(v > 0.0 && v <= EXACT_INTEGERS as f64 && v.fract() == 0.0) {
            self.failed = true;
            return;
        }
        let whole = v as u64;
        self.sum += whole;
        self.values += 1;
        self.failed = self.sum > EXACT_INTEGERS;
        if self.gcd == 0 || whole % self.gcd != 0 {
            self.gcd = gcd(self.gcd, whole);
        }
    }

    /// The unit of [`Totals::Counts`] for the values added, when they allow one.
    pub fn unit(&self) -> Option<f64> {
        let unit = self.gcd.max(1);
        (!self.failed && self.sum / unit <= u64::from(u32::MAX)).then_some(unit as f64)
    }

    /// True when the values allow a unit and weigh at most 16 units each on average (a CPU
    /// profile's samples, one or a few sampling periods each): their totals are held as
    /// [`Totals::Narrow`].
    pub fn narrow(&self) -> bool {
        let units = self.sum / self.gcd.max(1);
        self.unit().is_some() && units <= NARROW_UNITS_PER_VALUE.saturating_mul(self.values)
    }
}

/// Euclid's greatest common divisor (`gcd(0, b) = b`).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Self and total weight per node of a tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Weights {
    /// Weight of samples whose innermost frame is the node (the root: samples without frames).
    pub self_w: SelfWeights,
    /// Weight of the node's whole subtree.
    pub total: Totals,
}

impl Weights {
    /// Totals from a dense column of self weights by one backward pass (children have larger
    /// indices), summed in place: the column becomes the totals, its non-zero entries are
    /// kept as [`SelfWeights`].
    pub fn from_self(tree: &CallTree, self_w: Vec<f64>) -> Weights {
        let sparse = SelfWeights::from_dense(&self_w);
        let mut total = self_w;
        sum_into_parents(tree, total.len(), |n, p| {
            let t = total[n];
            if let Some(slot) = total.get_mut(p) {
                *slot += t;
            }
        });
        Weights {
            self_w: sparse,
            total: Totals::Exact(total),
        }
    }

    /// As [`Weights::from_self`], from self weights given as whole counts of `unit` (whose
    /// sum, as [`ExactUnit::unit`] checked, fits a `u32`): the totals stay counts.
    pub fn from_counts(tree: &CallTree, self_counts: Vec<u32>, unit: f64) -> Weights {
        let sparse =
            SelfWeights::from_column(self_counts.len(), |n| f64::from(self_counts[n]) * unit);
        let mut counts = self_counts;
        // The caller checked the grand total fits: no sum saturates.
        sum_into_parents(tree, counts.len(), |n, p| {
            let t = counts[n];
            if let Some(slot) = counts.get_mut(p) {
                *slot = slot.saturating_add(t);
            }
        });
        Weights {
            self_w: sparse,
            total: Totals::Counts { unit, counts },
        }
    }

    /// As [`Weights::from_counts`], from self counts held narrow: the totals are
    /// [`Totals::Narrow`].
    pub fn from_narrow(tree: &CallTree, self_counts: NarrowCountsBuilder, unit: f64) -> Weights {
        let len = self_counts.len();
        let sparse = SelfWeights::from_column(len, |n| f64::from(self_counts.get(n)) * unit);
        let mut counts = self_counts;
        sum_into_parents(tree, len, |n, p| {
            let t = counts.get(n);
            counts.add(p, t);
        });
        Weights {
            self_w: sparse,
            total: Totals::Narrow {
                unit,
                counts: counts.finish(),
            },
        }
    }

    /// The self weight of `node`.
    pub fn self_of(&self, node: u32) -> f64 {
        self.self_w.get(node)
    }

    /// The weight of everything in the tree.
    pub fn grand_total(&self) -> f64 {
        self.total.at(0)
    }
}

/// Calls `add_to_parent(node, parent)` for every node but the root of a column of `len`
/// nodes, children first (one backward pass: children have larger indices), so that adding a
/// node's entry into its parent's turns self values into totals.
fn sum_into_parents(tree: &CallTree, len: usize, mut add_to_parent: impl FnMut(usize, usize)) {
    in_chunks_rev(1..tree.len().min(len), |rows| {
        for (n, p) in rows.clone().rev().zip(tree.parents(rows).rev()) {
            add_to_parent(n, p as usize);
        }
        true
    });
}

/// Self values moved to a transformed tree of `len` nodes: each old node's value added at its
/// new node `map[old]`; the values of nodes mapped to [`DROPPED`] are left out.
pub fn moved_self(self_values: &[f64], map: &[u32], len: usize) -> Vec<f64> {
    add_moved(self_values.iter().copied().enumerate(), map, len)
}

/// Each `(old node, value)` added at `map[old]` of a column of `len` nodes; nodes mapped to
/// [`DROPPED`], past the map or past `len` are left out.
fn add_moved(values: impl Iterator<Item = (usize, f64)>, map: &[u32], len: usize) -> Vec<f64> {
    let mut out = vec![0.0; len];
    for (old, v) in values {
        let to = map.get(old).copied().unwrap_or(DROPPED);
        if let Some(slot) = out.get_mut(to as usize).filter(|_| to != DROPPED) {
            *slot += v;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tree::{TreeBuilder, ROOT};

    fn unit_of(values: &[f64]) -> Option<f64> {
        let mut u = ExactUnit::default();
        values.iter().for_each(|&v| u.add(v));
        u.unit()
    }

    #[test]
    fn a_unit_only_for_whole_non_negative_values_whose_sum_fits() {
        assert_eq!(unit_of(&[1e7, 3e7, 0.0, 2e7]), Some(1e7));
        assert_eq!(unit_of(&[6.0, 10.0, 15.0]), Some(1.0));
        assert_eq!(unit_of(&[]), Some(1.0));
        assert_eq!(unit_of(&[4.0, 2.5]), None);
        assert_eq!(unit_of(&[4.0, -2.0]), None);
        assert_eq!(unit_of(&[f64::NAN]), None);
        assert_eq!(unit_of(&[f64::INFINITY]), None);
        // The sum in units passes u32::MAX, or reaches it.
        assert_eq!(unit_of(&[4294967295.0, 1.0]), None);
        assert_eq!(unit_of(&[4294967294.0, 1.0]), Some(1.0));
        // Past 2^53 a whole f64 is no longer exact.
        assert_eq!(unit_of(&[2f64.powi(53), 2f64.powi(53)]), None);
        // A large unit lets a large sum fit.
        assert_eq!(unit_of(&[3e15, 3e15]), Some(3e15));
    }

    #[test]
    fn narrow_when_the_values_weigh_at_most_16_units_on_average() {
        let narrow = |values: &[f64]| {
            let mut u = ExactUnit::default();
            values.iter().for_each(|&v| u.add(v));
            u.narrow()
        };
        assert!(narrow(&[1e7, 2e7, 0.0, 1e7]));
        // 1 + 31 units over two values: 16 each; 1 + 32: more.
        assert!(narrow(&[1e7, 3.1e8]));
        assert!(!narrow(&[1e7, 3.2e8]));
        assert!(!narrow(&[4.0, 2.5]));
        assert!(narrow(&[]));
    }

    #[test]
    fn counts_give_what_the_f64_column_gives() {
        let mut b = TreeBuilder::new();
        let a = b.child(ROOT, 0);
        let c = b.child(a, 1);
        let d = b.child(ROOT, 2);
        b.child(c, 3);
        let tree = b.finish();
        let unit = 1e7;
        let counts = vec![1, 0, 3, 2, 0];
        let dense: Vec<f64> = counts.iter().map(|&c| f64::from(c) * unit).collect();
        let exact = Weights::from_self(&tree, dense);
        let mut narrow = NarrowCountsBuilder::new(counts.len());
        counts
            .iter()
            .enumerate()
            .for_each(|(n, &c)| narrow.add(n, c));
        let narrow = Weights::from_narrow(&tree, narrow, unit);
        let scaled = Weights::from_counts(&tree, counts, unit);
        assert!(matches!(scaled.total, Totals::Counts { .. }));
        assert!(matches!(narrow.total, Totals::Narrow { .. }));
        assert_eq!(scaled, exact);
        assert_eq!(narrow, exact);
        assert_eq!(scaled.total.to_vec(), vec![6e7, 3e7, 3e7, 2e7, 0.0]);
        assert_eq!((scaled.self_of(d), scaled.grand_total()), (2e7, 6e7));
        assert_eq!((scaled.total.at(99), scaled.total.len()), (0.0, 5));
        assert_eq!((narrow.total.at(99), narrow.total.len()), (0.0, 5));
    }
}
