//! The command line of one verb: its declaration ([`Verb`], [`Opt`]) and its parsing with
//! `lexopt` into [`Matches`], with the typed readings several verbs share (`FILE`, `--limit`,
//! `--type`).
//!
//! The rules (unchanged from the hand-written parser this replaced): `--opt VALUE`,
//! `--opt=VALUE`, `-o VALUE` and `-o=VALUE` are accepted; a value is taken even when it starts
//! with `-`; `--` ends the options; `-` is an operand; a flag given a value, an option without
//! its value and an undeclared option are usage errors naming the option as written; the last
//! of a repeated option wins. `-h`/`--help` anywhere before `--` asks for the verb's help.

use std::ffi::OsString;

use crate::model::{Profile, ValueTypeIndex};
use lexopt::{Arg, Parser};

use crate::cli::output::Failure;

/// One option of a verb.
pub struct Opt {
    /// As written: `--json`, `-o`.
    pub name: &'static str,
    /// The value's placeholder in help (`TYPE`), `None` for a flag.
    pub value: Option<&'static str>,
    /// One line for `proftab help VERB`.
    pub help: &'static str,
}

/// What a verb does with files, for the closing lines of its help.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Files {
    /// No files (`help`).
    None,
    /// Reads profiles.
    Read,
    /// Reads profiles and writes one.
    ReadWrite,
}

/// A verb's command line: name, synopsis, description and options.
pub struct Verb {
    pub name: &'static str,
    /// Operands and options after the name, as in the usage line.
    pub synopsis: &'static str,
    /// What it does, in lines as `proftab help` prints them (without indentation).
    pub about: &'static str,
    pub options: &'static [Opt],
    pub files: Files,
}

/// `--json`, shared by the verbs that report.
pub const JSON: Opt = Opt {
    name: "--json",
    value: None,
    help: "print JSON instead of text",
};

/// `--limit N`, shared by the verbs that list rows.
pub const LIMIT: Opt = Opt {
    name: "--limit",
    value: Some("N"),
    help: "show only the first N rows",
};

/// `--max-decompressed SIZE`, accepted by every verb that reads files.
pub const MAX_DECOMPRESSED: Opt = Opt {
    name: "--max-decompressed",
    value: Some("SIZE"),
    help: "inflate compressed input up to SIZE bytes (K, M, G suffixes; default 1G and at \
           most 300 times the compressed size), lifting the ratio limit",
};

/// The options of `verb`: its own, and [`MAX_DECOMPRESSED`] when it reads files.
pub fn options_of(verb: &Verb) -> Vec<&'static Opt> {
    let shared: &'static [Opt] = match verb.files {
        Files::None => &[],
        Files::Read | Files::ReadWrite => &[MAX_DECOMPRESSED],
    };
    verb.options.iter().chain(shared).collect()
}

/// A parsed verb command line.
pub enum Parsed {
    /// Run the verb with these arguments.
    Run(Matches),
    /// `-h` or `--help` was given.
    Help,
}

