//! Columnar datasets on disk (`docs/columnar.md`): `convert … -o DIR --to parquet|arrow
//! [--append]` writes one, and every command that reads a FILE reads a DIR that holds one.
//!
//! Layout: `DIR/<table>/part-NNNNN.parquet` (or `.arrow`), one folder per table of the
//! profile's logical tables. Invariants: the bytes of each file come from
//! [`columnar::encode_table`]; a part is written under a hidden temporary name and renamed, so
//! readers never see half a file; a table is read as its parts in name order; `--append`
//! carries out [`columnar::plan_append`], so reading the dataset back gives the profile that
//! combining all its inputs at once gives.

use std::fs;
use std::path::{Path, PathBuf};

pub use crate::formats::columnar::Container;
use crate::formats::columnar::{self, DecodedTable, TablePlan, PART_DIGITS};
use crate::formats::{Format, Parsed};
use crate::model::combine::combine_owned;
use crate::model::{tables_from_profile, Profile, Table, Tables};

use crate::cli::input::{load_combined, print_warnings, read_options, Stacks};
use crate::cli::output::{CliResult, Failure};

/// The folder of table `meta`, whose presence makes a directory a dataset.
const META_DIR: &str = "meta";

/// The container of the dataset in `path`, if `path` is a directory holding one (a `meta`
/// folder with at least one part).
pub fn container_of(path: &str) -> Option<Container> {
    let meta = Path::new(path).join(META_DIR);
    let parts = part_files(&meta, None).ok()?;
    parts.first().and_then(|(_, name)| Container::of_file(name))
}

/// Files `part-*` in `dir` (of container `c`, or of any), sorted by name, as (path, name).
fn part_files(dir: &Path, c: Option<Container>) -> std::io::Result<Vec<(PathBuf, String)>> {
    let mut parts = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = Container::of_file(&name);
        if name.starts_with("part-") && kind.is_some() && (c.is_none() || kind == c) {
            parts.push((entry.path(), name));
        }
    }
    parts.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(parts)
}

fn io_failure(what: &Path, e: std::io::Error) -> Failure {
    Failure::failed(format!("{}: {e}", what.display()))
}

/// The logical tables stored in dataset `dir`, as written (ids as on disk).
fn read_stored(dir: &str, c: Container) -> Result<Tables, Failure> {
    let mut tables: Vec<_> = fs::read_dir(dir)
        .map_err(|e| io_failure(Path::new(dir), e))?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| (e.path(), e.file_name().to_string_lossy().into_owned()))
        .collect();
    tables.sort_by(|a, b| a.1.cmp(&b.1));
    let mut decoded: Vec<DecodedTable> = Vec::new();
    for (path, table) in tables {
        for (file, _) in part_files(&path, Some(c)).map_err(|e| io_failure(&path, e))? {
            let bytes = fs::read(&file).map_err(|e| io_failure(&file, e))?;
            let place = file.display().to_string();
            let d = columnar::decode_table(c, &table, bytes, &place)
                .map_err(|e| Failure::failed(e.to_string()))?;
            decoded.push(d);
        }
    }
    columnar::tables_from_parts(c, decoded).map_err(|e| Failure::failed(format!("{dir}: {e}")))
}

/// Reads the dataset in `dir` into a profile (as [`crate::cli::input::load`] reads a file). The
/// format it reports is tables-JSON, the logical tables a dataset stores;
/// [`crate::cli::input::format_name`] names the container.
pub fn load(dir: &str, c: Container) -> Result<Parsed, Failure> {
    let tables = read_stored(dir, c)?;
    let (profile, warnings) = columnar::read_tables(c, &tables, &read_options(dir))
        .map_err(|e| Failure::failed(format!("{dir}: {e}")))?;
    Ok(Parsed {
        format: Format::TablesJson,
        profile,
        warnings,
    })
}

/// `convert IN... -o DIR --to parquet|arrow [--append]`: a new dataset of the combined inputs,
/// or, with `append`, the existing one grown by them.
pub fn convert(inputs: &[String], dir: &str, c: Container, append: bool) -> CliResult {
    check_target(dir, c, append)?;
    let new = load_combined(inputs, Stacks::Raw)?;
    if !append {
        return write_new(dir, c, &new);
    }
    let stored = read_stored(dir, c)?;
    let (old, warnings) = columnar::read_tables(c, &stored, &read_options(dir))
        .map_err(|e| Failure::failed(format!("{dir}: {e}")))?;
    print_warnings(dir, &warnings);
    let all = combine_owned(vec![old, new])
        .ok_or_else(|| Failure::failed("no input profile"))?
        .map_err(|e| Failure::failed(format!("cannot append to {dir}: {e}")))?;
    write_appended(dir, c, &stored, &tables_from_profile(&all))
}

