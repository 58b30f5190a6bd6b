// The viewer's Web Worker: reads files, parses and analyses them in wasm, and answers layout
// queries with typed-array columns. The page never parses; it only draws what comes back.
// A wasm trap (a panic, a failed allocation) leaves the instance unusable: its answer says
// `fatal`, and the page replaces this worker (worker-client.js).
import init, { isBinary, isProfile, LoadedFiles, needsBinaries, ParseSession, recordPanics, Viewer } from "./pkg/proftab.js";
import { isSourceName, MAX_SOURCE_BYTES } from "./sources.js";
import { columnarHandlers } from "./worker-columnar.js";
import { treeHandlers } from "./worker-tree.js";

// The instance's exports: its linear memory's size goes with each load's answer.
let wasm = null;
const ready = init({ module_or_path: new URL("./pkg/proftab_bg.wasm", import.meta.url) }).then((exports) => {
  wasm = exports;
  recordPanics();
});
let viewer = null;
// ELF files (binaries, `.debug` files) and kallsyms texts dropped so far, `{name, bytes}`:
// they symbolise the perf.data files loaded with them or after them.
const binaries = [];
// The files of the last load when one is a perf.data: binaries dropped later re-read them.
let perfInputs = null;

/** Keeps `b` as a binary for symbols (replacing one of the same name). */
function keepBinary(name, bytes) {
  const i = binaries.findIndex((k) => k.name === name);
  if (i >= 0) binaries.splice(i, 1);
  binaries.push({ name, bytes });
}

/** Reads a File or Blob chunk by chunk, reporting bytes read. */
async function readAll(file, index, count) {
  const total = file.size;
  const out = new Uint8Array(total);
  let done = 0;
  const reader = file.stream().getReader();
  let lastReport = 0;
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    out.set(value, done);
    done += value.length;
    const now = performance.now();
    if (now - lastReport > 50) {
      lastReport = now;
      progress("reading", done, total, index, count);
    }
  }
  progress("reading", done, total, index, count);
  return out;
}

