//! The time to build the viewer's view of a profile (`View::new`: the call tree, its child
//! lists, first occurrences, weights, sorted siblings and per-frame totals), natively, after
//! the file is read: the part of drop → drawn that follows the parse.
//!
//! `cargo run --release --example view_build -- FILE [REPS]` prints one line per repetition;
//! each builds the view of a fresh copy of the profile.

use std::process::ExitCode;
use std::time::Instant;

use proftab::analysis::view::View;
use proftab::formats::{read_any, ReadOptions};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: view_build FILE [REPS]");
        return ExitCode::from(2);
    };
    let reps: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(3);
    let parsed = std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|bytes| read_any(&bytes, &ReadOptions::default()).map_err(|e| e.to_string()));
    let profile = match parsed {
        Ok(p) => p.profile,
        Err(e) => {
            eprintln!("view_build: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    for _ in 0..reps {
        let copy = profile.clone();
        let t = Instant::now();
        let view = View::new(copy);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        println!("view built in {ms:.1} ms: {} nodes", view.tree().len());
    }
    ExitCode::SUCCESS
}
