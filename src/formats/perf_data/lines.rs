//! Source lines and inlined frames of a binary's code addresses, from its DWARF (`.debug_info`,
//! `.debug_line`, … of the binary or of its separate debug file) read by `addr2line`, as
//! `addr2line -i -f` and `perf script -F +srcline --inline` give them. Compressed debug
//! sections (`SHF_COMPRESSED`, zlib or zstd) are inflated here with the decoders the readers
//! use. No I/O: builds for wasm32.

use std::rc::Rc;

use gimli::{EndianRcSlice, RunTimeEndian};
use object::{CompressionFormat, Object, ObjectSection};

/// The largest debug section inflated (a bigger one is treated as absent).
const MAX_SECTION_BYTES: u64 = 1 << 30;

type Reader = EndianRcSlice<RunTimeEndian>;

/// Sections `gimli::Dwarf::load` asks for that addresses, lines and inlined frames never read:
/// variables' location lists and macros. Left empty, so a compressed one is never inflated
/// (libc's separate debug file: 1.4 of its 10 MB).
const UNUSED_SECTIONS: [gimli::SectionId; 4] = [
    gimli::SectionId::DebugLoc,
    gimli::SectionId::DebugLocLists,
    gimli::SectionId::DebugMacinfo,
    gimli::SectionId::DebugMacro,
];

/// One frame at an address: its function (the linkage name when DWARF has one, as raw as the
/// symbol table's), its line (0 when unknown) and the source file of that line (the path as
/// DWARF gives it, joined to the compilation directory; `None` when unknown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFrame {
    pub function: Option<String>,
    pub line: u32,
    pub file: Option<String>,
}

/// The DWARF of one binary.
pub struct DebugLines {
    context: addr2line::Context<Reader>,
}

impl DebugLines {
    /// The DWARF of the first file among `files` (a binary, its debug file) that has
    /// `.debug_info` bytes; `None` when none has, or it cannot be read.
    pub fn from_elf_files(files: &[Vec<u8>]) -> Option<DebugLines> {
        let file = files
            .iter()
            .filter_map(|b| object::File::parse(&b[..]).ok())
            .find(|f| section_bytes(f, ".debug_info").is_some())?;
        let endian = if file.is_little_endian() {
            RunTimeEndian::Little
        } else {
            RunTimeEndian::Big
        };
        let load = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
            let bytes = (!UNUSED_SECTIONS.contains(&id))
                .then(|| section_bytes(&file, id.name()))
                .flatten()
                .unwrap_or_else(|| Rc::from(&[][..]));
            Ok(EndianRcSlice::new(bytes, endian))
        };
        let dwarf = gimli::Dwarf::load(load).ok()?;
        let context = addr2line::Context::from_dwarf(dwarf).ok()?;
        Some(DebugLines { context })
    }

    /// The frames at stated address `address`, innermost (the inlined callee) first, the
    /// function the code belongs to last; empty when DWARF does not cover the address.
    pub fn frames(&self, address: u64) -> Vec<SourceFrame> {
        let mut out = Vec::new();
        let Ok(mut frames) = self.context.find_frames(address).skip_all_loads() else {
            return out;
        };
        while let Ok(Some(frame)) = frames.next() {
            let function = frame
                .function
                .as_ref()
                .and_then(|f| f.raw_name().ok())
                .map(|n| n.into_owned());
            let line = frame.location.as_ref().and_then(|l| l.line).unwrap_or(0);
            let file = frame
                .location
                .and_then(|l| l.file)
                .filter(|f| !f.is_empty())
                .map(str::to_owned);
            out.push(SourceFrame {
                function,
                line,
                file,
            });
        }
        out
    }
}

/// The bytes of section `name` of `file`, inflated when compressed; `None` when absent, empty
/// (a debug file's stripped sections) or not decodable.
fn section_bytes(file: &object::File<'_>, name: &str) -> Option<Rc<[u8]>> {
    let data = file.section_by_name(name)?.compressed_data().ok()?;
    if data.uncompressed_size > MAX_SECTION_BYTES {
        return None;
    }
    let cap = data.uncompressed_size as usize;
    let bytes = match data.format {
        CompressionFormat::None => data.data.to_vec(),
        CompressionFormat::Zlib => {
            miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(data.data, cap).ok()?
        }
        CompressionFormat::Zstandard => {
            crate::formats::zstd::unzstd_capped(data.data, cap, super::FORMAT).ok()?
        }
        _ => return None,
    };
    (!bytes.is_empty()).then(|| Rc::from(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_without_dwarf_give_none() {
        assert!(DebugLines::from_elf_files(&[b"not elf".to_vec()]).is_none());
        assert!(DebugLines::from_elf_files(&[]).is_none());
    }
}
