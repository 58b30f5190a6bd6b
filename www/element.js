// <proftab-viewer>: the whole viewer as a custom element (`import "proftab/viewer"`). Each
// element is one viewer with its own context (context.js: state, DOM root, worker), so several
// on a page work independently. By default it draws in a shadow root and fills its box; with
// the `page` attribute (dist/index.html) it draws in the page itself and owns the address
// (URL hash, shared links), the keyboard and drops anywhere on the page.
//
//   attributes  src (a profile's URL), view (flame, time, sandwich, compare, calltree, source),
//               value-type (a value type's name, e.g. cpu), theme (light, dark; default: the
//               system's), assets (the folder of worker.js, pkg/ and the .css files when a
//               bundler did not keep them next to this module; also `ProftabViewer.assets`)
//   methods     load(files | Uint8Array[] | ArrayBuffer[] | Profile), select(functionName)
//   events      proftab-load, proftab-error, proftab-select (bubbling, composed; see `detail`)
import "./chips.js";
import { enter, eventTarget, setUpViewer } from "./context.js";
import { onKeydown } from "./dom.js";
import { load } from "./load.js";
import { MARKUP } from "./markup.js";
import { closeMenu } from "./menu.js";
import { announce, hideError, setPageState, showError, showProgress } from "./messages.js";
import { frameLabel, on, S, selectFrame, setLoaded, setTheme, setValueType, setView } from "./state.js";
import { focusSearch } from "./toolbar.js";
import { hideTooltip } from "./tooltip.js";
import { popCrumb } from "./views/crumbs.js";
import { activeViews } from "./views/index.js";
import { startWorker, stopWorker } from "./worker-client.js";

/** Events whose capture on a viewer's root enters that viewer (context.js). */
const ENTERING_EVENTS = [
  "click", "dblclick", "auxclick", "contextmenu", "mousedown", "mouseup", "mousemove", "mouseover", "mouseout",
  "mouseenter", "mouseleave", "pointerdown", "pointerup", "pointermove", "pointerleave", "wheel", "keydown",
  "keyup", "input", "change", "scroll", "focus", "blur", "focusin", "focusout", "dragstart", "dragenter",
  "dragover", "dragleave", "drop", "close", "cancel", "submit", "toggle", "touchstart", "touchmove", "touchend",
]; // biome-ignore format: a list

/** The style sheets, next to this module (bundlers rewrite these URLs) or under `assets`. */
function styleSheets(assets) {
  const names = ["style.css", "source.css", "calltree.css", "export.css", "notice.css", "sql.css"];
  if (assets) return names.map((n) => new URL(n, assets).href);
  return [
    new URL("./style.css", import.meta.url).href,
    new URL("./source.css", import.meta.url).href,
    new URL("./calltree.css", import.meta.url).href,
    new URL("./export.css", import.meta.url).href,
    new URL("./notice.css", import.meta.url).href,
    new URL("./sql.css", import.meta.url).href,
  ];
}

/** A new viewer context for `host` (see context.js for what the modules keep in it). */
function newContext(host) {
  const page = host.hasAttribute("page");
  const assets = host.getAttribute("assets") || ProftabViewer.assets || null;
  const ctx = { host, page, assets: assets && new URL(assets, document.baseURI).href, slots: new Map() };
  if (page) {
    host.innerHTML = MARKUP;
    document.body.classList.add("viewer");
    return Object.assign(ctx, { root: document, frame: document.body, keys: window, drops: window });
  }
  const shadow = host.attachShadow({ mode: "open" });
  const links = styleSheets(ctx.assets).map((href) => Object.assign(document.createElement("link"), { rel: "stylesheet", href }));
  const frame = Object.assign(document.createElement("div"), { className: "viewer", innerHTML: MARKUP });
  shadow.append(...links, frame);
  return Object.assign(ctx, { root: shadow, frame, keys: shadow, drops: host });
}

/** The theme of the `theme` attribute, else (the page's viewer) the one chosen before, else the system's. */
function themeIsDark(ctx) {
  const asked = ctx.host.getAttribute("theme");
  if (asked === "dark" || asked === "light") return asked === "dark";
  const stored = ctx.page ? localStorage.getItem("proftab-theme") : null;
  return stored ? stored === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
}

/** Files for `load()`: File objects as they are, bytes as files named profile-N. */
async function filesOf(input) {
  if (input && typeof input.write === "function" && typeof input.info === "function") {
    return [new File([input.write("tables-json")], "profile.json")];
  }
  const list = input instanceof Uint8Array || input instanceof ArrayBuffer || input instanceof Blob ? [input] : [...input];
  return list.map((x, i) => (x instanceof File ? x : new File([x], x.name || `profile-${i + 1}`)));
}

