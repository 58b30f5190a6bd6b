// The URL hash ↔ view state mapping, in one place. Pure functions (no DOM, no globals but
// URLSearchParams), so a node test can round-trip them. The hash keeps what a user would
// want to share or reload: view, value type, toggles, sample filter, search, table mode,
// transforms (by function name), time range, compare choices and the zoom of the flame graph.
//
//   view=flame|time|sandwich|compare|calltree  type=<value type>  order=alpha  icicle=1
//   bottomup=1 (also the Call tree's "Inverted")  treecompare=1 (Call tree: base/new/Δ)
//   filter=<facet>=<value>  search=<query>  table=lines  focus|hide|rec|drec=<function>
//   hidematch=<pattern>  range=<t0>,<t1>  zoom=<a>,<b> (fractions of the domain)
//   base=0&new=1,2  absolute=1  width=base  palette=cb   (Compare mode only)
//   file=<profile's file name>  line=<n>   (the Source tab's file and line)
//   path=<function>&path=<function>…  pathinv=1   (the selected call path, from the top row
//   down, of the inverted tree with pathinv; S.selectedPath)
// A <function> is the frame's name as hashNames gives it: its display name, with `#2`, `#3`…
// after the second and later frames that share one display name, so every frame has its own.
import { TRANSFORMS } from "./transforms.js";

/**
 * The hash (without `#`) for the state `s` (the shape of state.js's `S`). `label(frame)`
 * names a frame; `zoom` is the zoomed part of the flame graph as fractions `[a, b]`, or null.
 */
export function toHash(s, { label, zoom = null }) {
  const h = new URLSearchParams();
  h.set("view", s.view);
  const t = s.info.valueTypes[s.vt];
  if (t) h.set("type", t.type);
  if (s.order) h.set("order", "alpha");
  if (s.icicle) h.set("icicle", "1");
  if (s.bottomUp) h.set("bottomup", "1");
  if (s.facet) h.set("filter", `${s.facets[s.facet.index].name}=${s.facet.value}`);
  if (s.query) h.set("search", s.query);
  if (s.tableMode === "lines") h.set("table", "lines");
  if (s.treeCompare) h.set("treecompare", "1");
  for (const tr of s.transforms) {
    if (tr.pattern === undefined) h.append(TRANSFORMS[tr.kind][2], label(tr.frame));
    else h.append("hidematch", tr.pattern);
  }
  if (s.timeRange) h.set("range", s.timeRange.map((x) => x.toPrecision(10)).join(","));
  if (s.view === "compare") compareToHash(h, s.compare);
  if (s.sourceFile) h.set("file", s.sourceFile);
  if (s.sourceLine > 0) h.set("line", String(s.sourceLine));
  if (s.selectedPath) {
    for (const f of s.selectedPath.frames) h.append("path", label(f));
    if (s.selectedPath.inverted) h.set("pathinv", "1");
  }
  if (zoom) h.set("zoom", `${zoom[0].toPrecision(8)},${zoom[1].toPrecision(8)}`);
  return h.toString();
}

/** Compare state in the hash: `base=0&new=1,2` (source rows), `absolute=1`, `width=base`, `palette=cb`. */
function compareToHash(h, c) {
  h.set("base", c.base.join(","));
  h.set("new", c.new.join(","));
  if (!c.normalized) h.set("absolute", "1");
  if (c.sizeByBase) h.set("width", "base");
  if (c.palette !== "rb") h.set("palette", c.palette);
}

/**
 * The state a hash asks for, checked against the loaded profile `p` = {valueTypes, facets,
 * nameIndex (name → frame), sourceCount}. Fields the hash cannot set are left out (the page
 * keeps its own): `view` and `query` when absent, `vt` when the type is unknown, `compare.base`
 * and `compare.new` when not valid source rows. Transforms name functions the profile lacks
 * are dropped; `hidematch` patterns come back as `{pattern, frames: []}` (resolved later).
 */
