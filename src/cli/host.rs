//! Where the CLI's bytes come from and go: files, standard input, output and error. The
//! native binary uses the operating system ([`NativeHost`]); the npm package's `proftab`
//! command runs the same verbs in Node on the wasm build through a host of Node's `fs`
//! (`src/wasm_cli.rs`), so both print the same bytes.
//!
//! Invariants: a run has exactly one host ([`install`] before, [`with`] during); a host never
//! panics; an error it returns displays as the operating system's message (`No such file or
//! directory (os error 2)`), since the CLI prints it.

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

pub use crate::formats::perf_data::Source;

/// What a path names, as far as the CLI asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Other,
}

/// The file system and standard streams one CLI run sees.
pub trait Host {
    /// The bytes of the file at `path`.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// All of standard input.
    fn read_stdin(&self) -> io::Result<Vec<u8>>;
    /// Creates or replaces the file at `path`.
    fn write(&self, path: &Path, bytes: &[u8]) -> io::Result<()>;
    /// Writes and flushes standard output.
    fn stdout(&self, bytes: &[u8]) -> io::Result<()>;
    /// Writes standard error; failures are ignored (nowhere to report them).
    fn stderr(&self, bytes: &[u8]);
    /// What `path` is (symbolic links followed), with its size in bytes.
    fn stat(&self, path: &Path) -> io::Result<(Kind, u64)>;
    /// The entries of the folder at `path` (full paths), in no particular order.
    fn read_dir(&self, path: &Path) -> io::Result<Vec<PathBuf>>;
    /// The environment variable `name`, when set.
    fn env(&self, name: &str) -> Option<String>;
    /// The file at `path` opened for reading in parts (perf.data is read in chunks, never
    /// held); `None` when this host reads files only whole (then [`Host::read`] is used).
    fn open(&self, _path: &Path) -> Option<io::Result<Box<dyn Source>>> {
        None
    }
}

/// The operating system's files and streams.
pub struct NativeHost;

impl Host for NativeHost {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn read_stdin(&self) -> io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        io::stdin().read_to_end(&mut buf)?;
        Ok(buf)
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        std::fs::write(path, bytes)
    }

    fn stdout(&self, bytes: &[u8]) -> io::Result<()> {
        let mut out = io::stdout().lock();
        out.write_all(bytes).and_then(|()| out.flush())
    }

    fn stderr(&self, bytes: &[u8]) {
        let _ = io::stderr().lock().write_all(bytes);
    }

    fn stat(&self, path: &Path) -> io::Result<(Kind, u64)> {
        let m = std::fs::metadata(path)?;
        let kind = if m.is_file() {
            Kind::File
        } else if m.is_dir() {
            Kind::Dir
        } else {
            Kind::Other
        };
        Ok((kind, m.len()))
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<PathBuf>> {
        std::fs::read_dir(path)?
            .map(|e| e.map(|e| e.path()))
            .collect()
    }

    fn env(&self, name: &str) -> Option<String> {
        std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
    }

    fn open(&self, path: &Path) -> Option<io::Result<Box<dyn Source>>> {
        Some(std::fs::File::open(path).map(|f| Box::new(f) as Box<dyn Source>))
    }
}

thread_local! {
    static HOST: RefCell<Box<dyn Host>> = RefCell::new(Box::new(NativeHost));
}

/// Makes `host` the one the following CLI calls use.
pub fn install(host: Box<dyn Host>) {
    HOST.with(|h| *h.borrow_mut() = host);
}

/// Runs `f` with the installed host.
pub fn with<T>(f: impl FnOnce(&dyn Host) -> T) -> T {
    HOST.with(|h| f(h.borrow().as_ref()))
}

/// What `path` is; `Other` when it cannot be looked at.
pub fn kind(path: &Path) -> Kind {
    with(|h| h.stat(path).map_or(Kind::Other, |(k, _)| k))
}
