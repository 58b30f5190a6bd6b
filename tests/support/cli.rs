//! Running programs: the `proftab` CLI with JSON output, and external tools (Go, R) that
//! judge proftab's results. A missing tool is a visible `SKIP:` line, never a failure.

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

/// True when `tool --version` (or `tool version`, as Go has it) runs; else prints a visible
/// SKIP line naming `test`.
pub fn have_tool(tool: &str, test: &str) -> bool {
    let runs = |arg: &str| {
        Command::new(tool)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let ok = runs("--version") || runs("version");
    if !ok {
        eprintln!("SKIP: {test}: `{tool}` is not installed");
    }
    ok
}
