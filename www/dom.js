// DOM helpers shared by the viewer's modules. Text is always set as textContent (names in a
// profile are data, never markup).
import { current, listen, onViewer } from "./context.js";

/**
 * The element with id `id` in the current viewer's root (its shadow root, or the document for
 * the page's viewer). Before any viewer exists (a module's top level), `$(id)` stands for that
 * element of every viewer: `$(id).addEventListener(type, fn)` there adds `fn` to the element
 * of each viewer as it starts, and nothing else may be done with it.
 */
export const $ = (id) => (current() ? current().root.getElementById(id) : declared(id));

/** Every element of the current viewer's root that `selector` matches. */
export const $$ = (selector) => [...current().root.querySelectorAll(selector)];

/** The current viewer's focused element (inside its root), or null. */
export const focused = () => current().root.activeElement;

function declared(id) {
  const addEventListener = (type, fn, opts) => onViewer(() => $(id).addEventListener(type, fn, opts));
  return new Proxy(
    { addEventListener },
    {
      get(target, k) {
        if (k in target) return target[k];
        throw new Error(
          `$("${id}").${String(k)} at a module's top level: no viewer exists yet; use onViewer(fn) or perViewer(make) (context.js)`,
        );
      },
    },
  );
}

/** An <option> with `value` and visible `text`. */
export function option(value, text) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  return o;
}

/** Replaces the options of `select` with `[value, text]` pairs. */
export function fillSelect(select, pairs) {
  select.replaceChildren(...pairs.map(([v, t]) => option(v, t)));
}

/** The current viewer's frame: its classes (loaded, comparing, dark, …) and data-state marks. */
export const frame = () => current().frame;

/**
 * Adds `fn` as a keydown listener of every viewer: keys anywhere on the page for the page's
 * viewer, keys inside it for an embedded one (`e.target` is the element inside either way).
 */
export function onKeydown(fn) {
  onViewer(() => listen(current().keys, "keydown", fn));
}

/** Adds `fn` as a `type` listener on window for every viewer (use context.js `eventTarget(e)`). */
export function onWindow(type, fn, opts) {
  onViewer(() => listen(window, type, fn, opts));
}
