//! Writes the generated Rprof benchmark input (the same generator as `benches/rprof_parse.rs`)
//! to a file, for `scripts/bench-parse.sh`.
//!
//! `cargo run --release --example gen_bench_rprof -- OUT [MiB] [SEED]` (default 60 MiB, seed
//! 0x5eed: byte for byte the input of `cargo bench --bench rprof_parse`).

#[path = "../tests/support/rprof_gen.rs"]
mod rprof_gen;

use std::process::ExitCode;

/// Default size in MiB: the `rprof_parse` bench's `INPUT_BYTES`.
const DEFAULT_MIB: usize = 60;
/// Default seed: the `rprof_parse` bench's.
const DEFAULT_SEED: u64 = 0x5eed;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first() else {
        eprintln!("usage: gen_bench_rprof OUT [MiB] [SEED]");
        return ExitCode::from(2);
    };
    let mib = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_MIB);
    let seed = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED);
    let bytes = rprof_gen::generate(mib * 1024 * 1024, seed);
    if let Err(e) = std::fs::write(out, &bytes) {
        eprintln!("gen_bench_rprof: cannot write {out}: {e}");
        return ExitCode::FAILURE;
    }
    eprintln!("gen_bench_rprof: wrote {out} ({} bytes)", bytes.len());
    ExitCode::SUCCESS
}
