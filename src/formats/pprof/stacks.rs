//! Interning of stack nodes for the reader, in a compact open-addressing table.
//!
//! A node is identified by `(prefix, location)`. The table stores only node indices (4 bytes
//! a slot) and compares keys against the profile's own stack table, so a profile with millions
//! of distinct call paths costs about 5–10 bytes a node here instead of the ~25 of a
//! `HashMap<(u32, u32), u32>`, and hashing is one multiply-xorshift round instead of SipHash.

use crate::model::{encode_opt, LocationIndex, ProfileBuilder, StackIndex, StackTable, NO_INDEX};

/// Slots of a new table (a power of two).
const INITIAL_SLOTS: usize = 1024;

/// Open-addressing (linear probing) set of stack nodes; `NO_INDEX` marks an empty slot.
/// Invariant: `slots.len()` is a power of two and at most 3/4 of the slots are full.
#[derive(Default)]
pub(super) struct NodeTable {
    slots: Vec<u32>,
    len: usize,
}

/// splitmix64's finalizer: a bijection on `u64`, so distinct keys never share a full hash.
fn mix(key: u64) -> u64 {
    let mut z = key.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn key(prefix: u32, location: LocationIndex) -> u64 {
    (u64::from(prefix) << 32) | u64::from(location.0)
}

fn node_key(stacks: &StackTable, node: u32) -> Option<u64> {
    let i = node as usize;
    Some(key(*stacks.prefix.get(i)?, *stacks.location.get(i)?))
}

impl NodeTable {
    /// The node `(prefix, location)`, appended to the builder's stack table when new.
    pub(super) fn intern(
        &mut self,
        b: &mut ProfileBuilder,
        prefix: Option<StackIndex>,
        location: LocationIndex,
    ) -> StackIndex {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow(&b.profile().stacks);
        }
        let wanted = key(encode_opt(prefix.map(|p| p.0)), location);
        let mask = self.slots.len() - 1;
        let mut i = mix(wanted) as usize & mask;
        while let Some(&node) = self.slots.get(i).filter(|&&n| n != NO_INDEX) {
            if node_key(&b.profile().stacks, node) == Some(wanted) {
                return StackIndex(node);
            }
            i = (i + 1) & mask;
        }
        let node = b.push_stack_node(prefix, location);
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = node.0;
            self.len += 1;
        }
        node
    }

    /// Doubles the slots (or allocates the first ones) and re-inserts every node.
    fn grow(&mut self, stacks: &StackTable) {
        let size = (self.slots.len() * 2).max(INITIAL_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![NO_INDEX; size]);
        let mask = size - 1;
        for node in old.into_iter().filter(|&n| n != NO_INDEX) {
            let Some(k) = node_key(stacks, node) else {
                continue;
            };
            let mut i = mix(k) as usize & mask;
            while self.slots.get(i).is_some_and(|&n| n != NO_INDEX) {
                i = (i + 1) & mask;
            }
            if let Some(slot) = self.slots.get_mut(i) {
                *slot = node;
            }
        }
    }
}
