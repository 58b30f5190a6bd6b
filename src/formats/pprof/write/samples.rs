//! Writer step: samples with the same stack node and the same labels merged into one pprof
//! `Sample` whose values are the sums, in order of first occurrence; values rounded to pprof's
//! int64 with one warning; labels from the `sample_labels` table.

use super::numbering::Strings;
use super::{schema, Writer};
use crate::formats::pprof::{FORMAT, LABELS_TABLE};
use crate::formats::write_common::I64_LIMIT;
use crate::formats::{Warning, Warnings};
use crate::hash::HashMap;
use crate::model::{decode_opt, ColumnData, Profile, StringId};

impl Writer<'_> {
    pub(super) fn samples(&mut self) {
        let p = self.p;
        let label_sets = LabelSets::of(p, &mut self.strings);
        let ntypes = self.out.sample_type.len();
        let mut merged: HashMap<(u32, u32), usize> = HashMap::default();
        let mut scratch = Vec::new();
        let mut rounding = ValueRounding::default();
        for s in 0..p.num_samples() {
            let node = p.samples.stack[s];
            let set = label_sets.of_sample.get(s).copied().unwrap_or(0);
            let out_index = match merged.get(&(node, set)) {
                Some(&i) => i,
                None => {
                    let location_id = match decode_opt(node) {
                        Some(n) => {
                            let (start, len) = self.stack_locations(n, &mut scratch);
                            self.stack_ids[start as usize..(start + len) as usize].to_vec()
                        }
                        None => Vec::new(),
                    };
                    self.out.sample.push(schema::Sample {
                        location_id,
                        value: vec![0; ntypes],
                        label: label_sets.labels(set),
                    });
                    merged.insert((node, set), self.out.sample.len() - 1);
                    self.out.sample.len() - 1
                }
            };
            let values = &mut self.out.sample[out_index].value;
            if p.values.is_empty() {
                if let Some(v) = values.first_mut() {
                    *v = v.saturating_add(1);
                }
            }
            for (slot, col) in values.iter_mut().zip(&p.values) {
                if let Some(v) = col.get(s) {
                    *slot = slot.saturating_add(rounding.convert(v));
                }
            }
        }
        rounding.report(&mut self.warnings);
    }
}

/// Converts values to pprof's int64, counting what had to be rounded or clamped.
#[derive(Default)]
struct ValueRounding {
    rounded: usize,
    clamped: usize,
    first: Option<f64>,
}

impl ValueRounding {
    fn convert(&mut self, v: f64) -> i64 {
        if v.is_nan() {
            return 0;
        }
        let r = v.round();
        if r != v {
            self.rounded += 1;
            self.first.get_or_insert(v);
        }
        if r.abs() >= I64_LIMIT {
            self.clamped += 1;
            self.first.get_or_insert(v);
        }
        // `as` saturates at the i64 range, which is the clamping wanted.
        r as i64
    }

    fn report(&self, warnings: &mut Warnings) {
        if self.rounded + self.clamped > 0 {
            warnings.push(Warning::new(
                FORMAT,
                format!(
                    "pprof values are integers: {} values rounded, {} clamped (first: {})",
                    self.rounded,
                    self.clamped,
                    self.first.unwrap_or(0.0)
                ),
                self.rounded + self.clamped,
            ));
        }
    }
}

/// The distinct label lists of the samples: set 0 is "no labels".
struct LabelSets {
    sets: Vec<Vec<schema::Label>>,
    of_sample: Vec<u32>,
}

impl LabelSets {
    fn of<'p>(p: &'p Profile, strings: &mut Strings<'p>) -> Self {
        let mut out = LabelSets {
            sets: vec![Vec::new()],
            of_sample: vec![0; p.num_samples()],
        };
        let Some(t) = p.ext_table(LABELS_TABLE) else {
            return out;
        };
        let c = &t.columns;
        let (Some(ColumnData::Int(sample_id)), Some(key)) = (c.get("sample_id"), c.chr("key"))
        else {
            return out;
        };
        let str_col = c.chr("str");
        let num_col = c.dbl("num");
        let unit_col = c.chr("num_unit");
        let mut rows: Vec<usize> = (0..sample_id.len()).collect();
        rows.sort_by_key(|&r| sample_id[r]);
        let mut per_sample: Vec<(usize, Vec<schema::Label>)> = Vec::new();
        for r in rows {
            let Some(s) = usize::try_from(sample_id[r])
                .ok()
                .and_then(|id| id.checked_sub(1))
            else {
                continue;
            };
            if s >= out.of_sample.len() {
                continue;
            }
            let text = |col: Option<&[StringId]>, strings: &mut Strings<'p>| {
                col.and_then(|v| v.get(r))
                    .map_or(0, |&id| strings.of_owned(p, id))
            };
            let num = num_col.and_then(|v| v.get(r)).copied().unwrap_or(f64::NAN);
            let label = schema::Label {
                key: key.get(r).map_or(0, |&id| strings.of_owned(p, id)),
                str: text(str_col, strings),
                num: if num.is_nan() { 0 } else { num.round() as i64 },
                num_unit: text(unit_col, strings),
            };
            match per_sample.last_mut() {
                Some((last, labels)) if *last == s => labels.push(label),
                _ => per_sample.push((s, vec![label])),
            }
        }
        let mut index: HashMap<Vec<schema::Label>, u32> = HashMap::default();
        for (s, labels) in per_sample {
            let next = out.sets.len() as u32;
            let set = *index.entry(labels.clone()).or_insert_with(|| {
                out.sets.push(labels);
                next
            });
            out.of_sample[s] = set;
        }
        out
    }

    fn labels(&self, set: u32) -> Vec<schema::Label> {
        self.sets.get(set as usize).cloned().unwrap_or_default()
    }
}
