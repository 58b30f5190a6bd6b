// node scripts/fuzz-corpus-keep.mjs MERGED DEST MAX_BYTES [SHARED_FILE...]: copies into DEST the
// inputs of MERGED (a minimised libFuzzer corpus) that may be committed: not a copy, a
// truncation or a light mutation of a file from the shared corpus (those must not enter the
// repository), spread over the sizes, at most MAX_FILES and MAX_BYTES in all. An input counts as taken from a shared
// file when most of its probe windows occur in one (SAMPLES windows of WINDOW bytes, evenly
// spread); inputs shorter than a window are generated or our own and kept.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Bytes per probe window. */
const WINDOW = 48;
/** Most inputs kept per target (a minimised corpus is thousands of files). */
const MAX_FILES = 200;
/** Probe windows per input. */
const SAMPLES = 8;

const [merged, dest, maxBytes, ...sharedFiles] = process.argv.slice(2);
const shared = sharedFiles.map((f) => readFileSync(f));

/** True when most probe windows of `bytes` occur in a shared file. */
function fromShared(bytes) {
  if (bytes.length < WINDOW) return false;
  const last = bytes.length - WINDOW;
  let found = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const at = Math.floor((i * last) / Math.max(1, SAMPLES - 1));
    const probe = bytes.subarray(at, at + WINDOW);
    if (shared.some((s) => s.indexOf(probe) >= 0)) found++;
  }
  return found * 2 > SAMPLES;
}

mkdirSync(dest, { recursive: true });
const inputs = readdirSync(merged)
  .map((name) => ({ name, size: statSync(join(merged, name)).size }))
  .sort((a, b) => a.size - b.size || a.name.localeCompare(b.name));
const own = inputs.filter(({ name }) => !fromShared(readFileSync(join(merged, name))));
// Evenly spaced over the sizes (small and large inputs reach different code), then the
// largest dropped until the bytes fit.
const step = Math.max(1, own.length / MAX_FILES);
const chosen = [];
for (let i = 0; i < own.length && chosen.length < MAX_FILES; i += step) {
  chosen.push(own[Math.floor(i)]);
}
let total = chosen.reduce((sum, { size }) => sum + size, 0);
while (total > Number(maxBytes)) total -= chosen.pop().size;
for (const { name } of chosen) copyFileSync(join(merged, name), join(dest, name));
console.log(
  `${chosen.length} of ${inputs.length} inputs kept (${total} bytes); ${inputs.length - own.length} taken from the shared corpus left out`,
);
