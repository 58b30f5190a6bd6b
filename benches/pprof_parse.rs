//! pprof parse speed and peak memory, next to `go tool pprof -top` on the same file.
//!
//! `cargo bench --bench pprof_parse` generates a synthetic CPU profile with proftab's own
//! writer (a random call tree walked depth-first, 10–60 frames per stack, 5,000 functions,
//! like shared/bench/gen/gen_profile.py), at least 500,000 samples and 25 MB uncompressed,
//! then times `formats::pprof::read` on the raw and the gzipped bytes (best of 3) and
//! measures the peak heap of one parse with a counting allocator. When `go` is installed it
//! also times `go tool pprof -top` on the gzipped file (wall time, and max RSS when
//! `/usr/bin/time` exists). Set `PPROF_BENCH_SAMPLES` to change the sample count and
//! `PPROF_BENCH_SKIP_GO` to leave out Go.

#![allow(unsafe_code)] // the counting allocator below
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use proftab::formats::{gzip, pprof, ReadOptions, WriteOptions};
use proftab::model::{LocationIndex, Profile, ProfileBuilder};

mod common;
use common::{cpu_time, CountingAlloc, CURRENT, PEAK};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Minimum size of the generated profile.
const MIN_SAMPLES: usize = 500_000;
const MIN_RAW_BYTES: usize = 25_000_000;
const VOCABULARY: usize = 5_000;
const MIN_DEPTH: usize = 10;
const MAX_DEPTH: usize = 60;

/// xorshift64*: deterministic, dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn function_name(rng: &mut Rng, i: usize) -> String {
    const PARTS: [&str; 12] = [
        "runtime",
        "net/http",
        "encoding/json",
        "github.com/acme/db",
        "sync",
        "compress",
        "parser",
        "render",
        "sched",
        "cache",
        "crypto",
        "index",
    ];
    const VERBS: [&str; 8] = [
        "read", "write", "Handle", "Parse", "emit", "flush", "Lookup", "run",
    ];
    let pkg = PARTS[rng.below(PARTS.len())];
    let verb = VERBS[rng.below(VERBS.len())];
    format!("{pkg}.(*Type{}).{verb}Block{i}", rng.below(50))
}

/// A synthetic profile: stacks walked depth-first through a fixed random call graph, so
/// neighbouring samples share prefixes; heavy-tailed counts; samples/count + cpu/nanoseconds.
fn synthetic_profile(samples: usize) -> Profile {
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let mut b = ProfileBuilder::new();
    let src = b.add_source("pprof", None, None);
    let count = b.value_type("samples", "count");
    let cpu = b.value_type("cpu", "nanoseconds");
    b.set_meta(pprof::META_PERIOD, "10000000");
    b.set_meta(pprof::META_PERIOD_TYPE, "cpu");
    b.set_meta(pprof::META_PERIOD_UNIT, "nanoseconds");
    let locations: Vec<LocationIndex> = (0..VOCABULARY)
        .map(|i| {
            let name = function_name(&mut rng, i);
            let f = b.function_named(&name, Some("synthetic.go"));
            b.location(Some(f), (i % 900 + 1) as i32)
        })
        .collect();
    let callees: Vec<Vec<usize>> = (0..VOCABULARY)
        .map(|_| {
            (0..3 + rng.below(6))
                .map(|_| rng.below(VOCABULARY))
                .collect()
        })
        .collect();
    let mut stack: Vec<usize> = vec![0];
    for _ in 0..samples {
        let keep = 1 + rng.below(stack.len());
        stack.truncate(keep.max(1));
        let depth = MIN_DEPTH + rng.below(MAX_DEPTH - MIN_DEPTH + 1);
        while stack.len() < depth {
            let top = stack[stack.len() - 1];
            let list = &callees[top];
            // Zipf-ish: the first callees are picked far more often.
            let pick = list[rng.below(list.len()).min(rng.below(list.len()))];
            stack.push(pick);
        }
        stack.truncate(depth);
        let frames: Vec<LocationIndex> = stack.iter().map(|&f| locations[f]).collect();
        let node = b.stack_root_first(&frames);
        let n = 1 + (rng.below(1000) * rng.below(1000)) / 200; // heavy-tailed 1..5000
        b.add_sample_with_values(src, node, &[(count, n as f64), (cpu, n as f64 * 1e7)]);
    }
    b.build().unwrap()
}

