//! Binaries for symbols, JavaScript side: the ELF files (and `.debug` files) given with a
//! perf.data, and a `/proc/kallsyms` text for its kernel frames, by the npm package
//! (`Profile.parseWith(bytes, name, {binaries, kallsyms})`) or dropped in the viewer
//! (`LoadedFiles.readWith`; both told apart from profiles by content), chosen as the CLI
//! chooses them ([`crate::formats::perf_data::binaries`]).

use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::formats::perf_data::binaries::{is_elf, is_kallsyms, read_with_files};
use crate::formats::perf_data::symbolize::Report;
use crate::formats::{self, Format};
use crate::wasm::Profile;
use crate::wasm_view::{set, LoadedFiles};

/// `(name, bytes)` of a JavaScript array of `{name, bytes: Uint8Array}` (none for
/// `undefined`).
pub(crate) fn binaries_of(list: &JsValue) -> Result<Vec<(String, Vec<u8>)>, JsError> {
    if list.is_undefined() || list.is_null() {
        return Ok(Vec::new());
    }
    if !Array::is_array(list) {
        return Err(JsError::new("binaries: expected an array of {name, bytes}"));
    }
    let get = |o: &JsValue, key: &str| Reflect::get(o, &JsValue::from_str(key)).ok();
    Array::from(list)
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let name = get(&b, "name").and_then(|n| n.as_string());
            let bytes = get(&b, "bytes").filter(|v| v.is_instance_of::<Uint8Array>());
            match (name, bytes) {
                (Some(n), Some(v)) => Ok((n, Uint8Array::from(v).to_vec())),
                _ => Err(JsError::new(&format!(
                    "binaries[{i}]: expected {{name: string, bytes: Uint8Array}}"
                ))),
            }
        })
        .collect()
}

/// What the symboliser did for the perf.data files of one load.
#[derive(Default)]
pub(crate) struct Symbols {
    /// perf.data files symbolised.
    files: usize,
    /// Binaries given.
    binaries: usize,
    symbolised: usize,
    unsymbolised: usize,
    /// Binaries not given, `path (build-id)`.
    missing: Vec<String>,
    /// Why kernel frames stayed unnamed (no kallsyms text, or why it did not fit).
    kernel: Option<String>,
}

impl Symbols {
    /// For a load with `files` for symbols (a kallsyms text among them is no binary).
    pub(crate) fn new(files: &[(String, Vec<u8>)]) -> Self {
        Symbols {
            binaries: files.iter().filter(|f| !is_kallsyms(&f.1)).count(),
            ..Symbols::default()
        }
    }

    /// Counts what the binaries did for one perf.data.
    pub(crate) fn add(&mut self, r: Report) {
        self.files += 1;
        self.symbolised += r.symbolised;
        self.unsymbolised += r.unsymbolised;
        if r.kernel_unsymbolised > 0 && self.kernel.is_none() {
            self.kernel = Some(r.kernel_reason().to_owned());
        }
        for m in r.missing {
            if !self.missing.contains(&m) {
                self.missing.push(m);
            }
        }
    }

    /// `{binaries, symbolised, unsymbolised, missing: [path (build-id)], kernel}`, or `null`
    /// when no perf.data was read; `kernel` says why kernel frames stayed unnamed (`null`
    /// when none did).
    pub(crate) fn to_js(&self) -> JsValue {
        if self.files == 0 {
            return JsValue::NULL;
        }
        let o = Object::new();
        set(&o, "binaries", self.binaries as f64);
        set(&o, "symbolised", self.symbolised as f64);
        set(&o, "unsymbolised", self.unsymbolised as f64);
        let missing: Array = self.missing.iter().map(|m| JsValue::from_str(m)).collect();
        set(&o, "missing", missing);
        let kernel = self
            .kernel
            .as_deref()
            .map_or(JsValue::NULL, JsValue::from_str);
        set(&o, "kernel", kernel);
        o.into()
    }
}

