//! Timer ticks: how the samples split into runs (one per stored header), each run's interval,
//! and how many identical lines each sample becomes.
//!
//! A run's interval is the mean time per tick of its samples (Σ time / Σ count), so the file's
//! total time is the profile's even when sample times vary; every departure from whole,
//! evenly spaced ticks is reported as a warning.

use super::super::*;
use super::plan::{meta_period_us, Weight};
use super::{close, err, Run, Writer, DEFAULT_INTERVAL_US};
use crate::formats::WriteError;
use crate::model::SAMPLE_TIME;

impl Writer<'_> {
    /// Splits the samples into runs by `.rprof_run` (files with several headers), else one.
    pub(super) fn runs(&mut self, samples: &[usize]) -> Vec<Run> {
        let single = |samples: &[usize]| {
            vec![Run {
                stored_header: Some(0),
                samples: samples.to_vec(),
            }]
        };
        let Some(col) = self.p.samples.ext.int(COL_RUN) else {
            return single(samples);
        };
        let n_headers = self.stored_headers.len();
        let run_of = |s: usize| {
            col.get(s)
                .and_then(|&r| usize::try_from(r).ok())
                .filter(|&r| r >= 1 && r <= n_headers)
        };
        let ordered = samples.windows(2).all(|w| match w {
            [x, y] => matches!((run_of(*x), run_of(*y)), (Some(a), Some(b)) if a <= b),
            _ => true,
        });
        if samples.iter().any(|&s| run_of(s).is_none()) || !ordered {
            self.warn("bad-run", || {
                format!(
                    "the sample column {COL_RUN} does not number the {n_headers} stored headers \
                     in order; written as one run"
                )
            });
            return single(samples);
        }
        let mut runs: Vec<Run> = (0..n_headers)
            .map(|h| Run {
                stored_header: Some(h),
                samples: Vec::new(),
            })
            .collect();
        for &s in samples {
            if let Some(run) = run_of(s).and_then(|r| runs.get_mut(r - 1)) {
                run.samples.push(s);
            }
        }
        runs
    }

    /// The time (µs) and count of sample `s`, when both exist and are positive.
    pub(super) fn time_and_count(&self, s: usize) -> Option<(f64, f64)> {
        let (count_vt, (time_vt, ns)) = (self.plan.count?, self.plan.time?);
        let count = self.p.value_column(count_vt)?.get(s)?;
        let us = self.p.value_column(time_vt)?.get(s)? * ns / 1000.0;
        (count > 0.0 && us.is_finite() && us > 0.0).then_some((us, count))
    }

    /// The interval of sample `s` in µs as its time / count says, if both exist.
    pub(super) fn sample_interval(&self, s: usize) -> Option<f64> {
        self.time_and_count(s).map(|(us, count)| us / count)
    }

    /// The mean interval of `samples`, Σ time / Σ count, in µs: with it, the file's total time
    /// is the samples' total time even when their own times vary (as `.cpuprofile` deltas do).
    pub(super) fn mean_interval(&self, samples: impl Iterator<Item = usize>) -> Option<f64> {
        let (us, count) = samples
            .filter_map(|s| self.time_and_count(s))
            .fold((0.0, 0.0), |(u, c), (us, count)| (u + us, c + count));
        (count > 0.0).then(|| us / count)
    }

    /// Refuses to merge sources with different intervals into one run.
    pub(super) fn check_source_intervals(
        &self,
        samples: &[usize],
        n_runs: usize,
    ) -> Result<(), WriteError> {
        if n_runs > 1 {
            return Ok(());
        }
        let mut sources: Vec<usize> = samples
            .iter()
            .filter_map(|&s| self.p.samples.source.get(s).map(|x| x.idx()))
            .collect();
        sources.sort_unstable();
        sources.dedup();
        let intervals: Vec<(usize, f64)> = sources
            .iter()
            .filter_map(|&src| {
                let of_source = samples
                    .iter()
                    .copied()
                    .filter(|&s| self.p.samples.source.get(s).is_some_and(|x| x.idx() == src));
                Some((src, self.mean_interval(of_source)?))
            })
            .collect();
        let differ = intervals.windows(2).any(|w| match w {
            [(_, a), (_, b)] => !close(*a, *b),
            _ => false,
        });
        if differ {
            let list: Vec<String> = intervals
                .iter()
                .map(|(src, us)| format!("source {} every {us} µs", src + 1))
                .collect();
            return Err(err(format!(
                "an Rprof file has one sampling interval, but the sources differ ({}); write one \
                 source at a time (WriteOptions::source_id)",
                list.join(", ")
            )));
        }
        Ok(())
    }

    /// The interval of a run, in whole microseconds.
    pub(super) fn run_interval(&mut self, run: &Run) -> u64 {
        let from_samples = self.mean_interval(run.samples.iter().copied());
        let stored = run
            .stored_header
            .and_then(|h| self.stored_headers.get(h))
            .map(|h| h.interval_us as f64);
        let us = match from_samples.or(stored).or_else(|| meta_period_us(self.p)) {
            Some(us) => us,
            None => {
                self.warn("default-interval", || {
                    format!(
                        "the profile says nothing about its sampling interval; written as \
                         sample.interval={DEFAULT_INTERVAL_US} (10 ms, R's default)"
                    )
                });
                return DEFAULT_INTERVAL_US;
            }
        };
        let rounded = us.round().clamp(1.0, header::MAX_INTERVAL_US as f64);
        if !close(us, rounded) {
            self.warn("interval-rounded", || {
                format!(
                    "the sampling interval {us} µs is not a whole number of microseconds; \
                     written as {rounded}"
                )
            });
        }
        rounded as u64
    }

    /// The number of lines for sample `s` (0 for samples without a usable value).
    pub(super) fn line_count(&mut self, s: usize, interval: u64) -> u64 {
        let raw = match self.plan.weight {
            Weight::Count(vt) => self.p.value_column(vt).and_then(|c| c.get(s)),
            Weight::Time(vt, ns) => self
                .p
                .value_column(vt)
                .and_then(|c| c.get(s))
                .map(|t| t * ns / 1000.0 / interval as f64),
        };
        let Some(raw) = raw.filter(|v| v.is_finite() && *v >= 0.0) else {
            self.warn("no-count", || {
                format!(
                    "sample {} has no usable tick count (missing, negative or not a number); \
                     left out",
                    s + 1
                )
            });
            return 0;
        };
        let rounded = raw.round();
        if !close(raw, rounded) {
            self.warn("fractional", || {
                format!(
                    "sample {} stands for {raw} ticks, but Rprof can only repeat whole lines; \
                     counts were rounded to the nearest whole number",
                    s + 1
                )
            });
        }
        let lines = rounded as u64;
        if lines == 0 {
            self.warn("zero", || {
                format!("sample {} stands for no tick (count 0); left out", s + 1)
            });
        } else if lines > 1 {
            self.warn("repeated", || {
                format!(
                    "sample {} has count {lines}; Rprof has one line per tick, so samples with a \
                     count above 1 were written as that many identical lines",
                    s + 1
                )
            });
        }
        lines
    }

    /// Warns when the sample's time is not `lines` × interval, or its `.time` is not where the
    /// reader will put it.
    pub(super) fn check_time(&mut self, s: usize, interval: u64, lines: u64) {
        let iv = interval as f64;
        if let Some(us) = self.sample_interval(s) {
            if !close(us, iv) {
                self.warn("time-mismatch", || {
                    format!(
                        "sample times per tick vary (sample {} has {us} µs); Rprof gives every \
                         tick one interval, so the file uses their mean, {interval} µs: the total \
                         time is kept, each sample's own time is lost",
                        s + 1
                    )
                });
            }
        }
        let recorded = self
            .p
            .samples
            .ext
            .dbl(SAMPLE_TIME)
            .and_then(|t| t.get(s).copied());
        let expected_us = self.elapsed_us + iv;
        if let Some(t) = recorded.filter(|t| !t.is_nan()) {
            if !close(t * 1e6, expected_us) && !self.time_mismatch {
                self.time_mismatch = true;
                self.warn("timestamps", || {
                    format!(
                        "sample timestamps (.time) are not consecutive ticks of the interval \
                         (sample {} is at {t} s); Rprof has no timestamps, so they are lost",
                        s + 1
                    )
                });
            }
        }
        self.elapsed_us += iv * lines as f64;
    }
}
