// The viewer's state: the one object `S` and the only functions that change it. Other modules
// read `S` and call these functions; each function changes `S`, then tells the modules that
// draw what depends on it through `on(topic, fn)` listeners (registered by app.js and the
// views), so this module imports no view and no view imports another. Topics:
//   profile    a profile was loaded (controls to fill)      loaded   S.loaded changed
//   toggles    order / icicle / bottom-up / table mode      bottomUp the flame graph flipped
//   view       S.view changed (arg: the previous view)      selected S.selected (arg: from)
//   analysis   S.table / S.totals of new options            status   the status line
//   search     S.flags (arg: {error})                       query    S.query set by the page
//   chips      transforms, facet or time range              refresh  the active view redraws
//   theme      S.dark, S.colors, S.diffColors               lines    S.lines arrived
//   tableMode  S.tableMode changed                          compare  S.compare's choices
//   compareResult  S.compare.result (arg: error text or null)  timeDomain  the time view's range
//   palette    S.compare.palette / S.diffColors          treeCompare  S.treeCompare changed
//   sourceChoice  S.sourceFile / S.sourceLine (the Source tab's file and line)
// Invariants: `S.loaded` implies `S.info`, `S.frames`, `S.table` (after the first options) are
// those of the worker's current profile; frame ids index `S.frames` and every per-frame array.
import { diffColors, frameColors } from "./colors.js";
import { bound, current, onEnter } from "./context.js";
import { matchedFrames, transformArgs } from "./transforms.js";
import { fromHash, hashNames, linkHash, toHash } from "./url.js";
import { call } from "./worker-client.js";

/** A viewer's state: element.js makes one per viewer; `S` is the current viewer's. */
export const newState = () => ({
  loaded: false,
  info: null,
  frames: null,
  colors: [],
  // Per frame id its name in the URL hash (url.js hashNames), and that name → frame id.
  hashNames: [],
  nameIndex: new Map(),
  writable: [],
  vt: 0,
  order: 0,
  icicle: false,
  // The flame graph shows the inverted call tree (innermost functions at the root).
  bottomUp: false,
  // What samples can be filtered by ([{name, values, samples}]), and the chosen
  // {index, value} (null: all samples).
  facets: [],
  facet: null,
  // The samples a query of the SQL tab chose ({ids: sample_ids, query}), or null: all.
  chosen: null,
  view: "flame",
  source: -1,
  transforms: [],
  timeRange: null,
  timeIsTime: false,
  query: "",
  flags: null,
  matched: 0,
  selected: -1,
  // The selected call path, when the selection is one node of a tree ({frames, inverted}:
  // frame ids from the top row down, of the bottom-up tree when `inverted`), else null.
  selectedPath: null,
  // The Call tree tab shows base / new / Δ columns of the Compare mode's sources.
  treeCompare: false,
  table: null,
  // The table's rows: 'functions', or 'lines' (source lines; `lines` holds the worker's
  // answer: labels, frame per row, self, total).
  tableMode: "functions",
  lines: null,
  totals: [0, 0, 0],
  timeDomainKnown: false,
  dark: false,
  // Compare mode: the sources of each side and the toggles (kept in the URL hash); `result`
  // is the worker's last answer ({summary, baseSelf, baseTotal, newSelf, newTotal}).
  compare: { base: [0], new: [1], normalized: true, sizeByBase: false, palette: "rb", result: null },
  diffColors: [],
  // The Source tab: the profile's file shown ("" = the selected function's, else the
  // heaviest) and the chosen line (0 = none).
  sourceFile: "",
  sourceLine: 0,
});

/** The current viewer's state (context.js): a live binding, rebound when a viewer is entered. */
export let S = newState();

/** Timings of the current viewer's last load, for tests and benchmarks (test-hook.js). */
export let timings = null;

/** The per-viewer parts of this module: the URL hash's zoom source, timer and shared link. */
let my = null;

onEnter((ctx) => {
  ctx.S ??= newState();
  ctx.timings ??= { loadStart: 0, firstDrawMs: 0, parseMs: 0, analyseMs: 0, optionsMs: 0 };
  ctx.hash ??= { timer: 0, linkData: "" };
  S = ctx.S;
  timings = ctx.timings;
  my = ctx.hash;
});

