// Cold and warm loads of one file in the built viewer (dist-test/: dist/ with the test hook):
// one headless Chromium on a fresh profile, one tab, FILE dropped LOADS times in a row. The
// first load is cold (wasm compiled by the baseline tier, memory not yet grown); the later
// ones are warm (the same tab: code tiered up, memory grown). Prints, per load, the page's own
// timings from the drop to the first drawn flame graph (`firstDrawMs`, with `parseMs` and
// `analyseMs`) and the harness's time (`ms`, which adds handing the bytes to the page).
//
//   node bench/warm.mjs FILE [LOADS]

import path from "node:path";
import { launchBrowser, loadFile, openPage, serve } from "../tests/browser/harness.mjs";

const [file, loadsArg] = process.argv.slice(2);
if (!file) {
  console.error("usage: node bench/warm.mjs FILE [LOADS]");
  process.exit(2);
}
const loads = Number(loadsArg || 3);
const server = await serve();
const browser = await launchBrowser();
try {
  const { page } = await openPage(browser.context, server.url);
  const runs = [];
  for (let i = 0; i < loads; i++) {
    // The page sets the flag again once the new file is drawn.
    await page.evaluate(() => {
      document.body.dataset.flamegraphDrawn = "0";
    });
    const ms = await loadFile(page, file);
    const t = await page.evaluate(() => {
      const { parseMs, analyseMs, firstDrawMs } = window.__proftab;
      return { state: document.body.dataset.state, parseMs, analyseMs, firstDrawMs };
    });
    runs.push({
      load: i === 0 ? "cold" : "warm",
      ms,
      state: t.state,
      firstDrawMs: Math.round(t.firstDrawMs),
      parseMs: Math.round(t.parseMs),
      analyseMs: Math.round(t.analyseMs),
    });
  }
  console.log(JSON.stringify({ file: path.basename(file), runs }));
} finally {
  await browser.close();
  await server.close();
}
