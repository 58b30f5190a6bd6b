//! perf.data kernel frames named from a `/proc/kallsyms` text given with the recording, judged
//! by `perf report` on tests/fixtures/perf-data/kernel (`record.sh` there):
//!
//! * `kernel.data`, recorded with `perf record -g` of `kern` (reads /dev/zero, writes
//!   /dev/null: half the samples in the kernel) on a machine whose kernel addresses root could
//!   read; `kallsyms.txt` is that boot's /proc/kallsyms cut to the symbols the recording's
//!   kernel addresses fall in and the next ones (which end them), plus `_text`, `_etext` and a
//!   module's line. `kernel.report.txt` is `perf report --no-children --sort dso,sym -n` made
//!   there with the whole /proc/kallsyms.
//! * Given with `kern` and the text (`read_with_files`, as npm and the viewer do; the CLI's
//!   `--kallsyms FILE`), every kernel and `kern` row of perf report has its self samples; the
//!   libc rows (libc not given) stay unsymbolised and add up to the rest.
//! * Without the text, or with one of another kernel build or with hidden addresses, kernel
//!   frames stay `[kernel.kallsyms]+0x…` and the warning says why.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;

use proftab::analysis::functions::function_table;
use proftab::formats::perf_data::binaries::{is_kallsyms, read_with_files};
use proftab::formats::{self, Parsed, ReadOptions};
use support::cli::run_json;
use support::corpus::fixture;
use support::perf_report;

const DIR: &str = "perf-data/kernel";

fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture(&format!("{DIR}/{name}"))).unwrap()
}

fn read_with(files: &[(&str, Vec<u8>)]) -> Parsed {
    let files: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|(n, b)| ((*n).to_owned(), b.clone()))
        .collect();
    read_with_files(&bytes("kernel.data"), &ReadOptions::default(), &files)
        .unwrap()
        .0
}

/// Self samples per function name (value type `samples`), rows with self samples only.
fn self_by_name(parsed: &Parsed) -> BTreeMap<String, f64> {
    let p = &parsed.profile;
    let vt = p.value_type_index("samples").unwrap();
    function_table(p, vt, None)
        .rows
        .into_iter()
        .filter(|r| r.self_value != 0.0)
        .map(|r| (r.name, r.self_value))
        .collect()
}

/// `perf report --sort dso,sym -n` rows of the fixture: symbol → (dso, self samples).
fn report_rows() -> BTreeMap<String, (String, f64)> {
    perf_report::report_rows(&String::from_utf8(bytes("kernel.report.txt")).unwrap())
}

/// Every kernel and `kern` row of perf report has proftab's self samples; the rows of other
/// binaries that proftab leaves unsymbolised add up to its `+0x…` and `[unknown]` rows.
fn assert_matches_perf_report(got: BTreeMap<String, f64>, what: &str) {
    let want = report_rows();
    let kernel_rows = want.values().filter(|r| r.0 == "[kernel.kallsyms]").count();
    assert!(kernel_rows >= 15, "{what}: the fixture has kernel rows");
    perf_report::assert_matches(&want, got, &["[kernel.kallsyms]", "kern"], what);
}

#[test]
fn kernel_frames_named_from_the_kallsyms_given_equal_perf_report() {
    let parsed = read_with(&[("kern", bytes("kern")), ("kallsyms", bytes("kallsyms.txt"))]);
    let got = self_by_name(&parsed);
    assert!(got["read_zero"] > 300.0, "{got:?}");
    // Two names at one address: the one listed last, as perf names it.
    assert!(got.contains_key("__x86_indirect_thunk_rax"), "{got:?}");
    assert_matches_perf_report(got, "read_with_files");
    let warning = parsed
        .warnings
        .iter()
        .map(|w| w.to_string())
        .collect::<String>();
    assert!(!warning.contains("kernel frames"), "{warning}");
}

