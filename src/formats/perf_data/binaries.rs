//! Which binaries at hand are the ones a perf.data recorded, as the CLI (`--symbols DIR`) and
//! the viewer and npm package (dropped or given files) both choose them: by build-id (every
//! file with the recorded one: the binary and its separate `.debug` file), else the first file
//! with the recorded path's file name. Also the in-memory symboliser of a parsed perf.data
//! with such files. No I/O: builds for wasm32.

use object::Object;

pub use super::kallsyms::is_kallsyms;
use super::symbolize::{symbolize, BinarySource, Report};
use crate::formats::decompressed_as;
use crate::formats::{Format, Parsed, ReadError, ReadOptions};

/// The build-id of an ELF file, as lower-case hex.
pub fn build_id_of(bytes: &[u8]) -> Option<String> {
    let file = object::File::parse(bytes).ok()?;
    let id = file.build_id().ok()??;
    Some(id.iter().map(|b| format!("{b:02x}")).collect())
}

/// A file in memory: its name (or path) and bytes.
pub type NamedFile = (String, Vec<u8>);

/// Whether `bytes` start as an ELF file (a binary or a `.debug` file).
pub fn is_elf(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x7fELF")
}

/// The candidates for the binary recorded at `path` with `build_id` among `index` (each file's
/// build-id when ELF, and the file): every file with that build-id, else the first whose file
/// name (`name_of`) is the recorded path's.
pub fn matching<'a, T>(
    index: &'a [(Option<String>, T)],
    name_of: impl Fn(&T) -> Option<&str>,
    path: &str,
    build_id: Option<&str>,
) -> Vec<&'a T> {
    let by_id: Vec<&T> = build_id
        .map(|id| {
            index
                .iter()
                .filter(|(i, _)| i.as_deref() == Some(id))
                .map(|(_, t)| t)
                .collect()
        })
        .unwrap_or_default();
    if !by_id.is_empty() {
        return by_id;
    }
    let name = path.rsplit('/').next().filter(|n| !n.is_empty());
    index
        .iter()
        .find(|(_, t)| name.is_some() && name_of(t) == name)
        .map(|(_, t)| t)
        .into_iter()
        .collect()
}

/// Symbolises a perf-data profile in place with `find` (see
/// [`symbolize`](super::symbolize::symbolize)); the reader's unsymbolised-frames warning is
/// replaced by the symboliser's. `None` (nothing done) for other formats.
pub fn symbolize_parsed(
    parsed: &mut Parsed,
    find: &mut BinarySource<'_>,
    kallsyms: Option<&str>,
) -> Option<Report> {
    if parsed.format != Format::PerfData {
        return None;
    }
    let report = symbolize(&mut parsed.profile, find, kallsyms);
    parsed
        .warnings
        .retain(|w| !w.message.contains("frame addresses are not symbolised"));
    parsed.warnings.extend(report.warning());
    Some(report)
}

/// Reads `bytes` in whatever format their content shows; a perf.data (also compressed: gzip,
/// zstd, bzip2) is read with `files`, `(file name, bytes)`: ELF files, which unwind its
/// `--call-graph dwarf` stacks and symbolise its frames, and a `/proc/kallsyms` text (told by
/// content, [`is_kallsyms`]; the last one given), which names its kernel frames
/// ([`symbolize_parsed`]; the report is `None` for other formats). A file found by name only
/// is taken when no build-id was recorded or its build-id is the recorded one.
pub fn read_with_files(
    bytes: &[u8],
    options: &ReadOptions,
    files: &[NamedFile],
) -> Result<(Parsed, Option<Report>), ReadError> {
    let (kallsyms, index) = split_files(files);
    let mut find = finder(&index);
    let inflated = match index.is_empty() {
        true => None,
        false => decompressed_as(Format::PerfData, bytes, options)?,
    };
    let perf_data = inflated.as_deref().or_else(|| {
        (crate::formats::detect(bytes) == Some(Format::PerfData) && !index.is_empty())
            .then_some(bytes)
    });
    let mut parsed = match perf_data {
        Some(perf_data) => super::read_with_binaries(perf_data, options, &mut find)?,
        None => crate::formats::read_any(bytes, options)?,
    };
    drop(inflated);
    let report = symbolize_parsed(&mut parsed, &mut find, kallsyms.as_deref());
    Ok((parsed, report))
}

/// Symbolises a profile already read (without its bytes, so a perf.data's `--call-graph dwarf`
/// stacks stay as read) with `files`, as [`read_with_files`] does; `None` for other formats.
pub fn symbolize_with_files(parsed: &mut Parsed, files: &[NamedFile]) -> Option<Report> {
    let (kallsyms, index) = split_files(files);
    let mut find = finder(&index);
    symbolize_parsed(parsed, &mut find, kallsyms.as_deref())
}

/// The text of the last kallsyms file among `files`, and the other files with their
/// build-ids (when ELF), read once.
fn split_files(files: &[NamedFile]) -> (Option<String>, Vec<(Option<String>, &NamedFile)>) {
    let kallsyms = files
        .iter()
        .rev()
        .find(|f| is_kallsyms(&f.1))
        .map(|f| String::from_utf8_lossy(&f.1).into_owned());
    let index = files
        .iter()
        .filter(|f| !is_kallsyms(&f.1))
        .map(|f| (build_id_of(&f.1), f))
        .collect();
    (kallsyms, index)
}

/// The binary source over `index`: the files matching a path and build-id (see [`matching`]),
/// a file found by name only when its build-id is the one recorded or none was.
fn finder<'a>(
    index: &'a [(Option<String>, &'a NamedFile)],
) -> impl FnMut(&str, Option<&str>) -> Vec<Vec<u8>> + 'a {
    move |path: &str, build_id: Option<&str>| -> Vec<Vec<u8>> {
        matching(index, base_name, path, build_id)
            .into_iter()
            .filter(|f| build_id.is_none_or(|id| build_id_of(&f.1).as_deref() == Some(id)))
            .map(|f| f.1.clone())
            .collect()
    }
}

/// The file name of a `(name or path, bytes)` file.
fn base_name<'a>(f: &'a &NamedFile) -> Option<&'a str> {
    f.0.rsplit(['/', '\\']).next()
}

#[cfg(test)]
mod tests {
    use super::matching;

    fn index() -> Vec<(Option<String>, &'static str)> {
        vec![
            (Some("aa".into()), "dir/app"),
            (None, "dir/libc.so.6"),
            (Some("aa".into()), "dir/app.debug"),
            (Some("bb".into()), "other/app"),
        ]
    }

    fn name<'a>(p: &'a &'static str) -> Option<&'a str> {
        p.rsplit('/').next()
    }

    #[test]
    fn build_id_first_then_file_name() {
        let index = index();
        // Every file with the build-id: the binary and its debug file.
        let got = matching(&index, name, "/usr/bin/whatever", Some("aa"));
        assert_eq!(got, [&"dir/app", &"dir/app.debug"]);
        // No such build-id: the first file of that name.
        assert_eq!(
            matching(&index, name, "/usr/bin/app", Some("cc")),
            [&"dir/app"]
        );
        assert_eq!(
            matching(&index, name, "/lib/libc.so.6", None),
            [&"dir/libc.so.6"]
        );
        assert!(matching(&index, name, "/lib/libm.so.6", None).is_empty());
        assert!(matching(&index, name, "", None).is_empty());
    }
}
