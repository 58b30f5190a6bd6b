//! Symbols for perf.data recordings, found as `perf report` finds them: the I/O half of
//! [`crate::formats::perf_data::symbolize`]. A binary is looked up, in order, in the
//! `--symbols DIR` folders (by build-id, then by file name; `DIR1:DIR2` for several), in perf's
//! build-id cache (`~/.debug/.build-id/xx/yyyy…/elf`), in the separate debug files
//! (`/usr/lib/debug/.build-id/xx/yyyy….debug`) and at its recorded path (only when its
//! build-id is the recorded one, if one was recorded). Kernel frames use `/proc/kallsyms` only
//! when the recording's kernel build-id is the running kernel's (`/sys/kernel/notes`), or, for a recording without it,
//! when its host name and kernel release are this machine's; `--kallsyms FILE` gives them
//! instead (checked against the recording by the address of `_text`).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::formats::perf_data::binaries::{build_id_of, is_kallsyms, matching, symbolize_parsed};
use crate::formats::perf_data::{
    read_file_with_binaries, read_with_binaries, META_HOSTNAME, META_OS_RELEASE,
};
use crate::formats::{self, Format, Parsed, ReadError, ReadOptions};
use crate::model::ext::tables;
use crate::model::Profile;

use crate::cli::args::{Matches, Opt};
use crate::cli::host::{self, Kind};
use crate::cli::output::Failure;

/// `--symbols DIR`, for the verbs that read profiles.
pub const SYMBOLS: Opt = Opt {
    name: "--symbols",
    value: Some("DIR"),
    help: "perf.data: look for binaries (by build-id, then file name) in DIR (DIR1:DIR2:…)",
};

/// Largest folder walk depth under a `--symbols` folder.
const MAX_DEPTH: usize = 4;
/// The distribution's separate debug files, by build-id (`xx/yyyy….debug`).
const DEBUG_BUILD_ID_DIR: &str = "/usr/lib/debug/.build-id";
/// The kernel's DSO name in perf-data profiles.
const KERNEL_DSO: &str = "[kernel.kallsyms]";

/// `--kallsyms FILE`, for the verbs that read profiles.
pub const KALLSYMS: Opt = Opt {
    name: "--kallsyms",
    value: Some("FILE"),
    help: "perf.data: name kernel frames from FILE, the recording machine's /proc/kallsyms",
};

static DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();
/// The text of the `--kallsyms` file of this run.
static KALLSYMS_GIVEN: OnceLock<Option<String>> = OnceLock::new();

/// Remembers the `--symbols` and `--kallsyms` values of this run; fails when the kallsyms
/// file cannot be read or is not a kallsyms text.
pub fn set_sources(args: &Matches) -> Result<(), Failure> {
    set_dirs(args.value(SYMBOLS.name));
    let text = match args.value(KALLSYMS.name) {
        None => None,
        Some(path) => Some(kallsyms_file(path)?),
    };
    let _ = KALLSYMS_GIVEN.set(text);
    Ok(())
}

