// A virtualised ARIA treegrid: rows of a tree whose children are loaded on demand, of which
// the DOM holds only those in the scrolled window (plus OVERSCAN above and below, and the
// focused row). Keyboard as the WAI-ARIA treegrid pattern with one focusable row (roving
// tabindex): ↑/↓, Home/End, PageUp/PageDown move; → expands or goes to the first child;
// ← collapses or goes to the parent; `*` expands everything below; Enter selects.
// Cells are built with textContent only (names are data, never markup).

/** Height of a row in CSS pixels (style.css's .tg-row has the same). */
export const ROW_HEIGHT = 22;
/** Rows kept in the DOM above and below the visible ones. */
export const OVERSCAN = 8;

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
    new ResizeObserver(() => this.render()).observe(box);
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
    this.body.replaceChildren();
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
    this.body.style.height = `${out.length * ROW_HEIGHT}px`;
    const k = at === undefined ? -1 : out.findIndex((r) => r.node === at);
    this.cursor = k >= 0 ? k : Math.min(this.cursor, Math.max(out.length - 1, 0));
    this.redraw();
  }

  /** Rebuilds the rows in the DOM (data or columns changed). */
  redraw() {
    const had = this.hasFocus();
    if (had) this.box.focus({ preventScroll: true });
    this.body.replaceChildren();
    this.elements = new Map();
    this.render();
    if (had) this.elements.get(this.cursor)?.focus({ preventScroll: true });
  }

  /** Puts the rows of the scrolled window (and the focused row) in the DOM, no others. */
  render() {
    const top = this.box.scrollTop;
    const height = this.box.clientHeight || 400;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.visible.length, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    const want = new Set();
    for (let i = first; i < last; i++) want.add(i);
    if (this.cursor < this.visible.length) want.add(this.cursor);
    for (const [i, el] of this.elements) {
      if (!want.has(i) || el.rec !== this.visible[i]) {
        if (el.contains(document.activeElement)) this.box.focus({ preventScroll: true });
        el.remove();
        this.elements.delete(i);
      }
    }
    for (const i of want) {
      const el = this.elements.get(i);
      if (el && el.rec === this.visible[i]) this.updateRow(el, i);
      else this.elements.set(i, this.body.appendChild(this.rowElement(i)));
    }
  }

  rowElement(i) {
    const rec = this.visible[i];
    const el = document.createElement("div");
    el.rec = rec;
    el.className = "tg-row";
    el.setAttribute("role", "row");
    el.setAttribute("aria-level", String(rec.depth));
    el.setAttribute("aria-setsize", String(rec.size));
    el.setAttribute("aria-posinset", String(rec.pos));
    el.style.top = `${i * ROW_HEIGHT}px`;
    for (const c of this.o.columns) {
      const cell = document.createElement("div");
      cell.setAttribute("role", "gridcell");
      cell.className = `tg-cell ${c.cls}`;
      if (c.cls === "name") {
        cell.style.paddingLeft = `${(rec.depth - 1) * 14 + 2}px`;
        const t = document.createElement("span");
        t.className = "tg-toggle";
        t.setAttribute("aria-hidden", "true");
        const name = document.createElement("span");
        name.textContent = this.o.label(rec);
        cell.title = name.textContent;
        cell.append(t, name);
      } else {
        const bar = c.bar?.(rec);
        if (bar !== undefined) {
          const b = document.createElement("span");
          b.className = "tg-bar";
          b.style.width = `${Math.max(0, Math.min(1, bar)) * 100}%`;
          cell.append(b);
        }
        const text = document.createElement("span");
        text.textContent = c.text(rec);
        cell.append(text);
      }
      el.append(cell);
    }
    this.updateRow(el, i);
    return el;
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
    el.style.top = `${i * ROW_HEIGHT}px`;
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
    // The sticky header covers the first ROW_HEIGHT pixels of the box.
    const y = this.cursor * ROW_HEIGHT;
    const h = this.box.clientHeight - ROW_HEIGHT;
    if (y < this.box.scrollTop) this.box.scrollTop = y;
    else if (y + ROW_HEIGHT > this.box.scrollTop + h) this.box.scrollTop = y + ROW_HEIGHT - h;
    this.render();
    this.refreshRows();
    if (focus) this.elements.get(this.cursor)?.focus({ preventScroll: true });
  }

  /** The focused row has the keyboard focus (after a redraw while it had it). */
  hasFocus() {
    return this.box.contains(document.activeElement);
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
