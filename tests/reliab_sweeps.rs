//! Truncation and mutation sweeps through `read_any`, over every corpus file of at most
//! 64 KiB, the project's own fixtures, and the decompressed payload of every gzip file among
//! them (so mutations reach the protobuf decoder, not only the gzip checksum).
//!
//! * Truncation: every proper prefix of inputs up to 4 KiB, else [`CUT_POINTS`] evenly spaced
//!   cut points, thinned to a byte budget per input (see [`cut_points`]).
//! * Mutation: [`MUTATIONS_PER_INPUT`] seeded mutations per input: bit flips, inserted and
//!   deleted bytes, duplicated lines (one to four edits stacked).
//!
//! Every case must give `Ok` (with or without warnings) or `Err`, never a panic; every `Ok`
//! profile must validate, and no case may take longer than [`SLOW_CASE`]. Failures name the
//! input and the cut or the seed, so each can be replayed. `PROFTAB_SWEEP_SCALE=N` multiplies
//! the mutation count (nightly runs).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use proftab::formats::{gzip, read_any, Format, ReadOptions, ALL_FORMATS};
use support::corpus::*;
use support::reliability::*;
use support::rng::Rng;

/// Largest input swept.
const MAX_INPUT_BYTES: usize = 64 * 1024;
/// Inputs up to this size are cut at every byte.
const EVERY_PREFIX_BYTES: usize = 4096;
/// Cut points of larger inputs.
const CUT_POINTS: usize = 512;
/// Bytes read per input by the truncation sweep, at most (about): keeps the suite fast in
/// debug builds on two cores.
const TRUNCATION_BYTES_PER_INPUT: usize = 512 << 10;
/// Fewest cut points of an input, whatever its size.
const MIN_CUT_POINTS: usize = 64;
/// Leading bytes cut at every position.
const HEADER_BYTES: usize = 256;
/// Mutated variants of each input.
const MUTATIONS_PER_INPUT: usize = 200;
/// Longest a single case may take (debug build, shared machine): a hang detector, not a
/// performance budget.
const SLOW_CASE: Duration = Duration::from_secs(30);
/// Fixture files that are not inputs (expected messages, scripts, notes).
const NOT_INPUTS: &[&str] = &["expected", "md", "R", "sh", "js", "go"];

/// One input of the sweeps.
struct Input {
    name: String,
    bytes: Vec<u8>,
}

/// Which inputs a sweep covers.
#[derive(Clone, Copy)]
enum Set {
    Corpus,
    Fixtures,
}

fn is_input_file(path: &Path) -> bool {
    let ext = path.extension().map(|e| e.to_string_lossy().into_owned());
    let outcomes = file_name(path) == "expected.txt" || file_name(path).ends_with("_outcomes.txt");
    !outcomes && !ext.is_some_and(|e| NOT_INPUTS.contains(&e.as_str()))
}

fn inputs(set: Set) -> Vec<Input> {
    let (root, paths) = match set {
        // Only the format folders (and invalid/), not PROVENANCE.md.
        Set::Corpus => (
            corpus(),
            corpus_folders()
                .iter()
                .flat_map(|f| files_under(&corpus().join(f)))
                .collect::<Vec<_>>(),
        ),
        Set::Fixtures => (fixtures(), files_under(&fixtures())),
    };
    let mut out = Vec::new();
    for path in paths.into_iter().filter(|p| is_input_file(p)) {
        let bytes = std::fs::read(&path).unwrap();
        if bytes.len() > MAX_INPUT_BYTES {
            continue;
        }
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        if gzip::is_gzip(&bytes) {
            if let Ok(inner) = gzip::gunzip_capped(&bytes, MAX_INPUT_BYTES, "gzip") {
                out.push(Input {
                    name: format!("{name} (gunzipped)"),
                    bytes: inner,
                });
            }
        }
        out.push(Input { name, bytes });
    }
    assert!(
        out.len() >= 40,
        "too few sweep inputs ({}) in {}",
        out.len(),
        root.display()
    );
    out
}