/// The arguments of one verb: operands, flags given and `--opt VALUE` pairs.
pub struct Matches {
    options: Vec<&'static Opt>,
    pub operands: Vec<String>,
    flags: Vec<&'static str>,
    values: Vec<(&'static str, String)>,
}

/// One option as found on the command line.
struct Found {
    /// The option's name (`--type`, `-o`), or the whole argument when it cannot be one.
    name: String,
    /// A value joined to it (`--type=cpu`, `-o=out`).
    joined: Option<String>,
}

impl Found {
    /// The argument as written, for messages.
    fn written(&self) -> String {
        match &self.joined {
            Some(v) => format!("{}={v}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Parses the arguments after the verb's name.
pub fn parse(verb: &Verb, args: Vec<OsString>) -> Result<Parsed, Failure> {
    let mut parser = Parser::from_args(args);
    // `-oVALUE` is not an option; keep `=` in what follows a short option to tell.
    parser.set_short_equals(false);
    let mut m = Matches {
        options: options_of(verb),
        operands: Vec::new(),
        flags: Vec::new(),
        values: Vec::new(),
    };
    while let Some(arg) = parser.next().map_err(lexopt_failure)? {
        let found = match arg {
            Arg::Value(v) => {
                m.operands.push(utf8(v)?);
                continue;
            }
            Arg::Long(name) => {
                let name = format!("--{name}");
                let joined = parser.optional_value().map(utf8).transpose()?;
                Found { name, joined }
            }
            Arg::Short(c) => short_option(c, parser.optional_value().map(utf8).transpose()?),
        };
        if !m.take(found, &mut parser)? {
            return Ok(Parsed::Help);
        }
    }
    Ok(Parsed::Run(m))
}

/// `-c` followed by `rest` of its argument: `-o`, `-o=VALUE`, or something that is no option
/// (`-oVALUE`, `-xyz`), named whole.
fn short_option(c: char, rest: Option<String>) -> Found {
    match rest {
        None => Found {
            name: format!("-{c}"),
            joined: None,
        },
        Some(rest) => match rest.strip_prefix('=') {
            Some(value) => Found {
                name: format!("-{c}"),
                joined: Some(value.to_owned()),
            },
            None => Found {
                name: format!("-{c}{rest}"),
                joined: None,
            },
        },
    }
}

fn utf8(arg: OsString) -> Result<String, Failure> {
    arg.into_string()
        .map_err(|a| Failure::usage(format!("argument {a:?} is not valid UTF-8")))
}

fn lexopt_failure(e: lexopt::Error) -> Failure {
    Failure::usage(e.to_string())
}

impl Matches {
    /// Records option `found`, reading its value from `parser` when it is not joined; false
    /// when help was asked for.
    fn take(&mut self, found: Found, parser: &mut Parser) -> Result<bool, Failure> {
        let is_help = found.name == "--help" || found.name == "-h";
        let Some(opt) = self.options.iter().find(|o| o.name == found.name) else {
            if !is_help {
                return Err(Failure::usage(format!(
                    "unknown option {:?}",
                    found.written()
                )));
            }
            return match found.joined {
                Some(_) => Err(Failure::usage(format!("{} takes no value", found.name))),
                None => Ok(false),
            };
        };
        match (opt.value, found.joined) {
            (None, Some(_)) => return Err(Failure::usage(format!("{} takes no value", opt.name))),
            (None, None) => self.flags.push(opt.name),
            (Some(_), Some(value)) => self.values.push((opt.name, value)),
            (Some(_), None) => {
                let value = parser
                    .value()
                    .map_err(|_| Failure::usage(format!("{} needs a value", opt.name)))?;
                self.values.push((opt.name, utf8(value)?));
            }
        }
        Ok(true)
    }

    /// Whether `name` is an option of the verb (a misspelt name would silently read as absent).
    fn declared(&self, name: &str) -> bool {
        self.options.iter().any(|o| o.name == name)
    }

    /// Whether flag `name` was given.
    pub fn flag(&self, name: &str) -> bool {
        debug_assert!(self.declared(name), "{name} is no option of this verb");
        self.flags.contains(&name)
    }

    /// The last value given for option `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        debug_assert!(self.declared(name), "{name} is no option of this verb");
        self.values
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Exactly one operand (the input file).
    pub fn single_file(&self) -> Result<&str, Failure> {
        match self.operands.as_slice() {
            [one] => Ok(one),
            [] => Err(Failure::usage("no input FILE given")),
            more => Err(Failure::usage(format!(
                "expected one FILE, got {}",
                more.len()
            ))),
        }
    }

    /// `--max-decompressed SIZE`, in bytes.
    pub fn max_decompressed(&self) -> Result<Option<usize>, Failure> {
        let Some(v) = self
            .values
            .iter()
            .rev()
            .find(|(n, _)| *n == MAX_DECOMPRESSED.name)
        else {
            return Ok(None);
        };
        parse_size(&v.1).map(Some).ok_or_else(|| {
            Failure::usage(format!(
                "--max-decompressed needs a size in bytes (e.g. 4G, 512M), got {:?}",
                v.1
            ))
        })
    }

    /// `--limit N`.
    pub fn limit(&self) -> Result<Option<usize>, Failure> {
        self.value(LIMIT.name)
            .map(|v| {
                v.parse::<usize>()
                    .map_err(|_| Failure::usage(format!("--limit needs a whole number, got {v:?}")))
            })
            .transpose()
    }
}

/// A size: a whole number of bytes with an optional K, M or G suffix (powers of 1024; `KiB`,
/// `MB`… accepted alike).
fn parse_size(text: &str) -> Option<usize> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let shift = match unit
        .to_ascii_lowercase()
        .trim_end_matches("ib")
        .trim_end_matches('b')
    {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        _ => return None,
    };
    number.parse::<usize>().ok()?.checked_mul(1usize << shift)
}

/// The value type named by `--type`, else the profile's default.
pub fn chosen_value_type(p: &Profile, name: Option<&str>) -> Result<ValueTypeIndex, Failure> {
    let known = || {
        p.values
            .iter()
            .map(|c| p.str(c.value_type))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match name {
        Some(n) => p.value_type_index(n).ok_or_else(|| {
            Failure::failed(format!("no value type {n:?}; the profile has: {}", known()))
        }),
        None => p
            .default_value_type()
            .ok_or_else(|| Failure::failed("the profile has no value types")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TO: Opt = Opt {
        name: "--to",
        value: Some("FORMAT"),
        help: "",
    };
    const OUT: Opt = Opt {
        name: "-o",
        value: Some("OUT"),
        help: "",
    };
    const TEST: Verb = Verb {
        name: "test",
        synopsis: "",
        about: "",
        options: &[OUT, TO, JSON],
        files: Files::Read,
    };

    fn parse_strs(args: &[&str]) -> Result<Parsed, Failure> {
        parse(&TEST, args.iter().map(OsString::from).collect())
    }

    fn matches(args: &[&str]) -> Matches {
        match parse_strs(args) {
            Ok(Parsed::Run(m)) => m,
            Ok(Parsed::Help) => unreachable!("help"),
            Err(f) => unreachable!("{}", f.message),
        }
    }

    fn error(args: &[&str]) -> String {
        match parse_strs(args) {
            Err(f) => {
                assert_eq!(f.status, 2);
                f.message
            }
            Ok(_) => unreachable!("{args:?} parsed"),
        }
    }

    #[test]
    fn arguments_parse() {
        let a = matches(&["a", "--to=pprof", "-o", "out", "-", "--", "--x"]);
        assert_eq!(a.operands, ["a", "-", "--x"]);
        assert_eq!(a.value("--to"), Some("pprof"));
        assert_eq!(a.value("-o"), Some("out"));
        let b = matches(&["-o=x", "--to", "--json", "-o", "-y", "--json"]);
        assert_eq!(b.value("-o"), Some("-y"));
        assert_eq!(b.value("--to"), Some("--json"));
        assert!(b.flag("--json"));
        assert!(b.operands.is_empty());
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("512MiB"), Some(512 << 20));
        assert_eq!(parse_size("64kb"), Some(64 << 10));
        assert_eq!(parse_size("1.5G"), None);
        assert_eq!(parse_size("G"), None);
        let m = matches(&["a", "--max-decompressed=3M"]);
        assert_eq!(m.max_decompressed().unwrap(), Some(3 << 20));
    }

    #[test]
    fn errors_name_the_argument_as_written() {
        let has = |args: &[&str], want: &str| {
            let message = error(args);
            assert!(message.starts_with(want), "{args:?}: {message}");
        };
        has(&["--bogus"], "unknown option \"--bogus\"");
        has(&["--bogus=1"], "unknown option \"--bogus=1\"");
        has(&["-oout"], "unknown option \"-oout\"");
        has(&["-xyz"], "unknown option \"-xyz\"");
        has(&["-x=1"], "unknown option \"-x=1\"");
        has(&["-o"], "-o needs a value");
        has(&["a", "--to"], "--to needs a value");
        has(&["--json=1"], "--json takes no value");
        has(&["--help=1"], "--help takes no value");
    }

    #[test]
    fn help_is_asked_for_before_the_options_end() {
        assert!(matches!(parse_strs(&["a", "--help"]), Ok(Parsed::Help)));
        assert!(matches!(parse_strs(&["-h", "--bogus"]), Ok(Parsed::Help)));
        let m = matches(&["--", "--help"]);
        assert_eq!(m.operands, ["--help"]);
    }
}
