//! One flag per node, packed 64 to a word: an eighth of a `Vec<bool>`'s memory for the
//! per-node flags of a view (8 M nodes: 1 MB instead of 8 MB).

/// A fixed number of flags, all false at first. Invariant: `words.len() == len.div_ceil(64)`
/// and the bits past `len` in the last word are zero.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    /// `len` flags, all false.
    pub fn new(len: usize) -> Bits {
        Bits {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// Number of flags.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no flags.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Flag `i` (false past the end).
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        i < self.len && self.words[i / 64] & (1 << (i % 64)) != 0
    }

    /// Sets flag `i` to `on` (ignored past the end).
    #[inline]
    pub fn set(&mut self, i: usize, on: bool) {
        if i >= self.len {
            return;
        }
        let (word, bit) = (&mut self.words[i / 64], 1u64 << (i % 64));
        if on {
            *word |= bit;
        } else {
            *word &= !bit;
        }
    }
}

/// Flags with the count of set flags before each word, so that the set flags can number the
/// rows of a dense side table: [`Ranked::rank`] of a set flag is its row. Half a bit a flag
/// more than [`Bits`]. Invariant: `before[w]` is the number of set flags in `words[..w]`, and
/// `ones` in all of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ranked {
    bits: Bits,
    before: Vec<u32>,
    ones: usize,
}

impl Ranked {
    /// `bits` with its counts. At most `u32::MAX` set flags (node ids are `u32`).
    pub fn new(bits: Bits) -> Ranked {
        let mut ones = 0usize;
        let before = bits
            .words
            .iter()
            .map(|w| {
                let at = ones as u32;
                ones += w.count_ones() as usize;
                at
            })
            .collect();
        Ranked { bits, before, ones }
    }

    /// Flag `i` (false past the end).
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.bits.get(i)
    }

    /// The number of set flags.
    pub fn ones(&self) -> usize {
        self.ones
    }

    /// The number of set flags before `i` (all of them for `i` past the end).
    #[inline]
    pub fn rank(&self, i: usize) -> usize {
        let (word, bit) = (i / 64, i % 64);
        match (self.before.get(word), self.bits.words.get(word)) {
            (Some(&at), Some(&w)) if i < self.bits.len => {
                at as usize + (w & ((1u64 << bit) - 1)).count_ones() as usize
            }
            _ => self.ones,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_set_read_and_cleared_across_words() {
        let mut b = Bits::new(130);
        assert_eq!(
            (b.len(), b.is_empty(), b.get(0), b.get(129)),
            (130, false, false, false)
        );
        for i in [0, 63, 64, 127, 129] {
            b.set(i, true);
        }
        b.set(130, true); // past the end: ignored
        b.set(63, false);
        let on: Vec<usize> = (0..140).filter(|&i| b.get(i)).collect();
        assert_eq!(on, vec![0, 64, 127, 129]);
        assert!(Bits::new(0).is_empty());
    }

    #[test]
    fn ranks_count_the_set_flags_before() {
        let mut b = Bits::new(200);
        let on = [0, 1, 63, 64, 65, 127, 128, 199];
        for i in on {
            b.set(i, true);
        }
        let r = Ranked::new(b);
        assert_eq!(r.ones(), on.len());
        for i in 0..210 {
            let want = on.iter().filter(|&&j| j < i).count();
            assert_eq!((r.rank(i), r.get(i)), (want, on.contains(&i)), "flag {i}");
        }
        assert_eq!(
            (Ranked::default().rank(0), Ranked::default().ones()),
            (0, 0)
        );
    }
}
