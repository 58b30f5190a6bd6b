//! Raw Gecko profiles (what Firefox hands the profiler before processing;
//! `docs/formats/firefox.md`),
//! turned into the processed shape that [`super::read()`] already understands.
//!
//! A Gecko thread stores each table as `{schema: {column: index}, data: [[row], …]}` and names
//! frames by a `location` string (`"name (file:line:column)"` for JS, `"0x…"` for native
//! addresses). Sub-process profiles sit in `processes` (possibly as JSON text, as are threads in
//! old versions), each with its own `meta.startTime`; their times are shifted onto the root's.
//! Processes are walked with an explicit work list, at most [`MAX_PROCESS_DEPTH`] deep.

use serde::Deserialize;
use serde_json::Value;

use super::err;
use super::schema::{
    Category, Flag, FrameTable, FuncTable, Meta, Samples, StackTable, Tables, Thread,
};
use crate::formats::json_scan;
use crate::formats::ReadError;
use crate::hash::HashMap;

/// The newest Gecko profile version read (`GECKO_PROFILE_VERSION` of the profiler).
pub const GECKO_PROFILE_VERSION: f64 = 36.0;
/// Deepest nesting of `processes` followed.
const MAX_PROCESS_DEPTH: usize = 16;

#[derive(Deserialize, Default)]
#[serde(default)]
struct GeckoDoc {
    meta: Option<GeckoMeta>,
    threads: Vec<Value>,
    processes: Vec<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct GeckoMeta {
    version: Option<f64>,
    start_time: Option<f64>,
    interval: Option<f64>,
    product: Option<String>,
    categories: Option<Vec<Category>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct GeckoThread {
    name: Option<String>,
    process_name: Option<String>,
    process_type: Option<Value>,
    pid: Option<Value>,
    tid: Option<Value>,
    string_table: Vec<String>,
    samples: GeckoTable,
    stack_table: GeckoTable,
    frame_table: GeckoTable,
    markers: GeckoTable,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct GeckoTable {
    schema: HashMap<String, usize>,
    data: Vec<Vec<Value>>,
}

impl GeckoTable {
    /// Column `name` as numbers (null / missing / non-numbers → `None`).
    fn numbers(&self, name: &str) -> Vec<Option<f64>> {
        let Some(&c) = self.schema.get(name) else {
            return vec![None; self.data.len()];
        };
        self.data
            .iter()
            .map(|row| row.get(c).and_then(Value::as_f64))
            .collect()
    }
}

/// A Gecko profile in processed shape: meta, and one thread (with its own tables) per thread.
pub(super) struct Converted {
    pub meta: Meta,
    pub threads: Vec<Thread>,
    pub markers: usize,
}

/// Parses `bytes` as a Gecko profile and converts every thread of every process.
pub(super) fn convert(bytes: &[u8]) -> Result<Converted, ReadError> {
    let root: GeckoDoc = serde_json::from_slice(bytes).map_err(|e| {
        err(
            "(Gecko profile)",
            format!("invalid JSON: {}", json_scan::json_problem_at(&e)),
        )
    })?;
    let meta = root.meta.as_ref().ok_or_else(|| err("meta", "missing"))?;
    let version = meta.version.unwrap_or(0.0);
    if version > GECKO_PROFILE_VERSION {
        return Err(err(
            "meta.version",
            format!(
                "Unable to parse a Gecko profile of version {version}. The most recent version \
                 understood by this build is version {GECKO_PROFILE_VERSION}."
            ),
        ));
    }
    let root_start = meta.start_time.unwrap_or(0.0);
    let out_meta = Meta {
        version: Some(Value::from(version)),
        preprocessed_profile_version: None,
        interval: meta.interval,
        start_time: meta.start_time,
        product: meta.product.clone(),
        categories: meta.categories.clone(),
        proftab_value_type: None,
    };
    let mut threads = Vec::new();
    let mut markers = 0;
    let mut work: Vec<(GeckoDoc, usize, String)> = vec![(root, 0, "".to_owned())];
    while let Some((doc, depth, path)) = work.pop() {
        let start = doc
            .meta
            .as_ref()
            .and_then(|m| m.start_time)
            .unwrap_or(root_start);
        let mut subprocesses = Vec::new();
        for (t, slot) in doc.threads.into_iter().enumerate() {
            let place = format!("{path}threads[{t}]");
            // Old versions put whole child-process profiles into `threads` as JSON text.
            if slot.is_string() {
                subprocesses.push((slot, format!("{place}.")));
                continue;
            }
            let thread: GeckoThread = from_slot(slot, &place)?;
            markers += thread.markers.data.len();
            threads.push(convert_thread(thread, start - root_start, &place)?);
        }
        for (p, slot) in doc.processes.into_iter().enumerate() {
            subprocesses.push((slot, format!("{path}processes[{p}].")));
        }
        if depth >= MAX_PROCESS_DEPTH && !subprocesses.is_empty() {
            return Err(err(
                path,
                format!("processes nested deeper than {MAX_PROCESS_DEPTH}"),
            ));
        }
        for (slot, place) in subprocesses.into_iter().rev() {
            let sub: GeckoDoc = from_slot(slot, &place)?;
            work.push((sub, depth + 1, place));
        }
    }
    Ok(Converted {
        meta: out_meta,
        threads,
        markers,
    })
}

/// A thread or process given as an object or as JSON text.
fn from_slot<T: for<'de> Deserialize<'de>>(slot: Value, place: &str) -> Result<T, ReadError> {
    let parsed = match slot {
        Value::String(text) => serde_json::from_str(&text),
        other => serde_json::from_value(other),
    };
    parsed.map_err(|e| err(place, format!("not a Gecko thread/process: {e}")))
}

/// Splits a Gecko frame location into `(name, file, line)`: `"f (file.js:12:3)"` gives
/// `("f", Some("file.js"), 12)`; anything else is a name on its own.
fn split_location(location: &str) -> (&str, Option<&str>, Option<f64>) {
    let Some((name, rest)) = location.strip_suffix(')').and_then(|l| l.rsplit_once(" (")) else {
        return (location, None, None);
    };
    // Strip up to two trailing `:number` parts (line, then column).
    let mut file = rest;
    let mut numbers = Vec::new();
    while numbers.len() < 2 {
        match file.rsplit_once(':') {
            Some((head, tail)) if tail.parse::<u32>().is_ok() => {
                numbers.push(tail);
                file = head;
            }
            _ => break,
        }
    }
    match numbers.last() {
        Some(line) if !file.is_empty() => (name, Some(file), line.parse().ok()),
        _ => (location, None, None),
    }
}

fn convert_thread(t: GeckoThread, shift_ms: f64, place: &str) -> Result<Thread, ReadError> {
    let mut strings = t.string_table;
    let mut intern: HashMap<String, usize> = HashMap::default();
    let locations = t.frame_table.numbers("location");
    let mut funcs = FuncTable::default();
    let mut func_of_location: HashMap<usize, usize> = HashMap::default();
    let mut frame_func = Vec::with_capacity(locations.len());
    for (f, loc) in locations.iter().enumerate() {
        let li = loc
            .filter(|&l| l >= 0.0 && (l as usize) < strings.len())
            .ok_or_else(|| {
                err(
                    format!("{place}.frameTable.data[{f}]"),
                    "location is not a string index",
                )
            })? as usize;
        let next = funcs.name.len();
        let func = *func_of_location.entry(li).or_insert(next);
        if func == next {
            let location = strings.get(li).cloned().unwrap_or_default();
            let (name, file, line) = split_location(&location);
            let mut id = |s: &str, strings: &mut Vec<String>| {
                *intern.entry(s.to_owned()).or_insert_with(|| {
                    strings.push(s.to_owned());
                    strings.len() - 1
                }) as f64
            };
            funcs.name.push(Some(id(name, &mut strings)));
            funcs.file_name.push(file.map(|f| id(f, &mut strings)));
            funcs.line_number.push(line);
            funcs.is_js.push(Flag(Some(file.is_some())));
            funcs.relevant_for_js.push(Flag(Some(false)));
            funcs.resource.push(None);
        }
        frame_func.push(Some(func as f64));
    }
    funcs.length = Some(funcs.name.len() as f64);
    let n_frames = locations.len();
    let frames = FrameTable {
        func: frame_func.into(),
        line: t.frame_table.numbers("line").into(),
        column: t.frame_table.numbers("column").into(),
        address: vec![None; n_frames].into(),
        inline_depth: vec![None; n_frames].into(),
        category: t.frame_table.numbers("category").into(),
        subcategory: t.frame_table.numbers("subcategory").into(),
        length: Some(n_frames as f64),
    };
    let stacks = StackTable {
        frame: t.stack_table.numbers("frame").into(),
        prefix: Some(t.stack_table.numbers("prefix").into()),
        prefix_offset: None,
        length: Some(t.stack_table.data.len() as f64),
    };
    let times: Vec<Option<f64>> = t
        .samples
        .numbers("time")
        .into_iter()
        .map(|x| x.map(|v| v + shift_ms))
        .collect();
    let samples = Samples {
        stack: t.samples.numbers("stack").into(),
        time: Some(times.into()),
        length: Some(t.samples.data.len() as f64),
        ..Samples::default()
    };
    Ok(Thread {
        name: t.name,
        process_name: t.process_name,
        process_type: t.process_type,
        pid: t.pid,
        tid: t.tid,
        samples: Some(samples),
        tables: Tables {
            string_array: Some(strings),
            stack_table: Some(stacks),
            frame_table: Some(frames),
            func_table: Some(funcs),
            ..Tables::default()
        },
        ..Thread::default()
    })
}

#[cfg(test)]
mod tests {
    use super::split_location;

    #[test]
    fn locations_split_into_name_file_line() {
        assert_eq!(
            split_location("frobnicate (chrome://blargh:34)"),
            ("frobnicate", Some("chrome://blargh"), Some(34.0))
        );
        assert_eq!(
            split_location("f (http://a.b/c.js:12:3)"),
            ("f", Some("http://a.b/c.js"), Some(12.0))
        );
        assert_eq!(split_location("0x100000f84"), ("0x100000f84", None, None));
        assert_eq!(
            split_location("Startup::XRE_Main"),
            ("Startup::XRE_Main", None, None)
        );
        assert_eq!(
            split_location("odd (no line)"),
            ("odd (no line)", None, None)
        );
    }
}
