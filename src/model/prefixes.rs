//! [`Prefixes`]: the stack table's `prefix` column, held in about a bit a node.
//!
//! Readers number a chain of new frames one after another, so most nodes' prefix is the node
//! just before them (synth-500k: all but 437,547 of its 8,135,254 nodes). Such a node costs
//! one flag; only the others (roots, and nodes whose caller came earlier) have their prefix
//! listed, found by the count of listed nodes before them. synth-500k: 3.1 MiB instead of the
//! 31 MiB of a `u32` a node (`examples/pprof_memory`).

use std::fmt;
use std::ops::Range;

use super::ids::NO_INDEX;
use super::shared::Shared;
use crate::chunks::cut_to;

/// The prefix of each stack node ([`NO_INDEX`] for a root), appended one node or one chain at
/// a time and read by node or in order. Invariants: bit `i` of `follows` is set exactly when
/// node `i ≥ 1` has prefix `i - 1`; `listed` holds the prefixes of the other nodes in node
/// order; `listed_before[w]` is the number of those in the nodes of `follows[..w]`;
/// `follows.len() == len.div_ceil(64)` and the bits past `len` are clear. The form is thus
/// canonical: equal columns are equal field by field.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Prefixes {
    follows: Shared<u64>,
    listed_before: Shared<u32>,
    listed: Shared<u32>,
    len: usize,
}

impl Prefixes {
    /// Number of nodes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The prefix of node `i` (`None` past the end).
    #[inline]
    pub fn get(&self, i: usize) -> Option<u32> {
        if i >= self.len {
            return None;
        }
        if flag(&self.follows, i) {
            return Some((i - 1) as u32);
        }
        self.listed.get(self.listed_before_node(i)).copied()
    }

    /// The prefix of node `i`, or [`NO_INDEX`] past the end (as for a root).
    #[inline]
    pub fn at(&self, i: usize) -> u32 {
        self.get(i).unwrap_or(NO_INDEX)
    }

    /// Whether node `i` has prefix `i - 1` (false past the end and for node 0): a test of one
    /// bit.
    #[inline]
    pub fn follows_previous(&self, i: usize) -> bool {
        i < self.len && flag(&self.follows, i)
    }

    /// Appends a node with prefix `p`.
    #[inline]
    pub fn push(&mut self, p: u32) {
        let i = self.len;
        self.open_word_at(i);
        if i > 0 && p as usize == i - 1 {
            if let Some(w) = self.follows.last_mut() {
                *w |= 1 << (i % 64);
            }
        } else {
            self.listed.push(p);
        }
        self.len += 1;
    }

    /// Appends `n` nodes, each the child of the node before it: the first's prefix is the
    /// current last node ([`NO_INDEX`] when there is none, making it a root).
    pub fn push_chain(&mut self, n: usize) {
        let mut left = n;
        if left > 0 && self.len == 0 {
            self.push(NO_INDEX);
            left -= 1;
        }
        while left > 0 {
            let i = self.len;
            self.open_word_at(i);
            let (bit, take) = (i % 64, left.min(64 - i % 64));
            let ones = if take == 64 {
                u64::MAX
            } else {
                (1u64 << take) - 1
            };
            if let Some(w) = self.follows.last_mut() {
                *w |= ones << bit;
            }
            self.len += take;
            left -= take;
        }
    }

    /// Starts a word of flags when node `i` (the next) is the first of one.
    #[inline]
    fn open_word_at(&mut self, i: usize) {
        if i % 64 == 0 {
            self.follows.push(0);
            self.listed_before.push(self.listed.len() as u32);
        }
    }

    /// Room for `more` nodes beyond those there are, in the flags (the listed prefixes grow
    /// as they come). Fails as `Vec::try_reserve_exact` does.
    pub fn try_reserve_exact(
        &mut self,
        more: usize,
    ) -> Result<(), std::collections::TryReserveError> {
        let words = (self.len + more)
            .div_ceil(64)
            .saturating_sub(self.follows.len());
        self.follows.try_reserve_exact(words)?;
        self.listed_before.try_reserve_exact(words)
    }

