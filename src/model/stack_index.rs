//! [`StackNodeIndex`]: finds a stack node by `(prefix, location)` while storing only the node's
//! row number and 32 bits of its hash ([`RowIndex`]): the key is read back from the
//! [`StackTable`] itself.

use super::ids::{LocationIndex, StackIndex, NO_INDEX};
use super::profile::StackTable;
use crate::hash::RowIndex;

/// Index of the nodes of one [`StackTable`] by `(prefix, location)`. Invariant: every entry is
/// a row of that table, and no two entries have the same key.
#[derive(Default)]
pub struct StackNodeIndex {
    rows: RowIndex,
}

impl StackNodeIndex {
    /// The key of row `node` (a row that is not in the table gets an impossible key).
    fn key_of(stacks: &StackTable, node: u32) -> (u32, u32) {
        let i = node as usize;
        match (stacks.prefix.get(i), stacks.location.get(i)) {
            (Some(p), Some(l)) => (p, l.0),
            _ => (NO_INDEX, u32::MAX),
        }
    }

    /// The node with this `prefix` (encoded, [`NO_INDEX`] for a root) and `location`.
    pub fn find(
        &self,
        stacks: &StackTable,
        prefix: u32,
        location: LocationIndex,
    ) -> Option<StackIndex> {
        self.rows
            .find((prefix, location.0), |n| Self::key_of(stacks, n))
            .map(StackIndex)
    }

    /// Adds row `node` of `stacks`, which must not be in the index yet under its key.
    pub fn insert(&mut self, stacks: &StackTable, node: StackIndex) {
        self.rows.insert(node.0, Self::key_of(stacks, node.0));
    }
}
