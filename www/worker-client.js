// The worker protocol, page side: start the worker, call it (`{id, kind, args}` → a promise of
// its `{id, ok, result | error, fatal}` answer), cancel (terminate, fail every pending call,
// start afresh) and replace a worker that faulted: a `fatal` answer (a wasm trap, out of
// memory in the worker), its `error` or `messageerror` event. Progress messages go to one
// listener, faults to another. No other module talks to the Worker object.

/** The error message of calls failed by `cancel()`. */
export const CANCELLED = "Loading cancelled.";

/** Consecutive faults without an answer in between after which no worker is started again. */
const MAX_RESTARTS = 3;

let worker = null;
let nextCall = 1;
const calls = new Map();
let onProgress = () => {};
let onFault = () => {};
let restarts = 0;

/** Starts the worker; `progress(message)` receives its progress reports. */
export function startWorker(progress = onProgress) {
  onProgress = progress;
  worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (ev) => {
    const m = ev.data;
    if (m.kind === "progress") return onProgress(m);
    if (m.fatal) return fault(m.error);
    restarts = 0;
    const c = calls.get(m.id);
    if (!c) return;
    calls.delete(m.id);
    if (m.ok) c.resolve(m.result);
    else c.reject(new Error(m.error));
  };
  worker.onerror = (e) => {
    e.preventDefault();
    fault(`The viewer's worker failed: ${e.message || "an error without a message (out of memory?)"}`);
  };
  worker.onmessageerror = () => fault("The viewer's worker sent a message that could not be read.");
}

/**
 * Calls `fn(message)` after a worker fault, once a fresh worker takes calls (it holds no
 * profile: the listener loads one again). Calls pending at the fault fail with an error whose
 * `fault` is true.
 */
export function onWorkerFault(fn) {
  onFault = fn;
}

/** Replaces the faulted worker: its pending calls fail, a fresh one starts, the listener runs. */
function fault(message) {
  worker.terminate();
  const err = new Error(message);
  err.fault = true;
  failAll(err);
  if (++restarts > MAX_RESTARTS) {
    worker = null;
    return;
  }
  startWorker();
  onFault(message);
}

function failAll(err) {
  for (const c of calls.values()) c.reject(err);
  calls.clear();
}

/** Asks the worker to run handler `kind` with `args`; resolves to its result. */
export function call(kind, args) {
  return new Promise((resolve, reject) => {
    if (!worker) return reject(new Error("The viewer's worker failed repeatedly: reload the page."));
    const id = nextCall++;
    calls.set(id, { resolve, reject });
    worker.postMessage({ id, kind, args });
  });
}

/** Stops whatever the worker does: pending calls fail with CANCELLED; a fresh worker starts. */
export function cancel() {
  worker?.terminate();
  failAll(new Error(CANCELLED));
  startWorker();
}
