//! Reading a DHAT file: the top-level members are scanned, meta and the frame table read
//! first, then each program point becomes one sample.

use super::schema::{parse_frame, ProgramPoint, COUNTERS};
use super::{LOCATION_OBJECT, NAME};
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::json_scan::{self, Member};
use crate::formats::read_common::{check_sample_limit, finish_parsed};
use crate::formats::{Format, Parsed, ReadOptions};
use crate::model::{
    ext, Cell, LocationIndex, ProfileBuilder, SourceIndex, ValueTypeIndex, META_DEFAULT_TYPE,
};

/// The file version this reader knows.
const KNOWN_VERSION: u64 = 2;
/// Top-level keys that are read (the others are named in a warning).
const KNOWN_TOP_KEYS: [&str; 17] = [
    "dhatFileVersion",
    "mode",
    "verb",
    "bklt",
    "bkacc",
    "bu",
    "bsu",
    "bksu",
    "tu",
    "Mtu",
    "tuth",
    "cmd",
    "pid",
    "te",
    "tg",
    "pps",
    "ftbl",
];
/// Top-level members kept as meta: (key, meta key).
const META_KEYS: [(&str, &str); 15] = [
    ("dhatFileVersion", "dhat.version"),
    ("mode", "dhat.mode"),
    ("verb", "dhat.verb"),
    ("cmd", "dhat.cmd"),
    ("pid", "dhat.pid"),
    ("tu", "dhat.time_unit"),
    ("Mtu", "dhat.time_unit_m"),
    ("tuth", "dhat.tuth"),
    ("te", "dhat.te"),
    ("tg", "dhat.tgmax"),
    ("bklt", "dhat.block_lifetimes"),
    ("bkacc", "dhat.block_accesses"),
    ("bu", "dhat.bu"),
    ("bsu", "dhat.bsu"),
    ("bksu", "dhat.bksu"),
];

/// Reads a DHAT file.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let (members, mut warnings) = json_scan::open_object_document(NAME, bytes, &KNOWN_TOP_KEYS)?;
    let mut r = Reader {
        bytes,
        options,
        b: ProfileBuilder::new(),
        frames: Vec::new(),
        types: Vec::new(),
    };
    let version = r.meta(&members, &mut warnings)?;
    if version != Some(KNOWN_VERSION) {
        let shown = version.map_or_else(|| "none".to_owned(), |v| v.to_string());
        warnings.add(NAME, "version", || {
            format!(
                "dhatFileVersion is {shown}, not {KNOWN_VERSION}; read as version {KNOWN_VERSION}"
            )
        });
    }
    r.frame_table(required(&members, "ftbl")?)?;
    r.value_types(&members)?;
    let source = r.b.add_source(NAME, options.source_uri.as_deref(), None);
    let pps = required(&members, "pps")?;
    let ranges = json_scan::member_array(NAME, bytes, pps, "pps")?;
    let mut histograms = 0usize;
    for (i, range) in ranges.into_iter().enumerate() {
        let pp: ProgramPoint = json_scan::parse_member(NAME, bytes, range, &format!("pps[{i}]"))?;
        histograms += usize::from(pp.acc.is_some());
        r.program_point(i, source, pp, &mut warnings)?;
    }
    if histograms > 0 {
        warnings.push(crate::formats::Warning::new(
            NAME,
            format!("the access histograms (`acc`) of {histograms} program points were not kept"),
            1,
        ));
    }
    finish_parsed(r.b, Format::Dhat, warnings)
}

/// The member `key`, which must exist.
fn required<'m>(members: &'m [Member], key: &str) -> Result<&'m Member, ReadError> {
    json_scan::member(members, key)
        .ok_or_else(|| ReadError::whole(NAME, format!("the file has no `{key}` member")))
}

/// Reader state.
struct Reader<'a> {
    bytes: &'a [u8],
    options: &'a ReadOptions,
    b: ProfileBuilder,
    /// One location per `ftbl` entry.
    frames: Vec<LocationIndex>,
    /// Per counter of [`COUNTERS`]: its value type, when the file has it.
    types: Vec<Option<ValueTypeIndex>>,
}