#[wasm_bindgen]
impl Profile {
    /// [`Profile::parse`] with options: `binaries: [{name, bytes}]`, the ELF files (and
    /// `.debug` files) that symbolise a perf.data, matched by build-id, then by file name, as
    /// `proftab --symbols DIR` does (frames of binaries not given stay `file+0xOFFSET`, and a
    /// warning names those binaries with their build-ids); `kallsyms`, the recording
    /// machine's `/proc/kallsyms` (a string or `Uint8Array`) that names kernel frames (also
    /// taken from among `binaries`, told by content); `maxDecompressedBytes`, which replaces
    /// the limits on compressed input.
    #[wasm_bindgen(js_name = parseWith)]
    pub fn parse_with(
        bytes: &[u8],
        file_name: Option<String>,
        options: &JsValue,
    ) -> Result<Profile, JsError> {
        let list = if options.is_object() {
            Reflect::get(options, &JsValue::from_str("binaries")).unwrap_or(JsValue::UNDEFINED)
        } else {
            JsValue::UNDEFINED
        };
        let mut binaries = binaries_of(&list)?;
        binaries.extend(kallsyms_of(options)?);
        let max = if options.is_object() {
            Reflect::get(options, &JsValue::from_str("maxDecompressedBytes"))
                .ok()
                .and_then(|v| v.as_f64())
        } else {
            None
        };
        let read = crate::wasm::read_options(file_name, max);
        let (parsed, _) =
            read_with_files(bytes, &read, &binaries).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Profile::from_parsed(parsed))
    }
}

#[wasm_bindgen]
impl LoadedFiles {
    /// [`LoadedFiles::read`] with `binaries` (`[{name, bytes}]`) that symbolise the perf.data
    /// files among `files`; the viewer's `info().symbols` says what they gave.
    #[wasm_bindgen(js_name = readWith)]
    pub fn read_with(
        files: &Array,
        names: &Array,
        binaries: &JsValue,
    ) -> Result<LoadedFiles, JsError> {
        LoadedFiles::read_all(files, names, &binaries_of(binaries)?)
    }
}

/// The `kallsyms` option of `parseWith` (a string or `Uint8Array`) as a named file; an error
/// when it is something else or not a `/proc/kallsyms` text.
fn kallsyms_of(options: &JsValue) -> Result<Option<(String, Vec<u8>)>, JsError> {
    if !options.is_object() {
        return Ok(None);
    }
    let value = Reflect::get(options, &JsValue::from_str("kallsyms")).unwrap_or(JsValue::UNDEFINED);
    let bytes = if value.is_undefined() || value.is_null() {
        return Ok(None);
    } else if let Some(text) = value.as_string() {
        text.into_bytes()
    } else if value.is_instance_of::<Uint8Array>() {
        Uint8Array::from(value).to_vec()
    } else {
        return Err(JsError::new("kallsyms: expected a string or a Uint8Array"));
    };
    if !is_kallsyms(&bytes) {
        return Err(JsError::new(
            "kallsyms: not a /proc/kallsyms text (its first lines are not `ADDRESS TYPE NAME \
             [MODULE]` lines)",
        ));
    }
    Ok(Some(("kallsyms".to_owned(), bytes)))
}

/// Whether `bytes` are a file for a perf.data's symbols, not a profile: an ELF file (a binary,
/// a `.debug` file) or a `/proc/kallsyms` text. The viewer keeps such a dropped file.
#[wasm_bindgen(js_name = isBinary)]
pub fn is_binary(bytes: &[u8]) -> bool {
    is_elf(bytes) || is_kallsyms(bytes)
}

/// Whether `bytes` (the start of a file) are a perf.data, also compressed, whose frames
/// binaries dropped later can symbolise.
#[wasm_bindgen(js_name = needsBinaries)]
pub fn needs_binaries(bytes: &[u8]) -> bool {
    formats::detect_through_compression(bytes) == Some(Format::PerfData)
}
