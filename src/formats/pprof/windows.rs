//! The top-level fields of a `Profile` that arrives in pieces and is not kept (a gzip file
//! inflated into one reused buffer, [`crate::formats::gzip_stream`]): each piece is walked
//! where it lies, and only a field cut by a piece's end is copied, with as much of the next
//! piece as completes it.

/// Bytes of the next piece first added to a carried field: most fields (a sample, a location)
/// are shorter, so one try completes them; the amount doubles while it does not.
const FIRST_TAKE: usize = 64;

/// A walk over a window of the stream: `walk(bytes, start)`, where `bytes` are the stream's
/// from offset `start` on and begin at a field boundary, takes the fields that lie wholly in
/// `bytes` and returns the offset of the first one it did not take (`start + bytes.len()`
/// when it took them all, or when it wants nothing more). A walk must take nothing it has not
/// seen whole, and must return where it stopped again when shown those bytes again.
pub(super) type Walk<'w> = dyn FnMut(&[u8], usize) -> usize + 'w;

/// The part of the stream a walk has not taken yet: see the module doc.
#[derive(Debug, Default)]
pub(super) struct FieldWindows {
    /// The stream's bytes from `carry_start` to the end of the pieces pushed so far that the
    /// last walk did not take: the start of a field cut by the end of its piece.
    carry: Vec<u8>,
    carry_start: usize,
}

impl FieldWindows {
    /// Walks `piece`, the stream's bytes from offset `start` on, where the last piece ended.
    pub(super) fn push(&mut self, piece: &[u8], start: usize, walk: &mut Walk<'_>) {
        let mut from = 0;
        if !self.carry.is_empty() {
            match self.complete_carried(piece, start, walk) {
                Some(resume) => from = resume,
                None => return, // the whole piece is carried
            }
        }
        let rest = piece.get(from..).unwrap_or_default();
        let at = start.saturating_add(from);
        let stop = walk(rest, at).clamp(at, at.saturating_add(rest.len()));
        self.carry_start = stop;
        self.carry.clear();
        self.carry
            .extend_from_slice(rest.get(stop - at..).unwrap_or_default());
    }

    /// Adds bytes of `piece` to the carried field until a walk over the carry takes it;
    /// returns where in `piece` the walk stopped (the carry is then empty), or `None` when
    /// the whole piece went into the carry without completing it.
    fn complete_carried(
        &mut self,
        piece: &[u8],
        start: usize,
        walk: &mut Walk<'_>,
    ) -> Option<usize> {
        let mut from = 0;
        let mut take = FIRST_TAKE;
        loop {
            let add = take.min(piece.len() - from);
            self.carry
                .extend_from_slice(piece.get(from..from + add).unwrap_or_default());
            from += add;
            let end = start.saturating_add(from);
            let stop = walk(&self.carry, self.carry_start).clamp(self.carry_start, end);
            if stop >= start {
                self.carry.clear();
                return Some(stop - start);
            }
            // Taken up to `stop`, still inside the carry: keep the rest.
            self.carry.drain(..stop - self.carry_start);
            self.carry_start = stop;
            if from == piece.len() {
                return None;
            }
            take = take.saturating_mul(2);
        }
    }

    /// The bytes no walk took: empty when every field of the stream lay whole in what was
    /// pushed.
    pub(super) fn carried(&self) -> &[u8] {
        &self.carry
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::protowire::Fields;

    /// A stream of fields of varied lengths (field 2, length-delimited, one-byte keys).
    fn stream() -> (Vec<u8>, Vec<usize>) {
        let mut out = Vec::new();
        let mut starts = Vec::new();
        for i in 0..3000usize {
            starts.push(out.len());
            let len = [0, 1, 5, 63, 64, 65, 200, 1000, 5000][i % 9];
            out.push(0x12);
            let mut l = len;
            while l >= 0x80 {
                out.push((l as u8) | 0x80);
                l >>= 7;
            }
            out.push(l as u8);
            out.extend((0..len).map(|k| (i + k) as u8));
        }
        (out, starts)
    }

    /// The fields a windowed walk took, by offset, with the pieces cut at `cuts`.
    fn walked(data: &[u8], cuts: &[usize]) -> (Vec<usize>, usize) {
        let mut taken = Vec::new();
        let mut windows = FieldWindows::default();
        let mut walk = |bytes: &[u8], start: usize| {
            let mut fields = Fields::new(bytes, start);
            loop {
                let here = fields.position();
                match fields.next() {
                    Some(Ok(f)) => {
                        assert_eq!(f.offset, here);
                        taken.push(here)
                    }
                    Some(Err(e)) => {
                        assert!(e.truncated, "{e:?}");
                        return here;
                    }
                    None => return here,
                }
            }
        };
        let mut at = 0;
        for &cut in cuts.iter().chain([&data.len()]) {
            let cut = cut.clamp(at, data.len());
            windows.push(&data[at..cut], at, &mut walk);
            at = cut;
        }
        (taken, windows.carried().len())
    }

    #[test]
    fn every_field_is_taken_once_in_order_whatever_the_cuts() {
        let (data, starts) = stream();
        let n = data.len();
        let every = |step: usize| (step..n).step_by(step).collect::<Vec<_>>();
        for cuts in [
            vec![],
            every(1),
            every(7),
            every(64),
            every(65),
            every(4999),
            every(1 << 16),
        ] {
            let (taken, left) = walked(&data, &cuts);
            assert_eq!(taken, starts, "{} cuts", cuts.len());
            assert_eq!(left, 0);
        }
    }

    #[test]
    fn a_stream_cut_inside_a_field_leaves_that_field_carried() {
        let (data, starts) = stream();
        let cut = starts[2000] + 3;
        let (taken, left) = walked(&data[..cut], &(100..cut).step_by(333).collect::<Vec<_>>());
        assert_eq!(taken, starts[..2000]);
        assert_eq!(left, 3);
    }
}
