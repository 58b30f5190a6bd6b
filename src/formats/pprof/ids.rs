//! Maps from pprof ids to row numbers.

use crate::hash::HashMap;

/// Maps pprof ids (nonzero `u64`s) to row numbers: a flat vector when the ids are dense, as
/// they are in files written by Go and pprof, else a hash map.
pub(super) enum IdMap {
    Dense(Vec<u32>),
    Sparse(HashMap<u64, u32>),
}

/// Largest id kept in a dense map, relative to the number of ids.
const DENSE_SLACK: u64 = 1024;

impl IdMap {
    /// An empty map sized for `ids` (the ids it will hold).
    pub(super) fn for_ids(ids: impl Iterator<Item = u64>, count: usize) -> Self {
        let max = ids.max().unwrap_or(0);
        let dense_limit = (count as u64).saturating_mul(4).saturating_add(DENSE_SLACK);
        match usize::try_from(max) {
            Ok(m) if max <= dense_limit => IdMap::Dense(vec![u32::MAX; m.saturating_add(1)]),
            _ => IdMap::Sparse(HashMap::with_capacity_and_hasher(count, Default::default())),
        }
    }

    /// Records `id → row`; false when `id` is already present.
    pub(super) fn insert(&mut self, id: u64, row: u32) -> bool {
        match self {
            IdMap::Dense(v) => match usize::try_from(id).ok().and_then(|i| v.get_mut(i)) {
                Some(slot) if *slot == u32::MAX => {
                    *slot = row;
                    true
                }
                _ => false,
            },
            IdMap::Sparse(m) => m.insert(id, row).is_none(),
        }
    }

    #[inline]
    pub(super) fn get(&self, id: u64) -> Option<u32> {
        match self {
            IdMap::Dense(v) => usize::try_from(id)
                .ok()
                .and_then(|i| v.get(i).copied())
                .filter(|&r| r != u32::MAX),
            IdMap::Sparse(m) => m.get(&id).copied(),
        }
    }
}