export function fromHash(hash, p) {
  const h = new URLSearchParams(hash.replace(/^#/, ""));
  const range = (h.get("range") || "").split(",").map(Number);
  const out = {
    order: h.get("order") === "alpha" ? 1 : 0,
    icicle: h.get("icicle") === "1",
    bottomUp: h.get("bottomup") === "1",
    facet: facetFromHash(h.get("filter"), p.facets),
    tableMode: h.get("table") === "lines" ? "lines" : "functions",
    treeCompare: h.get("treecompare") === "1" && p.sourceCount >= 2,
    timeRange: range.length === 2 && range.every(Number.isFinite) && range[1] > range[0] ? range : null,
    compare: compareFromHash(h, p.sourceCount),
    transforms: transformsFromHash(h, p.nameIndex),
    zoom: zoomFromHash(h.get("zoom")),
    sourceFile: h.get("file") || "",
    sourceLine: Math.max(0, Number.parseInt(h.get("line") || "0", 10) || 0),
    selectedPath: pathFromHash(h, p.nameIndex),
  };
  if (h.has("view")) out.view = h.get("view");
  const vt = p.valueTypes.findIndex((t) => t.type === h.get("type"));
  if (vt >= 0) out.vt = vt;
  if (h.has("search")) out.query = h.get("search");
  return out;
}

/** `name=value` as a facet choice `{index, value}`, when the profile has it. */
function facetFromHash(text, facets) {
  if (!text) return null;
  const eq = text.indexOf("=");
  const [name, value] = [text.slice(0, eq), text.slice(eq + 1)];
  const index = facets.findIndex((f) => f.name === name && f.values.includes(value));
  return eq > 0 && index >= 0 ? { index, value } : null;
}

function compareFromHash(h, sourceCount) {
  const rows = (key) => (h.get(key) || "").split(",").filter(Boolean).map(Number);
  const valid = (list) => list.length > 0 && list.every((i) => Number.isInteger(i) && i >= 0 && i < sourceCount);
  const c = {
    normalized: h.get("absolute") !== "1",
    sizeByBase: h.get("width") === "base",
    palette: h.get("palette") === "cb" ? "cb" : "rb",
  };
  if (valid(rows("base"))) c.base = rows("base");
  if (valid(rows("new"))) c.new = rows("new");
  return c;
}

function transformsFromHash(h, nameIndex) {
  const out = [];
  for (const [key, value] of h) {
    const kind = TRANSFORMS.findIndex((t) => t[2] === key);
    const frame = nameIndex.get(value);
    if (kind >= 0 && frame !== undefined) out.push({ kind, frame });
    if (key === "hidematch" && value) out.push({ pattern: value, frames: [] });
  }
  return out;
}

/** The `path` keys as a call path `{frames, inverted}`, when the profile has every function. */
function pathFromHash(h, nameIndex) {
  const frames = h.getAll("path").map((name) => nameIndex.get(name));
  if (!frames.length || frames.some((f) => f === undefined)) return null;
  return { frames, inverted: h.get("pathinv") === "1" };
}

function zoomFromHash(z) {
  if (!z) return null;
  const [a, b] = z.split(",").map(Number);
  return Number.isFinite(a) && Number.isFinite(b) && b > a ? [a, b] : null;
}

/**
 * One name per frame for the hash, in frame order: the display name, or `name#k` for the k-th
 * frame (k ≥ 2) with a display name already given (skipping a `name#k` another frame has as its
 * display name). Frames are keyed by function name, so duplicates are rare (function-less
 * locations whose names repeat), but a hash must name the one frame it meant.
 */
export function hashNames(names) {
  const taken = new Set(names);
  const seen = new Map();
  return names.map((name) => {
    const count = (seen.get(name) || 0) + 1;
    seen.set(name, count);
    if (count === 1) return name;
    let k = count;
    while (taken.has(`${name}#${k}`)) k++;
    taken.add(`${name}#${k}`);
    return `${name}#${k}`;
  });
}

/** The zoomed part `[vx0, vx1]` of `domain` as fractions, or null when all of it shows. */
export function zoomFractions([d0, d1], vx0, vx1) {
  const span = d1 - d0;
  return span > 0 && (vx0 > d0 || vx1 < d1) ? [(vx0 - d0) / span, (vx1 - d0) / span] : null;
}

/** Fractions `[a, b]` of `domain` as a range of its values. */
export function zoomRange([a, b], [d0, d1]) {
  return [d0 + a * (d1 - d0), d0 + b * (d1 - d0)];
}

// ---------------------------------------------------------------- shared links
// "Copy link" (export.js) puts the profile itself into the hash, after the view state:
// `…&dataname=<file name>&data=<base64url of the gzipped profile>`. The fragment never reaches
// a server; opening the link loads the profile from it, then applies the view state.

/** The largest compressed profile a shared link carries (bytes, before base64url). */
export const MAX_LINK_BYTES = 64 * 1024;

/** `bytes` as base64url without padding. */
export function toBase64Url(bytes) {
  let bin = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) bin += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The bytes of base64url `text` (padding optional), or null when it is not base64url. */
export function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const bin = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** The hash parameters that carry profile `bytes` (compressed) named `name`, to append to a state hash. */
export function linkParams(bytes, name) {
  const h = new URLSearchParams({ dataname: name });
  return `${h.toString()}&data=${toBase64Url(bytes)}`;
}

/** A shared link's hash: view state `stateHash` (from toHash) then `params` (from linkParams; "" for none). */
export function linkHash(stateHash, params) {
  return params ? `${stateHash}&${params}` : stateHash;
}

/** The profile a shared link's hash carries, `{bytes, name, params}`, or null (none, or not base64url). */
export function linkProfile(hash) {
  const h = new URLSearchParams(hash.replace(/^#/, ""));
  const bytes = h.has("data") ? fromBase64Url(h.get("data")) : null;
  if (!bytes?.length) return null;
  const name = h.get("dataname") || "shared-profile.gz";
  return { bytes, name, params: linkParams(bytes, name) };
}
