//! The stack of each distinct raw callchain, computed once: a sample's frames depend only on
//! its process, the context of its first address, its IP, its callchain words and the mappings
//! in force, so a key of those (the callchain as its raw bytes in the record, with the
//! mappings' generations, see [`super::threads::Machine::generation`]) finds the stack of a
//! chain seen before without looking up any address again. Samples of one workload repeat few
//! chains: this turns the per-frame mapping and location lookups into one hash per sample.
//!
//! Invariant: an entry's key holds every input of the frames it stands for; when the mappings
//! of a process (or the kernel's) change, its generation changes, so older entries no longer
//! match. The keys live in one arena, cleared (with the table) when it passes
//! [`MAX_ARENA_BYTES`].

use std::hash::BuildHasher as _;

use hashbrown::HashTable;

use crate::hash::BuildHasher;
use crate::model::StackIndex;

/// The most key bytes kept: past it the cache starts again empty.
pub(super) const MAX_ARENA_BYTES: usize = 1 << 25;

/// One cached chain: its key's hash, its bytes in the arena and its stack.
struct Entry {
    hash: u64,
    start: usize,
    len: usize,
    stack: Option<StackIndex>,
}

/// The stacks of the callchains seen so far.
#[derive(Default)]
pub(super) struct ChainCache {
    table: HashTable<Entry>,
    arena: Vec<u8>,
    hasher: BuildHasher,
    /// Scratch: the key of the sample being read.
    key: Vec<u8>,
}

impl ChainCache {
    /// Sets the key of a sample: `words` (process, generations, context, IP), then `chain`
    /// (the callchain's bytes as recorded).
    pub fn set_key(&mut self, words: &[u64], chain: &[u8]) {
        self.key.clear();
        for w in words {
            self.key.extend_from_slice(&w.to_le_bytes());
        }
        self.key.extend_from_slice(chain);
    }

    /// The stack cached for the current key (the outer `None` when not cached).
    pub fn get(&self) -> Option<Option<StackIndex>> {
        let hash = self.hasher.hash_one(&self.key[..]);
        let arena = &self.arena;
        self.table
            .find(hash, |e| {
                e.hash == hash && arena[e.start..e.start + e.len] == self.key[..]
            })
            .map(|e| e.stack)
    }

    /// Caches `stack` for the current key.
    pub fn insert(&mut self, stack: Option<StackIndex>) {
        if self.arena.len() + self.key.len() > MAX_ARENA_BYTES {
            self.arena.clear();
            self.table.clear();
        }
        let hash = self.hasher.hash_one(&self.key[..]);
        let start = self.arena.len();
        self.arena.extend_from_slice(&self.key);
        let entry = Entry {
            hash,
            start,
            len: self.key.len(),
            stack,
        };
        self.table.insert_unique(hash, entry, |e| e.hash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_finds_its_stack_and_only_its_own() {
        let mut c = ChainCache::default();
        c.set_key(&[1, 2], &[7]);
        assert_eq!(c.get(), None);
        c.insert(Some(StackIndex(3)));
        c.set_key(&[1, 2], &[]);
        assert_eq!(c.get(), None, "a prefix is another key");
        c.set_key(&[1, 2], &[7]);
        assert_eq!(c.get(), Some(Some(StackIndex(3))));
        c.set_key(&[1, 3], &[7]);
        assert_eq!(c.get(), None);
        c.insert(None);
        assert_eq!(c.get(), Some(None));
    }
}
