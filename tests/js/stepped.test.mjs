// `Profile.parse` of the npm package reads in steps (js/stepped.mjs over `ProfileStream`): the
// bytes fed in chunks, a pprof profile's samples a budget at a time. It must give what the
// whole read gives, wasm-bindgen's one-call `Profile.parse`, on every file: the same tables,
// the same warnings, the same error text.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { CORPUS, CORPUS_NEW, corpusFiles, ROOT } from "./helpers.mjs";

// The whole read, kept before the package entry replaces it (the entry wraps this same module).
const require = createRequire(import.meta.url);
const wasm = require("../../pkg/node/proftab.js");
const parseWhole = wasm.Profile.parse.bind(wasm.Profile);
const { Profile } = await import("proftab");

/** Every file of every folder of `dir` (one folder per format). */
function filesOf(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => fs.statSync(path.join(dir, f)).isDirectory())
    .sort()
    .flatMap((f) => corpusFiles(f, dir));
}

const FILES = [
  ...filesOf(CORPUS),
  ...filesOf(CORPUS_NEW),
  ...filesOf(path.join(ROOT, "tests/fixtures/invalid")),
  ...corpusFiles("pprof", path.join(ROOT, "tests/fixtures")),
];

/** What a read gives: its tables-JSON and warnings, or its error's message. */
function outcome(read) {
  let p;
  try {
    p = read();
  } catch (e) {
    return { error: e.message };
  }
  try {
    const { bytes, warnings } = p.writeWithWarnings("tables-json", null, null);
    return { tables: Buffer.from(bytes).toString("utf8"), warnings: JSON.stringify([p.warnings(), warnings]) };
  } finally {
    p.free();
  }
}

/** The stepped read through `ProfileStream` with chunks of `chunk` bytes and `budget` samples. */
function streamed(bytes, name, chunk, budget) {
  const tail = bytes.length >= 4 ? bytes.readUInt32LE(bytes.length - 4) : undefined;
  const stream = new wasm.ProfileStream(name, bytes.length, tail);
  for (let at = 0; at < bytes.length; at += chunk) stream.feed(bytes.subarray(at, at + chunk));
  let steps = 0;
  while (!stream.step(budget)) steps++;
  return { profile: stream.finish(), steps };
}

test("Profile.parse in steps gives the whole read's tables, warnings and errors on every file", () => {
  assert.ok(FILES.length > 100, `only ${FILES.length} files`);
  let errors = 0;
  for (const file of FILES) {
    const bytes = fs.readFileSync(file);
    const name = path.basename(file);
    const whole = outcome(() => parseWhole(bytes, name));
    assert.deepEqual(
      outcome(() => Profile.parse(bytes, name)),
      whole,
      file,
    );
    errors += Number("error" in whole);
  }
  assert.ok(errors > 10, `only ${errors} files refused: the invalid fixtures were not read`);
});

test("the stream itself refuses each bad file with the whole read's message", () => {
  // Profile.parse reads a refused file again whole for its message, so the test above cannot
  // tell the stream's own messages from the whole read's: here the stream is read alone.
  // src/formats/stream.rs allows one difference (a corrupt gzip stream no detector claims may
  // get the decoder's message), which no file here reaches.
  let compared = 0;
  for (const file of FILES) {
    const bytes = fs.readFileSync(file);
    const name = path.basename(file);
    const whole = outcome(() => parseWhole(bytes, name));
    if (!("error" in whole)) continue;
    assert.deepEqual(
      outcome(() => streamed(bytes, name, 1 << 20, 16384).profile),
      whole,
      file,
    );
    compared++;
  }
  assert.ok(compared > 10, `only ${compared} refused files compared`);
});

test("a pprof profile read in many small steps and chunks is the whole read", () => {
  const pprofs = FILES.filter((f) => /\.pb(\.gz)?$/.test(f) && !f.includes("invalid"));
  assert.ok(pprofs.length > 5);
  let multiStep = 0;
  for (const file of pprofs) {
    const bytes = fs.readFileSync(file);
    const name = path.basename(file);
    const whole = outcome(() => parseWhole(bytes, name));
    if ("error" in whole) continue;
    for (const [chunk, budget] of [
      [1 << 20, 1],
      [7, 3],
      [4096, 64],
    ]) {
      let steps = 0;
      const got = outcome(() => {
        const r = streamed(bytes, name, chunk, budget);
        steps = r.steps;
        return r.profile;
      });
      assert.deepEqual(got, whole, `${file}, chunks of ${chunk}, ${budget} samples a step`);
      multiStep += Number(steps > 1);
    }
  }
  assert.ok(multiStep > 5, `only ${multiStep} reads took more than one step`);
});
