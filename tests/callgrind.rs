//! callgrind files, judged by valgrind's own `callgrind_annotate`.
//!
//! * The recorded fixtures (tests/fixtures/callgrind/, see its README.md) give, through
//!   `proftab top`, the self Ir per function and the program total that `callgrind_annotate`
//!   prints (its committed output, and the live tool when it is installed); recursion levels
//!   (`fact'2`) are one function, as proftab strips them.
//! * Conversion to pprof keeps `go tool pprof -top` equal to proftab's function table.
//! * Every file of corpus-new/callgrind reads to a valid profile whose totals survive
//!   tables-JSON; golden sample lines for them.
//! * Invalid inputs (tests/fixtures/invalid/callgrind) give their exact messages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use proftab::analysis::functions::function_table;
use proftab::formats::{self, callgrind, Format, ReadOptions, WriteOptions};
use support::corpus::{corpus_new, file_name, files_in, fixture, scratch_dir};
use support::go::go_top;
use support::profile::{assert_valid, read_path};
use support::reliability::assert_tables_json_round_trip;
use support::text::{
    assert_detected, assert_matches_go_top, assert_other_formats_not_claimed,
    check_invalid_fixtures, total, truncation_sweep,
};

/// The events of a read callgrind file (its value types, in order).
fn events(p: &proftab::model::Profile) -> Vec<String> {
    let events = p.meta_value("callgrind.events").unwrap();
    events.split_ascii_whitespace().map(str::to_owned).collect()
}

/// The recorded callgrind fixtures.
fn fixtures() -> Vec<PathBuf> {
    files_in(&fixture("callgrind"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "out"))
        .collect()
}

/// Self value per function name (recursion levels merged) and the program total, from a
/// `callgrind_annotate` report of one event.
fn parse_annotate(report: &str) -> (f64, BTreeMap<String, f64>) {
    let number = |s: &str| s.replace(',', "").parse::<f64>().unwrap();
    let mut total = f64::NAN;
    let mut rows = BTreeMap::new();
    for line in report
        .lines()
        .take_while(|l| !l.starts_with("-- Auto-annotated"))
    {
        let Some((value, rest)) = line.trim_start().split_once(' ') else {
            continue;
        };
        if !value.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let Some((_, rest)) = rest.split_once(")  ") else {
            continue;
        };
        if rest == "PROGRAM TOTALS" {
            total = number(value);
            continue;
        }
        // `file:function [object]`; the function follows the last ':' of the file part.
        let name = rest.split(" [").next().unwrap();
        let function = name.rsplit_once(':').map_or(name, |(_, f)| f);
        let function = match function.rsplit_once('\'') {
            Some((base, level)) if level.bytes().all(|b| b.is_ascii_digit()) => base,
            _ => function,
        };
        *rows.entry(function.to_owned()).or_insert(0.0) += number(value);
    }
    (total, rows)
}

/// `proftab top --json` of `path`: total and self per function.
fn proftab_top(path: &Path) -> (f64, BTreeMap<String, f64>) {
    let json = support::cli::run_json(
        env!("CARGO_BIN_EXE_proftab"),
        &["top", "--json", path.to_str().unwrap()],
    );
    let rows = json["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["self"].as_f64().unwrap() != 0.0)
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["self"].as_f64().unwrap(),
            )
        })
        .collect();
    (json["total"].as_f64().unwrap(), rows)
}

fn assert_same_as_annotate(path: &Path, report: &str, what: &str) {
    let (want_total, want) = parse_annotate(report);
    let (total, got) = proftab_top(path);
    assert_eq!(total, want_total, "{what}: program total");
    let want: BTreeMap<_, _> = want.into_iter().filter(|(_, v)| *v != 0.0).collect();
    assert_eq!(got, want, "{what}: self Ir per function");
}

#[test]
fn self_costs_equal_committed_callgrind_annotate() {
    for path in fixtures() {
        let report = path.with_extension("annotate.txt");
        let report = std::fs::read_to_string(&report).unwrap();
        assert_same_as_annotate(&path, &report, &file_name(&path));
    }
}

