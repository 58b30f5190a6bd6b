// proftab viewer: page wiring. Parsing and aggregation run in the worker (wasm); this file
// holds the UI state, talks to the worker and hands typed-array columns to the canvases.
import { FlameView, MERGED, NO_NODE } from './flame.js';
import { FunctionTable, functionColumns } from './table.js';
import { frameColors, diffColors, diffColorIndex } from './colors.js';
import { CompareControls, COMPARE_SORT, compareColumns, compareInclude, compareTooltipRows } from './compare.js';
import { formatValue, percent, formatBytes } from './format.js';

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- worker RPC

let worker = null;
let nextCall = 1;
const calls = new Map();

function startWorker() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (ev) => {
    const m = ev.data;
    if (m.kind === 'progress') return showProgress(m);
    const c = calls.get(m.id);
    if (!c) return;
    calls.delete(m.id);
    if (m.ok) c.resolve(m.result);
    else c.reject(new Error(m.error));
  };
  worker.onerror = (e) => {
    e.preventDefault();
    failAll(new Error(e.message || 'the worker failed'));
  };
}

function failAll(err) {
  for (const c of calls.values()) c.reject(err);
  calls.clear();
}

function call(kind, args) {
  return new Promise((resolve, reject) => {
    const id = nextCall++;
    calls.set(id, { resolve, reject });
    worker.postMessage({ id, kind, args });
  });
}

// ---------------------------------------------------------------- state

const S = {
  loaded: false,
  info: null,
  frames: null,
  colors: [],
  nameIndex: new Map(),
  writable: [],
  vt: 0,
  order: 0,
  icicle: false,
  // The flame graph shows the inverted call tree (innermost functions at the root).
  bottomUp: false,
  // What samples can be filtered by ([{name, values, samples}]), and the chosen
  // {index, value} (null: all samples).
  facets: [],
  facet: null,
  view: 'flame',
  source: -1,
  transforms: [],
  timeRange: null,
  query: '',
  flags: null,
  matched: 0,
  selected: -1,
  table: null,
  // The table's rows: 'functions', or 'lines' (source lines; `lines` holds the worker's
  // answer: labels, frame per row, self, total).
  tableMode: 'functions',
  lines: null,
  totals: [0, 0, 0],
  timeDomainKnown: false,
  dark: false,
  // Compare mode: the sources of each side and the toggles (kept in the URL hash); `result`
  // is the worker's last answer ({summary, baseSelf, baseTotal, newSelf, newTotal}).
  compare: { base: [0], new: [1], normalized: true, sizeByBase: false, palette: 'rb', result: null },
  diffColors: [],
};

// Read-only hooks for tests and benchmarks.
const perf = (window.__proftab = {
  loadStart: 0,
  firstDrawMs: 0,
  parseMs: 0,
  state: S,
  drawTimes: () => activeViews()[0].drawTimes.slice(),
  visibleFrames: () => [...activeViews()[0].visibleFrames()].map(frameLabel).sort(),
  viewRange: () => [activeViews()[0].vx0, activeViews()[0].vx1],
  // [name, width] of the boxes at `depth` of the active view's data, widest first.
  rowFrames: (depth) => {
    const d = activeViews()[0].data;
    if (!d || depth > d.maxDepth) return [];
    const out = [];
    for (let i = d.rowStart[depth]; i < d.rowStart[depth + 1]; i++) {
      if (d.b.node[i] !== NO_NODE) out.push([frameLabel(d.b.frame[i]), d.b.width[i]]);
    }
    return out.sort((a, b) => b[1] - a[1]);
  },
});

function setState(state) {
  document.body.dataset.state = state;
}

function unit() {
  const t = S.info && S.info.valueTypes[S.vt];
  return t ? t.unit : '';
}

// ---------------------------------------------------------------- messages

function showError(text) {
  $('error-text').textContent = text;
  $('error').hidden = false;
}

function hideError() {
  $('error').hidden = true;
}

function showProgress(m) {
  const box = $('progress');
  const fill = $('progress-fill');
  box.hidden = false;
  let text;
  if (m.phase === 'reading' || m.phase === 'downloading') {
    const which = m.count > 1 ? ` file ${m.index + 1} of ${m.count}` : '';
    const verb = m.phase === 'reading' ? 'Reading' : 'Downloading';
    text = `${verb}${which}: ${formatBytes(m.done)}${m.total ? ` of ${formatBytes(m.total)}` : ''}`;
    fill.classList.remove('indeterminate');
    fill.style.width = m.total ? `${(100 * m.done) / m.total}%` : '0';
  } else {
    const phases = { parsing: `Parsing ${formatBytes(m.total)}…`, analysing: 'Building the call tree…' };
    text = phases[m.phase] || m.text || 'Working…';
    fill.classList.add('indeterminate');
  }
  $('progress-text').textContent = text;
}

function hideProgress() {
  $('progress').hidden = true;
}

// ---------------------------------------------------------------- views

/** "No row" in the worker's index columns. */
const NO_INDEX = 0xffffffff;

const table = new FunctionTable($('functions'), $('table-filter'), {
  // In lines mode a row stands for a line: select the function of its first frame.
  onSelect: (row) => {
    const frame = S.tableMode === 'lines' && S.lines ? S.lines.frame[row] : row;
    if (frame !== NO_INDEX) selectFrame(frame, true);
  },
});

/** Highlights the table row of `frame` (in lines mode, the first line of that function). */
function tableSelect(frame) {
  if (S.tableMode !== 'lines' || S.view === 'compare') return table.select(frame);
  table.select(S.lines && frame >= 0 ? S.lines.frame.indexOf(frame) : -1);
}