export const VIEWS = ["flame", "time", "sandwich", "compare", "calltree", "source", "sql"];

// ---------------------------------------------------------------- listeners

const listeners = new Map();

/** Calls `fn(arg)` whenever `topic` is emitted (in the order registered). */
export function on(topic, fn) {
  if (!listeners.has(topic)) listeners.set(topic, []);
  listeners.get(topic).push(fn);
}

/** Runs the listeners of `topic`; resolves when the asynchronous ones finished. */
function emit(topic, arg) {
  return Promise.all((listeners.get(topic) || []).map((fn) => fn(arg)));
}

// ---------------------------------------------------------------- readers

/** The unit of the chosen value type ('' before a load). */
export function unit() {
  const t = S.info?.valueTypes[S.vt];
  return t ? t.unit : "";
}

export function frameLabel(f) {
  return S.frames && f < S.frames.names.length ? S.frames.names[f] : "";
}

export function frameColor(f) {
  return S.colors[f] || "#bbb";
}

/** Compare mode needs two sources at least. */
export function canCompare() {
  return !!S.info && S.info.sources.length >= 2;
}

// ---------------------------------------------------------------- URL hash

// Only the page's viewer (element.js `page`) owns the address: an embedded one keeps its view
// state to itself. `my.linkData`: the hash parameters of the profile a shared link carries
// (url.js linkParams), while that profile is shown; else "".
const ownsAddress = () => current().page;

let zoomNow = () => null;

/** Where the hash gets the zoom of the flame graph on screen (fractions or null). */
export function zoomFrom(fn) {
  zoomNow = fn;
}

/** Writes the state into the URL hash soon (changes come in bursts). */
export function scheduleHash() {
  clearTimeout(my.timer);
  my.timer = setTimeout(bound(writeHash), 200);
}

/** Writes the state into the URL hash now (before the worker is replaced after a fault). */
export function flushHash() {
  clearTimeout(my.timer);
  writeHash();
}

function writeHash() {
  if (!S.loaded || !ownsAddress()) return;
  history.replaceState(null, "", `#${linkHash(toHash(S, { label: (f) => S.hashNames[f] ?? "", zoom: zoomNow() }), my.linkData)}`);
}

/** Keeps `params` (url.js linkParams, "" for none) in the hash from now on: the profile about to be shown came from a shared link, or not. */
export function keepLink(params) {
  my.linkData = params;
}

/** Shares the profile shown as `params` (url.js linkParams): the hash holds it from now on; the page's address. */
export function shareLink(params) {
  keepLink(params);
  writeHash();
  return location.href;
}

function hashState() {
  const p = { valueTypes: S.info.valueTypes, facets: S.facets, nameIndex: S.nameIndex, sourceCount: S.info.sources.length };
  return fromHash(ownsAddress() ? location.hash : "", p);
}

/** The zoom the URL hash asks for (fractions `[a, b]` of the flame graph), or null. */
export function hashZoom() {
  return hashState().zoom;
}

function applyHash() {
  const h = hashState();
  if (h.view !== undefined) S.view = h.view;
  if (h.vt !== undefined) S.vt = h.vt;
  if (h.query !== undefined) S.query = h.query;
  Object.assign(S, {
    order: h.order,
    icicle: h.icicle,
    bottomUp: h.bottomUp,
    facet: h.facet,
    tableMode: h.tableMode,
    treeCompare: h.treeCompare,
    timeRange: h.timeRange,
    transforms: h.transforms,
    sourceFile: h.sourceFile,
    sourceLine: h.sourceLine,
  });
  // The selected call path's function is its last (the selected node's own frame).
  if (h.selectedPath) {
    S.selectedPath = h.selectedPath;
    S.selected = h.selectedPath.frames.at(-1);
  }
  Object.assign(S.compare, h.compare);
  S.diffColors = diffColors(S.compare.palette, S.dark);
}

// ---------------------------------------------------------------- loading

/**
 * Takes the worker's answer to `load`: the profile's info, frames, facets and writable
 * formats; resets the options, then applies the URL hash. `query` is the search box's text.
 */