/// Checks `-o DIR` before any input is read: a new dataset needs a missing or empty directory;
/// `--append` needs a dataset of the same container.
fn check_target(dir: &str, c: Container, append: bool) -> CliResult {
    if dir == "-" {
        return Err(Failure::usage(format!(
            "--to {} writes a directory; name it with -o DIR",
            c.name()
        )));
    }
    let existing = container_of(dir);
    match (append, existing) {
        (true, Some(e)) if e == c => Ok(()),
        (true, Some(e)) => Err(Failure::failed(format!(
            "{dir} holds a {} dataset, not {}",
            e.name(),
            c.name()
        ))),
        (true, None) => Err(Failure::failed(format!(
            "--append: {dir} is not a dataset (no {META_DIR}/part-* file)"
        ))),
        (false, Some(_)) => Err(Failure::failed(format!(
            "{dir} already holds a dataset; add to it with --append, or remove it"
        ))),
        (false, None) if is_non_empty_dir(dir) => Err(Failure::failed(format!(
            "{dir} is a directory that is not empty; name a new or empty one"
        ))),
        (false, None) => Ok(()),
    }
}

fn is_non_empty_dir(dir: &str) -> bool {
    fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some())
}

/// Writes every table of `p` as part 0 of a new dataset.
fn write_new(dir: &str, c: Container, p: &Profile) -> CliResult {
    let tables = tables_from_profile(p);
    for (position, (name, t)) in tables.tables.iter().enumerate() {
        write_part(dir, c, name, position, t)?;
    }
    Ok(())
}

/// Carries out the append plan of `stored` (what the dataset holds) and `all` (what it must
/// hold).
fn write_appended(dir: &str, c: Container, stored: &Tables, all: &Tables) -> CliResult {
    for (name, position, plan) in columnar::plan_append(stored, all) {
        let Some(t) = all.table(name) else { continue };
        match plan {
            TablePlan::Keep => {}
            TablePlan::Append { rows } => {
                write_part(dir, c, name, position, &columnar::select_rows(t, &rows))?;
            }
            TablePlan::Rewrite => {
                let old = table_dir(dir, name)?;
                let before = if old.is_dir() {
                    part_files(&old, None).map_err(|e| io_failure(&old, e))?
                } else {
                    Vec::new()
                };
                write_part(dir, c, name, position, t)?;
                for (file, _) in before {
                    fs::remove_file(&file).map_err(|e| io_failure(&file, e))?;
                }
            }
        }
    }
    Ok(())
}

/// The folder of table `name`; fails on a name that is no plain file name (an extension table
/// read from a file could be called `../x`).
fn table_dir(dir: &str, name: &str) -> Result<PathBuf, Failure> {
    if !columnar::is_plain_table_name(name) {
        return Err(Failure::failed(format!(
            "cannot write table {name:?}: a table name in a dataset must be letters, digits, \
             '_', '-' or '.' (not first)"
        )));
    }
    Ok(Path::new(dir).join(name))
}

/// Writes `t` as the next part of table `name`.
fn write_part(dir: &str, c: Container, name: &str, position: usize, t: &Table) -> CliResult {
    let folder = table_dir(dir, name)?;
    fs::create_dir_all(&folder).map_err(|e| io_failure(&folder, e))?;
    let next = part_files(&folder, None)
        .map_err(|e| io_failure(&folder, e))?
        .iter()
        .filter_map(|(_, n)| n.get(5..5 + PART_DIGITS)?.parse::<usize>().ok())
        .max()
        .map_or(0, |n| n + 1);
    let bytes =
        columnar::encode_table(c, name, position, t).map_err(|e| Failure::failed(e.to_string()))?;
    let file = columnar::part_file_name(c, next);
    let temp = folder.join(format!(".{file}.tmp"));
    let target = folder.join(file);
    fs::write(&temp, bytes).map_err(|e| io_failure(&temp, e))?;
    fs::rename(&temp, &target).map_err(|e| io_failure(&target, e))
}
