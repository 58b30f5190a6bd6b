//! The shared corpus in unit tests: the folder the integration tests read (README:
//! `../shared/corpus`, or `$PROFTAB_CORPUS`). A missing folder fails the test that asks for it
//! rather than letting it pass with nothing read.

use std::path::PathBuf;

use super::gzip;

/// Every file of the corpus folder `format` (`pprof`, `collapsed`, …): its path and bytes, in
/// name order.
pub(crate) fn files(format: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let corpus = std::env::var("PROFTAB_CORPUS").unwrap_or_else(|_| "../shared/corpus".into());
    let dir = PathBuf::from(corpus).join(format);
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.retain(|p| p.is_file());
    paths.sort();
    let read = |p: PathBuf| {
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        (p, bytes)
    };
    paths.into_iter().map(read).collect()
}

/// Every pprof file of the corpus as its raw (inflated) `Profile` message.
pub(crate) fn raw_pprof() -> Vec<(PathBuf, Vec<u8>)> {
    let inflate = |(path, bytes): (PathBuf, Vec<u8>)| match gzip::is_gzip(&bytes) {
        true => (path, gzip::gunzip_capped(&bytes, 1 << 30, "pprof").unwrap()),
        false => (path, bytes),
    };
    files("pprof").into_iter().map(inflate).collect()
}
