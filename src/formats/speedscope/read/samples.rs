//! One entry of `profiles`: its source row and weight type, then its samples — sampled
//! profiles one sample per entry, evented profiles one sample per interval in which a frame is
//! open (balanced, non-decreasing events, as speedscope requires).

use std::ops::Range;

use super::{depth_error, missing, ProfileCtx, Reader};
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::json_scan::{self};
use crate::formats::read_common::check_sample_limit;
use crate::formats::speedscope::schema::RawEvent;
use crate::formats::speedscope::{KNOWN_PROFILE_KEYS, NAME};
use crate::formats::Format;
use crate::model::{Cell, LocationIndex, StackIndex, ValueTypeIndex, SAMPLE_TIME};

impl Reader<'_> {
    /// Reads `profiles[i]`; returns its weight value type.
    pub(super) fn profile(
        &mut self,
        i: usize,
        range: Range<usize>,
        warnings: &mut Warnings,
    ) -> Result<ValueTypeIndex, ReadError> {
        let path = format!("profiles[{i}]");
        let members = json_scan::object_members(self.bytes, range.start).ok_or_else(|| {
            ReadError::new(
                NAME,
                Place::Path(path.clone()),
                "the profile is not a JSON object",
            )
        })?;
        let field = |key: &str| json_scan::member(&members, key).map(|m| m.value.clone());
        let get_str = |key: &str| -> Result<Option<String>, ReadError> {
            match field(key) {
                Some(r) => json_scan::parse_member(NAME, self.bytes, r, &format!("{path}.{key}")),
                None => Ok(None),
            }
        };
        let get_num = |key: &str| -> Result<Option<f64>, ReadError> {
            match field(key) {
                Some(r) => json_scan::parse_member(NAME, self.bytes, r, &format!("{path}.{key}")),
                None => Ok(None),
            }
        };
        let kind = get_str("type")?.unwrap_or_default();
        let name = get_str("name")?;
        let unit = get_str("unit")?.unwrap_or_else(|| "none".to_owned());
        let start = get_num("startValue")?.unwrap_or(0.0);
        let end = get_num("endValue")?;
        let unknown: Vec<&str> = members
            .iter()
            .map(|m| m.key.as_str())
            .filter(|k| !KNOWN_PROFILE_KEYS.contains(k))
            .collect();
        if !unknown.is_empty() {
            let keys = unknown.join(", ");
            warnings.add(NAME, "profile-keys", || {
                format!("profile keys not kept: {keys} (first: {path})")
            });
        }
        let source = self.source(name.as_deref(), start, end);
        let (vt, scale, seconds) = self.weight_type(&unit);
        let ctx = ProfileCtx {
            source,
            vt,
            scale,
            seconds,
            start,
        };
        match kind.as_str() {
            "sampled" => {
                let samples = field("samples").ok_or_else(|| missing(&path, "samples"))?;
                let weights = field("weights").ok_or_else(|| missing(&path, "weights"))?;
                let samples: Vec<Vec<i64>> =
                    json_scan::parse_member(NAME, self.bytes, samples, &format!("{path}.samples"))?;
                let weights: Vec<f64> =
                    json_scan::parse_member(NAME, self.bytes, weights, &format!("{path}.weights"))?;
                self.sampled(&path, &ctx, &samples, &weights)?;
            }
            "evented" => {
                let events = field("events").ok_or_else(|| missing(&path, "events"))?;
                let events: Vec<RawEvent> =
                    json_scan::parse_member(NAME, self.bytes, events, &format!("{path}.events"))?;
                self.evented(&path, &ctx, &events)?;
            }
            other => {
                return Err(ReadError::new(
                    NAME,
                    Place::Path(format!("{path}.type")),
                    format!("unknown profile type {other:?} (expected \"sampled\" or \"evented\")"),
                ))
            }
        }
        Ok(vt)
    }

    pub(super) fn sampled(
        &mut self,
        path: &str,
        ctx: &ProfileCtx,
        samples: &[Vec<i64>],
        weights: &[f64],
    ) -> Result<(), ReadError> {
        if samples.len() != weights.len() {
            return Err(ReadError::new(
                NAME,
                Place::Path(path.to_owned()),
                format!(
                    "expected samples.length ({}) to equal weights.length ({})",
                    samples.len(),
                    weights.len()
                ),
            ));
        }
        let mut elapsed = 0.0;
        for (j, (stack, &weight)) in samples.iter().zip(weights).enumerate() {
            if weight < 0.0 {
                return Err(ReadError::new(
                    NAME,
                    Place::Path(format!("{path}.weights[{j}]")),
                    format!("samples must have positive weights (found {weight})"),
                ));
            }
            let node = self.stack(&format!("{path}.samples[{j}]"), stack)?;
            self.sample(ctx, node, weight, elapsed)?;
            elapsed += weight;
        }
        Ok(())
    }

    pub(super) fn stack(
        &mut self,
        path: &str,
        frames: &[i64],
    ) -> Result<Option<StackIndex>, ReadError> {
        if frames.len() > self.options.limits.max_stack_depth {
            return Err(depth_error(path, self.options.limits.max_stack_depth));
        }
        let mut node = None;
        for (k, &f) in frames.iter().enumerate() {
            let loc = self.frame_location(&format!("{path}[{k}]"), f)?;
            node = Some(self.b.stack_node(node, loc));
        }
        Ok(node)
    }

    pub(super) fn frame_location(&self, path: &str, f: i64) -> Result<LocationIndex, ReadError> {
        usize::try_from(f)
            .ok()
            .and_then(|i| self.frames.get(i).copied())
            .ok_or_else(|| {
                ReadError::new(
                    NAME,
                    Place::Path(path.to_owned()),
                    format!(
                        "frame index {f} is out of range (shared.frames has {} frames)",
                        self.frames.len()
                    ),
                )
            })
    }

    /// Adds one sample of `weight` whose interval starts `offset` units after `startValue`.
    pub(super) fn sample(
        &mut self,
        ctx: &ProfileCtx,
        node: Option<StackIndex>,
        weight: f64,
        offset: f64,
    ) -> Result<(), ReadError> {
        check_sample_limit(&self.b, Format::Speedscope, self.options.limits.max_samples)?;
        let s = self.b.add_sample(ctx.source, node);
        self.b.set_value(s, ctx.vt, weight * ctx.scale);
        if let Some(count) = self.samples_vt.filter(|&c| c != ctx.vt) {
            self.b.set_value(s, count, 1.0);
        }
        if let Some(seconds) = ctx.seconds {
            self.b
                .set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(offset * seconds));
        }
        Ok(())
    }

    pub(super) fn evented(
        &mut self,
        path: &str,
        ctx: &ProfileCtx,
        events: &[RawEvent],
    ) -> Result<(), ReadError> {
        let mut open: Vec<(i64, StackIndex)> = Vec::new();
        let mut last_at: Option<f64> = None;
        for (k, ev) in events.iter().enumerate() {
            let place = || Place::Path(format!("{path}.events[{k}]"));
            if let Some(prev) = last_at {
                if ev.at < prev {
                    return Err(ReadError::new(
                        NAME,
                        place(),
                        format!(
                            "events must be in increasing order of `at` ({} after {prev})",
                            ev.at
                        ),
                    ));
                }
                if ev.at > prev {
                    if let Some(&(_, node)) = open.last() {
                        self.sample(ctx, Some(node), ev.at - prev, prev - ctx.start)?;
                    }
                }
            }
            last_at = Some(ev.at);
            match ev.kind.as_str() {
                "O" => {
                    if open.len() >= self.options.limits.max_stack_depth {
                        return Err(depth_error(
                            &format!("{path}.events[{k}]"),
                            self.options.limits.max_stack_depth,
                        ));
                    }
                    let loc =
                        self.frame_location(&format!("{path}.events[{k}].frame"), ev.frame)?;
                    let node = self.b.stack_node(open.last().map(|o| o.1), loc);
                    open.push((ev.frame, node));
                }
                "C" => match open.pop() {
                    Some((f, _)) if f == ev.frame => {}
                    Some((f, _)) => {
                        return Err(ReadError::new(
                            NAME,
                            place(),
                            format!(
                                "tried to leave frame {} while frame {f} was at the top",
                                ev.frame
                            ),
                        ))
                    }
                    None => {
                        return Err(ReadError::new(
                            NAME,
                            place(),
                            format!("tried to leave frame {} when no frame is open", ev.frame),
                        ))
                    }
                },
                other => {
                    return Err(ReadError::new(
                        NAME,
                        place(),
                        format!("unknown event type {other:?} (expected \"O\" or \"C\")"),
                    ))
                }
            }
        }
        if !open.is_empty() {
            return Err(ReadError::new(
                NAME,
                Place::Path(path.to_owned()),
                format!(
                    "the profile ends with {} frames still open (every \"O\" event needs a matching \"C\")",
                    open.len()
                ),
            ));
        }
        Ok(())
    }
}
