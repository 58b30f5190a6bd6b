//! One thread of a processed profile: its `sources` row, the warnings for what it holds that
//! is not kept, and its samples with their weights (as the thread's [`ReadPlan`]) and times.

use serde_json::Value;

use super::{
    check_length, check_tables, err, index_cell, read_plan, sample_times, Cache, ReadPlan, Reader,
    View,
};
use crate::formats::firefox::schema::{LengthOnly, Meta, Samples, Tables, Thread};
use crate::formats::firefox::{source_cols, MS_PER_SECOND, NAME};
use crate::formats::ReadError;
use crate::model::{Cell, SampleIndex, SourceIndex, META_DEFAULT_TYPE, SAMPLE_TIME};

impl Reader<'_> {
    pub(super) fn thread(
        &mut self,
        meta: &Meta,
        thread: &Thread,
        t: usize,
        shared: &Tables,
        cache: &mut Cache,
    ) -> Result<(), ReadError> {
        let prefix = format!("threads[{t}]");
        let own = &thread.tables;
        let strings = shared
            .string_array
            .as_deref()
            .or(own.string_array.as_deref())
            .ok_or_else(|| err(&prefix, "no stringArray (neither shared nor per thread)"))?;
        let (Some(stacks), Some(frames), Some(funcs)) = (
            own.stack_table.as_ref().or(shared.stack_table.as_ref()),
            own.frame_table.as_ref().or(shared.frame_table.as_ref()),
            own.func_table.as_ref().or(shared.func_table.as_ref()),
        ) else {
            return Err(err(&prefix, "missing stackTable, frameTable or funcTable"));
        };
        let on_thread = own.stack_table.is_some();
        let table_prefix = if on_thread {
            prefix.clone()
        } else {
            "shared".to_owned()
        };
        let view = View {
            strings,
            stacks,
            frames,
            funcs,
            resources: own
                .resource_table
                .as_ref()
                .or(shared.resource_table.as_ref()),
            sources: shared.sources.as_ref().or(own.sources.as_ref()),
            prefix: &table_prefix,
        };
        check_tables(&view)?;
        self.thread_warnings(thread, &prefix, if on_thread { own } else { shared });
        let src = self.source(meta, thread)?;
        let Some(samples) = &thread.samples else {
            return Ok(());
        };
        let plan = read_plan(meta, samples, &format!("{prefix}.samples"))?;
        self.samples(
            &view,
            cache,
            samples,
            &plan,
            src,
            &format!("{prefix}.samples"),
        )
    }

    pub(super) fn thread_warnings(&mut self, thread: &Thread, prefix: &str, tables: &Tables) {
        let len = |l: &Option<LengthOnly>| l.as_ref().and_then(|l| l.length).unwrap_or(0.0);
        if len(&thread.markers) > 0.0 {
            self.w.add(NAME, "markers", || {
                format!("{prefix}: markers are not kept")
            });
        }
        if len(&thread.js_allocations) > 0.0 || len(&thread.native_allocations) > 0.0 {
            self.w.add(NAME, "allocations", || {
                format!("{prefix}: allocation tables are not kept")
            });
        }
        if thread.js_tracer.is_some() {
            self.w.add(NAME, "jstracer", || {
                format!("{prefix}: JS tracer data is not kept")
            });
        }
        if len(&tables.native_symbols) > 0.0 {
            self.w.add(NAME, "native_symbols", || {
                "nativeSymbols are not kept".to_owned()
            });
        }
        if let Some(s) = &thread.samples {
            if s.thread_cpu_delta.is_some()
                || s.event_delay.is_some()
                || s.responsiveness.is_some()
                || s.argument_values.is_some()
            {
                self.w.add(NAME, "sample_columns", || {
                    format!("{prefix}.samples: threadCPUDelta/eventDelay/responsiveness/argumentValues are not kept")
                });
            }
        }
    }

    pub(super) fn source(
        &mut self,
        meta: &Meta,
        thread: &Thread,
    ) -> Result<SourceIndex, ReadError> {
        let ts = meta
            .start_time
            .filter(|t| t.is_finite())
            .map(|t| t / MS_PER_SECOND);
        let src = self
            .b
            .add_source(NAME, self.options.source_uri.as_deref(), ts);
        let row = src.idx();
        let text = |v: &Option<Value>| match v {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        };
        let cells = [
            (source_cols::THREAD_NAME, thread.name.clone()),
            (source_cols::PROCESS_NAME, thread.process_name.clone()),
            (source_cols::PROCESS_TYPE, text(&thread.process_type)),
            (source_cols::PID, text(&thread.pid)),
            (source_cols::TID, text(&thread.tid)),
        ];
        for (col, value) in cells {
            if let Some(v) = value {
                let id = self.b.intern(&v);
                let _ = self.b.sources_mut().ext.set(col, row, Cell::Chr(id));
            }
        }
        if let Some(m) = thread.is_main_thread {
            let _ =
                self.b
                    .sources_mut()
                    .ext
                    .set(source_cols::IS_MAIN_THREAD, row, Cell::Lgl(Some(m)));
        }
        Ok(src)
    }

    pub(super) fn samples(
        &mut self,
        view: &View,
        cache: &mut Cache,
        samples: &Samples,
        plan: &ReadPlan,
        src: SourceIndex,
        path: &str,
    ) -> Result<(), ReadError> {
        let n = samples.stack.len();
        check_length(samples.length, n, path)?;
        let times = sample_times(samples, n, path)?;
        if let Some(w) = &samples.weight {
            if w.len() != n {
                return Err(err(
                    format!("{path}.weight"),
                    format!("{} entries for {n} samples", w.len()),
                ));
            }
        }
        let count = self.b.value_type("samples", "count");
        let weight_vt = (plan.ty != "samples").then(|| self.b.value_type(&plan.ty, &plan.unit));
        if !self.default_set {
            self.b.set_meta(META_DEFAULT_TYPE, &plan.ty);
            self.default_set = true;
        }
        for i in 0..n {
            if self.b.num_samples() >= self.options.limits.max_samples {
                return Err(err(
                    path,
                    format!("more than {} samples", self.options.limits.max_samples),
                ));
            }
            let stack = match index_cell(&samples.stack, i, view.stacks.frame.len(), || {
                format!("{path}.stack[{i}]")
            })? {
                Some(s) => self.stack(view, cache, s)?,
                None => None,
            };
            let weight = samples
                .weight
                .as_ref()
                .and_then(|w| w.cell(i))
                .unwrap_or(1.0);
            let row: SampleIndex = self.b.add_sample(src, stack);
            match weight_vt {
                None => self.b.set_value(row, count, weight * plan.scale),
                Some(vt) => {
                    self.b.set_value(row, count, 1.0);
                    self.b.set_value(row, vt, weight * plan.scale);
                }
            }
            if let Some(&t) = times.get(i) {
                self.b
                    .set_sample_ext(row, SAMPLE_TIME, Cell::Dbl(t / MS_PER_SECOND));
            }
        }
        Ok(())
    }
}
