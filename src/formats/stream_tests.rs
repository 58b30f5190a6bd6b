//! Tests of [`super::StreamRead`].

use super::*;
use crate::formats::gzip::gzip;
use crate::formats::test_corpus;

/// What a read gave, as text: the format, the profile and the warnings, or the error.
fn show(r: Result<Parsed, ReadError>) -> String {
    match r {
        Ok(p) => format!("{:?} {} {:?}", p.format, comparable(&p.profile), p.warnings),
        Err(e) => e.to_string(),
    }
}

/// The last four bytes of `bytes`, little-endian (a gzip stream's ISIZE), when it has four.
fn tail_of(bytes: &[u8]) -> Option<u32> {
    let at = bytes.len().checked_sub(4)?;
    Some(u32::from_le_bytes(bytes[at..].try_into().unwrap()))
}

/// `bytes` fed in pieces of `size`; the stage it took and what `finish` gave, beside `read_any`.
fn both(bytes: &[u8], size: usize) -> (&'static str, String, String) {
    let tail = tail_of(bytes);
    let options = ReadOptions::default();
    let mut s = StreamRead::new(options.clone(), bytes.len(), tail);
    let mut mode = "pending";
    for piece in bytes.chunks(size) {
        s.feed(piece);
        if mode == "pending" {
            mode = s.mode();
        }
    }
    (mode, show(s.finish()), show(read_any(bytes, &options)))
}

/// Folded stacks of more than a MiB even gzipped (pseudo-random names).
fn big_collapsed() -> Vec<u8> {
    collapsed_lines(200_000)
}

/// `n` lines of folded stacks with pseudo-random names.
fn collapsed_lines(n: u32) -> Vec<u8> {
    let mut x = 12345u64;
    (0..n)
        .flat_map(|i| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            format!("main;f{};g{:x};h{} {}\n", i % 31, x >> 40, i % 7, 1 + i % 5).into_bytes()
        })
        .collect()
}

/// The profile of `n` lines of folded stacks ([`collapsed_lines`]), as proftab writes it in
/// pprof: raw.
fn raw_pprof(n: u32) -> Vec<u8> {
    crate::formats::pprof::write_uncompressed(&folded_profile(n), &Default::default())
        .unwrap()
        .bytes
}

/// As [`raw_pprof`], gzipped (by the pprof writer).
fn gzip_pprof(n: u32) -> Vec<u8> {
    crate::formats::pprof::write(&folded_profile(n), &Default::default())
        .unwrap()
        .bytes
}

/// The profile of `n` lines of folded stacks ([`collapsed_lines`]).
fn folded_profile(n: u32) -> crate::model::Profile {
    let text = collapsed_lines(n);
    let options = ReadOptions::default();
    crate::formats::collapsed::read(&text, &options)
        .unwrap()
        .profile
}

#[test]
fn collapsed_streams_by_line_and_reads_as_whole() {
    let text = big_collapsed();
    assert!(text.len() > HEAD_BYTES);
    let (mode, streamed, whole) = both(&text, 65536);
    assert_eq!(mode, "lines");
    assert_eq!(streamed, whole);
}

#[test]
fn gzip_inflates_as_it_arrives_and_reads_as_whole() {
    let gz = gzip(&big_collapsed());
    let (mode, streamed, whole) = both(&gz, 8192);
    assert!(gz.len() > HEAD_BYTES, "{}", gz.len());
    assert_eq!(mode, "gunzip");
    assert_eq!(streamed, whole);
}

#[test]
fn small_and_other_inputs_read_as_whole() {
    for format in ["pprof", "collapsed", "rprof"] {
        for (path, bytes) in test_corpus::files(format).into_iter().take(8) {
            let (_, streamed, whole) = both(&bytes, 4096);
            assert_eq!(streamed, whole, "{}", path.display());
        }
    }
    let (_, streamed, whole) = both(b"", 10);
    assert_eq!(streamed, whole);
    let (_, streamed, whole) = both(b"not a profile at all", 3);
    assert_eq!(streamed, whole);
}

