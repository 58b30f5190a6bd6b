//! The symboliser, as `perf report` names frames: it takes a profile whose locations carry an
//! address and a mapping (what the perf-data reader leaves unsymbolised, or a pprof without
//! functions) and a way to get the bytes of a binary (and of its separate debug file) by (path,
//! build-id); the caller does the
//! I/O (the CLI looks at the recorded path, perf's build-id cache and `--symbols` folders; the
//! viewer can hand it dropped files). ELF symbol tables (`.symtab`, else `.dynsym`) are read
//! with `object`; names are demangled ([`crate::formats::demangle`]). Kernel frames are looked
//! up in a `/proc/kallsyms` text when the caller gives one (it checks that the recording was
//! made on the running kernel). Builds for wasm32: no file system here.

use super::kallsyms::KernelSymbols;
use super::lines::DebugLines;
pub use super::symbols::SymbolTable;
use super::FORMAT;
use crate::formats::demangle::demangled_or_same;
use crate::formats::Warning;
use crate::hash::HashMap;
use crate::model::ext::{locations as loc_cols, tables};
use crate::model::{
    Cell, ColumnData, ColumnKind, LocationIndex, Profile, StackTable, StringId, NO_INDEX,
};

/// The kernel's DSO name as the reader writes it.
const KERNEL_DSO: &str = "[kernel.kallsyms]";

/// Gives the files found for a binary by (recorded path, build-id): the binary itself and its
/// separate debug file, in any order; none when not found.
pub type BinarySource<'a> = dyn FnMut(&str, Option<&str>) -> Vec<Vec<u8>> + 'a;

/// One row of the `mappings` table as the symboliser needs it.
struct MappingInfo {
    start: u64,
    end: u64,
    file_offset: u64,
    filename: String,
    build_id: Option<String>,
}

/// What [`symbolize`] did.
#[derive(Debug, Default)]
pub struct Report {
    /// Locations given a symbol.
    pub symbolised: usize,
    /// Locations with a mapping that stayed without one.
    pub unsymbolised: usize,
    /// Binaries (path, build-id) that the source did not give or that were not ELF.
    pub missing: Vec<String>,
    /// Locations given a source line (from DWARF).
    pub lines: usize,
    /// Frames of inlined functions added (from DWARF).
    pub inlined: usize,
    /// Kernel frames left without a symbol (counted in `unsymbolised` too).
    pub kernel_unsymbolised: usize,
    /// Why the kallsyms text given could not name kernel frames, when it could not.
    pub kernel_refusal: Option<String>,
    /// The lines of the kallsyms text given that were not kallsyms lines, when some were not.
    pub kallsyms_bad_lines: Option<String>,
}

impl Report {
    /// The report as a warning (none when every location was symbolised and the kallsyms
    /// text, if any, was read whole).
    pub fn warning(&self) -> Option<Warning> {
        let mut parts = Vec::new();
        if self.unsymbolised > 0 {
            parts.push(format!(
                "{} frame addresses are not symbolised ({} are){}{}",
                self.unsymbolised,
                self.symbolised,
                self.missing_text(),
                self.kernel_text()
            ));
        }
        parts.extend(self.kallsyms_bad_lines.clone());
        (!parts.is_empty()).then(|| Warning::new(FORMAT, parts.join("; "), 1))
    }

    /// `; binaries not found: …` (at most five named), or nothing.
    fn missing_text(&self) -> String {
        if self.missing.is_empty() {
            return String::new();
        }
        let mut missing = self.missing[..self.missing.len().min(5)].join(", ");
        if self.missing.len() > 5 {
            missing.push_str(&format!(" and {} more", self.missing.len() - 5));
        }
        format!("; binaries not found: {missing}")
    }

    /// `; N kernel frames: why`, or nothing when every kernel frame was named.
    fn kernel_text(&self) -> String {
        if self.kernel_unsymbolised == 0 {
            return String::new();
        }
        format!(
            "; {} of them kernel frames: {}",
            self.kernel_unsymbolised,
            self.kernel_reason()
        )
    }

    /// Why kernel frames stayed without symbols.
    pub fn kernel_reason(&self) -> &str {
        self.kernel_refusal
            .as_deref()
            .unwrap_or("no kallsyms text of the recording's kernel was given (its /proc/kallsyms)")
    }
}

