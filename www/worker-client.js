// The worker protocol, page side: start the worker, call it (`{id, kind, args}` → a promise of
// its `{id, ok, result | error, fatal}` answer), cancel (terminate, fail every pending call,
// start afresh) and replace a worker that faulted: a `fatal` answer (a wasm trap, out of
// memory in the worker), its `error` or `messageerror` event. Progress messages go to one
// listener, faults to another. No other module talks to the Worker object. Each viewer has
// its own worker (`my`, rebound when a viewer is entered, context.js); an answer enters the
// viewer of its worker before its caller continues.
import { current, enter, onEnter } from "./context.js";

/** The error message of calls failed by `cancel()`. */
export const CANCELLED = "Loading cancelled.";

/** Consecutive faults without an answer in between after which no worker is started again. */
const MAX_RESTARTS = 3;

/** What to do after a worker fault (the same for every viewer: it reads the current one). */
let onFault = () => {};

/** The current viewer's worker and its pending calls. */
let my = null;
onEnter((ctx) => {
  ctx.worker ??= { worker: null, nextCall: 1, calls: new Map(), onProgress: () => {}, restarts: 0 };
  my = ctx.worker;
});

/** The worker script: next to this module, or in the viewer's `assets` folder (element.js). */
function newWorker(assets) {
  if (assets) return new Worker(new URL("worker.js", assets), { type: "module" });
  return new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
}

/** Starts the current viewer's worker; `progress(message)` receives its progress reports. */
export function startWorker(progress = my.onProgress) {
  const ctx = current();
  const w = my;
  w.onProgress = progress;
  w.worker = newWorker(ctx.assets);
  w.worker.onmessage = (ev) => {
    enter(ctx);
    const m = ev.data;
    if (m.kind === "progress") return w.onProgress(m);
    if (m.fatal) return fault(m.error);
    w.restarts = 0;
    const c = w.calls.get(m.id);
    if (!c) return;
    w.calls.delete(m.id);
    if (m.ok) c.resolve(m.result);
    else c.reject(new Error(m.error));
  };
  w.worker.onerror = (e) => {
    enter(ctx);
    e.preventDefault();
    fault(`The viewer's worker failed: ${e.message || "an error without a message (out of memory?)"}`);
  };
  w.worker.onmessageerror = () => {
    enter(ctx);
    fault("The viewer's worker sent a message that could not be read.");
  };
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
  my.worker.terminate();
  const err = new Error(message);
  err.fault = true;
  failAll(err);
  if (++my.restarts > MAX_RESTARTS) {
    my.worker = null;
    return;
  }
  startWorker();
  onFault(message);
}

function failAll(err) {
  for (const c of my.calls.values()) c.reject(err);
  my.calls.clear();
}

/** Ends the current viewer's worker for good (the element left the page). */
export function stopWorker() {
  my.worker?.terminate();
  my.worker = null;
  failAll(new Error(CANCELLED));
}

/** Asks the worker to run handler `kind` with `args`; resolves to its result. */
export function call(kind, args) {
  return new Promise((resolve, reject) => {
    if (!my.worker) return reject(new Error("The viewer's worker failed repeatedly: reload the page."));
    const id = my.nextCall++;
    my.calls.set(id, { resolve, reject });
    my.worker.postMessage({ id, kind, args });
  });
}

/** Stops whatever the worker does: pending calls fail with CANCELLED; a fresh worker starts. */
export function cancel() {
  my.worker?.terminate();
  failAll(new Error(CANCELLED));
  startWorker();
}
