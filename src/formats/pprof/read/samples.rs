//! Reader step, pass 2: every `Sample` decoded in file order into one reused prost message
//! (by [`sample_wire`] when it is plain, else by prost);
//! its location ids become a stack node (reusing the prefix shared with the previous sample's
//! stack), its values a `samples` row, its labels `sample_labels` rows.

use prost::Message;

use super::locations::LocationRows;
use super::{byte_err, sample_wire, Reader};
use crate::formats::pprof::schema::{Label, Sample};
use crate::formats::pprof::toplevel::{field, TopLevel};
use crate::formats::pprof::FORMAT;
use crate::formats::protowire::{Fields, Value};
use crate::formats::ReadError;
use crate::model::{LocationIndex, StackIndex, StringId};

/// Integers beyond this magnitude are not exact in an f64 (2^53).
const MAX_EXACT_F64: i64 = 1 << 53;

/// One pprof location of a stack walked from the root: the node its innermost line ends at and
/// the number of frames up to there.
pub(super) struct PathStep {
    location_id: u64,
    node: StackIndex,
    depth: usize,
}

/// `sample_labels` columns.
#[derive(Default)]
pub(super) struct LabelColumns {
    pub(super) sample_id: Vec<i32>,
    pub(super) key: Vec<StringId>,
    pub(super) str: Vec<StringId>,
    pub(super) num: Vec<f64>,
    pub(super) num_unit: Vec<StringId>,
}

/// Bytes of the input that pass 2 is shown: the input's from offset `start` on, beginning at a
/// field boundary; the input is `input_len` bytes long.
#[derive(Clone, Copy)]
pub(in crate::formats::pprof) struct Window<'a> {
    pub(in crate::formats::pprof) bytes: &'a [u8],
    pub(in crate::formats::pprof) start: usize,
    pub(in crate::formats::pprof) input_len: usize,
}

/// Where pass 2 stands: the byte offset of the next top-level field to read (a field
/// boundary), the index of the next sample, and the prost message reused for each sample.
#[derive(Default)]
pub(in crate::formats::pprof) struct SamplePosition {
    offset: usize,
    index: usize,
    sample: Sample,
}

impl SamplePosition {
    /// Samples read so far.
    pub(in crate::formats::pprof) fn samples_read(&self) -> usize {
        self.index
    }

    /// The offset of the next top-level field to read.
    pub(in crate::formats::pprof) fn offset(&self) -> usize {
        self.offset
    }
}

