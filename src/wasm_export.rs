//! Export from the viewer: the loaded (combined) profile written in a format, with what the
//! format cannot hold (the writer's warnings and the loss report of `formats::write_as`), so
//! the page can show the losses before the download.

use js_sys::{Array, Object, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::formats::{self, Warning, Written};
use crate::wasm_view::{set, Viewer};

#[wasm_bindgen]
impl Viewer {
    /// The loaded profile written as `format` (the current value type for formats that hold
    /// one); the warnings are dropped here: `exportWithWarnings` returns them.
    pub fn export(&self, format: &str) -> Result<Uint8Array, JsError> {
        let written = self.written(format)?;
        Ok(Uint8Array::from(&written.bytes[..]))
    }

    /// As `export`, returning `{bytes: Uint8Array, warnings: [{format, message, count}]}`:
    /// everything the format could not hold, each with the number of samples, locations,
    /// values or keys affected.
    #[wasm_bindgen(js_name = exportWithWarnings)]
    pub fn export_with_warnings(&self, format: &str) -> Result<Object, JsError> {
        let written = self.written(format)?;
        let o = Object::new();
        set(&o, "bytes", Uint8Array::from(&written.bytes[..]));
        let list: Array = written.warnings.iter().map(warning_object).collect();
        set(&o, "warnings", list);
        Ok(o)
    }
}

impl Viewer {
    fn written(&self, format: &str) -> Result<Written, JsError> {
        let f = formats::Format::from_name(format)
            .ok_or_else(|| JsError::new(&format!("unknown format {format}")))?;
        let vt = self.view.options().value_type;
        let options = formats::WriteOptions {
            value_type: Some(self.view.profile().value_type_names(vt).0.to_owned()),
            ..Default::default()
        };
        formats::write_as(f, self.view.profile(), &options)
            .map_err(|e| JsError::new(&e.to_string()))
    }
}

/// `{format, message, count}`, as the npm API's `Warning`.
fn warning_object(w: &Warning) -> JsValue {
    let o = Object::new();
    set(&o, "format", w.format);
    set(&o, "message", w.message.as_str());
    set(&o, "count", w.count as f64);
    o.into()
}
