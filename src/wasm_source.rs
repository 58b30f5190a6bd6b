//! The Source view's queries on the [`Viewer`]: the profile's files with their costs and one
//! file's lines, every value type at once, under the current filter and transforms.

use js_sys::{Array, Float64Array, Int32Array, Object, Uint32Array};
use wasm_bindgen::prelude::*;

use crate::analysis::source_files::FileCosts;
use crate::model::NO_INDEX;
use crate::wasm_view::{set, Viewer};

/// Per value type `t` and row `i`, `values(row)[t]` at `t * rows + i`.
fn by_type<T>(rows: &[T], types: usize, values: impl Fn(&T) -> &[f64]) -> Float64Array {
    let mut out = vec![0.0; rows.len() * types];
    for (i, r) in rows.iter().enumerate() {
        for (t, &v) in values(r).iter().enumerate().take(types) {
            out[t * rows.len() + i] = v;
        }
    }
    Float64Array::from(&out[..])
}

#[wasm_bindgen]
impl Viewer {
    /// The Source view of the file named `file` (or, when the profile has no such file, of the
    /// heaviest one): `{totals: Float64Array per value type, files: [names], fileSelf,
    /// fileTotal: Float64Array (type t of file i at t * files + i), file: the index of the
    /// file shown (-1 when no sample has a line), lines: Int32Array of its line numbers,
    /// self, total: Float64Array (type t of line i at t * lines + i), frameStart: Uint32Array
    /// (lines + 1 offsets into frames), frames: Uint32Array (the frame ids at each line)}`.
    /// Files come heaviest first in the current value type; lines by number.
    pub fn source(&self, file: &str) -> Object {
        let s = self.view.source_files();
        let types = s.totals.len();
        let o = Object::new();
        set(&o, "totals", Float64Array::from(&s.totals[..]));
        let names: Array = s.files.iter().map(|f| JsValue::from_str(&f.name)).collect();
        set(&o, "files", names);
        set(&o, "fileSelf", by_type(&s.files, types, |f| &f.self_value));
        set(
            &o,
            "fileTotal",
            by_type(&s.files, types, |f| &f.total_value),
        );
        let chosen = s
            .files
            .iter()
            .position(|f| f.name == file)
            .or((!s.files.is_empty()).then_some(0));
        set(&o, "file", chosen.map_or(-1, |i| i as i32));
        let empty = FileCosts {
            file: crate::model::StringId::NA,
            name: String::new(),
            self_value: Vec::new(),
            total_value: Vec::new(),
            lines: Vec::new(),
        };
        let f = chosen.map_or(&empty, |i| &s.files[i]);
        let numbers: Vec<i32> = f.lines.iter().map(|l| l.line).collect();
        set(&o, "lines", Int32Array::from(&numbers[..]));
        set(&o, "self", by_type(&f.lines, types, |l| &l.self_value));
        set(&o, "total", by_type(&f.lines, types, |l| &l.total_value));
        let frames_of = self.view.frames();
        let (mut start, mut frames) = (vec![0u32], Vec::new());
        for l in &f.lines {
            for &loc in &l.locations {
                let id = frames_of.of(Some(loc));
                if id != NO_INDEX && !frames[start[start.len() - 1] as usize..].contains(&id) {
                    frames.push(id);
                }
            }
            start.push(frames.len() as u32);
        }
        set(&o, "frameStart", Uint32Array::from(&start[..]));
        set(&o, "frames", Uint32Array::from(&frames[..]));
        o
    }
}

/// Whether the format registry recognizes `bytes` as a profile (gzip-compressed data counts as
/// one): the viewer takes a dropped file with a source extension (`.R`, `.go`, `.js`…) as
/// source text only when this is false.
#[wasm_bindgen(js_name = isProfile)]
pub fn is_profile(bytes: &[u8]) -> bool {
    crate::formats::gzip::is_gzip(bytes) || crate::formats::detect(bytes).is_some()
}
