//! Where test inputs are: the shared corpus (`PROFTAB_CORPUS`, else `../shared/corpus` beside
//! the crate), this crate's `tests/fixtures`, and scratch folders for written files.
//!
//! Every listing is sorted by path, so a test meets its inputs in the same order everywhere.

use std::path::{Path, PathBuf};

/// The shared corpus directory (`PROFTAB_CORPUS` or `../shared/corpus`).
pub fn corpus() -> PathBuf {
    std::env::var_os("PROFTAB_CORPUS").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus")),
        PathBuf::from,
    )
}

/// This crate's fixture directory, `tests/fixtures`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A file or folder under `tests/fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    fixtures().join(rel)
}

/// The regular files of a folder, sorted (empty when the folder is missing).
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Regular files under `dir`, recursively, sorted by path.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The files of one corpus folder, sorted; empty (with a SKIP note) when it is missing.
pub fn corpus_files(folder: &str) -> Vec<PathBuf> {
    let dir = corpus().join(folder);
    if !dir.is_dir() {
        eprintln!("SKIP: corpus folder {} not found", dir.display());
    }
    files_in(&dir)
}

/// `(file name, bytes)` of every file of a corpus folder, sorted by name; the folder must
/// exist.
pub fn corpus_bytes(folder: &str) -> Vec<(String, Vec<u8>)> {
    let dir = corpus().join(folder);
    assert!(dir.is_dir(), "corpus folder {} not found", dir.display());
    files_in(&dir)
        .into_iter()
        .map(|path| (file_name(&path), std::fs::read(&path).unwrap()))
        .collect()
}

/// The corpus folders (format folders and `invalid`), sorted.
pub fn corpus_folders() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(corpus())
        .unwrap_or_else(|e| panic!("corpus at {}: {e}", corpus().display()))
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// The file name of `path`, for ids and messages.
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A scratch directory `proftab-<name>-<pid>` under cargo's `target/tmp` (not the system temp
/// dir, so runs leave nothing behind there and `cargo clean` removes it), created if needed.
/// Tests of one process that share a name share the folder, so it is never emptied here.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("proftab-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// The second corpus of real files written by other tools, `$PROFTAB_SHARED/corpus-new/<folder>`
/// (else `../shared/corpus-new/<folder>` beside the crate), its input files sorted; empty (with
/// a SKIP note) when the folder is missing. Reference outputs copied beside an input
/// (`<file>.expected.txt`, `<file>.expected`) are not inputs and are left out.
pub fn corpus_new(folder: &str) -> Vec<PathBuf> {
    let dir = corpus_new_dir().join(folder);
    if !dir.is_dir() {
        eprintln!("SKIP: corpus folder {} not found", dir.display());
    }
    files_in(&dir)
        .into_iter()
        .filter(|p| !file_name(p).contains(".expected"))
        .collect()
}

/// `$PROFTAB_SHARED/corpus-new` (else `../shared/corpus-new` beside the crate).
pub fn corpus_new_dir() -> PathBuf {
    let shared = std::env::var_os("PROFTAB_SHARED").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")),
        PathBuf::from,
    );
    shared.join("corpus-new")
}

/// The folders of corpus-new, sorted (empty when it is missing).
pub fn corpus_new_folders() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(corpus_new_dir()) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}
