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
    /// Adds the build-id of a pipe-mode PERF_RECORD_HEADER_BUILD_ID record (`misc`, `body`);
    /// a body too short or an id of zeros is ignored.
    pub fn add_record(&mut self, misc: u16, body: &[u8]) {
        let Some((path, id)) = header_build_id(misc, body) else {
            return;
        };
        if let Some(key) = DsoKey::detect(path, CpuMode::from_misc(misc)) {
            self.0.insert(key, id);
        }
    }

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

/// PERF_RECORD_MISC_BUILD_ID_SIZE: byte 20 of the id field is the id's length.
const MISC_BUILD_ID_SIZE: u16 = 1 << 15;
/// Bytes of a HEADER_BUILD_ID body before the path: pid (4), the id field (24).
const BUILD_ID_PATH_AT: usize = 28;

/// The path and build-id of a HEADER_BUILD_ID body (`struct perf_record_header_build_id`
/// without its header), as the build-id feature's entries are read: the length from the
/// record when `misc` says so, else 20 bytes without trailing 4-byte groups of zeros.
fn header_build_id(misc: u16, body: &[u8]) -> Option<(&[u8], String)> {
    let field = body.get(4..BUILD_ID_PATH_AT)?;
    let len = if misc & MISC_BUILD_ID_SIZE != 0 {
        usize::from(field[20]).min(BUILD_ID_BYTES)
    } else {
        let mut len = BUILD_ID_BYTES;
        while len >= 4 && field[len - 4..len].iter().all(|&b| b == 0) {
            len -= 4;
        }
        len
    };
    let path = &body[BUILD_ID_PATH_AT..];
    let path = &path[..memchr::memchr(0, path).unwrap_or(path.len())];
    Some((path, hex(&field[..len])?))
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

/// The machine architecture of the recording (`uname -m`), from the ARCH feature.
pub(super) fn arch(file: &PerfFile, e: Endian) -> Option<String> {
    header_string(file.feature_section_data(Feature::ARCH)?, &mut 0, e)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A HEADER_BUILD_ID body: pid, the 24-byte id field, the NUL-padded path.
    fn body(id: &[u8], size: Option<u8>, path: &str) -> Vec<u8> {
        let mut b = (-1i32).to_le_bytes().to_vec();
        let mut field = [0u8; 24];
        field[..id.len()].copy_from_slice(id);
        if let Some(size) = size {
            field[20] = size;
        }
        b.extend(field);
        b.extend(path.as_bytes());
        b.extend([0; 5]);
        b
    }

    #[test]
    fn header_build_id_records_give_path_and_id() {
        let sha1: Vec<u8> = (1..=20).collect();
        let app = body(&sha1, None, "/bin/app");
        let (path, id) = header_build_id(0, &app).unwrap();
        assert_eq!((path, id.len()), (&b"/bin/app"[..], 40));
        // An md5-sized id: trailing zero groups are not part of it, or the record says so.
        let md5: Vec<u8> = (1..=16).collect();
        let (_, id) = header_build_id(0, &body(&md5, None, "/bin/app")).unwrap();
        assert_eq!(id, "0102030405060708090a0b0c0d0e0f10");
        let (_, id) =
            header_build_id(MISC_BUILD_ID_SIZE, &body(&md5, Some(16), "/bin/app")).unwrap();
        assert_eq!(id.len(), 32);
        assert!(header_build_id(0, &body(&[], None, "/bin/app")).is_none());
        assert!(header_build_id(0, &[0; 27]).is_none());
        let mut ids = BuildIds::default();
        ids.add_record(2, &body(&sha1, None, "/bin/app"));
        assert_eq!(ids.find("/bin/app", false).map(|s| s.len()), Some(40));
    }
}
