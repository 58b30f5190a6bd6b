// Browser entry of the proftab package: wasm-bindgen's `--target web` build, initialized here
// with top-level await, so `import { Profile } from "proftab"` is ready to use. The .wasm is
// located relative to this module (works from any path, and bundlers recognize the pattern).
import init, { formats, Profile } from "../pkg/web/proftab.js";

await init({ module_or_path: new URL("../pkg/web/proftab_bg.wasm", import.meta.url) });

export { INT_NA, NO_INDEX } from "./constants.mjs";
export { formats, Profile };
