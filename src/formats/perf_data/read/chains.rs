//! The stack of each distinct raw callchain, computed once: a sample's frames depend only on
//! its process, the context of its first address, its IP, its callchain words and the mappings
//! in force, so a key of those words (with the mappings' generations, see
//! [`super::threads::Machine::generation`]) finds the stack of a chain seen before without
//! looking up any address again. Samples of one workload repeat few chains: this turns the
//! per-frame mapping and location lookups into one hash of the raw words per sample.
//!
//! Invariant: an entry's key holds every input of the frames it stands for; when the mappings
//! of a process (or the kernel's) change, its generation changes, so older entries no longer
//! match. The key words live in one arena, cleared (with the table) when it passes
//! [`MAX_ARENA_WORDS`].

use std::hash::BuildHasher as _;

use hashbrown::HashTable;

use crate::hash::BuildHasher;
use crate::model::StackIndex;

/// The most key words kept (8 bytes each): past it the cache starts again empty.
pub(super) const MAX_ARENA_WORDS: usize = 1 << 22;

/// One cached chain: its key's hash, its words in the arena and its stack.
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
    arena: Vec<u64>,
    hasher: BuildHasher,
    /// Scratch: the key of the sample being read.
    key: Vec<u64>,
}

impl ChainCache {
    /// Starts the key of a sample with `words` (process, generations, context, IP); the chain
    /// follows with [`Self::push`].
    pub fn begin(&mut self, words: &[u64]) {
        self.key.clear();
        self.key.extend_from_slice(words);
    }

    /// Appends one raw callchain word to the key.
    pub fn push(&mut self, word: u64) {
        self.key.push(word);
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
        if self.arena.len() + self.key.len() > MAX_ARENA_WORDS {
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
        c.begin(&[1, 2]);
        c.push(7);
        assert_eq!(c.get(), None);
        c.insert(Some(StackIndex(3)));
        c.begin(&[1, 2]);
        assert_eq!(c.get(), None, "a prefix is another key");
        c.push(7);
        assert_eq!(c.get(), Some(Some(StackIndex(3))));
        c.push(8);
        assert_eq!(c.get(), None);
        c.insert(None);
        assert_eq!(c.get(), Some(None));
    }
}
