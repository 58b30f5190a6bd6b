// Browser entry of the proftab package: wasm-bindgen's `--target web` build, initialized here
// with top-level await, so `import { Profile } from "proftab"` is ready to use. The .wasm is
// located relative to this module (works from any path, and bundlers recognize the pattern).
// Parquet / Arrow come from the columnar build, imported on first use (js/columnar.mjs).
import init, { formats, Profile, ProfileStream } from "../pkg/web/proftab.js";
import { addColumnar } from "./columnar.mjs";
import { parseInSteps } from "./stepped.mjs";

await init({ module_or_path: new URL("../pkg/web/proftab_bg.wasm", import.meta.url) });

parseInSteps(Profile, ProfileStream);
addColumnar(Profile, async () => {
  const columnar = await import("../pkg/columnar-web/proftab.js");
  await columnar.default({ module_or_path: new URL("../pkg/columnar-web/proftab_bg.wasm", import.meta.url) });
  return columnar;
});

export { INT_NA, NO_INDEX } from "./constants.mjs";
export { formats, Profile };