function frameLabel(f) {
  return S.frames && f < S.frames.names.length ? S.frames.names[f] : '';
}

function frameColor(f) {
  return S.colors[f] || '#bbb';
}

function viewOptions(extra) {
  return {
    label: frameLabel,
    color: frameColor,
    rootLabel: () => 'all',
    onHover: showTooltip,
    onContext: openMenu,
    onError: (e) => showError(String(e.message || e)),
    ...extra,
  };
}

/** After a click on a box of a flame view with breadcrumbs: the path to it as crumbs. */
function clickFlame(view, info) {
  if (info.node === 0) view.crumbs = [];
  else view.crumbs = [...view.ancestorsAt(info.x + info.width / 2, info.depth).filter((b) => b.node !== 0), info];
  renderCrumbs();
  if (info.node !== NO_NODE && info.node !== 0) selectFrame(info.frame, false);
}

const mainView = new FlameView(
  $('main-canvas'),
  viewOptions({
    query: (vp) => call(S.bottomUp ? 'invertedFlame' : 'flame', vp),
    onClick: (info) => clickFlame(mainView, info),
    onZoom: () => scheduleHash(),
    onDrawn: () => {
      if (document.body.dataset.flamegraphDrawn !== '1' && S.loaded) {
        document.body.dataset.flamegraphDrawn = '1';
        perf.firstDrawMs = performance.now() - perf.loadStart;
      }
    },
  }),
);

const timeView = new FlameView(
  $('time-canvas'),
  viewOptions({
    inverted: true,
    firstRow: 1,
    axis: true,
    axisLabel: (x) => formatValue(x, S.timeIsTime ? 'seconds' : unit()),
    query: (vp) => call('time', vp),
    onClick: (info) => info.node !== NO_NODE && selectFrame(info.frame, false),
    onZoom: () => scheduleHash(),
  }),
);

function sandwichView(canvas, side) {
  return new FlameView(
    canvas,
    viewOptions({
      inverted: true,
      firstRow: 1,
      query: (vp) => call('sandwich', { frame: S.selected, side, ...vp }),
      onClick: (info) => info.node !== NO_NODE && info.depth > 1 && selectFrame(info.frame, true),
    }),
  );
}
const callersView = sandwichView($('callers-canvas'), 0);
const calleesView = sandwichView($('callees-canvas'), 1);

// The differential flame graph: widths from one side, colour from the change of each box.
const compareView = new FlameView(
  $('compare-canvas'),
  viewOptions({
    query: (vp) => call('compareFlame', vp),
    boxColor: (b, i) => S.diffColors[diffColorIndex(b.base[i], b.new[i])],
    onHover: showCompareTooltip,
    onClick: (info) => clickFlame(compareView, info),
    onZoom: () => scheduleHash(),
  }),
);
mainView.crumbs = [];
compareView.crumbs = [];
const allViews = [mainView, timeView, callersView, calleesView, compareView];
const VIEWS = ['flame', 'time', 'sandwich', 'compare'];

function activeViews() {
  if (S.view === 'time') return [timeView];
  if (S.view === 'sandwich') return [callersView, calleesView];
  if (S.view === 'compare') return [compareView];
  return [mainView];
}

/** The flame view with breadcrumbs on screen (the flame graph or the differential one). */
function crumbView() {
  return S.view === 'compare' ? compareView : mainView;
}

const compareControls = new CompareControls(S.compare, (what) => {
  if (what === 'palette') {
    S.diffColors = diffColors(S.compare.palette, S.dark);
    compareView.requestDraw();
    scheduleHash();
  } else refreshCompare();
});

new ResizeObserver(() => allViews.forEach((v) => v.resize())).observe($('graph-pane'));

/** Compare mode needs two sources at least. */
function canCompare() {
  return !!S.info && S.info.sources.length >= 2;
}

function setView(view) {
  const was = S.view;
  S.view = VIEWS.includes(view) && (view !== 'compare' || canCompare()) ? view : 'flame';
  for (const b of document.querySelectorAll('#tabs button')) b.setAttribute('aria-selected', String(b.dataset.view === S.view));
  $('main-box').hidden = S.view !== 'flame';
  $('time-box').hidden = S.view !== 'time';
  $('sandwich-pane').hidden = S.view !== 'sandwich';
  $('compare-box').hidden = S.view !== 'compare';
  $('compare-bar').hidden = S.view !== 'compare';
  $('crumbs').hidden = S.view !== 'flame' && S.view !== 'compare';
  $('source-label').hidden = !canCompare() || S.view === 'compare';
  document.body.classList.toggle('comparing', S.view === 'compare');
  renderCrumbs();
  if (was === 'compare' && S.view !== 'compare' && S.table) showViewTable();
  updateRangeButton();
  allViews.forEach((v) => v.resize());
  if (S.loaded) refreshActive();
  scheduleHash();
}

async function refreshActive() {
  if (S.view === 'time' && !S.timeDomainKnown) {
    const probe = await call('time', { x0: 0, x1: 0, minWidth: Infinity, maxDepth: 0 });
    S.timeIsTime = probe.isTime;
    S.timeDomainKnown = true;
    timeView.setDomain(probe.xMin, probe.xMax);
    updateRangeButton();
  } else if (S.view === 'sandwich') {
    refreshSandwich();
  } else if (S.view === 'compare' && S.table) {
    await refreshCompare();
  }
}

