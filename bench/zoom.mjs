// Frame time of zooming and panning the flame graph: loads FILE into the built viewer
// (dist-test/: dist/ with the test hook) in headless Chromium, then zooms in and out with wheel events and pans by dragging,
// and prints the canvas draw times (ms per frame) the page recorded.
//
//   node bench/zoom.mjs FILE [STEPS]

import path from "node:path";
import { launchBrowser, loadFile, openPage, serve } from "../tests/browser/harness.mjs";

const [file, stepsArg] = process.argv.slice(2);
if (!file) {
  console.error("usage: node bench/zoom.mjs FILE [STEPS]");
  process.exit(2);
}
const steps = Number(stepsArg || 40);
const server = await serve();
const browser = await launchBrowser();
try {
  const { page } = await openPage(browser.context, server.url);
  const loadMs = await loadFile(page, file);
  const box = await page.locator("#main-canvas").boundingBox();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.7);
  await page.evaluate(() => window.__proftab.drawTimes());
  const before = (await page.evaluate(() => window.__proftab.drawTimes())).length;
  for (let i = 0; i < steps; i++) {
    await page.mouse.wheel(0, i < steps / 2 ? -120 : 120);
    await page.waitForTimeout(16);
  }
  await page.mouse.down();
  for (let i = 0; i < steps; i++) {
    await page.mouse.move(box.x + box.width * 0.3 + i * 5, box.y + box.height * 0.7 - i);
    await page.waitForTimeout(16);
  }
  await page.mouse.up();
  await page.waitForTimeout(300);
  // Re-aggregation: switch to the first value type and back (wasm, in the worker).
  const switches = [];
  const types = await page.$$eval("#value-type option", (os) => os.map((o) => o.value));
  for (const v of [types[0], types[types.length - 1]]) {
    await page.evaluate(() => {
      window.__proftab.optionsMs = null;
    });
    await page.selectOption("#value-type", v);
    await page.waitForFunction(() => window.__proftab.optionsMs !== null, null, { timeout: 120000 });
    switches.push(+(await page.evaluate(() => window.__proftab.optionsMs)).toFixed(1));
  }
  const times = (await page.evaluate(() => window.__proftab.drawTimes())).slice(-Math.min(200, 2 * steps));
  const sorted = [...times].sort((a, b) => a - b);
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  console.log(
    JSON.stringify({
      file: path.basename(file),
      loadMs,
      frames: times.length,
      drawnBefore: before,
      valueTypeSwitchMs: switches,
      medianMs: +q(0.5).toFixed(2),
      p95Ms: +q(0.95).toFixed(2),
      maxMs: +sorted[sorted.length - 1].toFixed(2),
    }),
  );
} finally {
  await browser.close();
  await server.close();
}
