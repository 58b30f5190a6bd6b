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
