//! Frames: the callchain's addresses with their context (perf's PERF_CONTEXT_* markers), the
//! `mappings` rows of the mapped binaries, and the unsymbolised locations (`DSO+0xOFFSET`).

use linux_perf_data::linux_perf_event_reader::CpuMode;

use super::threads::{Machine, Map};
use crate::formats::pprof::MAPPING_COLUMNS;
use crate::hash::HashMap;
use crate::model::ext::{locations as loc_cols, tables};
use crate::model::{Cell, Column, ColumnData, LocationIndex, ProfileBuilder};

/// Callchain markers: entries at or above this value (as u64) are PERF_CONTEXT_* markers.
const PERF_CONTEXT_MAX: u64 = -4095i64 as u64;
const PERF_CONTEXT_HV: u64 = -32i64 as u64;
const PERF_CONTEXT_KERNEL: u64 = -128i64 as u64;
pub(super) const PERF_CONTEXT_USER: u64 = -512i64 as u64;
const PERF_CONTEXT_GUEST_KERNEL: u64 = -2176i64 as u64;
const PERF_CONTEXT_GUEST_USER: u64 = -2560i64 as u64;
/// Frame type of kernel frames (OpenTelemetry `profile.frame.type`).
const FRAME_KERNEL: &str = "kernel";
/// Frame type of the other frames.
const FRAME_NATIVE: &str = "native";
/// Name of a frame outside every mapping, as perf script prints it.
const UNKNOWN: &str = "[unknown]";
/// The kernel's DSO name (its MMAP is `[kernel.kallsyms]_text`).
pub(super) const KERNEL_DSO: &str = "[kernel.kallsyms]";

/// Where an address is looked up.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Space {
    Kernel,
    User,
}

/// The space of a record's cpumode (kernel and guest kernel are kernel; user, guest user,
/// hypervisor and unknown are looked up in the process).
pub(super) fn space_of(mode: CpuMode) -> Space {
    match mode {
        CpuMode::Kernel | CpuMode::GuestKernel => Space::Kernel,
        _ => Space::User,
    }
}

/// Appends the addresses of a callchain, innermost first, with their spaces; markers switch
/// the space and are not frames.
pub(super) fn callchain(
    entries: impl Iterator<Item = u64>,
    mut space: Space,
    out: &mut Vec<(u64, Space)>,
) {
    for addr in entries {
        if addr >= PERF_CONTEXT_MAX {
            space = match addr {
                PERF_CONTEXT_KERNEL | PERF_CONTEXT_GUEST_KERNEL => Space::Kernel,
                PERF_CONTEXT_USER | PERF_CONTEXT_GUEST_USER | PERF_CONTEXT_HV => Space::User,
                _ => space,
            };
            continue;
        }
        out.push((addr, space));
    }
}

/// The name perf prints for a mapped path: the kernel's `[kernel.kallsyms]_text` is
/// `[kernel.kallsyms]`.
pub(super) fn dso_name(path: &str) -> &str {
    if path.starts_with(KERNEL_DSO) {
        KERNEL_DSO
    } else {
        path
    }
}

/// One row of the `mappings` table.
struct MappingRow {
    start: u64,
    end: u64,
    pgoff: u64,
    file: String,
    build_id: Option<String>,
}

/// The `mappings` rows and the unsymbolised locations.
#[derive(Default)]
pub(super) struct Frames {
    rows: Vec<MappingRow>,
    row_index: HashMap<(u64, u64, u64, String), u32>,
    locations: HashMap<(u64, bool, u32), LocationIndex>,
    /// Locations named `DSO+0xOFFSET` or `[unknown]`.
    pub unsymbolised: usize,
}

impl Frames {
    /// The row of a mapped range (added when new).
    pub fn mapping_row(
        &mut self,
        start: u64,
        end: u64,
        pgoff: u64,
        file: &str,
        build_id: Option<String>,
    ) -> u32 {
        let key = (start, end, pgoff, file.to_owned());
        if let Some(&row) = self.row_index.get(&key) {
            if build_id.is_some() {
                self.rows[row as usize].build_id = build_id;
            }
            return row;
        }
        let row = self.rows.len() as u32;
        self.rows.push(MappingRow {
            start,
            end,
            pgoff,
            file: file.to_owned(),
            build_id,
        });
        self.row_index.insert(key, row);
        row
    }

