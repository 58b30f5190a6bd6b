// A field of /proc/self/status in MiB (Linux; NaN elsewhere): the memory figures of the parse
// benchmarks (scripts/bench-parse-wasm.mjs, scripts/bench-floor-node.mjs).
import fs from "node:fs";

/** `field` (`VmRSS`, `VmHWM`, …) of `/proc/self/status` in MiB, else NaN. */
export function statusMiB(field) {
  try {
    const line = fs
      .readFileSync("/proc/self/status", "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${field}:`));
    return line ? Number(line.split(/\s+/)[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}
