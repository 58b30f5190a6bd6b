//! The JavaScript API: the only module that knows about JavaScript.
//!
//! `Profile.parse(bytes, fileName?)` reads any registered format; the tables then cross as
//! typed-array **copies** of the physical columns (made once per call, safe to keep after further
//! calls grow wasm memory), the string table once as a JS array, and small structured results
//! (`info`, warnings, value types, formats) through serde-wasm-bindgen. Bulk data never goes
//! through serde.
//!
//! Encodings seen from JavaScript (the constants are exported by the npm wrapper):
//! - row references (`sampleStack`, `stackPrefix`, `locationFunction`, …) are 0-based rows of
//!   the referenced table, `0xFFFFFFFF` (`NO_INDEX`) when absent; logical ids are row + 1;
//! - text cells are indices into `strings()`, whose entry 0 is `null` (NA);
//! - int cells use `-2147483648` (`INT_NA`) for NA, dbl cells NaN.

use js_sys::{Array, BigUint64Array, Float64Array, Int32Array, Int8Array, Uint32Array, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::analysis::summary::{self, TableSummary};
use crate::formats::pprof::prune::{pruned, Expressions};
use crate::formats::{self, Format, Limits, Parsed, ReadOptions, Warning, WriteOptions};
use crate::model::{self, ColumnData, LocationIndex, SourceIndex, StringId};

/// A parsed profile held in wasm memory, with the format it was read from and the reader's
/// warnings. Call `free()` when done (a FinalizationRegistry frees it eventually otherwise).
#[wasm_bindgen]
pub struct Profile {
    profile: model::Profile,
    format: Format,
    warnings: Vec<Warning>,
}

impl Profile {
    /// Wraps what a reader returned.
    pub fn from_parsed(parsed: Parsed) -> Profile {
        Profile {
            profile: parsed.profile,
            format: parsed.format,
            warnings: parsed.warnings,
        }
    }

    /// The model profile.
    pub fn model(&self) -> &model::Profile {
        &self.profile
    }
}

#[wasm_bindgen]
impl Profile {
    /// Reads `bytes` in whatever format their content shows. `fileName` goes into
    /// `sources.source_uri`; it does not influence detection. Throws an `Error` whose message
    /// names the format, the place and the problem. (`parseWith` takes options.)
    pub fn parse(bytes: &[u8], file_name: Option<String>) -> Result<Profile, JsError> {
        formats::read_any(bytes, &read_options(file_name, None))
            .map(Profile::from_parsed)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The name of the format the profile was read from (`"pprof"`, `"rprof"`, …).
    #[wasm_bindgen(getter)]
    pub fn format(&self) -> String {
        self.format.name().to_owned()
    }

    /// Number of samples (rows of `samples`).
    #[wasm_bindgen(getter, js_name = numSamples)]
    pub fn num_samples(&self) -> usize {
        self.profile.num_samples()
    }

    /// A copy with the stacks `go tool pprof` (and proftab's CLI views and viewer) show: pprof's
    /// `drop_frames`/`keep_frames` (meta `pprof.profile.drop_frames`/`keep_frames`) applied;
    /// an unchanged copy when the profile has none. An expression that does not compile prunes
    /// nothing and adds a warning, as in pprof. This profile keeps the raw stacks (writing it
    /// gives the expressions and the raw stacks back).
    pub fn pruned(&self) -> Profile {
        let e = Expressions::of(&self.profile);
        let (profile, warning) = pruned(self.profile.clone(), &e);
        let mut warnings = self.warnings.clone();
        warnings.extend(warning);
        Profile {
            profile,
            format: self.format,
            warnings,
        }
    }

    /// The reader's warnings: `[{ format, message, count }]`.
    pub fn warnings(&self) -> Result<JsValue, JsError> {
        to_js(&self.warnings)
    }

    /// A small summary: format, sources, sample count, value types with totals, default value
    /// type, row counts of every table (with their extension columns), meta rows and warnings.
    pub fn info(&self) -> Result<JsValue, JsError> {
        to_js(&Info::of(self))
    }

    /// The string table: entry `i` is the text of string id `i`; entry 0 is `null` (NA).
    pub fn strings(&self) -> Array {
        let out = Array::new();
        out.push(&JsValue::NULL);
        for s in self.profile.strings.as_slice().iter().skip(1) {
            out.push(&JsValue::from_str(s));
        }
        out
    }

    /// Checks the v2 rules of `docs/model.md` that the tables could break (names, lines, value types,
    /// stacks, extension columns); one message per violation, e.g.
    /// `functions.name row 3 (value ""): must not be empty`. Empty when valid.
    pub fn validate(&self) -> Vec<String> {
        self.profile
            .validate()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// The `meta` rows as `[key, value]` pairs, in order.
    pub fn meta(&self) -> Result<JsValue, JsError> {
        to_js(&summary::meta_rows(&self.profile))
    }

    /// The value types in order: `[{ type, unit, total, rows }]` (`rows` = samples that have
    /// a value of this type; `total` sums them).
    #[wasm_bindgen(js_name = valueTypes)]
    pub fn value_types(&self) -> Result<JsValue, JsError> {
        to_js(&value_type_infos(&self.profile))
    }

    /// One value per sample for value type `valueType` (its `type` name), NaN where a sample
    /// has no value of that type. Throws when the profile has no such type.
    pub fn values(&self, value_type: &str) -> Result<Float64Array, JsError> {
        let p = &self.profile;
        let column = p
            .value_type_index(value_type)
            .and_then(|vt| p.value_column(vt))
            .ok_or_else(|| JsError::new(&format!("no value type called {value_type:?}")))?;
        let cells: Vec<f64> = (0..column.values.len())
            .map(|s| column.get(s).unwrap_or(f64::NAN))
            .collect();
        Ok(Float64Array::from(cells.as_slice()))
    }

    /// An extension column: `table` is `samples`, `locations`, `functions`, `sources` (whose
    /// extension columns start with a dot, e.g. `.time`) or an extension table (`mappings`, …).
    /// Returns `{ kind, data }` (plus `present` for `u64`), or `undefined` when there is no
    /// such column. `data` by kind: `int` Int32Array, `dbl` Float64Array, `chr` Uint32Array of
    /// string ids, `lgl` Int8Array (1 true, 0 false, -1 NA), `u64` BigUint64Array with
    /// `present` a Uint8Array (1 where the cell has a value).
    #[wasm_bindgen(js_name = extColumn)]
    pub fn ext_column(&self, table: &str, name: &str) -> Result<JsValue, JsError> {
        let Some(data) = summary::ext_columns(&self.profile, table).and_then(|c| c.get(name))
        else {
            return Ok(JsValue::UNDEFINED);
        };
        let out = js_sys::Object::new();
        set_prop(&out, "kind", &JsValue::from_str(data.kind().name()))?;
        match data {
            ColumnData::Int(v) => set_prop(&out, "data", &v.typed())?,
            ColumnData::Dbl(v) => set_prop(&out, "data", &v.typed())?,
            ColumnData::Chr(v) => set_prop(&out, "data", &v.typed())?,
            ColumnData::Lgl(v) => {
                let cells: Vec<i8> = v.iter().map(|c| c.map_or(-1, i8::from)).collect();
                set_prop(&out, "data", &Int8Array::from(cells.as_slice()))?;
            }
            ColumnData::U64(v) => {
                let cells: Vec<u64> = v.iter().map(|c| c.unwrap_or(0)).collect();
                let present: Vec<u8> = v.iter().map(|c| u8::from(c.is_some())).collect();
                set_prop(&out, "data", &BigUint64Array::from(cells.as_slice()))?;
                set_prop(&out, "present", &Uint8Array::from(present.as_slice()))?;
            }
        }
        Ok(out.into())
    }

    /// Writes the profile as `format` (a name from `formats()`). `valueType` picks the value
    /// type for formats that hold one (default: the profile's default); `sourceId` (1-based)
    /// writes only that source's samples, for formats that hold one run (Rprof). Throws when
    /// the format is unknown or cannot be written, or the profile cannot be expressed in it.
    /// What the format cannot hold is reported by `writeWithWarnings`.
    pub fn write(
        &self,
        format: &str,
        value_type: Option<String>,
        source_id: Option<u32>,
    ) -> Result<Uint8Array, JsError> {
        let written = self.write_bytes(format, value_type, source_id)?;
        Ok(Uint8Array::from(written.bytes.as_slice()))
    }

    /// As `write`, returning `{ bytes, warnings }` with what the format could not hold: the
    /// writer's warnings, then the loss report (`formats::loss`), one `{format, message,
    /// count}` per kind of thing lost, counted.
    #[wasm_bindgen(js_name = writeWithWarnings)]
    pub fn write_with_warnings(
        &self,
        format: &str,
        value_type: Option<String>,
        source_id: Option<u32>,
    ) -> Result<JsValue, JsError> {
        let written = self.write_bytes(format, value_type, source_id)?;
        let out = js_sys::Object::new();
        set_prop(&out, "bytes", &Uint8Array::from(written.bytes.as_slice()))?;
        set_prop(&out, "warnings", &to_js(&written.warnings)?)?;
        Ok(out.into())
    }

    /// Every format proftab knows: `[{ name, read, write, extensions }]`.
    pub fn formats() -> Result<JsValue, JsError> {
        formats_list()
    }
}

/// A column copied into a new JavaScript typed array: row references and string ids as their
/// raw `u32`, numbers as they are.
trait TypedColumn {
    /// The typed array it becomes.
    type Array;
    /// The copy.
    fn typed(&self) -> Self::Array;
}

/// Numbers: copied as they are.
macro_rules! typed_plain {
    ($($t:ty => $array:ident),*) => {$(
        impl TypedColumn for [$t] {
            type Array = $array;
            fn typed(&self) -> $array {
                $array::from(self)
            }
        }
    )*};
}

typed_plain!(u32 => Uint32Array, i32 => Int32Array, f64 => Float64Array);

/// Row references and string ids: newtypes of a `u32`.
macro_rules! typed_u32_newtype {
    ($($t:ty),*) => {$(
        impl TypedColumn for [$t] {
            type Array = Uint32Array;
            fn typed(&self) -> Uint32Array {
                let raw: Vec<u32> = self.iter().map(|x| x.0).collect();
                Uint32Array::from(raw.as_slice())
            }
        }
    )*};
}

typed_u32_newtype!(StringId, SourceIndex, LocationIndex);

/// Getters of `Profile` that copy one physical column each: `jsName rust_name -> Array =
/// |profile| column;`, with the getter's doc comment before it.
macro_rules! column_getters {
    ($($(#[doc = $doc:literal])* $js:ident $name:ident -> $array:ident = |$p:ident| $column:expr;)*) => {
        #[wasm_bindgen]
        impl Profile {
            $(
                $(#[doc = $doc])*
                #[wasm_bindgen(js_name = $js)]
                pub fn $name(&self) -> $array {
                    let $p = &self.profile;
                    $column.typed()
                }
            )*
        }
    };
}

column_getters! {
    /// `sources.source_type` as string ids.
    sourceType source_type -> Uint32Array = |p| p.sources.source_type;
    /// `sources.source_uri` as string ids (0 = NA).
    sourceUri source_uri -> Uint32Array = |p| p.sources.source_uri;
    /// `sources.source_timestamp`: seconds since the Unix epoch, NaN when unknown.
    sourceTimestamp source_timestamp -> Float64Array = |p| p.sources.source_timestamp;
    /// `samples.source_id` as 0-based rows of `sources`.
    sampleSource sample_source -> Uint32Array = |p| p.samples.source;
    /// Each sample's innermost stack node (a row of the stack table), `NO_INDEX` for a sample
    /// without frames.
    sampleStack sample_stack -> Uint32Array = |p| p.samples.stack;
    /// The stack table's caller node of each node (`NO_INDEX` for an outermost frame);
    /// always `prefix[i] < i`.
    stackPrefix stack_prefix -> Uint32Array = |p| p.stacks.prefix.to_vec();
    /// The location (0-based row of `locations`) of each stack node.
    stackLocation stack_location -> Uint32Array = |p| p.stacks.location.to_u32s();
    /// The number of frames from the root to each stack node, inclusive (roots have 1).
    stackDepth stack_depth -> Uint32Array = |p| p.stack_depths();
    /// `locations.function_id` as 0-based rows of `functions`, `NO_INDEX` for NA.
    locationFunction location_function -> Uint32Array = |p| p.locations.function;
    /// `locations.line` (0 unknown, `INT_NA` NA).
    locationLine location_line -> Int32Array = |p| p.locations.line;
    /// `functions.name` as string ids.
    functionName function_name -> Uint32Array = |p| p.functions.name;
    /// `functions.system_name` as string ids.
    functionSystemName function_system_name -> Uint32Array = |p| p.functions.system_name;
    /// `functions.filename` as string ids.
    functionFilename function_filename -> Uint32Array = |p| p.functions.filename;
    /// `functions.start_line` (0 unknown, `INT_NA` NA).
    functionStartLine function_start_line -> Int32Array = |p| p.functions.start_line;
}

impl Profile {
    fn write_bytes(
        &self,
        format: &str,
        value_type: Option<String>,
        source_id: Option<u32>,
    ) -> Result<formats::Written, JsError> {
        let target = Format::from_name(format).ok_or_else(|| {
            JsError::new(&format!(
                "unknown format {format:?}; proftab writes {}",
                formats::writable_names().join(", ")
            ))
        })?;
        let options = WriteOptions {
            value_type,
            source_id: source_id.map(|id| id as usize),
            ..WriteOptions::default()
        };
        formats::write_as(target, &self.profile, &options).map_err(|e| JsError::new(&e.to_string()))
    }
}

/// Every format proftab knows: `[{ name, read, write, extensions }]` (same as
/// `Profile.formats()`).
#[wasm_bindgen]
pub fn formats() -> Result<JsValue, JsError> {
    formats_list()
}

fn formats_list() -> Result<JsValue, JsError> {
    let list: Vec<FormatInfo> = formats::ALL_FORMATS
        .iter()
        .map(|&f| FormatInfo {
            name: f.name(),
            read: f.can_read(),
            write: f.can_write(),
            extensions: f.extensions(),
        })
        .collect();
    to_js(&list)
}

/// Serializes a small value to a plain JS value (objects, not Maps; `None` as `null`).
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&e.to_string()))
}

fn set_prop(target: &js_sys::Object, key: &str, value: &JsValue) -> Result<(), JsError> {
    js_sys::Reflect::set(target, &JsValue::from_str(key), value)
        .map(|_| ())
        .map_err(|_| JsError::new(&format!("cannot set property {key}")))
}

#[derive(Serialize)]
struct FormatInfo {
    name: &'static str,
    read: bool,
    write: bool,
    extensions: &'static [&'static str],
}

#[derive(Serialize)]
struct ValueTypeInfo<'a> {
    #[serde(rename = "type")]
    value_type: &'a str,
    unit: &'a str,
    total: f64,
    rows: usize,
}

fn value_type_infos(p: &model::Profile) -> Vec<ValueTypeInfo<'_>> {
    p.values
        .iter()
        .map(|c| ValueTypeInfo {
            value_type: p.str(c.value_type),
            unit: p.str(c.unit),
            total: c.total(),
            rows: c.row_count(),
        })
        .collect()
}