/** Asks the worker for the comparison of the chosen sources; shows its table and graph. */
async function refreshCompare() {
  if (S.view !== 'compare') return;
  const c = S.compare;
  compareControls.sync();
  scheduleHash();
  let r;
  try {
    r = await call('compare', { base: c.base, compared: c.new, normalized: c.normalized, sizeByBase: c.sizeByBase });
  } catch (e) {
    c.result = null;
    compareView.data = null;
    compareView.requestDraw();
    table.setData({ names: S.frames.names, columns: compareColumns(emptyTable(), unit()), include: () => false, sortKey: COMPARE_SORT });
    $('compare-summary').textContent = '';
    showError(e.message);
    return;
  }
  hideError();
  c.result = r;
  compareControls.showSummary(r.summary, unit());
  table.setData({ names: S.frames.names, columns: compareColumns(r, unit()), include: compareInclude(r), sortKey: COMPARE_SORT });
  if (S.selected >= 0) table.select(S.selected);
  compareView.crumbs = [];
  renderCrumbs();
  compareView.setDomain(0, r.summary.width, false);
}

function emptyTable() {
  const none = new Float64Array(S.frames.names.length);
  return { baseSelf: none, baseTotal: none, newSelf: none, newTotal: none };
}

/** The function table of the view (self and total under the current options). */
function showViewTable() {
  $('table-filter').placeholder = S.tableMode === 'lines' ? 'Filter lines' : 'Filter functions';
  if (S.tableMode === 'lines') return showLineTable();
  const { self, total } = S.table;
  const columns = functionColumns({ self, total, grand: S.totals[0], unit: unit() });
  table.setData({ names: S.frames.names, columns, include: (i) => self[i] !== 0 || total[i] !== 0, sortKey: 'self' });
  if (S.selected >= 0) table.select(S.selected);
}

let linesGeneration = 0;
/** The source-line table under the current value type and sample filter (not transforms). */
async function showLineTable() {
  const generation = ++linesGeneration;
  const r = await call('lines', {});
  if (generation !== linesGeneration || S.tableMode !== 'lines' || S.view === 'compare') return;
  S.lines = r;
  const columns = functionColumns({ self: r.self, total: r.total, grand: S.totals[1], unit: unit() });
  columns[columns.length - 1] = { ...columns[columns.length - 1], key: 'line', label: 'Line' };
  table.setData({ names: r.labels, columns, include: (i) => r.self[i] !== 0 || r.total[i] !== 0, sortKey: 'self' });
  tableSelect(S.selected);
}

function setTableMode(mode) {
  S.tableMode = mode === 'lines' ? 'lines' : 'functions';
  syncToggles();
  if (S.tableMode !== 'lines') S.lines = null;
  if (S.loaded && S.table && S.view !== 'compare') showViewTable();
  scheduleHash();
}
$('table-lines').addEventListener('click', () => setTableMode(S.tableMode === 'lines' ? 'functions' : 'lines'));

function refreshSandwich() {
  const f = S.selected;
  const has = f >= 0 && S.table && S.table.total[f] > 0;
  $('callers-title').textContent = has ? `Callers of ${frameLabel(f)}` : 'Callers — select a function in the table or a graph';
  $('callees-title').textContent = has ? `Callees of ${frameLabel(f)}` : 'Callees';
  const total = has ? S.table.total[f] : 0;
  for (const v of [callersView, calleesView]) {
    if (has) v.setDomain(0, total);
    else {
      v.data = null;
      v.requestDraw();
    }
  }
}

function selectFrame(frame, fromTable) {
  S.selected = frame;
  tableSelect(frame);
  allViews.forEach((v) => v.setHighlight({ selected: frame }));
  if (S.view === 'sandwich' || fromTable === 'sandwich') refreshSandwich();
}

function renderCrumbs() {
  const nav = $('crumbs');
  const view = crumbView();
  const items = [];
  const all = document.createElement('button');
  all.textContent = 'all';
  all.addEventListener('click', () => {
    view.crumbs = [];
    renderCrumbs();
    view.resetZoom();
  });
  items.push(all);
  view.crumbs.forEach((c, k) => {
    const sep = document.createElement('span');
    sep.className = 'sep';
    sep.textContent = '›';
    const b = document.createElement('button');
    b.textContent = frameLabel(c.frame);
    b.title = frameLabel(c.frame);
    b.addEventListener('click', () => {
      view.crumbs = view.crumbs.slice(0, k + 1);
      renderCrumbs();
      view.animateTo(c.x, c.x + c.width);
    });
    items.push(sep, b);
  });
  nav.replaceChildren(...items);
}

// ---------------------------------------------------------------- tooltip and menu

function showTooltip(info, ev) {
  const tip = $('tooltip');
  if (!info || !ev) {
    tip.hidden = true;
    return;
  }
  const u = unit();
  const all = S.totals[0];
  // With a focus or a filter the view shows part of the profile: give shares of both.
  const whole = S.totals[2];
  const share = (v) => (whole !== all ? `${percent(v, all)} (${percent(v, whole)} of all)` : percent(v, all));
  const rows = [];
  if (info.node === NO_NODE || info.node === 0) {
    rows.push(['Total', formatValue(info.width, u), share(info.width)]);
  } else {
    const isTime = ev.target === $('time-canvas');
    if (isTime) {
      rows.push(['Duration', formatValue(info.width, S.timeIsTime ? 'seconds' : u), '']);
    } else {
      rows.push(['Self', formatValue(info.self, u), share(info.self)]);
      rows.push(['Total', formatValue(info.width, u), share(info.width)]);
    }
    if (S.table) {
      rows.push(['Function self', formatValue(S.table.self[info.frame], u), share(S.table.self[info.frame])]);
      rows.push(['Function total', formatValue(S.table.total[info.frame], u), share(S.table.total[info.frame])]);
    }
  }
  placeTooltip(info, rows, ev);
}