/// How a case ended (each one is allowed; counted for the report).
#[derive(Clone, Copy)]
enum Outcome {
    Read,
    ReadWithWarnings,
    Error,
}

/// Cases per outcome.
#[derive(Default)]
struct Tally {
    counts: [usize; 3],
    failures: Vec<String>,
}

impl Tally {
    fn record(&mut self, result: Result<Outcome, String>) {
        match result {
            Ok(o) => self.counts[o as usize] += 1,
            Err(e) => self.failures.push(e),
        }
    }

    /// Prints the counts and panics with the first failures, if any.
    fn report(&self, sweep: &str, started: Instant) {
        let [read, warned, errors] = self.counts;
        let cases = read + warned + errors + self.failures.len();
        eprintln!(
            "{sweep}: {cases} cases in {:?}: {read} read, {warned} read with warnings, \
             {errors} errors",
            started.elapsed()
        );
        assert!(
            self.failures.is_empty(),
            "{sweep}: {} of {cases} cases failed; first ones:\n{}",
            self.failures.len(),
            self.failures
                .iter()
                .take(20)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// Reads `bytes` and checks the contract; `Err` describes a violation, naming the case.
fn check_case(bytes: &[u8], case: &dyn Fn() -> String) -> Result<Outcome, String> {
    let start = Instant::now();
    let result = std::panic::catch_unwind(|| match read_any(bytes, &ReadOptions::default()) {
        Ok(parsed) => {
            let violations = parsed.profile.validate();
            match violations.first() {
                None if parsed.warnings.is_empty() => Ok(Outcome::Read),
                None => Ok(Outcome::ReadWithWarnings),
                Some(v) => Err(format!(
                    "invalid profile ({} violations): {v}",
                    violations.len()
                )),
            }
        }
        Err(e) if error_names_a_format(&e) => Ok(Outcome::Error),
        Err(e) => Err(format!("unclear error: {e}")),
    });
    let elapsed = start.elapsed();
    let outcome = result.unwrap_or_else(|_| Err("panicked".to_owned()));
    if elapsed > SLOW_CASE {
        return Err(format!("{}: took {elapsed:?}", case()));
    }
    outcome.map_err(|e| format!("{}: {e}", case()))
}

/// The cut points of an input of `n` bytes: every prefix up to [`EVERY_PREFIX_BYTES`], else
/// [`CUT_POINTS`] evenly spaced ones; thinned out evenly where the prefixes would add up to
/// more than [`TRUNCATION_BYTES_PER_INPUT`], but always every cut in the first
/// [`HEADER_BYTES`] (magic numbers, headers, the opening of JSON documents).
fn cut_points(n: usize) -> Vec<usize> {
    let wanted = if n <= EVERY_PREFIX_BYTES {
        n
    } else {
        CUT_POINTS
    };
    let affordable = (2 * TRUNCATION_BYTES_PER_INPUT / n.max(1)).max(MIN_CUT_POINTS);
    let k = wanted.min(affordable).max(1);
    let mut cuts: BTreeSet<usize> = (0..k).map(|i| i * n / k).collect();
    cuts.extend(0..n.min(HEADER_BYTES));
    cuts.into_iter().collect()
}

fn truncation_sweep(set: Set, label: &str) {
    let started = Instant::now();
    let mut tally = Tally::default();
    for input in inputs(set) {
        for cut in cut_points(input.bytes.len()) {
            let case = || format!("{} cut at {cut} of {}", input.name, input.bytes.len());
            tally.record(check_case(&input.bytes[..cut], &case));
        }
    }
    tally.report(label, started);
}

/// Bytes worth inserting: structure of the text and JSON formats, protobuf tags, UTF-8 lead
/// and continuation bytes, NUL and line ends.
const INTERESTING_BYTES: &[u8] =
    b" ;\n\r\t\"\\{}[]:,#0123456789-.e\x00\x08\x0a\x12\x1a\x22\x32\x7f\x80\xbf\xc3\xef\xff";

/// Applies one random edit.
fn mutate_once(bytes: &mut Vec<u8>, rng: &mut Rng) {
    let n = bytes.len();
    match rng.below(4) {
        0 if n > 0 => {
            let i = rng.below(n);
            bytes[i] ^= 1 << rng.below(8);
        }
        1 => {
            let byte = if rng.chance(50) {
                rng.pick(INTERESTING_BYTES)
            } else {
                rng.next() as u8
            };
            bytes.insert(rng.below(n + 1), byte);
        }
        2 if n > 0 => {
            bytes.remove(rng.below(n));
        }
        _ => duplicate_line(bytes, rng),
    }
}

/// Inserts a copy of a random line (up to and including its `\n`) after itself; a file
/// without line ends gets a copy of a random slice instead.
fn duplicate_line(bytes: &mut Vec<u8>, rng: &mut Rng) {
    let ends: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] == b'\n').collect();
    let (start, end) = if ends.is_empty() {
        let a = rng.below(bytes.len() + 1);
        (a, a + rng.below(bytes.len() - a + 1))
    } else {
        let k = rng.below(ends.len());
        let start = if k == 0 { 0 } else { ends[k - 1] + 1 };
        (start, ends[k] + 1)
    };
    let copy = bytes[start..end].to_vec();
    bytes.splice(end..end, copy);
}

fn mutation_count() -> usize {
    let scale = std::env::var("PROFTAB_SWEEP_SCALE")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(1);
    MUTATIONS_PER_INPUT * scale
}

/// The seed of mutation `k` of the input called `name` (FNV-1a of the name, then `k`): stable
/// when inputs are added, so a failure can be replayed from its message.
fn seed(name: &str, k: usize) -> u64 {
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    hash ^ ((k as u64) << 48)
}

/// Mutates every `of`-th input starting at `shard` (shards let the harness run them in
/// parallel).
fn mutation_sweep(set: Set, (shard, of): (usize, usize), label: &str) {
    let started = Instant::now();
    let mut tally = Tally::default();
    for input in inputs(set).into_iter().skip(shard).step_by(of) {
        for k in 0..mutation_count() {
            let mut rng = Rng(seed(&input.name, k));
            let mut bytes = input.bytes.clone();
            let edits = if rng.chance(75) { 1 } else { 2 + rng.below(3) };
            for _ in 0..edits {
                mutate_once(&mut bytes, &mut rng);
            }
            let case = || format!("{} mutation seed {:#x}", input.name, seed(&input.name, k));
            tally.record(check_case(&bytes, &case));
        }
    }
    tally.report(label, started);
}

#[test]
fn truncated_corpus_files() {
    truncation_sweep(Set::Corpus, "truncation sweep (corpus)");
}

#[test]
fn truncated_fixtures() {
    truncation_sweep(Set::Fixtures, "truncation sweep (fixtures)");
}

#[test]
fn mutated_corpus_files_even() {
    mutation_sweep(Set::Corpus, (0, 2), "mutation sweep (corpus, even)");
}

#[test]
fn mutated_corpus_files_odd() {
    mutation_sweep(Set::Corpus, (1, 2), "mutation sweep (corpus, odd)");
}

#[test]
fn mutated_fixtures() {
    mutation_sweep(Set::Fixtures, (0, 1), "mutation sweep (fixtures)");
}

/// The sweeps reach every readable format: each one has at least one input that reads as it.
#[test]
fn sweep_inputs_cover_every_readable_format() {
    let mut seen = BTreeSet::new();
    for set in [Set::Corpus, Set::Fixtures] {
        for input in inputs(set) {
            if let Ok(p) = read_any(&input.bytes, &ReadOptions::default()) {
                seen.insert(p.format.name());
            }
        }
    }
    let readable: BTreeSet<&str> = ALL_FORMATS
        .into_iter()
        .filter(|f| f.can_read())
        .map(Format::name)
        .collect();
    let missing: Vec<_> = readable.difference(&seen).collect();
    assert!(missing.is_empty(), "no sweep input reads as {missing:?}");
}
