// The chips (#chips): what limits the shown samples (time range, facet value) and the
// transforms, each with a button that removes it through state.js.
import { $ } from "./dom.js";
import { formatValue } from "./format.js";
import { clearChosenSamples, clearFacet, frameLabel, on, removeTransform, S, setTimeRange } from "./state.js";
import { TRANSFORMS } from "./transforms.js";

function chip(text, title, onRemove) {
  const c = document.createElement("span");
  c.className = "chip";
  const label = document.createElement("span");
  label.textContent = text;
  label.title = title;
  const x = document.createElement("button");
  x.textContent = "×";
  x.title = "Remove";
  x.addEventListener("click", onRemove);
  c.append(label, x);
  return c;
}

/** A transform's chip text and title. */
function describe(t) {
  if (t.pattern === undefined) {
    const name = frameLabel(t.frame);
    return [`${TRANSFORMS[t.kind][2]}: ${name}`, `${TRANSFORMS[t.kind][1]}: ${name}`];
  }
  const n = t.frames.length;
  return [
    `hide: ${t.pattern} (${n} function${n === 1 ? "" : "s"})`,
    `Hidden (merged into their callers): ${t.frames.map(frameLabel).join(", ")}`,
  ];
}

function renderChips() {
  const chips = [];
  if (S.timeRange) {
    const [a, b] = S.timeRange;
    const text = `time ${formatValue(a, "seconds")} – ${formatValue(b, "seconds")}`;
    chips.push(chip(text, "Only samples in this time range", () => setTimeRange(null)));
  }
  if (S.facet) {
    const name = S.facets[S.facet.index].name;
    chips.push(chip(`${name} = ${S.facet.value}`, `Only samples whose ${name} is ${S.facet.value}`, clearFacet));
  }
  if (S.chosen) {
    const n = S.chosen.ids.length.toLocaleString("en-US");
    chips.push(
      chip(`SQL: ${n} sample ids`, `Only the samples whose sample_id this query returned:\n${S.chosen.query}`, clearChosenSamples),
    );
  }
  S.transforms.forEach((t, k) => {
    chips.push(chip(...describe(t), () => removeTransform(k)));
  });
  $("chips").replaceChildren(...chips);
}

on("chips", renderChips);
