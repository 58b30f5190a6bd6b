// Node entry of the proftab package: wasm-bindgen's `--target nodejs` build (CommonJS, loads
// its .wasm synchronously from beside itself). Parquet / Arrow come from the columnar build,
// required on first use (js/columnar.mjs).
import { createRequire } from "node:module";
import { addColumnar } from "./columnar.mjs";
import { parseInSteps } from "./stepped.mjs";

const require = createRequire(import.meta.url);
const wasm = require("../pkg/node/proftab.js");

export const Profile = wasm.Profile;
parseInSteps(Profile, wasm.ProfileStream);
export const formats = wasm.formats;
export { INT_NA, NO_INDEX } from "./constants.mjs";

addColumnar(Profile, async () => require("../pkg/columnar-node/proftab.js"));
