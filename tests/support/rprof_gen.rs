//! A generator of large, realistic Rprof files (for the parse benchmark and its test).
//!
//! Shape of real Rprof output: a memory + GC + line profiling header, `#File` lines right
//! before the first sample using them, stacks 5–60 frames deep ending in the same few outer
//! frames, a skewed choice among a pool of distinct stacks (hot code is sampled often), a few
//! percent of lines with a fresh leaf, `"<GC>"` leaves, names with `::`, `$` and `[["a b"]]`,
//! and a memory prefix whose totals drift from line to line.

#![allow(dead_code)]

/// Deterministic 64-bit LCG.
pub struct Lcg(pub u64);

impl Lcg {
    /// A number in `0..bound`.
    pub fn below(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % bound.max(1)
    }
}

const FILES: usize = 20;
const NAMES: usize = 400;
const POOL: usize = 3000;
const OUTER: &str = "\"eval\" \"eval\" \"withVisible\" \"source\" ";

fn name(i: usize) -> String {
    match i % 7 {
        0 => format!("pkg{}::fun_{i}", i % 13),
        1 => format!("obj{}$method_{i}", i % 5),
        2 => format!("handlers[[\"key {i}\"]]"),
        3 => "<Anonymous>".to_owned(),
        _ => format!("helper.fn_{i}"),
    }
}

/// One frame: an optional source reference (file id, line) and a name index.
type Frame = (Option<(usize, usize)>, usize);

fn stack(rng: &mut Lcg) -> Vec<Frame> {
    let depth = 5 + rng.below(56);
    (0..depth)
        .map(|_| {
            let srcref = (rng.below(3) == 0).then(|| (rng.below(FILES), 1 + rng.below(400)));
            (srcref, rng.below(NAMES))
        })
        .collect()
}

/// Renders a stack, numbering files in order of first use as R does; new files get their
/// `#File` line in `out` first.
fn render(frames: &[Frame], names: &[String], numbers: &mut [usize], out: &mut String) -> String {
    let mut text = String::new();
    for &(srcref, name) in frames {
        if let Some((file, line)) = srcref {
            if numbers[file] == 0 {
                numbers[file] = 1 + numbers.iter().filter(|&&n| n > 0).count();
                out.push_str(&format!(
                    "#File {}: R/source_file_{file}.R\n",
                    numbers[file]
                ));
            }
            text.push_str(&format!("{}#{line} ", numbers[file]));
        }
        text.push('"');
        text.push_str(&names[name]);
        text.push_str("\" ");
    }
    text.push_str(OUTER);
    text
}

/// An Rprof file of at least `min_bytes` bytes, the same for the same `seed`.
pub fn generate(min_bytes: usize, seed: u64) -> Vec<u8> {
    let mut rng = Lcg(seed);
    let names: Vec<String> = (0..NAMES).map(name).collect();
    let pool: Vec<Vec<Frame>> = (0..POOL).map(|_| stack(&mut rng)).collect();
    let mut rendered: Vec<Option<String>> = vec![None; POOL];
    let mut numbers = [0usize; FILES];
    let mut out = String::with_capacity(min_bytes + 4096);
    out.push_str("memory profiling: GC profiling: line profiling: sample.interval=10000\n");
    let (mut small, mut large, mut nodes) = (300_000u64, 1_000_000u64, 30_000_000u64);
    while out.len() < min_bytes {
        // Skewed choice: squares of uniform numbers favour the start of the pool.
        let r = rng.below(1 << 16);
        let pick = (r * r) / ((1 << 32) / POOL + 1);
        if rendered[pick].is_none() {
            rendered[pick] = Some(render(&pool[pick], &names, &mut numbers, &mut out));
        }
        small = (small + rng.below(2000) as u64).saturating_sub(900);
        large = (large + rng.below(200_000) as u64).saturating_sub(90_000);
        nodes = (nodes + rng.below(40_000) as u64).saturating_sub(18_000);
        out.push_str(&format!(":{small}:{large}:{nodes}:{}:", rng.below(3000)));
        match rng.below(40) {
            0 => out.push_str("\"<GC>\" "),
            1 => out.push_str(&format!("\"fresh_leaf_{}\" ", rng.below(1 << 20))),
            _ => {}
        }
        out.push_str(rendered[pick].as_deref().unwrap_or_default());
        out.push('\n');
    }
    out.into_bytes()
}

/// The worst case for the reader: every line a new random stack (5–60 frames of 400 names,
/// a third with source references), so nothing is shared but the outer frames.
pub fn generate_unique(min_bytes: usize, seed: u64) -> Vec<u8> {
    let mut rng = Lcg(seed);
    let mut out = String::with_capacity(min_bytes + 4096);
    out.push_str("line profiling: sample.interval=10000\n");
    for f in 1..=FILES {
        out.push_str(&format!("#File {f}: R/source_file_{f}.R\n"));
    }
    while out.len() < min_bytes {
        for _ in 0..5 + rng.below(56) {
            if rng.below(3) == 0 {
                out.push_str(&format!("{}#{} ", 1 + rng.below(FILES), 1 + rng.below(400)));
            }
            out.push_str(&format!("\"fun_{}\" ", rng.below(NAMES)));
        }
        out.push_str(OUTER);
        out.push('\n');
    }
    out.into_bytes()
}
