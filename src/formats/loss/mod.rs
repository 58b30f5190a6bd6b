//! What a conversion loses: every writer's declaration of what its format holds ([`Holds`],
//! one row per writable format in [`declared`]), checked against what a profile has by one
//! shared report ([`report`], run by [`super::write_as`] after the writer).
//!
//! Invariants: a warning is given only for something the profile actually has (no warning for
//! absent data), it names the target format and counts what is affected (samples, locations,
//! functions, values, keys); the kinds are checked in one fixed order, so the list is
//! deterministic. Losses that depend on the written bytes (rounding, escaping, a value type a
//! plan could not use) stay with the writer that makes them.

mod declared;
mod facts;

use super::unwritten::{self, Known};
use super::{Format, Warning, WriteOptions};
use crate::model::{Profile, ValueTypeIndex};

pub use declared::holds;
pub(crate) use facts::{plural, present_cells};

/// Which value types a format holds.
#[derive(Clone, Copy, Debug)]
pub enum ValueTypes {
    /// Every value type.
    All,
    /// The chosen one ([`WriteOptions::value_type`], else the default), and the named type
    /// beside it when the chosen one is the first of the pair (collapsed's `samples` with
    /// `before`).
    One {
        /// `(chosen, also written)` type names.
        paired: Option<(&'static str, &'static str)>,
    },
    /// The writer decides per profile and reports what it leaves out itself (Rprof's plan).
    Writer,
}

/// Whether a format keeps one entry per sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows {
    /// One entry per sample.
    Kept,
    /// Samples with one stack are summed into one entry (collapsed).
    SummedByStack,
    /// Samples with one stack and the same labels are summed into one entry (pprof).
    SummedByStackAndLabels,
}

/// Which extension columns, tables and meta keys a format holds.
#[derive(Clone, Copy, Debug)]
pub enum Extensions {
    /// All of them (tables-json).
    All,
    /// Those named; the others are reported, each with its count.
    Known(&'static Known<'static>),
    /// The writer reports them itself (tables-json-v1, whose model differs).
    Writer,
}

/// What a format can hold, as its writer writes it. `true`: kept; `false`: reported as lost
/// when the profile has it.
#[derive(Clone, Copy, Debug)]
pub struct Holds {
    /// Value types.
    pub value_types: ValueTypes,
    /// Sample labels (the `sample_labels` table).
    pub labels: bool,
    /// Line numbers (`locations.line`, `functions.start_line`).
    pub lines: bool,
    /// Column numbers (`locations..column`).
    pub columns: bool,
    /// File names (`functions.filename`).
    pub files: bool,
    /// Per-sample timestamps (`samples..time`).
    pub times: bool,
    /// Whether samples stay one entry each or are summed (their order and identity lost).
    pub sample_rows: Rows,
    /// Several sources (else their samples are merged).
    pub sources: bool,
    /// Instruction addresses (`locations..address`, with `.mapping_id`; the `mappings` table
    /// is an extension table).
    pub addresses: bool,
    /// The mark of inlined frames (`locations..inlined`, a pprof line index above 0).
    pub inlined: bool,
    /// Extension columns, tables and meta keys beyond the kinds above.
    pub extensions: Extensions,
}

/// Extension items that a kind of [`Holds`] stands for: the extension check leaves them to
/// that kind, so nothing is reported twice.
const OWNED: Known<'static> = Known {
    locations: &[
        crate::model::ext::locations::ADDRESS,
        crate::model::ext::locations::MAPPING_ID,
        crate::model::ext::locations::COLUMN,
        crate::model::ext::locations::INLINED,
        crate::model::ext::locations::PPROF_LINE_INDEX,
    ],
    samples: &[crate::model::SAMPLE_TIME],
    sources: &[],
    functions: &[],
    tables: &[crate::model::ext::tables::SAMPLE_LABELS],
    meta: &[crate::model::META_VERSION, crate::model::META_DEFAULT_TYPE],
};

/// Everything `format` cannot hold of `p`, one warning per kind, with counts (empty for a
/// format without a declaration, which only tables-json-like formats may lack: a test checks
/// every writable format has one).
pub fn report(format: Format, p: &Profile, options: &WriteOptions) -> Vec<Warning> {
    let Some(h) = holds(format) else {
        return Vec::new();
    };
    let name = format.name();
    let mut out: Vec<Warning> = Vec::new();
    if let ValueTypes::One { paired } = h.value_types {
        out.extend(facts::other_value_types(
            name,
            p,
            chosen(p, options),
            paired,
        ));
    }
    if h.sample_rows != Rows::Kept {
        let by_labels = h.sample_rows == Rows::SummedByStackAndLabels;
        out.extend(facts::sample_rows(name, p, by_labels));
    }
    let checks: [(bool, Check); 8] = [
        (h.labels, facts::labels),
        (h.lines, facts::lines),
        (h.columns, facts::columns),
        (h.files, facts::files),
        (h.times, facts::times),
        (h.sources, facts::sources),
        (h.addresses, facts::addresses),
        (h.inlined, facts::inlined),
    ];
    for (held, check) in checks {
        if !held {
            out.extend(check(name, p));
        }
    }
    if let Extensions::Known(known) = h.extensions {
        out.extend(unwritten::report(p, name, known, &OWNED));
    }
    out
}

/// One kind's check: the warning for what the profile has of it, if anything.
type Check = fn(&'static str, &Profile) -> Option<Warning>;

/// The value type a one-type writer writes: the named one, else the default.
fn chosen(p: &Profile, options: &WriteOptions) -> Option<ValueTypeIndex> {
    match &options.value_type {
        Some(name) => p.value_type_index(name),
        None => p.default_value_type(),
    }
}