/// What is known of one mapped binary: its symbols and its DWARF.
struct Binary {
    symbols: Option<SymbolTable>,
    lines: Option<DebugLines>,
}

/// A resolved frame: the raw function name, its line (0 unknown) and the source file of that
/// line when DWARF knows it.
struct Resolved {
    name: String,
    line: u32,
    file: Option<String>,
}

/// The frames at `offset` of binary `b`: the functions DWARF says are inlined there (innermost
/// first, named by DWARF), then the function the code is in, named by the symbol table as
/// `perf report` names it (DWARF's name when no symbol covers the address); the lines and
/// source files are DWARF's (0 and none without). Empty when neither knows the address.
fn resolve(b: &Binary, offset: u64) -> Vec<Resolved> {
    let Some(table) = &b.symbols else {
        return Vec::new();
    };
    let Some(addr) = table.address_of(offset) else {
        return Vec::new();
    };
    let symbol = table.symbol_at(addr);
    let mut dwarf = b.lines.as_ref().map(|l| l.frames(addr)).unwrap_or_default();
    let mut outer = dwarf.pop();
    let mut out: Vec<Resolved> = dwarf
        .into_iter()
        .filter_map(|f| {
            Some(Resolved {
                name: f.function?,
                line: f.line,
                file: f.file,
            })
        })
        .collect();
    let (line, file) = outer
        .as_mut()
        .map_or((0, None), |f| (f.line, f.file.take()));
    let name = symbol
        .map(str::to_owned)
        .or_else(|| outer.and_then(|f| f.function));
    match name {
        Some(name) => out.push(Resolved { name, line, file }),
        None => out.clear(),
    }
    out
}

/// Symbolises the locations of `p` that have `.address` and `.mapping_id`: `binary(path,
/// build_id)` gives the files found for a binary (itself, its debug file; none when not
/// found), `kallsyms` the running kernel's symbols when they apply. Where a binary has DWARF,
/// locations get their line, and the functions inlined at their address become locations of
/// their own (`.inlined` TRUE, the same address and mapping) between the location and its
/// callee in every stack. A function's `filename` is the source file DWARF gives for its line
/// there (as pprof and `perf report --sort srcfile` name it), else the binary as perf prints
/// it; the binary stays the location's mapping. Functions left without a location are removed.
pub fn symbolize(p: &mut Profile, binary: &mut BinarySource<'_>, kallsyms: Option<&str>) -> Report {
    let mut report = Report::default();
    let Some(mappings) = mapping_infos(p) else {
        return report;
    };
    let (Some(addresses), Some(mapping_ids)) = (
        p.locations.ext.u64(loc_cols::ADDRESS).map(<[_]>::to_vec),
        p.locations.ext.u64(loc_cols::MAPPING_ID).map(<[_]>::to_vec),
    ) else {
        return report;
    };
    let kernel = kallsyms.and_then(|k| kernel_binary(k, &mappings, &mut report));
    // By (path, build-id): a binary mapped in several rows (its segments) is read once.
    let mut binaries: HashMap<(&str, Option<&str>), Binary> = HashMap::default();
    let mut functions = Functions::default();
    let mut inlined: HashMap<u32, Vec<u32>> = HashMap::default();
    let mut symbolised_rows = vec![false; mappings.len()];
    for loc in 0..p.locations.function.len() {
        let (Some(addr), Some(id)) = (addresses[loc], mapping_ids[loc]) else {
            continue;
        };
        let Some(row) = usize::try_from(id).ok().and_then(|id| id.checked_sub(1)) else {
            continue;
        };
        let Some(m) = mappings.get(row) else { continue };
        let frames = if m.filename == KERNEL_DSO {
            kernel
                .as_ref()
                .map(|k| resolve(k, addr))
                .unwrap_or_default()
        } else {
            let b = binaries
                .entry((&m.filename, m.build_id.as_deref()))
                .or_insert_with(|| load_binary(m, binary, &mut report.missing));
            resolve(b, addr.wrapping_sub(m.start).wrapping_add(m.file_offset))
        };
        let Some((outer, inner)) = frames.split_last() else {
            report.unsymbolised += 1;
            report.kernel_unsymbolised += usize::from(m.filename == KERNEL_DSO);
            continue;
        };
        let binary_file = p.strings.intern(&m.filename);
        let file_of = |p: &mut Profile, f: &Resolved| match &f.file {
            Some(source) => p.strings.intern(source),
            None => binary_file,
        };
        let file = file_of(p, outer);
        p.locations.function[loc] = functions.get(p, &outer.name, file);
        p.locations.line[loc] = i32::try_from(outer.line).unwrap_or(0);
        report.lines += usize::from(outer.line > 0);
        if !inner.is_empty() {
            let rows = inner
                .iter()
                .map(|f| {
                    let file = file_of(p, f);
                    let function = functions.get(p, &f.name, file);
                    inlined_row(p, loc, function, f.line)
                })
                .collect();
            report.inlined += inner.len();
            inlined.insert(loc as u32, rows);
        }
        symbolised_rows[row] = true;
        report.symbolised += 1;
    }
    if !inlined.is_empty() {
        insert_inlined_frames(p, &inlined);
    }
    mark_has_functions(p, &symbolised_rows);
    drop_unused_functions(p);
    report
}

