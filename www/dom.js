// DOM helpers shared by the viewer's modules. Text is always set as textContent (names in a
// profile are data, never markup).

/** The element with id `id`. */
export const $ = (id) => document.getElementById(id);

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
