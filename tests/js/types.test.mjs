// js/index.d.ts: it compiles a user's strict TypeScript, and it declares exactly the methods
// the wasm build has (so the hand-written types cannot drift from src/wasm.rs).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { Profile } from "proftab";
import { ROOT } from "./helpers.mjs";

test("a strict TypeScript user of the package compiles", () => {
  const tsc = path.join(ROOT, "node_modules/.bin/tsc");
  const flags = [
    "--noEmit",
    "--strict",
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
    "--target",
    "es2022",
    "--lib",
    "es2022,esnext.disposable",
  ];
  try {
    execFileSync(tsc, [...flags, path.join(ROOT, "tests/js/types-check.ts")], { cwd: ROOT, encoding: "utf8" });
  } catch (e) {
    assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
  }
});

/** Member names declared in the `declare class Profile { ... }` block of index.d.ts. */
function declaredMembers() {
  const dts = fs.readFileSync(path.join(ROOT, "js/index.d.ts"), "utf8");
  const body = dts.slice(dts.indexOf("export declare class Profile {"));
  const block = body.slice(0, body.indexOf("\n}\n"));
  const instance = new Set();
  const statics = new Set();
  for (const m of block.matchAll(/^ {2}(static )?(readonly )?([A-Za-z]\w*)[(:]/gm)) {
    (m[1] ? statics : instance).add(m[3]);
  }
  instance.delete("constructor");
  return { instance, statics };
}

test("index.d.ts declares exactly the members of the wasm Profile class", () => {
  const { instance, statics } = declaredMembers();
  const actual = Object.getOwnPropertyNames(Profile.prototype).filter((n) => n !== "constructor" && !n.startsWith("__"));
  assert.deepEqual([...instance].sort(), actual.sort());
  const actualStatics = Object.getOwnPropertyNames(Profile).filter(
    (n) => !["length", "name", "prototype"].includes(n) && !n.startsWith("__"),
  );
  assert.deepEqual([...statics].sort(), actualStatics.sort());
});
