// proftab's viewer definition for the shared viewer benchmark (shared/bench/viewer-load.mjs).
// Use it with:  BENCH_VIEWERS=$PWD/bench/viewers.mjs node ../shared/bench/viewer-load.mjs speedscope,proftab FILE 5
// after `npm run build` (it serves dist-test/: dist/ with the read-only test hook window.__proftab).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const viewers = {
  proftab: {
    description: "proftab viewer, local build (dist-test/)",
    version: () => `proftab@${JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version}`,
    // PROFTAB_BENCH_DIST: another build of dist-test/ (main's, for a before/after run).
    staticDir: () => process.env.PROFTAB_BENCH_DIST ?? path.join(ROOT, "dist-test"),
    path: "index.html",
    // The empty page is up and its worker started.
    ready: () => document.body.dataset.ready === "1",
    // Drop anywhere on the page, as a user does; the file picker is the alternative.
    load: { method: "drop", selector: "body" },
    loadAlternatives: {
      input: { method: "input", selector: "#file-input" },
    },
    // The page sets data-flamegraph-drawn=1 inside the animation frame that first paints the
    // flame graph of the loaded file; a reader error shows the error bar instead.
    drawn: () => {
      if (document.body.dataset.state === "error") {
        return { error: document.getElementById("error-text").textContent };
      }
      if (document.body.dataset.flamegraphDrawn !== "1") return false;
      const p = window.__proftab;
      return { parseMs: p.parseMs, analyseMs: p.analyseMs, firstDrawMs: p.firstDrawMs, wasmMB: p.wasmMemoryBytes / 2 ** 20 };
    },
  },
};
