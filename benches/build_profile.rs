//! Builds a large profile through [`ProfileBuilder`] the way a reader does and reports the build
//! time (median of [`RUNS`]), the peak heap (counted by a global allocator) and the time of
//! [`function_table`] on the result.
//!
//! Input: [`SAMPLES`] samples over [`DISTINCT_STACKS`] distinct stacks of depth [`DEPTH`]. The
//! stacks share prefixes as real call trees do: each new stack copies a random-length prefix of
//! an earlier one and continues with random frames. Like a pprof reader, the build resolves
//! each sample's input location ids to `LocationIndex`es, calls `stack_leaf_first`, and adds the
//! sample with a `samples`/`count` and a `cpu`/`nanoseconds` value and a `.time` cell.
//!
//! Run with `cargo bench --bench build_profile`. Fails (exit 1) when the peak heap of a build
//! exceeds [`PEAK_BUDGET_BYTES`].
#![allow(unsafe_code)] // the counting allocator must implement the unsafe GlobalAlloc trait
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use proftab::analysis::functions::function_table;
use proftab::model::{Cell, LocationIndex, Profile, ProfileBuilder, SAMPLE_TIME};

/// Number of samples built.
const SAMPLES: usize = 1_000_000;
/// Frames per stack.
const DEPTH: usize = 50;
/// Distinct stacks the samples are drawn from.
const DISTINCT_STACKS: usize = 20_000;
/// Distinct functions frames are drawn from.
const FUNCTIONS: usize = 5_000;
/// Distinct (function, line) locations.
const LOCATIONS: usize = 20_000;
/// Timed repetitions; the median is reported (`PROFTAB_BENCH_RUNS` overrides it).
const RUNS: usize = 5;
/// The peak heap a build may use.
const PEAK_BUDGET_BYTES: usize = 100 * 1024 * 1024;
/// Sampling interval of the synthetic profile (10 ms).
const INTERVAL_NS: f64 = 10_000_000.0;

mod common;
use common::{cpu_time, CountingAlloc, CURRENT, PEAK};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

#[path = "../tests/support/rng.rs"]
mod rng;
use rng::Rng;

/// The decoded input of a reader: location records, stacks of input location ids (leaf first,
/// as pprof lists them) and, per sample, which stack it has.
struct Input {
    /// Input location id `i + 1` is `(function number, line)`.
    locations: Vec<(usize, i32)>,
    /// Input stacks, innermost frame first, as input location ids.
    stacks: Vec<Vec<u64>>,
    /// Per sample, an index into `stacks`.
    sample_stack: Vec<u32>,
}

fn generate_input() -> Input {
    let mut rng = Rng(0x5eed);
    let locations = (0..LOCATIONS)
        .map(|_| (rng.below(FUNCTIONS), 1 + rng.below(2_000) as i32))
        .collect();
    let mut root_first: Vec<Vec<u64>> = Vec::with_capacity(DISTINCT_STACKS);
    for i in 0..DISTINCT_STACKS {
        let mut stack = match i {
            0 => Vec::with_capacity(DEPTH),
            _ => {
                let base = &root_first[rng.below(i)];
                base[..rng.below(DEPTH)].to_vec()
            }
        };
        while stack.len() < DEPTH {
            stack.push(1 + rng.below(LOCATIONS) as u64);
        }
        root_first.push(stack);
    }
    let stacks = root_first
        .into_iter()
        .map(|mut s| {
            s.reverse();
            s
        })
        .collect();
    let sample_stack = (0..SAMPLES)
        .map(|_| rng.below(DISTINCT_STACKS) as u32)
        .collect();
    Input {
        locations,
        stacks,
        sample_stack,
    }
}

