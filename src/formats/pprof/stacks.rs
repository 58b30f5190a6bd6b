//! Interning of stack nodes for the reader: `(prefix, location)` → node.
//!
//! Most nodes are never hashed. A node created right after its prefix (node `n` with prefix
//! `n - 1`: every node of a chain of new frames) is found by reading row `prefix + 1` of the
//! stack table ([`first_child`]); only the other nodes (roots and the first new frame of a
//! sample whose prefix already had children) go into an open-addressing table, whose slots hold
//! the key beside the node (12 bytes), so a probe never reads the stack table and growing needs
//! no read-back. Once a walk creates a node, its later steps cannot exist yet (the node has no
//! children): the reader pushes them as one run without looking ([`NodeTable::made_in_walk`]).
//! On a depth-first ordered profile (sorted collapsed stacks, most generators) the table then
//! holds about one node per sample, not one per frame: it stays in cache, and the profile's
//! millions of nodes cost no index memory.

use crate::model::{encode_opt, LocationIndex, ProfileBuilder, StackIndex, StackTable};

/// Slots of a new table (a power of two).
const INITIAL_SLOTS: usize = 1024;

/// One slot: a node's key and its index; `node == EMPTY` when free.
#[derive(Clone, Copy)]
struct Slot {
    prefix: u32,
    location: u32,
    node: u32,
}

/// The `node` of a free slot (never a node index: the stack table has fewer rows).
const EMPTY: u32 = u32::MAX;

const FREE: Slot = Slot {
    prefix: 0,
    location: 0,
    node: EMPTY,
};

/// Open-addressing (linear probing) map `(prefix, location)` → node. Invariants:
/// `slots.len()` is a power of two and at most 3/4 of the slots are full; node `n` is in the
/// slots exactly when it is a root or its prefix is not `n - 1` (a node right after its prefix
/// is found by [`first_child`]). While the reader walks samples, only this table and the
/// reader's runs of new nodes (each below the node made last) push stack nodes.
#[derive(Default)]
pub(super) struct NodeTable {
    slots: Vec<Slot>,
    len: usize,
    /// Whether the current walk has created a node.
    made_in_walk: bool,
}

/// splitmix64's finalizer: a bijection on `u64`, so distinct keys never share a full hash.
fn mix(key: u64) -> u64 {
    let mut z = key.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn hash(prefix: u32, location: u32) -> usize {
    mix((u64::from(prefix) << 32) | u64::from(location)) as usize
}

impl NodeTable {
    /// The node `(prefix, location)`, appended to the builder's stack table when new. A walk
    /// ends with [`Self::end_walk`] before the next one starts.
    #[inline]
    pub(super) fn intern(
        &mut self,
        b: &mut ProfileBuilder,
        prefix: Option<StackIndex>,
        location: LocationIndex,
    ) -> StackIndex {
        if let Some(p) = prefix {
            if let Some(child) = first_child(&b.profile().stacks, p, location) {
                return child;
            }
        }
        let p = encode_opt(prefix.map(|p| p.0));
        self.reserve();
        let i = self.probe(p, location.0);
        if let Some(s) = self.slots.get(i).filter(|s| s.node != EMPTY) {
            return StackIndex(s.node);
        }
        let node = b.push_stack_node(prefix, location);
        if prefix.is_none() || p != node.0.wrapping_sub(1) {
            if let Some(free) = self.slots.get_mut(i) {
                *free = Slot {
                    prefix: p,
                    location: location.0,
                    node: node.0,
                };
                self.len += 1;
            }
        }
        self.made_in_walk = true;
        node
    }

    /// Whether the current walk has made a node: its later steps are all new (the node has
    /// no children), so a reader may push them as a run
    /// ([`ProfileBuilder::push_stack_run`]) instead of interning each.
    pub(super) fn made_in_walk(&self) -> bool {
        self.made_in_walk
    }

    /// Ends a walk (one sample's stack).
    pub(super) fn end_walk(&mut self) {
        self.made_in_walk = false;
    }

    /// The slot holding `(prefix, location)`, or the free slot where it belongs.
    fn probe(&self, prefix: u32, location: u32) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = hash(prefix, location) & mask;
        while let Some(s) = self.slots.get(i) {
            if s.node == EMPTY || (s.prefix == prefix && s.location == location) {
                break;
            }
            i = (i + 1) & mask;
        }
        i
    }

    /// Grows the table so that one more node keeps it at most 3/4 full.
    fn reserve(&mut self) {
        if (self.len + 1) * 4 <= self.slots.len() * 3 {
            return;
        }
        let size = (self.slots.len() * 2).max(INITIAL_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![FREE; size]);
        let mask = size - 1;
        for s in old.into_iter().filter(|s| s.node != EMPTY) {
            place(&mut self.slots, mask, s);
        }
    }
}

/// Node `p + 1` when it is `(p, location)`: the child created right after its parent, which
/// the table does not hold.
fn first_child(stacks: &StackTable, p: StackIndex, location: LocationIndex) -> Option<StackIndex> {
    let next = p.0.checked_add(1)?;
    let i = next as usize;
    (stacks.prefix.follows_previous(i) && stacks.location.get(i) == Some(location))
        .then_some(StackIndex(next))
}

/// Puts `s` into the first free slot of its probe sequence (its key is not in the table).
fn place(slots: &mut [Slot], mask: usize, s: Slot) {
    let mut i = hash(s.prefix, s.location) & mask;
    while slots.get(i).is_some_and(|t| t.node != EMPTY) {
        i = (i + 1) & mask;
    }
    if let Some(free) = slots.get_mut(i) {
        *free = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// xorshift64: deterministic test input.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// The locations of `node`'s stack, root first.
    fn path_of(stacks: &StackTable, node: StackIndex) -> Vec<u32> {
        let mut out = Vec::new();
        let mut n = node.0;
        while n != u32::MAX {
            out.push(stacks.location.at(n as usize).0);
            n = stacks.prefix.at(n as usize);
        }
        out.reverse();
        out
    }

    /// Stacks in random order (with repeats, shared prefixes, recursion) and in depth-first
    /// order: equal stacks get one node, every node is unique, and each node spells its stack.
    #[test]
    fn interning_is_exact_in_any_order() {
        let mut rng = 0x1234_5678_9abc_def1_u64;
        let mut stacks: Vec<Vec<u32>> = (0..3000)
            .map(|_| {
                let depth = 1 + (next(&mut rng) % 9) as usize;
                (0..depth).map(|_| (next(&mut rng) % 4) as u32).collect()
            })
            .collect();
        let mut sorted = stacks.clone();
        sorted.sort();
        stacks.extend(sorted);
        let mut b = ProfileBuilder::new();
        let mut table = NodeTable::default();
        let mut seen: HashMap<Vec<u32>, StackIndex> = HashMap::new();
        for s in &stacks {
            let mut node = None;
            for &loc in s {
                node = Some(table.intern(&mut b, node, LocationIndex(loc)));
            }
            table.end_walk();
            let node = node.expect("non-empty stack");
            assert_eq!(*seen.entry(s.clone()).or_insert(node), node, "{s:?}");
            assert_eq!(&path_of(&b.profile().stacks, node), s);
        }
        let st = &b.profile().stacks;
        let mut keys: Vec<(u32, u32)> = st
            .prefix
            .iter()
            .zip(&st.location)
            .map(|(p, l)| (p, l.0))
            .collect();
        let n = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), n, "a (prefix, location) key was pushed twice");
    }
}
