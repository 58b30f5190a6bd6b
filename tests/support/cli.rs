//! Running programs: the `proftab` CLI (its output as text or JSON), and external tools (Go, R)
//! that judge proftab's results. A missing tool is a visible `SKIP:` line, never a failure.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `exe args`, feeding it `stdin` (or an empty input), and returns its output; asserts that
/// it did not panic, whatever its exit code.
pub fn run(exe: &str, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        // The block closes standard input, so the program sees its end.
        let mut input = child.stdin.take().unwrap();
        if let Some(bytes) = stdin {
            input.write_all(bytes).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("panicked"),
        "proftab {args:?} panicked: {stderr}"
    );
    out
}

/// Runs the external tool `program` with `args`, asserts that it succeeds (showing its stderr
/// when not) and returns its standard output as UTF-8 text. Check `have_tool` first.
pub fn tool_stdout<S: AsRef<std::ffi::OsStr>>(program: &str, args: &[S]) -> String {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{program} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The standard output of `o` as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The standard error of `o` as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

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