export class ProftabViewer extends HTMLElement {
  static observedAttributes = ["src", "view", "value-type", "theme"];
  /** The folder of the viewer's files when a bundler did not keep them next to this module. */
  static assets = null;

  connectedCallback() {
    if (this.ctx) {
      if (!this.ctx.stopped) return;
      this.ctx.stopped = false;
      // Removed and added again: a fresh worker, which holds no profile; `src` loads again.
      return this.#run(() => {
        startWorker(showProgress);
        setLoaded(false);
        setPageState("ready");
        if (this.getAttribute("src")) this.#loadSrc();
      });
    }
    this.ctx = newContext(this);
    const ctx = this.ctx;
    for (const type of ENTERING_EVENTS) ctx.root.addEventListener(type, () => enter(ctx), { capture: true });
    setUpViewer(ctx);
    ctx.preset = () => this.#preset();
    const view = this.getAttribute("view");
    if (view) S.view = view;
    startWorker(showProgress);
    setTheme(themeIsDark(ctx));
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => this.#run(() => setTheme(themeIsDark(ctx))));
    ctx.frame.dataset.ready = "1";
    setPageState("ready");
    if (this.getAttribute("src")) this.#loadSrc();
  }

  disconnectedCallback() {
    // Moved within the page: connected again at once. Removed: its worker ends.
    queueMicrotask(() => {
      if (this.isConnected || !this.ctx || this.ctx.stopped) return;
      this.ctx.stopped = true;
      this.#run(stopWorker);
    });
  }

  attributeChangedCallback(name, was, now) {
    if (!this.ctx || was === now) return;
    if (name === "src" && now) this.#loadSrc();
    else if (name === "theme") this.#run(() => setTheme(themeIsDark(this.ctx)));
    else if (name === "view") this.#run(() => setView(now));
    else if (name === "value-type") this.#run(() => S.loaded && this.#chooseValueType() && setValueType(S.vt));
  }

  /** Loads profiles: File objects, Uint8Arrays / ArrayBuffers / Blobs, or a proftab `Profile`. */
  async load(input) {
    const files = await filesOf(input);
    return this.#run(() => load({ files, paths: files.map((f) => f.name) }));
  }

  /** Selects the function named `name` everywhere; false when the profile has none of that name. */
  select(name) {
    return this.#run(() => {
      const frame = S.nameIndex.get(name);
      if (frame === undefined) return false;
      selectFrame(frame, false);
      return true;
    });
  }

  /** The name of the selected function, or null. */
  get selected() {
    return this.#run(() => (S.selected >= 0 ? frameLabel(S.selected) : null));
  }

  #run(fn) {
    enter(this.ctx);
    return fn();
  }

  #loadSrc() {
    this.#run(() => load({ urls: [new URL(this.getAttribute("src"), document.baseURI).href] }));
  }

  /** After a load's defaults and before its first draw: the `view` and `value-type` attributes. */
  #preset() {
    const view = this.getAttribute("view");
    if (view && !this.ctx.page) S.view = view;
    this.#chooseValueType();
  }

  #chooseValueType() {
    const want = this.getAttribute("value-type");
    const i = want ? S.info.valueTypes.findIndex((t) => t.type === want) : -1;
    if (i >= 0) S.vt = i;
    return i >= 0;
  }
}

// ---------------------------------------------------------------- every viewer

on("compareResult", (error) => (error ? showError(error) : hideError()));
on("selected", () => announce("select", { name: S.selected >= 0 ? frameLabel(S.selected) : null, path: selectedPath() }));

/** The selected call path's function names, outermost first (null when the selection is no path). */
function selectedPath() {
  const p = S.selectedPath;
  if (!p) return null;
  const names = p.frames.map(frameLabel);
  return p.inverted ? names.reverse() : names;
}

onKeydown((e) => {
  const target = eventTarget(e);
  const tag = target.tagName;
  if (e.key === "Escape") {
    closeMenu();
    hideTooltip();
    if (tag === "INPUT") target.blur();
    else if (!popCrumb()) selectFrame(-1, false);
    return;
  }
  if (tag === "INPUT" || tag === "SELECT" || !S.loaded) return;
  if ((e.key === "f" && (e.ctrlKey || e.metaKey)) || e.key === "/") {
    e.preventDefault();
    focusSearch();
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (activeViews()[0].key(e)) e.preventDefault();
});

if (!customElements.get("proftab-viewer")) customElements.define("proftab-viewer", ProftabViewer);
