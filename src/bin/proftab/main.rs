//! `proftab`: inspect, convert, combine and validate profiles from the command line. The
//! commands live in the library ([`proftab::cli`]), which the npm package's `proftab` command
//! also runs (on the wasm build); this binary gives them the operating system's files and
//! streams.

use std::process::ExitCode;

use proftab::cli::{self, host::NativeHost};

fn main() -> ExitCode {
    ExitCode::from(cli::main(std::env::args_os().skip(1), Box::new(NativeHost)))
}
