// proftab viewer: the entry module. Parsing and aggregation run in the worker (wasm); the
// page's state is in state.js, the URL hash mapping in url.js, each view in views/, the
// toolbar, chips, menu, tooltip, messages, export and loading in their own modules. This file
// only starts them: the worker, the keyboard, the theme, the examples and `?url=`.
import { focusSearch } from "./toolbar.js";
import "./chips.js";
import { loadFromAddress, showExamples } from "./load.js";
import { closeMenu } from "./menu.js";
import { hideError, setPageState, showError, showProgress } from "./messages.js";
import { on, S, selectFrame, setTheme } from "./state.js";
import { hideTooltip } from "./tooltip.js";
import { popCrumb } from "./views/crumbs.js";
import { activeViews } from "./views/index.js";
import { startWorker } from "./worker-client.js";

on("compareResult", (error) => (error ? showError(error) : hideError()));

window.addEventListener("keydown", (e) => {
  const tag = e.target.tagName;
  if (e.key === "Escape") {
    closeMenu();
    hideTooltip();
    if (tag === "INPUT") e.target.blur();
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

startWorker(showProgress);
const stored = localStorage.getItem("proftab-theme");
const prefersDark = window.matchMedia("(prefers-color-scheme: dark)");
setTheme(stored ? stored === "dark" : prefersDark.matches);
prefersDark.addEventListener("change", (e) => {
  if (!localStorage.getItem("proftab-theme")) setTheme(e.matches);
});
showExamples();
document.body.dataset.ready = "1";
setPageState("ready");
loadFromAddress();