export function setProfile(r, query) {
  timings.parseMs = r.parseMs;
  timings.analyseMs = r.analyseMs;
  Object.assign(S, {
    info: r.info,
    frames: r.frames,
    facets: r.facets,
    facet: null,
    chosen: null,
    writable: r.writable,
    hashNames: hashNames(r.frames.names),
    colors: frameColors(r.frames, S.dark),
    vt: r.info.defaultValueType,
    transforms: [],
    timeRange: null,
    timeIsTime: false,
    selected: -1,
    selectedPath: null,
    source: -1,
    table: null,
    query,
  });
  S.nameIndex = new Map(S.hashNames.map((n, i) => [n, i]));
  const n = S.info.sources.length;
  Object.assign(S.compare, { base: [0], new: Array.from({ length: n - 1 }, (_, i) => i + 1), result: null });
  applyHash();
  current().preset?.();
  emit("profile");
  emit("toggles");
  emit("query");
}

/** Marks the profile shown (or, with false, the empty page back). */
export function setLoaded(loaded) {
  S.loaded = loaded;
  emit("loaded");
}

export function startTiming() {
  timings.loadStart = performance.now();
}

/** Records the time to the first drawn flame graph of a load. */
export function markFirstDraw() {
  timings.firstDrawMs = performance.now() - timings.loadStart;
}

// ---------------------------------------------------------------- options

/** Asks the worker for the table and totals under the current options; redraws everything. */
export async function applyOptions() {
  const n = S.info.sources.length;
  const sources = S.source < 0 ? [] : Array.from({ length: n }, (_, i) => (i === S.source ? 1 : 0));
  const t0 = performance.now();
  const [t0r, t1r] = S.timeRange || [Number.NaN, Number.NaN];
  const r = await call("options", {
    valueType: S.vt,
    order: S.order,
    sources,
    t0: t0r,
    t1: t1r,
    transforms: transformArgs(S.transforms),
    facet: S.facet ? S.facet.index : -1,
    facetValue: S.facet ? S.facet.value : "",
    sampleIds: S.chosen ? S.chosen.ids : null,
  });
  timings.optionsMs = performance.now() - t0;
  S.table = { self: r.self, total: r.total };
  S.totals = r.totals;
  S.timeDomainKnown = false;
  emit("analysis");
  await runSearch();
  emit("status");
  await emit("refresh");
  scheduleHash();
}

export function setValueType(vt) {
  S.vt = vt;
  applyOptions();
}

export function setSource(source) {
  S.source = source;
  applyOptions();
}

export function toggleOrder() {
  S.order = S.order ? 0 : 1;
  emit("toggles");
  applyOptions();
}

export function toggleIcicle() {
  S.icicle = !S.icicle;
  emit("toggles");
  scheduleHash();
}

export function toggleBottomUp() {
  S.bottomUp = !S.bottomUp;
  emit("toggles");
  emit("bottomUp");
  if (S.view !== "flame" && S.view !== "calltree") setView("flame");
  scheduleHash();
}

export function setTableMode(mode) {
  S.tableMode = mode === "lines" ? "lines" : "functions";
  emit("toggles");
  if (S.tableMode !== "lines") S.lines = null;
  emit("tableMode");
  scheduleHash();
}

/** The worker's source-line table (see setTableMode). */
export function setLines(lines) {
  S.lines = lines;
  emit("lines");
}

// ---------------------------------------------------------------- transforms and filters

export function addTransform(kind, frame) {
  S.transforms.push({ kind, frame });
  changedFilters();
}

export function removeTransform(k) {
  S.transforms.splice(k, 1);
  changedFilters();
}

/** Keeps the samples whose facet `index` (see S.facets) has value number `k`. */
export function chooseFacet(index, k) {
  const f = S.facets[index];
  if (!f || !(k < f.values.length)) return;
  S.facet = { index, value: f.values[k] };
  changedFilters();
}

export function clearFacet() {
  S.facet = null;
  changedFilters();
}

/** Keeps the samples whose sample_id is in `ids` (a Uint32Array), chosen by SQL `query`. */
export function chooseSamples(ids, query) {
  S.chosen = { ids, query };
  changedFilters();
}

export function clearChosenSamples() {
  S.chosen = null;
  changedFilters();
}

/** Keeps the samples in `[t0, t1]` (seconds), or all with null. */
export function setTimeRange(range) {
  S.timeRange = range;
  changedFilters();
}

