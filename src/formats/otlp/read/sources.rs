//! Reader step: the `sources` row of a group of profiles, with its extension columns, its
//! `source_attributes` rows, and — for the first source — the pprof facts kept in `meta`.

use super::dictionary::Dict;
use super::{proto, AttrValue, Reader, ScopeCtx, NANOS_PER_SECOND};
use crate::formats::otlp::attrs::{parse_string_array, string_array};
use crate::formats::otlp::layout::DecodedProfile;
use crate::formats::otlp::*;
use crate::formats::ReadError;
use crate::model::{Cell, SourceIndex};

impl Reader<'_> {
    /// Adds the `sources` row of a profile (and, for the first source, the pprof meta).
    pub(super) fn add_source(
        &mut self,
        ctx: &ScopeCtx,
        decoded: &DecodedProfile,
        dict: &Dict,
        base: u64,
        path: &str,
    ) -> Result<SourceIndex, ReadError> {
        let p = &decoded.profile;
        let ts = (base != 0).then(|| base as f64 / NANOS_PER_SECOND);
        let src = self
            .b
            .add_source(NAME, self.options.source_uri.as_deref(), ts);
        let pt = p.period_type.clone().unwrap_or_default();
        let period_type = dict.string(pt.type_strindex, || format!("{path}.period_type"))?;
        let period_unit = dict.string(pt.unit_strindex, || format!("{path}.period_type"))?;
        self.source_text_columns(ctx, p, src.idx(), period_type, period_unit);
        self.source_number_columns(p, src.idx(), base);
        let first = !self.first_source_done;
        if first {
            self.first_source_done = true;
            self.pprof_meta(p, period_type, period_unit);
        }
        let mut attributes = ctx.attributes.clone();
        self.comments(decoded, dict, first, &mut attributes, path)?;
        for (a, &ai) in p.attribute_indices.iter().enumerate() {
            let place = || format!("{path}.attribute_indices[{a}]");
            let Some((key, value, unit)) = dict.attribute(ai, place)? else {
                continue;
            };
            if first && PPROF_PROFILE_ATTRS.contains(&key) {
                self.profile_attr_to_meta(key, &value);
            } else {
                attributes.push(("profile", key.to_owned(), value, unit.to_owned()));
            }
        }
        self.source_attributes(src, &attributes);
        Ok(src)
    }

    fn source_text_columns(
        &mut self,
        ctx: &ScopeCtx,
        p: &proto::Profile,
        row: usize,
        period_type: &str,
        period_unit: &str,
    ) {
        let scope = ctx.scope.scope.as_ref();
        let cells = [
            (source_cols::PERIOD_TYPE, period_type.to_owned()),
            (source_cols::PERIOD_UNIT, period_unit.to_owned()),
            (source_cols::PROFILE_ID, hex(&p.profile_id)),
            (
                source_cols::PAYLOAD_FORMAT,
                p.original_payload_format.clone(),
            ),
            (source_cols::PAYLOAD, hex(&p.original_payload)),
            (
                source_cols::SCOPE_NAME,
                scope.map(|s| s.name.clone()).unwrap_or_default(),
            ),
            (
                source_cols::SCOPE_VERSION,
                scope.map(|s| s.version.clone()).unwrap_or_default(),
            ),
            (source_cols::SCOPE_SCHEMA_URL, ctx.scope.schema_url.clone()),
            (
                source_cols::RESOURCE_SCHEMA_URL,
                ctx.resource
                    .map(|r| r.schema_url.clone())
                    .unwrap_or_default(),
            ),
        ];
        for (col, text) in cells {
            if !text.is_empty() {
                let id = self.b.intern(&text);
                let _ = self.b.sources_mut().ext.set(col, row, Cell::Chr(id));
            }
        }
    }

    fn source_number_columns(&mut self, p: &proto::Profile, row: usize, base: u64) {
        let ext = &mut self.b.sources_mut().ext;
        if base != 0 {
            let _ = ext.set(source_cols::TIME_UNIX_NANO, row, Cell::U64(Some(base)));
        }
        if p.period != 0 {
            let _ = ext.set(source_cols::PERIOD, row, Cell::Dbl(p.period as f64));
        }
        if p.duration_nano != 0 {
            let duration = Cell::Dbl(p.duration_nano as f64);
            let _ = ext.set(source_cols::DURATION_NANOS, row, duration);
        }
        if p.dropped_attributes_count != 0 {
            let n = i32::try_from(p.dropped_attributes_count).unwrap_or(i32::MAX);
            let _ = ext.set(source_cols::DROPPED_ATTRIBUTES, row, Cell::Int(n));
        }
    }

    /// v1.8 `comment_strindices`: meta rows for the first source, else a profile attribute.
    fn comments(
        &mut self,
        decoded: &DecodedProfile,
        dict: &Dict,
        first: bool,
        attributes: &mut Vec<(&'static str, String, AttrValue, String)>,
        path: &str,
    ) -> Result<(), ReadError> {
        if decoded.comment_strindices.is_empty() {
            return Ok(());
        }
        let comments = decoded
            .comment_strindices
            .iter()
            .enumerate()
            .map(|(c, &si)| {
                let place = || format!("{path}.comment_strindices[{c}]");
                Ok(dict.string(si, place)?.to_owned())
            })
            .collect::<Result<Vec<String>, ReadError>>()?;
        if first {
            comments
                .iter()
                .for_each(|c| self.b.add_meta(ATTR_COMMENT, c));
        } else {
            let value = string_array(&comments);
            attributes.push(("profile", ATTR_COMMENT.to_owned(), value, String::new()));
        }
        Ok(())
    }

    fn pprof_meta(&mut self, p: &proto::Profile, period_type: &str, period_unit: &str) {
        if !period_type.is_empty() || !period_unit.is_empty() {
            self.b.set_meta(meta_keys::PERIOD_TYPE, period_type);
            self.b.set_meta(meta_keys::PERIOD_UNIT, period_unit);
        }
        if p.period != 0 {
            self.b.set_meta(meta_keys::PERIOD, &p.period.to_string());
        }
        if p.duration_nano != 0 {
            self.b
                .set_meta(meta_keys::DURATION_NANOS, &p.duration_nano.to_string());
        }
        if p.time_unix_nano != 0 {
            self.b
                .set_meta(meta_keys::TIME_NANOS, &p.time_unix_nano.to_string());
        }
    }

    fn profile_attr_to_meta(&mut self, key: &str, value: &AttrValue) {
        match value {
            AttrValue::Other("array", text) => {
                for s in parse_string_array(text) {
                    self.b.add_meta(key, &s);
                }
            }
            other => self.b.add_meta(key, &other.text()),
        }
    }

    fn source_attributes(
        &mut self,
        src: SourceIndex,
        attributes: &[(&str, String, AttrValue, String)],
    ) {
        for (level, key, value, unit) in attributes {
            let level = self.b.intern(level);
            let key = self.b.intern(key);
            let text = self.b.intern(&value.text());
            let kind = self.b.intern(value.kind());
            let unit = self
                .b
                .strings()
                .intern_opt((!unit.is_empty()).then_some(unit.as_str()));
            let _ = self.b.ext_table(SOURCE_ATTRIBUTES).push_row(&[
                ("source_id", Cell::Int(src.logical_id())),
                ("level", Cell::Chr(level)),
                ("key", Cell::Chr(key)),
                ("value", Cell::Chr(text)),
                ("value_type", Cell::Chr(kind)),
                ("unit", Cell::Chr(unit)),
            ]);
        }
    }
}
