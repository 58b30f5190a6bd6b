//! pprof → proftab → pprof fidelity, judged by `go tool pprof`.
//!
//! For every pprof file of the shared corpus and every fixture recorded with Go's
//! `runtime/pprof` (tests/fixtures/pprof), the file is read, written back with proftab's pprof
//! writer, and `go tool pprof` must print the same `-top` table for every sample index and the
//! same `-traces` for the original and the rewritten file. Also checks that proftab's own
//! function table agrees with the flat/cum columns of `-top -raw`-free output.
//!
//! Skips (with `SKIP:` on stderr) when `go` is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod pprof_common;

use pprof_common::*;

#[test]
fn corpus_round_trip_prints_the_same() {
    let Some(go) = GoPprof::find() else { return };
    let mut files = corpus_files("pprof");
    files.extend(fixture_files());
    assert!(files.len() >= 20, "expected the corpus and fixtures, found {files:?}");
    let mut failures = Vec::new();
    for path in &files {
        if let Err(e) = go.check_round_trip(path) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
