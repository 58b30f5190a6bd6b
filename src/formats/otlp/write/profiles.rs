//! Writer step: the `Profile`s of one source, one per value type with a value in it, sharing
//! one header; consecutive timestamped samples with the same identity (stack, labels, link)
//! are combined into one `Sample`.

use prost::Message;

use super::{Identity, Writer, NANOS_PER_SECOND};
use crate::formats::otlp::attrs::string_array;
use crate::formats::otlp::proto::{self, Sample, ValueType};
use crate::formats::otlp::*;
use crate::formats::write_common::I64_LIMIT;
use crate::model::{Cell, StringId, INT_NA, SAMPLE_TIME};
use attrs::AttrValue;

impl Writer<'_> {
    /// Attribute indices of every sample, from the `sample_labels` table.
    pub(super) fn sample_labels(&mut self) -> Vec<Vec<i32>> {
        let n = self.p.num_samples();
        let mut out = vec![Vec::new(); n];
        let Some(table) = self.p.ext_table(SAMPLE_LABELS) else {
            return out;
        };
        for row in 0..table.len() {
            let Some(Cell::Int(id)) = table.columns.cell("sample_id", row) else {
                continue;
            };
            let Some(slot) = usize::try_from(id)
                .ok()
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| out.get_mut(i))
            else {
                self.warnings.add(NAME, "label_sample", || {
                    format!(
                        "sample_labels row {}: sample_id {id} does not exist; label not written",
                        row + 1
                    )
                });
                continue;
            };
            let chr = |name: &str| match table.columns.cell(name, row) {
                Some(Cell::Chr(s)) if !s.is_na() => Some(self.p.str(s)),
                _ => None,
            };
            let Some(key) = chr("key") else { continue };
            let unit = chr("num_unit").unwrap_or("");
            let value = match (
                chr("value_type"),
                chr("str"),
                table.columns.cell("num", row),
            ) {
                (Some(kind), Some(text), _) => AttrValue::from_text(kind, text),
                (None, Some(text), _) => Some(AttrValue::Str(text.to_owned())),
                (_, None, Some(Cell::Dbl(v))) if v.is_finite() => {
                    Some(AttrValue::Int(v.round() as i64))
                }
                (_, None, Some(Cell::Int(v))) if v != INT_NA => Some(AttrValue::Int(i64::from(v))),
                _ => None,
            };
            if let Some(value) = value {
                let a = self.attribute(key, &value, unit);
                slot.push(a);
            }
        }
        out
    }

    /// One `Profile` per value type that has a value in this source.
    pub(super) fn source_profiles(
        &mut self,
        src: usize,
        rows: &[usize],
        labels: &[Vec<i32>],
        attrs: &[(String, String, AttrValue, String)],
    ) -> Vec<proto::Profile> {
        let header = self.profile_header(src, attrs);
        let base_ns = header.time_unix_nano;
        let identities: Vec<Identity> = rows
            .iter()
            .map(|&s| {
                let stack = self.stack(self.p.sample_stack(crate::model::SampleIndex(s as u32)));
                let link = self.link(s);
                (stack, labels.get(s).cloned().unwrap_or_default(), link)
            })
            .collect();
        let times: Vec<Option<u64>> = rows.iter().map(|&s| self.timestamp(s, base_ns)).collect();
        let mut out = Vec::new();
        for column in &self.p.values {
            let present: Vec<usize> = (0..rows.len())
                .filter(|&i| rows.get(i).is_some_and(|&s| column.get(s).is_some()))
                .collect();
            if present.is_empty() {
                continue;
            }
            let mut samples: Vec<Sample> = Vec::new();
            let mut last: Option<&Identity> = None;
            for &i in &present {
                let (Some(&s), Some(identity), Some(&time)) =
                    (rows.get(i), identities.get(i), times.get(i))
                else {
                    continue;
                };
                let value = self.integer_value(column.get(s).unwrap_or(0.0), column.value_type);
                let joins = time.is_some()
                    && last == Some(identity)
                    && samples
                        .last()
                        .is_some_and(|x| !x.timestamps_unix_nano.is_empty());
                match (joins, samples.last_mut(), time) {
                    (true, Some(prev), Some(t)) => {
                        prev.timestamps_unix_nano.push(t);
                        prev.values.push(value);
                    }
                    _ => samples.push(Sample {
                        stack_index: identity.0,
                        attribute_indices: identity.1.clone(),
                        link_index: identity.2,
                        values: vec![value],
                        timestamps_unix_nano: time.into_iter().collect(),
                    }),
                }
                last = Some(identity);
            }
            let timestamps_only = samples
                .iter()
                .all(|s| !s.timestamps_unix_nano.is_empty() && s.values.iter().all(|&v| v == 1));
            if timestamps_only {
                samples.iter_mut().for_each(|s| s.values.clear());
            }
            let mut profile = header.clone();
            profile.sample_type = Some(ValueType {
                type_strindex: self.string(self.text(column.value_type)),
                unit_strindex: self.string(self.text(column.unit)),
            });
            profile.samples = samples.iter().map(Message::encode_to_vec).collect();
            out.push(profile);
        }
        if out.is_empty() {
            // A source without samples still gets a Profile, so that it survives.
            let mut profile = header;
            if let Some(column) = self
                .p
                .default_value_type()
                .and_then(|vt| self.p.value_column(vt))
            {
                profile.sample_type = Some(ValueType {
                    type_strindex: self.string(self.text(column.value_type)),
                    unit_strindex: self.string(self.text(column.unit)),
                });
            }
            out.push(profile);
        }
        out
    }

    fn integer_value(&mut self, v: f64, vt: StringId) -> i64 {
        if !v.is_finite() {
            let name = self.text(vt);
            self.warnings.add(NAME, "nonfinite", || {
                format!("non-finite {name} values written as 0")
            });
            return 0;
        }
        if v.fract() != 0.0 {
            let name = self.text(vt);
            self.warnings.add(NAME, "fraction", || {
                format!("fractional {name} values rounded to integers (first: {v})")
            });
        }
        let r = v.round();
        if r.abs() >= I64_LIMIT {
            let name = self.text(vt);
            self.warnings.add(NAME, "clamped", || {
                format!(
                    "{name} values beyond the int64 range clamped to it (first: {v}): \
                     OTLP values are int64"
                )
            });
        }
        // `as` saturates at the i64 range: the clamping warned of above.
        r as i64
    }

    fn timestamp(&mut self, sample: usize, base_ns: u64) -> Option<u64> {
        let t = self.p.samples.ext.dbl(SAMPLE_TIME)?.get(sample).copied()?;
        if !t.is_finite() {
            return None;
        }
        let offset = (t * NANOS_PER_SECOND).round() as i64;
        let ns = i128::from(base_ns) + i128::from(offset);
        u64::try_from(ns).ok().or_else(|| {
            self.warnings.add(NAME, "negative_time", || {
                "sample times before the Unix epoch written as 0".to_owned()
            });
            Some(0)
        })
    }

    /// The fields every `Profile` of a source shares.
    fn profile_header(
        &mut self,
        src: usize,
        attrs: &[(String, String, AttrValue, String)],
    ) -> proto::Profile {
        let ts = self
            .p
            .sources
            .source_timestamp
            .get(src)
            .copied()
            .unwrap_or(f64::NAN);
        let meta_time = (src == 0)
            .then(|| {
                self.p
                    .meta_value(meta_keys::TIME_NANOS)?
                    .parse::<u64>()
                    .ok()
            })
            .flatten();
        let time_unix_nano = match self.p.sources.ext.cell(source_cols::TIME_UNIX_NANO, src) {
            Some(Cell::U64(Some(exact))) => exact,
            _ if meta_time.is_some() => meta_time.unwrap_or(0),
            _ if ts.is_finite() && ts > 0.0 => (ts * NANOS_PER_SECOND).round() as u64,
            _ => 0,
        };
        let period_type = self.period_type(src);
        let period = self
            .source_num(src, source_cols::PERIOD, meta_keys::PERIOD)
            .map_or(0, |v| v as i64);
        let duration = self
            .source_num(src, source_cols::DURATION_NANOS, meta_keys::DURATION_NANOS)
            .map_or(0, |v| v as u64);
        let mut attribute_indices = Vec::new();
        if src == 0 {
            attribute_indices.extend(self.pprof_profile_attributes());
        }
        for (level, key, value, unit) in attrs {
            if level == "profile" {
                attribute_indices.push(self.attribute(key, value, unit));
            }
        }
        let dropped = match self
            .p
            .sources
            .ext
            .cell(source_cols::DROPPED_ATTRIBUTES, src)
        {
            Some(Cell::Int(v)) if v != INT_NA => u32::try_from(v).unwrap_or(0),
            _ => 0,
        };
        proto::Profile {
            sample_type: None,
            samples: Vec::new(),
            time_unix_nano,
            duration_nano: duration,
            period_type,
            period,
            profile_id: unhex(&self.source_chr(src, source_cols::PROFILE_ID)).unwrap_or_default(),
            dropped_attributes_count: dropped,
            original_payload_format: self.source_chr(src, source_cols::PAYLOAD_FORMAT),
            original_payload: unhex(&self.source_chr(src, source_cols::PAYLOAD))
                .unwrap_or_default(),
            attribute_indices,
        }
    }

    fn period_type(&mut self, src: usize) -> Option<ValueType> {
        let mut ty = self.source_chr(src, source_cols::PERIOD_TYPE);
        let mut unit = self.source_chr(src, source_cols::PERIOD_UNIT);
        if ty.is_empty() && unit.is_empty() {
            ty = self
                .p
                .meta_value(meta_keys::PERIOD_TYPE)
                .unwrap_or("")
                .to_owned();
            unit = self
                .p
                .meta_value(meta_keys::PERIOD_UNIT)
                .unwrap_or("")
                .to_owned();
        }
        (!ty.is_empty() || !unit.is_empty()).then(|| ValueType {
            type_strindex: self.string(&ty),
            unit_strindex: self.string(&unit),
        })
    }

    /// `pprof.profile.*` attributes from meta (written on the first source's profiles).
    fn pprof_profile_attributes(&mut self) -> Vec<i32> {
        let mut out = Vec::new();
        for key in PPROF_PROFILE_ATTRS {
            let values: Vec<String> = self.p.meta_values(key).map(str::to_owned).collect();
            if values.is_empty() {
                continue;
            }
            let value = if key == ATTR_COMMENT {
                string_array(&values)
            } else {
                AttrValue::Str(values.join("\n"))
            };
            out.push(self.attribute(key, &value, ""));
        }
        out
    }
}