impl Reader<'_> {
    /// Keeps the top-level scalars as meta; returns `dhatFileVersion`.
    fn meta(
        &mut self,
        members: &[Member],
        warnings: &mut Warnings,
    ) -> Result<Option<u64>, ReadError> {
        let mut version = None;
        for (key, meta) in META_KEYS {
            let Some(m) = json_scan::member(members, key) else {
                continue;
            };
            let value: serde_json::Value =
                json_scan::parse_member(NAME, self.bytes, m.value.clone(), key)?;
            let text = match &value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(_) | serde_json::Value::Bool(_) => value.to_string(),
                _ => {
                    warnings.add(NAME, "meta", || {
                        format!("`{key}` is not a string, number or boolean; not kept")
                    });
                    continue;
                }
            };
            if key == "dhatFileVersion" {
                version = value.as_u64();
            }
            self.b.set_meta(meta, &text);
        }
        Ok(version)
    }

    /// One location per `ftbl` entry.
    fn frame_table(&mut self, ftbl: &Member) -> Result<(), ReadError> {
        let table: Vec<String> =
            json_scan::parse_member(NAME, self.bytes, ftbl.value.clone(), "ftbl")?;
        for text in &table {
            let frame = parse_frame(text);
            let addr_name;
            let name = match (frame.name, frame.address) {
                (Some(name), _) => name,
                (None, Some(a)) => {
                    addr_name = format!("0x{a:x}");
                    &addr_name
                }
                (None, None) => "???",
            };
            let f = self.b.function_named(name, frame.file);
            let loc = self.b.add_location(Some(f), frame.line);
            if let Some(a) = frame.address {
                self.b
                    .set_location_ext(loc, ext::locations::ADDRESS, Cell::U64(Some(a)));
            }
            if let Some(object) = frame.object {
                let id = self.b.intern(object);
                self.b.set_location_ext(loc, LOCATION_OBJECT, Cell::Chr(id));
            }
            self.frames.push(loc);
        }
        Ok(())
    }

    /// Declares a value type per counter that occurs in `pps` (found by its key in the raw
    /// text), named as the mode wants; the `tb` one is the default.
    fn value_types(&mut self, members: &[Member]) -> Result<(), ReadError> {
        let pps = required(members, "pps")?;
        let raw = self.bytes.get(pps.value.clone()).unwrap_or_default();
        let meta_str = |key: &str| json_scan::member_str(self.bytes, members, key);
        let ad_hoc = meta_str("mode").is_some_and(|m| m == "ad-hoc");
        let time_unit = meta_str("tu").unwrap_or_else(|| "instrs".to_owned());
        let (units, events) = (
            meta_str("bsu").unwrap_or_else(|| "units".to_owned()),
            meta_str("bksu").unwrap_or_else(|| "events".to_owned()),
        );
        for c in &COUNTERS {
            if !json_scan::contains(raw, format!("\"{}\"", c.key).as_bytes()) {
                self.types.push(None);
                continue;
            }
            let (name, unit) = match (ad_hoc, c.key) {
                (true, "tb") => (format!("total_{units}"), "count".to_owned()),
                (true, "tbk") => (format!("total_{events}"), "count".to_owned()),
                _ => (
                    c.name.to_owned(),
                    c.unit.map_or(time_unit.clone(), str::to_owned),
                ),
            };
            if c.key == "tb" {
                self.b.set_meta(META_DEFAULT_TYPE, &name);
            }
            self.types.push(Some(self.b.value_type(&name, &unit)));
        }
        Ok(())
    }

    /// Program point `i` as one sample.
    fn program_point(
        &mut self,
        i: usize,
        source: SourceIndex,
        pp: ProgramPoint,
        warnings: &mut Warnings,
    ) -> Result<(), ReadError> {
        check_sample_limit(&self.b, Format::Dhat, self.options.limits.max_samples)?;
        let place = |what: &str| Place::Path(format!("pps[{i}].{what}"));
        let fs = pp
            .fs
            .ok_or_else(|| ReadError::new(NAME, place("fs"), "the program point has no `fs`"))?;
        let max_depth = self.options.limits.max_stack_depth;
        if fs.len() > max_depth {
            return Err(ReadError::new(
                NAME,
                place("fs"),
                format!("the stack is deeper than {max_depth} frames (the stack depth limit)"),
            ));
        }
        let mut stack = self.b.take_scratch();
        for (j, &index) in fs.iter().enumerate() {
            match usize::try_from(index).ok().and_then(|x| self.frames.get(x)) {
                Some(&loc) => stack.push(loc),
                None => {
                    self.b.return_scratch(stack);
                    let n = self.frames.len();
                    return Err(ReadError::new(
                        NAME,
                        place(&format!("fs[{j}]")),
                        format!("frame index {index} is outside `ftbl` ({n} entries)"),
                    ));
                }
            }
        }
        let node = self.b.stack_leaf_first(&stack);
        self.b.return_scratch(stack);
        let sample = self.b.add_sample(source, node);
        for (key, value) in &pp.counters {
            let Some(c) = COUNTERS.iter().position(|c| c.key == key) else {
                warnings.add(NAME, "unknown-pp-key", || {
                    format!("program point keys not kept (first `{key}` at pps[{i}])")
                });
                continue;
            };
            let v = value.as_f64().filter(|v| *v >= 0.0).ok_or_else(|| {
                ReadError::new(NAME, place(key), format!("`{key}` is {value}, not a count"))
            })?;
            if let Some(vt) = self.types[c] {
                self.b.set_value(sample, vt, v);
            }
        }
        Ok(())
    }
}
