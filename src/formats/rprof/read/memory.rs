//! Memory profiling: the `:small:large:nodes:dups:` prefix becomes four raw value types plus
//! two derived ones since the previous sample with memory in the same run: `memory_increase`,
//! the heap growth as `summaryRprof()` counts it, and `memory_freed`, the vector heap shrinkage
//! as profvis counts it.
//!
//! The raw totals are kept exactly so the writer can reproduce the prefix; the value types are
//! created at the first memory prefix, so a profile without memory has none of them.

use super::super::tokens::MemoryFields;
use super::super::*;
use super::Reader;
use crate::model::{SampleIndex, ValueTypeIndex};

/// The value types of memory profiling, created at the first memory prefix.
#[derive(Clone, Copy)]
pub(super) struct MemoryTypes {
    small: ValueTypeIndex,
    large: ValueTypeIndex,
    nodes: ValueTypeIndex,
    duplications: ValueTypeIndex,
    increase: ValueTypeIndex,
    freed: ValueTypeIndex,
}

impl<'a> Reader<'a> {
    pub(super) fn check_memory_announced(&mut self, has_prefix: bool, n: usize) {
        if has_prefix && !self.header.memory {
            self.warnings.add(FORMAT, "unannounced-memory", || {
                format!(
                    "line {n}: memory prefix although the header does not announce memory \
                     profiling; the values are kept"
                )
            });
        } else if !has_prefix && self.header.memory {
            self.warnings.add(FORMAT, "missing-memory", || {
                format!(
                    "line {n}: no memory prefix although the header announces memory \
                     profiling; the sample has no memory values"
                )
            });
        }
    }

    pub(super) fn set_memory(&mut self, s: SampleIndex, m: MemoryFields) {
        let t = match self.memory_types {
            Some(t) => t,
            None => {
                let mut vt = |(t, u): (&str, &str)| self.b.value_type(t, u);
                let t = MemoryTypes {
                    small: vt(TYPE_VSIZE_SMALL),
                    large: vt(TYPE_VSIZE_LARGE),
                    nodes: vt(TYPE_NODES),
                    duplications: vt(TYPE_DUPLICATIONS),
                    increase: vt(TYPE_MEMORY_INCREASE),
                    freed: vt(TYPE_MEMORY_FREED),
                };
                self.memory_types = Some(t);
                t
            }
        };
        let bytes = memory_bytes(&m);
        let (increase, freed) = match self.previous_memory {
            Some(p) => (
                increase(&bytes, &memory_bytes(&p)),
                freed(&bytes, &memory_bytes(&p)),
            ),
            None => (0.0, 0.0),
        };
        self.previous_memory = Some(m);
        let [small, large, nodes] = bytes;
        self.b.set_value(s, t.small, small);
        self.b.set_value(s, t.large, large);
        self.b.set_value(s, t.nodes, nodes);
        self.b.set_value(s, t.duplications, m.duplications as f64);
        self.b.set_value(s, t.increase, increase);
        self.b.set_value(s, t.freed, freed);
    }
}

/// `summaryRprof(memory = "both")`'s per-sample memory: Σ max(0, Δ) of the three byte totals.
fn increase(now: &[f64; 3], before: &[f64; 3]) -> f64 {
    now.iter()
        .zip(before)
        .map(|(now, then)| (now - then).max(0.0))
        .sum()
}

/// profvis's per-sample deallocation (`parse_rprof`'s `meminc` where it is negative), as a
/// positive byte count: max(0, −Δ(small + large vector bytes)). Nodes are left out, as
/// profvis leaves them out (they count the interpreter's own cons cells).
fn freed(now: &[f64; 3], before: &[f64; 3]) -> f64 {
    let vectors = |b: &[f64; 3]| b[0] + b[1];
    (vectors(before) - vectors(now)).max(0.0)
}

/// The three memory totals in bytes: small and large vector heaps (8-byte cells) and nodes.
fn memory_bytes(m: &MemoryFields) -> [f64; 3] {
    [
        m.small_vcells as f64 * 8.0,
        m.large_vcells as f64 * 8.0,
        m.node_bytes as f64,
    ]
}

#[cfg(test)]
mod tests {
    use crate::formats::rprof::read;
    use crate::formats::ReadOptions;

    /// Per-sample `memory_increase` and `memory_freed`, counted by hand from the prefixes.
    #[test]
    fn increase_and_freed_per_sample() {
        let text = concat!(
            "memory profiling: sample.interval=10000\n",
            ":10:20:300:0:\"a\" \n",
            // small −4 cells, large +1 cell, nodes +100 bytes: vectors −24 bytes.
            ":6:21:400:0:\"a\" \n",
            // small +1, large −3, nodes −50: vectors −16 bytes, nothing grows but small.
            ":7:18:350:0:\"a\" \n",
            "memory profiling: sample.interval=10000\n",
            ":1:1:1:0:\"a\" \n",
        );
        let p = read(text.as_bytes(), &ReadOptions::default())
            .unwrap()
            .profile;
        let column = |name: &str| -> Vec<f64> {
            let vt = p.value_type_index(name).unwrap();
            let c = p.value_column(vt).unwrap();
            (0..p.num_samples()).map(|s| c.get(s).unwrap()).collect()
        };
        assert_eq!(column("memory_increase"), [0.0, 8.0 + 100.0, 8.0, 0.0]);
        assert_eq!(column("memory_freed"), [0.0, 24.0, 16.0, 0.0]);
    }
}
