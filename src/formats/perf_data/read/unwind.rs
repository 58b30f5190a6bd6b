//! `--call-graph dwarf` stacks: the user part of a sample is unwound from its registers
//! (PERF_SAMPLE_REGS_USER) and its copy of the user stack (PERF_SAMPLE_STACK_USER) with the
//! call frame information (`.eh_frame`, `.eh_frame_hdr`, `.debug_frame`) of the binaries the
//! caller gives, by `framehop` (x86_64 and aarch64), as perf does with libunwind / libdw.
//!
//! Invariants: a frame is only ever the sample's user IP or a return address that unwinding
//! read from the copied stack with a binary's rules; unwinding starts only when the IP is in a
//! binary given, and stops after the first return address outside every binary given (that
//! frame is kept: it is a real return address; the frames above it would need its rules).
//! No file is read here: binaries come from the caller's [`BinarySource`].

use std::ops::Range;
use std::rc::Rc;

use framehop::aarch64::{CacheAarch64, UnwindRegsAarch64, UnwinderAarch64};
use framehop::x86_64::{CacheX86_64, UnwindRegsX86_64, UnwinderX86_64};
use framehop::{ExplicitModuleSectionInfo, FrameAddress, Module, Unwinder as _};
use linux_perf_data::linux_perf_event_reader::Regs;
use object::{Object, ObjectSection};

use super::frames::Frames;
use super::threads::Machine;
use crate::formats::perf_data::symbolize::BinarySource;
use crate::formats::perf_data::symbols::loadable_segments;
use crate::hash::HashMap;

/// Section bytes shared by the modules of one binary.
type Data = Rc<[u8]>;

/// perf's register numbers (`arch/*/include/uapi/asm/perf_regs.h`).
const X86_BP: u64 = 6;
const X86_SP: u64 = 7;
const X86_IP: u64 = 8;
const ARM_FP: u64 = 29;
const ARM_LR: u64 = 30;
const ARM_SP: u64 = 31;
const ARM_PC: u64 = 32;

/// The unwind sections of one binary (with its separate debug file) and how its file offsets
/// map to stated addresses.
struct Binary {
    sections: ExplicitModuleSectionInfo<Data>,
    /// Loadable segments with file bytes: `(file offset, file size, stated address)`.
    segments: Vec<(u64, u64, u64)>,
}

impl Binary {
    /// The unwind sections of the first file that has each (the binary before its debug
    /// file: `.debug_frame` may be only in the latter); `None` when no file is ELF with
    /// loadable segments and CFI.
    fn from_files(files: &[Vec<u8>]) -> Option<Binary> {
        let parsed: Vec<object::File<'_>> = files
            .iter()
            .filter_map(|b| object::File::parse(&b[..]).ok())
            .collect();
        let segments = loadable_segments(&parsed)?;
        let range = |name: &str| {
            let s = parsed.iter().find_map(|f| f.section_by_name(name))?;
            Some(s.address()..s.address().checked_add(s.size())?)
        };
        let data = |name: &str| -> Option<Data> {
            parsed.iter().find_map(|f| {
                let s = f.section_by_name(name)?;
                let compressed =
                    s.compressed_file_range().ok()?.format != object::CompressionFormat::None;
                let bytes = s.data().ok().filter(|d| !d.is_empty() && !compressed)?;
                Some(Rc::from(bytes))
            })
        };
        let sections = ExplicitModuleSectionInfo {
            base_svma: 0,
            text_svma: range(".text"),
            text: data(".text"),
            got_svma: range(".got"),
            eh_frame_svma: range(".eh_frame"),
            eh_frame: data(".eh_frame"),
            eh_frame_hdr_svma: range(".eh_frame_hdr"),
            eh_frame_hdr: data(".eh_frame_hdr"),
            debug_frame: data(".debug_frame"),
            ..Default::default()
        };
        let has_cfi = sections.eh_frame.is_some() || sections.debug_frame.is_some();
        has_cfi.then_some(Binary { sections, segments })
    }

