// Copies the viewer's built-in example profiles from tests/fixtures into www/examples/ and
// writes www/examples/index.json, which the empty page reads to offer one-click examples.
// Run by scripts/build.sh before dist/ is assembled; www/examples/ is not committed.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, "www", "examples");

// Each example: a label and candidate fixture paths (first existing one wins).
const EXAMPLES = [
  {
    label: "Go CPU profile (pprof)",
    dir: "tests/fixtures/pprof",
    pick: (names) =>
      names.find((n) => /go.*cpu|cpu.*go/i.test(n) && /\.(pb\.gz|pprof|pb)$/.test(n)) ||
      names.find((n) => /cpu/i.test(n) && /\.(pb\.gz|pprof|pb)$/.test(n)),
  },
  {
    label: "R profile with memory (Rprof)",
    dir: "tests/fixtures/rprof",
    pick: (names) => names.find((n) => n === "memory.out") || names.find((n) => /mem/i.test(n) && n.endsWith(".out")),
  },
];

fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });
const index = [];
for (const ex of EXAMPLES) {
  const dir = path.join(ROOT, ex.dir);
  const names = fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
  const name = ex.pick(names);
  if (!name) {
    console.warn(`examples: no fixture for "${ex.label}" in ${ex.dir}, skipped`);
    continue;
  }
  fs.copyFileSync(path.join(dir, name), path.join(OUT, name));
  index.push({ file: name, label: ex.label });
}
fs.writeFileSync(path.join(OUT, "index.json"), `${JSON.stringify(index, null, 1)}\n`);
console.log(`examples: ${index.map((e) => e.file).join(", ") || "none"}`);
