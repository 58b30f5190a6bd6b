// The viewer reads files as they arrive (www/worker.js → src/wasm_stream.rs): folded stacks
// parsed line by line and gzip inflated chunk by chunk, with real progress (bytes fed; for
// pprof, parsed in steps once inflated: samples read) and a cancel that works mid-parse. What
// a streamed file shows must equal what the same bytes read whole show.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import zlib from "node:zlib";
import { Profile } from "../../js/node.mjs";
import { drawn, readyPage } from "./viewer-page.mjs";

/** Folded stacks of `lines` lines (pseudo-random frames, counts 1–9), about 60 bytes a line. */
function foldedStacks(lines) {
  let x = 12345;
  const out = [];
  for (let i = 0; i < lines; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(`main;run_${i % 13};step_${x % 997};leaf_${(x >> 10) % 89} ${1 + (i % 9)}\n`);
  }
  return out.join("");
}

/** Folded stacks of `lines` lines whose stacks all differ (a leaf per line, of 100,003). */
function distinctStacks(lines) {
  const out = [];
  for (let i = 0; i < lines; i++) out.push(`main;run_${i % 13};step_${(i * 7919) % 997};leaf_${i % 100003} ${1 + (i % 9)}\n`);
  return out.join("");
}

/** Samples, frames, stack nodes and formats of the shown profile. */
function shown(page) {
  return page.evaluate(() => {
    const { samples, frames, nodes, formats } = window.__proftab.state.info;
    return { samples, frames, nodes, formats };
  });
}

/** The page shows `want` (the whole read's samples and functions), read as `format`. */
async function assertShown(page, want, format) {
  const got = await shown(page);
  assert.equal(got.samples, want.samples);
  assert.equal(got.frames, want.functions);
  assert.deepEqual(got.formats, [format]);
}

/** Every progress text `page` shows from now on, in order (a repeat of the last left out). */
function watchProgress(page) {
  return page.evaluate(() => {
    window.__seen = [];
    const text = document.getElementById("progress-text");
    const look = () => {
      const t = text.textContent;
      if (!document.getElementById("progress").hidden && window.__seen.at(-1) !== t) window.__seen.push(t);
    };
    // Every text shown, not one a frame: on a fast machine two parse steps' reports can fall
    // within one frame.
    window.__progressWatch?.disconnect();
    window.__progressWatch = new MutationObserver(look);
    window.__progressWatch.observe(text, { childList: true, characterData: true, subtree: true });
  });
}

