//! How much room the stack table gets, planned from the samples read so far; and the room the
//! reader makes in wasm memory after pass 1 ([`reader_room`], at the end).
//!
//! A `Vec` that doubles copies its rows into a new block at each growth. In wasm the old block
//! stays part of linear memory (it never shrinks), and every page first touched costs a page
//! fault. Doubling fits some sizes well and others badly: synth-500k's 8.1 M nodes fill 97 %
//! of 2^23 rows, synth-1M's 17.5 M only 52 % of 2^25. Measured in Node (`Profile.parse`,
//! one cold process each, 2026-11-27): on synth-1M the forecast below took the parse's wasm
//! memory from 617 to 382 MiB and its peak RSS from 585 to 457 MiB (stack depths were still
//! stored then); on synth-500k and synth-2M, where doubling already fits, wasm memory rose
//! 4 % and 10 % (the blocks of the growth before the forecast stay as holes) and peak RSS
//! fell 1–2 %.
//!
//! The reader knows the number of samples from pass 1, not the number of stack nodes. So it
//! measures the rate at which samples create nodes over two stretches, the first 1/32 of the
//! samples and the next 1/32, and when the later rate has not fallen much below the earlier
//! one (nodes grow linearly, as in a depth-first ordered profile whose samples keep reaching
//! new paths) it reserves the linear forecast once, plus a margin. When the rate falls (a
//! profile in random order, whose samples mostly revisit stacks seen before) it plans
//! nothing and the columns double as usual. A forecast that falls short costs one doubling
//! at the end; one that overshoots costs address space that is never touched.

use crate::model::ProfileBuilder;

/// A stretch is this share of the samples: short, so that the blocks of the columns' growth
/// before the forecast (left as holes in wasm memory) stay small.
const STRETCHES: usize = 32;
/// Profiles with fewer samples are left to doubling: their tables are small.
const MIN_SAMPLES: usize = 1 << 15;
/// The later stretch's rate must be at least this share of the earlier one's.
const STEADY: f64 = 0.75;
/// The forecast is raised by this share.
const MARGIN: f64 = 0.03;

/// The plan's state. See the module docs.
#[derive(Debug, Default)]
pub(super) struct StackRoom {
    /// Samples in the profile.
    total: usize,
    /// The sample count at which to look next (`usize::MAX`: never again).
    next: usize,
    /// Nodes after the first stretch.
    first_nodes: usize,
}

impl StackRoom {
    /// The plan for a profile of `total` samples.
    pub(super) fn new(total: usize) -> StackRoom {
        let next = if total < MIN_SAMPLES {
            usize::MAX
        } else {
            total / STRETCHES
        };
        StackRoom {
            total,
            next,
            first_nodes: 0,
        }
    }

    /// After `samples` samples have made `nodes` stack nodes: the number of nodes to reserve
    /// room for, once, when the forecast is due and steady. Cheap when not due (one compare).
    #[inline]
    pub(super) fn after(&mut self, samples: usize, nodes: usize) -> Option<usize> {
        if samples != self.next {
            return None;
        }
        let stretch = self.total / STRETCHES;
        if samples == stretch {
            self.first_nodes = nodes;
            self.next = 2 * stretch;
            return None;
        }
        self.next = usize::MAX;
        forecast(self.total, stretch, self.first_nodes, nodes)
    }
}

/// The nodes of `total` samples forecast from `first` nodes after `stretch` samples and `now`
/// after twice that, when the second stretch's rate is steady (see the module docs).
fn forecast(total: usize, stretch: usize, first: usize, now: usize) -> Option<usize> {
    if stretch == 0 {
        return None;
    }
    let early = first as f64 / stretch as f64;
    let late = now.saturating_sub(first) as f64 / stretch as f64;
    if late == 0.0 || late < STEADY * early {
        return None;
    }
    let rest = total.saturating_sub(2 * stretch) as f64;
    let nodes = (now as f64 + late * rest) * (1.0 + MARGIN);
    Some(nodes.min(u32::MAX as f64) as usize)
}