impl Reader<'_> {
    /// Refuses a profile with more samples than [`crate::formats::Limits::max_samples`].
    pub(super) fn check_sample_limit(&self, top: &TopLevel) -> Result<(), ReadError> {
        let max = self.limits.max_samples;
        if top.num_samples > max {
            return Err(ReadError::whole(
                FORMAT,
                format!(
                    "the profile has {} samples, more than the limit of {max} \
                     (Limits::max_samples)",
                    top.num_samples
                ),
            ));
        }
        Ok(())
    }

    /// Pass 2: the next `budget` `Sample`s of `data` from `at` on, in file order. True when
    /// the input ends before the budget does (every sample read). A budget of 0 counts as 1, so
    /// every call makes progress.
    pub(super) fn samples(
        &mut self,
        data: &[u8],
        at: &mut SamplePosition,
        budget: usize,
    ) -> Result<bool, ReadError> {
        let whole = Window {
            bytes: data,
            start: 0,
            input_len: data.len(),
        };
        self.samples_in(whole, at, budget)
    }

    /// Pass 2 over `window` (holding `at`): the next `budget` samples, as [`Self::samples`].
    /// True when the window's fields are all read, but for one cut by its end, where `at`
    /// then stands. A field that is malformed otherwise fails (pass 1 took every field of
    /// the input whole, so only a window whose bytes differ from pass 1's meets one).
    pub(super) fn samples_in(
        &mut self,
        window: Window<'_>,
        at: &mut SamplePosition,
        budget: usize,
    ) -> Result<bool, ReadError> {
        let budget = budget.max(1);
        let rest = window.bytes.get(at.offset.saturating_sub(window.start)..);
        let mut fields = Fields::new(rest.unwrap_or_default(), at.offset);
        let mut read = 0usize;
        loop {
            let here = fields.position();
            let f = match fields.next() {
                None => break,
                Some(Ok(f)) => f,
                Some(Err(e)) if e.truncated => break,
                Some(Err(e)) => return Err(byte_err(e.offset, e.message)),
            };
            let (field::SAMPLE, Value::Len(payload, off)) = (f.number, f.value) else {
                at.offset = fields.position();
                continue;
            };
            if read == budget {
                at.offset = here;
                return Ok(false);
            }
            let index = at.index;
            let sample = &mut at.sample;
            if !sample_wire::decode_plain(payload, sample) {
                sample.clear();
                sample
                    .merge(payload)
                    .map_err(|e| byte_err(off, format!("sample[{index}]: cannot decode: {e}")))?;
            }
            self.sample(index, off, sample)?;
            at.index += 1;
            at.offset = fields.position();
            read += 1;
            let nodes = self.b.profile().stacks.prefix.len();
            if let Some(forecast) = self.stack_room.after(at.index, nodes) {
                let rest = window.input_len.saturating_sub(off + payload.len());
                self.reserve_stack_room(forecast, nodes, rest);
            }
        }
        Ok(true)
    }

    /// Reserves room for `forecast` stack nodes (see [`super::room`]), but never for more than
    /// the `rest` bytes of input after the current sample could add to the `nodes` there are:
    /// each new node is a line of a location whose id takes at least a byte.
    fn reserve_stack_room(&mut self, forecast: usize, nodes: usize, rest: usize) {
        let lines = self.location_lines.values().map(|r| r.count as usize).max();
        let bound = nodes.saturating_add(rest.saturating_mul(lines.unwrap_or(1)));
        self.b.reserve_stack_nodes(forecast.min(bound));
    }

    fn sample(&mut self, index: usize, off: usize, sample: &Sample) -> Result<(), ReadError> {
        // The sample types are the builder's value columns (see `value_types`).
        let types = self.b.profile().values.len();
        if sample.value.len() != types {
            return Err(byte_err(
                off,
                format!(
                    "sample[{index}]: mismatch: sample has {} values vs. {types} types",
                    sample.value.len(),
                ),
            ));
        }
        let stack = self.stack(index, off, &sample.location_id)?;
        for &v in &sample.value {
            if v.unsigned_abs() > MAX_EXACT_F64 as u64 {
                self.warnings.add(FORMAT, "inexact-value", || {
                    format!("sample[{index}]: value {v} is not exact as a double")
                });
            }
        }
        // Sample type `i` is value column `i` (see `value_types`).
        let values = sample.value.iter().map(|&v| v as f64);
        let s = self
            .b
            .add_sample_in_column_order(self.source, stack, values);
        for label in &sample.label {
            self.label(s.logical_id(), index, off, label)?;
        }
        Ok(())
    }

    /// The stack node of a sample's location ids (leaf first), each location expanded into
    /// its lines: one walk of the node table.
    fn stack(
        &mut self,
        index: usize,
        off: usize,
        location_ids: &[u64],
    ) -> Result<Option<StackIndex>, ReadError> {
        let node = self.walk(index, off, location_ids);
        self.stack_nodes.end_walk();
        node
    }

    /// The steps of [`Self::stack`] from the root. Once the walk has made a node, the rest of
    /// its steps are new: they are gathered and pushed as one run, even when a later step
    /// fails, so the path never names a node that was not pushed.
    fn walk(
        &mut self,
        index: usize,
        off: usize,
        location_ids: &[u64],
    ) -> Result<Option<StackIndex>, ReadError> {
        // Reuse the part shared with the previous sample's stack (from the root): sorted or
        // depth-first ordered files share long prefixes, which then cost no lookups.
        let path = &mut self.previous_path;
        let shared = path
            .iter()
            .zip(location_ids.iter().rev())
            .take_while(|(step, &id)| step.location_id == id)
            .count();
        path.truncate(shared);
        let mut run = std::mem::take(&mut self.new_run);
        run.clear();
        let walked = self.walk_steps(
            index,
            off,
            &location_ids[..location_ids.len() - shared],
            &mut run,
        );
        let pushed = self.b.push_stack_run(&run);
        self.new_run = run;
        walked.map(|node| pushed.or(node))
    }

    /// The steps of [`Self::walk`] past the shared part, `ids` leaf first: the last node
    /// interned (the walk's node when `run` stays empty), each step's node in the path, and
    /// the locations past the first new node in `run`, whose nodes will follow the last node.
    fn walk_steps(
        &mut self,
        index: usize,
        off: usize,
        ids: &[u64],
        run: &mut Vec<LocationIndex>,
    ) -> Result<Option<StackIndex>, ReadError> {
        let (mut node, mut depth) = self
            .previous_path
            .last()
            .map_or((None, 0), |step| (Some(step.node), step.depth));
        for &id in ids.iter().rev() {
            let rows = self.location_lines(index, off, id, &mut depth)?;
            // The caller's line (the last) is outermost.
            for k in (0..rows.count).rev() {
                let loc = LocationIndex(rows.first + k);
                if self.stack_nodes.made_in_walk() {
                    run.push(loc);
                } else {
                    node = Some(self.stack_nodes.intern(&mut self.b, node, loc));
                }
            }
            // Nothing is interned once the run has begun: its nodes follow the table's end.
            let step_node = match run.len() {
                0 => node,
                n => {
                    let end = self.b.profile().stacks.prefix.len() + n;
                    u32::try_from(end).ok().map(|end| StackIndex(end - 1))
                }
            };
            if let Some(n) = step_node {
                self.previous_path.push(PathStep {
                    location_id: id,
                    node: n,
                    depth,
                });
            }
        }
        Ok(node)
    }

    /// The lines of location `id`, adding their count to `depth`; fails when the location is
    /// not defined or the stack grows past the depth limit.
    fn location_lines(
        &self,
        index: usize,
        off: usize,
        id: u64,
        depth: &mut usize,
    ) -> Result<LocationRows, ReadError> {
        let rows = self.location_lines.get(id);
        let rows = rows.ok_or_else(|| {
            byte_err(
                off,
                format!(
                    "sample[{index}]: sample has nil location (location id {id} is not \
                         defined)"
                ),
            )
        })?;
        *depth = depth.saturating_add(rows.count as usize);
        let max_depth = self.limits.max_stack_depth;
        if *depth > max_depth {
            return Err(byte_err(
                off,
                format!("sample[{index}]: more than {max_depth} frames (Limits::max_stack_depth)"),
            ));
        }
        Ok(rows)
    }

    fn label(
        &mut self,
        sample_id: i32,
        index: usize,
        off: usize,
        label: &Label,
    ) -> Result<(), ReadError> {
        let what = || format!("sample[{index}] label");
        let key = self.sid(label.key, off, &what)?;
        let str_ = self.sid(label.str, off, &what)?;
        let unit = self.sid(label.num_unit, off, &what)?;
        if label.num.unsigned_abs() > MAX_EXACT_F64 as u64 {
            self.warnings.add(FORMAT, "inexact-label", || {
                format!(
                    "{}: numeric value {} is not exact as a double",
                    what(),
                    label.num
                )
            });
        }
        // A string label carries no number: NA rather than 0, unless the file has one.
        let num = if label.num == 0 && label.str != 0 {
            f64::NAN
        } else {
            label.num as f64
        };
        let l = &mut self.labels;
        l.sample_id.push(sample_id);
        l.key.push(key);
        l.str.push(str_);
        l.num.push(num);
        l.num_unit.push(unit);
        Ok(())
    }
}
