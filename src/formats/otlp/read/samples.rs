//! Reader step: the samples of a group of profiles. Consecutive profiles of a scope whose
//! samples line up (same stacks, attributes, links, timestamps) are one group: one source whose
//! samples carry all their values; each OTLP sample gives one row per timestamp (or value).

use prost::Message;

use super::dictionary::{dict_stack, link_ids, Dict};
use super::{err, proto, AttrValue, Reader, ScopeCtx, NANOS_PER_SECOND};
use crate::formats::otlp::layout::{DecodedProfile, Layout, SampleLayout};
use crate::formats::otlp::proto::{Sample, SampleV19};
use crate::formats::otlp::*;
use crate::formats::ReadError;
use crate::model::{Cell, SampleIndex, SAMPLE_TIME};

/// The identity and rows of one decoded sample.
fn sample_rows(s: &Sample) -> usize {
    s.values.len().max(s.timestamps_unix_nano.len())
}

fn same_identity(a: &Sample, b: &Sample) -> bool {
    let sorted = |v: &[i32]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    };
    a.stack_index == b.stack_index
        && a.link_index == b.link_index
        && a.timestamps_unix_nano == b.timestamps_unix_nano
        && sample_rows(a) == sample_rows(b)
        && sorted(&a.attribute_indices) == sorted(&b.attribute_indices)
}

fn same_header(a: &proto::Profile, b: &proto::Profile) -> bool {
    a.time_unix_nano == b.time_unix_nano
        && a.duration_nano == b.duration_nano
        && a.period_type == b.period_type
        && a.period == b.period
        && a.profile_id == b.profile_id
        && a.dropped_attributes_count == b.dropped_attributes_count
        && a.original_payload_format == b.original_payload_format
        && a.original_payload == b.original_payload
        && a.attribute_indices == b.attribute_indices
}

impl Reader<'_> {
    /// Adds one source for the profiles `range` of a scope (a merge group) and their samples.
    pub(super) fn add_group(
        &mut self,
        ctx: &ScopeCtx,
        dict: &mut Dict,
        range: std::ops::Range<usize>,
        samples: &Samples,
    ) -> Result<(), ReadError> {
        let path = samples.path;
        let first_index = range.start;
        let Some(first) = ctx.profiles.get(first_index) else {
            return Ok(());
        };
        let ppath = format!("{path}.profiles[{first_index}]");
        let mut types = Vec::new();
        for j in range.clone() {
            if let Some(p) = ctx.profiles.get(j) {
                let place = format!("{path}.profiles[{j}].sample_type");
                types.push(self.value_type(&p.profile, dict, &place)?);
            }
        }
        let base = first.profile.time_unix_nano;
        let src = self.add_source(ctx, first, dict, base, &ppath)?;
        for k in 0..first.samples.len() {
            let spath = || format!("{ppath}.samples[{k}]");
            let group = range
                .clone()
                .map(|j| samples.sample(j, k))
                .collect::<Result<Vec<Sample>, ReadError>>()?;
            let Some(s) = group.first() else { continue };
            check_pairing(&group, |g| {
                format!("{path}.profiles[{}].samples[{k}]", first_index + g)
            })?;
            let rows = sample_rows(s);
            if rows == 0 {
                self.w.add(NAME, "empty_sample", || {
                    format!("{}: sample without values or timestamps skipped", spath())
                });
                continue;
            }
            let stack = dict_stack(self, dict, s.stack_index, &spath)?;
            let extras = SampleExtras {
                labels: self.sample_labels(dict, s, &spath)?,
                link: link_ids(dict, s.link_index, &spath)?,
                base,
            };
            for r in 0..rows {
                if self.b.num_samples() >= self.options.limits.max_samples {
                    let max = self.options.limits.max_samples;
                    return Err(err(spath(), format!("more than {max} samples")));
                }
                let row = self.b.add_sample(src, stack);
                for (x, &vt) in group.iter().zip(&types) {
                    self.b.set_value(row, vt, row_value(x, r));
                }
                self.set_sample_extras(row, s.timestamps_unix_nano.get(r).copied(), &extras);
            }
        }
        Ok(())
    }

    /// Sets the time, labels and link of one sample row.
    fn set_sample_extras(&mut self, row: SampleIndex, ts: Option<u64>, extras: &SampleExtras) {
        if let Some(ts) = ts {
            let secs = (i128::from(ts) - i128::from(extras.base)) as f64 / NANOS_PER_SECOND;
            self.b.set_sample_ext(row, SAMPLE_TIME, Cell::Dbl(secs));
        }
        self.write_labels(row, &extras.labels);
        if let Some((trace, span)) = &extras.link {
            let t = self.b.intern(trace);
            let sp = self.b.intern(span);
            self.b
                .set_sample_ext(row, sample_cols::TRACE_ID, Cell::Chr(t));
            self.b
                .set_sample_ext(row, sample_cols::SPAN_ID, Cell::Chr(sp));
        }
    }

    fn sample_labels(
        &mut self,
        dict: &Dict,
        s: &Sample,
        spath: &dyn Fn() -> String,
    ) -> Result<Vec<(String, AttrValue, String)>, ReadError> {
        let mut out = Vec::new();
        for (a, &ai) in s.attribute_indices.iter().enumerate() {
            let place = || format!("{}.attribute_indices[{a}]", spath());
            if let Some((key, value, unit)) = dict.attribute(ai, place)? {
                out.push((key.to_owned(), value, unit.to_owned()));
            }
        }
        Ok(out)
    }

    fn write_labels(&mut self, row: SampleIndex, labels: &[(String, AttrValue, String)]) {
        for (key, value, unit) in labels {
            let key = self.b.intern(key);
            let unit = self
                .b
                .strings()
                .intern_opt((!unit.is_empty()).then_some(unit.as_str()));
            let mut cells = vec![
                ("sample_id", Cell::Int(row.logical_id())),
                ("key", Cell::Chr(key)),
            ];
            match value {
                AttrValue::Str(s) => {
                    let s = self.b.intern(s);
                    cells.push(("str", Cell::Chr(s)));
                }
                AttrValue::Int(i) => {
                    cells.push(("num", Cell::Dbl(*i as f64)));
                    if !unit.is_na() {
                        cells.push(("num_unit", Cell::Chr(unit)));
                    }
                }
                other => {
                    let t = self.b.intern(&other.text());
                    let k = self.b.intern(other.kind());
                    cells.push(("str", Cell::Chr(t)));
                    cells.push(("value_type", Cell::Chr(k)));
                }
            }
            let _ = self.b.ext_table(SAMPLE_LABELS).push_row(&cells);
        }
    }
}