function changedFilters() {
  emit("chips");
  applyOptions();
}

/** The functions each pattern chip hides: what the search matches (a bad pattern, none). */
export async function resolvePatterns() {
  for (const t of S.transforms) {
    if (t.pattern === undefined) continue;
    const r = await call("search", { query: t.pattern }).catch(() => ({ flags: [] }));
    t.frames = matchedFrames(r.flags);
  }
  S.transforms = S.transforms.filter((t) => t.pattern === undefined || t.frames.length > 0);
  emit("chips");
}

// ---------------------------------------------------------------- search

/** The search box's text changed. */
export function setQuery(query) {
  S.query = query;
  if (S.loaded) runSearch().then(scheduleHash);
}

/** Hides every function the current search matches, as one removable chip. */
export function hideMatches() {
  if (!S.flags || !S.query) return;
  S.transforms.push({ pattern: S.query, frames: matchedFrames(S.flags) });
  S.query = "";
  emit("query");
  changedFilters();
}

async function runSearch() {
  let error = "";
  if (!S.query) S.flags = null;
  else {
    try {
      const r = await call("search", { query: S.query });
      S.flags = r.flags;
      S.matched = r.matched;
    } catch (e) {
      S.flags = null;
      error = e.message;
    }
  }
  emit("search", { error });
}

// ---------------------------------------------------------------- view and selection

export function setView(view) {
  const was = S.view;
  S.view = VIEWS.includes(view) && (view !== "compare" || canCompare()) ? view : "flame";
  emit("view", was);
  if (S.loaded) emit("refresh");
  scheduleHash();
}

/**
 * Selects a function everywhere; `from` is true from the table, 'sandwich' from the menu,
 * 'tree' from the call tree. `path` ({frames, inverted}, see S.selectedPath) narrows the
 * selection to one call path of the flame graph and the call tree.
 */
export function selectFrame(frame, from, path = null) {
  S.selected = frame;
  S.selectedPath = frame >= 0 ? path : null;
  emit("selected", from);
  scheduleHash();
}

/** The Call tree tab's base / new / Δ columns on or off. */
export function toggleTreeCompare() {
  S.treeCompare = !S.treeCompare && canCompare();
  emit("treeCompare");
  scheduleHash();
}

/** The Source tab shows the profile's file `file` ("" for the default). */
export function setSourceFile(file) {
  S.sourceFile = file;
  S.sourceLine = 0;
  emit("sourceChoice");
  scheduleHash();
}

/** The Source tab's chosen line (0 for none). */
export function setSourceLine(line) {
  S.sourceLine = line;
  emit("sourceChoice");
  scheduleHash();
}

/** What the time view learnt of its domain: whether it is time in seconds. */
export function setTimeDomain(isTime) {
  S.timeIsTime = isTime;
  S.timeDomainKnown = true;
  emit("timeDomain");
}

export function setTheme(dark) {
  S.dark = dark;
  if (S.frames) S.colors = frameColors(S.frames, dark);
  S.diffColors = diffColors(S.compare.palette, dark);
  emit("theme");
}

// ---------------------------------------------------------------- Compare mode

/**
 * A compare control changed: 'normalized', 'size' and 'palette' flip their setting;
 * 'sources' sets the sources of `value.side` ('base' or 'new') to `value.picked`.
 */
export function setCompare(what, value) {
  const c = S.compare;
  if (what === "normalized") c.normalized = !c.normalized;
  else if (what === "size") c.sizeByBase = !c.sizeByBase;
  else if (what === "palette") c.palette = c.palette === "cb" ? "rb" : "cb";
  else if (what === "sources") c[value.side] = value.picked;
  if (what === "palette") {
    S.diffColors = diffColors(c.palette, S.dark);
    emit("compare");
    emit("palette");
    scheduleHash();
  } else refreshCompare();
}

/** Asks the worker for the comparison of the chosen sources. */
export async function refreshCompare() {
  if (S.view !== "compare") return;
  const c = S.compare;
  emit("compare");
  scheduleHash();
  try {
    c.result = await call("compare", { base: c.base, compared: c.new, normalized: c.normalized, sizeByBase: c.sizeByBase });
  } catch (e) {
    c.result = null;
    emit("compareResult", e.message);
    return;
  }
  emit("compareResult", null);
}
