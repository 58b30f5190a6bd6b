//! `proftab`: inspect, convert, combine and validate profiles from the command line.
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
//! This file only dispatches: each command is a module declaring its command line ([`Verb`])
//! and running it; `args` parses, `input`/`output` read and write, `units` formats numbers
//! as pprof does.

mod args;
mod convert;
#[cfg(not(target_arch = "wasm32"))]
mod dataset;
// The Arrow crates are native-only, yet `cargo clippy --all-targets --target wasm32` compiles
// the CLI too: there, no container exists.
#[cfg(target_arch = "wasm32")]
#[path = "dataset_none.rs"]
mod dataset;
mod diff;
mod help;
mod info;
mod input;
mod list;
mod output;
mod symbols;
mod top;
mod units;
mod validate;

use std::ffi::OsString;
use std::process::ExitCode;

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

fn main() -> ExitCode {
    match run(std::env::args_os().skip(1)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            say(&f.message);
            ExitCode::from(f.status)
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