/// `bytes` fed in pieces of `size`, then read in steps of `budget` samples: the stage
/// stepping took, the number of steps, and what `finish` gave, beside `read_any`.
fn stepped(bytes: &[u8], size: usize, budget: usize) -> (&'static str, usize, String, String) {
    let options = ReadOptions::default();
    let tail = tail_of(bytes);
    let mut s = StreamRead::new(options.clone(), bytes.len(), tail);
    for piece in bytes.chunks(size) {
        s.feed(piece);
    }
    let mut steps = 1;
    while !s.step(budget) {
        let (read, all) = s.progress().expect("stepping");
        assert!(read <= all && read == steps * budget, "{read} of {all}");
        steps += 1;
    }
    let mode = s.mode();
    (
        mode,
        steps,
        show(s.finish()),
        show(read_any(bytes, &options)),
    )
}

#[test]
fn pprof_reads_in_steps_as_whole_and_other_formats_in_one_step() {
    for (path, bytes) in test_corpus::files("pprof") {
        let (mode, _, streamed, whole) = stepped(&bytes, 4096, 2);
        assert_eq!(streamed, whole, "{}", path.display());
        if whole.starts_with("Pprof") {
            assert_eq!(mode, "steps", "{}", path.display());
        }
    }
    let (mode, steps, streamed, whole) = stepped(&gzip(&big_collapsed()), 8192, 10);
    assert_eq!((mode, steps), ("done", 1));
    assert_eq!(streamed, whole);
}

#[test]
fn a_big_gzip_pprof_inflates_as_it_arrives_then_reads_in_steps() {
    let gz = gzip_pprof(200_000);
    assert!(gz.len() > HEAD_BYTES, "{}", gz.len());
    let (mode, steps, streamed, whole) = stepped(&gz, 65536, 30_000);
    assert_eq!(mode, "steps");
    assert!(steps >= 200_000 / 30_000, "{steps}");
    assert_eq!(streamed, whole);
}

#[test]
fn a_gzip_bomb_is_refused_on_its_first_mib_with_read_anys_message() {
    // Five gzip members of 256 MiB of zeros each: 1.25 GiB in 1.2 MiB, so the stage is
    // decided on the first MiB fed, long before the end.
    let member = gzip(&vec![0u8; 256 << 20]);
    let bomb = member.repeat(5);
    assert!(bomb.len() > HEAD_BYTES, "{}", bomb.len());
    let (mode, streamed, whole) = both(&bomb, 65536);
    assert_eq!(mode, "failed");
    assert_eq!(streamed, whole);
    assert!(whole.contains("unrecognized format"), "{whole}");
}

/// xorshift64: deterministic test input.
fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// `data` as a gzip stream of stored (uncompressed) blocks: as large as `data`, and quick
/// to make and to inflate in a debug build.
fn stored_gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    out.extend(miniz_oxide::deflate::compress_to_vec(data, 0));
    out.extend(crate::formats::gzip::crc32(data).to_le_bytes());
    out.extend((data.len() as u32).to_le_bytes());
    out
}

/// `raw` damaged one of three ways, chosen by `x`: a few bytes flipped, cut short, or a
/// run of bytes overwritten.
fn damaged(raw: &[u8], x: &mut u64) -> Vec<u8> {
    let mut out = raw.to_vec();
    let at = |x: &mut u64| next(x) as usize % raw.len();
    match next(x) % 3 {
        0 => {
            for _ in 0..1 + next(x) % 3 {
                let i = at(x);
                out[i] ^= 1 << (next(x) % 8);
            }
        }
        1 => out.truncate(at(x)),
        _ => {
            let start = at(x);
            let end = (start + 1 + next(x) as usize % 64).min(out.len());
            for b in &mut out[start..end] {
                *b = next(x) as u8;
            }
        }
    }
    out
}

/// Damaged pprof messages fed raw and gzipped (both past the first MiB, so that the
/// stage is chosen before the end, and the gzip inflated and pass 1 run piece by piece) in
/// pieces and steps of varied sizes: each gives the profile and warnings, or the error,
/// that `read_any` gives (the invariant of the module doc; the gzip streams are sound,
/// so its exception does not apply), and the error names pprof.
#[test]
fn damaged_pprof_streams_as_it_reads_whole() {
    let raw = raw_pprof(32_000);
    assert!(raw.len() > HEAD_BYTES, "{}", raw.len());
    let mut x = 0x5eed_1234_abcd_ef01_u64;
    let mut errors = 0;
    for round in 0..12 {
        let bad = damaged(&raw, &mut x);
        let size = [1000, 7919, 65536, 100_003][round % 4];
        let budget = 1 + next(&mut x) as usize % 5000;
        for input in [stored_gzip(&bad), bad.clone()] {
            let (_, _, streamed, whole) = stepped(&input, size, budget);
            assert_eq!(streamed, whole, "round {round}, {} bytes", input.len());
            // Damaged raw messages too are named: read as pprof, not "unrecognized".
            assert!(
                whole.starts_with("Pprof") || whole.starts_with("pprof: "),
                "round {round}: {whole}"
            );
            errors += usize::from(whole.starts_with("pprof: "));
        }
    }
    assert!(errors >= 12, "{errors} errors");
}

