//! The Rprof writer: one line per timer tick, in sample order.
//!
//! * Ticks per sample: the `samples`/`count` value (or the value type named in
//!   [`WriteOptions::value_type`]: a count, or a time divided by the interval); a sample with
//!   count 3 becomes three identical lines, non-integral counts are rounded — both with warnings.
//! * Interval: per run, the mean time per tick of its samples, Σ time / Σ count (an Rprof
//!   profile's `time` is the interval itself; for varying times, as `.cpuprofile` deltas, the
//!   mean keeps the total time, and the spread is reported), else the run's stored header,
//!   else meta `period`, else 10000 µs with a warning.
//! * `#File N: path` lines come right before the first line using the file, numbered in order of
//!   first use (as R does); `F#L ` precedes a frame whose function has a file and whose location
//!   a line; the memory prefix is written where the four raw memory values exist.
//! * The header says `memory profiling:` when a line has a memory prefix, `line profiling:` when
//!   a source reference is written, `GC profiling:` when a `<GC>` frame is written — or when the
//!   profile's stored header (meta `rprof.header`) said so.
//! * Everything the profile holds that Rprof cannot say is listed in warnings.

use std::collections::BTreeSet;
use std::ops::Range;

use super::fxhash::FxHashMap;
use super::header::Header;
use super::*;
use crate::formats::{Warning, Warnings, WriteError, WriteOptions, Written};
use crate::model::{
    FunctionIndex, LocationIndex, Profile, SampleIndex, StackIndex, StringId, ValueTypeIndex,
    SAMPLE_TIME,
};

/// Interval used when the profile says nothing about one, in microseconds (R's default).
pub const DEFAULT_INTERVAL_US: u64 = 10_000;
/// Relative tolerance for comparing intervals and for calling a count integral.
const TOLERANCE: f64 = 1e-9;
/// Largest Rprof output, in bytes: counts that would expand beyond it are refused.
pub const MAX_OUTPUT_BYTES: usize = 512 << 20;
/// Name written for a function whose name is empty.
const ANONYMOUS: &str = "<Anonymous>";

/// Writes `profile` as Rprof text.
pub fn write(profile: &Profile, options: &WriteOptions) -> Result<Written, WriteError> {
    let samples = selected_samples(profile, options)?;
    let plan = Plan::new(profile, options)?;
    let mut w = Writer::new(profile, plan);
    let runs = w.runs(&samples);
    w.check_source_intervals(&samples, runs.len())?;
    let mut out = Vec::with_capacity(samples.len().saturating_mul(64).min(1 << 30));
    for run in &runs {
        w.write_run(run, &mut out)?;
    }
    w.report_unwritten();
    Ok(Written {
        bytes: out,
        warnings: w.warnings.into_vec(),
    })
}

fn err(message: impl Into<String>) -> WriteError {
    WriteError::new(FORMAT, message)
}

/// The samples to write: all, or those of [`WriteOptions::source_id`].
fn selected_samples(p: &Profile, options: &WriteOptions) -> Result<Vec<usize>, WriteError> {
    let n = p.num_samples();
    let Some(id) = options.source_id else {
        return Ok((0..n).collect());
    };
    let count = p.sources.source_type.len();
    if id == 0 || id > count {
        return Err(err(format!(
            "source_id {id} does not exist (the profile has {count} sources)"
        )));
    }
    Ok((0..n)
        .filter(|&s| {
            p.samples
                .source
                .get(s)
                .is_some_and(|src| src.idx() + 1 == id)
        })
        .collect())
}

/// Nanoseconds per unit of a time unit name; `None` for other units.
fn time_unit_ns(unit: &str) -> Option<f64> {
    Some(match unit {
        "nanoseconds" | "nanosecond" | "ns" => 1.0,
        "microseconds" | "microsecond" | "us" | "µs" => 1e3,
        "milliseconds" | "millisecond" | "ms" => 1e6,
        "seconds" | "second" | "s" => 1e9,
        _ => return None,
    })
}

fn is_count_unit(unit: &str) -> bool {
    matches!(unit, "count" | "samples" | "")
}

/// How many lines each sample becomes.
#[derive(Clone, Copy)]
enum Weight {
    /// A count value: that many lines.
    Count(ValueTypeIndex),
    /// A time value (nanoseconds per unit): time / interval lines.
    Time(ValueTypeIndex, f64),
}

