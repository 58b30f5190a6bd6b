//! Rprof parse (and write) throughput and peak memory on a generated ≥ 50 MB file.
//!
//! `cargo bench --bench rprof_parse` (release). Peak memory is the process's peak resident
//! set (Linux `VmHWM`), reset before each measured step through `/proc/self/clear_refs`, so
//! it includes the input buffer held during the step; elsewhere it is not reported.

#![allow(clippy::expect_used)]

#[path = "../tests/support/rprof_gen.rs"]
mod rprof_gen;

use std::time::Instant;

use proftab::formats::{rprof, ReadOptions, WriteOptions};

/// Size of the generated input.
const INPUT_BYTES: usize = 60 * 1024 * 1024;
/// Size of the worst-case input (every line a new stack).
const UNIQUE_BYTES: usize = 20 * 1024 * 1024;
/// Timed repetitions; the best is reported.
const ROUNDS: usize = 3;

/// Peak resident set in bytes (Linux), if available.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Current resident set in bytes (Linux), if available.
fn current_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// CPU seconds used by this process so far (Linux), for timings on a busy machine.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn mib(b: u64) -> f64 {
    b as f64 / 1_048_576.0
}

fn main() {
    let input = rprof_gen::generate(INPUT_BYTES, 0x5eed);
    let mb = input.len() as f64 / 1e6;
    println!("input: {:.1} MB generated Rprof", mb);
    let cpu_before = cpu_seconds();
    let mut best_read = f64::INFINITY;
    let mut peak = None;
    let mut parsed = None;
    for _ in 0..ROUNDS {
        drop(parsed.take());
        let base = current_rss();
        reset_peak();
        let t = Instant::now();
        let p = rprof::read(&input, &ReadOptions::default()).expect("generated file reads");
        let secs = t.elapsed().as_secs_f64();
        best_read = best_read.min(secs);
        if let (Some(hw), Some(base)) = (peak_rss(), base) {
            peak = Some((hw, hw.saturating_sub(base)));
        }
        parsed = Some(p);
    }
    let cpu_read = cpu_before.and_then(|b| Some((cpu_seconds()? - b) / ROUNDS as f64));
    let parsed = parsed.expect("at least one round");
    let p = &parsed.profile;
    println!(
        "read:  {:.0} MB/s ({:.3} s; {} samples, {} functions, {} locations, {} stack nodes)",
        mb / best_read,
        best_read,
        p.num_samples(),
        p.functions.name.len(),
        p.locations.line.len(),
        p.stacks.prefix.len()
    );
    if let Some(c) = cpu_read {
        println!(
            "read:  {:.0} MB/s by CPU time (mean of {ROUNDS} rounds)",
            mb / c
        );
    }
    if let Some((hw, growth)) = peak {
        println!(
            "read peak memory: {:.0} MiB resident ({:.0} MiB above the {:.0} MiB before reading; \
             {:.2} × input)",
            mib(hw),
            mib(growth),
            mib(hw - growth),
            growth as f64 / input.len() as f64
        );
    }
    let mut best_write = f64::INFINITY;
    let mut out_len = 0;
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let w = rprof::write(p, &WriteOptions::default()).expect("writes");
        best_write = best_write.min(t.elapsed().as_secs_f64());
        out_len = w.bytes.len();
    }
    println!(
        "write: {:.0} MB/s ({:.3} s, {:.1} MB, identical to input: {})",
        out_len as f64 / 1e6 / best_write,
        best_write,
        out_len as f64 / 1e6,
        out_len == input.len()
    );
    worst_case();
}

/// Every line a new deep stack: the builder's stack table, not scanning, sets the pace.
fn worst_case() {
    let input = rprof_gen::generate_unique(UNIQUE_BYTES, 0x5eed);
    let mb = input.len() as f64 / 1e6;
    let wall = Instant::now();
    let cpu = cpu_seconds();
    let parsed = rprof::read(&input, &ReadOptions::default()).expect("generated file reads");
    let wall = wall.elapsed().as_secs_f64();
    let cpu = cpu.and_then(|before| Some(cpu_seconds()? - before));
    println!(
        "worst case (every line a new stack, {mb:.1} MB): {:.0} MB/s wall{}; {} stack nodes",
        mb / wall,
        cpu.map_or(String::new(), |c| format!(", {:.0} MB/s CPU", mb / c)),
        parsed.profile.stacks.prefix.len()
    );
}
