// `npm run bench`: how fast the package parses, in Node (the same wasm as the browser build).
//   node scripts/bench.mjs [FILE...] [--runs N]
// Without files: every corpus file of a format this build reads (../shared/corpus, or
// $PROFTAB_CORPUS). Prints one row per file: size, samples, median and min parse time of N runs
// (after one warm-up), throughput; and the info()/columns copy time.
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { formats, Profile } from "../js/node.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CORPUS = process.env.PROFTAB_CORPUS ?? path.resolve(ROOT, "../shared/corpus");

function parseArgs(argv) {
  const files = [];
  let runs = 5;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--runs") runs = Number(argv[++i]);
    else files.push(argv[i]);
  }
  if (!(runs >= 1)) throw new Error("--runs needs a positive number");
  return { files, runs };
}

function corpusInputs() {
  const readable = formats()
    .filter((f) => f.read)
    .map((f) => f.name);
  return readable.flatMap((name) => {
    const dir = path.join(CORPUS, name);
    return fs.existsSync(dir)
      ? fs
          .readdirSync(dir)
          .sort()
          .map((f) => path.join(dir, f))
      : [];
  });
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Parses `bytes` once, returns [milliseconds, profile]. */
function timeParse(bytes, name) {
  const t0 = performance.now();
  const p = Profile.parse(bytes, name);
  return [performance.now() - t0, p];
}

function benchFile(file, runs) {
  const bytes = fs.readFileSync(file);
  const name = path.basename(file);
  let samples = 0;
  let format = "";
  const times = [];
  let copyMs = 0;
  for (let r = 0; r <= runs; r++) {
    const [ms, p] = timeParse(bytes, name);
    if (r > 0) times.push(ms);
    if (r === runs) {
      const t0 = performance.now();
      p.info();
      p.strings();
      p.sampleStack();
      p.stackPrefix();
      p.stackLocation();
      p.locationFunction();
      p.functionName();
      for (const vt of p.valueTypes()) p.values(vt.type);
      copyMs = performance.now() - t0;
    }
    samples = p.numSamples;
    format = p.format;
    p.free();
  }
  const med = median(times);
  return {
    file: path.relative(process.cwd(), file),
    format,
    kB: (bytes.length / 1024).toFixed(1),
    samples,
    medianMs: med.toFixed(2),
    minMs: Math.min(...times).toFixed(2),
    "MB/s": (bytes.length / 1e6 / (med / 1e3)).toFixed(1),
    infoAndColumnsMs: copyMs.toFixed(2),
  };
}

const { files, runs } = parseArgs(process.argv.slice(2));
const inputs = files.length > 0 ? files : corpusInputs();
if (inputs.length === 0) {
  console.log(`bench: nothing to parse: no reader in this build for a folder of ${CORPUS}`);
  process.exit(0);
}
const rows = [];
for (const file of inputs) {
  try {
    rows.push(benchFile(file, runs));
  } catch (e) {
    rows.push({ file: path.relative(process.cwd(), file), error: e.message });
  }
}
console.table(rows);
