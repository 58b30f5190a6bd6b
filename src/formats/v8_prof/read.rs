//! Reading a preprocessed V8 tick log: the `code` table, then one sample per tick, each stack
//! resolved pair by pair into locations made on first use.

use serde::Deserialize;

use super::{LOCATION_CODE_KIND, NAME, SAMPLE_VM_STATE};
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::json_scan;
use crate::formats::read_common::{check_sample_limit, finish_parsed};
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{
    ext, Cell, ColumnKind, FunctionIndex, LocationIndex, ProfileBuilder, SourceIndex, StringId,
    ValueTypeIndex, META_DEFAULT_TYPE,
};

/// Top-level keys this reader knows (the others are named in a warning).
const KNOWN_TOP_KEYS: [&str; 3] = ["code", "functions", "ticks"];
/// Names of V8's `StateTag` values, by number (`v8-unwinder.h`).
const VM_STATES: [&str; 10] = [
    "JS",
    "GC",
    "PARSER",
    "BYTECODE_COMPILER",
    "COMPILER",
    "OTHER",
    "EXTERNAL",
    "ATOMICS_WAIT",
    "IDLE",
    "LOGGING",
];
/// Name of code entries without one.
const UNNAMED: &str = "(unknown)";
/// Largest address kept exactly by a JSON number (2^53).
const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

/// One entry of `code`.
#[derive(Deserialize)]
struct Code {
    #[serde(default)]
    name: String,
    #[serde(rename = "type")]
    code_type: Option<String>,
    kind: Option<String>,
}

/// One entry of `ticks`.
#[derive(Deserialize)]
struct Tick {
    tm: Option<f64>,
    vm: Option<f64>,
    #[serde(default)]
    s: Vec<f64>,
}

/// Reads a preprocessed `--prof` log.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let (members, mut warnings) = json_scan::open_object_document(NAME, bytes, &KNOWN_TOP_KEYS)?;
    let parse_array = |key: &str| -> Result<serde_json::Value, ReadError> {
        let m = json_scan::member(&members, key)
            .ok_or_else(|| ReadError::whole(NAME, format!("the file has no `{key}` array")))?;
        json_scan::parse_member(NAME, bytes, m.value.clone(), key)
    };
    let code: Vec<Code> = serde_json::from_value(parse_array("code")?)
        .map_err(|e| ReadError::new(NAME, Place::Path("code".into()), e.to_string()))?;
    let ticks: Vec<Tick> = serde_json::from_value(parse_array("ticks")?)
        .map_err(|e| ReadError::new(NAME, Place::Path("ticks".into()), e.to_string()))?;
    let mut b = ProfileBuilder::new();
    let count = b.value_type("samples", "count");
    b.set_meta(META_DEFAULT_TYPE, "samples");
    b.declare_sample_column(ext::samples::TIME, ColumnKind::Dbl);
    b.declare_sample_column(SAMPLE_VM_STATE, ColumnKind::Chr);
    let source = b.add_source(NAME, options.source_uri.as_deref(), None);
    let mut frames = Frames::new(b, code);
    for (i, tick) in ticks.iter().enumerate() {
        frames.tick(i, tick, source, count, options, &mut warnings)?;
    }
    finish_parsed(frames.b, Format::V8Prof, warnings)
}

/// The builder with the locations made so far.
struct Frames {
    b: ProfileBuilder,
    code: Vec<Code>,
    /// Location of each code entry, once used.
    by_code: Vec<Option<LocationIndex>>,
    /// Location per (function, code kind): code entries of one function and kind share it.
    by_function: HashMap<(FunctionIndex, Option<StringId>), LocationIndex>,
    /// Location per unresolved address.
    by_address: HashMap<u64, LocationIndex>,
    /// Scratch: the current stack, innermost first.
    stack: Vec<LocationIndex>,
}

impl Frames {
    fn new(b: ProfileBuilder, code: Vec<Code>) -> Self {
        let by_code = vec![None; code.len()];
        Frames {
            b,
            code,
            by_code,
            by_function: HashMap::default(),
            by_address: HashMap::default(),
            stack: Vec::new(),
        }
    }