#[test]
fn self_costs_equal_live_callgrind_annotate() {
    if !support::cli::have_tool("callgrind_annotate", "callgrind annotate comparison") {
        return;
    }
    for path in fixtures() {
        let out = Command::new("callgrind_annotate")
            .args(["--threshold=100", path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success());
        let report = String::from_utf8(out.stdout).unwrap();
        assert_same_as_annotate(&path, &report, &file_name(&path));
    }
}

#[test]
fn pprof_conversion_keeps_go_top() {
    let dir = scratch_dir("callgrind-pprof");
    let inputs = fixtures().into_iter().chain(corpus_new("callgrind"));
    for path in inputs {
        let parsed = read_path(Format::Callgrind, &path);
        let p = &parsed.profile;
        let written = formats::pprof::write(p, &WriteOptions::default()).unwrap();
        let out = dir.join(format!("{}.pb.gz", file_name(&path)));
        std::fs::write(&out, &written.bytes).unwrap();
        for event in events(p) {
            let Some(rows) = go_top(&out, &event, "count") else {
                return;
            };
            assert_matches_go_top(p, &event, &rows, &format!("{} {event}", file_name(&path)));
        }
    }
}

#[test]
fn corpus_new_files_read() {
    let files = corpus_new("callgrind");
    for path in &files {
        let what = file_name(path);
        assert_detected(Format::Callgrind, path);
        let parsed = read_path(Format::Callgrind, path);
        assert_valid(&parsed.profile, &what);
        assert_tables_json_round_trip(&parsed.profile, &what);
    }
}

#[test]
fn golden_samples_and_warnings() {
    let inputs = fixtures().into_iter().chain(corpus_new("callgrind"));
    for path in inputs {
        let parsed = read_path(Format::Callgrind, &path);
        let p = &parsed.profile;
        let mut text = String::new();
        for w in &parsed.warnings {
            text.push_str(&format!("warning: {w}\n"));
        }
        for (key, value) in p.meta.key.iter().zip(&p.meta.value) {
            text.push_str(&format!("meta {} = {}\n", p.str(*key), p.str(*value)));
        }
        for t in events(p) {
            text.push_str(&format!("total {t} = {}\n", total(p, &t)));
        }
        text.push_str(&format!("samples {}\n", p.num_samples()));
        // The function table of the first event: exact self, reconstructed total.
        let vt = p.value_type_index(&events(p)[0]).unwrap();
        for row in function_table(p, vt, None).rows {
            let (name, flat, cum) = (row.name, row.self_value, row.total_value);
            text.push_str(&format!("function {name} self={flat} total={cum}\n"));
        }
        // Sample lines only for the small files (the recorded ones have thousands).
        if std::fs::metadata(&path).unwrap().len() < 4096 {
            for line in support::json::sample_lines(p) {
                text.push_str(&line);
                text.push('\n');
            }
        }
        let golden = fixture("callgrind/golden").join(format!("{}.txt", file_name(&path)));
        support::golden::check(&golden, &text);
    }
}

#[test]
fn invalid_inputs_give_their_messages() {
    assert!(check_invalid_fixtures(Format::Callgrind, "callgrind") >= 8);
}

#[test]
fn detection_is_exclusive() {
    for path in fixtures().into_iter().chain(corpus_new("callgrind")) {
        assert_detected(Format::Callgrind, &path);
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !formats::collapsed::detect(&bytes),
            "collapsed claims {}",
            path.display()
        );
        truncation_sweep(Format::Callgrind, &bytes);
    }
    assert_other_formats_not_claimed(callgrind::detect, "callgrind", &[]);
}

#[test]
fn recursion_levels_are_one_function_and_self_is_exact_per_line() {
    let parsed = read_path(Format::Callgrind, &fixture("callgrind/prog.out"));
    let p = &parsed.profile;
    let names: Vec<&str> = (0..p.functions.name.len())
        .map(|f| p.str(p.functions.name[f]))
        .collect();
    assert!(names.contains(&"fact") && !names.iter().any(|n| n.contains('\'')));
    assert!(parsed
        .warnings
        .iter()
        .any(|w| w.to_string().contains("reconstructed from the call edges")));
}

/// The speedscope corpus files describe one program in several spellings (plain names, name
/// compression, subposition compression, a second event): the same samples of the first event.
#[test]
fn spellings_of_one_program_read_alike() {
    let files = corpus_new("callgrind");
    let lines = |name: &str| -> Vec<String> {
        let path = files.iter().find(|p| file_name(p).contains(name)).unwrap();
        let p = read_path(Format::Callgrind, path).profile;
        let first = events(&p)[0].clone();
        support::json::sample_lines(&p)
            .into_iter()
            .map(|l| {
                // Keep only the first event's value: `… [Instructions=20] …`.
                let (stack, rest) = l.split_once(" [").unwrap();
                let value = rest.split(['=', ',', ']']).nth(1).unwrap();
                format!("{stack} {first}={value}").replace("Time_(10ns)", "Instructions")
            })
            .collect()
    };
    if files.is_empty() {
        return;
    }
    let want = lines("example");
    assert_eq!(want.len(), 4);
    for other in [
        "name-compression",
        "subposition-compression",
        "multiple-event-types",
    ] {
        assert_eq!(lines(other), want, "{other}");
    }
}

/// Several parts (dumps) in one file add up: a file holding `prog.out` twice has twice its
/// self costs per function and twice its total.
#[test]
fn parts_add_up() {
    let once = std::fs::read(fixture("callgrind/prog.out")).unwrap();
    let mut twice = once.clone();
    twice.extend_from_slice(&once);
    let read = |bytes: &[u8]| {
        let p = callgrind::read(bytes, &ReadOptions::default())
            .unwrap()
            .profile;
        let vt = p.value_type_index("Ir").unwrap();
        let rows: BTreeMap<String, f64> = function_table(&p, vt, None)
            .rows
            .into_iter()
            .map(|r| (r.name, r.self_value))
            .collect();
        (total(&p, "Ir"), rows)
    };
    let (t1, rows1) = read(&once);
    let (t2, rows2) = read(&twice);
    assert_eq!(t2, 2.0 * t1);
    let doubled: BTreeMap<String, f64> = rows1.into_iter().map(|(k, v)| (k, 2.0 * v)).collect();
    assert_eq!(rows2, doubled);
}

