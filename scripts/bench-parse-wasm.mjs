// One wasm measurement for `scripts/bench-parse.sh`: reads FILE, then times `Profile.parse` on
// its bytes (the npm package's Node entry, i.e. the same wasm as the browser build).
//   node scripts/bench-parse-wasm.mjs FILE [--runs N]
// Run 1 is cold (fresh process: wasm compiled by Liftoff, TurboFan tier-up in the background),
// runs 2..N are warm. Prints one JSON line: per-run wall and CPU milliseconds of the parse, the
// wasm linear memory size at the end (it only grows, so this is its peak), the process's peak
// RSS (VmHWM, which includes the touched wasm pages, the file bytes and V8's heap) and the RSS
// before parsing.
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { statusMiB } from "./proc-status.mjs";

// Capture the instance's exports (wasm-bindgen keeps its memory private) before loading it.
let wasmExports = null;
const OrigInstance = WebAssembly.Instance;
WebAssembly.Instance = new Proxy(OrigInstance, {
  construct(target, args) {
    const instance = Reflect.construct(target, args);
    wasmExports = instance.exports;
    return instance;
  },
});
const { Profile } = await import("../js/node.mjs");
WebAssembly.Instance = OrigInstance;

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--"));
const runsAt = args.indexOf("--runs");
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
if (!file || !(runs >= 1)) {
  console.error("usage: node scripts/bench-parse-wasm.mjs FILE [--runs N]");
  process.exit(2);
}
const bytes = fs.readFileSync(file);
const rssBeforeMiB = statusMiB("VmRSS");
const wallMs = [];
const cpuMs = [];
let numSamples = 0;
let format = "";
for (let r = 0; r < runs; r++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const p = Profile.parse(bytes, path.basename(file));
  const t1 = performance.now();
  const c = process.cpuUsage(c0);
  wallMs.push(t1 - t0);
  cpuMs.push((c.user + c.system) / 1000);
  numSamples = p.numSamples;
  format = p.format;
  p.free();
}
const wasmMemMiB = wasmExports?.memory ? wasmExports.memory.buffer.byteLength / 1048576 : NaN;
console.log(
  JSON.stringify({
    file: path.basename(file),
    bytes: bytes.length,
    format,
    numSamples,
    wallMs,
    cpuMs,
    wasmMemMiB,
    rssBeforeMiB,
    peakRssMiB: statusMiB("VmHWM"),
    node: process.version,
  }),
);