    /// One sample for tick `i`.
    fn tick(
        &mut self,
        i: usize,
        tick: &Tick,
        source: SourceIndex,
        count: ValueTypeIndex,
        options: &ReadOptions,
        warnings: &mut Warnings,
    ) -> Result<(), ReadError> {
        let at = || Place::Path(format!("ticks[{i}].s"));
        check_sample_limit(&self.b, Format::V8Prof, options.limits.max_samples)?;
        if tick.s.len() % 2 != 0 {
            return Err(ReadError::new(
                NAME,
                at(),
                "the stack has an odd number of entries (they come in pairs)",
            ));
        }
        let max = options.limits.max_stack_depth;
        if tick.s.len() / 2 > max {
            return Err(ReadError::new(
                NAME,
                at(),
                format!("the stack is deeper than {max} frames (the stack depth limit)"),
            ));
        }
        self.stack.clear();
        for pair in tick.s.chunks_exact(2) {
            let loc = if pair[0] == -1.0 {
                let addr = as_exact_u64(pair[1]).ok_or_else(|| {
                    ReadError::new(
                        NAME,
                        at(),
                        format!(
                            "the unresolved address {} is not a non-negative integer",
                            pair[1]
                        ),
                    )
                })?;
                self.address_location(addr)
            } else {
                let index = as_exact_u64(pair[0])
                    .and_then(|x| usize::try_from(x).ok())
                    .filter(|x| *x < self.code.len())
                    .ok_or_else(|| {
                        ReadError::new(
                            NAME,
                            at(),
                            format!(
                                "code index {} is not in `code` ({} entries)",
                                pair[0],
                                self.code.len()
                            ),
                        )
                    })?;
                warnings.add(NAME, "offsets", || {
                    "the pc offsets within code entries (second number of each `s` pair) are not kept".to_owned()
                });
                self.code_location(index, warnings)
            };
            self.stack.push(loc);
        }
        let node = self.b.stack_leaf_first(&self.stack);
        let s = self.b.add_sample(source, node);
        self.b.set_value(s, count, 1.0);
        if let Some(tm) = tick.tm.filter(|t| t.is_finite()) {
            self.b
                .set_sample_ext(s, ext::samples::TIME, Cell::Dbl(tm / 1e6));
        }
        if let Some(vm) = tick.vm {
            let name = vm_state_name(vm, warnings);
            let id = self.b.intern(&name);
            self.b.set_sample_ext(s, SAMPLE_VM_STATE, Cell::Chr(id));
        }
        Ok(())
    }

    /// The location of a pc the tick processor could not resolve.
    fn address_location(&mut self, addr: u64) -> LocationIndex {
        if let Some(&loc) = self.by_address.get(&addr) {
            return loc;
        }
        let f = self.b.function_named(&format!("0x{addr:x}"), None);
        let loc = self.b.add_location(Some(f), 0);
        self.b
            .set_location_ext(loc, ext::locations::ADDRESS, Cell::U64(Some(addr)));
        self.by_address.insert(addr, loc);
        loc
    }