/// What the writer takes from which value type.
struct Plan {
    weight: Weight,
    /// `samples`/`count`, used with `time` to find the interval.
    count: Option<ValueTypeIndex>,
    /// A time type and its nanoseconds per unit.
    time: Option<(ValueTypeIndex, f64)>,
    /// small, large, nodes, duplications.
    memory: Option<[ValueTypeIndex; 4]>,
}

impl Plan {
    fn new(p: &Profile, options: &WriteOptions) -> Result<Plan, WriteError> {
        let unit_of = |vt: ValueTypeIndex| p.value_type_names(vt).1;
        let time_of = |vt: ValueTypeIndex| time_unit_ns(unit_of(vt)).map(|f| (vt, f));
        let samples = p
            .value_type_index(TYPE_SAMPLES.0)
            .filter(|&vt| is_count_unit(unit_of(vt)));
        let time = p
            .value_type_index(TYPE_TIME.0)
            .and_then(time_of)
            .or_else(|| p.default_value_type().and_then(time_of))
            .or_else(|| {
                (0..p.values.len())
                    .filter_map(ValueTypeIndex::from_usize)
                    .find_map(time_of)
            });
        let weight = match &options.value_type {
            Some(name) => Self::named_weight(p, name)?,
            None => Self::default_weight(p, samples, time)?,
        };
        let memory = [
            TYPE_VSIZE_SMALL,
            TYPE_VSIZE_LARGE,
            TYPE_NODES,
            TYPE_DUPLICATIONS,
        ]
        .map(|(t, _)| p.value_type_index(t));
        let memory = match memory {
            [Some(a), Some(b), Some(c), Some(d)] => Some([a, b, c, d]),
            _ => None,
        };
        Ok(Plan {
            weight,
            count: samples,
            time,
            memory,
        })
    }

    fn named_weight(p: &Profile, name: &str) -> Result<Weight, WriteError> {
        let vt = p.value_type_index(name).ok_or_else(|| {
            err(format!(
                "the profile has no value type {name:?} (it has {})",
                type_list(p)
            ))
        })?;
        let unit = p.value_type_names(vt).1;
        if let Some(f) = time_unit_ns(unit) {
            return Ok(Weight::Time(vt, f));
        }
        if is_count_unit(unit) {
            return Ok(Weight::Count(vt));
        }
        Err(err(format!(
            "value type {name:?} is measured in {unit}; Rprof lines are timer ticks, so only \
             a count or a time can say how many lines a sample becomes"
        )))
    }

    fn default_weight(
        p: &Profile,
        samples: Option<ValueTypeIndex>,
        time: Option<(ValueTypeIndex, f64)>,
    ) -> Result<Weight, WriteError> {
        if let Some(vt) = samples {
            return Ok(Weight::Count(vt));
        }
        if let Some((vt, f)) = time {
            return Ok(Weight::Time(vt, f));
        }
        if let Some(vt) = p
            .default_value_type()
            .filter(|&vt| is_count_unit(p.value_type_names(vt).1))
        {
            return Ok(Weight::Count(vt));
        }
        if p.values.is_empty() {
            return Err(err(
                "the profile has no value types, so nothing says how many timer ticks a \
                 sample stands for",
            ));
        }
        Err(err(format!(
            "Rprof lines are timer ticks, but this profile has neither sample counts nor \
             times (value types: {}); name a count type in value_type to write one line per \
             unit",
            type_list(p)
        )))
    }
}

