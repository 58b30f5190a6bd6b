//! What the variant parsers hand over: records (values and stack addresses), the frames the
//! `#` lines name per address, labels and meta; and the build into the v2 tables, one
//! location per address (its inline chain as consecutive rows), one sample per record.

use crate::hash::HashMap;

use super::lines::{parse_addresses, Line};
use super::maps::{assign, Mapping};
use super::symbols::{chains, match_chains, parse_labels, parse_symbol_line, Frame, SymbolLine};
use super::{err, FORMAT, META_MEMSTATS};
use crate::formats::pprof::{
    LABELS_TABLE, LOC_ADDRESS, LOC_LINE_INDEX, LOC_MAPPING_ID, LOC_PPROF_ID, MAPPINGS_TABLE,
    MAPPING_COLUMNS, META_COMMENT, META_DURATION_NANOS, META_PERIOD, META_PERIOD_TYPE,
    META_PERIOD_UNIT,
};
use crate::formats::read_common::finish_parsed;
use crate::formats::{Format, Parsed, ReadError, ReadOptions, Warnings};
use crate::model::{
    Column, ColumnData, FunctionKey, LocationIndex, ProfileBuilder, SampleIndex, SourceIndex,
    StringId, ValueTypeIndex,
};

/// How a record's addresses become location keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Adjust {
    /// Every address is a return address: minus one lands on the call (pprof's `addr--`).
    All,
    /// Every address but the leaf (C++ thread stacks, whose leaf is the current PC).
    AllButLeaf,
    /// Addresses are identifiers, kept as they are (Java profiles).
    None,
}

/// One record: its line and its stack in [`Collector::addresses`].
struct Record {
    line: usize,
    first_address: usize,
    len: usize,
}

/// One `sample_labels` row waiting for its sample.
struct LabelRow {
    record: usize,
    key: String,
    str: Option<String>,
    num: f64,
}

