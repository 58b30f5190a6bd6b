// The npm package's browser entry (js/web.mjs: pkg/web + top-level await init) in Chromium,
// served from the package folder as a bundler-less site would serve node_modules/proftab.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { formats as nodeFormats } from "../../js/node.mjs";
import { launchBrowser, openPage, ROOT, serve } from "./harness.mjs";

let browser;
let server;

before(async () => {
  server = await serve(ROOT);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("import { Profile } from the browser entry works without calling init", async () => {
  const { page, problems } = await openPage(browser.context, `${server.url}tests/browser/package.html`);
  const result = await page.evaluate(async (entry) => {
    const { Profile, formats, NO_INDEX } = await import(entry);
    let error;
    try {
      Profile.parse(new Uint8Array([1, 2, 3]), "x.bin");
    } catch (e) {
      error = { isError: e instanceof Error, message: e.message };
    }
    return { formats: formats().map((f) => f.name), noIndex: NO_INDEX, error };
  }, `${server.url}js/web.mjs`);
  // The browser build knows the same formats as the Node build, pprof among them.
  assert.deepEqual(
    result.formats,
    nodeFormats().map((f) => f.name),
  );
  assert.ok(result.formats.includes("pprof"));
  assert.equal(result.noIndex, 0xffffffff);
  assert.equal(result.error.isError, true);
  assert.match(result.error.message, /^input: unrecognized format \(.*01 02 03\); proftab reads /);
  assert.deepEqual(problems, []);
  await page.close();
});