fn type_list(p: &Profile) -> String {
    (0..p.values.len())
        .filter_map(ValueTypeIndex::from_usize)
        .map(|vt| {
            let (t, u) = p.value_type_names(vt);
            format!("{t}/{u}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A run: one header and the samples after it.
struct Run {
    /// Index into the stored headers (meta `rprof.header`), if known.
    stored_header: Option<usize>,
    samples: Vec<usize>,
}

/// What one run's body used, for its header.
#[derive(Default)]
struct RunFlags {
    memory: bool,
    gc: bool,
    line: bool,
}

struct Writer<'p> {
    p: &'p Profile,
    plan: Plan,
    warnings: Warnings,
    stored_headers: Vec<Header>,
    /// Per-run: file path → number.
    file_numbers: FxHashMap<StringId, u32>,
    /// Per-run: stack node → its text in `stack_text`.
    stack_cache: FxHashMap<u32, Range<usize>>,
    stack_text: Vec<u8>,
    /// Files first used by the stack being rendered.
    new_files: Vec<StringId>,
    flags: RunFlags,
    /// Functions whose start line the reader cannot recover, by index.
    lost_start_lines: BTreeSet<usize>,
    /// Smallest written line per function.
    min_written_line: FxHashMap<usize, i32>,
    /// Value types that were used.
    used_types: BTreeSet<usize>,
    elapsed_us: f64,
    time_mismatch: bool,
}

impl<'p> Writer<'p> {
    fn new(p: &'p Profile, plan: Plan) -> Self {
        let stored_headers = p
            .meta_values(META_HEADER)
            .filter_map(|h| Header::parse(h.as_bytes()).ok())
            .collect();
        let mut used_types = BTreeSet::new();
        match plan.weight {
            Weight::Count(vt) | Weight::Time(vt, _) => used_types.insert(vt.idx()),
        };
        used_types.extend(plan.count.map(|vt| vt.idx()));
        used_types.extend(plan.time.map(|(vt, _)| vt.idx()));
        used_types.extend(plan.memory.iter().flatten().map(|vt| vt.idx()));
        if plan.memory.is_some() {
            used_types.extend(p.value_type_index(TYPE_MEMORY_INCREASE.0).map(|v| v.idx()));
        }
        Writer {
            p,
            plan,
            warnings: Warnings::default(),
            stored_headers,
            file_numbers: FxHashMap::default(),
            stack_cache: FxHashMap::default(),
            stack_text: Vec::new(),
            new_files: Vec::new(),
            flags: RunFlags::default(),
            lost_start_lines: BTreeSet::new(),
            min_written_line: FxHashMap::default(),
            used_types,
            elapsed_us: 0.0,
            time_mismatch: false,
        }
    }

    fn warn(&mut self, kind: &str, message: impl FnOnce() -> String) {
        self.warnings.add(FORMAT, kind, message);
    }

    /// Splits the samples into runs by `.rprof_run` (files with several headers), else one.
    fn runs(&mut self, samples: &[usize]) -> Vec<Run> {
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
    fn time_and_count(&self, s: usize) -> Option<(f64, f64)> {
        let (count_vt, (time_vt, ns)) = (self.plan.count?, self.plan.time?);
        let count = self.p.value_column(count_vt)?.get(s)?;
        let us = self.p.value_column(time_vt)?.get(s)? * ns / 1000.0;
        (count > 0.0 && us.is_finite() && us > 0.0).then_some((us, count))
    }

    /// The interval of sample `s` in µs as its time / count says, if both exist.
    fn sample_interval(&self, s: usize) -> Option<f64> {
        self.time_and_count(s).map(|(us, count)| us / count)
    }

    /// The mean interval of `samples`, Σ time / Σ count, in µs: with it, the file's total time
    /// is the samples' total time even when their own times vary (as `.cpuprofile` deltas do).
    fn mean_interval(&self, samples: impl Iterator<Item = usize>) -> Option<f64> {
        let (us, count) = samples
            .filter_map(|s| self.time_and_count(s))
            .fold((0.0, 0.0), |(u, c), (us, count)| (u + us, c + count));
        (count > 0.0).then(|| us / count)
    }

    /// Refuses to merge sources with different intervals into one run.
    fn check_source_intervals(&self, samples: &[usize], n_runs: usize) -> Result<(), WriteError> {
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
    fn run_interval(&mut self, run: &Run) -> u64 {
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

    fn write_run(&mut self, run: &Run, out: &mut Vec<u8>) -> Result<(), WriteError> {
        self.file_numbers.clear();
        self.stack_cache.clear();
        self.stack_text.clear();
        self.flags = RunFlags::default();
        let interval = self.run_interval(run);
        let mut body = Vec::with_capacity(run.samples.len().saturating_mul(64).min(1 << 30));
        for &s in &run.samples {
            self.write_sample(s, interval, out.len(), &mut body)?;
        }
        let stored = run.stored_header.and_then(|h| self.stored_headers.get(h));
        let header = Header {
            memory: self.flags.memory || stored.is_some_and(|h| h.memory),
            gc: self.flags.gc || stored.is_some_and(|h| h.gc),
            line: self.flags.line || stored.is_some_and(|h| h.line),
            interval_us: interval,
        };
        out.extend_from_slice(header.render().as_bytes());
        out.push(b'\n');
        out.extend_from_slice(&body);
        Ok(())
    }

    /// Writes the lines of sample `s` to `out`; `before` bytes were written before `out`.
    fn write_sample(
        &mut self,
        s: usize,
        interval: u64,
        before: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), WriteError> {
        let lines = self.line_count(s, interval);
        self.check_time(s, interval, lines);
        if lines == 0 {
            return Ok(());
        }
        let memory = self.memory_prefix(s);
        let stack = self.p.sample_stack(SampleIndex(s as u32));
        if stack.is_none() && memory.is_none() {
            self.warn("empty-stack", || {
                format!(
                    "sample {} has no frames and no memory values; R writes no line for such \
                     a sample, so it was left out",
                    s + 1
                )
            });
            return Ok(());
        }
        let text = self.render_stack(stack, out);
        let toplevel = self.toplevel_srcref(s, out);
        let line_bytes = memory.as_ref().map_or(0, String::len) + text.len() + toplevel.len() + 1;
        let total = usize::try_from(lines)
            .ok()
            .and_then(|l| l.checked_mul(line_bytes))
            .and_then(|b| b.checked_add(out.len() + before));
        if total.is_none_or(|t| t > MAX_OUTPUT_BYTES) {
            return Err(err(format!(
                "sample {} stands for {lines} ticks; one line per tick would make the Rprof file \
                 larger than {} MiB",
                s + 1,
                MAX_OUTPUT_BYTES >> 20
            )));
        }
        for _ in 0..lines {
            if let Some(m) = &memory {
                out.extend_from_slice(m.as_bytes());
            }
            out.extend_from_slice(self.stack_text.get(text.clone()).unwrap_or_default());
            out.extend_from_slice(toplevel.as_bytes());
            out.push(b'\n');
        }
        Ok(())
    }

    /// The number of lines for sample `s` (0 for samples without a usable value).
    fn line_count(&mut self, s: usize, interval: u64) -> u64 {
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
    fn check_time(&mut self, s: usize, interval: u64, lines: u64) {
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

    /// `:small:large:nodes:dups:` when the sample has all four raw memory values.
    fn memory_prefix(&mut self, s: usize) -> Option<String> {
        let types = self.plan.memory?;
        let mut v = [0f64; 4];
        for (slot, vt) in v.iter_mut().zip(types) {
            *slot = self.p.value_column(vt)?.get(s)?;
        }
        let fields = [v[0] / 8.0, v[1] / 8.0, v[2], v[3]];
        let mut whole = [0u64; 4];
        for (w, f) in whole.iter_mut().zip(fields) {
            if !(f.is_finite() && f >= 0.0 && close(f, f.round())) {
                self.warn("memory-fraction", || {
                    format!(
                        "sample {} has memory values Rprof cannot write exactly (vector sizes \
                         must be multiples of 8 bytes, all values whole and non-negative); \
                         rounded",
                        s + 1
                    )
                });
            }
            *w = f.round().max(0.0) as u64;
        }
        self.flags.memory = true;
        Some(format!(
            ":{}:{}:{}:{}:",
            whole[0], whole[1], whole[2], whole[3]
        ))
    }

    /// The text of a stack (frames leaf first, each followed by a space), rendered once per
    /// run; `#File` lines for files it uses first are written to `out`.
    fn render_stack(&mut self, stack: Option<StackIndex>, out: &mut Vec<u8>) -> Range<usize> {
        let Some(node) = stack else {
            return 0..0;
        };
        if let Some(r) = self.stack_cache.get(&node.0) {
            return r.clone();
        }
        let start = self.stack_text.len();
        let frames: Vec<LocationIndex> = self.p.frames_leaf_first(stack).collect();
        for loc in frames {
            self.render_frame(loc);
        }
        self.declare_new_files(out);
        let range = start..self.stack_text.len();
        self.stack_cache.insert(node.0, range.clone());
        range
    }

    fn render_frame(&mut self, loc: LocationIndex) {
        let p = self.p;
        let f = p.location_function(loc);
        let line = p.locations.line.get(loc.idx()).copied().unwrap_or(0);
        let filename = f
            .and_then(|f| p.functions.filename.get(f.idx()).copied())
            .unwrap_or(StringId::NA);
        match (filename.is_na(), line >= 1) {
            (false, true) => {
                let number = self.file_number(filename);
                self.stack_text
                    .extend_from_slice(format!("{number}#{line} ").as_bytes());
                self.flags.line = true;
                if let Some(f) = f {
                    let m = self.min_written_line.entry(f.idx()).or_insert(line);
                    *m = (*m).min(line);
                }
            }
            (false, false) => self.warn("file-no-line", || {
                format!(
                    "frames in file {:?} without a line number: Rprof names a frame's file only \
                     with `F#L`, so the file is lost",
                    p.str(filename)
                )
            }),
            (true, true) => self.warn("line-no-file", || {
                format!(
                    "frames with a line number ({line}) but no file: Rprof needs the file for \
                     `F#L`, so the line is lost"
                )
            }),
            (true, false) => {}
        }
        let name = self.frame_name(loc, f);
        if name == "<GC>" {
            self.flags.gc = true;
        }
        self.stack_text.push(b'"');
        self.stack_text.extend_from_slice(name.as_bytes());
        self.stack_text.extend_from_slice(b"\" ");
    }

    /// The name to write: the function's name made safe for one Rprof line.
    fn frame_name(&mut self, loc: LocationIndex, f: Option<FunctionIndex>) -> String {
        let p = self.p;
        let mut name = p.frame_display_name(loc);
        if let Some(f) = f {
            let system = p.functions.system_name.get(f.idx()).copied();
            let own = p.functions.name.get(f.idx()).copied();
            if system.is_some_and(|sys| !sys.is_na() && Some(sys) != own) {
                let shown = name.clone();
                self.warn("system-name", || {
                    format!(
                        "functions whose system_name differs from name (e.g. {shown:?}): Rprof \
                         has one name per frame, so system_name is lost"
                    )
                });
            }
        }
        if name.is_empty() {
            self.warn("empty-name", || {
                format!("functions without a name were written as {ANONYMOUS}")
            });
            name = ANONYMOUS.to_owned();
        }
        if name.contains(['\n', '\r']) && !line_breaks_read_back(&name) {
            name = name.replace(['\n', '\r'], " ");
            let shown = name.clone();
            self.warn("newline", || {
                format!(
                    "function names with line breaks that would not read back (e.g. {shown:?}: \
                     a carriage return, or a line starting like an Rprof line); line breaks \
                     were replaced by spaces"
                )
            });
        }
        if ambiguous_name(name.as_bytes()) {
            let shown = name.clone();
            self.warn("ambiguous", || {
                format!(
                    "function names containing `\" \"` or `\" ` before a digit (e.g. {shown:?}) \
                     are written raw, as R does, and will read back as several frames"
                )
            });
        }
        name
    }

    fn file_number(&mut self, path: StringId) -> u32 {
        if let Some(&n) = self.file_numbers.get(&path) {
            return n;
        }
        let n = u32::try_from(self.file_numbers.len() + 1).unwrap_or(u32::MAX);
        self.file_numbers.insert(path, n);
        self.new_files.push(path);
        n
    }

    fn declare_new_files(&mut self, out: &mut Vec<u8>) {
        for path in std::mem::take(&mut self.new_files) {
            let n = self.file_numbers.get(&path).copied().unwrap_or(0);
            out.extend_from_slice(format!("#File {n}: {}\n", self.p.str(path)).as_bytes());
        }
    }

    /// `F#L ` of a top-level source reference (written after the last frame).
    fn toplevel_srcref(&mut self, s: usize, out: &mut Vec<u8>) -> String {
        let ext = &self.p.samples.ext;
        let file = ext.chr(COL_TOPLEVEL_FILE).and_then(|c| c.get(s).copied());
        let line = ext.int(COL_TOPLEVEL_LINE).and_then(|c| c.get(s).copied());
        match (file, line) {
            (Some(file), Some(line)) if !file.is_na() && line >= 1 => {
                let n = self.file_number(file);
                self.declare_new_files(out);
                self.flags.line = true;
                format!("{n}#{line} ")
            }
            _ => String::new(),
        }
    }

    /// Warns about everything in the profile that no line carries.
    fn report_unwritten(&mut self) {
        let p = self.p;
        let unused: Vec<String> = (0..p.values.len())
            .filter(|i| !self.used_types.contains(i))
            .filter_map(ValueTypeIndex::from_usize)
            .map(|vt| {
                let (t, u) = p.value_type_names(vt);
                format!("{t}/{u}")
            })
            .collect();
        if !unused.is_empty() {
            self.warnings.push(Warning::new(
                FORMAT,
                format!(
                    "value types Rprof cannot hold were left out: {}",
                    unused.join(", ")
                ),
                unused.len(),
            ));
        }
        self.report_start_lines();
        let extras = extension_names(p);
        if !extras.is_empty() {
            self.warnings.push(Warning::new(
                FORMAT,
                format!("left out (no place in Rprof): {}", extras.join(", ")),
                extras.len(),
            ));
        }
    }

    fn report_start_lines(&mut self) {
        let p = self.p;
        for (&f, &min) in &self.min_written_line {
            if p.functions
                .start_line
                .get(f)
                .is_some_and(|&s| s > 0 && s != min)
            {
                self.lost_start_lines.insert(f);
            }
        }
        let written_without_line = p
            .functions
            .start_line
            .iter()
            .enumerate()
            .filter(|(f, &s)| s > 0 && !self.min_written_line.contains_key(f))
            .count();
        let lost = self.lost_start_lines.len() + written_without_line;
        if lost > 0 {
            self.warnings.push(Warning::new(
                FORMAT,
                format!(
                    "functions.start_line of {lost} functions is lost: Rprof has no start \
                     lines (reading it back gives the smallest line seen, else 0)"
                ),
                1,
            ));
        }
    }
}

/// Extension columns, tables and meta keys that Rprof does not carry.
fn extension_names(p: &Profile) -> Vec<String> {
    let known_sample_cols = [SAMPLE_TIME, COL_RUN, COL_TOPLEVEL_FILE, COL_TOPLEVEL_LINE];
    let mut names: Vec<String> = Vec::new();
    let cols = |table: &str, ext: &crate::model::ExtColumns, skip: &[&str]| -> Vec<String> {
        ext.columns
            .iter()
            .filter(|c| !skip.contains(&c.name.as_str()))
            .map(|c| format!("{table}.{}", c.name))
            .collect()
    };
    names.extend(cols("samples", &p.samples.ext, &known_sample_cols));
    names.extend(cols("locations", &p.locations.ext, &[]));
    names.extend(cols("functions", &p.functions.ext, &[]));
    names.extend(cols("sources", &p.sources.ext, &[]));
    names.extend(
        p.ext_tables
            .iter()
            .filter(|t| !t.is_empty())
            .map(|t| format!("table {}", t.name)),
    );
    let known_meta = [
        crate::model::META_VERSION,
        crate::model::META_DEFAULT_TYPE,
        META_HEADER,
    ];
    let mut meta: Vec<String> = p
        .meta
        .key
        .iter()
        .map(|&k| p.str(k))
        .filter(|k| !known_meta.contains(k))
        .map(|k| format!("meta {k}"))
        .collect();
    meta.dedup();
    names.extend(meta);
    names
}

/// The sampling period from meta (`period` / `pprof.period` with a time unit from
/// `period_type` / `pprof.period_type`, either `unit` or `type/unit`), in µs.
fn meta_period_us(p: &Profile) -> Option<f64> {
    ["", "pprof."].iter().find_map(|prefix| {
        let value: f64 = p
            .meta_value(&format!("{prefix}period"))?
            .trim()
            .parse()
            .ok()?;
        let unit_text = p
            .meta_value(&format!("{prefix}period_unit"))
            .or_else(|| p.meta_value(&format!("{prefix}period_type")))
            .unwrap_or("nanoseconds");
        let unit = unit_text.rsplit('/').next().unwrap_or(unit_text);
        let ns = time_unit_ns(unit)?;
        let us = value * ns / 1000.0;
        (us.is_finite() && us > 0.0).then_some(us)
    })
}

/// True when a name with line breaks, written raw as R writes it, reads back as one name: no
/// carriage return, and every line it starts is a continuation to the reader.
fn line_breaks_read_back(name: &str) -> bool {
    !name.contains('\r')
        && name
            .split('\n')
            .skip(1)
            .all(|rest| super::read::is_continuation(rest.as_bytes()))
}

/// True when the reader would end the name early: `" "`, `" ` + digit, or `" ` at its end.
pub(super) fn ambiguous_name(name: &[u8]) -> bool {
    name.windows(2)
        .enumerate()
        .any(|(i, w)| w == b"\" " && matches!(name.get(i + 2), None | Some(b'"' | b'0'..=b'9')))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= TOLERANCE * a.abs().max(b.abs()).max(1.0)
}