    /// The location of code entry `index`, made on first use.
    fn code_location(&mut self, index: usize, warnings: &mut Warnings) -> LocationIndex {
        if let Some(loc) = self.by_code[index] {
            return loc;
        }
        let code = &self.code[index];
        let code_type = code.code_type.clone();
        let kind = code.kind.clone().or_else(|| code_type.clone());
        let name = match code_type.as_deref() {
            Some("CPP") => strip_nm_letter(&code.name),
            _ => &code.name,
        };
        let f = match code_type.as_deref() {
            _ if name.is_empty() => {
                warnings.add(NAME, "unnamed", || {
                    format!(
                        "code entries without a name were named {UNNAMED} (first: code[{index}])"
                    )
                });
                self.b.function_named(UNNAMED, None)
            }
            Some("JS") => js_function(&mut self.b, name),
            Some(_) => self.b.function_named(name, None),
            None => {
                warnings.add(NAME, "untyped", || {
                    format!(
                        "code entries without a `type` were kept by name (first: code[{index}])"
                    )
                });
                self.b.function_named(name, None)
            }
        };
        let kind_id = kind.as_deref().map(|k| self.b.intern(k));
        let loc = match self.by_function.get(&(f, kind_id)) {
            Some(&loc) => loc,
            None => {
                let loc = self.b.add_location(Some(f), 0);
                if let Some(id) = kind_id {
                    self.b
                        .set_location_ext(loc, LOCATION_CODE_KIND, Cell::Chr(id));
                }
                if let Some(ft) = frame_type(code_type.as_deref()) {
                    let id = self.b.intern(ft);
                    self.b
                        .set_location_ext(loc, ext::locations::FRAME_TYPE, Cell::Chr(id));
                }
                self.by_function.insert((f, kind_id), loc);
                loc
            }
        };
        self.by_code[index] = Some(loc);
        loc
    }
}

/// The function of a `JS` code entry named `"name file:line:col"`; a name that does not split
/// so is kept whole.
fn js_function(b: &mut ProfileBuilder, text: &str) -> FunctionIndex {
    let Some((name, file, line, col)) = split_js_name(text) else {
        return b.function_named(text, None);
    };
    let shown = if name.is_empty() {
        format!("(anonymous {file}:{line})")
    } else {
        name.to_owned()
    };
    let f = b.function_at(&shown, Some(file), line);
    let _ = b
        .functions_mut()
        .ext
        .set(ext::functions::START_COLUMN, f.idx(), Cell::Int(col));
    f
}

/// `"name file:line:col"` → (name, file, line, col); the name may be empty.
fn split_js_name(text: &str) -> Option<(&str, &str, i32, i32)> {
    let (name, place) = text.rsplit_once(' ')?;
    let (rest, col) = place.rsplit_once(':')?;
    let (file, line) = rest.rsplit_once(':')?;
    let line: i32 = line.parse().ok().filter(|l| *l >= 0)?;
    let col: i32 = col.parse().ok().filter(|c| *c >= 0)?;
    Some((name, file, line, col))
}

/// Older tick processors wrote C++ names as nm printed them, `"T symbol"`; the letter goes.
fn strip_nm_letter(name: &str) -> &str {
    match name.as_bytes() {
        [b't' | b'T' | b'w' | b'W', b' ', ..] => &name[2..],
        _ => name,
    }
}

/// OpenTelemetry's `profile.frame.type` of a code entry type, where one applies.
fn frame_type(code_type: Option<&str>) -> Option<&'static str> {
    match code_type? {
        "JS" => Some("v8js"),
        "CPP" | "SHARED_LIB" => Some("native"),
        _ => None,
    }
}

/// The `StateTag` name of `vm`, or its number as text (warning).
fn vm_state_name(vm: f64, warnings: &mut Warnings) -> String {
    let known = as_exact_u64(vm)
        .and_then(|v| usize::try_from(v).ok())
        .and_then(|v| VM_STATES.get(v));
    match known {
        Some(name) => (*name).to_owned(),
        None => {
            warnings.add(NAME, "vm", || {
                format!("ticks with a VM state V8 does not define were kept with its number (first: {vm})")
            });
            crate::formats::write_common::format_number(vm)
        }
    }
}

/// `x` as a u64 when it is a non-negative integer a JSON number holds exactly.
fn as_exact_u64(x: f64) -> Option<u64> {
    (x.fract() == 0.0 && (0.0..=MAX_EXACT).contains(&x)).then_some(x as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_names_split() {
        assert_eq!(
            split_js_name("fib /a/w.js:2:13"),
            Some(("fib", "/a/w.js", 2, 13))
        );
        assert_eq!(
            split_js_name(" node:internal/x:1:1"),
            Some(("", "node:internal/x", 1, 1))
        );
        assert_eq!(split_js_name("noplace"), None);
        assert_eq!(strip_nm_letter("T _start"), "_start");
        assert_eq!(strip_nm_letter("v8::x"), "v8::x");
    }
}