/// Labels, link and time origin shared by the rows of one OTLP sample.
struct SampleExtras {
    labels: Vec<(String, AttrValue, String)>,
    link: Option<(String, String)>,
    base: u64,
}

/// The value of row `r` of a sample: its `r`-th value, or 1 for timestamps-only samples.
fn row_value(s: &Sample, r: usize) -> f64 {
    if s.values.is_empty() {
        1.0
    } else {
        s.values.get(r).copied().unwrap_or(0) as f64
    }
}

/// Checks that sample `k` of every profile of a group pairs its values with its timestamps.
fn check_pairing(group: &[Sample], place: impl Fn(usize) -> String) -> Result<(), ReadError> {
    for (g, x) in group.iter().enumerate() {
        let (nv, nt) = (x.values.len(), x.timestamps_unix_nano.len());
        if nv != 0 && nt != 0 && nv != nt {
            return Err(err(
                place(g),
                format!("{nv} values but {nt} timestamps (they must pair up)"),
            ));
        }
    }
    Ok(())
}

/// The encoded samples of a scope's profiles, decoded one at a time on demand.
pub(super) struct Samples<'s, 'a> {
    pub(super) profiles: &'s [DecodedProfile<'a>],
    pub(super) layout: Layout,
    pub(super) path: &'s str,
}

impl Samples<'_, '_> {
    /// Sample `k` of profile `j`.
    fn sample(&self, j: usize, k: usize) -> Result<Sample, ReadError> {
        let place = || format!("{}.profiles[{j}].samples[{k}]", self.path);
        let bytes = self
            .profiles
            .get(j)
            .and_then(|p| p.samples.get(k))
            .ok_or_else(|| err(place(), "missing"))?;
        let decoded = match self.layout.sample {
            SampleLayout::Current => Sample::decode(*bytes),
            SampleLayout::Old => SampleV19::decode(*bytes).map(Sample::from),
        };
        decoded.map_err(|e| {
            err(
                place(),
                format!("malformed Sample ({} layout): {e}", self.layout.name()),
            )
        })
    }

    fn count(&self, j: usize) -> usize {
        self.profiles.get(j).map_or(0, |p| p.samples.len())
    }
}

/// The exclusive end of the group of profiles starting at `start`: following profiles join
/// while their headers and sample identities match the first and their sample types are new.
/// Samples are decoded pairwise; a sample that does not decode ends the group (and is reported
/// when its own group is read).
pub(super) fn group_end(samples: &Samples, start: usize) -> usize {
    let profiles = samples.profiles;
    let Some(first) = profiles.get(start) else {
        return start + 1;
    };
    let type_name = |p: &proto::Profile| p.sample_type.as_ref().map_or(0, |t| t.type_strindex);
    let mut types = vec![type_name(&first.profile)];
    let mut end = start + 1;
    while let Some(p) = profiles.get(end) {
        let n = samples.count(start);
        let fits = same_header(&first.profile, &p.profile)
            && !types.contains(&type_name(&p.profile))
            && n == samples.count(end)
            && (0..n).all(
                |k| match (samples.sample(start, k), samples.sample(end, k)) {
                    (Ok(a), Ok(b)) => same_identity(&a, &b),
                    _ => false,
                },
            );
        if !fits {
            break;
        }
        types.push(type_name(&p.profile));
        end += 1;
    }
    end
}
