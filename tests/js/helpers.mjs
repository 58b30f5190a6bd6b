// Helpers shared by the Node tests (not a test file itself).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The shared corpus: $PROFTAB_CORPUS, else ../shared/corpus beside the repository. */
export const CORPUS = process.env.PROFTAB_CORPUS ?? path.resolve(ROOT, "../shared/corpus");

/** The corpus of formats added later: corpus-new/ beside corpus/ (one folder per format). */
export const CORPUS_NEW = path.join(path.dirname(CORPUS), "corpus-new");

// Files beside the profiles that are not profiles: the expected outputs of the tools that wrote them.
const NOT_A_PROFILE = /(\.expected(\.txt)?|\.md)$/;

/** Profile files of one folder (named after the format) of `corpus`, sorted; [] when absent. */
export function corpusFiles(folder, corpus = CORPUS) {
  const dir = path.join(corpus, folder);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => fs.statSync(path.join(dir, f)).isFile() && !NOT_A_PROFILE.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

/** The names of the formats this build can read. */
export function readableFormats(formats) {
  return formats()
    .filter((f) => f.read)
    .map((f) => f.name);
}

/** tests/fixtures/tables-json/wasm-api-tiny.json, written by hand: main -> work -> leaf in
 * samples 1 and 2, main -> work in sample 3; samples/count 1 each, time/nanoseconds 10, 20 and
 * none. */
export const TINY = path.join(ROOT, "tests/fixtures/tables-json/wasm-api-tiny.json");

/**
 * Self samples per symbol of a `perf report --sort dso,sym -n` text (summed over events), each
 * with its DSO: `Map(name → {dso, n})` (as tests/perf_data.rs reads it).
 */
export function perfReportRows(text) {
  const rows = new Map();
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const words = line.trim().split(/\s+/);
    if (words.length < 5 || !words[0].endsWith("%")) continue;
    const name = words.slice(4).join(" ");
    const row = rows.get(name) ?? { dso: words[2], n: 0 };
    row.n += Number(words[1]);
    rows.set(name, row);
  }
  return rows;
}

/**
 * Compares self samples per name (`got`, a Map) with `perfReportRows`: every symbol both name
 * has the same count, `binary`'s symbols are all named, and what `got` leaves unsymbolised
 * (`x+0x…`, `[unknown]`) adds up to perf's rows it does not name. Returns the problems found.
 */
export function perfReportDifferences(rows, got, binary) {
  const left = new Map(got);
  const problems = [];
  let unmatched = 0;
  for (const [name, { dso, n }] of rows) {
    if (left.has(name)) {
      if (left.get(name) !== n) problems.push(`${name}: ${left.get(name)} ≠ ${n}`);
      left.delete(name);
    } else if (dso === binary) problems.push(`${name} of ${binary} not symbolised`);
    else unmatched += n;
  }
  for (const [name, n] of left) {
    if (!name.includes("+0x") && name !== "[unknown]") problems.push(`${name} (${n}) is not in perf report`);
    unmatched -= n;
  }
  if (unmatched !== 0) problems.push(`unsymbolised samples differ by ${unmatched}`);
  return problems;
}
