// A virtualised ARIA treegrid: rows of a tree whose children are loaded on demand, of which
// the DOM holds only those in the scrolled window (plus OVERSCAN above and below, and the
// focused row). The rows are a fixed pool of elements in one block moved with translateY
// inside a spacer as high as all the rows (capped at MAX_HEIGHT: beyond it a scrolled pixel
// moves more than a pixel of rows); scrolling gives the pooled rows other records' text and
// attributes, never new elements, so the browser restyles and lays out a few small rows. Keyboard as the WAI-ARIA treegrid pattern with one focusable row (roving
// tabindex): ↑/↓, Home/End, PageUp/PageDown move; → expands or goes to the first child;
// ← collapses or goes to the parent; `*` expands everything below; Enter selects.
// Cells are built with textContent only (names are data, never markup).
import { bound } from "./context.js";

/** Height of a row in CSS pixels (style.css's .tg-row has the same). */
export const ROW_HEIGHT = 22;
/** Rows kept in the DOM above and below the visible ones. */
export const OVERSCAN = 8;
/** Highest spacer in CSS pixels (browsers cap an element's height at 16.7M to 33.5M px). */
export const MAX_HEIGHT = 8_000_000;

/**
 * A row record: `{node, parent, depth, frame, kids (how many children it has), pos, size
 * (place among its siblings), values: {…}}`; the caller's columns read `values`.
 *
 * Options: `columns` ([{label, cls, text(rec), bar(rec) → fraction or absent}], the name
 * column last, drawn with the tree's indent and toggle); `label(rec)`; `load(nodes)` → Promise
 * of records of their children; `onSelect(rec)`; `onContext(rec, event)`; `onExpandAll(rec)`.
 */
export class TreeGrid {
  constructor(box, options) {
    this.o = options;
    this.box = box;
    box.setAttribute("role", "treegrid");
    box.tabIndex = -1;
    box.classList.add("treegrid");
    this.head = document.createElement("div");
    this.head.className = "tg-row tg-head";
    this.head.setAttribute("role", "row");
    this.head.setAttribute("aria-rowindex", "1");
    this.body = document.createElement("div");
    this.body.className = "tg-body";
    this.body.setAttribute("role", "rowgroup");
    this.block = document.createElement("div");
    this.block.className = "tg-rows";
    this.block.setAttribute("role", "presentation");
    // The focused row when it is scrolled out of the window (kept for the keyboard focus).
    this.extra = null;
    box.replaceChildren(this.head, this.body);
    this.reset();
    box.addEventListener("scroll", () => this.render());
    box.addEventListener("keydown", (e) => this.key(e));
    box.addEventListener("click", (e) => this.click(e));
    box.addEventListener("dblclick", (e) => {
      const rec = this.recAt(e);
      if (rec && !e.target.closest(".tg-toggle")) this.toggle(rec);
    });
    box.addEventListener("contextmenu", (e) => {
      const rec = this.recAt(e);
      if (!rec) return;
      e.preventDefault();
      this.moveTo(this.visible.indexOf(rec), false);
      this.o.onContext?.(rec, e);
    });
    new ResizeObserver(bound(() => this.render())).observe(box);
  }

  /** Forgets every row (the tree changed). */
  reset() {
    this.recs = new Map();
    this.kids = new Map([[0, []]]);
    this.expanded = new Set();
    this.visible = [];
    this.cursor = 0;
    this.selected = -1;
    this.marked = null;
    this.elements = new Map();
    this.version = 0;
    this.height = -1;
    this.emptyPool();
  }

  /** Drops the pooled row elements (their cells follow the columns). */
  emptyPool() {
    this.pool = [];
    this.extra = null;
    this.block.replaceChildren();
    this.body.replaceChildren(this.block);
  }

  setColumns(columns) {
    this.o.columns = columns;
    this.head.replaceChildren(
      ...columns.map((c) => {
        const h = document.createElement("div");
        h.setAttribute("role", "columnheader");
        h.className = `tg-cell ${c.cls}`;
        h.textContent = c.label;
        if (c.title) h.title = c.title;
        return h;
      }),
    );
    this.emptyPool();
    this.redraw();
  }

  /** Adds loaded children records (grouped by parent, in display order). */
  addRows(recs) {
    const groups = new Map();
    for (const r of recs) {
      if (!groups.has(r.parent)) groups.set(r.parent, []);
      groups.get(r.parent).push(r);
    }
    for (const [parent, list] of groups) {
      if (this.kids.has(parent) && this.kids.get(parent).length >= list.length) continue;
      list.forEach((r, k) => {
        r.pos = k + 1;
        r.size = list.length;
        this.recs.set(r.node, r);
      });
      this.kids.set(parent, list);
    }
  }

  /** Marks `nodes` expanded (their children must be loaded) and shows the rows again. */
  expandNodes(nodes) {
    for (const n of nodes) if (this.kids.has(n)) this.expanded.add(n);
    this.flatten();
  }