/// The memory the reader is planned to add after pass 1, made in one step
/// ([`crate::memory::make_room`]) so that wasm memory grows once instead of at every block
/// (while the samples of synth-500k were read: 26 times without it, once with it). Of the
/// input's `data` bytes, `sample_bytes` are samples:
/// - twice the rest, for the string table, the functions and the locations;
/// - the sample columns of `samples` rows with `values` value columns, exactly as
///   [`ProfileBuilder::reserve_samples`] takes them;
/// - 3/4 of the samples' bytes for the stack table (its one reservation and the blocks before
///   it), and 32 bytes a sample for the node table: a sample adds at most one node that the
///   table holds (the first it makes; the rest of its walk is a run), in slots of 12 bytes at
///   most 3/4 full, and the table's last doubling holds the old slots beside the new.
///   Wasm memory after `Profile.parse` in Node (one cold process each, 2026-11-29) of
///   synth-100k, synth-500k, synth-1M, the Go heap profile of `bench/go_heap.sh` and
///   synth-2M, with the stack table at about 2.4 bytes a node (a `u16` location and
///   [`crate::model::Prefixes`]): 24.3, 108.8, 209.7 and 108.5 MiB (2M not run) with no room
///   for these tables; 24.2, 105.4, 213.3, 108.4 and 435.7 with 3/4 of the samples' bytes
///   alone; 25.7, 108.6, 207.7, 110.3 and 423.7 with 32 bytes a sample beside it (24: 24.9,
///   104.8, 224.1, 109.8, 456.5; 40: 26.4, 112.4, 215.3, 110.8, 438.9). The 3/4 alone made
///   memory grow in three steps of a 60,000-sample profile in random order, whose samples
///   each add a node to the table (`tests/js/memory.test.mjs`); 32 a sample, in two. (With 8
///   bytes a stack node, 9/4 of the samples' bytes: 35.2, 158.8, 303.4 and 121.4 MiB.) A room
///   a little short of the need costs a hole where the last block did not fit; one well over
///   it costs address space that nothing touches. Where the room has run out, the stack
///   table's reservation makes one of its own ([`ProfileBuilder::reserve_stack_nodes`]).
pub(super) fn reader_room(
    data: usize,
    sample_bytes: usize,
    samples: usize,
    values: usize,
) -> usize {
    let rest = data.saturating_sub(sample_bytes);
    let columns = samples.saturating_mul(ProfileBuilder::sample_row_bytes(values));
    rest.saturating_mul(2)
        .saturating_add(columns)
        .saturating_add((sample_bytes / 4).saturating_mul(3))
        .saturating_add(samples.saturating_mul(NODE_TABLE_BYTES_PER_SAMPLE))
}

/// Room for the pprof reader's node table, per sample (see [`reader_room`]).
const NODE_TABLE_BYTES_PER_SAMPLE: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    /// Drives the plan over `total` samples whose node count after `k` samples is `nodes(k)`;
    /// returns the one reservation asked for, if any, and the sample count it came at.
    fn run(total: usize, nodes: impl Fn(usize) -> usize) -> Option<(usize, usize)> {
        let mut room = StackRoom::new(total);
        let mut asked = None;
        for k in 1..=total {
            if let Some(r) = room.after(k, nodes(k)) {
                assert!(asked.is_none(), "asked twice");
                asked = Some((k, r));
            }
        }
        asked
    }

    #[test]
    fn linear_growth_is_forecast_once_with_its_margin() {
        let (at, room) = run(1_000_000, |k| 40 + 17 * k).expect("a forecast");
        assert_eq!(at, 2 * (1_000_000 / STRETCHES));
        let exact = 40 + 17 * 1_000_000;
        assert!(room >= exact && room <= exact + exact * 4 / 100, "{room}");
    }

    #[test]
    fn slowing_growth_plans_nothing() {
        // Revisits: the node count approaches 50,000 (random order over few stacks).
        let saturating = |k: usize| (50_000.0 * (1.0 - (-(k as f64) / 20_000.0).exp())) as usize;
        assert_eq!(run(1_000_000, saturating), None);
        // No node after the first stretch at all.
        assert_eq!(run(100_000, |k| k.min(3_000)), None);
    }

    #[test]
    fn small_profiles_plan_nothing() {
        assert_eq!(run(MIN_SAMPLES - 1, |k| 30 * k), None);
        assert!(run(MIN_SAMPLES, |k| 30 * k).is_some());
    }

    #[test]
    fn the_readers_room_is_the_rest_twice_the_columns_and_the_two_tables() {
        // 1,000 bytes of strings and locations, 40,000 of samples, 500 samples of 2 values.
        let columns = 500 * ProfileBuilder::sample_row_bytes(2);
        assert_eq!(columns, 500 * (8 + 2 * 9));
        assert_eq!(
            reader_room(41_000, 40_000, 500, 2),
            2_000 + columns + 30_000 + 500 * 32
        );
        assert_eq!(reader_room(10, 0, 0, 0), 20);
        // Sizes from a hostile input saturate instead of overflowing.
        assert_eq!(reader_room(usize::MAX, 0, usize::MAX, 3), usize::MAX);
        let columns = ProfileBuilder::sample_row_bytes(1);
        assert_eq!(
            reader_room(0, usize::MAX, 1, 1),
            usize::MAX / 4 * 3 + columns + 32
        );
    }

    #[test]
    fn forecasts_saturate_at_the_u32_range() {
        assert_eq!(
            forecast(1 << 30, 1 << 25, 1 << 30, 1 << 31),
            Some(u32::MAX as usize)
        );
        assert_eq!(forecast(10, 0, 0, 0), None);
    }
}
