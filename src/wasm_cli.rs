//! The `proftab` command in Node: [`run_cli`] runs the CLI's verbs ([`crate::cli`]) on the
//! wasm build, their files and streams given by a JavaScript host object (`js/cli.mjs` makes
//! one of Node's `fs`). The npm package's `bin` for users without the native binary; it prints
//! what the native binary prints, as the same code formats it.
//!
//! Invariants: a host method that throws becomes an I/O error whose message is the thrown
//! value's text (the host throws the operating system's message); one run per wasm instance
//! (see [`crate::cli`]).

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;

use crate::cli::host::{Host, Kind};

#[wasm_bindgen]
extern "C" {
    /// What `js/cli.mjs` passes: Node's files and standard streams.
    pub type CliHost;

    #[wasm_bindgen(method, catch)]
    fn read(this: &CliHost, path: &str) -> Result<Uint8Array, JsValue>;
    #[wasm_bindgen(method, catch, js_name = readStdin)]
    fn read_stdin(this: &CliHost) -> Result<Uint8Array, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn write(this: &CliHost, path: &str, bytes: &[u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch)]
    fn stdout(this: &CliHost, bytes: &[u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(method)]
    fn stderr(this: &CliHost, bytes: &[u8]);
    /// `"file"`, `"dir"` or `"other"`, and the size in bytes.
    #[wasm_bindgen(method, catch)]
    fn stat(this: &CliHost, path: &str) -> Result<js_sys::Array, JsValue>;
    #[wasm_bindgen(method, catch, js_name = readDir)]
    fn read_dir(this: &CliHost, path: &str) -> Result<Vec<String>, JsValue>;
    #[wasm_bindgen(method)]
    fn env(this: &CliHost, name: &str) -> Option<String>;
}

/// Runs the command line `args` (without the program name) with `host`'s files and streams;
/// the exit status (0, 1 for a failed operation, 2 for a usage error).
#[wasm_bindgen(js_name = runCli)]
pub fn run_cli(args: Vec<String>, host: CliHost) -> u8 {
    crate::cli::main(args.into_iter().map(OsString::from), Box::new(JsHost(host)))
}

/// A [`Host`] over a JavaScript [`CliHost`].
struct JsHost(CliHost);

/// The I/O error a host method's thrown value stands for.
fn io_error(thrown: JsValue) -> io::Error {
    let text = thrown
        .as_string()
        .or_else(|| {
            thrown
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| format!("{thrown:?}"));
    io::Error::other(text)
}

/// A path as the host takes it (lossy for a non-UTF-8 path, which Node cannot give anyway).
fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

impl Host for JsHost {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.0
            .read(&text(path))
            .map(|a| a.to_vec())
            .map_err(io_error)
    }

    fn read_stdin(&self) -> io::Result<Vec<u8>> {
        self.0.read_stdin().map(|a| a.to_vec()).map_err(io_error)
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.0.write(&text(path), bytes).map_err(io_error)
    }

    fn stdout(&self, bytes: &[u8]) -> io::Result<()> {
        self.0.stdout(bytes).map_err(io_error)
    }

    fn stderr(&self, bytes: &[u8]) {
        self.0.stderr(bytes);
    }

    fn stat(&self, path: &Path) -> io::Result<(Kind, u64)> {
        let pair = self.0.stat(&text(path)).map_err(io_error)?;
        let kind = match pair.get(0).as_string().as_deref() {
            Some("file") => Kind::File,
            Some("dir") => Kind::Dir,
            _ => Kind::Other,
        };
        Ok((kind, pair.get(1).as_f64().unwrap_or(0.0) as u64))
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<PathBuf>> {
        let names = self.0.read_dir(&text(path)).map_err(io_error)?;
        Ok(names.into_iter().map(|n| path.join(n)).collect())
    }

    fn env(&self, name: &str) -> Option<String> {
        self.0.env(name)
    }
}
