//! The `proftab` command line: inspect, convert, combine and validate profiles.
//!
//! ```text
//! proftab info FILE [--json]
//! proftab top FILE [--type TYPE] [--by function|line] [--limit N] [--json]
//! proftab list REGEX FILE... [--source-dir DIR] [--type TYPE] [--json]
//! proftab convert IN... -o OUT [--to FORMAT] [--type TYPE] [--source ID]   (alias: combine)
//! proftab validate FILE
//! proftab diff BASE NEW [--type TYPE] [--absolute] [--limit N] [--json]
//! proftab help [COMMAND]            (or: proftab COMMAND --help)
//! ```
//!
//! Input formats are always recognised by content; `-` reads standard input and `-o -` writes
//! standard output. Exit status: 0 on success, 1 when a file cannot be read, converted or is not
//! valid, 2 for a usage error. Errors and warnings go to standard error.
//!
//! It lives in the library so that two programs run it: the native binary
//! (`src/bin/proftab/main.rs`) and the npm package's `proftab` command (Node on the wasm build,
//! `src/wasm_cli.rs`); all their I/O goes through [`host`], so both print the same bytes.
//! This file only dispatches: each command is a module declaring its command line ([`Verb`])
//! and running it; `args` parses, `input`/`output` read and write, `units` formats numbers
//! as pprof does.
//!
//! Invariant: one [`main`] per process (`--max-decompressed` and `--symbols` are remembered
//! once, as process-wide settings).

mod args;
mod convert;
#[cfg(all(feature = "columnar", not(target_arch = "wasm32")))]
mod dataset;
// A dataset is a directory, read and written with std::fs; the npm command runs this CLI on
// wasm32, whose files are Node's (`cli::host`): there, no container exists and no path is a
// dataset.
#[cfg(not(all(feature = "columnar", not(target_arch = "wasm32"))))]
#[path = "dataset_none.rs"]
mod dataset;
mod diff;
mod help;
pub mod host;
mod info;
mod input;
mod list;
mod output;
mod symbols;
mod top;
mod units;
mod validate;

use std::ffi::OsString;

use args::{Matches, Parsed, Verb};
use output::{emit, say, CliResult, Failure};

/// What runs a command, given its parsed arguments.
type Run = fn(&Matches) -> CliResult;

/// The commands, in the order `proftab help` lists them, with what runs each.
const COMMANDS: [(&Verb, Run); 7] = [
    (&info::VERB, info::run),
    (&top::VERB, top::run),
    (&list::VERB, list::run),
    (&convert::CONVERT, convert::run),
    (&convert::COMBINE, convert::run),
    (&validate::VERB, validate::run),
    (&diff::VERB, diff::run),
];

/// Runs the command line `args` (without the program name) on `host`; the exit status.
pub fn main(args: impl Iterator<Item = OsString>, host: Box<dyn host::Host>) -> u8 {
    host::install(host);
    match run(args) {
        Ok(()) => 0,
        Err(f) => {
            say(&f.message);
            f.status
        }
    }
}

fn run(mut args: impl Iterator<Item = OsString>) -> CliResult {
    let Some(command) = args.next() else {
        return Err(Failure::usage("no command given"));
    };
    let command = command.to_string_lossy();
    let rest: Vec<OsString> = args.collect();
    match command.as_ref() {
        "help" | "--help" | "-h" => {
            let verbs = COMMANDS.map(|(verb, _)| verb);
            return help::run(&verbs, rest);
        }
        "--version" | "-V" => return emit(&format!("proftab {}\n", env!("CARGO_PKG_VERSION"))),
        _ => {}
    }
    let Some((verb, run)) = COMMANDS.iter().find(|(verb, _)| verb.name == command) else {
        return Err(Failure::usage(format!("unknown command {command:?}")));
    };
    match args::parse(verb, rest)? {
        Parsed::Run(m) => {
            input::set_max_decompressed(m.max_decompressed()?);
            run(&m)
        }
        Parsed::Help => emit(&help::verb_help(verb)),
    }
}