/// The text of kallsyms file `path`, or why it cannot be used.
fn kallsyms_file(path: &str) -> Result<String, Failure> {
    let bytes = host::with(|h| h.read(Path::new(path)))
        .map_err(|e| Failure::failed(format!("--kallsyms {path}: {e}")))?;
    if !is_kallsyms(&bytes) {
        return Err(Failure::failed(format!(
            "--kallsyms {path}: not a /proc/kallsyms text (its first lines are not \
             `ADDRESS TYPE NAME [MODULE]` lines)"
        )));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Remembers the `--symbols` value of this run.
fn set_dirs(value: Option<&str>) {
    let dirs = value
        .map(|v| {
            v.split(':')
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default();
    let _ = DIRS.set(dirs);
}

/// Reads `bytes` in whatever format their content shows; a perf.data is read with the
/// binaries found as `perf report` finds them (which unwind its `--call-graph dwarf` stacks),
/// then symbolised with them (its reader's unsymbolised-frames warning replaced by the
/// symboliser's).
pub fn read_profile(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let mut finder = Finder::default();
    let mut find = |path: &str, build_id: Option<&str>| finder.find(path, build_id);
    // A compressed perf.data is inflated here, to be unwound as the plain one is.
    let inflated = formats::decompressed_as(Format::PerfData, bytes, options)?;
    let perf_data = inflated
        .as_deref()
        .or_else(|| (formats::detect(bytes) == Some(Format::PerfData)).then_some(bytes));
    let parsed = match perf_data {
        Some(perf_data) => read_with_binaries(perf_data, options, &mut find)?,
        None => formats::read_any(bytes, options)?,
    };
    drop(inflated);
    Ok(symbolised(parsed, &mut finder))
}

/// [`read_profile`] of a file-mode perf.data read from `file` in chunks (never held whole);
/// `None` when `file` is not one or must be read whole (then [`read_profile`] its bytes).
pub fn read_perf_file(
    file: &mut dyn host::Source,
    options: &ReadOptions,
) -> Option<Result<Parsed, ReadError>> {
    let mut finder = Finder::default();
    let mut find = |path: &str, build_id: Option<&str>| finder.find(path, build_id);
    let parsed = match read_file_with_binaries(file, options, &mut find) {
        Ok(Some(parsed)) => parsed,
        Ok(None) => return None,
        Err(e) => return Some(Err(e)),
    };
    Some(Ok(symbolised(parsed, &mut finder)))
}

/// A perf.data profile symbolised with the binaries `finder` finds (its reader's
/// unsymbolised-frames warning replaced by the symboliser's); other profiles as they are.
fn symbolised(mut parsed: Parsed, finder: &mut Finder) -> Parsed {
    if parsed.format == Format::PerfData {
        let given = KALLSYMS_GIVEN.get().cloned().flatten();
        let kallsyms = given.or_else(|| kernel_symbols(&parsed.profile));
        let mut find = |path: &str, build_id: Option<&str>| finder.find(path, build_id);
        symbolize_parsed(&mut parsed, &mut find, kallsyms.as_deref());
    }
    parsed
}

/// Finds binaries as `perf report` does (the `--symbols` folders indexed once, when first
/// asked).
#[derive(Default)]
struct Finder {
    index: Option<Vec<(Option<String>, PathBuf)>>,
}

impl Finder {
    fn find(&mut self, path: &str, build_id: Option<&str>) -> Vec<Vec<u8>> {
        let files = self.index.get_or_insert_with(|| {
            let dirs = DIRS.get().cloned().unwrap_or_default();
            index_dirs(&dirs)
        });
        find_binary(files, path, build_id)
    }
}

/// Every regular file under the `--symbols` folders with its build-id (when ELF).
fn index_dirs(dirs: &[PathBuf]) -> Vec<(Option<String>, PathBuf)> {
    let mut out = Vec::new();
    let mut todo: Vec<(PathBuf, usize)> = dirs.iter().map(|d| (d.clone(), 0)).collect();
    while let Some((dir, depth)) = todo.pop() {
        let Ok(entries) = host::with(|h| h.read_dir(&dir)) else {
            continue;
        };
        for path in entries {
            match host::kind(&path) {
                Kind::Dir if depth < MAX_DEPTH => todo.push((path, depth + 1)),
                Kind::File => {
                    let id = read(&path).and_then(|b| build_id_of(&b));
                    out.push((id, path));
                }
                _ => {}
            }
        }
    }
    out
}

/// The files found for the binary recorded as `path` with `build_id`: `--symbols` matches
/// ([`matching`]: by build-id, else by file name), perf's cache, the debug file, the recorded path.
fn find_binary(
    index: &[(Option<String>, PathBuf)],
    path: &str,
    build_id: Option<&str>,
) -> Vec<Vec<u8>> {
    // Without a recorded build-id (pipe mode), the file at the recorded path names it.
    let found_id = build_id
        .is_none()
        .then(|| read(Path::new(path)).and_then(|b| build_id_of(&b)))
        .flatten();
    let lookup_id = build_id.or(found_id.as_deref());
    let same_id = |b: &Vec<u8>| build_id.is_none_or(|id| build_id_of(b).as_deref() == Some(id));
    let mut candidates: Vec<PathBuf> = matching(index, file_name, path, lookup_id)
        .into_iter()
        .cloned()
        .collect();
    if let Some(id) = lookup_id.filter(|id| id.len() > 2) {
        let (head, rest) = id.split_at(2);
        if let Some(home) = host::with(|h| h.env("HOME")) {
            let cache = PathBuf::from(home).join(".debug/.build-id");
            candidates.push(cache.join(head).join(rest).join("elf"));
        }
        candidates.push(
            Path::new(DEBUG_BUILD_ID_DIR)
                .join(head)
                .join(format!("{rest}.debug")),
        );
    }
    candidates.push(PathBuf::from(path));
    candidates
        .iter()
        .filter_map(|p| read(p))
        .filter(same_id)
        .collect()
}

/// The file name of a path, when UTF-8 (`&PathBuf`: what [`matching`] gives for the index).
#[allow(clippy::ptr_arg)]
fn file_name(p: &PathBuf) -> Option<&str> {
    p.file_name()?.to_str()
}

/// `/proc/kallsyms` when the recording was made on the running kernel: its kernel build-id is
/// the running kernel's, or (a recording without one, as pipe mode writes) its host name and
/// kernel release are this machine's.
fn kernel_symbols(p: &Profile) -> Option<String> {
    let t = &p.ext_table(tables::MAPPINGS)?.columns;
    let (files, ids) = (t.chr("filename")?, t.chr("build_id")?);
    let (_, id) = files
        .iter()
        .zip(ids)
        .find(|(f, _)| p.str(**f) == KERNEL_DSO)?;
    let same = match p.strings.get(*id) {
        Some(recorded) => {
            let notes = read(Path::new("/sys/kernel/notes"))?;
            running_build_id(&notes)? == recorded
        }
        None => [
            (META_HOSTNAME, "/proc/sys/kernel/hostname"),
            (META_OS_RELEASE, "/proc/sys/kernel/osrelease"),
        ]
        .iter()
        .all(|(key, file)| {
            let here = read_text(file).unwrap_or_default();
            p.meta_values(key).next() == Some(here.trim())
        }),
    };
    same.then(|| read_text("/proc/kallsyms")).flatten()
}

/// The GNU build-id note of `/sys/kernel/notes` (ELF notes: namesz, descsz, type, name, desc,
/// each padded to 4 bytes).
fn running_build_id(notes: &[u8]) -> Option<String> {
    const NT_GNU_BUILD_ID: u32 = 3;
    let word = |at: usize| -> Option<usize> {
        Some(u32::from_ne_bytes(notes.get(at..at + 4)?.try_into().ok()?) as usize)
    };
    let mut at = 0;
    while at + 12 <= notes.len() {
        let (namesz, descsz, kind) = (word(at)?, word(at + 4)?, word(at + 8)? as u32);
        let name_at = at + 12;
        let desc_at = name_at + namesz.next_multiple_of(4);
        if kind == NT_GNU_BUILD_ID && notes.get(name_at..name_at + 3) == Some(b"GNU") {
            let desc = notes.get(desc_at..desc_at + descsz)?;
            return Some(desc.iter().map(|b| format!("{b:02x}")).collect());
        }
        at = desc_at + descsz.next_multiple_of(4);
    }
    None
}

/// The bytes of the file at `path`, when it can be read.
fn read(path: &Path) -> Option<Vec<u8>> {
    host::with(|h| h.read(path)).ok()
}

/// The text of the file at `path`, when it can be read and is UTF-8.
fn read_text(path: &str) -> Option<String> {
    String::from_utf8(read(Path::new(path))?).ok()
}
