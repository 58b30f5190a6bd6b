//! Which value types the writer reads: the tick weight (a count, or a time divided by the
//! interval), the count and time pair that gives the interval, and the four raw memory values.
//!
//! Chosen once per profile; a profile with neither a count nor a time cannot be written, since
//! nothing says how many timer ticks a sample stands for.

use super::super::*;
use super::err;
use crate::formats::write_common::value_type_list;
use crate::formats::{WriteError, WriteOptions};
use crate::model::{Profile, ValueTypeIndex};

/// Nanoseconds per unit of a time unit name; `None` for other units.
fn time_unit_ns(unit: &str) -> Option<f64> {
    Some(match unit {
        "nanoseconds" | "nanosecond" | "ns" => 1.0,
        "microseconds" | "microsecond" | "us" | "µs" => 1e3,
        "milliseconds" | "millisecond" | "ms" => 1e6,
        "seconds" | "second" | "s" => 1e9,
        _ => return None,
    })
}

fn is_count_unit(unit: &str) -> bool {
    matches!(unit, "count" | "samples" | "")
}

/// How many lines each sample becomes.
#[derive(Clone, Copy)]
pub(super) enum Weight {
    /// A count value: that many lines.
    Count(ValueTypeIndex),
    /// A time value (nanoseconds per unit): time / interval lines.
    Time(ValueTypeIndex, f64),
}

/// What the writer takes from which value type.
pub(super) struct Plan {
    pub(super) weight: Weight,
    /// `samples`/`count`, used with `time` to find the interval.
    pub(super) count: Option<ValueTypeIndex>,
    /// A time type and its nanoseconds per unit.
    pub(super) time: Option<(ValueTypeIndex, f64)>,
    /// small, large, nodes, duplications.
    pub(super) memory: Option<[ValueTypeIndex; 4]>,
}

impl Plan {
    pub(super) fn new(p: &Profile, options: &WriteOptions) -> Result<Plan, WriteError> {
        let unit_of = |vt: ValueTypeIndex| p.value_type_names(vt).1;
        let time_of = |vt: ValueTypeIndex| time_unit_ns(unit_of(vt)).map(|f| (vt, f));
        let samples = p
            .value_type_index(TYPE_SAMPLES.0)
            .filter(|&vt| is_count_unit(unit_of(vt)));
        let time = p
            .value_type_index(TYPE_TIME.0)
            .and_then(time_of)
            .or_else(|| p.default_value_type().and_then(time_of))
            .or_else(|| {
                (0..p.values.len())
                    .filter_map(ValueTypeIndex::from_usize)
                    .find_map(time_of)
            });
        let weight = match &options.value_type {
            Some(name) => Self::named_weight(p, name)?,
            None => Self::default_weight(p, samples, time)?,
        };
        let memory = [
            TYPE_VSIZE_SMALL,
            TYPE_VSIZE_LARGE,
            TYPE_NODES,
            TYPE_DUPLICATIONS,
        ]
        .map(|(t, _)| p.value_type_index(t));
        let memory = match memory {
            [Some(a), Some(b), Some(c), Some(d)] => Some([a, b, c, d]),
            _ => None,
        };
        Ok(Plan {
            weight,
            count: samples,
            time,
            memory,
        })
    }

    fn named_weight(p: &Profile, name: &str) -> Result<Weight, WriteError> {
        let vt = p.value_type_index(name).ok_or_else(|| {
            err(format!(
                "the profile has no value type {name:?} (it has {})",
                value_type_list(p)
            ))
        })?;
        let unit = p.value_type_names(vt).1;
        if let Some(f) = time_unit_ns(unit) {
            return Ok(Weight::Time(vt, f));
        }
        if is_count_unit(unit) {
            return Ok(Weight::Count(vt));
        }
        Err(err(format!(
            "value type {name:?} is measured in {unit}; Rprof lines are timer ticks, so only \
             a count or a time can say how many lines a sample becomes"
        )))
    }

    fn default_weight(
        p: &Profile,
        samples: Option<ValueTypeIndex>,
        time: Option<(ValueTypeIndex, f64)>,
    ) -> Result<Weight, WriteError> {
        if let Some(vt) = samples {
            return Ok(Weight::Count(vt));
        }
        if let Some((vt, f)) = time {
            return Ok(Weight::Time(vt, f));
        }
        if let Some(vt) = p
            .default_value_type()
            .filter(|&vt| is_count_unit(p.value_type_names(vt).1))
        {
            return Ok(Weight::Count(vt));
        }
        if p.values.is_empty() {
            return Err(err(
                "the profile has no value types, so nothing says how many timer ticks a \
                 sample stands for",
            ));
        }
        Err(err(format!(
            "Rprof lines are timer ticks, but this profile has neither sample counts nor \
             times (value types: {}); name a count type in value_type to write one line per \
             unit",
            value_type_list(p)
        )))
    }
}

/// The sampling period from meta (`period` / `pprof.period` with a time unit from
/// `period_type` / `pprof.period_type`, either `unit` or `type/unit`), in µs.
pub(super) fn meta_period_us(p: &Profile) -> Option<f64> {
    ["", "pprof."].iter().find_map(|prefix| {
        let value: f64 = p
            .meta_value(&format!("{prefix}period"))?
            .trim()
            .parse()
            .ok()?;
        let unit_text = p
            .meta_value(&format!("{prefix}period_unit"))
            .or_else(|| p.meta_value(&format!("{prefix}period_type")))
            .unwrap_or("nanoseconds");
        let unit = unit_text.rsplit('/').next().unwrap_or(unit_text);
        let ns = time_unit_ns(unit)?;
        let us = value * ns / 1000.0;
        (us.is_finite() && us > 0.0).then_some(us)
    })
}
