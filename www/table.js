// The function table: self and total per function for the chosen value type, sortable and
// filterable. Rows are built with textContent only (names are data, never markup).
import { formatValue, percent } from './format.js';

const PAGE = 300;

export class FunctionTable {
  constructor(table, filterInput, { onSelect }) {
    this.table = table;
    this.body = table.querySelector('tbody');
    this.filterInput = filterInput;
    this.onSelect = onSelect;
    this.sortKey = 'self';
    this.limit = PAGE;
    this.selected = -1;
    this.data = null;
    table.querySelector('thead').addEventListener('click', (e) => {
      const th = e.target.closest('th');
      if (!th) return;
      this.sortKey = th.dataset.sort;
      this.limit = PAGE;
      this.render();
    });
    filterInput.addEventListener('input', () => {
      this.limit = PAGE;
      this.render();
    });
    this.body.addEventListener('click', (e) => {
      const tr = e.target.closest('tr');
      if (!tr) return;
      if (tr.classList.contains('more')) {
        this.limit += PAGE;
        this.render();
        return;
      }
      this.onSelect(Number(tr.dataset.frame));
    });
  }

  /** names: string per frame; self/total: Float64Array per frame; grand: total of the view. */
  setData(names, self, total, grand, unit) {
    this.data = { names, self, total, grand, unit };
    this.render();
  }

  select(frame) {
    this.selected = frame;
    for (const tr of this.body.querySelectorAll('tr.selected')) tr.classList.remove('selected');
    const tr = this.body.querySelector(`tr[data-frame="${frame}"]`);
    if (tr) {
      tr.classList.add('selected');
      tr.scrollIntoView({ block: 'nearest' });
    } else if (frame >= 0) {
      this.render();
    }
  }

  /** Frame ids in display order (after filter and sort). */
  order() {
    const { names, self, total } = this.data;
    const q = this.filterInput.value.trim().toLowerCase();
    const ids = [];
    for (let i = 0; i < names.length; i++) {
      if (self[i] === 0 && total[i] === 0) continue;
      if (q && !names[i].toLowerCase().includes(q)) continue;
      ids.push(i);
    }
    const k = this.sortKey;
    const byName = (a, b) => (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0);
    if (k === 'name') ids.sort(byName);
    else if (k === 'total' || k === 'totalPct') ids.sort((a, b) => total[b] - total[a] || self[b] - self[a] || byName(a, b));
    else ids.sort((a, b) => self[b] - self[a] || total[b] - total[a] || byName(a, b));
    return ids;
  }

  render() {
    if (!this.data) return;
    const { names, self, total, grand, unit } = this.data;
    for (const th of this.table.querySelectorAll('th')) th.classList.toggle('sorted', th.dataset.sort === this.sortKey);
    const ids = this.order();
    let shown = ids.slice(0, this.limit);
    if (this.selected >= 0 && !shown.includes(this.selected) && ids.includes(this.selected)) {
      shown = ids.slice(0, ids.indexOf(this.selected) + 1);
      this.limit = shown.length;
    }
    const frag = document.createDocumentFragment();
    for (const id of shown) {
      const tr = document.createElement('tr');
      tr.dataset.frame = String(id);
      if (id === this.selected) tr.className = 'selected';
      const cells = [
        [formatValue(self[id], unit), 'num'],
        [percent(self[id], grand), 'num'],
        [formatValue(total[id], unit), 'num'],
        [percent(total[id], grand), 'num'],
        [names[id], 'name'],
      ];
      for (const [text, cls] of cells) {
        const td = document.createElement('td');
        td.className = cls;
        td.textContent = text;
        if (cls === 'name') td.title = text;
        tr.append(td);
      }
      frag.append(tr);
    }
    if (ids.length > shown.length) {
      const tr = document.createElement('tr');
      tr.className = 'more';
      const td = document.createElement('td');
      td.colSpan = 5;
      td.textContent = `${ids.length - shown.length} more…`;
      tr.append(td);
      frag.append(tr);
    }
    this.body.replaceChildren(frag);
  }
}