  /** The visible rows: a depth-first walk of the expanded nodes. */
  flatten() {
    const at = this.visible[this.cursor]?.node;
    const out = [];
    const stack = [...(this.kids.get(0) || [])].reverse();
    while (stack.length) {
      const r = stack.pop();
      out.push(r);
      if (this.expanded.has(r.node)) {
        const list = this.kids.get(r.node) || [];
        for (let k = list.length - 1; k >= 0; k--) stack.push(list[k]);
      }
    }
    this.visible = out;
    this.box.setAttribute("aria-rowcount", String(out.length + 1));
    const k = at === undefined ? -1 : out.findIndex((r) => r.node === at);
    this.cursor = k >= 0 ? k : Math.min(this.cursor, Math.max(out.length - 1, 0));
    this.redraw();
  }

  /** Fills every row in the DOM again (data or columns changed). */
  redraw() {
    for (const el of this.pool) el.rec = null;
    if (this.extra) this.extra.rec = null;
    this.render();
  }

  /** Pixels of rows per scrolled pixel (1 unless the rows are higher than MAX_HEIGHT), and
   * the height of the rows' window (the box less its sticky header). */
  scale() {
    const view = Math.max(ROW_HEIGHT, (this.box.clientHeight || 400) - ROW_HEIGHT);
    const full = this.visible.length * ROW_HEIGHT;
    const size = Math.min(full, MAX_HEIGHT);
    return { view, full, size, ratio: full > size && size > view ? (full - view) / (size - view) : 1 };
  }

  /** Shows the rows of the scrolled window (and keeps the focused row) in the DOM, no others. */
  render() {
    const { view, full, size, ratio } = this.scale();
    if (size !== this.height) {
      this.height = size;
      this.body.style.height = `${size}px`;
    }
    const scrollTop = this.box.scrollTop;
    const top = Math.min(scrollTop * ratio, Math.max(0, full - view));
    // As many rows at the end as elsewhere: the pool keeps its size while scrolling.
    const want = Math.ceil(view / ROW_HEIGHT) + 1 + 2 * OVERSCAN;
    const n = this.visible.length;
    const first = Math.max(0, Math.min(Math.floor(top / ROW_HEIGHT) - OVERSCAN, n - want));
    const count = Math.min(want, n - first);
    const active = this.box.getRootNode().activeElement;
    const hadFocus = !!active?.rec && this.body.contains(active);
    while (this.pool.length < count) this.pool.push(this.block.appendChild(this.rowElement()));
    while (this.pool.length > count) this.pool.pop().remove();
    this.block.style.transform = `translateY(${scrollTop + first * ROW_HEIGHT - top}px)`;
    this.elements = new Map();
    this.pool.forEach((el, k) => {
      this.fill(el, first + k);
      this.elements.set(first + k, el);
    });
    const c = this.cursor;
    if (c < this.visible.length && (c < first || c >= first + count)) {
      if (!this.extra) {
        this.extra = this.rowElement();
        this.extra.classList.add("tg-offscreen");
      }
      if (!this.extra.isConnected) this.body.append(this.extra);
      this.fill(this.extra, c);
      this.elements.set(c, this.extra);
    } else this.extra?.remove();
    if (hadFocus && this.box.getRootNode().activeElement !== this.elements.get(c)) {
      const el = this.elements.get(c);
      if (el) el.focus({ preventScroll: true });
      else this.box.focus({ preventScroll: true });
    }
  }

  /** A row element with the columns' cells, empty (fill gives it a record). */
  rowElement() {
    const el = document.createElement("div");
    el.rec = null;
    el.className = "tg-row";
    el.setAttribute("role", "row");
    for (const c of this.o.columns) {
      const cell = document.createElement("div");
      cell.setAttribute("role", "gridcell");
      cell.className = `tg-cell ${c.cls}`;
      if (c.cls === "name") {
        const t = document.createElement("span");
        t.className = "tg-toggle";
        t.setAttribute("aria-hidden", "true");
        cell.append(t, document.createElement("span"));
      } else if (c.bar) cell.classList.add("tg-bar");
      el.append(cell);
    }
    return el;
  }

  /** Shows visible row `i` in the pooled element `el`: its text when the record changed,
   * then the attributes that follow the focus and selection. */
  fill(el, i) {
    const rec = this.visible[i];
    if (el.rec !== rec) {
      el.rec = rec;
      el.at = -1;
      el.setAttribute("aria-level", String(rec.depth));
      el.setAttribute("aria-setsize", String(rec.size));
      el.setAttribute("aria-posinset", String(rec.pos));
      this.o.columns.forEach((c, k) => {
        const cell = el.children[k];
        if (c.cls === "name") {
          cell.style.paddingLeft = `${(rec.depth - 1) * 14 + 2}px`;
          const label = this.o.label(rec);
          cell.lastChild.textContent = label;
          cell.title = label;
          return;
        }
        if (c.bar) {
          const bar = c.bar(rec);
          cell.style.backgroundSize = `${bar === undefined ? 0 : Math.max(0, Math.min(1, bar)) * 100}% 14px`;
        }
        cell.textContent = c.text(rec);
      });
    }
    this.updateRow(el, i);
  }

