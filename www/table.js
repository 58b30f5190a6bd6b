// The function table: one row per function, columns given by the caller (self and total for
// a view, both sides and their change in Compare mode), sortable and filterable. Rows and
// headers are built with textContent only (names are data, never markup).
import { formatValue, percent } from "./format.js";

const PAGE = 300;

/**
 * A column: `key`; `label` (header text); `title` (header tooltip); `cls` ('num', 'pct' or
 * 'name': alignment and width); `text(id)` (cell text); `sort` (numbers per frame id compared
 * in turn, largest first; absent for the name column, which sorts alphabetically). A second
 * click on a header reverses its order.
 */

/** The columns of a view's table: self and total with their shares of `grand`. */
export function functionColumns({ self, total, grand, unit }) {
  const bySelf = [self, total];
  const byTotal = [total, self];
  return [
    { key: "self", label: "Self", cls: "num", text: (i) => formatValue(self[i], unit), sort: bySelf },
    { key: "selfPct", label: "%", cls: "pct", text: (i) => percent(self[i], grand), sort: bySelf },
    { key: "total", label: "Total", cls: "num", text: (i) => formatValue(total[i], unit), sort: byTotal },
    { key: "totalPct", label: "%", cls: "pct", text: (i) => percent(total[i], grand), sort: byTotal },
    { key: "name", label: "Function", cls: "name" },
  ];
}

export class FunctionTable {
  constructor(table, filterInput, { onSelect }) {
    this.table = table;
    this.head = table.querySelector("thead");
    this.body = table.querySelector("tbody");
    this.filterInput = filterInput;
    this.onSelect = onSelect;
    this.sortKey = "self";
    this.descending = true;
    this.limit = PAGE;
    this.selected = -1;
    this.data = null;
    this.head.addEventListener("click", (e) => {
      const th = e.target.closest("th");
      if (!th) return;
      // A second click on the sorted column reverses it.
      this.descending = th.dataset.sort === this.sortKey ? !this.descending : true;
      this.sortKey = th.dataset.sort;
      this.limit = PAGE;
      this.render();
    });
    filterInput.addEventListener("input", () => {
      this.limit = PAGE;
      this.render();
    });
    this.body.addEventListener("click", (e) => {
      const tr = e.target.closest("tr");
      if (!tr) return;
      if (tr.classList.contains("more")) {
        this.limit += PAGE;
        this.render();
        return;
      }
      this.onSelect(Number(tr.dataset.frame));
    });
  }

  /**
   * names: string per frame id; columns: see above; include(id): whether the frame has a row;
   * sortKey: the column to sort by when the columns change (kept while they stay the same).
   */
  setData({ names, columns, include, sortKey }) {
    const layout = columns.map((c) => c.key).join();
    if (!this.data || this.data.layout !== layout) {
      this.sortKey = sortKey;
      this.descending = true;
      this.renderHead(columns);
    }
    this.data = { names, columns, include, layout };
    this.render();
  }

  renderHead(columns) {
    const tr = document.createElement("tr");
    for (const c of columns) {
      const th = document.createElement("th");
      th.dataset.sort = c.key;
      th.className = c.cls;
      th.textContent = c.label;
      if (c.title) th.title = c.title;
      tr.append(th);
    }
    this.head.replaceChildren(tr);
  }

  select(frame) {
    this.selected = frame;
    for (const tr of this.body.querySelectorAll("tr.selected")) tr.classList.remove("selected");
    const tr = this.body.querySelector(`tr[data-frame="${frame}"]`);
    if (tr) {
      tr.classList.add("selected");
      tr.scrollIntoView({ block: "nearest" });
    } else if (frame >= 0) {
      this.render();
    }
  }

  /** Frame ids in display order (after filter and sort). */
  order() {
    const { names, columns, include } = this.data;
    const q = this.filterInput.value.trim().toLowerCase();
    const ids = [];
    for (let i = 0; i < names.length; i++) {
      if (!include(i)) continue;
      if (q && !names[i].toLowerCase().includes(q)) continue;
      ids.push(i);
    }
    const byName = (a, b) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0);
    const column = columns.find((c) => c.key === this.sortKey) || columns[0];
    const keys = column.sort || [];
    const cmp = (a, b) => {
      for (const k of keys) {
        const d = k[b] - k[a];
        if (d) return d;
      }
      return byName(a, b);
    };
    ids.sort(this.descending ? cmp : (a, b) => cmp(b, a));
    return ids;
  }

  render() {
    if (!this.data) return;
    const { names, columns } = this.data;
    for (const th of this.head.querySelectorAll("th")) {
      th.classList.toggle("sorted", th.dataset.sort === this.sortKey);
      th.classList.toggle("ascending", th.dataset.sort === this.sortKey && !this.descending);
    }
    const ids = this.order();
    let shown = ids.slice(0, this.limit);
    if (this.selected >= 0 && !shown.includes(this.selected) && ids.includes(this.selected)) {
      shown = ids.slice(0, ids.indexOf(this.selected) + 1);
      this.limit = shown.length;
    }
    const frag = document.createDocumentFragment();
    for (const id of shown) frag.append(this.row(id, names, columns));
    if (ids.length > shown.length) {
      const tr = document.createElement("tr");
      tr.className = "more";
      const td = document.createElement("td");
      td.colSpan = columns.length;
      td.textContent = `${ids.length - shown.length} more…`;
      tr.append(td);
      frag.append(tr);
    }
    this.body.replaceChildren(frag);
  }

  row(id, names, columns) {
    const tr = document.createElement("tr");
    tr.dataset.frame = String(id);
    if (id === this.selected) tr.className = "selected";
    for (const c of columns) {
      const td = document.createElement("td");
      td.className = c.cls;
      td.textContent = c.text ? c.text(id) : names[id];
      if (c.cls === "name") td.title = td.textContent;
      tr.append(td);
    }
    return tr;
  }
}
