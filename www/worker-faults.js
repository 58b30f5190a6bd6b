// Test-only handlers of the worker: faults forced by the browser tests. Only the test build has
// this file: scripts/build.sh appends to dist-test/worker.js the lines that add
// `faultHandlers` to the worker's handler table; dist/ has neither this file nor the handler.
// The page's side is test-hook.js (`window.__proftab.fault(mode)`).
import { faultForTests } from "./pkg/proftab.js";

export const faultHandlers = {
  /**
   * `mode`: "panic" (a wasm trap with a panic message), "oom" (the trap of a failed wasm
   * allocation) or "error" (an uncaught error in the worker, as when the browser cannot give it
   * memory: the page sees the worker's `error` event).
   */
  fault({ mode }) {
    if (mode === "error") {
      setTimeout(() => {
        throw new RangeError("Array buffer allocation failed (forced by a test)");
      });
      return {};
    }
    faultForTests(mode);
    return {};
  },
};
