//! Long passes cut into calls, so that a wasm engine can optimise them as they run.
//!
//! V8 (Chromium, Node) starts every wasm function on baseline code (Liftoff) and compiles the
//! hot ones again, optimised (TurboFan), in the background; a function's new code is used from
//! its next call on. It has no on-stack replacement for wasm, so a loop over millions of rows
//! inside one call runs baseline code to its end, however hot it is. Measured on synth-500k in
//! Node 20: building the view took 0.98-0.99 s on a first run and 0.90-0.93 s with
//! `--liftoff-only`, i.e. all of it on baseline code.
//!
//! [`in_chunks`] and [`in_chunks_rev`] run such a pass as one call of a never-inlined function
//! per [`CHUNK`] rows: once V8 has optimised that function, the rest of the pass runs
//! optimised. Natively this costs one call per chunk.

use std::ops::Range;

/// Rows per call.
pub const CHUNK: usize = 1 << 15;

/// `rows` cut to a column of `len` rows: its end at most `len`, its start at most its end (an
/// empty range at the end when it starts past it).
#[inline]
pub fn cut_to(rows: Range<usize>, len: usize) -> Range<usize> {
    let end = rows.end.min(len);
    rows.start.min(end)..end
}

/// Calls `f` on consecutive slices of `range` of at most [`CHUNK`] rows, first to last, each
/// a separate call; stops when `f` returns false, and then returns false.
pub fn in_chunks<F: FnMut(Range<usize>) -> bool>(range: Range<usize>, mut f: F) -> bool {
    let mut at = range.start;
    while at < range.end {
        let end = at.saturating_add(CHUNK).min(range.end);
        if !opaque_call(&mut f, at..end) {
            return false;
        }
        at = end;
    }
    true
}

/// [`in_chunks`] last slice first (each slice is still given as an ascending range).
pub fn in_chunks_rev<F: FnMut(Range<usize>) -> bool>(range: Range<usize>, mut f: F) -> bool {
    let mut end = range.end;
    while end > range.start {
        let at = end.saturating_sub(CHUNK).max(range.start);
        if !opaque_call(&mut f, at..end) {
            return false;
        }
        end = at;
    }
    true
}

/// Calls `f(arg)` through a trait object the optimisers cannot see through (`black_box`): `f`'s
/// body stays a function of its own, called once per chunk, which is what the engine
/// optimises. A direct call was not enough: a function with one caller is inlined into it
/// whatever its size (wasm-opt -O3 did, and the chunks ran on baseline code again). For a pass
/// cut into calls some other way (pprof's sample count, a bounded run per call).
pub fn opaque_call<A, R>(f: &mut dyn FnMut(A) -> R, arg: A) -> R {
    let f = std::hint::black_box(f);
    f(arg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_cut_to_the_column() {
        assert_eq!(cut_to(2..20, 10), 2..10);
        assert_eq!(cut_to(12..20, 10), 10..10);
        // A reversed range (start past end) comes out empty at its end.
        let (start, end) = (7, 3);
        assert_eq!(cut_to(start..end, 10), 3..3);
        assert_eq!(cut_to(0..0, 0), 0..0);
    }

    fn slices(range: Range<usize>, rev: bool, stop_at: Option<usize>) -> (Vec<Range<usize>>, bool) {
        let mut seen = Vec::new();
        let f = |r: Range<usize>| {
            let go_on = !stop_at.is_some_and(|s| r.contains(&s));
            seen.push(r);
            go_on
        };
        let done = if rev {
            in_chunks_rev(range, f)
        } else {
            in_chunks(range, f)
        };
        (seen, done)
    }

    #[test]
    fn slices_cover_the_range_once_in_order() {
        let (fwd, done) = slices(3..2 * CHUNK + 10, false, None);
        assert!(done);
        assert_eq!(
            fwd,
            [
                3..CHUNK + 3,
                CHUNK + 3..2 * CHUNK + 3,
                2 * CHUNK + 3..2 * CHUNK + 10
            ]
        );
        let (rev, done) = slices(3..2 * CHUNK + 10, true, None);
        assert!(done);
        assert_eq!(rev, [CHUNK + 10..2 * CHUNK + 10, 10..CHUNK + 10, 3..10]);
        assert_eq!(slices(5..5, false, None), (vec![], true));
        assert_eq!(slices(5..5, true, None), (vec![], true));
    }

    #[test]
    fn a_false_stops_the_pass() {
        let (fwd, done) = slices(0..3 * CHUNK, false, Some(CHUNK + 1));
        assert!(!done);
        assert_eq!(fwd, [0..CHUNK, CHUNK..2 * CHUNK]);
        let (rev, done) = slices(0..3 * CHUNK, true, Some(CHUNK + 1));
        assert!(!done);
        assert_eq!(rev, [2 * CHUNK..3 * CHUNK, CHUNK..2 * CHUNK]);
    }
}
