//! Symbol tables as `perf report` builds them: the function symbols of an ELF binary (one
//! name per address, chosen among aliases as perf chooses) or of a `/proc/kallsyms` text, and
//! how a file offset of the binary maps to a symbol. Used by the symboliser
//! ([`super::symbolize`]) and the DWARF unwinder (the loadable segments).

use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};

use super::kallsyms::KernelSymbols;

/// Symbols of one binary: function start addresses (sorted), their ends and names, and how a
/// file offset maps to an address.
#[derive(Default)]
pub struct SymbolTable {
    /// `(start, end, name)` sorted by start; `end` is the next symbol's start when the size is 0.
    symbols: Vec<(u64, u64, String)>,
    /// Loadable segments: `(file offset, file size, address)`; empty for kallsyms (addresses
    /// are absolute).
    segments: Vec<(u64, u64, u64)>,
}

impl SymbolTable {
    /// The function symbols of a binary given as one or more ELF files (the binary, its
    /// separate debug file): the symbols of the file with the most, the loadable segments of
    /// the first whose segments have file bytes (a debug file's do not). `None` when no file
    /// is ELF with symbols and segments.
    pub fn from_elf_files(files: &[Vec<u8>]) -> Option<SymbolTable> {
        let parsed: Vec<object::File<'_>> = files
            .iter()
            .filter_map(|b| object::File::parse(&b[..]).ok())
            .collect();
        let segments = loadable_segments(&parsed)?;
        let symbols = parsed
            .iter()
            .map(function_symbols)
            .max_by_key(Vec::len)
            .filter(|s| !s.is_empty())?;
        Some(Self::sorted(one_name_per_address(symbols), segments))
    }

    /// The code symbols of a `/proc/kallsyms` text (addresses absolute). Of several names at
    /// one address, the one listed last is kept, as `perf report` names it.
    pub fn from_kallsyms(kernel: &KernelSymbols) -> SymbolTable {
        // Reversed: the stable sort then puts the last listed first, which dedup keeps.
        let symbols = kernel
            .symbols
            .iter()
            .rev()
            .map(|(addr, name)| (*addr, *addr, name.clone()))
            .collect();
        Self::sorted(symbols, Vec::new())
    }

    fn sorted(mut symbols: Vec<(u64, u64, String)>, segments: Vec<(u64, u64, u64)>) -> Self {
        symbols.sort_by_key(|s| s.0);
        symbols.dedup_by_key(|s| s.0);
        // A symbol without size reaches the next one.
        for i in 0..symbols.len() {
            if symbols[i].1 <= symbols[i].0 {
                symbols[i].1 = symbols.get(i + 1).map_or(u64::MAX, |n| n.0);
            }
        }
        SymbolTable { symbols, segments }
    }

    /// The stated address of file offset `offset` (the offset itself for kallsyms, whose
    /// addresses are absolute).
    pub(super) fn address_of(&self, offset: u64) -> Option<u64> {
        if self.segments.is_empty() {
            return Some(offset);
        }
        let &(off, _, vaddr) = self
            .segments
            .iter()
            .find(|&&(off, size, _)| offset >= off && offset - off < size)?;
        Some(vaddr + (offset - off))
    }

    /// The symbol holding stated address `addr`.
    pub(super) fn symbol_at(&self, addr: u64) -> Option<&str> {
        let i = self.symbols.partition_point(|s| s.0 <= addr);
        let (_, end, name) = self.symbols.get(i.checked_sub(1)?)?;
        (addr < *end).then_some(name.as_str())
    }

    /// The symbol holding file offset `offset` (or absolute address, for kallsyms).
    #[cfg(test)]
    fn lookup(&self, offset: u64) -> Option<&str> {
        self.symbol_at(self.address_of(offset)?)
    }
}

/// The loadable segments with file bytes, `(file offset, file size, address)`, of the file among
/// `files` (a binary, its separate debug file) with the most file bytes in them: the binary's (a
/// debug file keeps the program headers with their sizes cut to nothing, or to the few bytes
/// of its notes). `None` when no file has any.
pub(crate) fn loadable_segments(files: &[object::File<'_>]) -> Option<Vec<(u64, u64, u64)>> {
    files
        .iter()
        .map(|f| {
            f.segments()
                .map(|seg| {
                    let (offset, size) = seg.file_range();
                    (offset, size, seg.address())
                })
                .filter(|&(_, size, _)| size > 0)
                .collect::<Vec<_>>()
        })
        .max_by_key(|s| s.iter().map(|seg| seg.1).sum::<u64>())
        .filter(|s| !s.is_empty())
}

/// How an ELF symbol is bound: perf prefers a strong symbol to a weak one, then a global to a
/// local one, among the names of one address.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Binding {
    Global,
    Weak,
    Local,
}

/// A defined function symbol of an ELF file, in symbol-table order.
#[derive(Debug)]
struct ElfSymbol {
    start: u64,
    size: u64,
    name: String,
    binding: Binding,
}

/// The defined function symbols of an ELF file (`.symtab`, else `.dynsym`), in table order.
fn function_symbols(file: &object::File<'_>) -> Vec<ElfSymbol> {
    let mut symbols = Vec::new();
    for list in [file.symbols(), file.dynamic_symbols()] {
        if !symbols.is_empty() {
            break; // .symtab has everything .dynsym has
        }
        for s in list {
            if s.kind() != SymbolKind::Text || s.address() == 0 || !s.is_definition() {
                continue;
            }
            let Ok(name) = s.name() else { continue };
            let binding = if s.is_weak() {
                Binding::Weak
            } else if s.is_global() {
                Binding::Global
            } else {
                Binding::Local
            };
            symbols.push(ElfSymbol {
                start: s.address(),
                size: s.size(),
                name: name.to_owned(),
                binding,
            });
        }
    }
    symbols
}