/** The tooltip's title: the frame's name, `all` for the root, or what a merged box holds. */
function boxName(info) {
  const name = document.createElement('div');
  name.className = 'name';
  if (info.node === NO_NODE) {
    const mostly = info.frame === MERGED ? '' : `, mostly ${frameLabel(info.frame)}`;
    name.textContent = `${info.count} frames too narrow to show${mostly}`;
  } else name.textContent = info.node === 0 ? 'all' : frameLabel(info.frame);
  return name;
}

/** The tooltip of a box of the differential flame graph: both sides and the change. */
function showCompareTooltip(info, ev) {
  const r = S.compare.result;
  const b = compareView.data && compareView.data.b;
  if (!info || !ev || !r || !b) {
    $('tooltip').hidden = true;
    return;
  }
  const isFrame = info.node !== NO_NODE && info.node !== 0;
  const rows = compareTooltipRows({
    base: b.base[info.index],
    next: b.new[info.index],
    summary: r.summary,
    unit: unit(),
    t: isFrame ? r : null,
    frame: info.frame,
  });
  placeTooltip(info, rows, ev);
}

/** Fills the tooltip with the box's name, the file of a frame, and `[label, value, note]` rows. */
function placeTooltip(info, rows, ev) {
  const tip = $('tooltip');
  const parts = [boxName(info)];
  if (info.node !== NO_NODE && info.node !== 0) {
    const file = S.frames.files[info.frame];
    const line = S.frames.lines[info.frame];
    if (file || line) {
      const f = document.createElement('div');
      f.className = 'file';
      f.textContent = `${file || '?'}${line ? `:${line}` : ''}`;
      parts.push(f);
    }
  }
  const t = document.createElement('table');
  for (const [k, v, p] of rows) {
    const tr = document.createElement('tr');
    for (const text of [k, v, p]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    t.append(tr);
  }
  parts.push(t);
  tip.replaceChildren(...parts);
  tip.hidden = false;
  const pad = 14;
  const w = tip.offsetWidth;
  const h = tip.offsetHeight;
  let x = ev.clientX + pad;
  let y = ev.clientY + pad;
  if (x + w > window.innerWidth) x = Math.max(0, ev.clientX - w - pad);
  if (y + h > window.innerHeight) y = Math.max(0, ev.clientY - h - pad);
  tip.style.left = `${x}px`;
  tip.style.top = `${y}px`;
}

/** The transform kind that hides a function (merges it into its caller). */
const HIDE = 1;

const TRANSFORMS = [
  [0, 'Focus on function', 'focus'],
  [1, 'Hide function (merge into caller)', 'hide'],
  [2, 'Collapse recursion', 'rec'],
  [3, 'Collapse direct recursion only', 'drec'],
];

function openMenu(info, ev) {
  if (info.node === NO_NODE || info.node === 0) return;
  const menu = $('menu');
  const items = TRANSFORMS.map(([kind, label]) => [label, () => addTransform(kind, info.frame)]);
  items.push(['Show callers and callees', () => {
    selectFrame(info.frame, 'sandwich');
    setView('sandwich');
  }]);
  items.push(['Copy name', () => navigator.clipboard && navigator.clipboard.writeText(frameLabel(info.frame))]);
  menu.replaceChildren(
    ...items.map(([label, fn]) => {
      const b = document.createElement('button');
      b.textContent = label;
      b.addEventListener('click', () => {
        closeMenu();
        fn();
      });
      return b;
    }),
  );
  menu.hidden = false;
  menu.style.left = `${Math.min(ev.clientX, window.innerWidth - 240)}px`;
  menu.style.top = `${Math.min(ev.clientY, window.innerHeight - 200)}px`;
  $('tooltip').hidden = true;
}

function closeMenu() {
  $('menu').hidden = true;
}
window.addEventListener('mousedown', (e) => {
  if (!$('menu').contains(e.target)) closeMenu();
});

// ---------------------------------------------------------------- transforms and options

function addTransform(kind, frame) {
  S.transforms.push({ kind, frame });
  renderChips();
  applyOptions();
}

function updateRangeButton() {
  const usable = S.loaded && S.view === 'time' && S.timeIsTime && S.info.sources.length === 1;
  $('range').hidden = !usable;
}

function chip(text, title, onRemove) {
  const c = document.createElement('span');
  c.className = 'chip';
  const label = document.createElement('span');
  label.textContent = text;
  label.title = title;
  const x = document.createElement('button');
  x.textContent = '×';
  x.title = 'Remove';
  x.addEventListener('click', onRemove);
  c.append(label, x);
  return c;
}

function renderChips() {
  const chips = [];
  if (S.timeRange) {
    const [a, b] = S.timeRange;
    const text = `time ${formatValue(a, 'seconds')} – ${formatValue(b, 'seconds')}`;
    chips.push(chip(text, 'Only samples in this time range', () => {
      S.timeRange = null;
      renderChips();
      applyOptions();
    }));
  }
  if (S.facet) {
    const name = S.facets[S.facet.index].name;
    chips.push(chip(`${name} = ${S.facet.value}`, `Only samples whose ${name} is ${S.facet.value}`, () => {
      S.facet = null;
      renderChips();
      applyOptions();
    }));
  }
  chips.push(...S.transforms.map((t, k) => {
    const n = t.pattern === undefined ? 0 : t.frames.length;
    const what = t.pattern === undefined ? `${TRANSFORMS[t.kind][2]}: ${frameLabel(t.frame)}` : `hide: ${t.pattern} (${n} function${n === 1 ? '' : 's'})`;
    const title = t.pattern === undefined ? `${TRANSFORMS[t.kind][1]}: ${frameLabel(t.frame)}` : `Hidden (merged into their callers): ${t.frames.map(frameLabel).join(', ')}`;
    return chip(what, title, () => {
      S.transforms.splice(k, 1);
      renderChips();
      applyOptions();
    });
  }));
  $('chips').replaceChildren(...chips);
}

async function applyOptions() {
  const n = S.info.sources.length;
  const sources = S.source < 0 ? [] : Array.from({ length: n }, (_, i) => (i === S.source ? 1 : 0));
  // A pattern chip stands for hiding each function it matched (one pass in wasm).
  const transforms = S.transforms.flatMap((t) => (t.pattern === undefined ? [t.kind, t.frame] : t.frames.flatMap((f) => [HIDE, f])));
  const t0 = performance.now();
  const [t0r, t1r] = S.timeRange || [NaN, NaN];
  const facet = S.facet ? S.facet.index : -1;
  const facetValue = S.facet ? S.facet.value : '';
  const r = await call('options', { valueType: S.vt, order: S.order, sources, t0: t0r, t1: t1r, transforms, facet, facetValue });
  perf.optionsMs = performance.now() - t0;
  S.table = { self: r.self, total: r.total };
  S.totals = r.totals;
  S.timeDomainKnown = false;
  mainView.crumbs = [];
  renderCrumbs();
  if (S.view !== 'compare') showViewTable();
  mainView.setDomain(0, r.totals[0], false);
  timeView.data = null;
  await runSearch();
  renderStatus();
  await refreshActive();
  scheduleHash();
}

function renderStatus() {
  const u = unit();
  const [shown, kept, all] = S.totals;
  let text = `${formatValue(shown, u)} in ${S.info.samples.toLocaleString('en-US')} samples`;
  if (kept !== all || shown !== kept) text += ` (${percent(shown, all)} of all)`;
  const fmts = [...new Set(S.info.formats)].join(', ');
  $('status').textContent = `${text} · ${fmts}`;
}

/** The functions each pattern chip hides: what the search matches (a bad pattern, none). */
async function resolvePatterns() {
  for (const t of S.transforms) {
    if (t.pattern === undefined) continue;
    const r = await call('search', { query: t.pattern }).catch(() => ({ flags: [] }));
    t.frames = matchedFrames(r.flags);
  }
  S.transforms = S.transforms.filter((t) => t.pattern === undefined || t.frames.length > 0);
}

function matchedFrames(flags) {
  const out = [];
  for (let i = 0; i < flags.length; i++) if (flags[i]) out.push(i);
  return out;
}

/** Hides every function the current search matches, as one removable chip. */
function hideMatches() {
  if (!S.flags || !S.query) return;
  S.transforms.push({ pattern: S.query, frames: matchedFrames(S.flags) });
  S.query = '';
  $('search').value = '';
  renderChips();
  applyOptions();
}
$('hide-matches').addEventListener('click', hideMatches);

async function runSearch() {
  const q = S.query;
  if (!q) {
    S.flags = null;
    $('match').textContent = '';
  } else {
    try {
      const r = await call('search', { query: q });
      S.flags = r.flags;
      S.matched = r.matched;
      $('match').textContent = `Matched ${percent(r.matched, S.totals[0])}`;
    } catch (e) {
      S.flags = null;
      $('match').textContent = e.message;
    }
  }
  $('hide-matches').hidden = !S.flags || !S.flags.some((f, i) => f && S.table && S.table.total[i] !== 0);
  allViews.forEach((v) => v.setHighlight({ flags: S.flags }));
}

// ---------------------------------------------------------------- loading

function resetUi() {
  S.loaded = false;
  document.body.classList.remove('loaded');
  $('views').hidden = true;
  $('empty').hidden = false;
}

async function load(what) {
  hideError();
  closeMenu();
  document.body.dataset.flamegraphDrawn = '0';
  setState('loading');
  perf.loadStart = performance.now();
  showProgress({ phase: 'reading', done: 0, total: 0, index: 0, count: 1 });
  let r;
  try {
    r = await call('load', what);
  } catch (e) {
    hideProgress();
    showError(e.message);
    setState(S.loaded ? 'shown' : e.message === CANCELLED ? 'ready' : 'error');
    return;
  }
  perf.parseMs = r.parseMs;
  perf.analyseMs = r.analyseMs;
  showProgress({ phase: 'layout', text: 'Drawing…' });
  S.info = r.info;
  S.frames = r.frames;
  S.facets = r.facets;
  S.facet = null;
  S.writable = r.writable;
  S.nameIndex = new Map(r.frames.names.map((n, i) => [n, i]));
  S.colors = frameColors(S.frames, S.dark);
  S.vt = r.info.defaultValueType;
  S.transforms = [];
  S.timeRange = null;
  S.timeIsTime = false;
  S.selected = -1;
  S.source = -1;
  S.table = null;
  resetCompare();
  S.query = $('search').value;
  fillControls();
  applyHash();
  S.loaded = true;
  document.body.classList.add('loaded');
  $('empty').hidden = true;
  $('views').hidden = false;
  setView(S.view);
  try {
    await resolvePatterns();
    renderChips();
    await applyOptions();
    applyHashZoom();
  } catch (e) {
    showError(e.message);
  }
  hideProgress();
  setState('shown');
  showWarnings(r.info.warnings);
}

/** The readers' warnings: a count in the bar; clicking it lists them in the message bar. */
function showWarnings(list) {
  const b = $('warnings');
  b.hidden = list.length === 0;
  b.textContent = `⚠ ${list.length} warning${list.length === 1 ? '' : 's'}`;
  b.title = list.join('\n');
  b.onclick = () => showError(list.join('\n'));
}

function fillControls() {
  const vt = $('value-type');
  vt.replaceChildren(
    ...S.info.valueTypes.map((t, i) => {
      const o = document.createElement('option');
      o.value = String(i);
      o.textContent = `${t.type} (${t.unit})`;
      return o;
    }),
  );
  vt.value = String(S.vt);
  const src = $('source');
  const opts = [['-1', 'All sources']].concat(S.info.sources.map((s, i) => [String(i), s.uri || `source ${i + 1}`]));
  src.replaceChildren(
    ...opts.map(([v, t]) => {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = t;
      return o;
    }),
  );
  src.value = '-1';
  $('source-label').hidden = S.info.sources.length < 2;
  fillFacets();
  $('compare-tab').hidden = !canCompare();
  compareControls.setSources(S.info.sources);
  const ex = $('export');
  const formats = S.writable.map((f) => [f, `profile: ${f}`]).concat([['png', 'image: PNG'], ['svg', 'image: SVG']]);
  ex.replaceChildren(
    ...[['', 'Export…']].concat(formats).map(([v, t]) => {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = t;
      return o;
    }),
  );
}

/** `name=value` from the URL hash as a facet choice, when the profile has it. */
function facetFromHash(text) {
  if (!text) return null;
  const eq = text.indexOf('=');
  const [name, value] = [text.slice(0, eq), text.slice(eq + 1)];
  const index = S.facets.findIndex((f) => f.name === name && f.values.includes(value));
  return eq > 0 && index >= 0 ? { index, value } : null;
}

/** The sample filter menu: one group per facet, each value with its number of samples. */
function fillFacets() {
  const select = $('facet');
  const first = document.createElement('option');
  first.value = '';
  first.textContent = 'Filter samples…';
  const groups = S.facets.map((f, i) => {
    const g = document.createElement('optgroup');
    g.label = f.name;
    g.append(
      ...f.values.map((v, k) => {
        const o = document.createElement('option');
        o.value = `${i}:${k}`;
        o.textContent = `${v} (${f.samples[k]})`;
        return o;
      }),
    );
    return g;
  });
  select.replaceChildren(first, ...groups);
  select.value = '';
  select.hidden = S.facets.length === 0;
}

function chooseFacet(choice) {
  const [i, k] = choice.split(':').map(Number);
  const f = S.facets[i];
  if (!f || !(k < f.values.length)) return;
  S.facet = { index: i, value: f.values[k] };
  $('facet').value = '';
  renderChips();
  applyOptions();
}

const CANCELLED = 'Loading cancelled.';

function cancelLoad() {
  worker.terminate();
  failAll(new Error(CANCELLED));
  startWorker();
  resetUi();
  setState('ready');
}

// ---------------------------------------------------------------- export

const EXTENSIONS = {
  pprof: '.pb.gz', rprof: '.out', collapsed: '.collapsed', firefox: '.firefox.json',
  speedscope: '.speedscope.json', 'tables-json': '.json', 'tables-json-v1': '.v1.json',
  otlp: '.otlp', cpuprofile: '.cpuprofile',
};

function download(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

function baseName() {
  const first = S.info.sources[0];
  const n = (first && first.uri) || 'profile';
  return n.replace(/^.*[\\/]/, '').replace(/\.(pb\.gz|pb|gz|json|out|prof|txt|cpuprofile|collapsed|folded)$/i, '') || 'profile';
}

async function exportAs(fmt) {
  const view = activeViews()[0];
  if (fmt === 'png') {
    view.canvas.toBlob((b) => b && download(b, `${baseName()}-flamegraph.png`));
    return;
  }
  if (fmt === 'svg') {
    download(new Blob([svgOf(view)], { type: 'image/svg+xml' }), `${baseName()}-flamegraph.svg`);
    return;
  }
  try {
    const r = await call('export', { format: fmt });
    download(new Blob([r.bytes]), `${baseName()}${EXTENSIONS[fmt] || '.' + fmt}`);
  } catch (e) {
    showError(`Export as ${fmt} failed: ${e.message}`);
  }
}

/** The visible boxes of a view as an SVG document (text as text nodes, never markup). */
function svgOf(view) {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  const W = view.cssW;
  const H = view.cssH;
  svg.setAttribute('xmlns', NS);
  svg.setAttribute('width', String(W));
  svg.setAttribute('height', String(H));
  svg.setAttribute('font-family', 'monospace');
  svg.setAttribute('font-size', '12');
  const d = view.data;
  if (d) {
    const scale = W / (view.vx1 - view.vx0);
    for (let i = 0; i < d.b.node.length; i++) {
      const x = (d.b.x[i] - view.vx0) * scale;
      const w = d.b.width[i] * scale;
      const y = view.rowY(d.b.depth[i]);
      if (w < 1 || x + w < 0 || x > W || y < -18 || y > H) continue;
      const frame = d.b.frame[i];
      const g = document.createElementNS(NS, 'g');
      const rect = document.createElementNS(NS, 'rect');
      rect.setAttribute('x', x.toFixed(2));
      rect.setAttribute('y', String(y));
      rect.setAttribute('width', Math.max(w - 1, 0.5).toFixed(2));
      rect.setAttribute('height', '17');
      const node = d.b.node[i];
      const color = view.o.boxColor ? view.o.boxColor(d.b, i) : frameColor(frame);
      rect.setAttribute('fill', frame === MERGED ? '#c8c8cc' : color);
      const label = node === 0 ? 'all' : node === NO_NODE ? '' : frameLabel(frame);
      const title = document.createElementNS(NS, 'title');
      title.textContent = label;
      g.append(title, rect);
      const chars = Math.floor((w - 6) / 7.2);
      if (chars >= 3 && label) {
        const t = document.createElementNS(NS, 'text');
        t.setAttribute('x', (x + 3).toFixed(2));
        t.setAttribute('y', String(y + 13));
        t.textContent = label.length > chars ? label.slice(0, chars - 1) + '…' : label;
        g.append(t);
      }
      svg.append(g);
    }
  }
  return new XMLSerializer().serializeToString(svg);
}

// ---------------------------------------------------------------- URL hash

let hashTimer = 0;
function scheduleHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(writeHash, 200);
}

function writeHash() {
  if (!S.loaded) return;
  const h = new URLSearchParams();
  h.set('view', S.view);
  const t = S.info.valueTypes[S.vt];
  if (t) h.set('type', t.type);
  if (S.order) h.set('order', 'alpha');
  if (S.icicle) h.set('icicle', '1');
  if (S.bottomUp) h.set('bottomup', '1');
  if (S.facet) h.set('filter', `${S.facets[S.facet.index].name}=${S.facet.value}`);
  if (S.query) h.set('search', S.query);
  if (S.tableMode === 'lines') h.set('table', 'lines');
  for (const tr of S.transforms) {
    if (tr.pattern === undefined) h.append(TRANSFORMS[tr.kind][2], frameLabel(tr.frame));
    else h.append('hidematch', tr.pattern);
  }
  if (S.timeRange) h.set('range', S.timeRange.map((x) => x.toPrecision(10)).join(','));
  if (S.view === 'compare') writeCompareHash(h);
  const zoomed = crumbView();
  const [d0, d1] = zoomed.domain;
  const span = d1 - d0;
  if (span > 0 && (zoomed.vx0 > d0 || zoomed.vx1 < d1)) {
    h.set('zoom', `${((zoomed.vx0 - d0) / span).toPrecision(8)},${((zoomed.vx1 - d0) / span).toPrecision(8)}`);
  }
  history.replaceState(null, '', `#${h.toString()}`);
}

/** Compare state in the hash: `base=0&new=1,2` (source rows), `absolute=1`, `width=base`, `palette=cb`. */
function writeCompareHash(h) {
  const c = S.compare;
  h.set('base', c.base.join(','));
  h.set('new', c.new.join(','));
  if (!c.normalized) h.set('absolute', '1');
  if (c.sizeByBase) h.set('width', 'base');
  if (c.palette !== 'rb') h.set('palette', c.palette);
}

/** Default compare state for the loaded sources: the first against all the others. */
function resetCompare() {
  const n = S.info.sources.length;
  Object.assign(S.compare, { base: [0], new: Array.from({ length: n - 1 }, (_, i) => i + 1), result: null });
}

function readCompareHash(h) {
  const n = S.info.sources.length;
  const rows = (key) => (h.get(key) || '').split(',').filter(Boolean).map(Number);
  const valid = (list) => list.length > 0 && list.every((i) => Number.isInteger(i) && i >= 0 && i < n);
  const c = S.compare;
  if (valid(rows('base'))) c.base = rows('base');
  if (valid(rows('new'))) c.new = rows('new');
  c.normalized = h.get('absolute') !== '1';
  c.sizeByBase = h.get('width') === 'base';
  c.palette = h.get('palette') === 'cb' ? 'cb' : 'rb';
  S.diffColors = diffColors(c.palette, S.dark);
}

function readHash() {
  return new URLSearchParams(location.hash.replace(/^#/, ''));
}

function applyHash() {
  const h = readHash();
  if (h.has('view')) S.view = h.get('view');
  const type = h.get('type');
  const i = S.info.valueTypes.findIndex((t) => t.type === type);
  if (i >= 0) {
    S.vt = i;
    $('value-type').value = String(i);
  }
  S.order = h.get('order') === 'alpha' ? 1 : 0;
  S.icicle = h.get('icicle') === '1';
  S.bottomUp = h.get('bottomup') === '1';
  S.facet = facetFromHash(h.get('filter'));
  S.tableMode = h.get('table') === 'lines' ? 'lines' : 'functions';
  syncToggles();
  if (h.has('search')) {
    S.query = h.get('search');
    $('search').value = S.query;
  }
  const range = (h.get('range') || '').split(',').map(Number);
  S.timeRange = range.length === 2 && range.every(Number.isFinite) && range[1] > range[0] ? range : null;
  readCompareHash(h);
  S.transforms = [];
  for (const [key, value] of h) {
    const kind = TRANSFORMS.findIndex((t) => t[2] === key);
    const frame = S.nameIndex.get(value);
    if (kind >= 0 && frame !== undefined) S.transforms.push({ kind, frame });
    // Resolved to functions by resolvePatterns() once the worker can search.
    if (key === 'hidematch' && value) S.transforms.push({ pattern: value, frames: [] });
  }
}

function applyHashZoom() {
  const z = readHash().get('zoom');
  if (!z) return;
  const [a, b] = z.split(',').map(Number);
  const view = crumbView();
  const [d0, d1] = view.domain;
  if (Number.isFinite(a) && Number.isFinite(b) && b > a) view.setView(d0 + a * (d1 - d0), d0 + b * (d1 - d0));
}

// ---------------------------------------------------------------- controls

function syncToggles() {
  $('order').textContent = S.order ? 'A → Z' : 'Widest first';
  $('icicle').textContent = S.icicle ? 'Icicle ↓' : 'Flame ↑';
  $('bottom-up').setAttribute('aria-pressed', String(S.bottomUp));
  $('table-lines').setAttribute('aria-pressed', String(S.tableMode === 'lines'));
  for (const v of [mainView, compareView]) {
    v.inverted = S.icicle;
    v.requestDraw();
  }
}

function setTheme(dark) {
  S.dark = dark;
  document.documentElement.classList.toggle('dark', dark);
  if (S.frames) S.colors = frameColors(S.frames, dark);
  S.diffColors = diffColors(S.compare.palette, dark);
  compareControls.setDark(dark);
  allViews.forEach((v) => v.themeChanged());
}

function wireControls() {
  for (const id of ['file-input', 'file-input-2']) {
    $(id).addEventListener('change', (e) => {
      const files = [...e.target.files];
      e.target.value = '';
      if (files.length) load({ files });
    });
  }
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => setView(b.dataset.view));
  $('value-type').addEventListener('change', (e) => {
    S.vt = Number(e.target.value);
    applyOptions();
  });
  $('facet').addEventListener('change', (e) => {
    if (e.target.value) chooseFacet(e.target.value);
  });
  $('source').addEventListener('change', (e) => {
    S.source = Number(e.target.value);
    applyOptions();
  });
  $('order').addEventListener('click', () => {
    S.order = S.order ? 0 : 1;
    syncToggles();
    applyOptions();
  });
  $('icicle').addEventListener('click', () => {
    S.icicle = !S.icicle;
    syncToggles();
    scheduleHash();
  });
  $('bottom-up').addEventListener('click', () => {
    S.bottomUp = !S.bottomUp;
    syncToggles();
    mainView.crumbs = [];
    renderCrumbs();
    if (S.loaded) mainView.setDomain(0, S.totals[0]);
    if (S.view !== 'flame') setView('flame');
    scheduleHash();
  });
  let searchTimer = 0;
  $('search').addEventListener('input', (e) => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      S.query = e.target.value;
      if (S.loaded) runSearch().then(scheduleHash);
    }, 120);
  });
  $('export').addEventListener('change', (e) => {
    const f = e.target.value;
    e.target.value = '';
    if (f && S.loaded) exportAs(f);
  });
  $('theme').addEventListener('click', () => {
    setTheme(!S.dark);
    localStorage.setItem('proftab-theme', S.dark ? 'dark' : 'light');
  });
  $('error-close').addEventListener('click', hideError);
  $('range').addEventListener('click', () => {
    S.timeRange = [timeView.vx0, timeView.vx1];
    renderChips();
    applyOptions();
  });
  $('cancel').addEventListener('click', cancelLoad);
  window.addEventListener('keydown', (e) => {
    const tag = e.target.tagName;
    if (e.key === 'Escape') {
      closeMenu();
      $('tooltip').hidden = true;
      if (tag === 'INPUT') e.target.blur();
      else if ((S.view === 'flame' || S.view === 'compare') && crumbView().crumbs.length) {
        const view = crumbView();
        view.crumbs.pop();
        renderCrumbs();
        const c = view.crumbs[view.crumbs.length - 1];
        if (c) view.animateTo(c.x, c.x + c.width);
        else view.resetZoom();
      } else selectFrame(-1, false);
      return;
    }
    if (tag === 'INPUT' || tag === 'SELECT' || !S.loaded) return;
    if ((e.key === 'f' && (e.ctrlKey || e.metaKey)) || e.key === '/') {
      e.preventDefault();
      $('search').focus();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (activeViews()[0].key(e)) e.preventDefault();
  });
  // Drag and drop anywhere on the page.
  let depth = 0;
  window.addEventListener('dragenter', (e) => {
    if (![...(e.dataTransfer?.types || [])].includes('Files')) return;
    e.preventDefault();
    depth++;
    $('drop-overlay').hidden = false;
  });
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (!depth) $('drop-overlay').hidden = true;
  });
  window.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    $('drop-overlay').hidden = true;
    const files = [...(e.dataTransfer?.files || [])];
    if (files.length) load({ files });
  });
}

async function showExamples() {
  try {
    const res = await fetch(new URL('examples/index.json', import.meta.url));
    if (!res.ok) throw new Error(String(res.status));
    const list = await res.json();
    $('example-list').replaceChildren(
      ...list.map((ex) => {
        const b = document.createElement('button');
        b.textContent = ex.label;
        b.title = ex.file;
        b.dataset.example = ex.file;
        b.addEventListener('click', () => load({ urls: [new URL(`examples/${ex.file}`, import.meta.url).href] }));
        return b;
      }),
    );
  } catch {
    $('examples').hidden = true;
  }
}

// ---------------------------------------------------------------- start

startWorker();
wireControls();
const stored = localStorage.getItem('proftab-theme');
setTheme(stored ? stored === 'dark' : window.matchMedia('(prefers-color-scheme: dark)').matches);
window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', (e) => {
  if (!localStorage.getItem('proftab-theme')) setTheme(e.matches);
});
showExamples();
document.body.dataset.ready = '1';
setState('ready');
const urls = new URLSearchParams(location.search).getAll('url');
if (urls.length) load({ urls: urls.map((u) => new URL(u, location.href).href) });
