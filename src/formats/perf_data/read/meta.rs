//! Header features kept as meta, and build-ids for the `mappings` table.

use linux_perf_data::linux_perf_event_reader::{CpuMode, Mmap2FileId};
use linux_perf_data::{DsoKey, Feature, PerfFile};

use super::super::{
    META_ARCH, META_CMDLINE, META_CPU_DESC, META_HOSTNAME, META_OS_RELEASE, META_VERSION,
};
use super::decompress::Endian;
use crate::hash::HashMap;
use crate::model::ProfileBuilder;

/// Build-ids of the build-id header feature, by perf's DSO key.
#[derive(Default)]
pub(super) struct BuildIds(HashMap<DsoKey, String>);

impl BuildIds {
    /// The build-id recorded for a mapped path.
    pub fn find(&self, path: &str, kernel: bool) -> Option<String> {
        let mode = if kernel {
            CpuMode::Kernel
        } else {
            CpuMode::User
        };
        let key = DsoKey::detect(path.as_bytes(), mode)?;
        self.0.get(&key).cloned()
    }
}

/// Bytes of a build-id as perf prints it (SHA-1 size; the record pads to 24).
const BUILD_ID_BYTES: usize = 20;

/// Lower-case hex of a build-id; `None` when it is all zero.
fn hex(id: &[u8]) -> Option<String> {
    let id = &id[..id.len().min(BUILD_ID_BYTES)];
    if id.iter().all(|&b| b == 0) {
        return None;
    }
    Some(id.iter().map(|b| format!("{b:02x}")).collect())
}

/// The build-id feature's entries (a broken section gives none).
pub(super) fn build_ids(file: &PerfFile) -> BuildIds {
    let map = file.build_ids().unwrap_or_default();
    BuildIds(
        map.into_iter()
            .filter_map(|(k, v)| Some((k, hex(&v.build_id)?)))
            .collect(),
    )
}

/// The build-id an MMAP2 record carries itself (PERF_RECORD_MISC_MMAP_BUILD_ID).
pub(super) fn mmap2_build_id(id: &Mmap2FileId) -> Option<String> {
    match id {
        Mmap2FileId::BuildId(id) => hex(id),
        Mmap2FileId::InodeAndVersion(_) => None,
    }
}

/// Reads a `perf_header_string` (u32 length, then bytes with NUL padding) at `at`.
fn header_string(data: &[u8], at: &mut usize, e: Endian) -> Option<String> {
    let len = e.u32(data.get(*at..*at + 4)?) as usize;
    let bytes = data.get(*at + 4..(*at + 4).checked_add(len)?)?;
    *at += 4 + len;
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    Some(String::from_utf8_lossy(&bytes[..end]).into_owned())
}

/// The string features and the command line as meta rows.
pub(super) fn header_meta(b: &mut ProfileBuilder, file: &PerfFile, e: Endian) {
    for (feature, key) in [
        (Feature::HOSTNAME, META_HOSTNAME),
        (Feature::OSRELEASE, META_OS_RELEASE),
        (Feature::VERSION, META_VERSION),
        (Feature::ARCH, META_ARCH),
        (Feature::CPUDESC, META_CPU_DESC),
    ] {
        let value = file
            .feature_section_data(feature)
            .and_then(|d| header_string(d, &mut 0, e));
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            b.set_meta(key, &v);
        }
    }
    if let Some(data) = file.feature_section_data(Feature::CMDLINE) {
        let mut at = 4;
        let n = data.get(..4).map_or(0, |d| e.u32(d));
        let words: Vec<String> = (0..n)
            .map_while(|_| header_string(data, &mut at, e))
            .collect();
        if !words.is_empty() {
            b.set_meta(META_CMDLINE, &words.join(" "));
        }
    }
}
