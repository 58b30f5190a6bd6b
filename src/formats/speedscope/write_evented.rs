//! Writing an **evented** speedscope profile (`O`/`C` events) for a source whose samples have
//! times (`samples..time`) that a sampled profile cannot express: gaps between samples or an
//! order other than the sample order. Each sample is the interval `[time, time + weight]`: at
//! its start the frames of the previous sample that it does not share are closed and its own
//! opened (the leaf is closed and reopened between two samples of one stack, so they stay two
//! samples); after a gap everything is closed at the previous end. speedscope's time-order
//! view then shows every sample where it happened, and proftab's reader gives back one sample
//! per interval with its time and weight.
//!
//! Used only when exact: the weight type is a time unit, every sample has a time, a stack and a
//! positive weight, and no two intervals overlap (else the sampled profile is written, with
//! the times warning). When `[time, time + weight]` intervals overlap but `[time - weight,
//! time]` do not (cpuprofile's times end the interval their weight measures), those are
//! written, with a warning that times read back are the starts. Times are written relative to the first sample when they do not look
//! relative already (a first time beyond the recording's span, or negative), so that the view
//! starts at the first sample; `startValue` is 0.

use super::schema::unit_kind;
use super::write::{json_string, same_time, Writer};
use super::NAME;
use crate::formats::write_common::{format_number, frames_root_first};
use crate::model::{SampleIndex, SAMPLE_TIME};

/// The events written so far.
#[derive(Default)]
struct Events {
    events: Vec<String>,
    /// The latest `at`.
    last: f64,
}

impl Events {
    fn push(&mut self, kind: &str, frame: usize, at: f64) {
        self.events.push(format!(
            "{{\"type\":\"{kind}\",\"frame\":{frame},\"at\":{}}}",
            format_number(at)
        ));
        self.last = self.last.max(at);
    }

    /// Opens `frames` (root first) at `at`.
    fn open(&mut self, frames: &[usize], at: f64) {
        for &f in frames {
            self.push("O", f, at);
        }
    }

    /// Closes `frames` (root first, so closed from the last) at `at`.
    fn close(&mut self, frames: &[usize], at: f64) {
        for &f in frames.iter().rev() {
            self.push("C", f, at);
        }
    }
}

/// One sample of the evented profile.
struct Interval {
    /// Start, seconds.
    time: f64,
    /// Weight, in the profile's unit.
    weight: f64,
    sample: usize,
}

impl Writer<'_> {
    /// The evented profile of `samples` (one source), or `None` when it would not be exact.
    pub(super) fn evented_json(
        &mut self,
        name: &str,
        samples: &[usize],
        unit: &str,
    ) -> Option<String> {
        let seconds = unit_kind(unit).seconds?;
        let (intervals, at_ends) = self.intervals(samples, seconds)?;
        if at_ends {
            self.warnings.add(NAME, "time-ends", || {
                "sample times are the ends of their intervals (each sample's weight is the time \
                 before it); written as intervals [time - weight, time], so times read back are \
                 the starts"
                    .to_owned()
            });
        }
        let first = intervals.first()?.time;
        let last_end = intervals
            .iter()
            .map(|i| i.time + i.weight * seconds)
            .fold(first, f64::max);
        let origin = if first >= 0.0 && first <= last_end - first {
            0.0
        } else {
            first
        };
        let mut ev = Events::default();
        // The open frames, the end of the last interval in seconds and (as written) in units.
        let mut open: Vec<usize> = Vec::new();
        let (mut open_end, mut open_end_at) = (first, 0.0);
        for iv in &intervals {
            let stack = SampleIndex::from_usize(iv.sample).and_then(|s| self.p.sample_stack(s));
            let frames: Vec<usize> = frames_root_first(self.p, stack)
                .into_iter()
                .map(|loc| self.frame_index(loc))
                .collect();
            // A contiguous interval starts where the last ended, in units, so that the read-back
            // weights (differences of `at`) are the weights.
            let contiguous = !open.is_empty() && same_time(open_end, iv.time, iv.weight * seconds);
            let at = if contiguous {
                open_end_at
            } else {
                ev.close(&open, open_end_at);
                open.clear();
                (iv.time - origin) / seconds
            };
            let mut keep = open.iter().zip(&frames).take_while(|(a, b)| a == b).count();
            if keep == open.len() && keep == frames.len() {
                keep -= 1;
            }
            ev.close(&open[keep..], at);
            ev.open(&frames[keep..], at);
            open = frames;
            open_end = iv.time + iv.weight * seconds;
            open_end_at = at + iv.weight;
        }
        ev.close(&open, open_end_at);
        Some(format!(
            "{{\"type\":\"evented\",\"name\":{},\"unit\":{},\"startValue\":0,\"endValue\":{},\"events\":[{}]}}",
            json_string(name),
            json_string(unit),
            format_number(ev.last),
            ev.events.join(",")
        ))
    }

    /// The samples as intervals in time order, or `None` when one lacks a time, a stack or a
    /// positive weight, or two overlap both as `[time, time + weight]` and as `[time - weight,
    /// time]`. The second flag is true when the times are the intervals' ends.
    fn intervals(&self, samples: &[usize], seconds: f64) -> Option<(Vec<Interval>, bool)> {
        let p = self.p;
        let times = p.samples.ext.dbl(SAMPLE_TIME)?;
        let values = p.value_column(self.vt)?;
        let mut out = Vec::with_capacity(samples.len());
        for &s in samples {
            let time = times.get(s).copied().filter(|t| t.is_finite())?;
            let weight = values.get(s).filter(|w| *w > 0.0 && w.is_finite())?;
            SampleIndex::from_usize(s).and_then(|si| p.sample_stack(si))?;
            out.push(Interval {
                time,
                weight,
                sample: s,
            });
        }
        out.sort_by(|a, b| a.time.total_cmp(&b.time));
        if !overlapping(&out, seconds) {
            return Some((out, false));
        }
        // The times may be the ends of the intervals (cpuprofile's timeDeltas).
        for iv in &mut out {
            iv.time -= iv.weight * seconds;
        }
        (!overlapping(&out, seconds)).then_some((out, true))
    }
}

/// True when two consecutive intervals (sorted by start) overlap beyond the tolerance.
fn overlapping(intervals: &[Interval], seconds: f64) -> bool {
    intervals.windows(2).any(|w| {
        let end = w[0].time + w[0].weight * seconds;
        w[1].time < end && !same_time(w[1].time, end, w[0].weight * seconds)
    })
}
