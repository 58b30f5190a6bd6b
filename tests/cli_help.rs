//! `proftab help`, `proftab help VERB`, `proftab VERB --help` and the usage errors of the
//! command line (unknown verb, unknown option, missing value): output, messages and exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Output;

use proftab::formats;
use support::cli::{stderr, stdout};

fn proftab(args: &[&str]) -> Output {
    support::cli::run(env!("CARGO_BIN_EXE_proftab"), args, None)
}

/// Every verb with the options its help must list.
const VERBS: [(&str, &[&str]); 6] = [
    ("info", &["--json"]),
    (
        "top",
        &[
            "--type TYPE",
            "--by function|line",
            "--limit N",
            "--json",
            "--symbols DIR",
            "--kallsyms FILE",
        ],
    ),
    (
        "convert",
        &[
            "-o OUT",
            "--to FORMAT",
            "--append",
            "--type TYPE",
            "--source ID",
            "--symbols DIR",
            "--kallsyms FILE",
        ],
    ),
    (
        "combine",
        &[
            "-o OUT",
            "--to FORMAT",
            "--append",
            "--type TYPE",
            "--source ID",
            "--symbols DIR",
            "--kallsyms FILE",
        ],
    ),
    ("validate", &[]),
    (
        "diff",
        &["--type TYPE", "--absolute", "--limit N", "--json"],
    ),
];

#[test]
fn help_lists_every_verb_and_option() {
    for args in [&["help"][..], &["--help"], &["-h"]] {
        let o = proftab(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(
            out.starts_with("usage:\n  proftab info FILE [--json]\n"),
            "{out}"
        );
        assert!(
            out.ends_with("Input formats are recognised by content.\n"),
            "{out}"
        );
        for (verb, options) in VERBS {
            assert!(out.contains(&format!("  proftab {verb} ")), "{verb}: {out}");
            for option in options {
                assert!(out.contains(option), "{verb} {option}: {out}");
            }
        }
    }
}

#[test]
fn help_verb_and_verb_help_print_the_same_usage() {
    for (verb, options) in VERBS {
        let o = proftab(&["help", verb]);
        assert_eq!(o.status.code(), Some(0), "{verb}: {}", stderr(&o));
        let out = stdout(&o);
        assert!(
            out.starts_with(&format!("usage: proftab {verb} ")),
            "{verb}: {out}"
        );
        assert!(out.contains("\noptions:\n"), "{verb}: {out}");
        for option in options.iter().chain(&["-h, --help"]) {
            assert!(out.contains(&format!("\n  {option} ")), "{option}: {out}");
        }
        for flag in ["--help", "-h"] {
            let again = proftab(&[verb, flag]);
            assert_eq!(again.status.code(), Some(0), "{verb} {flag}");
            assert_eq!(stdout(&again), out, "{verb} {flag}");
            assert!(again.stderr.is_empty());
        }
    }
}

#[test]
fn verb_help_lists_formats_from_the_registry() {
    let convert = stdout(&proftab(&["help", "convert"]));
    assert!(
        convert.contains(&formats::writable_names().join(", ")),
        "{convert}"
    );
    assert!(
        convert.contains(&formats::readable_names().join(", ")),
        "{convert}"
    );
    let info = stdout(&proftab(&["info", "--help"]));
    assert!(
        info.contains(&formats::readable_names().join(", ")),
        "{info}"
    );
}

#[test]
fn help_of_help_and_version() {
    let o = proftab(&["help", "help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("usage: proftab help [COMMAND]\n"));
    let o = proftab(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("proftab "));
}

#[test]
fn usage_errors_name_the_problem() {
    let cases: [(&[&str], &str); 14] = [
        (&[], "no command given"),
        (&["frobnicate"], "unknown command \"frobnicate\""),
        (&["help", "frobnicate"], "unknown command \"frobnicate\""),
        (&["help", "info", "top"], "help takes one COMMAND, got 2"),
        (&["info", "x", "--bogus"], "unknown option \"--bogus\""),
        (&["info", "x", "--bogus=3"], "unknown option \"--bogus=3\""),
        (&["convert", "x", "-oout"], "unknown option \"-oout\""),
        (&["top", "x", "-xyz"], "unknown option \"-xyz\""),
        (&["validate", "x", "--json"], "unknown option \"--json\""),
        (&["top", "x", "--limit"], "--limit needs a value"),
        (&["convert", "x", "-o"], "-o needs a value"),
        (&["diff", "a", "b", "--type"], "--type needs a value"),
        (&["info", "x", "--json=1"], "--json takes no value"),
        (&["top", "x", "--by", "file"], "--by takes function or line"),
    ];
    for (args, message) in cases {
        let o = proftab(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.starts_with(&format!("proftab: {message}")),
            "{args:?}: {err}"
        );
        assert!(err.ends_with(" (see `proftab help`)\n"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn an_option_after_double_dash_is_a_file() {
    let o = proftab(&["info", "--", "--help"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with("proftab: cannot read --help"),
        "{}",
        stderr(&o)
    );
}
