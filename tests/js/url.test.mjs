// The viewer's URL hash mapping (www/url.js): state → hash → state round trips, and hashes
// written by earlier versions of the viewer still parse to the same state.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  fromBase64Url,
  fromHash,
  hashNames,
  linkHash,
  linkParams,
  linkProfile,
  MAX_LINK_BYTES,
  toBase64Url,
  toHash,
  zoomFractions,
  zoomRange,
} from "../../www/url.js";

const NAMES = ["main", "math/big.nat.add", "runtime.mallocgc", "a=b&c"];

/** The loaded profile the hash is read against. */
const PROFILE = {
  valueTypes: [
    { type: "samples", unit: "count" },
    { type: "cpu", unit: "nanoseconds" },
  ],
  facets: [{ name: "goroutine_state", values: ["running", "chan receive"], samples: [1, 2] }],
  nameIndex: new Map(NAMES.map((n, i) => [n, i])),
  sourceCount: 3,
};

/** A state of the shape of www/state.js's `S` (the fields the hash keeps). */
function state(fields) {
  return {
    info: { valueTypes: PROFILE.valueTypes },
    facets: PROFILE.facets,
    view: "flame",
    vt: 0,
    order: 0,
    icicle: false,
    bottomUp: false,
    facet: null,
    query: "",
    tableMode: "functions",
    treeCompare: false,
    transforms: [],
    timeRange: null,
    compare: { base: [0], new: [1, 2], normalized: true, sizeByBase: false, palette: "rb" },
    sourceFile: "",
    sourceLine: 0,
    selectedPath: null,
    ...fields,
  };
}

const label = (f) => NAMES[f];

/** The fields of `fromHash`'s answer that `s` holds, as `s` holds them. */
function expected(s, zoom = null) {
  return {
    view: s.view,
    vt: s.vt,
    order: s.order,
    icicle: s.icicle,
    bottomUp: s.bottomUp,
    facet: s.facet,
    tableMode: s.tableMode,
    treeCompare: s.treeCompare,
    timeRange: s.timeRange,
    transforms: s.transforms,
    zoom,
    sourceFile: s.sourceFile,
    sourceLine: s.sourceLine,
    selectedPath: s.selectedPath,
    ...(s.query ? { query: s.query } : {}),
    compare: s.view === "compare" ? { ...s.compare } : { normalized: true, sizeByBase: false, palette: "rb" },
  };
}

test("the default state round-trips", () => {
  const s = state({});
  assert.equal(toHash(s, { label }), "view=flame&type=samples");
  assert.deepEqual(fromHash(toHash(s, { label }), PROFILE), expected(s));
});

test("every field round-trips, names and patterns with URL syntax included", () => {
  const s = state({
    view: "time",
    vt: 1,
    order: 1,
    icicle: true,
    bottomUp: true,
    facet: { index: 0, value: "chan receive" },
    query: "/^runtime\\./ & more",
    tableMode: "lines",
    transforms: [
      { kind: 0, frame: 1 },
      { kind: 1, frame: 3 },
      { pattern: "/^(eval|tryCatch.*)$/", frames: [] },
      { kind: 3, frame: 0 },
    ],
    timeRange: [0.25, 1.5],
  });
  const hash = toHash(s, { label, zoom: [0.125, 0.5] });
  assert.deepEqual(fromHash(`#${hash}`, PROFILE), expected(s, [0.125, 0.5]));
});

test("the Source tab's file and line round-trip", () => {
  const s = state({ view: "source", sourceFile: "/home/u/pkg/a b&c.go", sourceLine: 42 });
  const hash = toHash(s, { label });
  assert.equal(hash, "view=source&type=samples&file=%2Fhome%2Fu%2Fpkg%2Fa+b%26c.go&line=42");
  assert.deepEqual(fromHash(hash, PROFILE), expected(s));
  const bad = fromHash("view=source&line=-3", PROFILE);
  assert.deepEqual([bad.sourceFile, bad.sourceLine], ["", 0]);
});

test("the selected call path round-trips, inverted or not; an unknown function drops it", () => {
  for (const inverted of [false, true]) {
    const s = state({ view: "calltree", bottomUp: inverted, selectedPath: { frames: [0, 3, 1], inverted } });
    const hash = toHash(s, { label });
    assert.match(hash, /path=main&path=a%3Db%26c&path=math%2Fbig\.nat\.add/);
    assert.equal(/pathinv=1/.test(hash), inverted);
    assert.deepEqual(fromHash(hash, PROFILE), expected(s));
  }
  assert.equal(fromHash("view=calltree&path=main&path=nosuch", PROFILE).selectedPath, null);
  assert.equal(fromHash("view=calltree&pathinv=1", PROFILE).selectedPath, null);
});

test("frames that share a display name get their own hash names, and a path through one comes back to it", () => {
  const names = ["work+0x10", "main", "work+0x10", "work+0x10#3", "work+0x10"];
  const unique = hashNames(names);
  assert.deepEqual(unique, ["work+0x10", "main", "work+0x10#2", "work+0x10#3", "work+0x10#4"]);
  const profile = { ...PROFILE, nameIndex: new Map(unique.map((n, i) => [n, i])) };
  for (const frames of [
    [1, 2],
    [1, 4],
    [1, 3],
    [1, 0],
  ]) {
    const s = state({ view: "calltree", selectedPath: { frames, inverted: false } });
    const hash = toHash(s, { label: (f) => unique[f] });
    assert.deepEqual(fromHash(hash, profile).selectedPath, { frames, inverted: false });
  }
});