/// The profile being read, before samples and locations are built.
pub(super) struct Collector<'a> {
    pub b: ProfileBuilder,
    pub warnings: Warnings,
    options: &'a ReadOptions,
    source: SourceIndex,
    value_types: Vec<ValueTypeIndex>,
    /// Values of every record, `value_types.len()` per record.
    values: Vec<f64>,
    records: Vec<Record>,
    /// Location keys of every record's stack, leaf first.
    addresses: Vec<u64>,
    /// False when keys are identifiers, not addresses (Java): no `.address` column.
    keys_are_addresses: bool,
    /// The frames each location key is symbolized with, and the line that said so.
    symbols: HashMap<u64, (usize, Vec<Frame<'a>>)>,
    /// The current record's raw addresses, adjustment and `#` lines, matched when it ends.
    pending_raw: Vec<u64>,
    pending_adjust: Adjust,
    pending_symbols: Vec<(usize, SymbolLine<'a>)>,
    /// Set once `# runtime.MemStats` was seen: later comments are its fields.
    in_memstats: bool,
    labels: Vec<LabelRow>,
    /// The memory map's mappings, in pprof's order.
    mappings: Vec<Mapping>,
    /// The format the profile is reported as.
    format: Format,
}

impl<'a> Collector<'a> {
    pub(super) fn new(options: &'a ReadOptions) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(FORMAT, options.source_uri.as_deref(), None);
        Collector {
            b,
            warnings: Warnings::default(),
            options,
            source,
            value_types: Vec::new(),
            values: Vec::new(),
            records: Vec::new(),
            addresses: Vec::new(),
            keys_are_addresses: true,
            symbols: HashMap::default(),
            pending_raw: Vec::new(),
            pending_adjust: Adjust::All,
            pending_symbols: Vec::new(),
            in_memstats: false,
            labels: Vec::new(),
            mappings: Vec::new(),
            format: Format::PprofText,
        }
    }

    /// Reports the profile as `format` (the binary CPU profile shares this collector).
    pub(super) fn set_format(&mut self, format: Format) {
        self.format = format;
    }

    /// Declares the value types, in order (pprof's `sample_type`).
    pub(super) fn sample_types(&mut self, types: &[(&str, &str)]) {
        self.value_types = types
            .iter()
            .map(|&(t, u)| self.b.value_type(t, u))
            .collect();
    }

    /// True once value types are declared.
    pub(super) fn has_sample_types(&self) -> bool {
        !self.value_types.is_empty()
    }

    /// Sets pprof's `period_type` and `period` (meta, as the pprof reader keeps them).
    pub(super) fn period(&mut self, kind: &str, unit: &str, period: i64) {
        self.b.set_meta(META_PERIOD_TYPE, kind);
        self.b.set_meta(META_PERIOD_UNIT, unit);
        if period != 0 {
            self.b.set_meta(META_PERIOD, &period.to_string());
        }
    }

    /// Sets pprof's `duration_nanos`.
    pub(super) fn duration_nanos(&mut self, nanos: i64) {
        if nanos != 0 {
            self.b.set_meta(META_DURATION_NANOS, &nanos.to_string());
        }
    }

    /// Location keys are identifiers, not addresses (no `.address` column).
    pub(super) fn keys_are_identifiers(&mut self) {
        self.keys_are_addresses = false;
    }

    /// Adds a record whose stack is the addresses in `text` (parsed into the reused `raw`).
    pub(super) fn record_addresses(
        &mut self,
        line: usize,
        values: &[f64],
        text: &str,
        raw: &mut Vec<u64>,
        adjust: Adjust,
    ) -> Result<(), String> {
        raw.clear();
        parse_addresses(text, raw)?;
        self.record(line, values, raw, adjust)
            .map_err(|e| e.message)
    }

    /// Adds a record read at `line`: its values (one per declared type) and its stack's raw
    /// addresses, leaf first.
    pub(super) fn record(
        &mut self,
        line: usize,
        values: &[f64],
        raw: &[u64],
        adjust: Adjust,
    ) -> Result<(), ReadError> {
        self.finish_record();
        let limits = &self.options.limits;
        if self.records.len() >= limits.max_samples {
            return Err(err(
                line,
                format!(
                    "more than {} records (the sample limit, Limits::max_samples)",
                    limits.max_samples
                ),
            ));
        }
        if raw.len() > limits.max_stack_depth {
            return Err(err(
                line,
                format!(
                    "the stack has {} addresses, more than the limit of {} \
                     (Limits::max_stack_depth)",
                    raw.len(),
                    limits.max_stack_depth
                ),
            ));
        }
        debug_assert_eq!(values.len(), self.value_types.len());
        self.values.extend_from_slice(values);
        let first_address = self.addresses.len();
        self.addresses
            .extend(raw.iter().enumerate().map(|(i, &a)| key(a, i, adjust)));
        self.records.push(Record {
            line,
            first_address,
            len: raw.len(),
        });
        self.pending_raw.clear();
        self.pending_raw.extend_from_slice(raw);
        self.pending_adjust = adjust;
        Ok(())
    }

    /// Adds one to the first value of the last record (C++ thread profiles' "same as
    /// previous thread"); false when there is no record.
    pub(super) fn bump_last_record(&mut self) -> bool {
        let n = self.value_types.len();
        let Some(start) = self.records.len().checked_sub(1).map(|r| r * n) else {
            return false;
        };
        match self.values.get_mut(start) {
            Some(v) => {
                *v += 1.0;
                true
            }
            None => false,
        }
    }

    /// Names the location `key` (Java's location lines); the first naming wins.
    pub(super) fn name_location(&mut self, key: u64, line: usize, frame: Frame<'a>) {
        self.symbols.entry(key).or_insert((line, vec![frame]));
    }

    /// A comment line inside the records: a frame of the current record (`#\tPC\t…`), its
    /// labels, the `# runtime.MemStats` trailer, or free text (kept as a pprof comment).
    pub(super) fn comment(&mut self, line: Line<'a>) {
        let text = line.text.trim();
        let body = text.trim_start_matches('#').trim();
        if self.in_memstats {
            self.b.add_meta(META_MEMSTATS, body);
            return;
        }
        if body == "runtime.MemStats" {
            self.in_memstats = true;
            return;
        }
        if let Some(symbol) = parse_symbol_line(text) {
            if self.records.is_empty() {
                self.warnings.add(FORMAT, "symbol-before-record", || {
                    format!(
                        "line {}: a frame line before any record; ignored",
                        line.number
                    )
                });
            } else {
                self.pending_symbols.push((line.number, symbol));
            }
            return;
        }
        if body.starts_with("labels:") {
            self.labels_line(line);
            return;
        }
        self.b.add_meta(META_COMMENT, body);
    }

    fn labels_line(&mut self, line: Line<'a>) {
        let record = self.records.len().checked_sub(1);
        match (record, parse_labels(line.text)) {
            (Some(record), Some(pairs)) => {
                for (key, value) in pairs {
                    self.labels.push(LabelRow {
                        record,
                        key,
                        str: Some(value),
                        num: f64::NAN,
                    });
                }
            }
            _ => {
                self.warnings.add(FORMAT, "labels", || {
                    format!(
                        "line {}: a labels line that is not `# labels: {{\"key\":\"value\", …}}` \
                         after a record; kept as a comment",
                        line.number
                    )
                });
                let body = line.text.trim().trim_start_matches('#').trim();
                self.b.add_meta(META_COMMENT, body);
            }
        }
    }

    /// Adds a numeric label to the last record (the `bytes` block size of heap profiles).
    pub(super) fn num_label(&mut self, key: &str, num: f64) {
        if let Some(record) = self.records.len().checked_sub(1) {
            self.labels.push(LabelRow {
                record,
                key: key.to_owned(),
                str: None,
                num,
            });
        }
    }

    /// Matches the current record's `#` lines to its addresses.
    fn finish_record(&mut self) {
        if self.pending_symbols.is_empty() {
            return;
        }
        let lines = std::mem::take(&mut self.pending_symbols);
        let chains = chains(&lines);
        let positions = match_chains(&self.pending_raw, &chains);
        for (chain, position) in chains.into_iter().zip(positions) {
            let Some(p) = position else {
                if chain.frames.is_empty() {
                    // A bare `#\tPC` names nothing (Go writes `#\t0x0` under an empty stack).
                    continue;
                }
                self.warnings.add(FORMAT, "unmatched-symbol", || {
                    format!(
                        "line {}: the frame line's PC {:#x} is not an address of its record \
                         (nor one less); ignored",
                        chain.line, chain.pc
                    )
                });
                continue;
            };
            if chain.frames.is_empty() {
                continue;
            }
            let Some(&raw) = self.pending_raw.get(p) else {
                continue;
            };
            let k = key(raw, p, self.pending_adjust);
            self.add_symbols(k, chain.line, chain.frames);
        }
    }

    fn add_symbols(&mut self, key: u64, line: usize, frames: Vec<Frame<'a>>) {
        match self.symbols.get(&key) {
            None => {
                self.symbols.insert(key, (line, frames));
            }
            Some((first, known)) if *known != frames => {
                let first = *first;
                self.warnings.add(FORMAT, "symbol-conflict", || {
                    format!(
                        "line {line}: address {key:#x} is named differently than on line \
                         {first}; the first names are kept"
                    )
                });
            }
            Some(_) => {}
        }
    }

    /// Sets the memory map's mappings.
    pub(super) fn mappings(&mut self, mappings: Vec<Mapping>) {
        self.mappings = mappings;
    }

    /// Builds locations and samples and finishes the profile.
    pub(super) fn finish(mut self) -> Result<Parsed, ReadError> {
        self.finish_record();
        let mut locations = Locations::default();
        let mut frames: Vec<LocationIndex> = Vec::new();
        let n = self.value_types.len();
        for (i, r) in self.records.iter().enumerate() {
            frames.clear();
            let keys = self
                .addresses
                .get(r.first_address..r.first_address + r.len)
                .unwrap_or(&[]);
            for &k in keys {
                let (first, count) = locations.of(k, &mut self.b, &self.symbols);
                frames.extend((first..first + count).map(LocationIndex));
            }
            if frames.len() > self.options.limits.max_stack_depth {
                return Err(err(
                    r.line,
                    format!(
                        "the stack has {} frames with its inlined ones, more than the limit \
                         of {} (Limits::max_stack_depth)",
                        frames.len(),
                        self.options.limits.max_stack_depth
                    ),
                ));
            }
            let stack = self.b.stack_leaf_first(&frames);
            let s = self.b.add_sample(self.source, stack);
            let values = self.values.get(i * n..(i + 1) * n).unwrap_or(&[]);
            for (&vt, &v) in self.value_types.iter().zip(values) {
                self.b.set_value(s, vt, v);
            }
        }
        let unused = self
            .symbols
            .iter()
            .filter(|(k, _)| !locations.rows.contains_key(k))
            .map(|(_, (line, _))| *line)
            .min();
        if let Some(first) = unused {
            self.warnings.add(FORMAT, "unused-names", || {
                format!(
                    "line {first}: location lines name ids that no record's stack holds; \
                     ignored, as go tool pprof does"
                )
            });
        }
        if self.keys_are_addresses {
            let (mappings, of) = assign(std::mem::take(&mut self.mappings), &locations.order);
            locations.attach_mapping_ids(&mut self.b, &of);
            attach_mappings(&mut self.b, &mappings);
        }
        locations.attach(&mut self.b, self.keys_are_addresses);
        attach_labels(&mut self.b, &self.labels);
        finish_parsed(self.b, self.format, self.warnings)
    }
}

/// The location key of raw address `a` at stack position `i`.
fn key(a: u64, i: usize, adjust: Adjust) -> u64 {
    match adjust {
        Adjust::All => a.wrapping_sub(1),
        Adjust::AllButLeaf if i > 0 => a.wrapping_sub(1),
        Adjust::AllButLeaf | Adjust::None => a,
    }
}

/// The location rows made so far, one run of rows per key, and their extension columns.
#[derive(Default)]
struct Locations {
    rows: HashMap<u64, (u32, u32)>,
    /// The keys in order of first use (pprof's location order).
    order: Vec<u64>,
    address: Vec<Option<u64>>,
    pprof_id: Vec<Option<u64>>,
    line_index: Vec<i32>,
}

impl Locations {
    /// The rows of key `k` (first row, count), made on first use: one row per frame of its
    /// chain (innermost first), or one row without a function.
    fn of(
        &mut self,
        k: u64,
        b: &mut ProfileBuilder,
        symbols: &HashMap<u64, (usize, Vec<Frame<'_>>)>,
    ) -> (u32, u32) {
        if let Some(&rows) = self.rows.get(&k) {
            return rows;
        }
        let id = self.rows.len() as u64 + 1;
        let first = b.profile().locations.line.len() as u32;
        let chain = symbols.get(&k).map_or(&[][..], |(_, f)| f.as_slice());
        let mut count = 0u32;
        for (index, frame) in chain.iter().enumerate() {
            let name = b.intern(frame.name);
            let filename = if frame.file.is_empty() {
                StringId::NA
            } else {
                b.intern(frame.file)
            };
            let f = b.function(FunctionKey {
                name,
                system_name: name,
                filename,
                start_line: 0,
            });
            b.add_location(Some(f), frame.line);
            self.push(k, id, index);
            count += 1;
        }
        if count == 0 {
            b.add_location(None, 0);
            self.push(k, id, 0);
            count = 1;
        }
        self.rows.insert(k, (first, count));
        self.order.push(k);
        (first, count)
    }

    fn push(&mut self, k: u64, id: u64, index: usize) {
        self.address.push(Some(k));
        self.pprof_id.push(Some(id));
        self.line_index
            .push(i32::try_from(index).unwrap_or(i32::MAX));
    }

    /// `.mapping_id` of every row: the 1-based mapping of its location (`of`, by location).
    fn attach_mapping_ids(&self, b: &mut ProfileBuilder, of: &[Option<usize>]) {
        if of.iter().all(Option::is_none) {
            return;
        }
        let ids = self
            .pprof_id
            .iter()
            .map(|id| {
                let ordinal = usize::try_from(id.unwrap_or(0)).ok()?.checked_sub(1)?;
                of.get(ordinal).copied().flatten().map(|m| m as u64 + 1)
            })
            .collect();
        b.locations_mut()
            .ext
            .columns
            .push(column(LOC_MAPPING_ID, ColumnData::U64(ids)));
    }

    fn attach(self, b: &mut ProfileBuilder, with_address: bool) {
        let cols = &mut b.locations_mut().ext.columns;
        if with_address && !self.address.is_empty() {
            cols.push(column(LOC_ADDRESS, ColumnData::U64(self.address)));
        }
        if !self.pprof_id.is_empty() {
            cols.push(column(LOC_PPROF_ID, ColumnData::U64(self.pprof_id)));
            cols.push(column(LOC_LINE_INDEX, ColumnData::Int(self.line_index)));
        }
    }
}

/// The `mappings` table (as the pprof reader builds it), ids 1, 2, ….
fn attach_mappings(b: &mut ProfileBuilder, mappings: &[Mapping]) {
    if mappings.is_empty() {
        return;
    }
    let u64s = |f: &dyn Fn(&Mapping) -> u64| mappings.iter().map(|m| Some(f(m))).collect();
    let text = |b: &mut ProfileBuilder, f: &dyn Fn(&Mapping) -> &str| {
        mappings
            .iter()
            .map(|m| b.strings().intern_opt(Some(f(m)).filter(|s| !s.is_empty())))
            .collect()
    };
    let no = || ColumnData::Lgl(vec![Some(false); mappings.len()]);
    let data = [
        ColumnData::U64((1..=mappings.len() as u64).map(Some).collect()),
        ColumnData::U64(u64s(&|m| m.start)),
        ColumnData::U64(u64s(&|m| m.limit)),
        ColumnData::U64(u64s(&|m| m.offset)),
        ColumnData::Chr(text(b, &|m| &m.file)),
        ColumnData::Chr(text(b, &|m| &m.build_id)),
        no(),
        no(),
        no(),
        no(),
    ];
    b.ext_table(MAPPINGS_TABLE).columns.columns = MAPPING_COLUMNS
        .iter()
        .zip(data)
        .map(|(name, data)| column(name, data))
        .collect();
}

/// The `sample_labels` table (as the pprof reader builds it).
fn attach_labels(b: &mut ProfileBuilder, labels: &[LabelRow]) {
    if labels.is_empty() {
        return;
    }
    let sample_id = labels
        .iter()
        .map(|l| SampleIndex(l.record as u32).logical_id())
        .collect();
    let key = labels.iter().map(|l| b.intern(&l.key)).collect();
    let str_ = labels
        .iter()
        .map(|l| b.strings().intern_opt(l.str.as_deref()))
        .collect();
    let num = labels.iter().map(|l| l.num).collect();
    let num_unit = vec![StringId::NA; labels.len()];
    b.ext_table(LABELS_TABLE).columns.columns = vec![
        column("sample_id", ColumnData::Int(sample_id)),
        column("key", ColumnData::Chr(key)),
        column("str", ColumnData::Chr(str_)),
        column("num", ColumnData::Dbl(num)),
        column("num_unit", ColumnData::Chr(num_unit)),
    ];
}

fn column(name: &str, data: ColumnData) -> Column {
    Column {
        name: name.to_owned(),
        data,
    }
}