/// Best-of-3 wall time and CPU time of `f`, and the peak heap of one run above what was live
/// before it.
fn measure<T>(mut f: impl FnMut() -> T) -> (Duration, Option<Duration>, usize) {
    let mut best = Duration::MAX;
    let mut best_cpu: Option<Duration> = None;
    let mut peak = 0;
    for _ in 0..3 {
        let base = CURRENT.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let cpu_start = cpu_time();
        let start = Instant::now();
        let out = f();
        best = best.min(start.elapsed());
        if let (Some(a), Some(b)) = (cpu_start, cpu_time()) {
            let cpu = b.saturating_sub(a);
            best_cpu = Some(best_cpu.map_or(cpu, |c| c.min(cpu)));
        }
        peak = peak.max(PEAK.load(Ordering::Relaxed) - base);
        drop(out);
    }
    (best, best_cpu, peak)
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

/// Wall time and max RSS (KiB, when /usr/bin/time exists) of `go tool pprof -top FILE`.
fn go_pprof_top(file: &std::path::Path) -> Option<(Duration, Option<u64>)> {
    if std::env::var_os("PPROF_BENCH_SKIP_GO").is_some() {
        return None;
    }
    Command::new("go").arg("version").output().ok()?;
    let time = std::path::Path::new("/usr/bin/time");
    let mut best: Option<(Duration, Option<u64>)> = None;
    for _ in 0..2 {
        let mut cmd = if time.exists() {
            let mut c = Command::new(time);
            c.args(["-f", "maxrss_kib=%M", "go"]);
            c
        } else {
            Command::new("go")
        };
        cmd.args(["tool", "pprof", "-symbolize=none", "-top"])
            .arg(file);
        let start = Instant::now();
        let out = cmd.output().ok()?;
        let wall = start.elapsed();
        if !out.status.success() {
            eprintln!(
                "go tool pprof failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            return None;
        }
        let rss = String::from_utf8_lossy(&out.stderr)
            .lines()
            .find_map(|l| l.strip_prefix("maxrss_kib=")?.trim().parse().ok());
        if best.is_none_or(|(b, _)| wall < b) {
            best = Some((wall, rss));
        }
    }
    best
}

fn main() {
    let samples: usize = std::env::var("PPROF_BENCH_SAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(MIN_SAMPLES + MIN_SAMPLES / 10);
    let t = Instant::now();
    let profile = synthetic_profile(samples);
    let raw = pprof::write_uncompressed(&profile, &WriteOptions::default())
        .unwrap()
        .bytes;
    drop(profile);
    let gz = gzip::gzip(&raw);
    let check = pprof::read(&raw, &ReadOptions::default()).unwrap().profile;
    let n = check.num_samples();
    drop(check);
    println!(
        "generated in {:.1?}: {n} samples, {:.1} MB raw, {:.1} MB gzipped",
        t.elapsed(),
        mb(raw.len()),
        mb(gz.len())
    );
    if samples >= MIN_SAMPLES {
        assert!(
            n >= MIN_SAMPLES && raw.len() >= MIN_RAW_BYTES,
            "profile too small"
        );
    }
    let dir = std::env::temp_dir().join("proftab-bench");
    std::fs::create_dir_all(&dir).unwrap();
    let gz_path = dir.join("synthetic.pb.gz");
    std::fs::write(&gz_path, &gz).unwrap();

    let options = ReadOptions::default();
    let raw_run = measure(|| pprof::read(&raw, &options).unwrap());
    let gz_run = measure(|| pprof::read(&gz, &options).unwrap());
    let gunzip_run = measure(|| gzip::gunzip_capped(&gz, usize::MAX, "bench").unwrap());
    println!("| what | wall time | CPU time | MB/s (uncompressed, by CPU time) | peak heap |");
    println!("| --- | --- | --- | --- | --- |");
    for (what, (wall, cpu, peak)) in [
        ("proftab pprof::read, raw protobuf", raw_run),
        ("proftab pprof::read, gzipped", gz_run),
        ("of which gzip::gunzip_capped", gunzip_run),
    ] {
        let secs = cpu.unwrap_or(wall).as_secs_f64().max(0.01);
        println!(
            "| {what} | {:.2} s | {} | {:.0} | {:.0} MB ({:.2}× the raw size) |",
            wall.as_secs_f64(),
            cpu.map_or("n/a".to_owned(), |c| format!("{:.2} s", c.as_secs_f64())),
            mb(raw.len()) / secs,
            mb(peak),
            peak as f64 / raw.len() as f64
        );
    }
    match go_pprof_top(&gz_path) {
        Some((wall, rss)) => println!(
            "| go tool pprof -top (gzipped file, whole process) | {:.2} s | n/a | {:.0} (by wall time) | {} |",
            wall.as_secs_f64(),
            mb(raw.len()) / wall.as_secs_f64(),
            rss.map_or("n/a".to_owned(), |k| format!(
                "{:.0} MB max RSS",
                k as f64 / 1024.0
            ))
        ),
        None => eprintln!("SKIP: go not available; no go tool pprof comparison"),
    }
}
