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

use std::hash::{BuildHasher as _, Hasher as _};

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
}

/// Most key words (process, generations, context, IP).
const MAX_WORDS: usize = 8;

/// The key of one sample: its words, then its callchain's bytes as recorded (borrowed from
/// the record: nothing is copied until the key is cached).
pub(super) struct Key<'c> {
    words: [u8; 8 * MAX_WORDS],
    words_len: usize,
    chain: &'c [u8],
    hash: u64,
}

impl Key<'_> {
    fn words(&self) -> &[u8] {
        &self.words[..self.words_len]
    }

    fn len(&self) -> usize {
        self.words_len + self.chain.len()
    }
}

impl ChainCache {
    /// The key of a sample: `words` (at most [`MAX_WORDS`]; process, generations, context,
    /// IP), then `chain` (the callchain's bytes as recorded).
    pub fn key<'c>(&self, words: &[u64], chain: &'c [u8]) -> Key<'c> {
        let mut bytes = [0u8; 8 * MAX_WORDS];
        let n = words.len().min(MAX_WORDS);
        for (w, out) in words[..n].iter().zip(bytes.chunks_exact_mut(8)) {
            out.copy_from_slice(&w.to_le_bytes());
        }
        let mut h = self.hasher.build_hasher();
        h.write(&bytes[..8 * n]);
        h.write(chain);
        Key {
            words: bytes,
            words_len: 8 * n,
            chain,
            hash: h.finish(),
        }
    }

    /// The stack cached for `key` (the outer `None` when not cached).
    pub fn get(&self, key: &Key<'_>) -> Option<Option<StackIndex>> {
        let arena = &self.arena;
        self.table
            .find(key.hash, |e| {
                e.hash == key.hash && e.len == key.len() && {
                    let (words, chain) = arena[e.start..e.start + e.len].split_at(key.words_len);
                    words == key.words() && chain == key.chain
                }
            })
            .map(|e| e.stack)
    }

    /// Caches `stack` for `key`.
    pub fn insert(&mut self, key: &Key<'_>, stack: Option<StackIndex>) {
        if self.arena.len() + key.len() > MAX_ARENA_BYTES {
            self.arena.clear();
            self.table.clear();
        }
        let start = self.arena.len();
        self.arena.extend_from_slice(key.words());
        self.arena.extend_from_slice(key.chain);
        let entry = Entry {
            hash: key.hash,
            start,
            len: key.len(),
            stack,
        };
        self.table.insert_unique(key.hash, entry, |e| e.hash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_finds_its_stack_and_only_its_own() {
        let mut c = ChainCache::default();
        let key = c.key(&[1, 2], &[7]);
        assert_eq!(c.get(&key), None);
        c.insert(&key, Some(StackIndex(3)));
        assert_eq!(c.get(&c.key(&[1, 2], &[])), None, "a prefix is another key");
        assert_eq!(c.get(&c.key(&[1], &[0, 0, 0, 0, 0, 0, 0, 2, 7])), None);
        assert_eq!(c.get(&c.key(&[1, 2], &[7])), Some(Some(StackIndex(3))));
        let other = c.key(&[1, 3], &[7]);
        assert_eq!(c.get(&other), None);
        c.insert(&other, None);
        assert_eq!(c.get(&c.key(&[1, 3], &[7])), Some(None));
    }
}