/// `(start, end, name)` sorted by start with one name per start address: of the aliases of an
/// address (glibc's `read`, `__read`, `__libc_read`, `__GI___read` …) the one `perf report`
/// shows, chosen as perf's `symbols__fixup_duplicate` does: the aliases are taken in table
/// order, each kept or replaced by the next according to [`prefers_second`].
fn one_name_per_address(mut symbols: Vec<ElfSymbol>) -> Vec<(u64, u64, String)> {
    symbols.sort_by_key(|s| s.start); // stable: table order within an address
    let mut out: Vec<ElfSymbol> = Vec::with_capacity(symbols.len());
    for s in symbols {
        match out.last_mut() {
            Some(kept) if kept.start == s.start => {
                if prefers_second(kept, &s) {
                    *kept = s;
                }
            }
            _ => out.push(s),
        }
    }
    out.into_iter()
        .map(|s| (s.start, s.start.saturating_add(s.size), s.name))
        .collect()
}

/// Whether perf's `choose_best_symbol` (tools/perf/util/symbol.c) takes `b` over `a`, two
/// names of one address: a symbol with a size over one without, a non-weak over a weak one,
/// a global over a local one, fewer leading underscores, the longer name; else `a`, unless
/// `a` is a kernel `SyS`/`compat_SyS` syscall alias.
fn prefers_second(a: &ElfSymbol, b: &ElfSymbol) -> bool {
    fn leading_underscores(name: &str) -> usize {
        name.bytes().take_while(|&c| c == b'_').count()
    }
    if (a.size > 0) != (b.size > 0) {
        return b.size > 0;
    }
    let weak = (a.binding == Binding::Weak, b.binding == Binding::Weak);
    if weak.0 != weak.1 {
        return weak.0;
    }
    let global = (a.binding == Binding::Global, b.binding == Binding::Global);
    if global.0 != global.1 {
        return global.1;
    }
    let underscores = (leading_underscores(&a.name), leading_underscores(&b.name));
    if underscores.0 != underscores.1 {
        return underscores.1 < underscores.0;
    }
    if a.name.len() != b.name.len() {
        return b.name.len() > a.name.len();
    }
    a.name.starts_with("SyS") || a.name.starts_with("compat_SyS")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kallsyms_lookup_takes_the_symbol_below() {
        let t = SymbolTable::from_kallsyms(&KernelSymbols::parse(
            "ffffffff81000000 T _stext\nffffffff81000100 t helper\n\
             ffffffff81000200 D some_data\nffffffff81000300 T later [mod]\n",
        ));
        assert_eq!(t.lookup(0xffff_ffff_8100_0105), Some("helper"));
        assert_eq!(t.lookup(0xffff_ffff_8100_0000), Some("_stext"));
        let aliases = KernelSymbols::parse(
            "ffffffff82202a40 T __pi___x86_indirect_thunk_rax\n\
             ffffffff82202a40 T __x86_indirect_thunk_rax\nffffffff82202a60 T next\n",
        );
        let t2 = SymbolTable::from_kallsyms(&aliases);
        assert_eq!(
            t2.lookup(0xffff_ffff_8220_2a41),
            Some("__x86_indirect_thunk_rax")
        );
        assert_eq!(t.lookup(0xffff_ffff_8100_0301), Some("later"));
        assert_eq!(t.lookup(0x10), None);
    }

    fn symbol(name: &str, size: u64, binding: Binding) -> ElfSymbol {
        ElfSymbol {
            start: 0xf82a0,
            size,
            name: name.to_owned(),
            binding,
        }
    }

    /// The aliases of glibc 2.36's `read` and `write` in its debug file's table order, and the
    /// names `perf report` 6.1 shows for them (tests/fixtures/perf-data/kernel).
    #[test]
    fn of_several_aliases_the_name_perf_shows_is_kept() {
        use Binding::{Global, Local, Weak};
        let read = [
            ("__libc_read", Local),
            ("__GI___libc_read", Local),
            ("__GI___read", Local),
            ("__GI_read", Local),
            ("read", Global),
            ("__read", Global),
        ];
        let write = [
            ("__GI___write", Local),
            ("__GI_write", Local),
            ("__GI___libc_write", Local),
            ("__libc_write", Local),
            ("__write", Weak),
            ("write", Weak),
        ];
        for (aliases, want) in [(&read, "read"), (&write, "__GI___libc_write")] {
            let symbols = aliases.iter().map(|&(n, b)| symbol(n, 157, b)).collect();
            let kept = one_name_per_address(symbols);
            assert_eq!(kept, vec![(0xf82a0, 0xf82a0 + 157, want.to_owned())]);
        }
        // A size beats none; fewer leading underscores; a SyS alias loses a tie.
        let sized = one_name_per_address(vec![symbol("a", 0, Global), symbol("__b", 4, Local)]);
        assert_eq!(sized[0].2, "__b");
        let fewer = one_name_per_address(vec![symbol("__ab", 4, Global), symbol("_b", 4, Global)]);
        assert_eq!(fewer[0].2, "_b");
        let sys =
            one_name_per_address(vec![symbol("SyS_x", 4, Global), symbol("sys_x", 4, Global)]);
        assert_eq!(sys[0].2, "sys_x");
        let tie = one_name_per_address(vec![symbol("f_x", 4, Global), symbol("g_x", 4, Global)]);
        assert_eq!(tie[0].2, "f_x");
    }

    #[test]
    fn files_that_are_not_elf_give_no_table() {
        assert!(SymbolTable::from_elf_files(&[b"not elf".to_vec()]).is_none());
        assert!(SymbolTable::from_elf_files(&[]).is_none());
    }
}
