// The viewer's Web Worker: reads files, parses and analyses them in wasm, and answers layout
// queries with typed-array columns. The page never parses; it only draws what comes back.
// A wasm trap (a panic, a failed allocation) leaves the instance unusable: its answer says
// `fatal`, and the page replaces this worker (worker-client.js).
import init, { isBinary, isProfile, LoadedFiles, needsBinaries, recordPanics, Viewer } from "./pkg/proftab.js";
import { isSourceName, MAX_SOURCE_BYTES } from "./sources.js";
import { columnarHandlers } from "./worker-columnar.js";
import { treeHandlers } from "./worker-tree.js";

const ready = init({ module_or_path: new URL("./pkg/proftab_bg.wasm", import.meta.url) }).then(recordPanics);
let viewer = null;
// ELF files (binaries, `.debug` files) dropped so far, `{name, bytes}`: they symbolise the
// perf.data files loaded with them or after them.
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

/**
 * The inputs of a load: `files` (with `paths`) sorted by what they are, then `urls`. `bytes`
 * and `names` are the profiles to read, `origin[i]` the index in `files` of `bytes[i]` (-1
 * for a URL), `roles[j]` what `files[j]` was taken for: "profile", "binary" or "source".
 */
async function inputs({ files = [], urls = [], paths }) {
  const out = { bytes: [], names: [], origin: [], roles: [], sources: [], kept: [] };
  for (let i = 0; i < files.length; i++) {
    const b = await readAll(files[i], i, files.length);
    if (isSourceName(files[i].name) && !isProfile(b)) {
      if (b.length <= MAX_SOURCE_BYTES) out.sources.push({ path: paths?.[i] || files[i].name, text: new TextDecoder().decode(b) });
      out.roles.push("source");
    } else if (isBinary(b)) {
      keepBinary(files[i].name, b);
      out.kept.push(files[i].name);
      out.roles.push("binary");
    } else {
      out.bytes.push(b);
      out.names.push(files[i].name);
      out.origin.push(i);
      out.roles.push("profile");
    }
  }
  for (const u of urls) {
    out.bytes.push(await fetchAll(u));
    out.names.push(decodeURIComponent(new URL(u, self.location.href).pathname.split("/").pop() || u));
    out.origin.push(-1);
  }
  return out;
}

const handlers = {
  /**
   * Reads `{files, paths, urls}` and makes the viewer of the profiles among them. Answers
   * `{info, frames, facets, writable, parseMs, analyseMs, sources, kept, roles, failed}`
   * (`failed`: `[{name, message, index}]`, the files not read, `index` into `files` or -1;
   * their role is "failed"), or `{sources, kept, roles}` when there was no profile to read.
   * Fails with every reader's message when no profile could be read.
   */
  async load(args) {
    const { bytes, names, origin, roles, sources, kept } = await inputs(args);
    let read = { bytes, names };
    // Binaries alone: the last perf.data is read again with them.
    const reread = !bytes.length && kept.length && perfInputs;
    if (reread) read = perfInputs;
    if (!read.bytes.length && (sources.length || kept.length)) return { sources, kept, roles };
    perfInputs = read.bytes.some((b) => needsBinaries(b)) ? { bytes: [...read.bytes], names: [...read.names] } : null;
    const size = read.bytes.reduce((s, b) => s + b.length, 0);
    progress("parsing", size, size, 0, 1);
    const t0 = performance.now();
    const loaded = LoadedFiles.readWith(read.bytes, read.names, binaries);
    const failed = reread ? [] : loaded.failed().map((f) => ({ ...f, index: origin[f.index] }));
    for (const f of failed) if (f.index >= 0) roles[f.index] = "failed";
    const parseMs = performance.now() - t0;
    progress("analysing", size, size, 0, 1);
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
