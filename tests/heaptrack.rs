//! heaptrack data files (`heaptrack`), judged by heaptrack's own `heaptrack_print`.
//!
//! * `tests/fixtures/heaptrack/allocs.zst` was recorded with `heaptrack` 1.4 on `allocs.c`
//!   (`record.sh`; `allocs.heaptrack_print.txt` is heaptrack_print's report of it); it reads to
//!   its golden view.
//! * `heaptrack_print` (suppressions off, templates not shortened, every entry listed) is the
//!   judge for the fixture and every file of corpus-new/heaptrack: its total of calls to
//!   allocation functions, its "MOST CALLS TO ALLOCATION FUNCTIONS" per function (the innermost
//!   frame of each path; entries named by an address are compared as one group, since
//!   heaptrack_print merges them by module, file and line), its peak and leaked totals as it
//!   prints them, and its temporary total (less the frees it miscounts, see
//!   `zero_sentinel_frees`) must equal proftab's.
//! * `proftab convert FILE -o x.pb.gz` then `go tool pprof -top` equals `proftab top`, for every
//!   value type.
//! * Every file of corpus-new/heaptrack reads; invalid inputs give their messages; other
//!   formats' files are refused and truncated files never panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proftab::formats::{gzip, heaptrack, zstd, Format};
use support::cli::{have_tool, tool_stdout};
use support::corpus::{corpus_new, fixture};
use support::importers::{
    check_corpus_new, check_golden_fixtures, check_pprof_conversion_all_types, check_robustness,
    top_rows,
};
use support::profile::read_path;
use support::text::{check_invalid_fixtures, total};

/// The recorded fixture.
fn fixtures() -> Vec<PathBuf> {
    vec![fixture("heaptrack/allocs.zst")]
}

/// The fixture and the corpus-new files small enough for the slower checks (the 9 MB
/// heaptrack_gui file is read by the corpus and judge tests only).
fn small_inputs() -> Vec<PathBuf> {
    let mut v = fixtures();
    v.extend(
        corpus_new("heaptrack")
            .into_iter()
            .filter(|p| std::fs::metadata(p).unwrap().len() < 100_000),
    );
    v
}

#[test]
fn recorded_fixtures_read_to_their_golden_views() {
    check_golden_fixtures(Format::Heaptrack, &fixtures(), "heaptrack", ".zst");
}

/// What heaptrack_print reports: total calls, calls per innermost function, peak and leaked
/// as it formats them.
#[derive(Debug, PartialEq)]
struct Report {
    calls: u64,
    temporary: u64,
    calls_by_function: BTreeMap<String, u64>,
    peak: String,
    leaked: String,
}

/// Entries named by an address (`0x…`) are one group: heaptrack_print merges them by module,
/// file and line and names the group after its first address.
const ADDRESS_GROUP: &str = "<address>";

fn group(name: &str) -> String {
    if name.starts_with("0x") {
        ADDRESS_GROUP.to_owned()
    } else {
        name.to_owned()
    }
}

fn heaptrack_print(path: &Path) -> Option<Report> {
    if !have_tool("heaptrack_print", "heaptrack judge") {
        return None;
    }
    let options = [
        "--disable-builtin-suppressions",
        "--disable-embedded-suppressions",
        "-t",
        "0",
        "-a",
        "1",
        "-p",
        "0",
        "-T",
        "0",
        "-n",
        "100000000",
        "-s",
        "0",
        "-f",
    ];
    let mut args: Vec<&std::ffi::OsStr> = options.iter().map(std::ffi::OsStr::new).collect();
    args.push(path.as_os_str());
    let text = tool_stdout("heaptrack_print", &args);
    let value = |prefix: &str| {
        let line = text.lines().find(|l| l.starts_with(prefix)).unwrap();
        line[prefix.len()..].trim().to_owned()
    };
    let calls = value("calls to allocation functions:");
    let calls = calls.split(' ').next().unwrap().parse().unwrap();
    let mut calls_by_function = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(n) = line.strip_suffix(" peak consumption from") {
            if let Some((n, _)) = n.split_once(" calls to allocation functions with ") {
                let function = lines.next().unwrap();
                *calls_by_function.entry(group(function)).or_default() += n.parse::<u64>().unwrap();
            }
        }
    }
    let temporary = value("temporary memory allocations:");
    let temporary = temporary.split(' ').next().unwrap().parse().unwrap();
    Some(Report {
        calls,
        temporary,
        calls_by_function,
        peak: value("peak heap memory consumption:"),
        leaked: value("total memory leaked:"),
    })
}

