//! The JSON shapes of Firefox profiles, as serde reads them. Every field is optional so that
//! every processed version (0 to the newest read) and the Gecko conversion parse into the same
//! structs; whether the tables a thread needs are there, and agree in length, is checked by the
//! reader afterwards. Numeric columns are [`Col`]s (null as NaN) so a column costs 8 bytes a
//! cell whatever the file declares.

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::Value;

/// A numeric column: JSON numbers, with null (and missing cells) as NaN — 8 bytes a cell,
/// whatever the input says about lengths.
#[derive(Clone, Debug, Default)]
pub(super) struct Col(pub(super) Vec<f64>);

impl Col {
    /// The cell at `i`; `None` for null or past the end.
    pub(super) fn cell(&self, i: usize) -> Option<f64> {
        self.0.get(i).copied().filter(|v| !v.is_nan())
    }

    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// Appends a cell (`None` for null).
    pub(super) fn push(&mut self, v: Option<f64>) {
        self.0.push(v.unwrap_or(f64::NAN));
    }
}

impl From<Vec<Option<f64>>> for Col {
    fn from(v: Vec<Option<f64>>) -> Self {
        Col(v.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect())
    }
}

impl<'de> Deserialize<'de> for Col {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Col;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of numbers or nulls")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Col, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element::<Option<f64>>()? {
                    out.push(v.unwrap_or(f64::NAN));
                }
                Ok(Col(out))
            }
        }
        d.deserialize_seq(Visit)
    }
}

/// A boolean cell that also accepts 0/1 and null.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Flag(pub(super) Option<bool>);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Flag;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a boolean")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag(Some(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Flag, E> {
                Ok(Flag(Some(v != 0)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Flag, E> {
                Ok(Flag(Some(v != 0)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Flag, E> {
                Ok(Flag(Some(v != 0.0)))
            }
            fn visit_unit<E>(self) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_none<E>(self) -> Result<Flag, E> {
                Ok(Flag(None))
            }
        }
        d.deserialize_any(Visit)
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Doc {
    pub(super) meta: Option<Meta>,
    pub(super) libs: Option<Value>,
    pub(super) shared: Option<Tables>,
    pub(super) threads: Option<Vec<ThreadSlot>>,
    pub(super) counters: Option<Vec<IgnoredAny>>,
    pub(super) processes: Option<IgnoredAny>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Meta {
    pub(super) version: Option<Value>,
    pub(super) preprocessed_profile_version: Option<f64>,
    pub(super) interval: Option<f64>,
    pub(super) start_time: Option<f64>,
    pub(super) product: Option<String>,
    pub(super) categories: Option<Vec<Category>>,
    pub(super) proftab_value_type: Option<ValueTypeJ>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ValueTypeJ {
    #[serde(rename = "type")]
    pub(super) ty: String,
    pub(super) unit: String,
}

#[derive(Deserialize, Default, Clone)]
#[serde(default)]
pub(super) struct Category {
    pub(super) name: Option<String>,
    pub(super) subcategories: Option<Vec<String>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Tables {
    pub(super) string_array: Option<Vec<String>>,
    pub(super) stack_table: Option<StackTable>,
    pub(super) frame_table: Option<FrameTable>,
    pub(super) func_table: Option<FuncTable>,
    pub(super) resource_table: Option<ResourceTable>,
    pub(super) native_symbols: Option<LengthOnly>,
    pub(super) sources: Option<Sources>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct StackTable {
    pub(super) frame: Col,
    pub(super) prefix: Option<Col>,
    pub(super) prefix_offset: Option<Col>,
    pub(super) length: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct FrameTable {
    pub(super) func: Col,
    pub(super) line: Col,
    pub(super) column: Col,
    pub(super) address: Col,
    pub(super) inline_depth: Col,
    pub(super) category: Col,
    pub(super) subcategory: Col,
    pub(super) length: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct FuncTable {
    pub(super) name: Col,
    #[serde(rename = "isJS")]
    pub(super) is_js: Vec<Flag>,
    #[serde(rename = "relevantForJS")]
    pub(super) relevant_for_js: Vec<Flag>,
    pub(super) resource: Col,
    pub(super) file_name: Col,
    pub(super) source: Col,
    pub(super) line_number: Col,
    pub(super) length: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ResourceTable {
    pub(super) name: Col,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Sources {
    pub(super) filename: Col,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct LengthOnly {
    pub(super) length: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Samples {
    pub(super) stack: Col,
    pub(super) time: Option<Col>,
    pub(super) time_deltas: Option<Col>,
    pub(super) weight: Option<Col>,
    pub(super) weight_type: Option<String>,
    pub(super) length: Option<f64>,
    #[serde(rename = "threadCPUDelta")]
    pub(super) thread_cpu_delta: Option<IgnoredAny>,
    pub(super) event_delay: Option<IgnoredAny>,
    pub(super) responsiveness: Option<IgnoredAny>,
    pub(super) argument_values: Option<IgnoredAny>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Thread {
    pub(super) name: Option<String>,
    pub(super) process_name: Option<String>,
    pub(super) process_type: Option<Value>,
    pub(super) pid: Option<Value>,
    pub(super) tid: Option<Value>,
    pub(super) is_main_thread: Option<bool>,
    pub(super) samples: Option<Samples>,
    pub(super) markers: Option<LengthOnly>,
    pub(super) js_allocations: Option<LengthOnly>,
    pub(super) native_allocations: Option<LengthOnly>,
    pub(super) js_tracer: Option<IgnoredAny>,
    pub(super) string_table: Option<IgnoredAny>,
    #[serde(flatten)]
    pub(super) tables: Tables,
}

/// A `threads` entry: an object, or (old Gecko profiles) a JSON string holding one.
pub(super) enum ThreadSlot {
    Object(Box<Thread>),
    Text,
}

impl<'de> Deserialize<'de> for ThreadSlot {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = ThreadSlot;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a thread object")
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<ThreadSlot, E> {
                Ok(ThreadSlot::Text)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<ThreadSlot, A::Error> {
                Thread::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|t| ThreadSlot::Object(Box::new(t)))
            }
        }
        d.deserialize_any(Visit)
    }
}
