// Source text dropped by the user (files, a folder, or the Source tab's inputs), kept by path,
// and the matching of a profile's file names to it by the longest common path suffix: Go
// module paths, R `#File` names and absolute paths from another machine all end like the
// dropped copy's path. Pure but for the store; the worker imports the name test.
import { onEnter } from "./context.js";

/** File name endings taken as source text when the registry does not detect a profile. */
export const SOURCE_EXTENSIONS = [
  "r",
  "R",
  "go",
  "js",
  "mjs",
  "cjs",
  "ts",
  "tsx",
  "jsx",
  "py",
  "c",
  "h",
  "cc",
  "cpp",
  "cxx",
  "hpp",
  "hh",
  "rs",
  "java",
  "kt",
  "scala",
  "rb",
  "hs",
  "lhs",
  "swift",
  "m",
  "mm",
  "cs",
  "php",
  "pl",
  "lua",
  "jl",
  "zig",
  "ml",
  "ex",
  "exs",
  "erl",
  "clj",
  "dart",
  "S",
  "s",
  "asm",
  "sh",
  "Rmd",
];

/** Bigger files are not kept as source text. */
export const MAX_SOURCE_BYTES = 8 << 20;

const EXT = new Set(SOURCE_EXTENSIONS.map((e) => e.toLowerCase()));

/** Whether `name` ends with a source extension. */
export function isSourceName(name) {
  const dot = name.lastIndexOf(".");
  return dot > 0 && EXT.has(name.slice(dot + 1).toLowerCase());
}

/** The components of a path (`/` or `\` separated), without empty and `.` ones. */
function parts(path) {
  return path.split(/[\\/]+/).filter((p) => p && p !== ".");
}

/** How many trailing components `a` and `b` share. */
export function suffixLength(a, b) {
  const [pa, pb] = [parts(a), parts(b)];
  let n = 0;
  while (n < pa.length && n < pb.length && pa[pa.length - 1 - n] === pb[pb.length - 1 - n]) n++;
  return n;
}

/**
 * The dropped path matching the profile's file name `name` best, among `paths`: `{path}` for
 * the one sharing the longest path suffix (at least the base name), `{ambiguous: [paths]}`
 * when several share it, or null when none shares the base name.
 */
export function matchSource(name, paths) {
  let best = 0;
  let found = [];
  for (const p of paths) {
    const n = suffixLength(name, p);
    if (n > best) [best, found] = [n, [p]];
    else if (n === best && n > 0) found.push(p);
  }
  if (!best) return null;
  return found.length === 1 ? { path: found[0] } : { ambiguous: found };
}

// ---------------------------------------------------------------- the store

// The current viewer's source texts (a live binding, rebound when a viewer is entered).
let texts = new Map();
onEnter((ctx) => {
  ctx.sourceTexts ??= new Map();
  texts = ctx.sourceTexts;
});
const listeners = [];

/** Keeps `[{path, text}]` (a path seen again takes the new text); tells the listeners. */
export function addSources(list) {
  if (!list?.length) return;
  for (const s of list) texts.set(s.path, s.text);
  for (const fn of listeners) fn();
}

/** Calls `fn()` whenever source text is added. */
export function onSources(fn) {
  listeners.push(fn);
}

/** Number of source files kept. */
export function sourceCount() {
  return texts.size;
}

/** The text for the profile's file `name`: `{path, text}`, `{ambiguous}` or null. */
export function sourceFor(name) {
  if (!name) return null;
  const m = matchSource(name, [...texts.keys()]);
  return m?.path ? { path: m.path, text: texts.get(m.path) } : m;
}
