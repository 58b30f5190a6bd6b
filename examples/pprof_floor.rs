//! The parse floor of a pprof file: inflate (the reader's own gunzip) and a prost decode of the
//! whole `Profile` message, with no model built. Every parse-speed target of issue #12 is a
//! ratio to this floor measured on the same machine, in the same run.
//!
//! `cargo run --release --example pprof_floor -- FILE [REPS]` prints, per repetition, the
//! inflate and decode times and the decoded counts; one repetition (the default) is what
//! `bench/ab.mjs` times from outside beside `proftab info FILE`:
//!
//! ```sh
//! node bench/ab.mjs -n 7 --vs 'target/release/examples/pprof_floor FILE' \
//!   -- target/release/proftab info FILE
//! ```

use std::process::ExitCode;
use std::time::Instant;

use proftab::formats::gzip;
use proftab::formats::pprof::schema::Profile;
use prost::Message;

/// The inflate cap: large enough for any benchmark input (the reader's default is relative).
const CAP_BYTES: usize = 8 << 30;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: pprof_floor FILE [REPS]");
        return ExitCode::from(2);
    };
    let reps: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(1);
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("pprof_floor: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    for _ in 0..reps {
        if let Err(e) = once(&bytes) {
            eprintln!("pprof_floor: {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// One inflate + decode, timed step by step.
fn once(bytes: &[u8]) -> Result<(), String> {
    let t0 = Instant::now();
    let inflated;
    let raw = if gzip::is_gzip(bytes) {
        inflated = gzip::gunzip_capped(bytes, CAP_BYTES, "pprof").map_err(|e| e.to_string())?;
        inflated.as_slice()
    } else {
        bytes
    };
    let t1 = Instant::now();
    let p = Profile::decode(raw).map_err(|e| e.to_string())?;
    let t2 = Instant::now();
    println!(
        "inflate {:.3} s  decode {:.3} s  total {:.3} s  ({} raw bytes, {} samples, {} locations, \
         {} functions, {} strings)",
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64(),
        (t2 - t0).as_secs_f64(),
        raw.len(),
        p.sample.len(),
        p.location.len(),
        p.function.len(),
        p.string_table.len()
    );
    Ok(())
}
