//! [`StackNodeIndex`]: finds a stack node by `(prefix, location)` while storing only the node's
//! row number. The key is read back from the [`StackTable`] itself, so the index costs about
//! 5 bytes per bucket instead of the 13 of a map holding keys and values; on a profile with
//! millions of distinct stack nodes that is hundreds of megabytes less.
//!
//! Hashing uses the standard library's randomly keyed SipHash, so crafted inputs cannot force
//! collisions.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::ids::{LocationIndex, StackIndex, NO_INDEX};
use super::profile::StackTable;

/// Index of the nodes of one [`StackTable`] by `(prefix, location)`. Invariant: every entry is
/// a row of that table, and no two entries have the same key.
#[derive(Default)]
pub struct StackNodeIndex {
    table: HashTable<u32>,
    hasher: RandomState,
}

impl StackNodeIndex {
    fn hash(&self, prefix: u32, location: LocationIndex) -> u64 {
        self.hasher.hash_one((prefix, location.0))
    }

    /// The key of row `node` (a row that is not in the table gets an impossible key).
    fn key_of(stacks: &StackTable, node: u32) -> (u32, LocationIndex) {
        let i = node as usize;
        match (stacks.prefix.get(i), stacks.location.get(i)) {
            (Some(&p), Some(&l)) => (p, l),
            _ => (NO_INDEX, LocationIndex(u32::MAX)),
        }
    }

    /// The node with this `prefix` (encoded, [`NO_INDEX`] for a root) and `location`.
    pub fn find(
        &self,
        stacks: &StackTable,
        prefix: u32,
        location: LocationIndex,
    ) -> Option<StackIndex> {
        let hash = self.hash(prefix, location);
        self.table
            .find(hash, |&n| Self::key_of(stacks, n) == (prefix, location))
            .map(|&n| StackIndex(n))
    }

    /// Adds row `node` of `stacks`, which must not be in the index yet under its key.
    pub fn insert(&mut self, stacks: &StackTable, node: StackIndex) {
        let (prefix, location) = Self::key_of(stacks, node.0);
        let hash = self.hash(prefix, location);
        let hasher = &self.hasher;
        self.table.insert_unique(hash, node.0, |&n| {
            let (p, l) = Self::key_of(stacks, n);
            hasher.hash_one((p, l.0))
        });
    }
}
