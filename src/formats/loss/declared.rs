//! The declarations: one [`Holds`] row per writable format, saying what its writer keeps.
//! A writable format without a row gets no loss report; `tests/loss.rs` checks every writable
//! format of the registry has one.

use super::{Extensions, Holds, Rows, ValueTypes};
use crate::formats::unwritten::Known;
use crate::formats::{collapsed, firefox, otlp, pprof, rprof, speedscope, Format};
use crate::model::{META_DEFAULT_TYPE, META_VERSION, SAMPLE_TIME};

/// The declaration of `format`, if it is writable.
pub fn holds(format: Format) -> Option<&'static Holds> {
    DECLARED.iter().find(|(f, _)| *f == format).map(|(_, h)| h)
}

/// A format that holds everything the model has.
const EVERYTHING: Holds = Holds {
    value_types: ValueTypes::All,
    labels: true,
    lines: true,
    columns: true,
    files: true,
    times: true,
    sample_rows: Rows::Kept,
    sources: true,
    addresses: true,
    inlined: true,
    extensions: Extensions::All,
};

/// Nothing but names and one value type.
const NAMES_ONLY: Holds = Holds {
    value_types: ValueTypes::One { paired: None },
    labels: false,
    lines: false,
    columns: false,
    files: false,
    times: false,
    sample_rows: Rows::SummedByStack,
    sources: false,
    addresses: false,
    inlined: false,
    extensions: Extensions::Known(&NO_EXTENSIONS),
};

const NO_EXTENSIONS: Known<'static> = Known {
    locations: &[],
    samples: &[],
    sources: &[],
    functions: &[],
    tables: &[],
    meta: &[],
};

/// The rows: every writable format of the registry.
const DECLARED: &[(Format, Holds)] = &[
    (Format::TablesJson, EVERYTHING),
    (
        Format::TablesJsonV1,
        Holds {
            extensions: Extensions::Writer,
            ..EVERYTHING
        },
    ),
    (
        Format::Pprof,
        Holds {
            times: false,
            sample_rows: Rows::SummedByStackAndLabels,
            sources: false,
            extensions: Extensions::Known(&PPROF),
            ..EVERYTHING
        },
    ),
    (Format::Otlp, OTLP),
    (Format::OtlpJson, OTLP),
    (
        Format::Firefox,
        Holds {
            value_types: ValueTypes::One { paired: None },
            labels: false,
            extensions: Extensions::Known(&firefox::WRITE_KNOWN),
            ..EVERYTHING
        },
    ),
    (
        Format::Speedscope,
        Holds {
            value_types: ValueTypes::One { paired: None },
            labels: false,
            addresses: false,
            inlined: false,
            extensions: Extensions::Known(&SPEEDSCOPE),
            ..EVERYTHING
        },
    ),
    (
        Format::Rprof,
        Holds {
            value_types: ValueTypes::Writer,
            labels: false,
            columns: false,
            addresses: false,
            inlined: false,
            extensions: Extensions::Known(&RPROF),
            ..EVERYTHING
        },
    ),
    (
        Format::Collapsed,
        Holds {
            value_types: ValueTypes::One {
                paired: Some(("samples", collapsed::BEFORE_TYPE)),
            },
            ..NAMES_ONLY
        },
    ),
];

/// OTLP (binary and JSON): everything but the extension items it does not know.
const OTLP: Holds = Holds {
    extensions: Extensions::Known(&otlp::WRITE_KNOWN),
    ..EVERYTHING
};

const PPROF: Known<'static> = Known {
    locations: &[pprof::LOC_IS_FOLDED, pprof::LOC_PPROF_ID],
    samples: &[],
    sources: &[],
    functions: &[pprof::FUNC_PPROF_ID],
    tables: &[pprof::MAPPINGS_TABLE],
    meta: &[
        pprof::META_TIME_NANOS,
        pprof::META_DURATION_NANOS,
        pprof::META_PERIOD,
        pprof::META_PERIOD_TYPE,
        pprof::META_PERIOD_UNIT,
        pprof::META_COMMENT,
        pprof::META_DROP_FRAMES,
        pprof::META_KEEP_FRAMES,
        pprof::META_DOC_URL,
        pprof::META_PPROF_DEFAULT_TYPE,
    ],
};

const SPEEDSCOPE: Known<'static> = Known {
    locations: &[],
    samples: &[],
    // The start and end values, exporter and version: the writer writes its own.
    sources: &[
        speedscope::SOURCE_NAME,
        speedscope::SOURCE_START_VALUE,
        speedscope::SOURCE_END_VALUE,
    ],
    functions: &[],
    tables: &[],
    meta: &[
        speedscope::META_NAME,
        speedscope::META_ACTIVE_PROFILE,
        speedscope::META_EXPORTER,
        speedscope::META_VERSION,
    ],
};

const RPROF: Known<'static> = Known {
    locations: &[],
    samples: &[
        SAMPLE_TIME,
        rprof::COL_RUN,
        rprof::COL_TOPLEVEL_FILE,
        rprof::COL_TOPLEVEL_LINE,
    ],
    sources: &[],
    functions: &[],
    tables: &[],
    meta: &[META_VERSION, META_DEFAULT_TYPE, rprof::META_HEADER],
};
