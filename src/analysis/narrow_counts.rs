//! Whole counts per tree node in two bytes each: the totals of a CPU profile's call tree,
//! where most of the nodes are deep in one stack or a few and count a handful of samples,
//! and only the nodes near the root count tens of thousands. A count of [`WIDE`] or more is
//! held apart, by node. synth-500k: 8.1 M nodes, 15.5 MiB where `u32` counts took 31.
//!
//! Invariant: `counts[n]` is node `n`'s count when below [`WIDE`]; when it is [`WIDE`], the
//! count (at least [`WIDE`]) is the one `large` holds for `n`, and `large` holds no other node.

use crate::hash::HashMap;

/// The mark of a count held apart.
const WIDE: u16 = u16::MAX;

/// Counts per node, built by [`NarrowCountsBuilder`]; see the module doc.
#[derive(Clone, Debug, Default)]
pub struct NarrowCounts {
    counts: Vec<u16>,
    /// The counts of [`WIDE`] or more, sorted by node.
    large: Vec<(u32, u32)>,
}

impl NarrowCounts {
    /// Node `n`'s count; `None` past the last node.
    #[inline]
    pub fn get(&self, n: usize) -> Option<u32> {
        let c = *self.counts.get(n)?;
        if c != WIDE {
            return Some(u32::from(c));
        }
        let at = self
            .large
            .binary_search_by_key(&(n as u32), |&(node, _)| node);
        Some(at.map_or(0, |i| self.large[i].1))
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Nodes whose count is held apart.
    #[cfg(test)]
    fn large_len(&self) -> usize {
        self.large.len()
    }
}

/// [`NarrowCounts`] being summed: counts are added to nodes in any order.
pub struct NarrowCountsBuilder {
    counts: Vec<u16>,
    large: HashMap<u32, u32>,
}

impl NarrowCountsBuilder {
    /// `len` nodes counting 0.
    pub fn new(len: usize) -> Self {
        NarrowCountsBuilder {
            counts: vec![0; len],
            large: HashMap::default(),
        }
    }

    /// Adds `c` to node `n`'s count (saturating at `u32::MAX`); nothing past the last node.
    #[inline]
    pub fn add(&mut self, n: usize, c: u32) {
        let Some(slot) = self.counts.get_mut(n) else {
            return;
        };
        if *slot != WIDE {
            let sum = u32::from(*slot).saturating_add(c);
            match u16::try_from(sum) {
                Ok(narrow) if narrow != WIDE => *slot = narrow,
                _ => {
                    *slot = WIDE;
                    self.large.insert(n as u32, sum);
                }
            }
        } else if let Some(large) = self.large.get_mut(&(n as u32)) {
            *large = large.saturating_add(c);
        }
    }

    /// Node `n`'s count (0 past the last node).
    #[inline]
    pub fn get(&self, n: usize) -> u32 {
        match self.counts.get(n) {
            Some(&WIDE) => self.large.get(&(n as u32)).copied().unwrap_or(0),
            Some(&c) => u32::from(c),
            None => 0,
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The counts, for reading.
    pub fn finish(self) -> NarrowCounts {
        let mut large: Vec<(u32, u32)> = self.large.into_iter().collect();
        large.sort_unstable();
        NarrowCounts {
            counts: self.counts,
            large,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_below_and_past_two_bytes_read_back_as_added() {
        let mut x = 0x2545_f491_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let len = 1000;
        let mut b = NarrowCountsBuilder::new(len);
        let mut want = vec![0u32; len];
        for _ in 0..30_000 {
            let n = (next() % len as u64) as usize;
            // Mostly small counts, some large, so that many nodes cross u16::MAX.
            let c = match next() % 10 {
                0 => (next() % 40_000) as u32,
                _ => (next() % 5) as u32,
            };
            b.add(n, c);
            want[n] += c;
            assert_eq!(b.get(n), want[n]);
        }
        let counts = b.finish();
        assert!(
            counts.large_len() > 100 && counts.large_len() < len,
            "{}",
            counts.large_len()
        );
        for (n, &w) in want.iter().enumerate() {
            assert_eq!(counts.get(n), Some(w), "node {n}");
        }
        assert_eq!((counts.get(len), counts.len()), (None, len));
    }

    #[test]
    fn the_edges_of_two_bytes_and_of_four() {
        let mut b = NarrowCountsBuilder::new(4);
        b.add(0, u32::from(WIDE) - 1); // the largest count held in two bytes
        b.add(1, u32::from(WIDE)); // the smallest held apart
        b.add(2, u32::MAX);
        b.add(2, 5); // saturates
        b.add(9, 1); // past the last node: nothing
        let counts = b.finish();
        let got: Vec<_> = (0..5).map(|n| counts.get(n)).collect();
        assert_eq!(
            got,
            [Some(65534), Some(65535), Some(u32::MAX), Some(0), None]
        );
        assert_eq!(counts.large_len(), 2);
    }
}
