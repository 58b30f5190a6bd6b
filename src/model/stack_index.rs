//! [`StackNodeIndex`]: finds a stack node by `(prefix, location)` while storing only the node's
//! row number and 32 bits of its hash. The key is read back from the [`StackTable`] itself, so
//! the index costs 9 bytes per bucket instead of the 13 of a map holding keys and values (on a
//! profile with millions of distinct stack nodes, hundreds of megabytes less), and growing it
//! needs neither the keys nor a new hash: the full hash is spread from the stored 32 bits.
//!
//! Hashing uses the crate's seeded hasher ([`crate::hash::BuildHasher`], foldhash), so crafted
//! inputs cannot force collisions.

use std::hash::BuildHasher as _;

use hashbrown::HashTable;

use super::ids::{LocationIndex, StackIndex, NO_INDEX};
use super::profile::StackTable;
use crate::hash::BuildHasher;

/// Index of the nodes of one [`StackTable`] by `(prefix, location)`. Invariant: every entry is
/// a row of that table, and no two entries have the same key.
#[derive(Default)]
pub struct StackNodeIndex {
    /// `(node row, low 32 bits of the key's hash)`.
    table: HashTable<(u32, u32)>,
    hasher: BuildHasher,
}

/// The table hash of a stored 32-bit hash: multiplied by an odd constant so the high bits
/// (which hashbrown uses as tags) depend on all 32 bits.
fn spread(h32: u32) -> u64 {
    u64::from(h32).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl StackNodeIndex {
    /// The stored 32-bit hash of a key.
    fn hash32(&self, prefix: u32, location: LocationIndex) -> u32 {
        self.hasher.hash_one((prefix, location.0)) as u32
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
        let h32 = self.hash32(prefix, location);
        self.table
            .find(spread(h32), |&(n, h)| {
                h == h32 && Self::key_of(stacks, n) == (prefix, location)
            })
            .map(|&(n, _)| StackIndex(n))
    }

    /// Adds row `node` of `stacks`, which must not be in the index yet under its key.
    pub fn insert(&mut self, stacks: &StackTable, node: StackIndex) {
        let (prefix, location) = Self::key_of(stacks, node.0);
        let h32 = self.hash32(prefix, location);
        self.table
            .insert_unique(spread(h32), (node.0, h32), |&(_, h)| spread(h));
    }
}
