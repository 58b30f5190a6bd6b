//! Decompression bombs through `read_any` fail fast, with the heap's peak near the cap
//! (`Limits::max_decompressed_bytes`), measured by a counting global allocator. A small cap
//! keeps the test quick; the cap is the only knob, so the default (1 GiB) behaves the same.
#![allow(unsafe_code)] // the counting allocator below: a GlobalAlloc wrapper around System
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use proftab::formats::{gzip, read_any, Limits, ReadOptions, DEFAULT_MAX_DECOMPRESSED_BYTES};

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn added(size: usize) {
    let now = IN_USE.fetch_add(size, Ordering::SeqCst) + size;
    PEAK.fetch_max(now, Ordering::SeqCst);
}

// SAFETY: every method forwards to `System` with the same arguments; the counters do not
// affect the allocations.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        added(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        IN_USE.fetch_sub(layout.size(), Ordering::SeqCst);
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        added(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        IN_USE.fetch_sub(layout.size(), Ordering::SeqCst);
        added(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The counters are process-wide, so the tests of this file take turns: a test building its
/// 16 MiB bomb while another one measures would show up in the other's peak.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The cap used here: 4 MiB.
const CAP: usize = 4 << 20;
/// Heap allowed beyond the cap: buffers of detection and decoding, the test's own input.
const SLACK: usize = 2 << 20;
/// "Fails fast": far below the time inflating the whole bomb would take.
const FAST: Duration = Duration::from_secs(10);

/// Runs `read_any` on `bytes` with the cap; returns the error text and the heap peak above
/// what was in use before.
fn read_bomb(bytes: &[u8]) -> (String, usize) {
    let options = ReadOptions {
        source_uri: None,
        limits: Limits {
            max_decompressed_bytes: CAP,
            ..Limits::default()
        },
    };
    let base = IN_USE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    let start = Instant::now();
    let result = read_any(bytes, &options);
    let elapsed = start.elapsed();
    let peak = PEAK.load(Ordering::SeqCst) - base;
    assert!(elapsed < FAST, "took {elapsed:?}");
    let error = result
        .expect_err("a bomb beyond the cap must fail")
        .to_string();
    (error, peak)
}

/// `members` gzip members of `member_bytes` zeros each, behind `prefix` in the first one.
fn bomb(prefix: &[u8], member_bytes: usize, members: usize) -> Vec<u8> {
    let mut first = prefix.to_vec();
    first.resize(member_bytes, 0);
    let zeros = gzip::gzip(&vec![0u8; member_bytes]);
    let mut out = gzip::gzip(&first);
    for _ in 1..members {
        out.extend_from_slice(&zeros);
    }
    out
}

/// The start of a raw pprof `Profile` whose string table holds one 64 MiB string of zeros:
/// pprof's detection accepts the prefix, so the pprof reader (not the generic gzip path)
/// meets the cap.
fn pprof_prefix() -> Vec<u8> {
    let mut p = vec![0x32, 0x00]; // string_table: "" (string 0)
    p.push(0x32); // string_table: a 64 MiB string follows
    let mut len = 64u64 << 20;
    while len >= 0x80 {
        p.push((len as u8) | 0x80);
        len >>= 7;
    }
    p.push(len as u8);
    p
}

#[test]
fn gzip_bombs_fail_fast_within_the_cap() {
    let _turn = one_at_a_time();
    assert_eq!(
        DEFAULT_MAX_DECOMPRESSED_BYTES,
        1 << 30,
        "the default the cap stands for"
    );
    let cases = [
        ("zeros, 16 x 1 MiB members", bomb(&[], 1 << 20, 16)),
        ("zeros, one 16 MiB member", bomb(&[], 16 << 20, 1)),
        (
            "pprof-looking, 16 x 1 MiB members",
            bomb(&pprof_prefix(), 1 << 20, 16),
        ),
    ];
    for (what, bytes) in &cases {
        let (error, peak) = read_bomb(bytes);
        eprintln!(
            "{what}: {} compressed bytes; peak heap {peak} bytes; {error}",
            bytes.len()
        );
        // Zeros are no format: refused on the sniffed prefix, before the rest is inflated.
        // A pprof-looking prefix is inflated, and meets the cap.
        let (expected_format, expected) = if what.starts_with("pprof") {
            ("pprof: ", "exceeds the limit of 4194304 bytes")
        } else {
            (
                "input: ",
                "unrecognized format (gzip-compressed data starts with bytes 00",
            )
        };
        assert!(error.contains(expected), "{what}: unexpected error {error}");
        assert!(error.starts_with(expected_format), "{what}: {error}");
        assert!(
            peak <= CAP + SLACK,
            "{what}: peak heap {peak} bytes > cap {CAP} + {SLACK}"
        );
    }
}

/// A bomb inside a bomb: `read_any` unwraps one gzip layer (capped) and names what is inside
/// when no format recognizes it, so the inner bomb is never inflated.
#[test]
fn nested_gzip_bomb_is_not_inflated() {
    let _turn = one_at_a_time();
    let inner = bomb(&[], 1 << 20, 16);
    let outer = gzip::gzip(&inner);
    let (error, peak) = read_bomb(&outer);
    eprintln!(
        "nested: {} compressed bytes; peak heap {peak} bytes; {error}",
        outer.len()
    );
    assert!(
        error.contains("unrecognized format (gzip-compressed data starts with bytes 1f 8b"),
        "{error}"
    );
    assert!(peak <= inner.len() + SLACK, "peak heap {peak} bytes");
}