/// The kernel's symbols from kallsyms text `text`, when it is of the recording's kernel (its
/// `_text` where the kernel's mapping says); otherwise the reason goes in `report`.
fn kernel_binary(text: &str, mappings: &[MappingInfo], report: &mut Report) -> Option<Binary> {
    let kernel = KernelSymbols::parse(text);
    report.kallsyms_bad_lines = kernel.bad_lines_message();
    let recorded = mappings
        .iter()
        .find(|m| m.filename == KERNEL_DSO)
        .map(|m| (m.file_offset, m.end.wrapping_sub(m.start)));
    if let Some(why) = kernel.refusal(recorded) {
        report.kernel_refusal = Some(why);
        return None;
    }
    Some(Binary {
        symbols: Some(SymbolTable::from_kallsyms(&kernel)),
        lines: None,
    })
}

/// The symbols and DWARF of the binary of mapping `m` (its name noted in `missing` when the
/// source has no ELF file with symbols for it).
fn load_binary(
    m: &MappingInfo,
    binary: &mut BinarySource<'_>,
    missing: &mut Vec<String>,
) -> Binary {
    let files = binary(&m.filename, m.build_id.as_deref());
    let symbols = SymbolTable::from_elf_files(&files);
    if symbols.is_none() {
        let name = match &m.build_id {
            Some(id) => format!("{} ({id})", m.filename),
            None => m.filename.clone(),
        };
        if !missing.contains(&name) {
            missing.push(name);
        }
    }
    let lines = symbols
        .as_ref()
        .and_then(|_| DebugLines::from_elf_files(&files));
    Binary { symbols, lines }
}

/// The functions the symboliser added, by (raw name, source file or binary).
#[derive(Default)]
struct Functions {
    rows: HashMap<(StringId, StringId), u32>,
}

impl Functions {
    /// The function row of raw name `name` in `file` (source file or binary), added
    /// (demangled) when new.
    fn get(&mut self, p: &mut Profile, name: &str, file: StringId) -> u32 {
        let raw = p.strings.intern(name);
        *self.rows.entry((raw, file)).or_insert_with(|| {
            let shown = p.strings.intern(&demangled_or_same(name));
            let fns = &mut p.functions;
            fns.name.push(shown);
            fns.system_name.push(raw);
            fns.filename.push(file);
            fns.start_line.push(0);
            fns.ext.pad_to(fns.name.len());
            (fns.name.len() - 1) as u32
        })
    }
}

/// A new location row for a function inlined at the address of location `at`: its
/// extension cells copied, `.inlined` TRUE.
fn inlined_row(p: &mut Profile, at: usize, function: u32, line: u32) -> u32 {
    let locs = &mut p.locations;
    let row = locs.function.len();
    locs.function.push(function);
    locs.line.push(i32::try_from(line).unwrap_or(0));
    locs.ext.get_or_create(loc_cols::INLINED, ColumnKind::Lgl);
    locs.ext.pad_to(row + 1);
    for c in &mut locs.ext.columns {
        if let Some(cell) = c.data.cell(at) {
            let _ = c.data.set(row, cell);
        }
    }
    let _ = locs.ext.set(loc_cols::INLINED, row, Cell::Lgl(Some(true)));
    row as u32
}

