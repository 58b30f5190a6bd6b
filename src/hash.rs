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