    /// Bytes of memory the column holds (its length, not its capacity): 1/8 + 1/16 bytes a
    /// node, and 4 bytes a listed node.
    pub fn bytes(&self) -> usize {
        self.follows.len() * 8 + self.listed_before.len() * 4 + self.listed.len() * 4
    }

    /// The number of nodes whose prefix is listed (not the node before them).
    pub fn listed_len(&self) -> usize {
        self.listed.len()
    }

    /// The prefixes of all nodes, in order.
    pub fn iter(&self) -> Iter<'_> {
        self.range(0..self.len)
    }

    /// The prefixes of nodes `rows` (cut to the column), in order.
    pub fn range(&self, rows: Range<usize>) -> Iter<'_> {
        let Range { start: at, end } = cut_to(rows, self.len);
        Iter {
            follows: &self.follows,
            listed: &self.listed,
            at,
            end,
            listed_at: self.listed_before_node(at),
            listed_end: self.listed_before_node(end),
        }
    }

    /// The number of listed nodes before node `i` (`i ≤ len`): the count before its word and
    /// the clear flags before it in the word.
    #[inline]
    fn listed_before_node(&self, i: usize) -> usize {
        let (w, bit) = (i / 64, i % 64);
        match (self.listed_before.get(w), self.follows.get(w)) {
            (Some(&before), Some(&word)) => {
                before as usize + (!word & ((1u64 << bit) - 1)).count_ones() as usize
            }
            _ => self.listed.len(),
        }
    }

    /// Another handle to the same rows, without a copy (see [`Shared::share`]).
    pub fn share(&mut self) -> Prefixes {
        Prefixes {
            follows: self.follows.share(),
            listed_before: self.listed_before.share(),
            listed: self.listed.share(),
            len: self.len,
        }
    }

    /// Whether `other` holds these very rows (a handle from [`Self::share`]), not a copy.
    #[cfg(test)]
    pub(crate) fn same_rows(&self, other: &Prefixes) -> bool {
        self.len == other.len && self.follows.as_ptr() == other.follows.as_ptr()
    }

    /// The column as one `u32` a node (a copy).
    pub fn to_vec(&self) -> Vec<u32> {
        self.iter().collect()
    }
}

/// Flag `i` of `words` (false past them).
#[inline]
fn flag(words: &[u64], i: usize) -> bool {
    words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// The prefixes of a range of nodes, in order ([`Prefixes::range`]). It holds the rows as
/// slices, so that a pass over millions of nodes looks at how they are held once.
pub struct Iter<'a> {
    follows: &'a [u64],
    listed: &'a [u32],
    at: usize,
    end: usize,
    /// Row of `listed` of the next listed node from the front.
    listed_at: usize,
    /// One past the row of `listed` of the next listed node from the back.
    listed_end: usize,
}

