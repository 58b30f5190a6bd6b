//! Runs the `proftab` CLI and reads its JSON output (shared by the tests that check the CLI).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

/// Runs `exe args`, asserts that it succeeds (naming the arguments and stderr when not) and
/// parses its stdout as JSON.
pub fn run_json(exe: &str, args: &[&str]) -> serde_json::Value {
    let out = Command::new(exe).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "proftab {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
