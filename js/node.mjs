// Node entry of the proftab package: wasm-bindgen's `--target nodejs` build (CommonJS, loads
// its .wasm synchronously from beside itself).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const wasm = require("../pkg/node/proftab.js");

export const Profile = wasm.Profile;
export const formats = wasm.formats;
export { INT_NA, NO_INDEX } from "./constants.mjs";