    /// The stated address of file offset `offset`.
    fn address_of_offset(&self, offset: u64) -> Option<u64> {
        let &(at, _, address) = self
            .segments
            .iter()
            .find(|&&(at, size, _)| offset >= at && offset - at < size)?;
        Some(address + (offset - at))
    }
}

/// The machine the recording was made on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Arch {
    X86_64,
    Aarch64,
}

impl Arch {
    /// The architecture of perf's `arch` header feature (`uname -m`); `None` when framehop
    /// cannot unwind it.
    pub fn of(name: Option<&str>) -> Option<Arch> {
        match name? {
            "x86_64" => Some(Arch::X86_64),
            "aarch64" | "arm64" => Some(Arch::Aarch64),
            _ => None,
        }
    }
}

/// framehop's unwinder of one address space.
enum ArchUnwinder {
    X86(UnwinderX86_64<Data>),
    Arm(UnwinderAarch64<Data>),
}

/// The unwinder of one process for one generation of its mappings, and the address ranges
/// its modules cover (sorted).
struct Process {
    generation: u64,
    unwinder: ArchUnwinder,
    covered: Vec<Range<u64>>,
}

impl Process {
    fn covers(&self, addr: u64) -> bool {
        let i = self.covered.partition_point(|r| r.start <= addr);
        i > 0 && addr < self.covered[i - 1].end
    }
}

/// How far a stack was unwound.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Outcome {
    /// Not at all: no registers, or the IP is in no binary given.
    NotUnwound,
    /// To a frame outside every binary given, or to where the stack copy or the rules ended.
    Partial,
    /// To the root.
    Complete,
}

/// A sample's user registers and stack copy.
pub(super) struct UserState<'r> {
    pub regs: &'r Regs<'r>,
    /// The copied stack, from the user SP, cut to the bytes the kernel filled.
    pub stack: &'r [u8],
    pub big_endian: bool,
}

/// The DWARF unwinder of a recording: its binaries, asked once per (path, build-id), and one
/// framehop unwinder per process.
pub(super) struct DwarfUnwinder<'s> {
    source: &'s mut BinarySource<'s>,
    arch: Arch,
    binaries: HashMap<(String, Option<String>), Option<Rc<Binary>>>,
    processes: HashMap<i32, Process>,
    cache_x86: CacheX86_64,
    cache_arm: CacheAarch64,
}

impl<'s> DwarfUnwinder<'s> {
    pub fn new(source: &'s mut BinarySource<'s>, arch: Arch) -> Self {
        DwarfUnwinder {
            source,
            arch,
            binaries: HashMap::default(),
            processes: HashMap::default(),
            cache_x86: CacheX86_64::new(),
            cache_arm: CacheAarch64::new(),
        }
    }

    /// Appends the user frames of a sample of `pid` to `out`, innermost (the user IP) first,
    /// at most `max` of them.
    pub fn unwind(
        &mut self,
        (machine, frames): (&Machine, &Frames),
        pid: i32,
        user: &UserState<'_>,
        max: usize,
        out: &mut Vec<u64>,
    ) -> Outcome {
        let regs = match self.arch {
            Arch::X86_64 => [X86_IP, X86_SP, X86_BP],
            Arch::Aarch64 => [ARM_PC, ARM_SP, ARM_FP],
        }
        .map(|r| user.regs.get(r));
        let [Some(ip), Some(sp), Some(fp)] = regs else {
            return Outcome::NotUnwound;
        };
        let lr = user.regs.get(ARM_LR).unwrap_or(0);
        self.refresh(machine, frames, pid);
        let Some(process) = self.processes.get(&pid) else {
            return Outcome::NotUnwound;
        };
        if !process.covers(ip) {
            return Outcome::NotUnwound;
        }
        let mut read_stack = |addr: u64| -> Result<u64, ()> {
            let at = usize::try_from(addr.checked_sub(sp).ok_or(())?).map_err(|_| ())?;
            let word: [u8; 8] = user
                .stack
                .get(at..at + 8)
                .ok_or(())?
                .try_into()
                .map_err(|_| ())?;
            Ok(if user.big_endian {
                u64::from_be_bytes(word)
            } else {
                u64::from_le_bytes(word)
            })
        };
        let start = out.len();
        let covers = |a: u64| process.covers(a);
        let last = match &process.unwinder {
            ArchUnwinder::X86(u) => {
                let regs = UnwindRegsX86_64::new(ip, sp, fp);
                let frames = u.iter_frames(ip, regs, &mut self.cache_x86, &mut read_stack);
                walk(frames, covers, max, out)
            }
            ArchUnwinder::Arm(u) => {
                let regs = UnwindRegsAarch64::new(lr, sp, fp);
                let frames = u.iter_frames(ip, regs, &mut self.cache_arm, &mut read_stack);
                walk(frames, covers, max, out)
            }
        };
        if out.len() == start {
            out.push(ip);
        }
        last
    }

