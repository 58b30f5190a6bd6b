//! `proftab convert IN... -o OUT [--to FORMAT] [--type TYPE] [--source ID]` (alias
//! `combine`): write the inputs, combined into one profile when there are several, in another
//! format.
//!
//! `--to parquet` / `--to arrow` write a dataset directory instead ([`crate::cli::dataset`]);
//! `--append` adds the inputs to an existing one.
//!
//! Invariants: the output format is `--to`, else the one OUT's file name implies (never
//! guessed); every check of the command line (`-o`, inputs, format, writability) happens
//! before any input is read; `--type` and `--source` are checked against the read profile
//! before anything is written.

use crate::formats::{self, Format, WriteOptions};
use crate::model::Profile;

use crate::cli::args::{chosen_value_type, Files, Matches, Opt, Verb};
use crate::cli::dataset::Container;
use crate::cli::input::{display_name, load_combined, print_warnings, Stacks};
use crate::cli::output::{write_bytes, CliResult, Failure};
use crate::cli::symbols::{set_sources, KALLSYMS, SYMBOLS};

/// The options of `convert` and `combine`.
const OPTIONS: &[Opt] = &[
    Opt {
        name: "-o",
        value: Some("OUT"),
        help: "the output file; `-` is standard output (then name the format with --to)",
    },
    Opt {
        name: "--to",
        value: Some("FORMAT"),
        help: "the output format (default: the one OUT's name implies); parquet and arrow write a \
               dataset directory OUT",
    },
    Opt {
        name: "--append",
        value: None,
        help: "add the inputs to the parquet or arrow dataset OUT (ids do not collide)",
    },
    Opt {
        name: "--type",
        value: Some("TYPE"),
        help: "the value type written by single-type formats (default: the profile's default)",
    },
    Opt {
        name: "--source",
        value: Some("ID"),
        help: "the source (1-based) written by single-run formats such as Rprof",
    },
    SYMBOLS,
    KALLSYMS,
];

const SYNOPSIS: &str =
    "IN... -o OUT [--to FORMAT] [--append] [--type TYPE] [--source ID] [--symbols DIR] \
     [--kallsyms FILE]";

/// The command line of `proftab convert`.
pub const CONVERT: Verb = Verb {
    name: "convert",
    synopsis: SYNOPSIS,
    about: "write IN (several INs are combined into one profile) as FORMAT, by default the
format OUT's name implies; --type picks the value type of single-type formats,
--source the one source written by single-run formats (Rprof); --to parquet or
--to arrow writes a directory with one file per table, --append grows one",
    options: OPTIONS,
    files: Files::ReadWrite,
};

/// The command line of `proftab combine`, the same command as `convert`.
pub const COMBINE: Verb = Verb {
    name: "combine",
    synopsis: SYNOPSIS,
    about: "the same as convert",
    options: OPTIONS,
    files: Files::ReadWrite,
};

/// Runs `proftab convert` (and `combine`).
pub fn run(args: &Matches) -> CliResult {
    let out = args
        .value("-o")
        .ok_or_else(|| Failure::usage("convert needs -o OUT"))?;
    if args.operands.is_empty() {
        return Err(Failure::usage("convert needs at least one input file"));
    }
    if let Some(c) = args.value("--to").and_then(Container::from_name) {
        return convert_columnar(args, out, c);
    }
    if args.flag("--append") {
        return Err(Failure::usage("--append needs --to parquet or --to arrow"));
    }
    let format = output_format(args, out)?;
    if !format.can_write() {
        return Err(Failure::failed(format!(
            "cannot write {}: not supported yet; proftab writes: {}",
            format.name(),
            writable()
        )));
    }
    set_sources(args)?;
    let profile = load_combined(&args.operands, Stacks::Raw)?;
    let value_type = args.value("--type").map(str::to_owned);
    if let Some(t) = value_type.as_deref() {
        chosen_value_type(&profile, Some(t))?;
    }
    let options = WriteOptions {
        value_type,
        source_id: parse_source(args, &profile)?,
        ..WriteOptions::default()
    };
    let written = formats::write_as(format, &profile, &options)
        .map_err(|e| Failure::failed(e.to_string()))?;
    print_warnings(out, &written.warnings);
    write_bytes(out, &written.bytes)
}

/// `--to parquet|arrow`: every value type and source is written, so `--type` and `--source`
/// do not apply.
fn convert_columnar(args: &Matches, out: &str, c: Container) -> CliResult {
    if let Some(opt) = ["--type", "--source"]
        .into_iter()
        .find(|o| args.value(o).is_some())
    {
        return Err(Failure::usage(format!(
            "{opt} does not apply to --to {}: a dataset holds every value type and source",
            c.name()
        )));
    }
    set_sources(args)?;
    crate::cli::dataset::convert(&args.operands, out, c, args.flag("--append"))
}

/// The names of the formats proftab writes, from the formats registry, and the dataset
/// containers.
fn writable() -> String {
    let mut names = formats::writable_names();
    names.extend(Container::ALL.map(Container::name));
    names.join(", ")
}

/// The output format: `--to`, else from OUT's file name.
fn output_format(args: &Matches, out: &str) -> Result<Format, Failure> {
    if let Some(name) = args.value("--to") {
        return Format::from_name(name).ok_or_else(|| {
            Failure::usage(format!(
                "unknown format {name:?} for --to; proftab writes: {}",
                writable()
            ))
        });
    }
    Format::from_path(out).ok_or_else(|| {
        Failure::usage(format!(
            "cannot tell the output format from {:?}; name it with --to (one of: {})",
            display_name(out),
            writable()
        ))
    })
}

/// `--source ID`: a 1-based source id of `profile`.
fn parse_source(args: &Matches, profile: &Profile) -> Result<Option<usize>, Failure> {
    let Some(v) = args.value("--source") else {
        return Ok(None);
    };
    let n = profile.sources.source_type.len();
    match v.parse::<usize>() {
        Ok(id) if (1..=n).contains(&id) => Ok(Some(id)),
        _ => Err(Failure::usage(format!(
            "--source needs a source id from 1 to {n}, got {v:?}"
        ))),
    }
}