    /// The recorded path and build-id of mapping row `row` (empty when there is no such row).
    pub fn binary_of(&self, row: u32) -> (&str, Option<&str>) {
        self.rows
            .get(row as usize)
            .map_or(("", None), |r| (r.file.as_str(), r.build_id.as_deref()))
    }

    /// The location of `addr` in `space` of process `pid`, added when new.
    pub fn location(
        &mut self,
        b: &mut ProfileBuilder,
        machine: &Machine,
        pid: i32,
        (addr, space): (u64, Space),
    ) -> LocationIndex {
        let map = match space {
            Space::Kernel => machine.kernel.find(addr),
            Space::User => machine.find_user(pid, addr),
        };
        let kernel = space == Space::Kernel;
        let row = map.map_or(u32::MAX, |m| m.row);
        if let Some(&loc) = self.locations.get(&(addr, kernel, row)) {
            return loc;
        }
        let function = match map {
            Some(m) => {
                let (name, file) = self.frame_name(m, addr);
                b.function_named(&name, Some(&file))
            }
            None => b.function_named(UNKNOWN, None),
        };
        self.unsymbolised += 1;
        let loc = b.add_location(Some(function), 0);
        let frame_type = b.intern(if kernel { FRAME_KERNEL } else { FRAME_NATIVE });
        b.set_location_ext(loc, loc_cols::ADDRESS, Cell::U64(Some(addr)));
        b.set_location_ext(loc, loc_cols::FRAME_TYPE, Cell::Chr(frame_type));
        if let Some(m) = map {
            let id = u64::from(m.row) + 1;
            b.set_location_ext(loc, loc_cols::MAPPING_ID, Cell::U64(Some(id)));
        }
        self.locations.insert((addr, kernel, row), loc);
        loc
    }

    /// `BASENAME+0xOFFSET` (the offset in the file) and the DSO name of an address in `m`.
    fn frame_name(&self, m: &Map, addr: u64) -> (String, String) {
        let file = &self.rows[m.row as usize].file;
        let dso = dso_name(file);
        let base = dso.rsplit('/').next().unwrap_or(dso);
        // Kernel addresses are named as they are (perf's kernel map is address-based).
        let offset = if dso == KERNEL_DSO {
            addr
        } else {
            addr.wrapping_sub(m.start).wrapping_add(m.pgoff)
        };
        (format!("{base}+{offset:#x}"), dso.to_owned())
    }

    /// Gives the rows still without a build-id the one `find` has for their file (pipe mode:
    /// HEADER_BUILD_ID records may come after the mappings they name).
    pub fn fill_build_ids(&mut self, find: impl Fn(&str) -> Option<String>) {
        for row in self.rows.iter_mut().filter(|r| r.build_id.is_none()) {
            row.build_id = find(&row.file);
        }
    }

    /// Writes the `mappings` extension table (as pprof fills it: nothing symbolised yet).
    pub fn finish(self, b: &mut ProfileBuilder) {
        if self.rows.is_empty() {
            return;
        }
        let n = self.rows.len();
        let u64s = |f: &dyn Fn(&MappingRow) -> u64| {
            ColumnData::U64(self.rows.iter().map(|r| Some(f(r))).collect())
        };
        let files = self
            .rows
            .iter()
            .map(|r| b.intern(dso_name(&r.file)))
            .collect();
        let ids = self
            .rows
            .iter()
            .map(|r| b.strings().intern_opt(r.build_id.as_deref()))
            .collect();
        let no = || ColumnData::Lgl(vec![Some(false); n]);
        let data = [
            ColumnData::U64((1..=n as u64).map(Some).collect()),
            u64s(&|r| r.start),
            u64s(&|r| r.end),
            u64s(&|r| r.pgoff),
            ColumnData::Chr(files),
            ColumnData::Chr(ids),
            no(),
            no(),
            no(),
            no(),
        ];
        b.ext_table(tables::MAPPINGS).columns.columns = MAPPING_COLUMNS
            .iter()
            .zip(data)
            .map(|(name, data)| Column {
                name: (*name).to_owned(),
                data,
            })
            .collect();
    }
}
