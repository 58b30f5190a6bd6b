//! Maps from pprof ids to row numbers.

use std::collections::hash_map::Entry;

use crate::hash::HashMap;

/// Maps pprof ids (nonzero `u64`s) to what the reader made of them (row numbers, or a
/// location's rows): a flat vector when the ids are dense, as they are in files written by Go
/// and pprof, else a hash map.
pub(super) enum IdMap<V> {
    Dense(Vec<Option<V>>),
    Sparse(HashMap<u64, V>),
}

/// Largest id kept in a dense map, relative to the number of ids.
const DENSE_SLACK: u64 = 1024;

impl<V: Copy> IdMap<V> {
    /// An empty map sized for `ids` (the ids it will hold).
    pub(super) fn for_ids(ids: impl Iterator<Item = u64>, count: usize) -> Self {
        let max = ids.max().unwrap_or(0);
        let dense_limit = (count as u64).saturating_mul(4).saturating_add(DENSE_SLACK);
        match usize::try_from(max) {
            Ok(m) if max <= dense_limit => IdMap::Dense(vec![None; m.saturating_add(1)]),
            _ => IdMap::Sparse(HashMap::with_capacity_and_hasher(count, Default::default())),
        }
    }

    /// Records `id → value`; false, keeping the value held, when `id` is already present.
    pub(super) fn insert(&mut self, id: u64, value: V) -> bool {
        match self {
            IdMap::Dense(v) => match usize::try_from(id).ok().and_then(|i| v.get_mut(i)) {
                Some(slot @ None) => {
                    *slot = Some(value);
                    true
                }
                _ => false,
            },
            IdMap::Sparse(m) => match m.entry(id) {
                Entry::Vacant(slot) => {
                    slot.insert(value);
                    true
                }
                Entry::Occupied(_) => false,
            },
        }
    }

    #[inline]
    pub(super) fn get(&self, id: u64) -> Option<V> {
        match self {
            IdMap::Dense(v) => usize::try_from(id)
                .ok()
                .and_then(|i| v.get(i).copied().flatten()),
            IdMap::Sparse(m) => m.get(&id).copied(),
        }
    }

    /// Every value held, in no particular order.
    pub(super) fn values(&self) -> impl Iterator<Item = V> + '_ {
        let (dense, sparse) = match self {
            IdMap::Dense(v) => (&v[..], None),
            IdMap::Sparse(m) => (&[][..], Some(m)),
        };
        let sparse = sparse.into_iter().flat_map(|m| m.values());
        dense.iter().flatten().chain(sparse).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_maps_answer_alike() {
        let ids = [3u64, 1, 7];
        let sparse_ids = [3u64, 1, 1 << 40];
        for (ids, dense) in [(ids, true), (sparse_ids, false)] {
            let mut m: IdMap<u32> = IdMap::for_ids(ids.iter().copied(), ids.len());
            assert_eq!(matches!(m, IdMap::Dense(_)), dense);
            for (row, &id) in ids.iter().enumerate() {
                assert!(m.insert(id, row as u32 * 10));
            }
            assert!(!m.insert(ids[0], 99), "a repeated id is refused");
            assert_eq!(ids.map(|id| m.get(id)), [Some(0), Some(10), Some(20)]);
            assert_eq!((m.get(2), m.get(u64::MAX)), (None, None));
            let mut values: Vec<u32> = m.values().collect();
            values.sort_unstable();
            assert_eq!(values, [0, 10, 20]);
        }
    }
}
