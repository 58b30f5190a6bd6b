// Times command A against command B in turn (A B A B …), each run a whole process measured by
// GNU time (/usr/bin/time: wall, user + system CPU, peak RSS), and prints the medians (with
// min and max) and the A/B ratios taken pair by pair, whose median is the figure to quote:
// pairing keeps a ratio meaningful while the machine's speed drifts.
//
//   node bench/ab.mjs [-n RUNS] [--warmup N] [--vs 'COMMAND B'] -- COMMAND A [ARG...]
//
// RUNS defaults to 5, N (untimed runs of each before the timed ones) to 1. COMMAND B is one
// string split as a shell splits words (quotes, no expansions); neither command gets a shell,
// so a pipe is written `sh -c '…'`. Output is discarded. Needs GNU time (Debian `time`).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const TIME = "/usr/bin/time";

/// `text` split into words as a POSIX shell splits them (single and double quotes, backslash).
export function shellWords(text) {
  const words = [];
  let word = null;
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "\\" && i + 1 < text.length && '"\\$`'.includes(text[i + 1])) word += text[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= "";
    } else if (c === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (quote) throw new Error(`unclosed ${quote} in: ${text}`);
  if (word !== null) words.push(word);
  return words;
}

/// One run of `argv` under GNU time: { wall, cpu (s), peakMiB, status }.
function timeOnce(argv) {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ab-")), "time");
  const r = spawnSync(TIME, ["-f", "%e %U %S %M %x", "-o", out, ...argv], {
    stdio: ["ignore", "ignore", "ignore"],
  });
  if (r.error) throw new Error(`${TIME}: ${r.error.message} (Debian package: time)`);
  const fields = fs.readFileSync(out, "utf8").trim().split("\n").pop().split(" ").map(Number);
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
  const [wall, user, sys, kib, status] = fields;
  return { wall, cpu: user + sys, peakMiB: kib / 1024, status };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const spread = (xs, digits) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

function parseArgs(argv) {
  const opts = { runs: 5, warmup: 1, b: null, a: [] };
  const dash = argv.indexOf("--");
  if (dash < 0 || dash === argv.length - 1) throw new Error("usage: node bench/ab.mjs [-n RUNS] [--warmup N] [--vs 'B'] -- A...");
  const flags = argv.slice(0, dash);
  opts.a = argv.slice(dash + 1);
  for (let i = 0; i < flags.length; i++) {
    const value = flags[i + 1];
    if (flags[i] === "-n") opts.runs = Number(value);
    else if (flags[i] === "--warmup") opts.warmup = Number(value);
    else if (flags[i] === "--vs") opts.b = shellWords(value);
    else throw new Error(`unknown option ${flags[i]}`);
    i++;
  }
  if (!(opts.runs >= 1) || !(opts.warmup >= 0)) throw new Error("-n must be ≥ 1 and --warmup ≥ 0");
  return opts;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const commands = opts.b ? [opts.a, opts.b] : [opts.a];
  for (let w = 0; w < opts.warmup; w++) for (const c of commands) timeOnce(c);
  const runs = commands.map(() => []);
  for (let r = 0; r < opts.runs; r++) {
    for (const [i, c] of commands.entries()) runs[i].push(timeOnce(c));
  }
  console.log(
    `${new Date().toISOString()}, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  ["A", "B"].slice(0, commands.length).forEach((name, i) => {
    const rs = runs[i];
    const statuses = [...new Set(rs.map((r) => r.status))].join(",");
    console.log(
      `${name}: cpu s ${spread(
        rs.map((r) => r.cpu),
        3,
      )}, wall s ${spread(
        rs.map((r) => r.wall),
        2,
      )}, peak MiB ${spread(
        rs.map((r) => r.peakMiB),
        0,
      )}, exit ${statuses}: ${commands[i].join(" ")}`,
    );
  });
  if (opts.b) {
    const ratio = (key) => {
      const pairs = runs[0].map((a, i) => a[key] / runs[1][i][key]).filter(Number.isFinite);
      return pairs.length ? median(pairs).toFixed(3) : "n/a (B took 0)";
    };
    console.log(`A/B paired median: cpu ${ratio("cpu")}, wall ${ratio("wall")}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
