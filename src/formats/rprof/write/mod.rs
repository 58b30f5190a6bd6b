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
//!
//! One step a file: [`plan`] picks the value types, [`ticks`] the runs, intervals and line
//! counts, [`lines`] renders a line, [`names`] makes names safe, [`unwritten`] reports what is
//! left out. This file holds the writer's state and writes runs and samples.

mod lines;
mod names;
mod plan;
mod ticks;
mod unwritten;

use std::collections::BTreeSet;
use std::ops::Range;

use super::header::Header;
use super::*;
use crate::formats::{Warnings, WriteError, WriteOptions, Written};
use crate::hash::HashMap;
use crate::model::{Profile, SampleIndex, StringId};
use plan::{Plan, Weight};

/// Interval used when the profile says nothing about one, in microseconds (R's default).
pub const DEFAULT_INTERVAL_US: u64 = 10_000;
/// Relative tolerance for comparing intervals and for calling a count integral.
const TOLERANCE: f64 = 1e-9;
/// Largest Rprof output, in bytes, unless [`WriteOptions::max_output_bytes`] says otherwise:
/// counts that would expand beyond it are refused.
pub const MAX_OUTPUT_BYTES: usize = 512 << 20;

/// Writes `profile` as Rprof text.
pub fn write(profile: &Profile, options: &WriteOptions) -> Result<Written, WriteError> {
    let samples = selected_samples(profile, options)?;
    let plan = Plan::new(profile, options)?;
    let max_output_bytes = options.max_output_bytes.unwrap_or(MAX_OUTPUT_BYTES);
    let mut w = Writer::new(profile, plan, max_output_bytes);
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

/// `n` bytes as the refusal names the limit: whole MiB when it is some, else bytes.
fn byte_size(n: usize) -> String {
    if n >= 1 << 20 && n % (1 << 20) == 0 {
        format!("{} MiB", n >> 20)
    } else {
        format!("{n} bytes")
    }
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
    file_numbers: HashMap<StringId, u32>,
    /// Per-run: stack node → its text in `stack_text`.
    stack_cache: HashMap<u32, Range<usize>>,
    stack_text: Vec<u8>,
    /// Files first used by the stack being rendered.
    new_files: Vec<StringId>,
    flags: RunFlags,
    /// Functions whose start line the reader cannot recover, by index.
    lost_start_lines: BTreeSet<usize>,
    /// Smallest written line per function.
    min_written_line: HashMap<usize, i32>,
    /// Value types that were used.
    used_types: BTreeSet<usize>,
    elapsed_us: f64,
    time_mismatch: bool,
    /// The most bytes the output may have (see [`WriteOptions::max_output_bytes`]).
    max_output_bytes: usize,
}

impl<'p> Writer<'p> {
    fn new(p: &'p Profile, plan: Plan, max_output_bytes: usize) -> Self {
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
            // Derived from the raw totals the file holds: the reader computes them again.
            for (derived, _) in [TYPE_MEMORY_INCREASE, TYPE_MEMORY_FREED] {
                used_types.extend(p.value_type_index(derived).map(|v| v.idx()));
            }
        }
        Writer {
            p,
            plan,
            warnings: Warnings::default(),
            stored_headers,
            file_numbers: HashMap::default(),
            stack_cache: HashMap::default(),
            stack_text: Vec::new(),
            new_files: Vec::new(),
            flags: RunFlags::default(),
            lost_start_lines: BTreeSet::new(),
            min_written_line: HashMap::default(),
            used_types,
            elapsed_us: 0.0,
            time_mismatch: false,
            max_output_bytes,
        }
    }

    fn warn(&mut self, kind: &str, message: impl FnOnce() -> String) {
        self.warnings.add(FORMAT, kind, message);
    }
}

impl Writer<'_> {
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
        if total.is_none_or(|t| t > self.max_output_bytes) {
            return Err(err(format!(
                "sample {} stands for {lines} ticks; one line per tick would make the Rprof file \
                 larger than {}",
                s + 1,
                byte_size(self.max_output_bytes)
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
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= TOLERANCE * a.abs().max(b.abs()).max(1.0)
}
