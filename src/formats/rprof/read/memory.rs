//! Memory profiling: the `:small:large:nodes:dups:` prefix becomes four raw value types plus
//! `memory_increase`, the heap growth since the previous sample with memory in the same run.
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
                };
                self.memory_types = Some(t);
                t
            }
        };
        let bytes = memory_bytes(&m);
        let increase = match self.previous_memory {
            Some(p) => {
                let before = memory_bytes(&p);
                bytes
                    .iter()
                    .zip(before)
                    .map(|(now, then)| (now - then).max(0.0))
                    .sum::<f64>()
            }
            None => 0.0,
        };
        self.previous_memory = Some(m);
        let [small, large, nodes] = bytes;
        self.b.set_value(s, t.small, small);
        self.b.set_value(s, t.large, large);
        self.b.set_value(s, t.nodes, nodes);
        self.b.set_value(s, t.duplications, m.duplications as f64);
        self.b.set_value(s, t.increase, increase);
    }
}

/// The three memory totals in bytes: small and large vector heaps (8-byte cells) and nodes.
fn memory_bytes(m: &MemoryFields) -> [f64; 3] {
    [
        m.small_vcells as f64 * 8.0,
        m.large_vcells as f64 * 8.0,
        m.node_bytes as f64,
    ]
}
