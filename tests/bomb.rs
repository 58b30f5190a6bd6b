//! Decompression bombs (issue #13): compressed input is recognised on a bounded decompressed
//! prefix and refused there when it is no profile; a recognised profile is inflated up to the
//! absolute cap and, past the floor, a ratio of its compressed size; `--max-decompressed` (CLI)
//! and `Limits` (API) raise it. The bombs are generated here, never committed.

mod support;

use std::process::Command;
use std::time::Instant;

use proftab::formats::{
    gzip, over_cap_message, read_any, Limits, ReadOptions, EXPANSION_FLOOR_BYTES,
};

/// A gzip stream of `members` members, each `head` then zeros up to 1 MiB (about 1 KB each):
/// `members` MiB decompressed from about `members` KB.
fn bomb(head: &[u8], members: usize) -> Vec<u8> {
    let mut first = head.to_vec();
    first.resize(1 << 20, 0);
    let mut out = gzip::gzip(&first);
    let zeros = gzip::gzip(&vec![0u8; 1 << 20]);
    for _ in 1..members {
        out.extend_from_slice(&zeros);
    }
    out
}

#[test]
fn zeros_are_refused_on_the_prefix() {
    let bytes = bomb(b"", 1024);
    assert!(bytes.len() < 2 << 20, "{} bytes", bytes.len());
    let start = Instant::now();
    let e = read_any(&bytes, &ReadOptions::default()).unwrap_err();
    println!(
        "1 GiB of zeros in {} bytes of gzip refused in {:?}",
        bytes.len(),
        start.elapsed()
    );
    assert_eq!(e.format, "input");
    assert!(
        e.message.starts_with(
            "unrecognized format (gzip-compressed data starts with bytes 00 00 00 00 00 00 00 00)"
        ),
        "{e}"
    );
}

#[test]
fn a_profile_header_then_zeros_is_cut_at_the_ratio_cap() {
    // 80 MiB from about 80 KB: a collapsed line, then zeros. The prefix claims collapsed; the
    // ratio limit stops the inflation at the floor.
    let bytes = bomb(b"main;work 1\n", 80);
    let e = read_any(&bytes, &ReadOptions::default()).unwrap_err();
    assert_eq!(e.format, "gzip");
    assert!(
        e.message
            .ends_with(&over_cap_message(EXPANSION_FLOOR_BYTES)),
        "{e}"
    );
    // Raised (as --max-decompressed does), the whole is inflated and the reader judges it:
    // one sample, the zeros skipped with a warning.
    let options = ReadOptions {
        limits: Limits {
            max_decompressed_bytes: 96 << 20,
            max_expansion_ratio: usize::MAX,
            ..Limits::default()
        },
        ..ReadOptions::default()
    };
    let parsed = read_any(&bytes, &options).unwrap();
    assert_eq!(parsed.profile.num_samples(), 1);
    assert_eq!(parsed.warnings.len(), 1, "{:?}", parsed.warnings);
}

#[test]
fn small_and_real_compressed_files_are_not_limited_by_ratio() {
    let limits = Limits::default();
    assert_eq!(limits.decompressed_cap(10), EXPANSION_FLOOR_BYTES);
    assert_eq!(limits.decompressed_cap(1 << 20), 300 << 20);
    assert_eq!(limits.decompressed_cap(100 << 20), 1 << 30);
    // A small profile with a high ratio (a collapsed stack repeated) reads whole.
    let text = "main;a;b;c 1\n".repeat(200_000);
    let bytes = gzip::gzip(text.as_bytes());
    assert!(text.len() / bytes.len() > 300);
    let parsed = read_any(&bytes, &ReadOptions::default()).unwrap();
    assert_eq!(parsed.profile.num_samples(), 200_000);
}

#[test]
fn a_truncated_small_stream_keeps_the_decoders_error() {
    let mut bytes = gzip::gzip(b"\x00\x01\x02 not a profile");
    bytes.truncate(bytes.len() - 4);
    let e = read_any(&bytes, &ReadOptions::default()).unwrap_err();
    assert_eq!(e.format, "gzip", "{e}");
    assert!(e.message.contains("truncated"), "{e}");
}

/// The CLI on a 1 GiB bomb: refused, with its time and peak memory printed (measured by
/// `/usr/bin/time -v`; not asserted, the machine is shared).
#[test]
fn cli_refuses_the_bomb_and_reports_its_cost() {
    let exe = env!("CARGO_BIN_EXE_proftab");
    let dir = support::corpus::scratch_dir("bomb");
    let path = dir.join("zeros.gz");
    std::fs::write(&path, bomb(b"", 1024)).unwrap();
    let path = path.to_str().unwrap();
    let out = support::cli::run(exe, &["top", path], None);
    assert!(!out.status.success());
    let err = support::cli::stderr(&out);
    assert!(
        err.contains("unrecognized format (gzip-compressed data"),
        "{err}"
    );
    // The option is accepted by reading verbs and does not let zeros through.
    let out = support::cli::run(exe, &["info", "--max-decompressed", "2G", path], None);
    assert!(support::cli::stderr(&out).contains("unrecognized format"));
    let out = support::cli::run(exe, &["top", "--max-decompressed", "lots", path], None);
    assert!(support::cli::stderr(&out).contains("--max-decompressed needs a size"));
    if !std::path::Path::new("/usr/bin/time").exists() {
        println!("SKIP: /usr/bin/time is missing; no measurement");
        return;
    }
    let timed = Command::new("/usr/bin/time")
        .args(["-v", exe, "top", path])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&timed.stderr);
    for line in report.lines() {
        if line.contains("Maximum resident") || line.contains("Elapsed (wall clock)") {
            println!("proftab top (1 GiB gzip bomb): {}", line.trim());
        }
    }
}