/// `bytes` fed in pieces of `size`, read twice where the stream asks for it (inputs of any
/// size), then stepped: how many times it was fed, the stage of the last read, and what
/// `finish` gave, beside `read_any`. `change` alters the bytes of the second feed.
fn twice_changed(
    bytes: &[u8],
    size: usize,
    change: impl Fn(&mut Vec<u8>),
) -> (usize, &'static str, String, String) {
    let options = ReadOptions::default();
    let tail = tail_of(bytes);
    let mut s = StreamRead::new(options.clone(), bytes.len(), tail).read_twice_from(0);
    let mut input = bytes.to_vec();
    let mut reads = 0;
    loop {
        for piece in input.chunks(size) {
            s.feed(piece);
        }
        reads += 1;
        if !s.wants_again() {
            break;
        }
        assert!(reads < 2, "asked for a third read");
        change(&mut input);
    }
    let mode = s.mode();
    let mut steps = 0;
    while !s.step(1000) {
        steps += 1;
        assert!(steps < 1_000_000);
    }
    (
        reads,
        mode,
        show(s.finish()),
        show(read_any(bytes, &options)),
    )
}

/// As [`twice_changed`], the second feed the same as the first.
fn twice(bytes: &[u8], size: usize) -> (usize, &'static str, String, String) {
    twice_changed(bytes, size, |_| {})
}

#[test]
fn a_gzip_pprof_read_twice_reads_as_whole() {
    let gz = gzip_pprof(60_000);
    for size in [1000, 65536, 1 << 20] {
        let (reads, mode, streamed, whole) = twice(&gz, size);
        assert_eq!((reads, mode), (2, "again"), "pieces of {size}");
        assert_eq!(streamed, whole, "pieces of {size}");
    }
}

#[test]
fn corpus_files_read_twice_as_whole() {
    let mut twice_read = 0;
    for (path, bytes) in test_corpus::files("pprof") {
        let (reads, _, streamed, whole) = twice(&bytes, 4096);
        assert_eq!(streamed, whole, "{}", path.display());
        twice_read += usize::from(reads == 2);
    }
    assert!(twice_read >= 5, "{twice_read} read twice");
}

/// Damaged gzip streams and damaged messages: each read as `read_any` reads it, a first read
/// that is not plain by an ordinary second read.
#[test]
fn damaged_gzip_pprof_read_twice_as_whole() {
    let raw = raw_pprof(20_000);
    let gz = gzip(&raw);
    let mut x = 0x0dd_ba11_u64;
    for round in 0..16 {
        let input = match round % 2 {
            0 => stored_gzip(&damaged(&raw, &mut x)),
            _ => damaged(&gz, &mut x),
        };
        let size = [1000, 7919, 65536][round % 3];
        let (reads, _, streamed, whole) = twice(&input, size);
        assert_eq!(streamed, whole, "round {round}");
        assert!(reads <= 2);
    }
}

#[test]
fn a_file_that_changed_between_its_reads_is_refused() {
    let gz = gzip_pprof(30_000);
    let changed = crate::formats::pprof::changed().to_string();
    // A bit of the deflate data flipped, the file cut, one member more.
    let flip = |b: &mut Vec<u8>| {
        let n = b.len();
        b[n / 2] ^= 0x10;
    };
    let cut = |b: &mut Vec<u8>| b.truncate(b.len() - 100);
    let longer = |b: &mut Vec<u8>| b.extend(gzip(b"more"));
    let other = gzip_pprof(30_001);
    let replaced = |b: &mut Vec<u8>| *b = other.clone();
    for change in [&flip as &dyn Fn(&mut Vec<u8>), &cut, &longer, &replaced] {
        let (reads, _, streamed, _) = twice_changed(&gz, 65536, change);
        assert_eq!((reads, streamed.as_str()), (2, changed.as_str()));
    }
}
