//! `proftab help [COMMAND]`: the overview of every command, or one command's usage and
//! options, generated from the verbs' declarations ([`Verb`]) so that help and parsing cannot
//! disagree.
//!
//! Invariants: the overview keeps the layout `proftab help` has always printed (a synopsis
//! per command, its description indented under it, one closing note); the format lists in a
//! command's help come from the formats registry, never from a hand-kept list.

use std::ffi::OsString;

use crate::formats;

use crate::cli::args::{self, Files, Parsed, Verb};
use crate::cli::output::{emit, CliResult, Failure};

/// The closing note of the overview.
const FOOTER: &str =
    "FILE `-` is standard input; `-o -` is standard output. Input formats are recognised by content.";

/// The command line of `proftab help`.
pub const VERB: Verb = Verb {
    name: "help",
    synopsis: "[COMMAND]",
    about: "every command with its options, or the usage and options of COMMAND",
    options: &[],
    files: Files::None,
};

/// Runs `proftab help [COMMAND]` over `verbs`, the commands it describes.
pub fn run(verbs: &[&Verb], args: Vec<OsString>) -> CliResult {
    let m = match args::parse(&VERB, args)? {
        Parsed::Help => return emit(&verb_help(&VERB)),
        Parsed::Run(m) => m,
    };
    match m.operands.as_slice() {
        [] => emit(&overview(verbs)),
        [name] if name == VERB.name => emit(&verb_help(&VERB)),
        [name] => match verbs.iter().find(|v| v.name == name) {
            Some(verb) => emit(&verb_help(verb)),
            None => Err(Failure::usage(format!("unknown command {name:?}"))),
        },
        more => Err(Failure::usage(format!(
            "help takes one COMMAND, got {}",
            more.len()
        ))),
    }
}

/// Every command: its synopsis with its description indented under it.
pub fn overview(verbs: &[&Verb]) -> String {
    let mut out = String::from("usage:\n");
    for v in verbs {
        out.push_str(&format!("  proftab {} {}\n", v.name, v.synopsis));
        for line in v.about.lines() {
            out.push_str(&format!("        {line}\n"));
        }
    }
    out.push('\n');
    out.push_str(FOOTER);
    out.push('\n');
    out
}

/// One command: usage line, description, options, and the formats it reads and writes.
pub fn verb_help(v: &Verb) -> String {
    let mut out = format!("usage: proftab {} {}\n\n", v.name, v.synopsis);
    for line in v.about.lines() {
        out.push_str(&format!("{line}\n"));
    }
    out.push_str("\noptions:\n");
    out.push_str(&option_rows(v));
    out.push_str(&files_note(v.files));
    out
}

/// `  --type TYPE   help`, aligned, ending with `-h, --help`.
fn option_rows(v: &Verb) -> String {
    let rows: Vec<(String, &str)> = crate::cli::args::options_of(v)
        .into_iter()
        .map(|o| match o.value {
            Some(value) => (format!("{} {value}", o.name), o.help),
            None => (o.name.to_owned(), o.help),
        })
        .chain([("-h, --help".to_owned(), "print this help")])
        .collect();
    let width = rows.iter().map(|(left, _)| left.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(left, help)| format!("  {left:<width$}  {help}\n"))
        .collect()
}

/// How files are named and which formats are read and written, from the formats registry.
fn files_note(files: Files) -> String {
    let reads = || formats::readable_names().join(", ");
    match files {
        Files::None => String::new(),
        Files::Read => format!(
            "\nFILE `-` is standard input. Input formats are recognised by content:\n  {}\n",
            reads()
        ),
        Files::ReadWrite => format!(
            "\nIN `-` is standard input; `-o -` is standard output. Input formats are \
             recognised by content:\n  {}\nFORMAT, or the format OUT's name implies, is one \
             of:\n  {}\n",
            reads(),
            formats::writable_names().join(", ")
        ),
    }
}
