// One file of every format this build reads, dropped on the viewer (dist-test/) in headless
// Chromium: the flame graph is drawn, no error shows, and the status line names the format and
// the number of samples the npm package counts for the same bytes. The file is the smallest one
// of the format's folder in the shared corpus (../shared/corpus/<format>/ or, for formats that
// were added later, ../shared/corpus-new/<format>/), else of tests/fixtures/<format>/.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { formats, Profile } from "../../js/node.mjs";
import { CORPUS, CORPUS_NEW, corpusFiles } from "../js/helpers.mjs";
import { dropFiles, ROOT, screenshot } from "./harness.mjs";
import { drawn, ink, readyPage } from "./viewer-page.mjs";

/** The smallest profile file of `corpus`/`format` that the package reads as `format`, or null. */
function smallestReadable(corpus, format) {
  const files = corpusFiles(format, corpus).sort((a, b) => fs.statSync(a).size - fs.statSync(b).size);
  for (const f of files) {
    try {
      const p = Profile.parse(fs.readFileSync(f), path.basename(f));
      const ok = p.format === format && p.numSamples > 0;
      const samples = p.numSamples;
      p.free();
      if (ok) return { file: f, samples };
    } catch {
      // Not this format or not readable: the next file.
    }
  }
  return null;
}

function sampleFile(format) {
  for (const dir of [CORPUS, CORPUS_NEW, path.join(ROOT, "tests/fixtures")]) {
    const found = smallestReadable(dir, format);
    if (found) return found;
  }
  return null;
}

const readable = formats()
  .filter((f) => f.read)
  .map((f) => f.name);

test("every readable format has a file to drop", () => {
  const missing = readable.filter((f) => !sampleFile(f));
  assert.deepEqual(missing, [], `no readable file for ${missing.join(", ")}`);
});

for (const format of readable) {
  test(`${format}: a dropped file is drawn`, async (t) => {
    const found = sampleFile(format);
    if (!found) return t.skip(`no ${format} file`);
    const { page, problems } = await readyPage();
    await dropFiles(page, "body", [{ name: path.basename(found.file), bytes: fs.readFileSync(found.file) }]);
    await drawn(page);
    assert.ok((await ink(page, "#main-canvas")) > 0, "flame graph canvas is blank");
    const status = await page.textContent("#status");
    assert.match(status, new RegExp(`in ${found.samples.toLocaleString("en-US")} samples`));
    assert.match(status, new RegExp(`· ${format}$`));
    await screenshot(page, `format-${format}`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}