test("big folded stacks and their gzip stream in: progress is bytes parsed, and they read as the whole", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-stream-"));
  const text = foldedStacks(300_000); // about 17 MB: many chunks after the first MiB
  const plain = path.join(dir, "big.collapsed");
  const gz = path.join(dir, "big.collapsed.gz");
  fs.writeFileSync(plain, text);
  fs.writeFileSync(gz, zlib.gzipSync(text, { level: 1 }));
  // The same bytes read whole by the npm package (Profile.parse: no streaming).
  const whole = Profile.parse(fs.readFileSync(plain), "big.collapsed");
  const want = { samples: whole.numSamples, functions: whole.functionName().length };
  whole.free();
  const { page, problems } = await readyPage();
  try {
    for (const [file, verb] of [
      [plain, "Reading and parsing"],
      [gz, "Reading and inflating"],
    ]) {
      await watchProgress(page);
      await page.setInputFiles("#file-input", file);
      await drawn(page);
      const seen = await page.evaluate(() => window.__seen);
      const fed = seen.filter((s) => s.startsWith(verb));
      if (fs.statSync(file).size > 2 << 20) assert.ok(fed.length >= 1, `no "${verb}" among ${JSON.stringify(seen)}`);
      assert.equal(want.samples, 300_000);
      await assertShown(page, want, "collapsed");
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(problems, []);
  await page.close();
});

/** What `Profile.parse` reads from `file` whole: its samples and functions. */
function wholeRead(file) {
  const whole = Profile.parse(fs.readFileSync(file), path.basename(file));
  const want = { samples: whole.numSamples, functions: whole.functionName().length };
  whole.free();
  return want;
}

/**
 * Loads `file` in a fresh page watching its progress: the texts shown, once the page shows
 * `want` (`wholeRead`) as pprof without a problem.
 */
async function loadWatched(file, want) {
  const { page, problems } = await readyPage();
  await watchProgress(page);
  await page.setInputFiles("#file-input", file);
  await drawn(page);
  const seen = await page.evaluate(() => window.__seen);
  await assertShown(page, want, "pprof");
  assert.deepEqual(problems, []);
  await page.close();
  return seen;
}

test("a big pprof file is parsed in steps: progress is samples read, and it reads as the whole", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-stream-"));
  try {
    // 300,000 folded lines; the pprof writer merges equal stacks: about 134,000 samples, read
    // in several parse steps.
    const folded = Profile.parse(Buffer.from(foldedStacks(300_000)), "big.collapsed");
    const gz = path.join(dir, "big.pb.gz");
    fs.writeFileSync(gz, folded.write("pprof"));
    folded.free();
    const want = wholeRead(gz);
    const seen = await loadWatched(gz, want);
    const all = want.samples.toLocaleString("en-US");
    const steps = seen.filter((s) => new RegExp(`^Parsing: [\\d,]+ of ${all} samples$`).test(s));
    assert.ok(steps.length >= 2, `no two "Parsing: N of ${all} samples" among ${JSON.stringify(seen)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a large gzipped pprof file is read twice, its samples the second time, and reads as the whole", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-stream-"));
  try {
    // The pprof of 200,000 distinct stacks gzipped without compression: past the 4 MiB from
    // which the viewer reads a gzipped pprof twice rather than holding it inflated
    // (src/wasm_stream.rs).
    const folded = Profile.parse(Buffer.from(distinctStacks(200_000)), "big.collapsed");
    const raw = zlib.gunzipSync(folded.write("pprof"));
    folded.free();
    const gz = path.join(dir, "stored.pb.gz");
    fs.writeFileSync(gz, zlib.gzipSync(raw, { level: 0 }));
    assert.ok(fs.statSync(gz).size >= 4 << 20, `${fs.statSync(gz).size} bytes`);
    const want = wholeRead(gz);
    const seen = await loadWatched(gz, want);
    const all = want.samples.toLocaleString("en-US");
    const again = seen.filter((s) => new RegExp(`^Reading again and parsing: [\\d,]+ of ${all} samples$`).test(s));
    // One text at least: the worker reports every 50 ms, and on a fast run the whole second
    // read falls within one report (CI saw only "200,000 of 200,000 samples" once).
    assert.ok(again.length >= 1, `no "Reading again and parsing: N of ${all} samples" among ${JSON.stringify(seen)}`);
    const first = seen.findIndex((s) => s.startsWith("Reading and inflating"));
    assert.ok(first >= 0 && first < seen.indexOf(again[0]), JSON.stringify(seen));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("cancel mid-parse of a streamed file stops it; the next load works", async () => {
  const { page, problems } = await readyPage();
  // About 120 MB of folded stacks made in the page: parsed while read, over many seconds.
  await page.evaluate(() => {
    const block = [];
    for (let i = 0; i < 20_000; i++) block.push(`main;a_${i % 101};b_${i % 37};c_${i} ${1 + (i % 5)}\n`);
    const text = block.join("");
    const dt = new DataTransfer();
    dt.items.add(new File(Array(200).fill(text), "huge.collapsed"));
    for (const type of ["dragenter", "dragover", "drop"]) {
      document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  });
  await page.waitForFunction(() => /^Reading and parsing: .* of /.test(document.getElementById("progress-text").textContent), null, {
    timeout: 60000,
  });
  const first = await page.textContent("#progress-text");
  await page.waitForFunction((t) => document.getElementById("progress-text").textContent !== t, first, { timeout: 60000 });
  await page.click("#cancel");
  await page.waitForSelector("body[data-state=ready]");
  assert.equal(await page.isHidden("#progress"), true);
  await page.setInputFiles("#file-input", path.join(import.meta.dirname, "../fixtures/viewer/warnings.collapsed"));
  await drawn(page);
  assert.deepEqual(problems, []);
  await page.close();
});
