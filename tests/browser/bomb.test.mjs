// A decompression bomb dropped on the viewer (dist-test/) in headless Chromium: a 1 MB gzip of
// 1 GiB of zeros is refused on its first decompressed MiB, as the CLI refuses it, the profile
// shown stays, and the page answers while the worker reads (the parse never runs on the page).
import assert from "node:assert/strict";
import { test } from "node:test";
import { constants, createGzip } from "node:zlib";
import { dropFiles } from "./harness.mjs";
import { cli, cliError, drawn, file, PPROF, readyPage, settled, skip } from "./viewer-page.mjs";

const GIB = 1 << 30;

/** gzip -9 of `bytes` zero bytes, streamed (the zeros are never held at once). */
function gzippedZeros(bytes) {
  return new Promise((resolve, reject) => {
    const gz = createGzip({ level: constants.Z_BEST_COMPRESSION });
    const parts = [];
    gz.on("data", (d) => parts.push(d));
    gz.on("end", () => resolve(Buffer.concat(parts)));
    gz.on("error", reject);
    const chunk = Buffer.alloc(1 << 20);
    let left = bytes / chunk.length;
    const write = () => {
      while (left > 0) {
        left--;
        if (!gz.write(chunk)) return gz.once("drain", write);
      }
      gz.end();
    };
    write();
  });
}

test("a gzip of 1 GiB of zeros is refused without inflating it, the page answering and the profile kept", async (t) => {
  const bomb = await gzippedZeros(GIB);
  assert.ok(bomb.length < 1.1e6, `the bomb is ${bomb.length} bytes`);
  const { page, problems } = await readyPage();
  await dropFiles(page, "body", [file(PPROF)]);
  await drawn(page);
  // Ticks of a page timer while the worker reads the bomb: the page never waits on the parse.
  await page.evaluate(() => {
    window.__ticks = 0;
    window.__ticker = setInterval(() => window.__ticks++, 20);
  });
  const started = Date.now();
  await dropFiles(page, "body", [{ name: "zeros.gz", bytes: bomb }]);
  await settled(page);
  const ms = Date.now() - started;
  const ticks = await page.evaluate(() => {
    clearInterval(window.__ticker);
    return window.__ticks;
  });
  t.diagnostic(`drop → refused: ${ms} ms, ${ticks} page timer ticks of 20 ms meanwhile`);
  const error = await page.textContent("#error-text");
  assert.match(error, /zeros\.gz/);
  assert.match(error, /unrecognized format/);
  assert.ok(ticks > 0 || ms < 100, `the page timer did not run during a ${ms} ms refusal`);
  // The profile shown before stays.
  const uris = await page.evaluate(() => window.__proftab.state.info.sources.map((s) => s.uri));
  assert.deepEqual(uris, ["parca-fib.pb.gz"]);
  assert.equal(await page.evaluate(() => document.body.dataset.flamegraphDrawn), "1");
  assert.deepEqual(problems, []);
  await page.close();
  const bin = cli();
  if (!bin) return skip(t, "the proftab CLI is not built: the message is not compared with it");
  const message = cliError(bin, { name: "zeros.gz", bytes: bomb });
  assert.ok(error.includes(message), `viewer: ${error}\nCLI: ${message}`);
});
