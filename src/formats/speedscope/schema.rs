//! The JSON shapes of speedscope files that serde reads whole: frames (unknown keys collected,
//! so they can be reported) and evented-profile events; and what each speedscope unit means
//! as a proftab value type ([`unit_kind`]), which the reader and the writer share.

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Deserialize)]
pub(super) struct RawFrame {
    pub(super) name: Option<String>,
    pub(super) file: Option<String>,
    pub(super) line: Option<f64>,
    pub(super) col: Option<f64>,
    #[serde(flatten)]
    pub(super) other: BTreeMap<String, serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
pub(super) struct RawEvent {
    #[serde(rename = "type")]
    pub(super) kind: String,
    pub(super) at: f64,
    pub(super) frame: i64,
}

/// What a unit maps to.
#[derive(Clone, Copy)]
pub(super) struct UnitKind<'a> {
    pub(super) value_type: &'a str,
    pub(super) unit: &'a str,
    /// Seconds per unit for time units.
    pub(super) seconds: Option<f64>,
}

pub(super) fn unit_kind(unit: &str) -> UnitKind<'_> {
    let time = |seconds| UnitKind {
        value_type: "time",
        unit,
        seconds: Some(seconds),
    };
    match unit {
        "none" => UnitKind {
            value_type: "samples",
            unit: "count",
            seconds: None,
        },
        "nanoseconds" => time(1e-9),
        "microseconds" => time(1e-6),
        "milliseconds" => time(1e-3),
        "seconds" => time(1.0),
        "bytes" => UnitKind {
            value_type: "bytes",
            unit: "bytes",
            seconds: None,
        },
        other => UnitKind {
            value_type: "weight",
            unit: other,
            seconds: None,
        },
    }
}