/** Downloads `url`, reporting bytes as they arrive. */
async function fetchAll(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${res.statusText}`);
  const total = Number(res.headers.get("content-length")) || 0;
  const chunks = [];
  let done = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    chunks.push(value);
    done += value.length;
    progress("downloading", done, total, 0, 1);
  }
  const out = new Uint8Array(done);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function progress(phase, done, total, index, count) {
  postMessage({ kind: "progress", phase, done, total, index, count });
}

function errorText(e) {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Whether `e` is a fault after which this worker must not be used: a wasm trap (a panic, a
 * failed allocation, a stack overflow) or JavaScript out of memory.
 */
function isFault(e) {
  return e instanceof WebAssembly.RuntimeError || e instanceof RangeError;
}

/** The message of fault `e` in handler `kind`: what was being done and what failed. */
function faultText(e, kind, args) {
  const panic = self.proftabPanic;
  self.proftabPanic = undefined;
  const cause = panic || `${e.name}: ${e.message} (out of memory, or a bug)`;
  const names = args.files ? args.files.map((f) => f.name) : (args.urls || []).map((u) => u.split("/").pop());
  const what = kind === "load" ? `reading ${names.join(", ")}` : `answering "${kind}"`;
  return `proftab failed while ${what}: ${cause}`;
}

function frameData() {
  const f = viewer.frames();
  return { names: f.names, files: f.files, lines: f.lines, types: f.types };
}

const transfer = (o) =>
  Object.values(o)
    .filter((v) => ArrayBuffer.isView(v))
    .map((v) => v.buffer);

/** Bytes of a file read first, to tell what it is (every detector looks at less). */
const HEAD_BYTES = 1 << 20;

/** The first `HEAD_BYTES` of `file`. */
async function head(file) {
  return new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer());
}

/** A file's last four bytes as a little-endian number (a gzip file's ISIZE), or undefined. */
async function tail(file) {
  if (file.size < 4) return undefined;
  return new DataView(await file.slice(file.size - 4).arrayBuffer()).getUint32(0, true);
}

/**
 * The inputs of a load, each file told by its first MiB: `profiles` the files to read
 * (`{file, index}`, index into `files`) or `urls`, `roles[j]` what `files[j]` was taken for
 * ("profile", "binary" or "source"), `sources` the source texts, `kept` the binaries' names;
 * `perf` when a profile is a perf.data (such a load is read whole, kept for binaries to come).
 */
async function inputs({ files = [], urls = [], paths }) {
  const out = { profiles: [], urls, roles: [], sources: [], kept: [], perf: false };
  for (let i = 0; i < files.length; i++) {
    const h = await head(files[i]);
    // A kallsyms text may be named as a source (`kallsyms.txt`): content decides first.
    if (isBinary(h)) {
      keepBinary(files[i].name, await readAll(files[i], i, files.length));
      out.kept.push(files[i].name);
      out.roles.push("binary");
    } else if (isSourceName(files[i].name) && !isProfile(h)) {
      if (files[i].size <= MAX_SOURCE_BYTES) {
        const text = new TextDecoder().decode(await readAll(files[i], i, files.length));
        out.sources.push({ path: paths?.[i] || files[i].name, text });
      }
      out.roles.push("source");
    } else {
      out.perf ||= needsBinaries(h);
      out.profiles.push({ file: files[i], index: i, head: h });
      out.roles.push("profile");
    }
  }
  return out;
}

/** The name a URL's file is shown by. */
function urlName(u) {
  return decodeURIComponent(new URL(u, self.location.href).pathname.split("/").pop() || u);
}

/**
 * Reads the profiles of `input` whole (`{bytes, names, origin}`, origin: index into `files`,
 * -1 for a URL): for loads with a perf.data, which binaries dropped later read again.
 */
async function readWhole(input) {
  const read = { bytes: [], names: [], origin: [] };
  const count = input.profiles.length;
  for (const [k, p] of input.profiles.entries()) {
    read.bytes.push(await readAll(p.file, k, count));
    read.names.push(p.file.name);
    read.origin.push(p.index);
  }
  for (const u of input.urls) {
    read.bytes.push(await fetchAll(u));
    read.names.push(urlName(u));
    read.origin.push(-1);
  }
  return read;
}

/**
 * Reports `done` of `total` bytes of the current file fed to `session`; `mode` says what the
 * session does with them (src/wasm_stream.rs: "lines" parses them, "gunzip" inflates them,
 * "again" reads the samples of a file fed the second time: reported as samples parsed).
 */
function streamProgress(session, phase, done, total, index, count) {
  const mode = session.mode();
  if (mode === "again") {
    const [samples, samplesTotal] = [session.samplesRead(), session.samplesTotal()];
    postMessage({ kind: "progress", phase: "parsing", mode, samples, samplesTotal, done, total, index, count });
  } else {
    postMessage({ kind: "progress", phase, mode, done, total, index, count });
  }
}

/**
 * Feeds `stream`'s chunks to `session` (begun), reporting every 50 ms as `phase` ("reading"
 * or "downloading"); returns the bytes fed. Each call does one chunk's work, so the worker
 * never runs long without a report.
 */
async function feedStream(session, stream, phase, done, total, index, count) {
  const reader = stream.getReader();
  let lastReport = 0;
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    session.feed(value);
    done += value.length;
    const now = performance.now();
    if (now - lastReport > 50) {
      lastReport = now;
      streamProgress(session, phase, done, total, index, count);
    }
  }
  streamProgress(session, phase, done, total, index, count);
  return done;
}

/** Samples a parse step reads when the session has no timing yet (src/wasm_stream.rs `step`). */
const FIRST_STEP_SAMPLES = 20_000;
/** Milliseconds a parse step aims at: the worker reports between steps. */
const STEP_MS = 50;

/**
 * Parses the file fed to `session` (all of it fed) and ends it: a pprof profile in steps of
 * about STEP_MS, each a budget of samples sized from the last step's speed, with the samples
 * read reported between steps (no single long wasm call: real progress, and V8 can swap in
 * optimized code between calls); any other file in one step.
 */
function parseSteps(session, size, index, count) {
  progress("parsing", size, size, index, count);
  let budget = FIRST_STEP_SAMPLES;
  let first = true;
  for (;;) {
    const t0 = performance.now();
    if (session.step(budget)) break;
    const ms = performance.now() - t0;
    // The first step also reads the tables: its time says little of the samples' speed.
    if (!first) budget = Math.round(Math.min(Math.max((budget * STEP_MS) / Math.max(ms, 1), 1000), 2_000_000));
    first = false;
    const [done, total] = [session.samplesRead(), session.samplesTotal()];
    postMessage({ kind: "progress", phase: "parsing", samples: done, samplesTotal: total, done: size, total: size, index, count });
  }
  session.end();
}

/**
 * Reads the profiles of `input` as they arrive (src/wasm_stream.rs): no file is held whole
 * in JavaScript; gzip is inflated and folded stacks parsed chunk by chunk. Returns the
 * session (every file ended) and `origin` (index into `files` of each, -1 for a URL).
 */
async function readStreamed(input) {
  const session = new ParseSession();
  const origin = [];
  const count = input.profiles.length + input.urls.length;
  for (const [k, p] of input.profiles.entries()) {
    session.begin(p.file.name, p.file.size, await tail(p.file), true);
    session.feed(p.head);
    const rest = p.file.slice(p.head.length).stream();
    await feedStream(session, rest, "reading", p.head.length, p.file.size, k, count);
    // A large gzipped pprof file is read twice rather than held inflated: pass 1 the first
    // time, the samples the second (src/formats/stream.rs).
    if (session.wantsAgain()) await feedStream(session, p.file.stream(), "reading", 0, p.file.size, k, count);
    parseSteps(session, p.file.size, k, count);
    origin.push(p.index);
  }
  for (const [k, u] of input.urls.entries()) {
    const res = await fetch(u);
    if (!res.ok) throw new Error(`${u}: HTTP ${res.status} ${res.statusText}`);
    const total = Number(res.headers.get("content-length")) || 0;
    session.begin(urlName(u), total, undefined, false);
    await feedStream(session, res.body, "downloading", 0, total, input.profiles.length + k, count);
    parseSteps(session, total, input.profiles.length + k, count);
    origin.push(-1);
  }
  return { session, origin };
}

const handlers = {
  /**
   * Reads `{files, paths, urls}` and makes the viewer of the profiles among them. Answers
   * `{info, frames, facets, writable, parseMs, analyseMs, wasmMemoryBytes, sources, kept,
   * roles, failed}` (`parseMs`: reading and parsing, which overlap when the files stream)
   * (`failed`: `[{name, message, index}]`, the files not read, `index` into `files` or -1;
   * their role is "failed"), or `{sources, kept, roles}` when there was no profile to read.
   * Fails with every reader's message when no profile could be read.
   */
  async load(args) {
    const input = await inputs(args);
    const { roles, sources, kept } = input;
    // Binaries alone: the last perf.data is read again with them.
    const reread = !input.profiles.length && !input.urls.length && kept.length && perfInputs;
    if (!reread && !input.profiles.length && !input.urls.length && (sources.length || kept.length)) return { sources, kept, roles };
    const t0 = performance.now();
    let loaded;
    let origin;
    if (reread || input.perf) {
      const read = reread ? perfInputs : await readWhole(input);
      origin = read.origin;
      perfInputs = { bytes: [...read.bytes], names: [...read.names], origin: read.origin.map(() => -1) };
      const size = read.bytes.reduce((s, b) => s + b.length, 0);
      progress("parsing", size, size, 0, 1);
      loaded = LoadedFiles.readWith(read.bytes, read.names, binaries);
    } else {
      perfInputs = null;
      const streamed = await readStreamed(input);
      origin = streamed.origin;
      loaded = LoadedFiles.readSession(streamed.session, binaries);
    }
    const failed = reread ? [] : loaded.failed().map((f) => ({ ...f, index: origin[f.index] }));
    for (const f of failed) if (f.index >= 0) roles[f.index] = "failed";
    const parseMs = performance.now() - t0;
    progress("analysing", 0, 0, 0, 1);
    const next = Viewer.analyse(loaded);
    const analyseMs = performance.now() - t0 - parseMs;
    if (viewer) viewer.free();
    viewer = next;
    return {
      info: viewer.info(),
      frames: frameData(),
      facets: viewer.facets(),
      writable: Viewer.writable_formats(),
      parseMs,
      analyseMs,
      // Linear memory only grows: this is its peak so far, in bytes.
      wasmMemoryBytes: wasm.memory.buffer.byteLength,
      sources,
      kept,
      roles,
      failed,
    };
  },
  options({ valueType, order, sources, t0, t1, transforms, facet, facetValue, sampleIds }) {
    viewer.set_chosen_samples(sampleIds || undefined);
    viewer.set_options(valueType, order, new Uint8Array(sources), t0, t1, new Uint32Array(transforms), facet, facetValue);
    const table = viewer.function_table();
    const totals = viewer.totals();
    return { self: table.self, total: table.total, totals: Array.from(totals) };
  },
  lines() {
    return viewer.line_table();
  },
  source({ file }) {
    return viewer.source(file);
  },
  flame({ x0, x1, minWidth, maxDepth }) {
    return viewer.flame(x0, x1, minWidth, maxDepth);
  },
  invertedFlame({ x0, x1, minWidth, maxDepth }) {
    return viewer.inverted_flame(x0, x1, minWidth, maxDepth);
  },
  time({ x0, x1, minWidth, maxDepth }) {
    return viewer.time_order(x0, x1, minWidth, maxDepth);
  },
  sandwich({ frame, side, x0, x1, minWidth, maxDepth }) {
    return viewer.sandwich(frame, side, x0, x1, minWidth, maxDepth);
  },
  compare({ base, compared, normalized, sizeByBase }) {
    const summary = viewer.compare(new Uint32Array(base), new Uint32Array(compared), normalized, sizeByBase);
    const t = viewer.compare_table();
    return { summary, baseSelf: t.baseSelf, baseTotal: t.baseTotal, newSelf: t.newSelf, newTotal: t.newTotal };
  },
  compareFlame({ x0, x1, minWidth, maxDepth }) {
    return viewer.compare_flame(x0, x1, minWidth, maxDepth);
  },
  search({ query }) {
    return viewer.search(query);
  },
  path({ node }) {
    return { frames: viewer.path(node) };
  },
  export({ format }) {
    const { bytes, warnings } = viewer.exportWithWarnings(format);
    return { bytes, warnings };
  },
  ...treeHandlers(() => viewer),
  ...columnarHandlers(() => viewer),
};

// Every call waits for the wasm module (a call can come before it is instantiated).
self.onmessage = async (ev) => {
  const { id, kind, args } = ev.data;
  try {
    await ready;
    const result = await handlers[kind](args || {});
    postMessage({ id, ok: true, result }, result && typeof result === "object" ? transfer(result) : []);
  } catch (e) {
    const fatal = isFault(e);
    postMessage({ id, ok: false, error: fatal ? faultText(e, kind, args || {}) : errorText(e), fatal });
  }
};
