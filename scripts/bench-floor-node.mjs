// The Node parse floor of a pprof file, the yardstick of `Profile.parse` (issue #12): Node's
// zlib.gunzipSync and the decode of the whole message by pprof-format (the pure-JS pprof
// decoder), no model. Prints one JSON line like scripts/bench-parse-wasm.mjs, so an interleaved
// A/B of the two scripts (`node bench/ab.mjs`) (one parse each) gives the ratio on any machine:
//   node scripts/bench-floor-node.mjs FILE [--runs N] [--pprof-format DIR]
// DIR is the pprof-format package folder (default: resolved from node_modules); it is not a
// dependency of proftab: `npm install --prefix /tmp/x pprof-format@2.3.2` is enough.
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import zlib from "node:zlib";
import { statusMiB } from "./proc-status.mjs";

const args = process.argv.slice(2);
const file = args.find((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"));
const opt = (name, dflt) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : dflt;
};
const runs = Number(opt("--runs", "1"));
const dir = opt("--pprof-format", null);
if (!file || !(runs >= 1)) {
  console.error("usage: node scripts/bench-floor-node.mjs FILE [--runs N] [--pprof-format DIR]");
  process.exit(2);
}
const pkg = dir ? await import(pathToFileURL(path.join(path.resolve(dir), "dist/esm/index.js")).href) : await import("pprof-format");
const { Profile } = pkg.default ?? pkg;

const bytes = fs.readFileSync(file);
const inflateMs = [];
const decodeMs = [];
let numSamples = 0;
for (let r = 0; r < runs; r++) {
  const t0 = performance.now();
  const raw = bytes[0] === 0x1f && bytes[1] === 0x8b ? zlib.gunzipSync(bytes) : bytes;
  const t1 = performance.now();
  const p = Profile.decode(raw);
  const t2 = performance.now();
  inflateMs.push(t1 - t0);
  decodeMs.push(t2 - t1);
  numSamples = p.sample.length;
}
console.log(
  JSON.stringify({
    file: path.basename(file),
    bytes: bytes.length,
    numSamples,
    inflateMs,
    decodeMs,
    peakRssMiB: statusMiB("VmHWM"),
    node: process.version,
  }),
);
