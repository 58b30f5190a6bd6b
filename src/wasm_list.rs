//! `Profile.sourceLines()` of the npm package: what `proftab list REGEX` prints, as typed
//! columns (one row per function, one per line of a function).

use js_sys::{Array, Float64Array, Int32Array, Object, Uint32Array};
use regex_lite::Regex;
use wasm_bindgen::prelude::*;

use crate::analysis::source::source_listing;
use crate::wasm::Profile;
use crate::wasm_view::set;

#[wasm_bindgen]
impl Profile {
    /// Self and total per source line of every function whose name `pattern` (a regular
    /// expression) matches, for the value type named `value_type` (default: the profile's
    /// default value type), as `proftab list` computes them (on the stacks as read: call
    /// `pruned()` first for the stacks `go tool pprof` shows). Returns `{valueType, unit,
    /// total, functionName, functionFile: string[], functionStartLine: Int32Array (0 unknown),
    /// functionSelf, functionTotal: Float64Array, lineFunction: Uint32Array (row of the
    /// function columns), line: Int32Array, lineSelf, lineTotal: Float64Array}`; functions by
    /// name then file, lines by number. Throws on a bad pattern or an unknown value type.
    #[wasm_bindgen(js_name = sourceLines)]
    pub fn source_lines(
        &self,
        pattern: &str,
        value_type: Option<String>,
    ) -> Result<Object, JsError> {
        let p = self.model();
        let regex = Regex::new(pattern)
            .map_err(|e| JsError::new(&format!("invalid pattern {pattern:?}: {e}")))?;
        let vt = match value_type {
            Some(name) => p
                .value_type_index(&name)
                .ok_or_else(|| JsError::new(&format!("no value type called {name:?}")))?,
            None => p
                .default_value_type()
                .ok_or_else(|| JsError::new("the profile has no value type"))?,
        };
        let listing = source_listing(p, vt, &regex, None);
        let fs = &listing.functions;
        let o = Object::new();
        let (ty, unit) = p.value_type_names(vt);
        set(&o, "valueType", ty);
        set(&o, "unit", unit);
        set(&o, "total", listing.total);
        let names: Array = fs.iter().map(|f| JsValue::from_str(&f.name)).collect();
        let files: Array = fs.iter().map(|f| JsValue::from_str(&f.file)).collect();
        set(&o, "functionName", names);
        set(&o, "functionFile", files);
        let starts: Vec<i32> = fs.iter().map(|f| f.start_line.unwrap_or(0)).collect();
        set(&o, "functionStartLine", Int32Array::from(&starts[..]));
        let column = |v: Vec<f64>| Float64Array::from(&v[..]);
        set(
            &o,
            "functionSelf",
            column(fs.iter().map(|f| f.self_value).collect()),
        );
        set(
            &o,
            "functionTotal",
            column(fs.iter().map(|f| f.total_value).collect()),
        );
        let rows = || {
            fs.iter()
                .enumerate()
                .flat_map(|(i, f)| f.lines.iter().map(move |l| (i, l)))
        };
        let of: Vec<u32> = rows().map(|(i, _)| i as u32).collect();
        let line: Vec<i32> = rows().map(|(_, l)| l.line).collect();
        set(&o, "lineFunction", Uint32Array::from(&of[..]));
        set(&o, "line", Int32Array::from(&line[..]));
        set(
            &o,
            "lineSelf",
            column(rows().map(|(_, l)| l.self_value).collect()),
        );
        set(
            &o,
            "lineTotal",
            column(rows().map(|(_, l)| l.total_value).collect()),
        );
        Ok(o)
    }
}
