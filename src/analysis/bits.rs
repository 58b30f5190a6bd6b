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
}