test("compare state round-trips in Compare mode only", () => {
  const compare = { base: [1], new: [0, 2], normalized: false, sizeByBase: true, palette: "cb" };
  const s = state({ view: "compare", compare });
  const hash = toHash(s, { label });
  assert.equal(hash, "view=compare&type=samples&base=1&new=0%2C2&absolute=1&width=base&palette=cb");
  assert.deepEqual(fromHash(hash, PROFILE), expected(s));
  assert.doesNotMatch(toHash(state({ compare }), { label }), /base=|absolute|palette/);
});

test("the call tree's view, inversion and compare columns round-trip", () => {
  const s = state({ view: "calltree", bottomUp: true, treeCompare: true });
  const hash = toHash(s, { label });
  assert.equal(hash, "view=calltree&type=samples&bottomup=1&treecompare=1");
  assert.deepEqual(fromHash(hash, PROFILE), expected(s));
  // Compare columns need two sources.
  assert.equal(fromHash(hash, { ...PROFILE, sourceCount: 1 }).treeCompare, false);
});

test("hashes of earlier versions parse", () => {
  // From the browser tests and the README: a focus by name, a search, toggles.
  const old = fromHash("#view=flame&order=alpha&icicle=1&search=big&focus=math%2Fbig.nat.add", PROFILE);
  const { vt, ...wanted } = expected(state({ order: 1, icicle: true, query: "big", transforms: [{ kind: 0, frame: 1 }] }));
  assert.deepEqual(old, wanted, "no type: the value type is left to the page");
  const compare = fromHash("#view=compare&absolute=1&width=base&palette=cb", PROFILE);
  assert.equal(compare.view, "compare");
  assert.deepEqual(compare.compare, { normalized: false, sizeByBase: true, palette: "cb" });
  const filtered = fromHash("filter=goroutine_state%3Dchan+receive&hidematch=%2F%5Eruntime%5C.%2F&table=lines", PROFILE);
  assert.deepEqual(filtered.facet, { index: 0, value: "chan receive" });
  assert.deepEqual(filtered.transforms, [{ pattern: "/^runtime\\./", frames: [] }]);
  assert.equal(filtered.tableMode, "lines");
});

test("what the profile lacks is left out or dropped", () => {
  const h = fromHash("type=alloc&focus=nowhere&filter=state%3Dgone&base=0,7&new=&range=2,1&zoom=0.5,0.25", PROFILE);
  assert.equal("vt" in h, false);
  assert.equal("view" in h, false);
  assert.equal("query" in h, false);
  assert.deepEqual(h.transforms, []);
  assert.equal(h.facet, null);
  assert.equal(h.timeRange, null);
  assert.equal(h.zoom, null);
  assert.equal("base" in h.compare || "new" in h.compare, false);
});

test("zoom fractions", () => {
  assert.equal(zoomFractions([0, 100], 0, 100), null);
  assert.deepEqual(zoomFractions([0, 200], 50, 100), [0.25, 0.5]);
  assert.deepEqual(zoomRange([0.25, 0.5], [0, 200]), [50, 100]);
});

test("base64url round-trips every byte value and lengths around the padding", () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  for (const n of [0, 1, 2, 3, 4, 255, 256]) {
    const bytes = all.subarray(0, n);
    const text = toBase64Url(bytes);
    assert.match(text, /^[A-Za-z0-9_-]*$/, "no +, / or = in a URL");
    assert.deepEqual(fromBase64Url(text), bytes);
  }
  const big = Uint8Array.from({ length: MAX_LINK_BYTES }, (_, i) => (i * 7919) % 251);
  assert.deepEqual(fromBase64Url(toBase64Url(big)), big);
  assert.equal(fromBase64Url("a+b/"), null, "base64, not base64url");
  assert.equal(fromBase64Url("abcde"), null, "a length no encoding has");
});

test("a shared link carries the view state and the profile, and gives both back", () => {
  const bytes = Uint8Array.from([0x1f, 0x8b, 8, 0, 250, 251, 252, 253, 254, 255]);
  const s = state({ view: "sandwich", vt: 1, selectedPath: { frames: [0, 3], inverted: false } });
  const hash = linkHash(toHash(s, { label }), linkParams(bytes, "cpu & more.json.gz"));
  const link = linkProfile(`#${hash}`);
  assert.deepEqual(link.bytes, bytes);
  assert.equal(link.name, "cpu & more.json.gz");
  assert.equal(linkHash("view=flame", link.params), `view=flame&${linkParams(bytes, link.name)}`);
  const back = fromHash(`#${hash}`, PROFILE);
  assert.equal(back.view, "sandwich");
  assert.equal(back.vt, 1);
  assert.deepEqual(back.selectedPath, { frames: [0, 3], inverted: false });
  assert.equal(linkProfile(toHash(s, { label })), null, "a state hash carries no profile");
  assert.equal(linkProfile("#view=flame&data=not%2Bbase64url"), null);
  assert.equal(linkHash("view=flame", ""), "view=flame");
});