/// `positions: instr` alone: addresses, line 0, and the address kept per location.
#[test]
fn instruction_positions_without_lines() {
    let text = "# callgrind format\npositions: instr\nevents: Ir\nfn=main\n0x10 3\n+4 5\n\
                cfn=leaf\ncalls=2 0x40\n* 7\nfn=leaf\n0x40 7\n";
    let parsed = callgrind::read(text.as_bytes(), &ReadOptions::default()).unwrap();
    let p = &parsed.profile;
    assert_eq!(total(p, "Ir"), 15.0);
    assert!(p.locations.line.iter().all(|l| *l == 0));
    let address = |loc: usize| match p.locations.ext.cell(".address", loc) {
        Some(proftab::model::Cell::U64(a)) => a,
        other => panic!("{other:?}"),
    };
    let addresses: Vec<_> = (0..p.locations.line.len()).map(address).collect();
    assert!(addresses.contains(&Some(0x10)) && addresses.contains(&Some(0x14)));
    assert!(addresses.contains(&Some(0x40)));
    // leaf is called from main at 0x14 in every reconstructed stack.
    let stacks: Vec<String> = support::json::sample_lines(p);
    assert!(
        stacks
            .iter()
            .any(|l| l.contains("main") && l.contains(";leaf")),
        "{stacks:?}"
    );
}

/// A dense call graph (every function calls every later one) has 2^(n-1) call paths: the walk
/// stops at its node limit, says so, and the self costs and total stay exact.
#[test]
fn dense_call_graph_is_cut_honestly() {
    const N: usize = 40;
    let mut text = String::from("# callgrind format\nevents: Ir\n");
    // Inclusive of f_i: 1 (self) + sum of inclusive of later ones = 2^(N-1-i).
    let inclusive = |i: usize| 1u64 << (N - 1 - i);
    for i in 0..N {
        text.push_str(&format!("fn=f{i}\n1 1\n"));
        for j in i + 1..N {
            text.push_str(&format!("cfn=f{j}\ncalls=1 1\n2 {}\n", inclusive(j)));
        }
    }
    let parsed = callgrind::read(text.as_bytes(), &ReadOptions::default()).unwrap();
    let p = &parsed.profile;
    assert_valid(p, "dense");
    assert_eq!(total(p, "Ir"), N as f64);
    let vt = p.value_type_index("Ir").unwrap();
    let table = function_table(p, vt, None);
    assert_eq!(table.rows.len(), N);
    assert!(table.rows.iter().all(|r| r.self_value == 1.0));
    assert!(
        parsed
            .warnings
            .iter()
            .any(|w| w.to_string().contains("cut at 200000 nodes")),
        "{:?}",
        parsed.warnings
    );
}

/// Every event is a value column of every sample, so `events:` has a limit (256; valgrind
/// writes about 20 and KCachegrind reads at most 20): a 1.4 MB line naming 200,000 events is
/// refused at once, naming the line and the limit.
#[test]
fn an_events_line_past_the_limit_is_refused() {
    let names: Vec<String> = (0..200_000).map(|i| format!("e{i}")).collect();
    let text = format!(
        "# callgrind format\nevents: {}\nfn=main\n1 5\n",
        names.join(" ")
    );
    let e = callgrind::read(text.as_bytes(), &ReadOptions::default()).unwrap_err();
    assert!(
        e.to_string().starts_with(
            "callgrind: line 2: `events:` names 200000 events, more than the limit of 256"
        ),
        "{e}"
    );
}

/// Cost lines store the costs they give, not one per event: with 256 events, cost lines of one
/// cost each read to the same totals as the dense reading, the missing costs 0.
#[test]
fn short_cost_lines_of_many_events_add_up() {
    let names: Vec<String> = (0..256).map(|i| format!("e{i}")).collect();
    let mut text = format!("# callgrind format\nevents: {}\nfn=main\n", names.join(" "));
    for line in 1..=2000 {
        text.push_str(&format!("{line} 3\n"));
    }
    text.push_str("2001 0 0 7\ntotals: 6000 0 7\n");
    let parsed = callgrind::read(text.as_bytes(), &ReadOptions::default()).unwrap();
    let p = &parsed.profile;
    assert_valid(p, "short cost lines");
    assert_eq!(total(p, "e0"), 6000.0);
    assert_eq!(total(p, "e2"), 7.0);
    assert_eq!(total(p, "e255"), 0.0);
    assert_eq!(p.num_samples(), 2001);
    assert!(
        !parsed
            .warnings
            .iter()
            .any(|w| w.to_string().contains("totals say")),
        "{:?}",
        parsed.warnings
    );
}