/// Bytes as heaptrack_print prints them: `123B`, else two decimals of 1000s and the unit's
/// first letter (`136.70K`).
fn format_bytes(bytes: f64) -> String {
    let units = ["B", "K", "M", "G", "T"];
    let (mut v, mut i) = (bytes, 0);
    while i < units.len() - 1 && v.abs() > 1000.0 {
        v /= 1000.0;
        i += 1;
    }
    if i == 0 {
        format!("{bytes}B")
    } else {
        format!("{v:.2}{}", units[i])
    }
}

/// The frees heaptrack_print counts as temporary although no allocation precedes them: `- 0`
/// right after another free (or first), since heaptrack marks "no previous allocation" with the
/// allocation info index 0. proftab does not count them.
fn zero_sentinel_frees(path: &Path) -> u64 {
    let bytes = std::fs::read(path).unwrap();
    let text = if zstd::is_zstd(&bytes) {
        zstd::unzstd_capped(&bytes, 1 << 30, "test").unwrap()
    } else if gzip::is_gzip(&bytes) {
        gzip::gunzip_capped(&bytes, 1 << 30, "test").unwrap()
    } else {
        bytes
    };
    let mut previous_was_free = true;
    let mut n = 0;
    for line in String::from_utf8_lossy(&text).lines() {
        match line.as_bytes().first() {
            Some(b'+') => previous_was_free = false,
            Some(b'-') => {
                n += u64::from(line == "- 0" && previous_was_free);
                previous_was_free = true;
            }
            _ => {}
        }
    }
    n
}

/// proftab's side of [`Report`].
fn proftab_report(path: &Path) -> Report {
    let p = read_path(Format::Heaptrack, path).profile;
    let (calls, rows) = top_rows(path, Some("allocations"));
    let mut calls_by_function = BTreeMap::new();
    for (name, (flat, _)) in rows {
        if flat != 0.0 {
            *calls_by_function.entry(group(&name)).or_default() += flat as u64;
        }
    }
    Report {
        calls: calls as u64,
        temporary: total(&p, "temporary") as u64 + zero_sentinel_frees(path),
        calls_by_function,
        peak: format_bytes(total(&p, "peak")),
        leaked: format_bytes(total(&p, "leaked")),
    }
}

#[test]
fn heaptrack_print_agrees() {
    let mut inputs = fixtures();
    inputs.extend(corpus_new("heaptrack"));
    for path in inputs {
        let Some(want) = heaptrack_print(&path) else {
            return;
        };
        assert!(!want.calls_by_function.is_empty(), "{}", path.display());
        assert_eq!(proftab_report(&path), want, "{}", path.display());
    }
}

#[test]
fn pprof_conversion_matches_go_tool_pprof() {
    check_pprof_conversion_all_types(Format::Heaptrack, &small_inputs());
}

#[test]
fn corpus_new_reads() {
    let n = check_corpus_new(Format::Heaptrack, "heaptrack");
    assert_eq!(n, corpus_new("heaptrack").len());
}

#[test]
fn invalid_inputs() {
    assert_eq!(check_invalid_fixtures(Format::Heaptrack, "heaptrack"), 7);
}

#[test]
fn detection_refuses_other_formats_and_prefixes_never_panic() {
    check_robustness(Format::Heaptrack, heaptrack::detect, &small_inputs());
}

