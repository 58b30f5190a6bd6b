//! Interning of stack nodes for the reader, in a compact open-addressing table.
//!
//! A node is identified by `(prefix, location)`. A slot holds the node index and 32 bits of
//! its key's hash (8 bytes), and full keys are compared against the profile's own stack table
//! only when those bits match, so probing rarely touches memory outside the slot array. A
//! profile with millions of distinct call paths costs 11–21 bytes a node here instead of the
//! ~35 of a `HashMap<(u32, u32), u32>`, and hashing is one splitmix round instead of SipHash.

use crate::model::{encode_opt, LocationIndex, ProfileBuilder, StackIndex, StackTable};

/// Slots of a new table (a power of two).
const INITIAL_SLOTS: usize = 1024;

/// Open-addressing (linear probing) set of stack nodes: each slot is `hash_high << 32 | node`,
/// [`EMPTY`] when free. Invariant: `slots.len()` is a power of two and at most 3/4 of the slots
/// are full.
#[derive(Default)]
pub(super) struct NodeTable {
    slots: Vec<u64>,
    len: usize,
}

/// A free slot.
const EMPTY: u64 = u64::MAX;

fn slot(hash: u64, node: u32) -> u64 {
    (hash & 0xffff_ffff_0000_0000) | u64::from(node)
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
        let hash = mix(wanted);
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        while let Some(&s) = self.slots.get(i).filter(|&&s| s != EMPTY) {
            let node = s as u32; // the low half is the node
            if s >> 32 == hash >> 32 && node_key(&b.profile().stacks, node) == Some(wanted) {
                return StackIndex(node);
            }
            i = (i + 1) & mask;
        }
        let node = b.push_stack_node(prefix, location);
        if let Some(free) = self.slots.get_mut(i) {
            *free = slot(hash, node.0);
            self.len += 1;
        }
        node
    }

    /// Doubles the slots (or allocates the first ones) and re-inserts every node.
    fn grow(&mut self, stacks: &StackTable) {
        let size = (self.slots.len() * 2).max(INITIAL_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; size]);
        let mask = size - 1;
        for s in old.into_iter().filter(|&s| s != EMPTY) {
            let Some(k) = node_key(stacks, s as u32) else {
                continue;
            };
            let hash = mix(k);
            let mut i = hash as usize & mask;
            while self.slots.get(i).is_some_and(|&n| n != EMPTY) {
                i = (i + 1) & mask;
            }
            if let Some(free) = self.slots.get_mut(i) {
                *free = s;
            }
        }
    }
}
