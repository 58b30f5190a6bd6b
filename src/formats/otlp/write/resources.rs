//! Writer step: one `ResourceProfiles` per run of sources with equal resource attributes, one
//! `ScopeProfiles` per source (the reader merges per-type profiles only within a scope), and
//! the `source_attributes` rows they carry.

use prost::Message;

use super::Writer;
use crate::formats::otlp::proto::{
    AnyValue, ArrayValue, InstrumentationScope, KeyValue, Resource, ResourceProfiles,
    ScopeProfiles, Value,
};
use crate::formats::otlp::*;
use crate::model::{Cell, INT_NA, META_DEFAULT_TYPE};
use attrs::AttrValue;

impl Writer<'_> {
    pub(super) fn resource_profiles(&mut self, labels: &[Vec<i32>]) -> Vec<ResourceProfiles> {
        let n_sources = self.p.sources.source_type.len();
        let mut rows_of_source: Vec<Vec<usize>> = vec![Vec::new(); n_sources];
        for (s, src) in self.p.samples.source.iter().enumerate() {
            if let Some(v) = rows_of_source.get_mut(src.idx()) {
                v.push(s);
            }
        }
        let source_attrs = self.source_attribute_rows();
        let mut out: Vec<ResourceProfiles> = Vec::new();
        let mut last_resource: Option<Vec<u8>> = None;
        for (src, rows) in rows_of_source.iter().enumerate() {
            let attrs = source_attrs.get(src).map_or(&[][..], Vec::as_slice);
            let (resource, resource_key) = self.resource(src, attrs);
            if last_resource.as_ref() != Some(&resource_key) || out.is_empty() {
                out.push(resource);
                last_resource = Some(resource_key);
            }
            // One scope per source: the reader merges profiles only within a scope, so
            // profiles of different sources are never merged into one on reading.
            let mut scope = self.scope(src, attrs);
            let profiles = self.source_profiles(src, rows, labels, attrs);
            if profiles.len() > 1 {
                if let Some(s) = scope.scope.as_mut() {
                    s.attributes.push(KeyValue {
                        key: ATTR_SAMPLE_TYPE_ORDER.to_owned(),
                        value: Some(sample_type_order(profiles.len())),
                        key_strindex: 0,
                    });
                }
            }
            scope.profiles = profiles.iter().map(Message::encode_to_vec).collect();
            if let Some(rp) = out.last_mut() {
                rp.scope_profiles.push(scope);
            }
        }
        out
    }

    /// `source_attributes` rows per source: `(level, key, value, unit)`.
    fn source_attribute_rows(&mut self) -> Vec<Vec<(String, String, AttrValue, String)>> {
        let n = self.p.sources.source_type.len();
        let mut out = vec![Vec::new(); n];
        let Some(table) = self.p.ext_table(SOURCE_ATTRIBUTES) else {
            return out;
        };
        for row in 0..table.len() {
            let chr = |name: &str| match table.columns.cell(name, row) {
                Some(Cell::Chr(s)) if !s.is_na() => Some(self.p.str(s).to_owned()),
                _ => None,
            };
            let Some(Cell::Int(id)) = table.columns.cell("source_id", row) else {
                continue;
            };
            let slot = usize::try_from(id)
                .ok()
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| out.get_mut(i));
            let (Some(slot), Some(level), Some(key)) = (slot, chr("level"), chr("key")) else {
                continue;
            };
            let kind = chr("value_type").unwrap_or_else(|| "string".to_owned());
            let text = chr("value").unwrap_or_default();
            let Some(value) = AttrValue::from_text(&kind, &text) else {
                self.warnings.add(NAME, "source_attr", || {
                    format!("source_attributes row {}: value {text:?} is not a valid {kind}; not written", row + 1)
                });
                continue;
            };
            slot.push((level, key, value, chr("unit").unwrap_or_default()));
        }
        out
    }

    fn resource(
        &mut self,
        src: usize,
        attrs: &[(String, String, AttrValue, String)],
    ) -> (ResourceProfiles, Vec<u8>) {
        let attributes = key_values(attrs, "resource");
        let rp = ResourceProfiles {
            resource: (!attributes.is_empty()).then(|| Resource {
                attributes,
                dropped_attributes_count: 0,
                entity_refs: Vec::new(),
            }),
            scope_profiles: Vec::new(),
            schema_url: self.source_chr(src, source_cols::RESOURCE_SCHEMA_URL),
        };
        let key = rp.encode_to_vec();
        (rp, key)
    }

    fn scope(
        &mut self,
        src: usize,
        attrs: &[(String, String, AttrValue, String)],
    ) -> ScopeProfiles {
        let mut attributes = key_values(attrs, "scope");
        if let Some(default) = self.p.meta_value(META_DEFAULT_TYPE) {
            attributes.push(KeyValue {
                key: ATTR_DEFAULT_SAMPLE_TYPE.to_owned(),
                value: Some(AnyValue {
                    value: Some(Value::StringValue(default.to_owned())),
                }),
                key_strindex: 0,
            });
        }
        let name = self.source_chr(src, source_cols::SCOPE_NAME);
        let version = self.source_chr(src, source_cols::SCOPE_VERSION);
        ScopeProfiles {
            scope: Some(InstrumentationScope {
                name,
                version,
                attributes,
                dropped_attributes_count: 0,
            }),
            profiles: Vec::new(),
            schema_url: self.source_chr(src, source_cols::SCOPE_SCHEMA_URL),
        }
    }

    pub(super) fn source_chr(&self, src: usize, col: &str) -> String {
        match self.p.sources.ext.cell(col, src) {
            Some(Cell::Chr(s)) => self.p.str(s).to_owned(),
            _ => String::new(),
        }
    }

    pub(super) fn source_num(&self, src: usize, col: &str, meta_key: &str) -> Option<f64> {
        match self.p.sources.ext.cell(col, src) {
            Some(Cell::Dbl(v)) if v.is_finite() => Some(v),
            Some(Cell::Int(v)) if v != INT_NA => Some(f64::from(v)),
            _ => self.p.meta_value(meta_key).and_then(|v| v.parse().ok()),
        }
    }
}

/// The `KeyValue`s of one level.
fn key_values(attrs: &[(String, String, AttrValue, String)], level: &str) -> Vec<KeyValue> {
    attrs
        .iter()
        .filter(|(l, ..)| l == level)
        .map(|(_, key, value, _)| KeyValue {
            key: key.clone(),
            value: Some(attrs::encode(value)),
            key_strindex: 0,
        })
        .collect()
}

/// The `sample_type_order` attribute value: 0, 1, …, n − 1.
fn sample_type_order(n: usize) -> AnyValue {
    AnyValue {
        value: Some(Value::ArrayValue(ArrayValue {
            values: (0..n)
                .map(|i| AnyValue {
                    value: Some(Value::IntValue(i as i64)),
                })
                .collect(),
        })),
    }
}