/// What a pprof-style reader does: functions and locations first, then per sample resolve the
/// frames, intern the stack and add the row with its values.
fn build(input: &Input) -> Profile {
    let mut b = ProfileBuilder::new();
    let src = b.add_source("bench", Some("synthetic"), None);
    let samples_vt = b.value_type("samples", "count");
    let cpu_vt = b.value_type("cpu", "nanoseconds");
    let function_ids: Vec<_> = (0..FUNCTIONS)
        .map(|f| b.function_named(&format!("pkg{}.function_{f}", f % 97), Some("pkg/file.go")))
        .collect();
    // Input location id `i + 1` is `location_ids[i]` (pprof ids are usually dense).
    let location_ids: Vec<LocationIndex> = input
        .locations
        .iter()
        .map(|&(f, line)| b.add_location(Some(function_ids[f]), line))
        .collect();
    let mut frames = b.take_scratch();
    for (n, &stack) in input.sample_stack.iter().enumerate() {
        frames.clear();
        let ids = &input.stacks[stack as usize];
        frames.extend(ids.iter().map(|&id| location_ids[id as usize - 1]));
        let st = b.stack_leaf_first(&frames);
        let s = b.add_sample_with_values(src, st, &[(samples_vt, 1.0), (cpu_vt, INTERVAL_NS)]);
        b.set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(n as f64 * INTERVAL_NS * 1e-9));
    }
    b.return_scratch(frames);
    b.build().expect("the synthetic profile is valid")
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let runs = std::env::var("PROFTAB_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or(RUNS);
    let input = generate_input();
    let input_bytes = CURRENT.load(Ordering::Relaxed);
    let mut build_times = Vec::with_capacity(runs);
    let mut table_times = Vec::with_capacity(runs);
    let mut build_cpu = Vec::with_capacity(runs);
    let mut peak_over_input = 0;
    let mut summary = String::new();
    for _ in 0..runs {
        let before = CURRENT.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let cpu_start = cpu_time();
        let start = Instant::now();
        let profile = build(&input);
        build_times.push(start.elapsed());
        if let (Some(a), Some(b)) = (cpu_start, cpu_time()) {
            build_cpu.push(b.saturating_sub(a));
        }
        peak_over_input = peak_over_input.max(PEAK.load(Ordering::Relaxed) - before);
        let retained = CURRENT.load(Ordering::Relaxed) - before;
        let vt = profile.default_value_type().expect("two value types");
        let start = Instant::now();
        let table = black_box(function_table(&profile, vt, None));
        table_times.push(start.elapsed());
        summary = format!(
            "profile: {} samples, {} stack nodes, {} locations, {} functions, {:.1} MiB retained; \
             function table: {} rows, total {}",
            profile.num_samples(),
            profile.stacks.prefix.len(),
            profile.locations.line.len(),
            profile.functions.name.len(),
            mib(retained),
            table.rows.len(),
            table.total
        );
    }
    println!(
        "build_profile: {SAMPLES} samples, depth {DEPTH}, {DISTINCT_STACKS} distinct stacks, {runs} runs"
    );
    println!("  {summary}");
    println!(
        "  input (decoded file stand-in): {:.1} MiB",
        mib(input_bytes)
    );
    println!(
        "  build time            median {:>8.1} ms   (runs: {})",
        median(build_times.clone()).as_secs_f64() * 1e3,
        fmt_runs(&build_times)
    );
    if !build_cpu.is_empty() {
        println!(
            "  build CPU time        median {:>8.1} ms   (runs: {})",
            median(build_cpu.clone()).as_secs_f64() * 1e3,
            fmt_runs(&build_cpu)
        );
    }
    println!(
        "  function_table time   median {:>8.1} ms   (runs: {})",
        median(table_times.clone()).as_secs_f64() * 1e3,
        fmt_runs(&table_times)
    );
    println!(
        "  peak heap of a build  {:>8.1} MiB above the input (budget {:.0} MiB)",
        mib(peak_over_input),
        mib(PEAK_BUDGET_BYTES)
    );
    if peak_over_input > PEAK_BUDGET_BYTES {
        eprintln!("build_profile: peak heap over budget");
        std::process::exit(1);
    }
}

fn fmt_runs(v: &[Duration]) -> String {
    v.iter()
        .map(|d| format!("{:.0}", d.as_secs_f64() * 1e3))
        .collect::<Vec<_>>()
        .join(", ")
}
