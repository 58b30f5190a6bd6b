// Formatting of values with their units, and of percentages.

const SCALES = {
  nanoseconds: [
    [1e9, "s"],
    [1e6, "ms"],
    [1e3, "µs"],
    [1, "ns"],
  ],
  microseconds: [
    [1e6, "s"],
    [1e3, "ms"],
    [1, "µs"],
  ],
  milliseconds: [
    [1e3, "s"],
    [1, "ms"],
  ],
  seconds: [
    [1, "s"],
    [1e-3, "ms"],
    [1e-6, "µs"],
  ],
  bytes: [
    [2 ** 30, "GiB"],
    [2 ** 20, "MiB"],
    [2 ** 10, "KiB"],
    [1, "B"],
  ],
};

/** `1.23 ms`, `4.5 MiB`, `1,234` for counts. */
export function formatValue(v, unit) {
  if (v === 0) return "0";
  const scale = SCALES[unit];
  if (!scale) {
    const digits = Number.isInteger(v) ? 0 : 2;
    return v.toLocaleString("en-US", { maximumFractionDigits: digits }) + (unit && unit !== "count" ? ` ${unit}` : "");
  }
  const abs = Math.abs(v);
  for (const [f, name] of scale) {
    if (abs >= f || f === scale[scale.length - 1][0]) {
      const x = v / f;
      return `${x.toFixed(Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2)} ${name}`;
    }
  }
  return String(v);
}

/** `12.3%` of `whole`. */
export function percent(part, whole) {
  if (!whole) return "–";
  const p = (100 * part) / whole;
  return `${p >= 10 ? p.toFixed(1) : p.toFixed(2)}%`;
}

/** `12.3 MB` for byte counts in progress messages. */
export function formatBytes(n) {
  return formatValue(n, "bytes");
}