/// Rebuilds the stack tree with the inlined frames of `inlined` (location → its inlined
/// callees' rows, innermost first) below their location's node, and points the samples at
/// the new nodes. Invariant kept: a node's prefix comes before it.
fn insert_inlined_frames(p: &mut Profile, inlined: &HashMap<u32, Vec<u32>>) {
    let old = std::mem::take(&mut p.stacks);
    let mut new = StackTable::default();
    let mut node_of = vec![NO_INDEX; old.prefix.len()];
    for (i, prefix) in old.prefix.iter().enumerate() {
        let mut parent = match prefix {
            NO_INDEX => NO_INDEX,
            at => node_of[at as usize],
        };
        let loc = old.location.at(i);
        let chain = inlined.get(&loc.0).map_or(&[][..], Vec::as_slice);
        let outer_first = std::iter::once(loc).chain(chain.iter().rev().map(|&l| LocationIndex(l)));
        for l in outer_first {
            new.prefix.push(parent);
            new.location.push(l);
            parent = (new.prefix.len() - 1) as u32;
        }
        node_of[i] = parent;
    }
    for s in &mut p.samples.stack {
        if *s != NO_INDEX {
            *s = node_of[*s as usize];
        }
    }
    p.stacks = new;
}

/// The `mappings` rows (start, offset, file, build-id), when the table has those columns.
fn mapping_infos(p: &Profile) -> Option<Vec<MappingInfo>> {
    let t = &p.ext_table(tables::MAPPINGS)?.columns;
    let (start, offset) = (t.u64("memory_start")?, t.u64("file_offset")?);
    let end = t.u64("memory_limit");
    let (file, build_id) = (t.chr("filename")?, t.chr("build_id")?);
    Some(
        (0..start.len())
            .map(|i| MappingInfo {
                start: start[i].unwrap_or(0),
                end: end.and_then(|e| e[i]).unwrap_or(0),
                file_offset: offset[i].unwrap_or(0),
                filename: p.str(file[i]).to_owned(),
                build_id: p.strings.get(build_id[i]).map(str::to_owned),
            })
            .collect(),
    )
}

/// Sets `has_functions` of the mappings that got symbols.
fn mark_has_functions(p: &mut Profile, rows: &[bool]) {
    let Some(t) = p.ext_tables.iter_mut().find(|t| t.name == tables::MAPPINGS) else {
        return;
    };
    if let Some(c) = t
        .columns
        .columns
        .iter_mut()
        .find(|c| c.name == "has_functions")
    {
        if let ColumnData::Lgl(cells) = &mut c.data {
            for (cell, &done) in cells.iter_mut().zip(rows) {
                if done {
                    *cell = Some(true);
                }
            }
        }
    }
}

/// Removes the functions no location refers to any more (only when `functions` has no
/// extension columns, which would need remapping too).
fn drop_unused_functions(p: &mut Profile) {
    if !p.functions.ext.columns.is_empty() {
        return;
    }
    let n = p.functions.name.len();
    let mut used = vec![false; n];
    for &f in &p.locations.function {
        if let Some(u) = used.get_mut(f as usize) {
            *u = true;
        }
    }
    let mut new_index = vec![u32::MAX; n];
    let mut kept = 0u32;
    for (i, &u) in used.iter().enumerate() {
        if u {
            new_index[i] = kept;
            kept += 1;
        }
    }
    let fns = &mut p.functions;
    let keep = |v: &mut Vec<_>| {
        let mut i = 0;
        v.retain(|_| {
            i += 1;
            used[i - 1]
        });
    };
    keep(&mut fns.name);
    keep(&mut fns.system_name);
    keep(&mut fns.filename);
    let mut i = 0;
    fns.start_line.retain(|_| {
        i += 1;
        used[i - 1]
    });
    for f in &mut p.locations.function {
        if let Some(&n) = new_index.get(*f as usize) {
            *f = n;
        }
    }
}