  /** Updates the rows in the DOM after the focus or the selection moved. */
  refreshRows() {
    this.version++;
    for (const [k, el] of this.elements) this.updateRow(el, k);
  }

  /** The attributes of row `i` that change without its data changing (when they may have:
   * it moved, or the focus or selection did since it was last updated). */
  updateRow(el, i) {
    if (el.at === i && el.version === this.version) return;
    el.at = i;
    el.version = this.version;
    const rec = el.rec;
    el.setAttribute("aria-rowindex", String(i + 2));
    const open = this.expanded.has(rec.node);
    if (rec.kids > 0) el.setAttribute("aria-expanded", String(open));
    else el.removeAttribute("aria-expanded");
    el.querySelector(".tg-toggle").textContent = rec.kids > 0 ? (open ? "▾" : "▸") : "";
    el.setAttribute("aria-selected", String(rec.node === this.selected));
    el.classList.toggle("tg-match", !!this.marked?.(rec));
    el.tabIndex = i === this.cursor ? 0 : -1;
  }

  recAt(e) {
    return e.target.closest(".tg-row")?.rec;
  }

  click(e) {
    const rec = this.recAt(e);
    if (!rec) return;
    const i = this.visible.indexOf(rec);
    if (e.target.closest(".tg-toggle")) {
      this.moveTo(i);
      this.toggle(rec);
      return;
    }
    this.moveTo(i);
    this.select(rec);
  }

  /** Moves the focus to visible row `i`, scrolled into view. */
  moveTo(i, focus = true) {
    if (!this.visible.length) return;
    this.cursor = Math.max(0, Math.min(this.visible.length - 1, i));
    // The sticky header covers the first ROW_HEIGHT pixels of the box; rows' pixels are
    // `ratio` scrolled pixels (scale()).
    const { view, ratio } = this.scale();
    const y = this.cursor * ROW_HEIGHT;
    const top = this.box.scrollTop * ratio;
    if (y < top) this.box.scrollTop = Math.floor(y / ratio);
    else if (y + ROW_HEIGHT > top + view) this.box.scrollTop = Math.ceil((y + ROW_HEIGHT - view) / ratio);
    this.render();
    this.refreshRows();
    if (focus) this.elements.get(this.cursor)?.focus({ preventScroll: true });
  }

  /** The focused row has the keyboard focus (after a redraw while it had it). */
  hasFocus() {
    return this.box.contains(this.box.getRootNode().activeElement);
  }

  select(rec) {
    this.selected = rec ? rec.node : -1;
    this.refreshRows();
    if (rec) this.o.onSelect(rec);
  }

  /** Shows `node` selected (and focused if `focus`) without telling anyone: the row must be visible. */
  showSelected(node, focus) {
    this.selected = node;
    const i = this.visible.findIndex((r) => r.node === node);
    if (i >= 0) this.moveTo(i, focus);
    else this.refreshRows();
  }

  async expand(rec) {
    if (rec.kids === 0 || this.expanded.has(rec.node)) return;
    if (!this.kids.has(rec.node)) this.addRows(await this.o.load([rec.node]));
    this.expanded.add(rec.node);
    this.flatten();
    if (this.hasFocus()) this.moveTo(this.cursor);
  }

  collapse(rec) {
    this.expanded.delete(rec.node);
    this.flatten();
    this.moveTo(this.visible.indexOf(rec));
  }

  toggle(rec) {
    if (this.expanded.has(rec.node)) this.collapse(rec);
    else this.expand(rec);
  }

  key(e) {
    const rec = this.visible[this.cursor];
    if (!rec || e.ctrlKey || e.metaKey || e.altKey) return;
    const page = Math.max(1, Math.floor(this.box.clientHeight / ROW_HEIGHT) - 1);
    const moves = {
      ArrowDown: this.cursor + 1,
      ArrowUp: this.cursor - 1,
      Home: 0,
      End: this.visible.length - 1,
      PageDown: this.cursor + page,
      PageUp: this.cursor - page,
    };
    if (e.key in moves) this.moveTo(moves[e.key]);
    else if (e.key === "ArrowRight") {
      if (rec.kids > 0 && !this.expanded.has(rec.node)) this.expand(rec);
      else if (rec.kids > 0) this.moveTo(this.cursor + 1);
    } else if (e.key === "ArrowLeft") {
      if (this.expanded.has(rec.node)) this.collapse(rec);
      else if (rec.parent !== 0) this.moveTo(this.visible.indexOf(this.recs.get(rec.parent)));
    } else if (e.key === "*") this.o.onExpandAll(rec);
    else if (e.key === "Enter") this.select(rec);
    else return;
    e.preventDefault();
    e.stopPropagation();
  }
}
