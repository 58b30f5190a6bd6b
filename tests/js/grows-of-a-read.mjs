// Not a test itself: run by memory.test.mjs in a fresh process (a fresh wasm instance, whose
// memory has no holes left by earlier reads). Reads the pprof file argv[3] with the package
// build argv[2] as js/stepped.mjs does, in steps of 256 samples, and prints as JSON how many
// calls grew the instance's memory and by how much.
import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const wasm = require(process.argv[2]);
const bytes = fs.readFileSync(process.argv[3]);
const stream = new wasm.ProfileStream("big.pb.gz", bytes.length, bytes.readUInt32LE(bytes.length - 4));
for (let at = 0; at < bytes.length; at += 1 << 20) stream.feed(bytes.subarray(at, at + (1 << 20)));
const fed = wasm.memoryBytes();
let grows = 0;
let steps = 0;
for (let done = false; !done; steps++) {
  const before = wasm.memoryBytes();
  done = stream.step(256);
  grows += Number(wasm.memoryBytes() > before);
}
const profile = stream.finish();
const out = { steps, grows, grownBytes: wasm.memoryBytes() - fed, samples: profile.numSamples };
profile.free();
console.log(JSON.stringify(out));
