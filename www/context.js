// Which viewer the code is running for. A page may hold several <proftab-viewer> elements
// (element.js); the viewer's modules are loaded once and keep their per-viewer things (the
// state `S`, the DOM root that `$` searches, the worker, the views' objects) in the viewer's
// context. `current()` is the viewer the running code serves: every way into the viewer's code
// enters its viewer first —
//   - DOM events inside its root (capturing listeners of element.js on the root),
//   - worker answers (worker-client.js), the public methods of the element,
//   - listeners on window and timers, animation frames and observers wrapped by `bound`,
//   - promises of the platform (fetch, file reads) awaited through `resume`.
// Code that runs synchronously from there, and the continuations of the viewer's worker calls,
// see the same viewer. Invariant: no viewer's code runs while another viewer is current.

let active = null;
const enterHooks = [];
const setupHooks = [];

/** The viewer the running code serves (null before the first viewer exists). */
export function current() {
  return active;
}

/** Makes `ctx` the current viewer (the hooks of `onEnter` rebind the modules' live bindings). */
export function enter(ctx) {
  if (active === ctx) return;
  active = ctx;
  for (const fn of enterHooks) fn(ctx);
}

/** Calls `fn(ctx)` whenever a viewer becomes current. */
export function onEnter(fn) {
  enterHooks.push(fn);
}

/** Calls `fn()` once for every new viewer, with that viewer current (DOM wiring at its start). */
export function onViewer(fn) {
  setupHooks.push(fn);
}

/** Runs the `onViewer` functions for the new viewer `ctx` (element.js). */
export function setUpViewer(ctx) {
  enter(ctx);
  for (const fn of setupHooks) fn();
}

/** `fn` that enters the viewer current now before it runs (for timers, observers, window listeners). */
export function bound(fn) {
  const ctx = active;
  return (...args) => {
    enter(ctx);
    return fn(...args);
  };
}

/** `promise`, whose continuation runs with the viewer current now entered again. */
export function resume(promise) {
  const ctx = active;
  return promise.then(
    (v) => {
      enter(ctx);
      return v;
    },
    (e) => {
      enter(ctx);
      throw e;
    },
  );
}

/** `target.addEventListener(type, fn, opts)` for the current viewer (see `bound`). */
export function listen(target, type, fn, opts) {
  target.addEventListener(type, bound(fn), opts);
}

/**
 * An object per viewer, made by `make()` in the viewer the first time it is used there: the
 * returned proxy reads and writes the current viewer's object (methods bound to it), so
 * `export const mainView = perViewer(() => new FlameView(…))` keeps its call sites.
 */
export function perViewer(make) {
  const key = Symbol("perViewer");
  const target = () => {
    const ctx = active;
    if (!ctx) throw new Error("proftab: a viewer's object was used outside a viewer");
    if (!ctx.slots.has(key)) ctx.slots.set(key, make());
    return ctx.slots.get(key);
  };
  return new Proxy(
    {},
    {
      get(_, k) {
        const t = target();
        const v = t[k];
        return typeof v === "function" ? v.bind(t) : v;
      },
      set(_, k, v) {
        target()[k] = v;
        return true;
      },
      has: (_, k) => k in target(),
    },
  );
}

/** The element an event really happened on (inside a shadow root, not its host). */
export function eventTarget(e) {
  return e.composedPath?.()[0] ?? e.target;
}