#[derive(Serialize)]
struct SourceInfo<'a> {
    #[serde(rename = "type")]
    source_type: &'a str,
    uri: Option<&'a str>,
    timestamp: Option<f64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExtColumnInfo<'a> {
    name: &'a str,
    kind: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TableInfo<'a> {
    name: &'a str,
    rows: usize,
    ext_columns: Vec<ExtColumnInfo<'a>>,
}

impl<'a> From<TableSummary<'a>> for TableInfo<'a> {
    fn from(t: TableSummary<'a>) -> Self {
        let ext_columns = t.ext.map_or_else(Vec::new, |e| {
            e.columns
                .iter()
                .map(|c| ExtColumnInfo {
                    name: &c.name,
                    kind: c.data.kind().name(),
                })
                .collect()
        });
        TableInfo {
            name: t.name,
            rows: t.rows,
            ext_columns,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Info<'a> {
    format: &'static str,
    sources: Vec<SourceInfo<'a>>,
    samples: usize,
    value_types: Vec<ValueTypeInfo<'a>>,
    default_value_type: Option<&'a str>,
    tables: Vec<TableInfo<'a>>,
    meta: Vec<(&'a str, &'a str)>,
    warnings: &'a [Warning],
}

impl<'a> Info<'a> {
    fn of(w: &'a Profile) -> Self {
        let p = &w.profile;
        Info {
            format: w.format.name(),
            sources: source_infos(p),
            samples: p.num_samples(),
            value_types: value_type_infos(p),
            default_value_type: p.default_value_type().map(|vt| p.value_type_names(vt).0),
            tables: summary::tables(p)
                .into_iter()
                .map(TableInfo::from)
                .collect(),
            meta: summary::meta_rows(p),
            warnings: &w.warnings,
        }
    }
}

fn source_infos(p: &model::Profile) -> Vec<SourceInfo<'_>> {
    let s = &p.sources;
    s.source_type
        .iter()
        .zip(&s.source_uri)
        .zip(&s.source_timestamp)
        .map(|((&t, &u), &ts)| SourceInfo {
            source_type: p.str(t),
            uri: p.strings.get(u),
            timestamp: (!ts.is_nan()).then_some(ts),
        })
        .collect()
}

/// The read options of the npm package: `file_name` as the source URI; `max_decompressed_bytes`,
/// when given, replaces the limits on compressed input (1 GiB, and at most 300 times the
/// compressed size past 64 MiB) by that many bytes.
pub(crate) fn read_options(
    file_name: Option<String>,
    max_decompressed_bytes: Option<f64>,
) -> ReadOptions {
    let mut limits = Limits::default();
    if let Some(max) = max_decompressed_bytes {
        limits.max_decompressed_bytes = max as usize;
        limits.max_expansion_ratio = usize::MAX;
    }
    ReadOptions {
        source_uri: file_name,
        limits,
    }
}