    /// Rebuilds the unwinder of `pid` when its mappings changed since it was built.
    fn refresh(&mut self, machine: &Machine, frames: &Frames, pid: i32) {
        let [generation, _] = machine.generation(pid);
        if self
            .processes
            .get(&pid)
            .is_some_and(|p| p.generation == generation)
        {
            return;
        }
        let mut unwinder = match self.arch {
            Arch::X86_64 => ArchUnwinder::X86(UnwinderX86_64::new()),
            Arch::Aarch64 => ArchUnwinder::Arm(UnwinderAarch64::new()),
        };
        let mut covered = Vec::new();
        for map in machine.user_maps(pid) {
            let (file, build_id) = frames.binary_of(map.row);
            let Some(binary) = self.binary(file, build_id) else {
                continue;
            };
            let Some(address) = binary.address_of_offset(map.pgoff) else {
                continue;
            };
            let base = map.start.wrapping_sub(address);
            let sections = binary.sections.clone();
            let range = map.start..map.end;
            match &mut unwinder {
                ArchUnwinder::X86(u) => {
                    u.add_module(Module::new(file.to_owned(), range.clone(), base, sections))
                }
                ArchUnwinder::Arm(u) => {
                    u.add_module(Module::new(file.to_owned(), range.clone(), base, sections))
                }
            }
            covered.push(range);
        }
        let process = Process {
            generation,
            unwinder,
            covered,
        };
        self.processes.insert(pid, process);
    }

    /// The binary recorded as `file` with `build_id`, asked of the source once.
    fn binary(&mut self, file: &str, build_id: Option<&str>) -> Option<Rc<Binary>> {
        let key = (file.to_owned(), build_id.map(str::to_owned));
        if let Some(found) = self.binaries.get(&key) {
            return found.clone();
        }
        let found = if file.starts_with('[') || file.is_empty() {
            None // [vdso], [heap], anonymous memory: no file to read
        } else {
            Binary::from_files(&(self.source)(file, build_id)).map(Rc::new)
        };
        self.binaries.insert(key, found.clone());
        found
    }
}

/// Appends the frames of `frames` to `out` until the root, an error, `max` frames or the first
/// return address outside the binaries given (`covers`), which is kept.
fn walk<U: framehop::Unwinder, F: FnMut(u64) -> Result<u64, ()>>(
    mut frames: framehop::UnwindIterator<'_, '_, '_, U, F>,
    covers: impl Fn(u64) -> bool,
    max: usize,
    out: &mut Vec<u64>,
) -> Outcome {
    loop {
        match frames.next() {
            Ok(Some(f)) => {
                // As perf: a return address less one, inside the call (its line is the call's).
                out.push(f.address_for_lookup());
                let outside = matches!(f, FrameAddress::ReturnAddress(_)) && !covers(f.address());
                if outside || out.len() >= max {
                    return Outcome::Partial;
                }
            }
            Ok(None) => return Outcome::Complete,
            Err(_) => return Outcome::Partial,
        }
    }
}