/// A zstd bomb (4 MB of zeros, compressed here with ruzstd's own encoder to a few hundred
/// bytes) stops at the decompression limit, through `read_any` and through the reader, with
/// the limit named; with room enough it decompresses to what was compressed.
#[test]
fn zstd_output_is_capped() {
    let zeros = vec![0u8; 4 << 20];
    let bytes =
        ruzstd::encoding::compress_to_vec(&zeros[..], ruzstd::encoding::CompressionLevel::Fastest);
    assert!(bytes.len() < 64 << 10, "{} bytes", bytes.len());
    let options = proftab::formats::ReadOptions {
        limits: proftab::formats::Limits {
            max_decompressed_bytes: 1 << 20,
            ..proftab::formats::Limits::default()
        },
        ..proftab::formats::ReadOptions::default()
    };
    // read_any sniffs the prefix: zeros are no heaptrack file, refused before inflating.
    let text = proftab::formats::read_any(&bytes, &options)
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("unrecognized format (zstd-compressed data starts with bytes 00"),
        "{text}"
    );
    let text = heaptrack::read(&bytes, &options).unwrap_err().to_string();
    assert!(
        text.contains("exceeds the limit of 1048576 bytes"),
        "{text}"
    );
    assert_eq!(zstd::unzstd_capped(&bytes, 4 << 20, "test").unwrap(), zeros);
}

/// The inlined `dup_inline` of the fixture is its own frame, marked inlined, above `strings`
/// (the function it was inlined into, not marked), both at the same address; frames carry their
/// module.
#[test]
fn inline_frames_are_their_own_marked_frames() {
    let p = read_path(Format::Heaptrack, &fixtures()[0]).profile;
    let ext = &p.locations.ext;
    let inlined = ext.lgl(proftab::model::ext::locations::INLINED).unwrap();
    let object = ext.chr(proftab::model::ext::locations::OBJECT).unwrap();
    let row = |name: &str| {
        (0..p.locations.line.len())
            .find(|&l| p.frame_display_name(proftab::model::LocationIndex(l as u32)) == name)
            .unwrap_or_else(|| panic!("no location of {name}"))
    };
    let (dup, strings) = (row("dup_inline"), row("strings"));
    assert_eq!((inlined[dup], inlined[strings]), (Some(true), Some(false)));
    assert_eq!((p.locations.line[dup], p.locations.line[strings]), (11, 47));
    let address = |l: usize| p.location_address(proftab::model::LocationIndex(l as u32));
    assert_eq!(address(dup), address(strings));
    assert!(p.str(object[dup]).ends_with("heaptrack-allocs"));
}

/// Samples carry the time stamp of their allocations: within the run, more than one stamp in
/// a run of 80 ms (`c` records every 10 ms), and the allocations per stamp add up.
#[test]
fn samples_carry_their_time_stamps() {
    let path = corpus_new("heaptrack")
        .into_iter()
        .find(|p| p.to_string_lossy().contains("david"));
    let Some(path) = path else {
        return;
    };
    let p = read_path(Format::Heaptrack, &path).profile;
    let times = p
        .samples
        .ext
        .dbl(proftab::model::ext::samples::TIME)
        .unwrap();
    let meta = |k: &str| {
        let i = p.meta.key.iter().position(|s| p.str(*s) == k).unwrap();
        p.str(p.meta.value[i]).to_owned()
    };
    let total_ms: f64 = meta("heaptrack.total_time_ms").parse().unwrap();
    assert!(times.iter().all(|t| *t >= 0.0 && *t * 1000.0 < total_ms));
    let mut distinct: Vec<u64> = times.iter().map(|t| (t * 1000.0).round() as u64).collect();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(distinct.len() > 1, "{distinct:?}");
    assert_eq!(total(&p, "allocations"), 2896.0); // what heaptrack's tst_parser.cpp asserts
}
