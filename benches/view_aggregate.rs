#![allow(clippy::expect_used)]
//! Re-aggregation time of the viewer's analysis on 1M samples: building the view, switching
//! the value type, a transform, a search, and a zoomed-out flame-graph query.
//!
//! Run: `cargo bench --bench view_aggregate` (prints one line per step).

use std::time::Instant;

use proftab::analysis::flame::Viewport;
use proftab::analysis::transform::Transform;
use proftab::analysis::view::{View, ViewOptions};
use proftab::model::{Profile, ProfileBuilder, ValueTypeIndex};

const SAMPLES: usize = 1_000_000;
const FUNCTIONS: u64 = 5_000;
const DISTINCT_STACKS: usize = 100_000;

/// Deterministic xorshift generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// A profile of `SAMPLES` samples over `DISTINCT_STACKS` stacks 10–60 frames deep that share
/// prefixes (each stack extends a random earlier one), with two value types.
fn synthetic() -> Profile {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut b = ProfileBuilder::new();
    let src = b.add_source("synthetic", None, None);
    let n = b.value_type("samples", "count");
    let cpu = b.value_type("cpu", "nanoseconds");
    let locs: Vec<_> = (0..FUNCTIONS)
        .map(|i| {
            let f = b.function_named(&format!("pkg{}.func{i}", i % 40), Some("x.go"));
            b.location(Some(f), 1)
        })
        .collect();
    let mut stacks: Vec<Vec<_>> = Vec::with_capacity(DISTINCT_STACKS);
    for i in 0..DISTINCT_STACKS {
        let mut frames = if i == 0 {
            Vec::new()
        } else {
            let base = &stacks[(rng.next() as usize) % i];
            let keep = (rng.next() as usize) % (base.len() + 1);
            base[..keep].to_vec()
        };
        let depth = 10 + (rng.next() % 50) as usize;
        while frames.len() < depth {
            frames.push(locs[(rng.next() % FUNCTIONS) as usize]);
        }
        stacks.push(frames);
    }
    let ids: Vec<_> = stacks.iter().map(|s| b.stack_root_first(s)).collect();
    for _ in 0..SAMPLES {
        let s = ids[(rng.next() as usize) % ids.len()];
        let v = (rng.next() % 1000) as f64;
        b.add_sample_with_values(src, s, &[(n, 1.0), (cpu, v)]);
    }
    b.build().expect("synthetic profile")
}

fn time<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    println!("{what:<40} {:>8.1} ms", t.elapsed().as_secs_f64() * 1e3);
    out
}

fn main() {
    let p = time("generate 1M samples", synthetic);
    println!("stack nodes: {}", p.stacks.prefix.len());
    let mut v = time("View::new (frames, tree, weights)", || View::new(p));
    let zoomed_out = Viewport {
        min_width: v.totals().shown / 2560.0,
        ..Viewport::all()
    };
    let b = time("flame query, whole graph", || v.flame(&zoomed_out));
    println!("boxes: {}", b.len());
    let mut opts = ViewOptions {
        value_type: ValueTypeIndex(0),
        ..v.options().clone()
    };
    time("switch value type", || v.set_options(opts.clone()));
    let f = v.frames().find("pkg1.func1").unwrap_or(0);
    opts.transforms = vec![Transform::Hide(f)];
    time("hide one function", || v.set_options(opts.clone()));
    opts.transforms.clear();
    time("remove transform", || v.set_options(opts.clone()));
    let share = time("search \"func12\"", || v.search("func12").map(|r| r.1));
    println!("matched: {share:?}");
    let t = time("time-order layout", || {
        v.time_order(&Viewport {
            min_width: 1000.0,
            ..Viewport::all()
        })
    });
    println!("time-order boxes: {}", t.len());
}
