// The toolbar (#toolbar, one row down to 1,024 px) and the bar under it (#bar): view tabs,
// value type, source, the view options menu (order / icicle / bottom-up), search, export,
// theme, the sample filter (#facet) and the status line. Controls call state.js; the listeners below show the state they depend on.
import { bound, current, eventTarget, onViewer, perViewer } from "./context.js";
import { $, $$, fillSelect, focused, frame, onWindow, option } from "./dom.js";
import { copyLink, exportAs } from "./export.js";
import { formatValue, percent } from "./format.js";
import {
  canCompare,
  chooseFacet,
  hideMatches,
  on,
  S,
  setQuery,
  setSource,
  setTheme,
  setValueType,
  setView,
  toggleBottomUp,
  toggleIcicle,
  toggleOrder,
  unit,
} from "./state.js";

/** The text in the search box (kept when a new profile loads). */
export function searchText() {
  return $("search").value;
}

export function focusSearch() {
  $("search").focus();
}

onViewer(() => {
  for (const b of $$("#tabs button")) b.addEventListener("click", () => setView(b.dataset.view));
});
$("value-type").addEventListener("change", (e) => setValueType(Number(e.target.value)));
$("source").addEventListener("change", (e) => setSource(Number(e.target.value)));
$("facet").addEventListener("change", (e) => {
  if (!e.target.value) return;
  const [i, k] = e.target.value.split(":").map(Number);
  e.target.value = "";
  chooseFacet(i, k);
});
$("order").addEventListener("click", toggleOrder);
// The view options (#view-menu) open under #view-options, a disclosure button: Enter, Space
// or a click opens them and focuses the first; arrows move, Escape or Tab out closes them.
function showViewMenu(open, focusFirst = false) {
  $("view-menu").hidden = !open;
  $("view-options").setAttribute("aria-expanded", String(open));
  if (open && focusFirst) $("view-menu").querySelector("button").focus();
}
$("view-options").addEventListener("click", (e) => showViewMenu($("view-menu").hidden, e.detail === 0));
$("view-menu").addEventListener("keydown", (e) => {
  const items = [...$("view-menu").querySelectorAll("button")];
  const k = items.indexOf(focused());
  if (e.key === "ArrowDown" || e.key === "ArrowUp") {
    e.preventDefault();
    e.stopPropagation();
    items[(k + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length].focus();
  } else if (e.key === "Escape") {
    e.stopPropagation();
    showViewMenu(false);
    $("view-options").focus();
  }
});
$("view-options-box").addEventListener("focusout", (e) => {
  if (!$("view-options-box").contains(e.relatedTarget)) showViewMenu(false);
});
onWindow("mousedown", (e) => {
  if (!$("view-options-box").contains(eventTarget(e))) showViewMenu(false);
});
$("icicle").addEventListener("click", toggleIcicle);
$("bottom-up").addEventListener("click", toggleBottomUp);
const searchTimer = perViewer(() => ({ id: 0 }));
$("search").addEventListener("input", (e) => {
  clearTimeout(searchTimer.id);
  searchTimer.id = setTimeout(
    bound(() => setQuery(e.target.value)),
    120,
  );
});
$("hide-matches").addEventListener("click", hideMatches);
$("export").addEventListener("change", (e) => {
  const f = e.target.value;
  e.target.value = "";
  if (f && S.loaded) f === "link" ? copyLink() : exportAs(f);
});
$("theme").addEventListener("click", () => {
  setTheme(!S.dark);
  if (current().page) localStorage.setItem("proftab-theme", S.dark ? "dark" : "light");
});

/** The controls of a newly loaded profile: value types, sources, facets, export formats. */
function fillControls() {
  fillSelect(
    $("value-type"),
    S.info.valueTypes.map((t, i) => [String(i), `${t.type} (${t.unit})`]),
  );
  $("value-type").value = String(S.vt);
  const sources = S.info.sources.map((s, i) => [String(i), s.uri || `source ${i + 1}`]);
  fillSelect($("source"), [["-1", "All sources"], ...sources]);
  $("source").value = "-1";
  $("source-label").hidden = S.info.sources.length < 2;
  fillFacets();
  $("compare-tab").hidden = !canCompare();
  const formats = S.writable.map((f) => [f, `profile: ${f}`]);
  fillSelect($("export"), [
    ["", "Export…"],
    ...(current().page ? [["link", "Copy link (profile in the URL)"]] : []),
    ...formats,
    ["dataset:parquet", "dataset: Parquet (.zip)"],
    ["dataset:arrow", "dataset: Arrow IPC (.zip)"],
    ["png", "image: PNG"],
    ["svg", "image: SVG"],
  ]);
}

/** The sample filter menu: one group per facet, each value with its number of samples. */
function fillFacets() {
  const select = $("facet");
  const groups = S.facets.map((f, i) => {
    const g = document.createElement("optgroup");
    g.label = f.name;
    g.append(...f.values.map((v, k) => option(`${i}:${k}`, `${v} (${f.samples[k]})`)));
    return g;
  });
  select.replaceChildren(option("", "Filter samples…"), ...groups);
  select.value = "";
  select.hidden = S.facets.length === 0;
}

function syncToggles() {
  $("order").textContent = S.order ? "A → Z" : "Widest first";
  $("icicle").textContent = S.icicle ? "Icicle ↓" : "Flame ↑";
  $("bottom-up").setAttribute("aria-pressed", String(S.bottomUp));
}

function renderStatus() {
  const u = unit();
  const [shown, kept, all] = S.totals;
  let text = `${formatValue(shown, u)} in ${S.info.samples.toLocaleString("en-US")} samples`;
  if (kept !== all || shown !== kept) text += ` (${percent(shown, all)} of all)`;
  const fmts = [...new Set(S.info.formats)].join(", ");
  $("status").textContent = `${text} · ${fmts}`;
}

function renderSearch({ error }) {
  $("match").textContent = error || (S.flags ? `Matched ${percent(S.matched, S.totals[0])}` : "");
  $("hide-matches").hidden = !S.flags?.some((f, i) => f && S.table && S.table.total[i] !== 0);
}

on("profile", fillControls);
on("toggles", syncToggles);
on("query", () => {
  $("search").value = S.query;
});
on("search", renderSearch);
on("status", renderStatus);
on("view", () => {
  for (const b of $$("#tabs button")) b.setAttribute("aria-selected", String(b.dataset.view === S.view));
  $("source-label").hidden = !canCompare() || S.view === "compare";
});
on("theme", () => frame().classList.toggle("dark", S.dark));
