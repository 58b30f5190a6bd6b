//! The crate's hash maps and sets: std's containers with foldhash's fast hasher.
//!
//! Profiles are hashed by function names, file names, stack keys and ids taken from untrusted
//! files, millions of times per parse. SipHash (std's default) is several times slower on such
//! short keys; a fixed-seed hash such as FxHash is fast but lets a crafted file pick colliding
//! names. foldhash's `fast::RandomState` is both fast and seeded per map. Iteration order is
//! therefore not stable between runs: code whose output depends on order sorts first.

/// A `HashMap` with the crate's hasher; build with `HashMap::default()` or
/// `HashMap::with_capacity_and_hasher(n, Default::default())`.
pub type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A `HashSet` with the crate's hasher; build with `HashSet::default()`.
pub type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// The hasher state, for `hashbrown` tables and `with_hasher` constructors.
pub type BuildHasher = foldhash::fast::RandomState;

/// An index of table rows by a two-`u32` key that stores only each row's number and 32 bits of
/// its key's hash: the key is read back from the table itself (a closure gives the key of a
/// row), so the index costs 9 bytes a bucket instead of the 13 of a map holding keys and
/// values (on millions of rows, tens of megabytes less), and growing it needs neither the keys
/// nor a new hash: the full hash is spread from the stored 32 bits. Seeded
/// ([`BuildHasher`]), so crafted inputs cannot force collisions. Invariant: no two entries
/// have the same key.
#[derive(Default)]
pub struct RowIndex {
    /// `(row, low 32 bits of the key's hash)`.
    table: hashbrown::HashTable<(u32, u32)>,
    hasher: BuildHasher,
}

/// The table hash of a stored 32-bit hash: multiplied by an odd constant so the high bits
/// (which hashbrown uses as tags) depend on all 32 bits.
fn spread(h32: u32) -> u64 {
    u64::from(h32).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl RowIndex {
    /// The stored 32-bit hash of a key.
    fn hash32(&self, key: (u32, u32)) -> u32 {
        use std::hash::BuildHasher as _;
        self.hasher.hash_one(key) as u32
    }

    /// The row whose key is `key`; `key_of` gives the key of a row of the table.
    pub fn find(&self, key: (u32, u32), key_of: impl Fn(u32) -> (u32, u32)) -> Option<u32> {
        let h32 = self.hash32(key);
        self.table
            .find(spread(h32), |&(row, h)| h == h32 && key_of(row) == key)
            .map(|&(row, _)| row)
    }

    /// Adds `row` under `key`, which no row of the index has yet.
    pub fn insert(&mut self, row: u32, key: (u32, u32)) {
        let h32 = self.hash32(key);
        self.table
            .insert_unique(spread(h32), (row, h32), |&(_, h)| spread(h));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_found_by_the_key_read_back_from_the_table() {
        // A table of 10,000 rows, keyed by (row / 100, row % 100), indexed in reverse order.
        let keys: Vec<(u32, u32)> = (0..10_000).map(|r| (r / 100, r % 100)).collect();
        let key_of = |r: u32| keys[r as usize];
        let mut index = RowIndex::default();
        for r in (0..10_000).rev() {
            assert_eq!(index.find(keys[r as usize], key_of), None);
            index.insert(r, keys[r as usize]);
        }
        assert!((0..10_000).all(|r| index.find(keys[r as usize], key_of) == Some(r)));
        assert_eq!(index.find((100, 0), key_of), None);
    }
}
