// The worker protocol, page side: start the worker, call it (`{id, kind, args}` → a promise of
// its `{id, ok, result | error}` answer), cancel (terminate, fail every pending call, start
// afresh) and fail all calls when the worker dies. Progress messages go to one listener.
// No other module talks to the Worker object.

/** The error message of calls failed by `cancel()`. */
export const CANCELLED = "Loading cancelled.";

let worker = null;
let nextCall = 1;
const calls = new Map();
let onProgress = () => {};

/** Starts the worker; `progress(message)` receives its progress reports. */
export function startWorker(progress = onProgress) {
  onProgress = progress;
  worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (ev) => {
    const m = ev.data;
    if (m.kind === "progress") return onProgress(m);
    const c = calls.get(m.id);
    if (!c) return;
    calls.delete(m.id);
    if (m.ok) c.resolve(m.result);
    else c.reject(new Error(m.error));
  };
  worker.onerror = (e) => {
    e.preventDefault();
    failAll(new Error(e.message || "the worker failed"));
  };
}

function failAll(err) {
  for (const c of calls.values()) c.reject(err);
  calls.clear();
}

/** Asks the worker to run handler `kind` with `args`; resolves to its result. */
export function call(kind, args) {
  return new Promise((resolve, reject) => {
    const id = nextCall++;
    calls.set(id, { resolve, reject });
    worker.postMessage({ id, kind, args });
  });
}

/** Stops whatever the worker does: pending calls fail with CANCELLED; a fresh worker starts. */
export function cancel() {
  worker.terminate();
  failAll(new Error(CANCELLED));
  startWorker();
}