impl Iterator for Iter<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        let i = self.at;
        if i >= self.end {
            return None;
        }
        self.at += 1;
        if flag(self.follows, i) {
            return Some((i - 1) as u32);
        }
        let p = self.listed.get(self.listed_at).copied();
        self.listed_at += 1;
        Some(p.unwrap_or(NO_INDEX))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.at;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<u32> {
        if self.end <= self.at {
            return None;
        }
        self.end -= 1;
        let i = self.end;
        if flag(self.follows, i) {
            return Some((i - 1) as u32);
        }
        self.listed_end = self.listed_end.saturating_sub(1);
        Some(
            self.listed
                .get(self.listed_end)
                .copied()
                .unwrap_or(NO_INDEX),
        )
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Prefixes {
    type Item = u32;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl Extend<u32> for Prefixes {
    fn extend<I: IntoIterator<Item = u32>>(&mut self, prefixes: I) {
        for p in prefixes {
            self.push(p);
        }
    }
}

impl FromIterator<u32> for Prefixes {
    fn from_iter<I: IntoIterator<Item = u32>>(prefixes: I) -> Self {
        let mut column = Prefixes::default();
        column.extend(prefixes);
        column
    }
}

impl From<Vec<u32>> for Prefixes {
    fn from(prefixes: Vec<u32>) -> Self {
        prefixes.into_iter().collect()
    }
}

impl fmt::Debug for Prefixes {
    /// As the list of prefixes it holds.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64: deterministic test input.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// A random column of `n` nodes, pushed one by one and in chains, beside the same
    /// prefixes as plain numbers.
    fn random_column(n: usize, seed: u64) -> (Prefixes, Vec<u32>) {
        let (mut column, mut plain) = (Prefixes::default(), Vec::new());
        let mut rng = seed;
        while plain.len() < n {
            let i = plain.len();
            match next(&mut rng) % 4 {
                0 => {
                    let run = 1 + (next(&mut rng) % 150) as usize;
                    column.push_chain(run);
                    for k in i..i + run {
                        plain.push(k.checked_sub(1).map_or(NO_INDEX, |p| p as u32));
                    }
                }
                1 => {
                    column.push(NO_INDEX);
                    plain.push(NO_INDEX);
                }
                _ => {
                    let p = if i == 0 {
                        NO_INDEX
                    } else {
                        (next(&mut rng) % i as u64) as u32
                    };
                    column.push(p);
                    plain.push(p);
                }
            }
        }
        (column, plain)
    }

    #[test]
    fn reads_back_what_was_pushed_by_node_and_in_order() {
        for seed in 1..40u64 {
            let (column, plain) = random_column(200 + seed as usize * 37, seed);
            assert_eq!(column.len(), plain.len());
            for (i, &p) in plain.iter().enumerate() {
                assert_eq!(column.get(i), Some(p), "seed {seed}, node {i}");
                assert_eq!(column.follows_previous(i), i > 0 && p as usize == i - 1);
            }
            assert_eq!(column.get(plain.len()), None);
            assert_eq!(column.at(plain.len()), NO_INDEX);
            assert_eq!(column.to_vec(), plain, "seed {seed}");
            for (a, b) in [(0, 0), (1, 64), (63, 65), (64, 128), (100, plain.len() + 9)] {
                let want: Vec<u32> = plain
                    .get(a.min(plain.len())..b.min(plain.len()))
                    .unwrap_or_default()
                    .to_vec();
                assert_eq!(
                    column.range(a..b).collect::<Vec<_>>(),
                    want,
                    "range {a}..{b}"
                );
                let back: Vec<u32> = column.range(a..b).rev().collect();
                assert_eq!(
                    back,
                    want.iter().rev().copied().collect::<Vec<_>>(),
                    "{a}..{b} back"
                );
                // From both ends at once: every node given once, in its place.
                let mut both = column.range(a..b);
                let (mut front, mut rear) = (Vec::new(), Vec::new());
                while let Some(p) = both.next() {
                    front.push(p);
                    rear.extend(both.next_back());
                }
                front.extend(rear.into_iter().rev());
                assert_eq!(front, want, "{a}..{b} from both ends");
            }
            let listed = plain
                .iter()
                .enumerate()
                .filter(|&(i, &p)| i == 0 || p as usize != i - 1);
            assert_eq!(column.listed_len(), listed.count());
        }
    }

    #[test]
    fn the_form_is_canonical() {
        let (column, plain) = random_column(1000, 7);
        let rebuilt: Prefixes = plain.iter().copied().collect();
        assert_eq!(rebuilt, column);
        assert_eq!(format!("{rebuilt:?}"), format!("{plain:?}"));
        let mut other = plain.clone();
        other[500] = NO_INDEX;
        assert_ne!(Prefixes::from(other), column);
    }

    #[test]
    fn a_chain_on_an_empty_column_begins_with_a_root() {
        let mut column = Prefixes::default();
        column.push_chain(3);
        assert_eq!(column.to_vec(), vec![NO_INDEX, 0, 1]);
        column.push_chain(0);
        assert_eq!(column.len(), 3);
    }

    #[test]
    fn a_shared_column_is_copied_on_write() {
        let (mut column, plain) = random_column(300, 3);
        let lent = column.share();
        column.push(5);
        assert_eq!(lent.to_vec(), plain);
        assert_eq!(column.len(), plain.len() + 1);
    }

    #[test]
    fn chains_cost_a_bit_a_node() {
        let mut column = Prefixes::default();
        column.push(NO_INDEX);
        column.push_chain(64 * 1000 - 1);
        assert_eq!(column.listed_len(), 1);
        assert_eq!(column.bytes(), 1000 * 12 + 4);
    }
}
