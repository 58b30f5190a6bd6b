//! What the CLI prints and how it ends: [`Failure`] (a message and an exit status), standard
//! output and file writing, JSON printing.
//!
//! Invariants: results go to standard output, messages to standard error prefixed `proftab: `;
//! a reader that closed standard output (`proftab top FILE | head`) is not an error; exit
//! status 1 is a failed operation, 2 a usage error.

use std::path::Path;

use serde_json::{json, Value};

use crate::cli::host;

/// A failed command: what to print and the exit status.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub status: u8,
}

impl Failure {
    /// A usage error (status 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Failure {
            message: format!("{} (see `proftab help`)", message.into()),
            status: 2,
        }
    }

    /// A failed operation (status 1).
    pub fn failed(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            status: 1,
        }
    }
}

/// The result of a command.
pub type CliResult = Result<(), Failure>;

/// Writes `proftab: <message>` to standard error (ignoring a closed stderr rather than
/// panicking as `eprintln!` would).
pub fn say(message: &str) {
    host::with(|h| h.stderr(format!("proftab: {message}\n").as_bytes()));
}

/// Writes `bytes` to `path` (`-` for standard output).
pub fn write_bytes(path: &str, bytes: &[u8]) -> CliResult {
    if path == "-" {
        return write_stdout(bytes);
    }
    host::with(|h| h.write(Path::new(path), bytes))
        .map_err(|e| Failure::failed(format!("cannot write {path}: {e}")))
}

/// Prints a JSON value on standard output.
pub fn print_json(v: &Value) -> CliResult {
    let text = serde_json::to_string_pretty(v)
        .map_err(|e| Failure::failed(format!("cannot encode JSON: {e}")))?;
    emit(&format!("{text}\n"))
}

/// Writes `text` to standard output.
pub fn emit(text: &str) -> CliResult {
    write_stdout(text.as_bytes())
}

/// Writes `bytes` to standard output. A reader that went away (`proftab top FILE | head`) is
/// not an error.
fn write_stdout(bytes: &[u8]) -> CliResult {
    match host::with(|h| h.stdout(bytes)) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::failed(format!(
            "cannot write to standard output: {e}"
        ))),
        _ => Ok(()),
    }
}

/// A JSON number: integers up to 2^53 print without a fraction; NaN and infinities are null.
pub fn num(v: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if v.is_finite() && v.fract() == 0.0 && v.abs() <= EXACT {
        json!(v as i64)
    } else {
        // serde_json maps non-finite floats to null.
        json!(v)
    }
}
