//! One thread of the output: its identity from the `sources` extension columns (with made-up
//! names and ids where the profile has none) and its samples table.

use serde_json::{json, Value};

use super::shared::Shared;
use super::WeightPlan;
use crate::formats::firefox::{source_cols, MS_PER_SECOND, NAME};
use crate::formats::Warnings;
use crate::model::{Cell, SampleIndex, SAMPLE_TIME};

impl Shared<'_> {
    /// The thread of source `src`, holding its `samples` table (see [`Self::thread_samples`]).
    pub(super) fn thread(&self, src: usize, samples: Value) -> Value {
        let p = self.p;
        let chr = |col: &str| match p.sources.ext.cell(col, src) {
            Some(Cell::Chr(s)) if !s.is_na() => Some(p.str(s).to_owned()),
            _ => None,
        };
        let uri = p
            .sources
            .source_uri
            .get(src)
            .map(|&u| p.str(u))
            .filter(|u| !u.is_empty());
        let name = chr(source_cols::THREAD_NAME)
            .or_else(|| uri.map(str::to_owned))
            .unwrap_or_else(|| format!("Thread {}", src + 1));
        let tid: Value = match chr(source_cols::TID) {
            Some(t) => t.parse::<i64>().map_or(Value::String(t), Value::from),
            None => Value::from(src + 1),
        };
        let is_main = match p.sources.ext.cell(source_cols::IS_MAIN_THREAD, src) {
            Some(Cell::Lgl(Some(b))) => b,
            _ => src == 0,
        };
        let mut thread = json!({
            "name": name,
            "isMainThread": is_main,
            "processType": chr(source_cols::PROCESS_TYPE).unwrap_or_else(|| "default".to_owned()),
            "processStartupTime": 0,
            "processShutdownTime": null,
            "registerTime": 0,
            "unregisterTime": null,
            "pausedRanges": [],
            "pid": chr(source_cols::PID).unwrap_or_else(|| (src + 1).to_string()),
            "tid": tid,
            "samples": samples,
            "markers": {"length": 0, "data": [], "name": [], "startTime": [], "endTime": [], "phase": [], "category": []},
        });
        if let (Some(pn), Some(obj)) = (chr(source_cols::PROCESS_NAME), thread.as_object_mut()) {
            obj.insert("processName".to_owned(), Value::String(pn));
        }
        thread
    }

    /// The samples table of source `src`, its sample times shifted from the source's start
    /// onto `start_ms`, the profile's `meta.startTime`: samples without a value of the written
    /// type are left out (and reported); weights are omitted when every one is a single sample.
    pub(super) fn thread_samples(
        &mut self,
        src: usize,
        plan: &WeightPlan,
        start_ms: f64,
        w: &mut Warnings,
    ) -> Value {
        let p = self.p;
        let shift = p
            .sources
            .source_timestamp
            .get(src)
            .filter(|t| t.is_finite())
            .map_or(0.0, |t| t * MS_PER_SECOND - start_ms);
        let column = p.values.get(plan.column);
        let times = p.samples.ext.dbl(SAMPLE_TIME);
        let (mut stack, mut time, mut weight) = (Vec::new(), Vec::new(), Vec::new());
        let mut skipped = 0usize;
        for (s, source) in p.samples.source.iter().enumerate() {
            if source.idx() != src {
                continue;
            }
            let Some(v) = column.and_then(|c| c.get(s)) else {
                skipped += 1;
                continue;
            };
            stack.push(self.stack(p.sample_stack(SampleIndex(s as u32))));
            let t = times
                .and_then(|t| t.get(s).copied())
                .filter(|t| t.is_finite());
            time.push(t.map_or(time.len() as f64, |t| t * MS_PER_SECOND + shift));
            weight.push(v * plan.scale);
        }
        if skipped > 0 {
            w.add(NAME, "absent", || {
                format!("{skipped} samples without a value of the written type were left out")
            });
        }
        let unit_weights = plan.weight_type == "samples" && weight.iter().all(|&x| x == 1.0);
        json!({
            "length": stack.len(),
            "stack": stack,
            "time": time,
            "weight": if unit_weights { Value::Null } else { json!(weight) },
            "weightType": plan.weight_type,
        })
    }
}