#[test]
fn the_cli_takes_kallsyms_from_a_file() {
    let dir = fixture(DIR);
    let kallsyms = dir.join("kallsyms.txt");
    let data = dir.join("kernel.data");
    let args = [
        "top",
        data.to_str().unwrap(),
        "--json",
        "--symbols",
        dir.to_str().unwrap(),
        "--kallsyms",
        kallsyms.to_str().unwrap(),
    ];
    let json = run_json(env!("CARGO_BIN_EXE_proftab"), &args);
    let got: BTreeMap<String, f64> = json["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["self"].as_f64().unwrap(),
            )
        })
        .collect();
    // The CLI also finds libc at its recorded path when this machine has the recording's
    // libc (its build-id); then its rows are compared too: of the aliases of an address
    // (`read`, `__libc_read`, `__GI___read` …) proftab must pick perf's.
    let libc_named = !got.keys().any(|n| n.starts_with("libc.so.6+0x"));
    for (name, (dso, n)) in report_rows() {
        if dso == "[kernel.kallsyms]" || dso == "kern" || (libc_named && dso == "libc.so.6") {
            assert_eq!(
                got.get(&name),
                Some(&n),
                "proftab top --kallsyms: {name} in {dso}"
            );
        }
    }
    let total: f64 = report_rows().values().map(|r| r.1).sum();
    assert_eq!(got.values().sum::<f64>(), total);
    // A file that is not a kallsyms text is refused, naming it.
    let not = dir.join("kern.c");
    let o = support::cli::run(
        env!("CARGO_BIN_EXE_proftab"),
        &[
            "top",
            data.to_str().unwrap(),
            "--kallsyms",
            not.to_str().unwrap(),
        ],
        None,
    );
    assert!(!o.status.success());
    let err = support::cli::stderr(&o);
    assert!(
        err.contains("--kallsyms")
            && err.contains("kern.c")
            && err.contains("not a /proc/kallsyms text"),
        "{err}"
    );
}

/// The kernel rows stay unsymbolised and the warning says why (`why`).
fn assert_kernel_unnamed(parsed: &Parsed, why: &str) {
    let got = self_by_name(parsed);
    assert!(!got.contains_key("read_zero"), "{got:?}");
    assert!(got.contains_key("sum_block"), "{got:?}");
    assert!(
        got.keys().any(|n| n.starts_with("[kernel.kallsyms]+0x")),
        "{got:?}"
    );
    let warnings: Vec<String> = parsed.warnings.iter().map(|w| w.to_string()).collect();
    let w = warnings
        .iter()
        .find(|w| w.contains("kernel frames"))
        .unwrap();
    assert!(w.contains(why), "{w}");
}

#[test]
fn without_a_fitting_kallsyms_kernel_frames_stay_addresses_and_the_warning_says_why() {
    let kern = bytes("kern");
    assert_kernel_unnamed(&read_with(&[("kern", kern.clone())]), "no kallsyms text");
    let text = String::from_utf8(bytes("kallsyms.txt")).unwrap();
    // Another build: its code ends elsewhere.
    let other = text.replace(" T _etext", " T _etext_old") + "ffffffff82209000 T _etext\n";
    let parsed = read_with(&[("kern", kern.clone()), ("k", other.into_bytes())]);
    assert_kernel_unnamed(&parsed, "another kernel build");
    // Another boot: every address moved (another KASLR offset).
    let moved: String = text
        .lines()
        .map(|l| format!("ffffffff9{}\n", &l[9..]))
        .collect();
    let parsed = read_with(&[("kern", kern.clone()), ("k", moved.into_bytes())]);
    assert_kernel_unnamed(&parsed, "another boot or kernel");
    // Read without the right to see addresses: all zeros.
    let hidden: String = text
        .lines()
        .map(|l| format!("0000000000000000{}\n", &l[16..]))
        .collect();
    let parsed = read_with(&[("kern", kern), ("k", hidden.into_bytes())]);
    assert_kernel_unnamed(&parsed, "kptr_restrict");
}

#[test]
fn bad_lines_are_counted_and_a_kallsyms_text_is_never_a_profile() {
    let text = String::from_utf8(bytes("kallsyms.txt")).unwrap();
    assert!(is_kallsyms(text.as_bytes()));
    assert_eq!(formats::detect(text.as_bytes()), None);
    let err = formats::read_any(text.as_bytes(), &ReadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("unrecognized"), "{err}");
    let broken = format!("{text}this is no kallsyms line\n");
    let parsed = read_with(&[("kern", bytes("kern")), ("k", broken.into_bytes())]);
    let warnings: Vec<String> = parsed.warnings.iter().map(|w| w.to_string()).collect();
    let n = text.lines().count() + 1;
    let want =
        format!("kallsyms line {n}: expected `ADDRESS TYPE NAME [MODULE]`; 1 such line skipped");
    assert!(warnings.iter().any(|w| w.contains(&want)), "{warnings:?}");
    assert!(self_by_name(&parsed).contains_key("read_zero"));
}
